"""``python -m protocol.gomocup``: run the brain (same as ``pbrain-mcts``)."""

import sys

from protocol.gomocup.cli import main

if __name__ == "__main__":
    sys.exit(main())
