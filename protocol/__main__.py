"""``python -m protocol``: run the brain (same as ``pbrain-mcts``)."""

import sys

from protocol.cli import main

if __name__ == "__main__":
    sys.exit(main())
