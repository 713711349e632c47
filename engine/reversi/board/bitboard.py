"""Reversi move generation and flips on Python ints, for any even board side n.

A bitboard is a Python int whose bit ``row * n + col`` is a square (row 0 at the top,
column 0 on the left), so a square's bit index is also its move number.  Moving one
square in a direction is a shift (east +1, south +n, south-east +n+1, south-west
+n-1, and the four opposites); a shift that crosses the left or right edge would wrap
into the neighbouring row, so every shifted board is masked with the squares a step in
that direction can land on (not column 0 after an eastward step, not column n-1 after
a westward one, nothing beyond the last square after a left shift).
"""

from __future__ import annotations

from functools import lru_cache

MIN_SIZE = 4
MAX_SIZE = 16


class Geometry:
    """The shift amounts and landing masks of an n x n board, and the move generator.

    ``moves(p, o)`` and ``flips(p, o, square)`` take the bitboards of the player to
    move (``p``) and of the opponent (``o``).
    """

    __slots__ = ("n", "area", "full", "_left", "_right", "corners")

    def __init__(self, n: int) -> None:
        self.n = n
        self.area = n * n
        self.full = (1 << self.area) - 1
        col0 = sum(1 << (r * n) for r in range(n))
        not_first = self.full & ~col0  # landing squares of an eastward step
        not_last = self.full & ~(col0 << (n - 1))  # ... of a westward step
        # (shift, landing mask): left shifts go east/south, right shifts west/north.
        self._left = ((1, not_first), (n, self.full), (n + 1, not_first), (n - 1, not_last))
        self._right = ((1, not_last), (n, self.full), (n + 1, not_last), (n - 1, not_first))
        self.corners = (1 << 0) | (1 << (n - 1)) | (1 << (self.area - n)) | (1 << (self.area - 1))

    def moves(self, p: int, o: int) -> int:
        """The bitboard of the legal moves of ``p`` against ``o``."""
        acc = 0
        for s, mask in self._left:
            om = o & mask
            t = (p << s) & om
            run = t
            while t:  # extend the runs of opponent discs one step at a time
                t = (t << s) & om
                run |= t
            acc |= (run << s) & mask
        for s, mask in self._right:
            om = o & mask
            t = (p >> s) & om
            run = t
            while t:
                t = (t >> s) & om
                run |= t
            acc |= (run >> s) & mask
        return acc & ~(p | o) & self.full

    def flips(self, p: int, o: int, square: int) -> int:
        """The discs of ``o`` that ``p`` would flip by playing on the empty ``square``
        (0 when the move is illegal)."""
        x = 1 << square
        flipped = 0
        for s, mask in self._left:
            run = 0
            t = (x << s) & mask
            while t & o:
                run |= t
                t = (t << s) & mask
            if t & p:
                flipped |= run
        for s, mask in self._right:
            run = 0
            t = (x >> s) & mask
            while t & o:
                run |= t
                t = (t >> s) & mask
            if t & p:
                flipped |= run
        return flipped


@lru_cache(maxsize=None)
def geometry(n: int) -> Geometry:
    """The shared :class:`Geometry` of an n x n board (n even, 4..16; checked by the
    callers that take user input)."""
    return Geometry(n)


def squares(bb: int) -> list[int]:
    """The squares of a bitboard, in increasing order."""
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out


def final_differential(p: int, o: int, area: int) -> int:
    """The final disc differential for ``p`` (empty squares go to the winner)."""
    a = p.bit_count()
    b = o.bit_count()
    diff = a - b
    if diff > 0:
        return diff + (area - a - b)
    if diff < 0:
        return diff - (area - a - b)
    return 0
