"""The search's Evaluator on the pattern evaluation (8x8): moves ordered by their one-ply
values with priors from them, leaves valued by a logistic of the predicted final margin.

A leaf whose evaluation (or ``depth``-ply search on it) predicts a margin of ``d`` discs
for its side to move is worth ``1 / (1 + exp(-d / scale))``; ``protocol/nboard/discs.py``
turns the tree's values back into discs with the same ``scale``.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ...game import Expansion, Verdict
from ..board.rules import ReversiState
from .patterns import SCALE, PatternEval

#: Discs per unit of log-odds of a leaf's value.
LEAF_SCALE = 12.0
#: Discs per unit of log-odds of the priors (a softmax of the moves' one-ply values).
PRIOR_TEMPERATURE = 4.0


class PatternLeaves:
    """The :class:`~engine.game.Evaluator` of 8x8 Reversi with a :class:`PatternEval`.

    ``depth``: plies searched on the evaluation for each leaf (0: the evaluation itself);
    ``weight``: playouts one leaf value stands for (the tree's unit of visits).
    """

    def __init__(self, ev: PatternEval, depth: int = 0, scale: float = LEAF_SCALE,
                 temperature: float = PRIOR_TEMPERATURE, weight: int = 1) -> None:
        if weight < 1:
            raise ValueError(f"weight must be >= 1, got {weight}")
        self.ev = ev
        self.depth = depth
        self.scale = scale
        self.temperature = temperature
        self.weight = weight
        self._k = 1.0 / (SCALE * scale)

    def begin(self, root: ReversiState, deadline: float | None = None) -> None:
        """Nothing to keep: a leaf is three ints."""

    def expand(self, state: ReversiState, verdict: Verdict | None, everything: bool = False) -> Expansion:
        """Every legal move, best one-ply value first (the oracle's moves before all), with
        softmax priors."""
        black, white, to_move = state.snapshot()
        p, o = (black, white) if to_move == 1 else (white, black)
        scored = self.ev.moves(p, o, 1)
        if not scored:  # a pass is the only move
            return Expansion(state.legal_moves(), [1.0])
        scored.sort(key=lambda mv: -mv[1])
        if verdict is not None and verdict.moves:
            first = set(verdict.moves)
            scored = [mv for mv in scored if mv[0] in first] + [mv for mv in scored if mv[0] not in first]
        top = max(v for _, v in scored)
        t = 1.0 / (SCALE * self.temperature)
        return Expansion([m for m, _ in scored], [math.exp((v - top) * t) for _, v in scored])

    def leaf(self, state: ReversiState) -> tuple[int, int, int]:
        """``(black, white, to_move)`` of the leaf."""
        return state.snapshot()

    def values(self, leaves: Sequence[tuple[int, int, int]], rng: np.random.Generator) -> list[float]:
        """Each leaf's win probability for its side to move."""
        if not leaves:
            return []
        k = self._k
        out = []
        for d in self.ev.leaves(leaves, self.depth):
            x = d * k
            out.append(1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0)
        return out
