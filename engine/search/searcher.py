"""The searcher contract: what every game's engine offers the protocol layer.

One game at a time: :meth:`Searcher.search` finds a move for a position within limits
(keeping its tree for the next move of the same game), :meth:`Searcher.new_game` forgets
the tree, :meth:`Searcher.close` releases what the engine holds.  A search ends within a
few milliseconds of its deadline or of its ``stop`` event being set (the way another
thread stops it), never prints and never reads stdin, and never changes the position it
is given.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Protocol

from .limits import Limits, SearchInfo, SearchResult


class Searcher(Protocol):
    """A game's engine as the protocol layer uses it (see the module doc)."""

    def search(self, state: Any, limits: Limits, stop: threading.Event | None = None,
               on_info: Callable[[SearchInfo], None] | None = None) -> SearchResult:
        """The best move for the side to move of ``state`` (the game's position type)."""
        ...

    def new_game(self) -> None:
        """Forget everything learnt of the previous game."""
        ...

    def close(self) -> None:
        """Release threads, processes or memory held between searches (idempotent)."""
        ...
