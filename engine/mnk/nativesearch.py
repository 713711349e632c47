"""Guided MCTS in C, behind the interface of :class:`engine.mnk.mcts.Searcher` that the facade uses.

``engine/mnk/_tree.h`` (part of the optional ``engine.mnk._threatcore`` extension) runs guided
mode's tree search -- the same threat knowledge, window priors, static evaluation,
progressive bias and widening and MCTS-Solver proofs as :mod:`engine.mnk.mcts` with
:class:`engine.mnk.threats.ThreatKnowledge` -- for the boards the C solver handles
(freestyle, K >= 4).  It makes tens of thousands of tree nodes a second where the Python
tree makes one or two thousand; what that bought is in the README (Strength).

Differences from the Python tree, all deliberate:

- one leaf at a time (no batches, no virtual loss, no random playouts: guided mode
  values leaves by the static evaluation alone);
- below the root only the best ``native_edge_cap`` moves by prior are listed (a node whose
  listed moves are all proven lost is widened to every empty cell first, so proofs stay
  exact);
- the tree's VCT (``vct_nodes`` solver nodes, 2 threes) runs when a node has been visited
  ``native_vct_visits`` times instead of when its moves are listed (0: when listed);
- tree reuse copies the kept subtree into fresh arrays (the rest is dropped at once), and a
  kept root that listed only its best moves gets the others appended.

:func:`available` says whether a configuration and options select it.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from .evaluation import OPPONENT_WEIGHTS, OWN_WEIGHTS, TEMPO, _by_count
from ..search.limits import Limits, SearchInfo, SearchResult
from .options import EngineOptions
from .patterns import DEAD_CELL_SCORE, geometry, score_weights
from .mcts import continuation
from .rules import Board, GameConfig
from .threats import ThreatKnowledge, _native_geometry, _threatcore, fast_solver

_WIN, _LOSS, _DRAW = 1, 2, 3  # node status codes of the C tree (for the node's side to move)
_PROVEN_NAMES = {_WIN: "win", _LOSS: "loss", _DRAW: "draw"}
_FLIP = {_WIN: "loss", _LOSS: "win", _DRAW: "draw"}  # a child's status, seen from the root
_INFO_PERIOD = 0.25  # seconds between on_info reports
_SLICE = 0.02  # seconds per C run when a stop event or an info callback must be served
_MAX_REUSE_PLIES = 8  # a position further on than this from the old root starts a new tree


def available(config: GameConfig, options: EngineOptions) -> bool:
    """Does ``options`` on ``config`` run the C tree?  Guided mode with the default threat
    knowledge and window priors, leaves valued by the evaluation alone, the C solver at
    hand for this board, and ``options.native_tree`` on."""
    return (
        options.native_tree
        and options.mode == "guided"
        and type(options.knowledge) is ThreatKnowledge
        and options.priors == "windows"
        and options.eval_weight >= 1.0
        and options.knowledge_depth == 0
        and fast_solver(config)
        and hasattr(_threatcore, "Tree")
    )


class NativeSearcher:
    """One game's guided search in the C tree (same methods as :class:`engine.mnk.mcts.Searcher`
    that :class:`engine.api.Engine` uses)."""

    def __init__(self, config: GameConfig, options: EngineOptions) -> None:
        self.config = config
        self.options = options
        k = config.win_length
        big = config.area > 100
        attack, defence = score_weights(k)
        budgets = options.threat_budgets(True)
        know = options.knowledge
        self.per_leaf = options.rollouts_per_leaf or (16 if big else 8)
        self._tree = _threatcore.Tree(
            geometry=_native_geometry(config),
            board_cells=list(geometry(config).board_cells),
            directions=list(config.directions),
            full_width=config.area <= options.full_width_area,
            own=[float(v) for v in _by_count(OWN_WEIGHTS, k)],
            opponent=[float(v) for v in _by_count(OPPONENT_WEIGHTS, k)],
            tempo=TEMPO,
            attack=list(attack) + [0.0],
            defence=list(defence) + [0.0],
            dead=DEAD_CELL_SCORE,
            exploration=options.exploration,
            per_leaf=float(self.per_leaf),
            bias=options.prior_bias,
            widening=options.widening,
            vcf_nodes=know.vcf_nodes,
            defence_nodes=know.defence_nodes,
            vct_nodes=budgets.vct_nodes if know.vct_nodes is None else know.vct_nodes,
            vct_threes=know.vct_threes,
            vct_visits=options.native_vct_visits,
            edge_cap=options.native_edge_cap,
            max_nodes=options.max_tree_nodes,
        )
        self._wins: list[int] = []
        self._threats: list[int] = []
        self._threatened = False
        self._ready = False
        self._root_cells: list[int] | None = None
        self._root_to_move = 1
        self._pad = list(geometry(config).board_cells)  # padded cell of each compact move

    # ------------------------------------------------------------------ setup
    def reset(self) -> None:
        """Forget the tree."""
        self._ready = False
        self._root_cells = None

    def set_root(self, board: Board) -> bool:
        """Make ``board`` the root, keeping the subtree of the old tree when ``board``
        follows from the old root by moves in the tree (``reuse_tree``); returns True on reuse."""
        seq = self._continuation(board) if self.options.reuse_tree else None
        reused = seq is not None and self._tree.advance(seq)
        if not reused:
            self._tree.set_root(board.cells, int(board.to_move))
        self._root_cells = list(board.cells)
        self._root_to_move = int(board.to_move)
        self._wins = sorted(board.winning_cells(board.to_move))
        self._threats = sorted(board.winning_cells(board.to_move.other))
        self._threatened = bool(self._threats)
        self._ready = True
        return reused

    def _continuation(self, board: Board) -> list[int] | None:
        """The moves that lead from the old root to ``board`` (see :func:`engine.mnk.mcts.continuation`),
        or ``None`` when it does not follow from it or lies too far on."""
        old = self._root_cells
        if not self._ready or old is None or len(old) != len(board.cells):
            return None
        pad = self._pad
        seq = continuation([old[c] for c in pad], self._root_to_move, [board.cells[c] for c in pad],
                           board.history, int(board.to_move))
        return seq if seq is not None and len(seq) <= _MAX_REUSE_PLIES else None

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
        """Search from the root until a limit, ``stop`` or a proof (see :meth:`Searcher.search`).

        ``limits.nodes`` and ``limits.playouts`` both count iterations here (one new leaf
        each, worth ``per_leaf`` playouts for ``playouts``).  ``between(last)``, if given,
        is called between slices of the C search (``last`` False; it may change the root,
        e.g. drop moves, and returns True to end the search, reason ``"stop"``) and once
        after the last slice (``last`` True), before the move is chosen."""
        t0 = time.monotonic() if started is None else started
        tree = self._tree
        cap = limits.max_tree_nodes if limits.max_tree_nodes is not None else self.options.max_tree_nodes
        budget = None
        if limits.nodes is not None:
            budget = limits.nodes
        if limits.playouts is not None:
            left = -(-limits.playouts // self.per_leaf)
            budget = left if budget is None else min(budget, left)
        sliced = stop is not None or on_info is not None or between is not None
        next_info = t0 + _INFO_PERIOD
        reason = "proven"
        while True:
            done = tree.counts()[0]
            if budget is not None and done >= budget:
                reason = "nodes" if limits.nodes is not None and done >= limits.nodes else "playouts"
                break
            if (stop is not None and stop.is_set()) or (between is not None and between(False)):
                reason = "stop"
                break
            now = time.monotonic()
            seconds = None if limits.deadline is None else limits.deadline - now
            if seconds is not None and seconds <= 0:
                reason = "deadline"
                break
            if on_info is not None and now >= next_info:
                next_info = now + _INFO_PERIOD
                on_info(self._info(now - t0))
            if sliced:
                seconds = _SLICE if seconds is None else min(seconds, _SLICE)
            todo = 2**62 if budget is None else budget - done
            why = tree.run(seconds, todo, max(1, int(cap)))
            if why == "proven":
                reason = "proven"
                break
            if limits.deadline is None and stop is None and budget is None:
                break  # nothing else can end an unlimited run
        if between is not None:
            between(True)
        return self._result(time.monotonic() - t0, reason)

    # ------------------------------------------------------------------ results
    def root_stats(self) -> list[tuple[int, float, float, str | None]]:
        """``(move, n, w, proven)`` of the root's tried children, as
        :meth:`engine.mnk.mcts.Searcher.root_stats` (``n`` in playouts: visits times ``per_leaf``)."""
        if not self._ready:
            return []
        r = self.per_leaf
        stats = [(m, n * r, w * r, _FLIP.get(pr)) for m, n, w, pr, _ in self._tree.stats()]
        known = {m for m, *_ in stats}
        stats += [(m, 0.0, 0.0, "win") for m in self._wins if m not in known]
        return stats

    def _best(self) -> tuple[int, float] | None:
        """The move to play and its value, as :meth:`engine.mnk.mcts.Searcher.best_index` chooses."""
        if self._wins:
            return self._wins[0], 1.0
        stats = self._tree.stats()
        win = [(plies, m) for m, _, _, pr, plies in stats if pr == _LOSS]
        if win:
            return min(win)[1], 1.0
        ok = [(n, w / n if n else 0.0, m) for m, n, w, pr, _ in stats if pr != _WIN]
        if not ok:
            # Every move loses: the one that resists longest, the best-ordered on ties.
            lost = [(plies, n, -i, m) for i, (m, n, _, pr, plies) in enumerate(stats) if pr == _WIN]
            if lost:
                return max(lost)[3], 0.0
            moves = self._tree.root_moves() or self._threats  # a root lost at once lists no moves
            return (moves[0], 0.5) if moves else None
        n, q, m = max(ok, key=lambda t: (t[0], t[1]))
        draws = [(dn, dm) for dm, dn, _, pr, _ in stats if pr == _DRAW]
        if draws and q < 0.5 and m not in {dm for _, dm in draws}:
            return max(draws)[1], 0.5
        if n == 0:
            # Nothing searched yet: the best-ordered move not proven lost.
            lost = {mm for mm, _, _, pr, _ in stats if pr == _WIN}
            for mm in self._tree.root_moves():
                if mm not in lost:
                    return mm, 0.5
        return m, q

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
            raise ValueError("no legal move")
        move, value = best
        proven, _, _ = self._tree.root()
        if self._wins:
            proven = _WIN
        visits = next((int(n) for m, n, _, _, _ in self._tree.stats() if m == move), 0)
        iterations, nodes, depth = self._tree.counts()
        return SearchResult(
            move=int(move),
            visits=visits * self.per_leaf,
            value=1.0 if proven == _WIN else 0.0 if proven == _LOSS else 0.5 if proven == _DRAW else value,
            pv=self._pv(best),
            playouts=iterations * self.per_leaf,
            nodes=nodes,
            depth=depth,
            elapsed=elapsed,
            proven=_PROVEN_NAMES.get(proven),
            reason=reason,
        )
