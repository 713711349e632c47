"""The default evaluator: every legal move, no priors, leaves valued by random playouts.

It works for any game of the interface, one move at a time through ``apply``; games
with a batched playout kernel (m,n,k, Reversi) give their own, far faster evaluator.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..game import Expansion, GameState, Verdict


class RandomPlayouts:
    """Leaves valued by ``weight`` uniformly random playouts each (any game, slow)."""

    def __init__(self, weight: int = 1) -> None:
        if weight < 1:
            raise ValueError(f"weight must be >= 1, got {weight}")
        self.weight = weight

    def begin(self, root: GameState, deadline: float | None = None) -> None:
        """Nothing to keep: leaves are copied whole."""

    def expand(self, state: GameState, verdict: Verdict | None, everything: bool = False) -> Expansion:
        """Every legal move, in the game's order."""
        return Expansion(state.legal_moves())

    def leaf(self, state: GameState) -> GameState:
        """A copy of the leaf (played on, then restored, by :meth:`values`)."""
        return state.clone()

    def values(self, leaves: Sequence[GameState], rng: np.random.Generator) -> list[float]:
        """Each leaf's mean playout score for its side to move."""
        out = []
        for leaf in leaves:
            mover = leaf.to_move
            total = 0.0
            for _ in range(self.weight):
                played = 0
                while not leaf.is_terminal():
                    moves = leaf.legal_moves()
                    leaf.apply(moves[int(rng.integers(len(moves)))])
                    played += 1
                total += leaf.returns()[mover - 1]
                for _ in range(played):
                    leaf.undo()
            out.append(total / self.weight)
        return out
