"""m,n,k evaluators for the generic search: which moves to try, and what leaves are worth.

- :class:`PlayoutLeaves` (plain UCT): the empty cells near stones, adjacent first, then
  centre-first (every cell on small boards); leaves valued by batched random playouts
  (:mod:`engine.mnk.rollout`).
- :class:`GuidedLeaves` (guided mode): the same candidates filtered and ordered by the
  threat knowledge (:mod:`engine.mnk.solver`, :mod:`engine.mnk.defence`: a VCF or VCT found is a proof, the
  opponent's threats leave only the defences, pattern priors order the rest), leaves
  valued by the learned shape value (:mod:`engine.mnk.shapes`), mixed with
  playouts when ``eval_weight`` < 1.

Both read the node facts of :class:`engine.mnk.oracle.LineOracle` (wins, threats, cells
near stones), so they are used with that oracle.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..game import Expansion, Verdict
from .cellsets import CellSets
from .patterns import LineState, cell_scores
from .shapes import shape_board
from .rollout import RolloutKernel
from .renju import allowed_cells
from .rules import Board, GameConfig, Rule
from .defence import _defence_cells
from .solver import _Abort, _solve

#: Plies credited to a threat-space win found at a node (its real length is not tracked).
THREAT_WIN_PLIES = 3


class PlayoutLeaves:
    """Plain UCT's evaluator: candidate cells near stones, random-playout leaf values."""

    def __init__(self, config: GameConfig, sets: CellSets, weight: int, full_width: bool) -> None:
        self.config = config
        self.sets = sets
        self.weight = weight
        self.full_width = full_width
        self.kernel = RolloutKernel(config)
        self._pad = np.array(config.pad, dtype=np.intp)
        self._caro = config.rule is Rule.CARO
        self._renju = config.rule is Rule.RENJU

    def expand(self, state: Board, verdict: Verdict | None, everything: bool = False) -> Expansion:
        """The candidates of ``state`` (facts from ``verdict``), or every empty cell; under
        renju never black's forbidden points."""
        ex = self._candidates(state, verdict, everything)
        if not (self._renju and int(state.to_move) == 1):
            return ex
        kept = self._allowed(state, ex.moves)
        if kept:
            return Expansion(kept, complete=ex.complete)
        if not ex.complete:  # every candidate forbidden: look at every empty cell
            ex = self._candidates(state, verdict, True)
            kept = self._allowed(state, ex.moves)
        # Black with no legal move at all is left its forbidden points: too rare to model.
        return Expansion(kept or list(ex.moves), complete=True)

    def _allowed(self, state: Board, moves) -> list[int]:
        """``moves`` without black's forbidden points (renju)."""
        cfg = self.config
        pad = cfg.pad
        ok = set(allowed_cells(state.cells, [pad[m] for m in moves], cfg.directions))
        return [m for m in moves if pad[m] in ok]

    def _candidates(self, state: Board, verdict: Verdict | None, everything: bool) -> Expansion:
        """The candidate cells before renju's filter (see :meth:`expand`)."""
        sets = self.sets
        _, threats, near1, near, occ = verdict.facts
        free = sets.full & ~occ
        if everything or self.full_width:
            return Expansion(sets.moves_of(free), complete=True)
        first = near1 & free
        second = near & free & ~near1
        if second:
            moves = sets.moves_of(first) + sets.moves_of(second)
        elif first:
            moves = sets.moves_of(first)
        else:
            moves = sets.moves_of(free)[:1]  # no stone near any empty cell (the empty board): the centre
        if self._caro and threats:
            # Caro leaves threats unforced (see the oracle); they come first.
            moves = sorted(threats) + [m for m in moves if m not in threats]
        return Expansion(moves, complete=len(moves) == free.bit_count())

    def begin(self, root: Board) -> None:
        """Keep the root's cells and mover: a leaf is then only the moves played since."""
        self._root = np.array(root.cells, dtype=np.int8)[self._pad]
        self._base = len(root.history)
        p = int(root.to_move)
        self._players = [p, 3 - p] * (self.config.area // 2 + 1)  # who plays each move from the root

    def leaf(self, state: Board) -> list[int]:
        """The moves from the root to the leaf (the search's working position holds them)."""
        return state.history[self._base:]

    def boards(self, leaves: Sequence[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The leaves as a ``(leaves, area)`` int8 array of compact cells and their movers:
        the root's cells with each leaf's moves written in, one fancy assignment for all."""
        players = self._players
        rows: list[int] = []
        cols: list[int] = []
        vals: list[int] = []
        movers = []
        for i, moves in enumerate(leaves):
            d = len(moves)
            rows.extend([i] * d)
            cols.extend(moves)
            vals.extend(players[:d])
            movers.append(players[d])
        boards = np.repeat(self._root[None, :], len(leaves), axis=0)
        boards[rows, cols] = vals
        return boards, np.array(movers, dtype=np.int8)

    def playout_scores(self, boards: np.ndarray, movers: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Mean score of ``weight`` random playouts of each board for its side to move."""
        winners = self.kernel.run_boards(boards, movers, self.weight, rng)
        wins = np.count_nonzero(winners == movers[:, None], axis=1)
        draws = np.count_nonzero(winners == 0, axis=1)
        return (wins + 0.5 * draws) / self.weight

    def values(self, leaves: Sequence[list[int]], rng: np.random.Generator) -> np.ndarray:
        """Each leaf's playout score for its side to move."""
        boards, movers = self.boards(leaves)
        return self.playout_scores(boards, movers, rng)


class GuidedLeaves(PlayoutLeaves):
    """Guided mode's evaluator: threat knowledge at expansion, the static evaluation at leaves.

    At a node's first expansion (side to move ``s``):

    1. ``s`` has a VCF within ``vcf_nodes`` solver nodes, or, with ``vct_nodes``, a VCT of
       up to ``vct_threes`` threes: its first move, as a proof;
    2. the opponent has a completion: only the moves that stop it;
    3. the opponent threatens a double threat or a VCF: only the defence set (see
       :func:`engine.mnk.defence.defence_set`, ``defence_nodes`` per solver run), best first;
    4. otherwise the candidates, ordered by the learned shape priors
       (:func:`engine.mnk.patterns.cell_scores`).

    Budgets are solver nodes, not time, so a seeded search stays reproducible.
    """

    def __init__(self, config: GameConfig, sets: CellSets, weight: int, full_width: bool,
                 vcf_nodes: int, defence_nodes: int, vct_nodes: int, vct_threes: int,
                 eval_weight: float) -> None:
        super().__init__(config, sets, weight, full_width)
        self.vcf_nodes = max(1, vcf_nodes)
        self.defence_nodes = max(1, defence_nodes)
        self.vct_nodes = max(0, vct_nodes)
        self.vct_threes = max(1, vct_threes)
        self.eval_weight = eval_weight
        self.evaluator = shape_board(config)

    def expand(self, state: Board, verdict: Verdict | None, everything: bool = False) -> Expansion:
        """The candidates filtered and ordered by the threat knowledge (see the class doc)."""
        plain = super().expand(state, verdict, everything)
        if everything:
            return plain
        cfg = self.config
        empty_count = state.empty_count
        work = list(state.cells)  # the solvers set and clear stones: a private copy
        st = LineState(cfg, work)
        s = int(state.to_move)
        o = 3 - s
        unpad = cfg.unpadded
        completions = st.completing(o)
        if completions:
            killers = st.killers(o, completions)
            if killers:
                moves = [unpad(c) for c in killers]
                return Expansion(moves, complete=len(moves) == empty_count)
            return plain
        line = self._threat_win(st, s)
        if line is not None:
            return Expansion([unpad(line[0])], win_plies=THREAT_WIN_PLIES)
        defences = _defence_cells(st, s, None, self.defence_nodes)
        if defences:
            scores = cell_scores(cfg, work, s, sorted(defences))
            ranked = sorted(defences, key=lambda c: (-scores.get(c, 0.0), c))
            return Expansion([unpad(c) for c in ranked], [scores.get(c, 0.0) for c in ranked],
                             complete=len(ranked) == empty_count)
        pad = cfg.pad
        moves = list(plain.moves)
        scores = cell_scores(cfg, work, s, [pad[m] for m in moves])
        priors = [scores.get(pad[m], 0.0) for m in moves]
        order = sorted(range(len(moves)), key=lambda i: -priors[i])  # stable: ties keep the candidate order
        return Expansion([moves[i] for i in order], [priors[i] for i in order], complete=plain.complete)

    def _threat_win(self, st: LineState, s: int) -> list[int] | None:
        """A VCF, then (with ``vct_nodes``) a VCT of ``s`` within the budgets, or ``None``."""
        try:
            line = _solve(st, s, self.vcf_nodes, None)
        except _Abort:
            line = None
        if line is None and self.vct_nodes:
            try:
                line = _solve(st, s, self.vct_nodes, None, threes=self.vct_threes, deepen=True)
            except _Abort:
                line = None
        return line

    def values(self, leaves: Sequence[list[int]], rng: np.random.Generator) -> np.ndarray:
        """The static evaluation of each leaf, mixed with playouts when ``eval_weight`` < 1."""
        boards, movers = self.boards(leaves)
        lam = self.eval_weight
        if lam <= 0.0:
            return self.playout_scores(boards, movers, rng)
        static = self.evaluator.values(boards, movers)
        if lam >= 1.0:
            return static
        return (1.0 - lam) * self.playout_scores(boards, movers, rng) + lam * static
