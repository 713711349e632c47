"""The engine facade: the only entry point the protocol layer uses.

>>> from engine.mnk.rules import Board, GameConfig
>>> from engine.search.limits import Limits
>>> res = best_move(Board(GameConfig.square(3, 3)), Limits(nodes=200), seed=1)
>>> 0 <= res.move < 9
True
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np

from .search.limits import Limits, SearchInfo, SearchResult
from .mnk.mcts import Searcher
from .mnk.nativesearch import NativeSearcher, available as native_available
from .mnk.options import EngineOptions
from .mnk.roottactics import THREAD_SHARE, RootPlan, plan_root
from .mnk.rules import Board, GameConfig
from .mnk.threats import ThreatKnowledge, fast_solver

__all__ = ["Engine", "EngineOptions", "best_move"]

#: How long a search that ends before its root threat plan waits for the plan to stop
#: (the plan checks for that between solver calls, each bounded by a share of the turn).
PLAN_JOIN_S = 0.02


def require_playable(board: Board, config: GameConfig) -> None:
    """The checks every searcher makes first: raise ``ValueError`` when ``board``
    is for another configuration than ``config`` or the game is over."""
    if board.config != config:
        raise ValueError(f"board is {board.config.label}, engine is {config.label}")
    if board.is_over:
        raise ValueError("the game is over: no legal move")


class Engine:
    """Plays one game at a time, keeping its search tree between moves.

    ``seed`` is an ``int`` or a ``numpy.random.Generator`` (``None``: fresh
    entropy).  With the same seed and a node or playout limit (no deadline)
    a search is reproducible.  The engine never prints, never reads stdin and
    never modifies the boards it is given.
    """

    def __init__(
        self,
        config: GameConfig,
        options: EngineOptions = EngineOptions(),
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if not isinstance(config, GameConfig):
            raise TypeError("config must be a GameConfig")
        self.config = config
        self.options = options
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self._searcher: Searcher | NativeSearcher = (
            NativeSearcher(config, options) if native_available(config, options) else Searcher(config, options, self.rng)
        )
        self._root_threats = _wants_root_threats(options)
        #: True when the last search continued the previous search's tree.
        self.reused = False

    def new_game(self) -> None:
        """Forget the tree (the next search starts from scratch)."""
        self._searcher.reset()
        self.reused = False

    def search(
        self,
        board: Board,
        limits: Limits,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
    ) -> SearchResult:
        """Best move for the side to move on ``board`` within ``limits``.

        Returns within a few milliseconds of ``limits.deadline`` or of ``stop``
        being set (a deadline already past still yields a sensible move: an
        immediate win, the forced block, else the best-ordered candidate).
        A proven win is returned at once.  ``on_info`` is called a few times a
        second and once at the end.  Raises ``ValueError`` when the game is
        over (no legal move) and when ``board`` is for another configuration.

        In guided mode with the default threat knowledge, a threat search at
        the root comes first (:mod:`engine.mnk.roottactics`, a share of the time
        set by ``EngineOptions.root_share``): a VCF or VCT found is played at
        once (``reason`` ``"vcf"``/``"vct"``), and root moves after which the
        opponent has a VCT are dropped before the tree search.
        """
        started = time.monotonic()
        require_playable(board, self.config)
        self.reused = self._searcher.set_root(board)
        if self._root_threats and self._tactics_beside_tree(limits):
            return self._search_beside_tactics(board, limits, stop, on_info, started)
        if self._root_threats:
            won = self._root_tactics(board, limits)
            if won is not None:
                return _proven_win(won, started, on_info)
        return self._searcher.search(limits, stop=stop, on_info=on_info, started=started)

    def _plan(self, board: Board, moves: list[int], deadline: float | None, beside_tree: bool = False,
              stop: threading.Event | None = None) -> RootPlan:
        """:func:`engine.mnk.roottactics.plan_root` of the root ``moves`` on a copy of ``board``, with
        this engine's budgets; ``beside_tree``: with :data:`engine.mnk.roottactics.THREAD_SHARE` of
        the time (it runs on its own thread) instead of the root's share."""
        work = board.copy()  # the solvers set and clear stones in place; the caller's board stays untouched
        budgets = self.options.threat_budgets(fast_solver(self.config))
        share = dict(share=THREAD_SHARE, threat_share=THREAD_SHARE) if beside_tree else dict(share=budgets.root_share)
        return plan_root(
            work, moves, deadline, **share,
            threes=budgets.root_threes, reply_threes=self.options.reply_threes, reply_nodes=budgets.reply_nodes,
            threat_threes=budgets.threat_threes, stop=stop,
        )

    def _root_tactics(self, board: Board, limits: Limits) -> RootPlan | None:
        """Run :meth:`_plan` on an unproven root; return the plan when it found a forced
        win, else prune the root and return None."""
        searcher = self._searcher
        if searcher.root_settled():
            return None  # decided already, or the tree's exact knowledge forces the block
        plan = self._plan(board, searcher.root_moves(), limits.deadline)
        if plan.move is not None:
            return plan
        if plan.losing:
            searcher.drop_root_moves(plan.losing)
        return None

    def _tactics_beside_tree(self, limits: Limits) -> bool:
        """Does this search run the root threat search on a thread of its own
        (``EngineOptions.root_thread``: the C tree, a deadline, an unsettled root)?"""
        return (
            self.options.root_thread
            and limits.deadline is not None
            and isinstance(self._searcher, NativeSearcher)
            and not self._searcher.root_settled()
        )

    def _search_beside_tactics(
        self,
        board: Board,
        limits: Limits,
        stop: threading.Event | None,
        on_info: Callable[[SearchInfo], None] | None,
        started: float,
    ) -> SearchResult:
        """The tree search, with :func:`engine.mnk.roottactics.plan_root` on a second thread.

        Both spend their time in C with the interpreter lock released, so they run on
        two cores.  When the plan arrives, the moves it proves lost leave the root
        (the tree keeps what it learnt of the others); a forced win it finds ends the
        search and is played.  A plan still running when the tree stops is told to
        stop and, if it cannot answer within :data:`PLAN_JOIN_S`, left to finish
        alone (its deadline bounds it).
        """
        searcher = self._searcher
        assert isinstance(searcher, NativeSearcher)
        # Both read here: the tree changes as soon as it searches, and the caller may reuse
        # its board once the search returns, which can be before the plan has begun.
        moves = searcher.root_moves()
        position = board.copy()
        halt = threading.Event()
        box: list[RootPlan | BaseException] = []

        def plan() -> None:
            try:
                box.append(self._plan(position, moves, limits.deadline, beside_tree=True, stop=halt))
            except BaseException as exc:  # noqa: BLE001 - raised again on the search's thread
                box.append(exc)

        thread = threading.Thread(target=plan, name="root-tactics", daemon=True)
        applied = False

        def between(last: bool) -> bool:
            """Apply the plan once it is there; True (end the search) on a proven win."""
            nonlocal applied
            if last and not box:
                halt.set()
                thread.join(PLAN_JOIN_S)
            if applied or not box:
                return False
            applied = True
            if isinstance(box[0], BaseException):
                raise box[0]
            if box[0].move is not None:
                return True
            if box[0].losing:
                searcher.drop_root_moves(box[0].losing)
            return False

        thread.start()
        try:
            result = searcher.search(limits, stop=stop, on_info=on_info, started=started, between=between)
        finally:
            halt.set()
        found = box[0] if box and applied else None
        if isinstance(found, RootPlan) and found.move is not None:
            return _proven_win(found, started, on_info)
        return result

    def root_stats(self) -> list[tuple[int, float, float, str | None]]:
        """``(move, n, w, proven)`` of the root's tried children after the last
        search (see :meth:`engine.mnk.mcts.Searcher.root_stats`); used to merge
        parallel searches."""
        return self._searcher.root_stats()


