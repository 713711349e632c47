"""The logistic Elo model: expected score from an Elo difference and back."""

from __future__ import annotations

import math

__all__ = ["Z95", "score_from_elo", "elo_from_score"]

Z95 = 1.959963984540054


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(s: float) -> float:
    """Elo difference giving expected score ``s``; ``±inf`` at 1 and 0."""
    if s >= 1.0:
        return math.inf
    if s <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / s - 1.0) + 0.0  # + 0.0 turns -0.0 into 0.0
