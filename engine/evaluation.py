"""A static line-pattern evaluation of leaf positions, vectorised over a batch.

Uniformly random playouts on a big board say little about who is ahead: most
of them are decided by lines neither player would ever allow.  What decides a
real game is who owns more *live windows* (K consecutive cells holding stones
of one side only) and how full they are.  This module scores a whole batch
of leaves at once with numpy:

- every window's stone counts per player come from one gather of the batch
  through a ``(windows, K)`` index table;
- a window with stones of one side only is worth ``BASE ** (c - K + 3)`` to
  that side (``c`` its stones): a K-3 window (a "two" of gomoku) is worth 1,
  K-2 (a "three") ``BASE``, K-1 (a "four") ``BASE ** 2``; fewer stones are
  worth almost nothing;
- the side to move gets its own score times ``TEMPO`` (having the move is
  worth a lot in a race of threats);
- the value for the side to move is ``sigmoid((mine - theirs) / SCALE)``.

The searcher mixes this value with the playouts' score (see
``EngineOptions.eval_weight``).  The evaluation is a heuristic for any K and
rule (exact/caro end conditions are ignored here; the tree and the playouts
are exact).
"""

from __future__ import annotations

import numpy as np

from .patterns import geometry
from .rules import GameConfig

#: Worth of one more stone in a live window.
BASE = 6.0
#: Multiplier of the side to move's score.
TEMPO = 1.5
#: Score difference that gives a value of about 0.73 (sigmoid(1)).
SCALE = 12.0


class LineEvaluator:
    """Scores batches of positions of one :class:`GameConfig` (no state between calls)."""

    def __init__(self, config: GameConfig, base: float = BASE, tempo: float = TEMPO, scale: float = SCALE) -> None:
        self.config = config
        geom = geometry(config)
        unpad = config.unpadded
        k = config.win_length
        # Windows as compact cell indices: (number of windows, K).
        self.windows = np.array([[unpad(c) for c in win] for win in geom.windows], dtype=np.intp).reshape(-1, k)
        weights = np.array([base ** (c - k + 3) if c >= max(1, k - 4) else 0.0 for c in range(k + 1)])
        weights[k] = 0.0  # a complete line ends the game before it is scored
        self.weights = weights
        self.tempo = tempo
        self.scale = scale

    def scores(self, boards: np.ndarray) -> np.ndarray:
        """``(B, 2)`` pattern scores of players 1 and 2 for ``boards`` of shape ``(B, area)``."""
        if self.windows.size == 0:
            return np.zeros((boards.shape[0], 2))
        g = boards[:, self.windows]  # (B, windows, K)
        c1 = np.count_nonzero(g == 1, axis=2)
        c2 = np.count_nonzero(g == 2, axis=2)
        w = self.weights
        s1 = np.where(c2 == 0, w[c1], 0.0).sum(axis=1)
        s2 = np.where(c1 == 0, w[c2], 0.0).sum(axis=1)
        return np.stack([s1, s2], axis=1)

    def values(self, boards: np.ndarray, movers: np.ndarray) -> np.ndarray:
        """Value in (0, 1) of each board for its side to move (``movers``: 1 or 2 per board)."""
        s = self.scores(boards)
        first = np.asarray(movers) == 1
        mine = np.where(first, s[:, 0], s[:, 1])
        theirs = np.where(first, s[:, 1], s[:, 0])
        return 1.0 / (1.0 + np.exp(-(mine * self.tempo - theirs) / self.scale))