def _wants_root_threats(options: EngineOptions) -> bool:
    """Does a search with ``options`` run the root threat search?  Guided mode with the
    threat module as its knowledge only (a custom knowledge hook is left to decide alone)."""
    return options.mode == "guided" and options.root_threats and isinstance(options.knowledge, ThreatKnowledge)


def root_thread_applies(config: GameConfig, options: EngineOptions) -> bool:
    """Would ``options`` on ``config`` search with the C tree and the root threat search, so
    that ``EngineOptions.root_thread`` can put a second core to use?"""
    return _wants_root_threats(options) and native_available(config, options)


def _proven_win(plan: RootPlan, started: float, on_info: Callable[[SearchInfo], None] | None) -> SearchResult:
    """The result of a search that a root plan's forced win (``plan.move``) ended, reported
    to ``on_info`` as its last info."""
    won = SearchResult(
        move=plan.move, visits=0, value=1.0, pv=list(plan.line), elapsed=time.monotonic() - started,
        proven="win", reason=plan.reason,
    )
    if on_info is not None:
        on_info(SearchInfo(playouts=0, nodes=0, depth=0, value=1.0, pv=list(won.pv), elapsed=won.elapsed))
    return won


def best_move(
    board: Board,
    limits: Limits,
    seed: int | np.random.Generator | None = None,
    options: EngineOptions | None = None,
) -> SearchResult:
    """One-shot search of ``board`` with a fresh :class:`Engine`."""
    engine = Engine(board.config, options or EngineOptions(), seed=seed)
    return engine.search(board, limits)
