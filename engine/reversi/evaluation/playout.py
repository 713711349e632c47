"""Batched uniformly random playouts: many games played to the end from given positions.

In C when the kernel is built, else in Python with the same random numbers: a splitmix64
stream started at the caller's seed and consumed game after game (leaf after leaf), the
move of each turn being the ``k``-th legal move in square order with
``k = ((r >> 32) * count) >> 32`` for the next number ``r``, and no number drawn when
there is only one move or a pass.  So both paths play exactly the same games.

Positions are ``(black, white, to_move)`` bitboard triples of an n x n board; results are
for the side to move at the position: wins/draws/losses, final disc differentials, or a
mean score (1 a win, 0.5 a draw, 0 a loss).
"""

from __future__ import annotations

from typing import Sequence

from .. import kernel
from ..board.bitboard import final_differential, geometry

_MASK64 = (1 << 64) - 1


def _splitmix64(state: int) -> tuple[int, int]:
    """The next ``(state, number)`` of splitmix64 (as in the C kernel)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def _playout(geo, p: int, o: int, rng: int) -> tuple[int, int]:
    """One random game from ``p`` to move: ``(final differential for p, rng state)``."""
    moves, flips = geo.moves, geo.flips
    swapped = False
    while True:
        m = moves(p, o)
        if not m:
            m = moves(o, p)
            if not m:
                break
            p, o = o, p
            swapped = not swapped
        count = m.bit_count()
        if count > 1:
            rng, r = _splitmix64(rng)
            for _ in range(((r >> 32) * count) >> 32):
                m &= m - 1
        x = m & -m
        f = flips(p, o, x.bit_length() - 1)
        p, o = o ^ f, p | f | x
        swapped = not swapped
    d = final_differential(p, o, geo.area)
    return (-d if swapped else d), rng


def _own(black: int, white: int, to_move: int) -> tuple[int, int]:
    return (black, white) if to_move == 1 else (white, black)


def playout_scores(black: int, white: int, to_move: int, n: int, count: int, seed: int) -> list[int]:
    """The final disc differentials, for the side to move, of ``count`` random games."""
    core = kernel.native()
    if core is not None:
        return core.playout_scores(n, black, white, to_move, count, seed & _MASK64)
    return playout_scores_python(black, white, to_move, n, count, seed)


def playout_scores_python(black: int, white: int, to_move: int, n: int, count: int, seed: int) -> list[int]:
    """:func:`playout_scores` in Python (the same games as the C kernel)."""
    geo = geometry(n)
    p, o = _own(black, white, to_move)
    rng = seed & _MASK64
    out = []
    for _ in range(count):
        d, rng = _playout(geo, p, o, rng)
        out.append(d)
    return out


def playouts(black: int, white: int, to_move: int, n: int, count: int, seed: int) -> tuple[int, int, int]:
    """``(wins, draws, losses)`` of the side to move over ``count`` random games."""
    core = kernel.native()
    if core is not None:
        return core.playouts(n, black, white, to_move, count, seed & _MASK64)
    scores = playout_scores_python(black, white, to_move, n, count, seed)
    wins = sum(1 for d in scores if d > 0)
    draws = sum(1 for d in scores if d == 0)
    return wins, draws, count - wins - draws


def leaf_values(leaves: Sequence[tuple[int, int, int]], n: int, count: int, seed: int) -> list[float]:
    """The mean score (1 win, 0.5 draw) for each leaf's side to move over ``count``
    random games from it; ``leaves`` are ``(black, white, to_move)`` triples.  One C
    call for the whole batch."""
    core = kernel.native()
    if core is not None:
        return core.playouts_many(n, leaves, count, seed & _MASK64)
    return leaf_values_python(leaves, n, count, seed)


def leaf_values_python(leaves: Sequence[tuple[int, int, int]], n: int, count: int, seed: int) -> list[float]:
    """:func:`leaf_values` in Python (the same games as the C kernel)."""
    geo = geometry(n)
    rng = seed & _MASK64
    out = []
    for black, white, to_move in leaves:
        p, o = _own(black, white, to_move)
        points = 0
        for _ in range(count):
            d, rng = _playout(geo, p, o, rng)
            points += 2 if d > 0 else 1 if d == 0 else 0
        out.append(points / (2 * count))
    return out
