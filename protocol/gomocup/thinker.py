"""Searchers the session can ask for a move: the real engine, or an instant fallback.

The engine is built by :mod:`protocol.engines` (shared with the NBoard program):
``engine.api`` (and so numpy) is imported only when the first engine is built, which
keeps the brain's start-up fast.
"""

from __future__ import annotations

import inspect
import threading
import time
from typing import Any, Callable, Protocol

from engine.search.limits import Limits, RootMove, SearchInfo, SearchResult
from engine.mnk.board.rules import Board, GameConfig

from protocol import engines
from protocol.gomocup.position import quick_move


class Thinker(Protocol):
    """Anything that finds a move for the side to move (``engine.api.Engine`` fits)."""

    def search(self, board: Board, limits: Limits, stop: threading.Event | None = None) -> SearchResult:
        """Return a legal move for ``board`` within ``limits`` (or soon after ``stop``)."""
        ...


#: Builds the searcher for one game.
ThinkerFactory = Callable[[GameConfig], Thinker]


class QuickThinker:
    """No search: :func:`protocol.gomocup.position.quick_move` (win, block, else near the centre)."""

    def search(self, board: Board, limits: Limits, stop: threading.Event | None = None,
               on_info: Callable[[SearchInfo], None] | None = None) -> SearchResult:
        """The quick move, reported as a zero-playout search."""
        t0 = time.monotonic()
        move = quick_move(board)
        return SearchResult(move=move, pv=[move], elapsed=time.monotonic() - t0, reason="quick move (no search)")


class EngineFactory(engines.EngineFactory):
    """:class:`protocol.engines.EngineFactory` for m,n,k games, with :func:`quick_move` as
    the instant move: ``mode`` is the engine's preset (``guided`` or ``uct``)."""

    def __init__(self, mode: str = "uct", values: dict[str, Any] | None = None, seed: int | None = None,
                 threads: int = 1) -> None:
        super().__init__(GameConfig(), quick_move, mode, values, seed, threads)

    def __call__(self, config: GameConfig) -> "LazyEngine":
        """The m,n,k :class:`LazyEngine` of one game (it can rank moves too)."""
        return LazyEngine(self, config)


class LazyEngine(engines.LazyEngine):
    """:class:`protocol.engines.LazyEngine` of one m,n,k game (its instant move is
    :func:`quick_move`: win, block, else near the centre)."""

    def __init__(self, factory: Any, config: GameConfig) -> None:
        super().__init__(factory, config, quick_move)

    def rank_moves(self, board: Board, limits: Limits, count: int | None = None,
                   stop: threading.Event | None = None,
                   on_info: Callable[[SearchInfo], None] | None = None) -> tuple[SearchResult, list[RootMove]]:
        """The engine's :meth:`engine.mnk.tree.engine.MnkEngine.rank_moves` once it is built, else
        the quick move alone."""
        engine, why = self.engine(limits, stop)
        if engine is None:
            result = self.quick(board, why)
            return result, [RootMove(result.move, pv=[result.move])]
        return engine.rank_moves(board, limits, count, stop, on_info)


def search(thinker: Thinker, board: Board, limits: Limits, stop: threading.Event | None,
           on_info: Callable[[SearchInfo], None] | None = None) -> SearchResult:
    """``thinker.search``, with ``on_info`` passed only when there is one (a thinker need
    not report progress)."""
    if on_info is None or not _takes_on_info(thinker.search):
        return thinker.search(board, limits, stop)
    return thinker.search(board, limits, stop, on_info=on_info)  # type: ignore[call-arg]


def _takes_on_info(method: Callable[..., Any]) -> bool:
    """Does ``method`` accept an ``on_info`` keyword?"""
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return "on_info" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def rank_moves(thinker: Thinker, board: Board, limits: Limits, count: int | None,
               stop: threading.Event | None,
               on_info: Callable[[SearchInfo], None] | None = None) -> tuple[SearchResult, list[RootMove]]:
    """The thinker's ranking of ``count`` moves (every move with ``None``), best first; a
    thinker that cannot rank gives its one move."""
    rank = getattr(thinker, "rank_moves", None)
    if rank is not None:
        return rank(board, limits, count, stop, on_info)
    result = search(thinker, board, limits, stop, on_info)
    return result, [RootMove(result.move, result.value, float(result.visits), result.proven, None,
                             list(result.pv) or [result.move], result.depth)]
