"""The m,n,k engine: one game's searcher behind the searcher contract.

It picks the tree -- guided mode's C tree (:mod:`engine.mnk.tree.native`) where it can run,
else the generic MCTS (:mod:`engine.search.mcts`) with m,n,k's oracle and evaluator --
and, in guided mode, runs the root threat search (:mod:`engine.mnk.threats.roottactics`) before
the tree, or beside the C tree on a second thread.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import replace
from typing import Callable

import numpy as np

from ...game import GameError
from ...search.choice import mean, rank
from ...search.gcfreeze import older_objects_frozen
from ...search.limits import Limits, RootMove, SearchInfo, SearchResult
from ...search.mcts import MCTS
from ...search.searcher import TreeSearch
from ..board.cellsets import CellSets
from ..board.history import continuation
from ..board.rules import Board, GameConfig
from ..playouts.leaves import PlayoutLeaves
from ..playouts.oracle import LineOracle
from ..threats.roottactics import RECHECK_AFTER, THREAD_SHARE, BestMoveCheck, RootPlan, plan_root
from ..threats.solver import fast_solver
from .guided import GuidedLeaves
from .native import NativeSearcher, available as native_available
from .options import MnkOptions, Mode

#: On boards larger than this many cells only the empty cells near stones are tried
#: (within :data:`CANDIDATE_RADIUS`, Chebyshev distance); smaller boards try every cell.
FULL_WIDTH_AREA = 64
CANDIDATE_RADIUS = 2
#: Boards over this many cells value more playouts per leaf and batch more leaves, which
#: amortises the fixed cost of a batch (measured best on 15x15).
BIG_BOARD = 100
BIG_BATCH = 48
#: How long a search that ends before its root threat plan waits for the plan to stop
#: (the plan checks for that between solver calls, each bounded by a share of the turn).
PLAN_JOIN_S = 0.02


def root_thread_applies(config: GameConfig, options: MnkOptions) -> bool:
    """Would ``options`` on ``config`` search with the C tree and the root threat search, so
    that a second thread (``options.root.thread``) has work beside the tree?"""
    return options.mode is Mode.GUIDED and options.root.enabled and native_available(config, options)


class MnkEngine:
    """Plays one m,n,k game at a time, keeping its search tree between moves.

    ``seed`` is an ``int`` or a ``numpy.random.Generator`` (``None``: fresh entropy); with
    the same seed and a node or playout limit (no deadline) a search is reproducible.  The
    engine never prints, never reads stdin and never modifies the boards it is given.
    """

    def __init__(self, config: GameConfig, options: MnkOptions | None = None,
                 seed: int | np.random.Generator | None = None) -> None:
        if not isinstance(config, GameConfig):
            raise TypeError("config must be a GameConfig")
        options = options if options is not None else MnkOptions.uct()
        self.config = config
        self.options = options
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        full_width = config.area <= FULL_WIDTH_AREA
        native = native_available(config, options)
        self._tree: TreeSearch
        if native:
            self._tree = NativeSearcher(config, options, full_width)
        else:
            big = config.area > BIG_BOARD
            weight = options.leaves.playouts or (16 if big else 8)
            sets = CellSets(config, CANDIDATE_RADIUS)
            if options.mode is Mode.GUIDED:
                know = options.knowledge
                vct_nodes = options.budgets(fast_solver(config)).vct_nodes if know.vct_nodes is None else know.vct_nodes
                leaves = GuidedLeaves(config, sets, weight, full_width, know.vcf_nodes, know.defence_nodes,
                                      vct_nodes, know.vct_threes, options.leaves.eval_weight)
            else:
                leaves = PlayoutLeaves(config, sets, weight, full_width)
            tree = options.tree
            if big:
                tree = replace(tree, leaves_per_batch=max(tree.leaves_per_batch, BIG_BATCH))
            self._tree = MCTS(leaves, LineOracle(config, sets), tree, self.rng)
        self._root_threats = options.mode is Mode.GUIDED and options.root.enabled
        # Beside the tree only where both release the interpreter lock (the C tree and solver).
        self._beside = self._root_threats and options.root.thread and native
        self._last: tuple[list[int], int, list[int]] | None = None  # the last root: cells, mover, history
        #: True when the last search continued the previous search's tree.
        self.reused = False

    # ------------------------------------------------------------------ the searcher contract
    def new_game(self) -> None:
        """Forget the tree (the next search starts from scratch)."""
        self._tree.reset()
        self._last = None
        self.reused = False

    def close(self) -> None:
        """Nothing to release (the engine holds no process or thread between searches)."""

    def search(
        self,
        board: Board,
        limits: Limits,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
    ) -> SearchResult:
        """Best move for the side to move on ``board`` within ``limits``.

        Returns within a few milliseconds of ``limits.deadline`` or of ``stop`` being set (a
        deadline already past still yields a sensible move: an immediate win, the forced
        block, else the best-ordered candidate).  A proven win is returned at once.
        ``on_info`` is called a few times a second and once at the end.  Raises
        :class:`engine.game.GameError` when the game is over or ``board`` is for another
        configuration.

        In guided mode a threat search at the root comes first (a share of the time set by
        the budgets): a VCF or VCT found is played at once (``reason`` ``"vcf"``/``"vct"``),
        and root moves after which the opponent has a VCT are dropped before the tree
        search; with ``options.root.thread`` and the C tree it runs beside the tree.  Under
        the opponent's threat, the move the tree settles on is checked again before it is
        played when the plan left it open (:class:`engine.mnk.threats.roottactics.BestMoveCheck`;
        not beside the tree, where the plan's own checks take nearly the whole turn).
        """
        started = time.monotonic()
        if not isinstance(board, Board) or board.config != self.config:
            label = board.config.label if isinstance(board, Board) else type(board).__name__
            raise GameError(f"board is {label}, engine is {self.config.label}")
        if board.is_over:
            raise GameError("the game is over: no legal move")
        with older_objects_frozen():  # the root's threat search allocates too
            return self._search(board, limits, stop, on_info, started)

    def _search(self, board: Board, limits: Limits, stop: threading.Event | None,
                on_info: Callable[[SearchInfo], None] | None, started: float) -> SearchResult:
        """The body of :meth:`search`, with the older objects frozen for the garbage collector."""
        tree = self._tree
        self.reused = tree.set_root(self._with_continued_history(board))
        if self._root_threats and self._beside and limits.deadline is not None and not tree.root_settled():
            return self._search_beside_tactics(board, limits, stop, on_info, started)
        stopped = stop is not None and stop.is_set()  # answer at once: no threat search first
        check = None
        if self._root_threats and not stopped and not tree.root_settled():
            plan = self._plan(board, tree.root_moves(), limits.deadline)
            if plan.move is not None:
                return _proven_win(plan, started, on_info)
            if plan.losing:
                tree.drop_root_moves(plan.losing)
            if plan.open and limits.deadline is not None:
                now = time.monotonic()
                threes = self.options.budgets(fast_solver(self.config)).threat_threes
                check = BestMoveCheck(board.copy(), tree, plan.open, now + RECHECK_AFTER * (limits.deadline - now),
                                      limits.deadline, threes, stop)
        return tree.search(limits, stop=stop, on_info=on_info, started=started, between=check)

    def root_children(self):
        """The root's moves and statistics after the last search (:class:`engine.search.choice.Child`)."""
        return self._tree.root_children()

    def rank_moves(self, board: Board, limits: Limits, count: int | None = None,
                   stop: threading.Event | None = None,
                   on_info: Callable[[SearchInfo], None] | None = None) -> tuple[SearchResult, list[RootMove]]:
        """Search ``board`` as :meth:`search` does and rank its moves: the result, and the
        best ``count`` moves (every move with ``None``), best first -- the move the search
        plays, then :func:`engine.search.choice.rank` -- each with its value for the side to
        move, visits, proven result and its own line (a GUI's multi-PV report).

        ``on_info`` gets the search's reports with ``ranked`` filled in (the same ranking so
        far).  A win the root threat search proves before the tree ends the search: the
        ranking is then that one move.
        """
        def report(info: SearchInfo) -> None:
            info.ranked = self._ranked(count, info.pv[0] if info.pv else None, info.depth)
            on_info(info)

        result = self.search(board, limits, stop, report if on_info is not None else None)
        if result.proven == "win" and not self._tree.root_children():
            return result, [RootMove(result.move, 1.0, 0.0, "win", None, list(result.pv), result.depth)]
        ranked = self._ranked(count, result.move, result.depth)
        if ranked and ranked[0].move == result.move:
            ranked[0].pv = list(result.pv) or ranked[0].pv
        return result, ranked

    def _ranked(self, count: int | None, first: int | None, depth: int) -> list[RootMove]:
        """The root's moves best first (``first``, the move the search would play, leads);
        ``depth`` how deep the tree reached."""
        children = self._tree.root_children()
        order = rank(children)
        at = next((j for j, i in enumerate(order) if children[i].move == first), None)
        if at:
            order.insert(0, order.pop(at))
        out = []
        for i in order[:count]:
            c = children[i]
            out.append(RootMove(int(c.move), mean(c), float(c.n), c.outcome.label, None,
                                self._tree.line(int(c.move)), depth))
        return out

    @property
    def tree(self) -> TreeSearch:
        """The search tree (the generic MCTS or the C tree), for inspection."""
        return self._tree

    # ------------------------------------------------------------------ internals
    def _with_continued_history(self, board: Board) -> Board:
        """``board``, or a copy whose history continues the last root's when the position
        follows from it (a BOARD command lists stones in any order), so that the tree, which
        reuses by history, finds its subtree."""
        cells = [board.cells[c] for c in self.config.pad]
        last, self._last = self._last, (cells, int(board.to_move), list(board.history))
        if last is None or not self.options.tree.reuse_tree:
            return board
        old_cells, old_mover, old_history = last
        if board.history[: len(old_history)] == old_history:
            return board
        seq = continuation(old_cells, old_mover, cells, board.history, int(board.to_move))
        if seq is None:
            return board
        state = board.clone()
        state.history = old_history + seq
        self._last = (cells, int(board.to_move), list(state.history))
        return state

    def _plan(self, board: Board, moves: list[int], deadline: float | None, beside_tree: bool = False,
              stop: threading.Event | None = None,
              on_losing: Callable[[list[int]], None] | None = None) -> RootPlan:
        """:func:`engine.mnk.threats.roottactics.plan_root` of the root ``moves`` on a copy of ``board``
        with this engine's budgets; ``beside_tree``: with :data:`THREAD_SHARE` of the time
        (it runs on its own thread) instead of the root's share.  ``on_losing`` as ``plan_root``'s."""
        work = board.copy()  # the solvers set and clear stones in place; the caller's board stays untouched
        budgets = self.options.budgets(fast_solver(self.config))
        share = dict(share=THREAD_SHARE, threat_share=THREAD_SHARE) if beside_tree else dict(share=budgets.root_share)
        return plan_root(
            work, moves, deadline, **share,
            threes=budgets.root_threes, reply_threes=self.options.root.reply_threes,
            reply_nodes=budgets.reply_nodes, threat_threes=budgets.threat_threes, stop=stop,
            on_losing=on_losing,
        )

    def _search_beside_tactics(self, board: Board, limits: Limits, stop: threading.Event | None,
                               on_info: Callable[[SearchInfo], None] | None, started: float) -> SearchResult:
        """The C tree's search with :func:`engine.mnk.threats.roottactics.plan_root` on a second thread.

        Both spend their time in C with the interpreter lock released, so they run on two
        cores.  The moves the plan proves lost leave the root as soon as it proves them,
        between two slices of the tree's search (the tree keeps what it learnt of the
        others), and the rest of its verdicts when it arrives; a forced win it finds ends
        the search and is played.  A plan still running when the tree stops is told to
        stop and, if it cannot answer within :data:`PLAN_JOIN_S`, left to finish alone
        (its deadline bounds it).
        """
        tree = self._tree
        # Both read here: the tree changes as soon as it searches, and the caller may reuse
        # its board once the search returns, which can be before the plan has begun.
        moves = tree.root_moves()
        position = board.copy()
        halt = threading.Event()
        box: list[RootPlan | BaseException] = []
        proven_lost: queue.SimpleQueue[list[int]] = queue.SimpleQueue()

        def plan() -> None:
            try:
                box.append(self._plan(position, moves, limits.deadline, beside_tree=True, stop=halt,
                                      on_losing=proven_lost.put))
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
            while not proven_lost.empty():
                tree.drop_root_moves(proven_lost.get())
            if applied or not box:
                return False
            applied = True
            if isinstance(box[0], BaseException):
                raise box[0]
            if box[0].move is not None:
                return True
            if box[0].losing:
                tree.drop_root_moves(box[0].losing)
            return False

        thread.start()
        try:
            result = tree.search(limits, stop=stop, on_info=on_info, started=started, between=between)
        finally:
            halt.set()
        found = box[0] if box and applied else None
        if isinstance(found, RootPlan) and found.move is not None:
            return _proven_win(found, started, on_info)
        return result


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
