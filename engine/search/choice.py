"""The one rule that picks the move to play from a root's statistics.

Both tree searches (the generic :class:`engine.search.mcts.MCTS` and m,n,k's guided tree
in C) hand their root's children to :func:`choose`, so they cannot disagree on what to
play from the same statistics.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ..game import Outcome


class Child(NamedTuple):
    """One root move's statistics: ``n`` playouts through it, ``w`` their summed score for
    the root's side to move, ``outcome`` the move's proven result for that side
    (``Outcome.WIN``: playing it wins), ``plies`` the plies to the end when proven."""

    move: int
    n: float
    w: float
    outcome: Outcome = Outcome.UNKNOWN
    plies: int = 0


def choose(children: Sequence[Child]) -> int | None:
    """The index in ``children`` (listed best-ordered first) of the move to play.

    1. a proven win, the quickest one;
    2. else the most visited move not proven lost (ties: the higher mean, then the
       earlier one), replaced by the most visited proven draw when its mean is below a
       draw; with nothing visited, the first move not proven lost;
    3. when every move is proven lost, the one that resists longest (ties: the most
       visited, then the earlier one).

    ``None`` when there are no moves.
    """
    if not children:
        return None
    win = None
    draw = None
    best = None
    best_key = None
    for i, c in enumerate(children):
        if c.outcome == Outcome.WIN:
            if win is None or c.plies < children[win].plies:
                win = i
            continue
        if c.outcome == Outcome.LOSS:
            continue
        if c.outcome == Outcome.DRAW and (draw is None or c.n > children[draw].n):
            draw = i
        key = (c.n, c.w / c.n if c.n > 0 else 0.0)
        if best_key is None or key > best_key:
            best, best_key = i, key
    if win is not None:
        return win
    if best is None:
        # Every move is proven lost: resist longest.
        return max(range(len(children)), key=lambda i: (children[i].plies, children[i].n, -i))
    if draw is not None and best != draw and best_key[0] > 0 and best_key[1] < 0.5:
        return draw
    return best


def mean(child: Child) -> float:
    """What ``child`` is worth to the root's side to move: exact when proven, else its mean
    score (0.5 with no playouts)."""
    if child.outcome != Outcome.UNKNOWN:
        return child.outcome.score
    return min(1.0, max(0.0, child.w / child.n)) if child.n > 0 else 0.5


def rank(children: Sequence[Child]) -> list[int]:
    """The indices of ``children`` best first: the move :func:`choose` plays, then proven
    wins (quickest first), then the moves not proven lost by visits (ties: the higher mean,
    then the earlier one), then proven losses (the longest resistance first)."""
    first = choose(children)
    if first is None:
        return []

    def key(i: int) -> tuple:
        c = children[i]
        if c.outcome == Outcome.WIN:
            return (0, c.plies, 0.0, 0.0, i)
        if c.outcome == Outcome.LOSS:
            return (2, -c.plies, -c.n, 0.0, i)
        return (1, 0, -c.n, -mean(c), i)

    return [first] + sorted((i for i in range(len(children)) if i != first), key=key)
