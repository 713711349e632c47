"""The moves that lead from one m,n,k position to another (tree reuse after BOARD commands).

A manager may send the whole position before every move, with stones in any order; the
search can keep its tree when the new position follows from the old root by moves it
searched.  :func:`continuation` orders the new stones into those moves.
"""

from __future__ import annotations

from typing import Sequence


def continuation(old: Sequence[int], old_to_move: int, new: Sequence[int], history: Sequence[int],
                 to_move: int) -> list[int] | None:
    """The moves that lead from the position ``old`` (``old_to_move`` to play) to ``new``
    (``to_move`` to play), alternating from ``old_to_move``, or ``None`` when ``new`` does not
    follow from ``old``.  Both positions are compact cell sequences (0 empty, 1 or 2 a stone).

    The new stones are taken in the order of ``history`` (the board's moves) when it holds
    them all and they alternate; otherwise (a BOARD command lists stones in any order) they
    are interleaved by colour.
    """
    if len(old) != len(new):
        return None
    added = []
    for m, (a, b) in enumerate(zip(old, new)):
        if a != b:
            if a != 0:
                return None  # a stone vanished or changed colour
            added.append(m)
    colour = {m: int(new[m]) for m in added}
    seq = [m for m in history if m in colour]
    alternates = len(seq) == len(added) and len(set(seq)) == len(seq) and all(
        colour[m] == (old_to_move if i % 2 == 0 else 3 - old_to_move) for i, m in enumerate(seq))
    if not alternates:
        mine = [m for m in added if colour[m] == old_to_move]
        theirs = [m for m in added if colour[m] != old_to_move]
        if len(mine) not in (len(theirs), len(theirs) + 1):
            return None
        seq = [m for pair in zip(mine, theirs) for m in pair] + mine[len(theirs):]
    player = old_to_move if len(seq) % 2 == 0 else 3 - old_to_move
    return seq if player == to_move else None
