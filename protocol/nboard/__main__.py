"""``python -m protocol.nboard``: run the engine (same as ``nboard-mcts``)."""

import sys

from protocol.nboard.cli import main

if __name__ == "__main__":
    sys.exit(main())
