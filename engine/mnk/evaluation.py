"""A static line-pattern evaluation of leaf positions, vectorised over a batch.

Uniformly random playouts on a big board say little about who is ahead: most
of them are decided by lines neither player would ever allow.  What decides a
real game is who owns more *live windows* (K consecutive cells holding stones
of one side only) and how full they are.  This module scores a whole batch
of leaves at once with numpy:

- every window's stone counts per player come from one gather of the batch
  through a ``(windows, K)`` index table;
- a live window missing ``r`` stones adds ``OWN_WEIGHTS[r]`` to the logit of
  the side to move when the window is its own, ``OPPONENT_WEIGHTS[r]`` (a
  negative number) when it is the opponent's; windows missing more than four
  stones count for nothing;
- ``TEMPO`` is added for having the move;
- the value for the side to move is ``sigmoid(logit)``.

The weights are a logistic regression fitted to a strong engine's judgement:
11,000 positions from this project's 15x15 freestyle games, each labelled with
the evaluation of Rapfi 0.43 (classical evaluation, 100,000 nodes), mapped to
a winning chance by ``sigmoid(eval / 200)`` (a mate is 0 or 1).  On a fifth
of them held out from the fit the fitted weights predict who is better in
82 % of positions, the former hand-set weights in 73 % (docs/TUNING.md has
the figures and the commands).  Positions never have a live four for
the side to move in such games (it would have won), so that weight is set by
hand: it is a win in one move.

The searcher mixes this value with the playouts' score (see
``MnkOptions.leaves.eval_weight``).  The evaluation is a heuristic for any K and
rule (exact/caro end conditions are ignored here; the tree and the playouts
are exact); the weights depend on the stones a window lacks, not on K.
"""

from __future__ import annotations

import numpy as np

from ..heap import keep_heap
from .patterns import geometry
from .rules import GameConfig

#: Logit weight of a live window of the side to move, by stones missing (index r).
OWN_WEIGHTS = (0.0, 3.0, 0.618, 0.231, 0.075)
#: Logit weight of a live window of the opponent, by stones missing.
OPPONENT_WEIGHTS = (0.0, -2.55, -0.651, -0.195, -0.061)
#: Logit bonus of having the move.
TEMPO = 0.63


def _by_count(weights: tuple[float, ...], k: int) -> np.ndarray:
    """Weights indexed by stones in a window (0..K), from weights indexed by stones missing."""
    out = np.zeros(k + 1)
    for c in range(1, k):  # a full window (c = K) ends the game before it is scored
        r = k - c
        if r < len(weights):
            out[c] = weights[r]
    return out


class LineEvaluator:
    """Scores batches of positions of one :class:`GameConfig` (no state between calls)."""

    def __init__(
        self,
        config: GameConfig,
        own: tuple[float, ...] = OWN_WEIGHTS,
        opponent: tuple[float, ...] = OPPONENT_WEIGHTS,
        tempo: float = TEMPO,
    ) -> None:
        keep_heap()  # the batches' temporaries would otherwise cost page faults (engine.heap)
        self.config = config
        geom = geometry(config)
        unpad = config.unpadded
        k = config.win_length
        # Windows as compact cell indices: (number of windows, K).
        self.windows = np.array([[unpad(c) for c in win] for win in geom.windows], dtype=np.intp).reshape(-1, k)
        self.own = _by_count(own, k)
        self.opponent = _by_count(opponent, k)
        self.tempo = tempo

    def logits(self, boards: np.ndarray, movers: np.ndarray) -> np.ndarray:
        """Logit of winning for the side to move of each of ``boards`` (shape ``(B, area)``)."""
        first = np.asarray(movers) == 1
        if self.windows.size == 0:
            return np.full(boards.shape[0], self.tempo)
        g = boards[:, self.windows]  # (B, windows, K)
        c1 = np.count_nonzero(g == 1, axis=2)
        c2 = np.count_nonzero(g == 2, axis=2)
        live1 = c2 == 0
        live2 = c1 == 0
        # Each player's live windows, valued as the mover's and as the opponent's.
        p1_own = np.where(live1, self.own[c1], 0.0).sum(axis=1)
        p1_opp = np.where(live1, self.opponent[c1], 0.0).sum(axis=1)
        p2_own = np.where(live2, self.own[c2], 0.0).sum(axis=1)
        p2_opp = np.where(live2, self.opponent[c2], 0.0).sum(axis=1)
        return self.tempo + np.where(first, p1_own + p2_opp, p2_own + p1_opp)

    def values(self, boards: np.ndarray, movers: np.ndarray) -> np.ndarray:
        """Value in (0, 1) of each board for its side to move (``movers``: 1 or 2 per board)."""
        return 1.0 / (1.0 + np.exp(-self.logits(boards, movers)))
