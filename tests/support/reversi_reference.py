"""A slow, obviously correct Reversi for the tests: a board as a dict of squares, moves
found by walking each direction with bounds checks, and a memoised full minimax.

It shares no code with engine/reversi, so the bitboards and the solvers are checked
against something independent.
"""

from __future__ import annotations

from functools import lru_cache

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def cells(bb: int, n: int) -> set[tuple[int, int]]:
    return {(i // n, i % n) for i in range(n * n) if bb >> i & 1}


def flips(own: set, opp: set, n: int, r: int, c: int) -> set[tuple[int, int]]:
    """The squares flipped by playing (r, c), by walking every direction."""
    if (r, c) in own or (r, c) in opp:
        return set()
    out: set[tuple[int, int]] = set()
    for dr, dc in DIRECTIONS:
        line = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and (rr, cc) in opp:
            line.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if line and 0 <= rr < n and 0 <= cc < n and (rr, cc) in own:
            out.update(line)
    return out


def moves(own: set, opp: set, n: int) -> dict[tuple[int, int], set]:
    """Every legal move with its flips."""
    out = {}
    for r in range(n):
        for c in range(n):
            f = flips(own, opp, n, r, c)
            if f:
                out[(r, c)] = f
    return out


def to_bb(squares: set, n: int) -> int:
    return sum(1 << (r * n + c) for r, c in squares)


def final(own: set, opp: set, n: int) -> int:
    d = len(own) - len(opp)
    e = n * n - len(own) - len(opp)
    return d + e if d > 0 else d - e if d < 0 else 0


@lru_cache(maxsize=None)
def minimax(p: int, o: int, n: int) -> int:
    """The final disc differential for the side to move (``p``) with best play (no
    pruning; memoised on the position, across calls)."""
    own, opp = cells(p, n), cells(o, n)
    ms = moves(own, opp, n)
    if not ms:
        if not moves(opp, own, n):
            return final(own, opp, n)
        return -minimax(o, p, n)
    best = -10_000
    for (r, c), f in ms.items():
        new_own = own | f | {(r, c)}
        new_opp = opp - f
        best = max(best, -minimax(to_bb(new_opp, n), to_bb(new_own, n), n))
    return best
