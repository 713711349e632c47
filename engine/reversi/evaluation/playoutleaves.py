"""The search's Evaluator on random playouts (any board size): moves listed corners first and
X-squares last (a prior per square class), a leaf snapshotted as ``(black, white, to_move)``,
a whole batch of leaves valued in one call of the playout kernel."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...game import Expansion, Verdict
from ..board.rules import ReversiState
from . import playout

#: Priors per square class: only their order matters to the search unless its
#: ``prior_bias`` is set.  Corners cannot be flipped; an X-square (diagonal to an empty
#: corner) or a C-square (edge next to it) usually hands the corner over.
SQUARE_PRIORS = {"corner": 1.0, "edge": 0.5, "inner": 0.4, "c": 0.2, "x": 0.1}


def square_classes(n: int) -> list[str]:
    """The class of every square of an n x n board (``corner``, ``x``, ``c``, ``edge``,
    ``inner``)."""
    out = []
    last = n - 1
    for r in range(n):
        for c in range(n):
            on_edge_r, on_edge_c = r in (0, last), c in (0, last)
            near_r, near_c = r in (1, last - 1), c in (1, last - 1)
            if on_edge_r and on_edge_c:
                out.append("corner")
            elif near_r and near_c:
                out.append("x")
            elif (on_edge_r and near_c) or (on_edge_c and near_r):
                out.append("c")
            elif on_edge_r or on_edge_c:
                out.append("edge")
            else:
                out.append("inner")
    return out


class ReversiEvaluator:
    """Moves ordered by square class; leaves valued by ``playouts_per_leaf`` uniformly
    random games each (in C when built, one call per batch of leaves).

    ``weight`` (= ``playouts_per_leaf``) is what one leaf value counts for in the tree.
    ``order=False`` lists the moves in square order with no priors.
    """

    def __init__(self, n: int = 8, playouts_per_leaf: int = 16, order: bool = True) -> None:
        if playouts_per_leaf < 1:
            raise ValueError(f"playouts_per_leaf must be >= 1, got {playouts_per_leaf}")
        self.n = n
        self.weight = playouts_per_leaf
        self.order = order
        classes = square_classes(n)
        self._prior = [SQUARE_PRIORS[c] for c in classes] + [1.0]  # the pass: the only move

    def begin(self, root: ReversiState, deadline: float | None = None) -> None:
        """Nothing to keep: a leaf is three ints."""

    def expand(self, state: ReversiState, verdict: Verdict | None, everything: bool = False) -> Expansion:
        """Every legal move, best-looking first (the oracle's moves, if any, before all)."""
        moves = state.legal_moves()
        if self.order and len(moves) > 1:
            prior = self._prior
            moves.sort(key=lambda m: -prior[m])
        if verdict is not None and verdict.moves:
            first = [m for m in verdict.moves if m in moves]
            moves = first + [m for m in moves if m not in first]
        if not self.order:
            return Expansion(moves)
        return Expansion(moves, [self._prior[m] for m in moves])

    def leaf(self, state: ReversiState) -> tuple[int, int, int]:
        """``(black, white, to_move)`` of the leaf."""
        return state.snapshot()

    def values(self, leaves: Sequence[tuple[int, int, int]], rng: np.random.Generator) -> list[float]:
        """Each leaf's mean playout score for its side to move (1 win, 0.5 draw)."""
        if not leaves:
            return []
        seed = int(rng.integers(0, 2**63))
        return playout.leaf_values(leaves, self.n, self.weight, seed)
