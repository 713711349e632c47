"""The 8x8 Reversi search tree in C with pattern leaves, beside the generic MCTS.

``engine/reversi/_reversi_tree.h`` (the ``Tree`` type of the ``engine.reversi._reversicore``
extension) runs the algorithm of :mod:`engine.search.mcts` for
:class:`~engine.reversi.evaluation.patternleaves.PatternLeaves` and
:class:`~engine.reversi.endgame.oracle.ReversiOracle`: UCT ``q + c * sqrt(ln N / n)`` with the
exploration term refreshed when ``N`` has grown by 10 %, untried moves first in the
evaluator's order (best one-ply value first), progressive widening, progressive bias and
implicit minimax as the Python tree applies them, MCTS-Solver proofs (finished games, the
kernel's win/draw/loss solves from ``tree_empties`` within ``tree_nodes`` solver nodes with
the winning move listed first, proofs from the children), tree reuse by history, and node /
playout / deadline / tree-size limits.  Its whole iteration is C, where the Python tree
spends most of its time in Python; the leaf is the same ``eval_depth``-ply search on the
pattern evaluation, the kernel's own alpha-beta (the one ``eval_leaves`` runs).  The root's exact solve
stays in Python (:meth:`ReversiOracle.solve_root`, called by the engine first); the tree is
handed the root's verdict.

The generic MCTS is the reference: ``tests/engine/test_reversi_tree_pair.py`` runs both one
leaf at a time from fixed positions and asserts the same root visits, values, proofs and
move.  Differences, all deliberate:

- one leaf at a time: no batches and so no virtual loss spread over a batch
  (``leaves_per_batch`` and ``min_batch`` are not used); the Python tree with
  ``leaves_per_batch=1, min_batch=1`` makes the same choices;
- the tree's verdicts are cached in a fixed table of the C tree (a position met again is
  not solved again; the solves are deterministic, so the cache changes the time, never a
  verdict); the Python oracle's cache is shared with the root's exact solves, which the C
  tree never sees (a position solved exactly at the root of an earlier game is solved
  win/draw/loss again when the tree meets it);
- the tree's solver counters are added to the oracle's (``solves``, ``solved``,
  ``solver_nodes``) after each search, so reports count both;
- on reuse the kept subtree is copied into fresh arrays (the rest is dropped at once);
- a stop event, ``on_info`` and the deadline are served between short C runs of
  :data:`engine.search.slices.SLICE` seconds (:func:`engine.search.slices.run_sliced`).

:func:`available` says whether an engine's options select it.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from ...game import GameError, Outcome
from ...search.choice import Child, choose, mean
from ...search.limits import Limits, SearchInfo, SearchResult
from ...search.mcts import TreeSettings
from ...search.slices import run_sliced
from .. import kernel
from ..board.rules import ReversiState
from ..endgame.oracle import ReversiOracle
from ..endgame.solver import EVAL_ORDER_EMPTIES
from ..evaluation import patterns
from ..evaluation.patternleaves import PatternLeaves

_PV_LIMIT = 32
_SCORE = {Outcome.WIN: 1.0, Outcome.LOSS: 0.0, Outcome.DRAW: 0.5}


def available(n: int, native: bool, evaluator: object) -> bool:
    """Does an engine on an ``n`` x ``n`` board with this evaluator run the C tree?  8x8, the
    pattern leaves, the C kernel in use (not ``MNK_PURE_PYTHON``) with its tree, and
    ``native`` (the option) on."""
    core = kernel.native()
    return (native and n == patterns.SIDE and isinstance(evaluator, PatternLeaves) and core is not None
            and hasattr(core, "Tree") and evaluator.ev.handle is not None)


class NativeTree:
    """The C tree with the root methods of :class:`engine.search.mcts.MCTS` that
    :class:`~engine.reversi.tree.engine.ReversiEngine` uses (``set_root``, ``search``,
    ``root_children``, ``principal_variation``, ``line``, ``reset``)."""

    def __init__(self, evaluator: PatternLeaves, oracle: ReversiOracle | None, settings: TreeSettings) -> None:
        core = kernel.native()
        if core is None or not hasattr(core, "Tree"):
            raise GameError("the C tree needs the Reversi kernel (engine.reversi._reversicore)")
        self.evaluator = evaluator
        self.oracle = oracle
        self.settings = settings
        order = patterns.default()
        self._tree = core.Tree(
            leaf_ev=evaluator.ev.handle,
            order_ev=order.handle if order is not None else None,
            depth=evaluator.depth,
            leaf_k=evaluator._k,
            prior_t=1.0 / (patterns.SCALE * evaluator.temperature),
            weight=float(evaluator.weight),
            exploration=settings.exploration,
            widening=settings.widening,
            prior_bias=settings.prior_bias,
            minimax=settings.minimax,
            solver=oracle is not None,
            tree_empties=oracle.tree_empties if oracle is not None else 0,
            tree_nodes=oracle.tree_nodes if oracle is not None else 0,
            ev_min=EVAL_ORDER_EMPTIES,
        )
        self._history: list[int] | None = None  # the root's history; None: no root
        self._reported = (0, 0, 0)  # solver counters already added to the oracle's

    # ------------------------------------------------------------------ root
    def reset(self) -> None:
        """Forget the tree."""
        self._tree.reset()
        self._history = None

    @property
    def tree_nodes(self) -> int:
        """Nodes held by the tree."""
        return self._tree.counts()[4] if self._history is not None else 0

    def set_root(self, state: ReversiState) -> bool:
        """Make ``state`` the root, keeping the subtree of the old tree when its history
        extends the old root's by moves in the tree (``reuse_tree``); True on reuse.
        :class:`GameError` when the game is over or the board is not 8x8."""
        if state.n != patterns.SIDE:
            raise GameError(f"the C tree plays {patterns.SIDE}x{patterns.SIDE}, the position is {state.n}x{state.n}")
        if state.is_terminal():
            raise GameError("the game is over: no move to search")
        history = list(state.history)
        old = self._history
        black, white, to_move = state.snapshot()
        reused = False
        if old is not None and self.settings.reuse_tree and history[: len(old)] == old:
            reused = self._tree.advance(history[len(old):], black, white, to_move)
        if not reused:
            outcome, plies, moves = Outcome.UNKNOWN, 0, None
            if self.oracle is not None:
                # the oracle's root verdict (cached: the engine asked for it first)
                verdict = self.oracle.verdict(state, None, None)
                outcome, plies = verdict.outcome, verdict.plies
                moves = [int(m) for m in verdict.moves] if verdict.moves is not None else None
            self._tree.set_root(black, white, to_move, int(outcome), int(plies), moves)
        self._history = history
        return reused

    def root_settled(self) -> bool:
        """Is the root decided before any search (proven)?"""
        node = self._node([])
        return node is None or bool(node[0])

    def root_moves(self) -> list[int]:
        """The root's moves in the tree's order (best-ordered first)."""
        node = self._node([])
        return [m for m, *_ in node[3]] if node is not None else []

    # ------------------------------------------------------------------ search
    def search(
        self,
        limits: Limits,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
        started: float | None = None,
    ) -> SearchResult:
        """Search from the root until a limit, ``stop`` or a proof (as
        :meth:`engine.search.mcts.MCTS.search`: ``on_info`` a few times a second and once
        at the end, ``started`` when the caller's clock for this move began)."""
        if self._history is None:
            raise GameError("no root position: call set_root first")
        t0 = time.monotonic() if started is None else started
        tree = self._tree
        cap = limits.max_tree_nodes if limits.max_tree_nodes is not None else self.settings.max_tree_nodes
        cap = max(1, int(cap))
        nodes_limit = -1 if limits.nodes is None else int(limits.nodes)
        playouts_limit = -1 if limits.playouts is None else int(limits.playouts)

        def run(seconds: float | None) -> str | None:
            why = tree.run(seconds, nodes_limit, playouts_limit, cap)
            return why if why in ("nodes", "playouts") else None

        def proven() -> str | None:
            return "proven" if self._root_proven() else None

        tree.begin()
        try:
            reason = run_sliced(run, t0, limits.deadline, stop, on_info, self._info, finished=proven)
        finally:
            self._report_solves()
        elapsed = time.monotonic() - t0
        if on_info is not None:
            on_info(self._info(elapsed))
        return self._result(elapsed, reason)

    def _root_proven(self) -> bool:
        return bool(self._tree.node([])[0])

    def _report_solves(self) -> None:
        """Add the tree's solver counters since the last report to the oracle's."""
        if self.oracle is None:
            return
        counts = self._tree.counts()[5:]
        done = self._reported
        self.oracle.solves += counts[0] - done[0]
        self.oracle.solved += counts[1] - done[1]
        self.oracle.solver_nodes += counts[2] - done[2]
        self._reported = counts

    # ------------------------------------------------------------------ results
    def _node(self, path: list[int]):
        """``(outcome, plies, win_first, children)`` of the node after ``path``, or ``None``."""
        if self._history is None:
            return None
        return self._tree.node(path)

    @staticmethod
    def _children(node) -> list[Child]:
        """The node's moves as :class:`Child` statistics (as ``Node.child_stats``)."""
        _, plies, win_first, stats = node
        out = []
        for m, n, w, outcome, cplies in stats:
            if outcome:
                out.append(Child(m, n, w, Outcome(outcome).flipped, cplies + 1))
            else:
                out.append(Child(m, n, w, Outcome.UNKNOWN, 0))
        if win_first and out and out[0].outcome != Outcome.WIN:
            out[0] = out[0]._replace(outcome=Outcome.WIN, plies=max(1, plies))
        return out

    @classmethod
    def _best_index(cls, node) -> int | None:
        if node is None or not node[3]:
            return None
        if node[2]:
            return 0
        return choose(cls._children(node))

    def root_children(self) -> list[Child]:
        """The root's moves with their statistics (for reports such as NBoard's hints)."""
        node = self._node([])
        return self._children(node) if node is not None else []

    def principal_variation(self, limit: int = _PV_LIMIT) -> list[int]:
        """Best moves from the root down the tree."""
        return self._follow([], limit)

    def line(self, move: int, limit: int = _PV_LIMIT) -> list[int]:
        """The principal variation that starts with root move ``move`` (``[move]`` when the
        tree has not looked past it)."""
        node = self._node([])
        if node is None or move not in [m for m, *_ in node[3]]:
            return [move]
        return self._follow([move], limit)

    def _follow(self, pv: list[int], limit: int) -> list[int]:
        """``pv`` extended by the best moves from the node after it, up to ``limit`` moves."""
        node = self._node(pv)
        while node is not None and len(pv) < limit:
            i = self._best_index(node)
            if i is None:
                break
            pv.append(node[3][i][0])
            node = self._node(pv)
        return pv

    def _root_value(self, root, i: int | None) -> float:
        if root[0]:
            return _SCORE[Outcome(root[0])]
        if i is None:
            return 0.5
        return mean(self._children(root)[i])

    def _info(self, elapsed: float) -> SearchInfo:
        playouts, nodes, _, depth = self._tree.counts()[:4]
        root = self._node([])
        return SearchInfo(playouts=playouts, nodes=nodes, depth=depth,
                          value=self._root_value(root, self._best_index(root)),
                          pv=self.principal_variation(), elapsed=elapsed)

    def _result(self, elapsed: float, reason: str) -> SearchResult:
        root = self._node([])
        i = self._best_index(root)
        if i is None:
            raise GameError("no legal move")
        playouts, nodes, _, depth = self._tree.counts()[:4]
        return SearchResult(
            move=root[3][i][0],
            visits=int(root[3][i][1]),
            value=self._root_value(root, i),
            pv=self.principal_variation(),
            playouts=playouts,
            nodes=nodes,
            depth=depth,
            elapsed=elapsed,
            proven=Outcome(root[0]).label,
            reason=reason,
        )
