"""The engine's values in NBoard's unit: discs, for the side to move.

NBoard shows an eval as the final disc differential the side to move can expect (what
alpha-beta engines such as Edax compute).  The MCTS gives the expected score ``v`` in
[0, 1] (1 a win, 0.5 a draw), so:

- when the endgame solver has proved the exact result, the eval is that margin (the
  final disc differential with best play, empty squares to the winner);
- when the tree has proved only the result, the eval is the smallest margin with that
  result: ``+2`` a win, ``-2`` a loss (a finished board's differential is even), ``0`` a
  draw (a GUI sees from a hint's depth, ``100%W``, that it is a win/draw/loss proof);
- otherwise ``EVAL_SCALE * ln(v / (1 - v))``, the inverse of a logistic win probability
  of the margin, within the board's area.  ``EVAL_SCALE`` is the scale with which the
  pattern evaluation's leaves turn a predicted margin into a value
  (:data:`engine.reversi.evaluation.patternleaves.LEAF_SCALE`), so on 8x8 the eval is the margin the
  evaluation predicts, averaged by the tree; it also fits the playout search's values
  (least squares on the exact margins of 99 positions with 16 and 20 empty squares: 11.65,
  ``python -m lab.eval_scale``).
"""

from __future__ import annotations

import math

#: Discs per unit of log-odds of the search's value (see the module docstring; equal to
#: the leaves' scale, which tests/protocol/test_nboard_wire.py checks: protocol code reaches the
#: engine only through its facade).
EVAL_SCALE = 12.0
#: The margin shown for a proven win (or, negated, a loss) whose exact margin is unknown.
PROVEN_MARGIN = 2


def value_to_discs(value: float, area: int = 64) -> float:
    """The eval of an unproven value in [0, 1], within ``[-area, area]``."""
    limit = float(area)
    if value <= 0.0:
        return -limit
    if value >= 1.0:
        return limit
    return max(-limit, min(limit, EVAL_SCALE * math.log(value / (1.0 - value))))


def eval_discs(value: float, proven: str | None = None, exact: int | None = None, area: int = 64) -> float:
    """The eval NBoard shows: ``exact`` when known, else the proven result's smallest
    margin, else :func:`value_to_discs`."""
    if exact is not None:
        return float(exact)
    if proven == "win":
        return float(PROVEN_MARGIN)
    if proven == "loss":
        return -float(PROVEN_MARGIN)
    if proven == "draw":
        return 0.0
    return value_to_discs(value, area)

