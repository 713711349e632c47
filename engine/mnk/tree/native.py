"""Guided mode's tree search in C: m,n,k's specialised searcher beside the generic MCTS.

``engine/mnk/tree/_tree.h`` (part of the optional ``engine.mnk._threatcore`` extension) runs guided
mode's tree search -- the same threat knowledge, shape priors and value (engine/mnk/knowledge/shapes.py),
progressive bias and widening, implicit minimax backups and MCTS-Solver proofs as the generic MCTS
(:mod:`engine.search.mcts`) with :class:`engine.mnk.tree.guided.GuidedLeaves` -- for the boards the C solver handles
(freestyle with K >= 4, and renju).  It makes tens of thousands of tree nodes a second where the Python
tree makes one or two thousand (docs/RESULTS.md).  It is a second tree on purpose: the
generic MCTS is the reference it is tested against (``tests/engine/test_tree_pair.py``: the same
proofs, and the same move where one move wins).

Differences from the Python tree, all deliberate:

- one leaf at a time (no batches, no virtual loss, no random playouts: guided mode
  values leaves by the static evaluation alone);
- a node first listed deeper than the root's children holds only the best
  ``native.edge_cap`` moves by prior, still when tree reuse makes it a child of the root (a
  node whose listed moves are all proven lost is widened to every empty cell first, so
  proofs stay exact);
- the tree's VCT (``vct_nodes`` solver nodes, 2 threes) runs when a node has been visited
  ``native.vct_visits`` times instead of when its moves are listed (0: when listed);
- tree reuse copies the kept subtree into fresh arrays (the rest is dropped at once), and a
  kept root that listed only its best moves gets the others appended.

:func:`available` says whether a configuration and options select it.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from ...game import GameError, Outcome
from ...search.choice import Child, choose
from ...search.limits import Limits, SearchInfo, SearchResult
from ...search.slices import run_sliced
from ..board.rules import Board, GameConfig, Player, Rule
from ..knowledge.patterns import geometry
from ..knowledge.shapes import player_classes, shape_board
from ..threats.solver import _native_geometry, _threatcore, fast_solver
from .options import MnkOptions, Mode

_WIN, _LOSS, _DRAW = 1, 2, 3  # node status codes of the C tree (for the node's side to move)
_OUTCOME = {0: Outcome.UNKNOWN, _WIN: Outcome.WIN, _LOSS: Outcome.LOSS, _DRAW: Outcome.DRAW}
_MAX_REUSE_PLIES = 8  # a position further on than this from the old root starts a new tree


def available(config: GameConfig, options: MnkOptions) -> bool:
    """Does ``options`` on ``config`` run the C tree?  Guided mode with leaves valued by the
    evaluation alone, the C solver at hand for this board, and ``options.native.enabled``."""
    return (
        options.native.enabled
        and options.mode is Mode.GUIDED
        and options.leaves.eval_weight >= 1.0
        and fast_solver(config)
        and hasattr(_threatcore, "Tree")
    )


class NativeSearcher:
    """One game's guided search in the C tree, with the root methods of
    :class:`engine.search.mcts.MCTS` that :class:`engine.mnk.tree.engine.MnkEngine` uses."""

    def __init__(self, config: GameConfig, options: MnkOptions, full_width: bool) -> None:
        self.config = config
        self.options = options
        big = config.area > 100
        shapes = shape_board(config)
        weights = shapes.weights
        budgets = options.budgets(True)
        know = options.knowledge
        tree = options.tree
        self.per_leaf = options.leaves.playouts or (16 if big else 8)
        self._tree = _threatcore.Tree(
            geometry=_native_geometry(config),
            board_cells=list(geometry(config).board_cells),
            directions=list(config.directions),
            full_width=full_width,
            classes=[table.tobytes() for table in player_classes(config)],
            attack=weights.attack,
            defence=weights.defence,
            attack_lines=shapes.attack_lines.tolist(),
            defence_lines=shapes.defence_lines.tolist(),
            mine=weights.mine,
            theirs=weights.theirs,
            tempo=weights.tempo,
            exploration=tree.exploration,
            per_leaf=float(self.per_leaf),
            bias=tree.prior_bias,
            widening=tree.widening,
            minimax=tree.minimax,
            vcf_nodes=know.vcf_nodes,
            defence_nodes=know.defence_nodes,
            vct_nodes=budgets.vct_nodes if know.vct_nodes is None else know.vct_nodes,
            vct_threes=know.vct_threes,
            vct_visits=options.native.vct_visits,
            edge_cap=options.native.edge_cap,
            max_nodes=tree.max_tree_nodes,
        )
        self._wins: list[int] = []
        self._threats: list[int] = []
        self._threatened = False
        self._ready = False
        self._history: list[int] = []  # the root's history (for reuse)

    # ------------------------------------------------------------------ setup
    def reset(self) -> None:
        """Forget the tree."""
        self._ready = False
        self._history = []

    def set_root(self, board: Board) -> bool:
        """Make ``board`` the root, keeping the subtree of the old tree when its history
        extends the old root's by at most :data:`_MAX_REUSE_PLIES` moves in the tree
        (``tree.reuse_tree``); True on reuse."""
        history = list(board.history)
        old = self._history
        seq = None
        if self._ready and self.options.tree.reuse_tree and history[: len(old)] == old:
            seq = history[len(old):]
        reused = seq is not None and len(seq) <= _MAX_REUSE_PLIES and self._tree.advance(seq)
        if not reused:
            self._tree.set_root(board.cells, int(board.to_move))
        self._history = history
        self._wins = sorted(board.winning_cells(board.to_move))
        threats = sorted(board.winning_cells(board.to_move.other))
        self._threatened = bool(threats)
        if threats and board.config.rule is Rule.RENJU and board.to_move is Player.FIRST:
            # A block on a forbidden point is no move: a root lost at once offers black's legal ones.
            threats = [m for m in threats if board.forbidden(m) is None] or board.legal_moves()
        self._threats = threats
        self._ready = True
        return reused

    def root_settled(self) -> bool:
        """Is the root decided before any search (proven, or a forced block)?"""
        proven, _, _ = self._tree.root()
        return bool(proven) or self._threatened

    def root_moves(self) -> list[int]:
        """The root's candidate moves, best-ordered first."""
        return self._tree.root_moves()

    def drop_root_moves(self, drop) -> int:
        """Remove ``drop`` from the root's moves (never all of them); returns how many went."""
        return self._tree.drop_root_moves([int(m) for m in drop])

    # ------------------------------------------------------------------ search
    def search(
        self,
        limits: Limits,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
        started: float | None = None,
        between: Callable[[bool], bool] | None = None,
    ) -> SearchResult:
        """Search from the root until a limit, ``stop`` or a proof (see :meth:`engine.search.mcts.MCTS.search`).

        ``limits.nodes`` and ``limits.playouts`` both count iterations here (one new leaf
        each, worth ``per_leaf`` playouts for ``playouts``).  ``between(last)``, if given,
        is called between slices of the C search (``last`` False; it may change the root,
        e.g. drop moves, and returns True to end the search, reason ``"stop"``) and once
        after the last slice (``last`` True), before the move is chosen."""
        t0 = time.monotonic() if started is None else started
        tree = self._tree
        cap = limits.max_tree_nodes if limits.max_tree_nodes is not None else self.options.tree.max_tree_nodes
        budget = None
        if limits.nodes is not None:
            budget = limits.nodes
        if limits.playouts is not None:
            left = -(-limits.playouts // self.per_leaf)
            budget = left if budget is None else min(budget, left)
        unbounded = limits.deadline is None and stop is None and budget is None

        def spent() -> str | None:
            done = tree.counts()[0]
            if budget is None or done < budget:
                return None
            return "nodes" if limits.nodes is not None and done >= limits.nodes else "playouts"

        def run(seconds: float | None) -> str | None:
            todo = 2**62 if budget is None else budget - tree.counts()[0]
            why = tree.run(seconds, todo, max(1, int(cap)))
            # Nothing but a proof can end an unbounded run, so one run is the whole search.
            return "proven" if why == "proven" or unbounded else None

        reason = run_sliced(run, t0, limits.deadline, stop, on_info, self._info, between, spent)
        if between is not None:
            between(True)
        if on_info is not None:  # once at the end, as the generic tree does
            on_info(self._info(time.monotonic() - t0))
        return self._result(time.monotonic() - t0, reason)

    # ------------------------------------------------------------------ results
    def root_children(self) -> list[Child]:
        """The root's moves with their statistics (``n`` in playouts: visits times the
        playouts a leaf stands for), in the tree's order; an immediate win is listed first."""
        if not self._ready:
            return []
        r = self.per_leaf
        stats = self._tree.stats()
        seen = {m for m, *_ in stats}
        out = [Child(m, 0.0, 0.0, Outcome.WIN, 1) for m in self._wins if m not in seen]
        for m, n, w, proven, plies in stats:
            outcome = _OUTCOME[proven].flipped
            out.append(Child(m, n * r, w * r, outcome, plies + 1 if proven else 0))
        if not out:
            moves = self._tree.root_moves() or self._threats  # a root lost at once lists no moves
            out = [Child(m, 0.0, 0.0) for m in moves]
        return out

    def line(self, move: int, limit: int = 32) -> list[int]:
        """The principal variation that starts with root move ``move`` (``[move]`` when the
        tree has not looked past it): each root move's own line in a multi-PV report."""
        if not self._ready:
            return [move]
        pv = self._tree.pv(limit, move)
        return pv if pv and pv[0] == move else [move]

    def _best(self) -> tuple[int, float] | None:
        """The move to play (:func:`engine.search.choice.choose`) and its value."""
        children = self.root_children()
        i = choose(children)
        if i is None:
            return None
        c = children[i]
        if c.outcome != Outcome.UNKNOWN:
            return c.move, c.outcome.score
        return c.move, (c.w / c.n if c.n else 0.5)

    def _info(self, elapsed: float) -> SearchInfo:
        iterations, nodes, depth = self._tree.counts()
        best = self._best()
        return SearchInfo(playouts=iterations * self.per_leaf, nodes=nodes, depth=depth,
                          value=best[1] if best else 0.5, pv=self._pv(best), elapsed=elapsed)

    def _pv(self, best: tuple[int, float] | None) -> list[int]:
        pv = self._tree.pv(32)
        if best is not None and (not pv or pv[0] != best[0]):
            pv = [best[0]]
        return pv

    def _result(self, elapsed: float, reason: str) -> SearchResult:
        best = self._best()
        if best is None:
            raise GameError("no legal move")
        move, value = best
        proven, _, _ = self._tree.root()
        outcome = Outcome.WIN if self._wins else _OUTCOME[proven]
        visits = next((int(n) for m, n, _, _, _ in self._tree.stats() if m == move), 0)
        iterations, nodes, depth = self._tree.counts()
        return SearchResult(
            move=int(move),
            visits=visits * self.per_leaf,
            value=outcome.score if outcome != Outcome.UNKNOWN else value,
            pv=self._pv(best),
            playouts=iterations * self.per_leaf,
            nodes=nodes,
            depth=depth,
            elapsed=elapsed,
            proven=outcome.label,
            reason=reason,
        )
