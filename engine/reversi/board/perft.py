"""perft: the number of leaves of the move tree to a given depth.

The convention of the published figures: a pass counts as a move, and a game that ended
before the depth counts as one leaf at every later depth.  From the 8x8 start:
4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288 for depths 1..9.
"""

from __future__ import annotations

from .. import kernel
from .bitboard import geometry

#: The published leaf counts from the 8x8 start, depth 1 first.
PERFT_8X8 = (4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800)


def perft(black: int, white: int, to_move: int, n: int, depth: int) -> int:
    """The leaf count of the position to ``depth`` (in C when built)."""
    core = kernel.native()
    if core is not None:
        return core.perft(n, black, white, to_move, depth)
    return perft_python(black, white, to_move, n, depth)


def perft_python(black: int, white: int, to_move: int, n: int, depth: int) -> int:
    """:func:`perft` in Python (the reference the C kernel is tested against)."""
    p, o = (black, white) if to_move == 1 else (white, black)
    return _perft(geometry(n), p, o, depth)


def _perft(geo, p: int, o: int, depth: int) -> int:
    if depth == 0:
        return 1
    m = geo.moves(p, o)
    if not m:
        if not geo.moves(o, p):
            return 1  # the game is over: one leaf at every later depth
        return _perft(geo, o, p, depth - 1)
    if depth == 1:
        return m.bit_count()
    total = 0
    flips = geo.flips
    while m:
        x = m & -m
        m ^= x
        f = flips(p, o, x.bit_length() - 1)
        total += _perft(geo, o ^ f, p | f | x, depth - 1)
    return total
