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


class TreeSearch(Protocol):
    """A game's tree behind its engine: the generic :class:`engine.search.mcts.MCTS`, or a
    specialised tree with the same root methods (m,n,k's guided tree in C)."""

    def set_root(self, state: Any) -> bool:
        """Make ``state`` the root, keeping the subtree of the position reached; True on reuse."""
        ...

    def root_settled(self) -> bool:
        """Is the root decided before any search (proven, or its moves forced)?"""
        ...

    def root_moves(self) -> list[int]:
        """The root's moves, best-ordered first."""
        ...

    def drop_root_moves(self, drop: Any) -> int:
        """Remove ``drop`` from the root's moves (never all of them); how many went."""
        ...

    def search(self, limits: Limits, stop: threading.Event | None = None,
               on_info: Callable[[SearchInfo], None] | None = None, started: float | None = None,
               between: Callable[[bool], bool] | None = None) -> SearchResult:
        """Search from the root until a limit, ``stop``, a proof, or ``between`` says so."""
        ...

    def root_children(self) -> list[Any]:
        """The root's moves with their statistics (:class:`engine.search.choice.Child`)."""
        ...

    def line(self, move: int, limit: int = 32) -> list[int]:
        """The principal variation that starts with root move ``move`` (``[move]`` at least)."""
        ...

    def reset(self) -> None:
        """Forget the tree."""
        ...
