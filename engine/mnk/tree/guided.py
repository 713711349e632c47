"""Guided mode's evaluator for the generic search: threat knowledge at expansion, learned values at leaves.

:class:`GuidedLeaves` takes plain UCT's candidates (:class:`engine.mnk.playouts.leaves.PlayoutLeaves`)
and filters and orders them by the threat knowledge (:mod:`engine.mnk.threats.solver`,
:mod:`engine.mnk.threats.defence`: a VCF or VCT found is a proof, the opponent's threats leave only
the defences, the learned priors order the rest); leaves are valued by the learned shape value
(:mod:`engine.mnk.knowledge.shapes`), mixed with playouts when ``eval_weight`` < 1.  The tree in
C (:mod:`engine.mnk.tree.native`) asks the same knowledge.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...game import Expansion, Verdict
from ..board.cellsets import CellSets
from ..board.rules import Board, GameConfig
from ..knowledge.patterns import LineState, cell_scores
from ..knowledge.shapes import shape_board
from ..playouts.leaves import PlayoutLeaves
from ..threats.defence import _defence_cells
from ..threats.solver import DEEPENING, _Abort, _solve

#: Plies credited to a threat-space win found at a node (its real length is not tracked).
THREAT_WIN_PLIES = 3


class GuidedLeaves(PlayoutLeaves):
    """Guided mode's evaluator: threat knowledge at expansion, the static evaluation at leaves.

    At a node's first expansion (side to move ``s``):

    1. ``s`` has a VCF within ``vcf_nodes`` solver nodes, or, with ``vct_nodes``, a VCT of
       up to ``vct_threes`` threes: its first move, as a proof;
    2. the opponent has a completion: only the moves that stop it;
    3. the opponent threatens a double threat or a VCF: only the defence set (see
       :func:`engine.mnk.threats.defence.defence_set`, ``defence_nodes`` per solver run), best first;
    4. otherwise the candidates, ordered by the learned shape priors
       (:func:`engine.mnk.knowledge.patterns.cell_scores`).

    Budgets are solver nodes, so a seeded search without a clock stays reproducible; with
    one, the solver runs also stop at the search's deadline (:meth:`begin`), which costs the
    node only knowledge, never a false proof or a missing defence.
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
        self._deadline: float | None = None

    def begin(self, root: Board, deadline: float | None = None) -> None:
        """Keep the root (see the base class) and the search's deadline: past it the
        solver runs of an expansion give up, as when their budgets run out."""
        super().begin(root, deadline)
        self._deadline = deadline

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
        defences = _defence_cells(st, s, self._deadline, self.defence_nodes)
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
            line = _solve(st, s, self.vcf_nodes, self._deadline)
        except _Abort:
            line = None
        if line is None and self.vct_nodes:
            try:
                line = _solve(st, s, self.vct_nodes, self._deadline, threes=self.vct_threes, search=DEEPENING)
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
