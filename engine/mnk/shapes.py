"""Move priors from line shapes, with weights fitted to a strong engine's choices.

For a candidate cell and a side, each of the four directions through the cell
gets a *shape class* from the live windows (no stone of the other side) of
that direction that contain the cell:

- ``m``: the most stones of the side in one of those windows, so playing the
  cell leaves ``r = K - 1 - m`` stones missing in the best window (``r`` = 0:
  the move completes a line; 1: it makes a four; 2: a three ...; capped at 4);
- ``n``: how many windows reach ``m`` (1, 2, 3 or more): the more, the more
  open the shape (an open four has two windows one stone short, a closed
  four one).

A class is ``1 + 3 * r + (n - 1)``, or 0 ("dead") when the direction has no
live window.  A cell's features, for the side to move ("attack") and for the
opponent ("defence", the value of taking the cell from it), are the count of
its directions in each class and the pair of its two strongest classes, which
is what makes a four-three or a double three worth more than the sum of its
lines.  The prior of the cell is ``exp(SHARPNESS * w . features)``.

The weights (:mod:`engine.mnk.shape_weights`) are a softmax regression fitted by
``python -m engine.tuning`` to the moves Rapfi 0.43 chose in positions from this
project's 15x15 games (see docs/TUNING.md).  Classes are defined by stones
missing, not by K, so the same weights serve every win length.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from .patterns import geometry, window_counts
from .rules import EMPTY, GameConfig

#: Stones-missing levels (0..4, 4 meaning "four or more") and window counts (1..3+) of a class.
LEVELS = 5
OPENNESS = 3
#: Number of shape classes (0 is "dead": no live window in the direction).
CLASSES = 1 + LEVELS * OPENNESS


def _strength(cls: int) -> int:
    """Sort key of a class: fewer stones missing first, then more windows (dead last)."""
    if cls == 0:
        return -1
    r, n = divmod(cls - 1, OPENNESS)
    return (LEVELS - r) * 10 + n


#: Classes from strongest to weakest, the rank of each class in that order, and the
#: index of every unordered pair of classes (the two strongest directions of a cell).
ORDER = tuple(sorted(range(CLASSES), key=_strength, reverse=True))
RANK = np.array([ORDER.index(c) for c in range(CLASSES)])
PAIR_INDEX = np.zeros((CLASSES, CLASSES), dtype=np.intp)
_pairs = 0
for _i in range(CLASSES):
    for _j in range(_i, CLASSES):
        PAIR_INDEX[ORDER[_i], ORDER[_j]] = PAIR_INDEX[ORDER[_j], ORDER[_i]] = _pairs
        _pairs += 1
PAIRS = _pairs
#: Features per side (class counts, then the strongest pair), and per cell (attack, defence).
SIDE_FEATURES = CLASSES + PAIRS
FEATURES = 2 * SIDE_FEATURES


@functools.lru_cache(maxsize=32)
def direction_table(config: GameConfig) -> np.ndarray:
    """Window ids through every padded cell, per direction: shape ``(padded_size, 4, K)``.

    Missing entries (near the edges) hold a dummy id one past the last window.
    """
    geom = geometry(config)
    k = config.win_length
    steps = list(config.directions)
    dummy = len(geom.windows)
    table = np.full((config.padded_size, 4, k), dummy, dtype=np.intp)
    fill = np.zeros((config.padded_size, 4), dtype=np.intp)
    for wid, win in enumerate(geom.windows):
        d = steps.index(geom.window_dir[wid])
        for c in win:
            table[c, d, fill[c, d]] = wid
            fill[c, d] += 1
    return table


def shape_classes(config: GameConfig, own: Sequence[int], opp: Sequence[int], cells: np.ndarray) -> np.ndarray:
    """Shape class of every direction of ``cells`` (padded) for the side with window counts ``own``.

    Returns an ``(len(cells), 4)`` int array.
    """
    own_a = np.append(np.asarray(own, dtype=np.intp), 0)
    opp_a = np.append(np.asarray(opp, dtype=np.intp), 1)  # the dummy window is dead
    w = direction_table(config)[cells]  # (C, 4, K)
    live = opp_a[w] == 0
    a = np.where(live, own_a[w], -1)
    m = a.max(axis=2)
    n = np.count_nonzero((a == m[..., None]) & live, axis=2)
    r = np.clip(config.win_length - 1 - m, 0, LEVELS - 1)
    return np.where(m < 0, 0, 1 + r * OPENNESS + np.clip(n, 1, OPENNESS) - 1)


def strongest_pair(classes: np.ndarray) -> np.ndarray:
    """Pair index (see :data:`PAIR_INDEX`) of the two strongest classes of each ``(C, 4)`` row."""
    top = np.argsort(RANK[classes], axis=1, kind="stable")[:, :2]
    first = np.take_along_axis(classes, top[:, :1], axis=1)[:, 0]
    second = np.take_along_axis(classes, top[:, 1:2], axis=1)[:, 0]
    return PAIR_INDEX[first, second]


def _side_indices(classes: np.ndarray, offset: int) -> np.ndarray:
    """``(C, 5)`` feature indices of one side: its four direction classes, then its strongest pair."""
    return np.concatenate([classes, (CLASSES + strongest_pair(classes))[:, None]], axis=1) + offset


def feature_indices(
    config: GameConfig,
    cells: Sequence[int],
    player: int,
    candidates: Sequence[int],
    counts: tuple[Sequence[int], Sequence[int]] | None = None,
) -> np.ndarray:
    """Features of padded ``candidates`` for ``player`` to move, sparse: an ``(C, 10)`` int array.

    Each row lists the indices of the cell's active features (a class index
    appears once per direction in that class), so a cell's logit is
    ``weights[row].sum()`` and no matrix product is needed (numpy would hand one to a
    multi-threaded BLAS, which takes the cores from the other processes).
    """
    c1, c2 = counts if counts is not None else window_counts(geometry(config), cells)
    own, opp = (c1, c2) if player == 1 else (c2, c1)
    cand = np.asarray(candidates, dtype=np.intp)
    attack = _side_indices(shape_classes(config, own, opp, cand), 0)
    defence = _side_indices(shape_classes(config, opp, own, cand), SIDE_FEATURES)
    return np.concatenate([attack, defence], axis=1)


#: Factor on the fitted logits in :func:`shape_scores`.  The fitted softmax is sharp (the
#: second-best cell typically gets 0.43 of the best one's weight, the fifth 0.09); the tree's
#: progressive bias and widening were tuned on flatter priors (0.93, 0.55), and a quarter
#: of the logits restores that spread without changing the order.
SHARPNESS = 0.25
#: Logit of a cell that completes a line, for the side to move and (blocking) for the opponent.
#: Set by hand: the fit leaves such positions out (the searcher plays them exactly), so the
#: data says nothing about them, and a completion must outrank every other cell.
COMPLETE_LOGIT = 40.0
BLOCK_LOGIT = 30.0


@functools.lru_cache(maxsize=1)
def fitted_weights() -> np.ndarray:
    """The weights of :mod:`engine.mnk.shape_weights`, with the completion weights set (cached; do not modify)."""
    from .shape_weights import WEIGHTS  # generated by python -m engine.tuning

    w = np.array(WEIGHTS, dtype=float)
    if w.shape != (FEATURES,):
        raise ValueError(f"shape_weights has {w.size} weights, expected {FEATURES}")
    completing = [1 + n for n in range(OPENNESS)]  # classes with no stone missing (r = 0)
    w[completing] = COMPLETE_LOGIT
    w[[SIDE_FEATURES + c for c in completing]] = BLOCK_LOGIT
    return w


def shape_scores(
    config: GameConfig,
    cells: Sequence[int],
    player: int,
    candidates: Sequence[int],
    counts: tuple[Sequence[int], Sequence[int]] | None = None,
) -> dict[int, float]:
    """Prior weight ``exp(SHARPNESS * w . features)`` of every empty padded cell of ``candidates``.

    Same contract as :func:`engine.mnk.patterns.cell_scores` with explicit cells:
    higher is better, and the values are positive (callers normalise them).
    """
    todo = [c for c in candidates if cells[c] == EMPTY]
    if not todo:
        return {}
    logits = fitted_weights()[feature_indices(config, cells, player, todo, counts)].sum(axis=1) * SHARPNESS
    logits -= logits.max()  # exp of the best is 1: no overflow
    return dict(zip(todo, np.exp(logits).tolist()))
