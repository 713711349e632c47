"""Exact endgame solving: the final disc differential with best play, or only its sign.

The C kernel's solver (fail-soft negamax alpha-beta on bitboards, principal-variation
search, fewest-replies move ordering, parity ordering near the end, a transposition table
on longer solves) when built, else :func:`solve_python`, which finds the same values
(best moves may differ between equally good ones).  Both stop cleanly at a node budget or
a deadline and then say so (``complete=False``).

Values follow the Edax convention: the final disc differential of the side to move, the
empty squares given to the winner.  ``exact=False`` solves only win/draw/loss (a
null-window search around 0, much faster) and gives the value's sign.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ...game import GameError, Outcome
from .. import kernel
from ..board.bitboard import final_differential, geometry
from ..board.rules import ReversiState

#: The solver takes positions with at most this many empty squares.
MAX_EMPTIES = 64
#: ``solve_position``'s ``ev`` when not given: the shipped evaluation orders the moves.
DEFAULT = object()
#: From this many empty squares the evaluation orders the solver's moves (fewer: the
#: opponent's reply count alone).  Measured on 20 positions of 18 empties: median 3.1 M
#: nodes, against 3.3 M from 10 empties and 4.0 M with no evaluation.
EVAL_ORDER_EMPTIES = 14


def _default_handle():
    from ..evaluation.patterns import default  # the weights are loaded on the first solve that needs them

    ev = default()
    return ev.handle if ev is not None else None


@dataclass(frozen=True, slots=True)
class Solution:
    """What a solve found.

    - ``value``: with ``exact``, the final disc differential for the side to move with
      best play; else its sign (-1, 0, 1); 0 when not ``complete``;
    - ``move``: a best move (``n * n`` is the pass), ``None`` when the game is over or
      the solve was stopped;
    - ``nodes``: positions searched;
    - ``complete``: ``False`` when the node budget or the deadline stopped the solve.
    """

    value: int
    move: int | None
    nodes: int
    complete: bool
    exact: bool

    @property
    def outcome(self) -> Outcome:
        """The result for the side to move (``UNKNOWN`` when the solve was stopped)."""
        if not self.complete:
            return Outcome.UNKNOWN
        return Outcome.WIN if self.value > 0 else Outcome.LOSS if self.value < 0 else Outcome.DRAW


def solve(state: ReversiState, *, exact: bool = True, max_nodes: int | None = None,
          deadline: float | None = None) -> Solution:
    """Solve ``state`` (at most :data:`MAX_EMPTIES` empty squares).

    ``max_nodes``: stop after about this many positions; ``deadline``: stop at this
    :func:`time.monotonic` time.
    """
    black, white, to_move = state.snapshot()
    return solve_position(black, white, to_move, state.n, exact=exact, max_nodes=max_nodes,
                          deadline=deadline)


def solve_position(black: int, white: int, to_move: int, n: int, *, exact: bool = True,
                   max_nodes: int | None = None, deadline: float | None = None, ev=DEFAULT) -> Solution:
    """:func:`solve` on bitboards (in C when built).  ``ev``: the evaluation (a
    :class:`~engine.reversi.evaluation.patterns.PatternEval`'s ``handle``) that orders the moves far
    from the end on 8x8 -- by default the shipped one, ``None`` for none; it changes the
    work, never the value."""
    _check_empties(black, white, n)
    core = kernel.native()
    if core is None:
        return solve_python(black, white, to_move, n, exact=exact, max_nodes=max_nodes, deadline=deadline)
    if ev is DEFAULT:
        ev = _default_handle() if n == 8 else None
    guess = 0
    if ev is not None and exact and n == 8:
        # the exact search closes in on the value from the evaluation's prediction (an even
        # number of discs, as every final margin is)
        p, o = (black, white) if to_move == 1 else (white, black)
        guess = 2 * round(core.evaluate(ev, p, o) / 256)
    value, move, nodes, complete = core.solve(n, black, white, to_move, exact, max_nodes or 0,
                                              deadline or 0.0, ev=ev, ev_min=EVAL_ORDER_EMPTIES, guess=guess)
    return Solution(value, move if complete and move >= 0 else None, nodes, complete, exact)


def move_values(state: ReversiState, *, exact: bool = True, max_nodes: int | None = None,
                deadline: float | None = None) -> dict[int, int] | None:
    """The solved value of every legal move, for the side to move (``exact=False``: the
    signs), or ``None`` when the budget ran out first.  ``max_nodes`` is for the whole
    call.  ``{}`` when the game is over."""
    out: dict[int, int] = {}
    used = 0
    for move in state.legal_moves():
        state.apply(move)
        try:
            budget = None if max_nodes is None else max_nodes - used
            if budget is not None and budget <= 0:
                return None
            s = solve(state, exact=exact, max_nodes=budget, deadline=deadline)
        finally:
            state.undo()
        if not s.complete:
            return None
        used += s.nodes
        out[move] = -s.value
    return out


def _check_empties(black: int, white: int, n: int) -> None:
    empties = n * n - (black | white).bit_count()
    if empties > MAX_EMPTIES:
        raise GameError(f"the solver takes positions with at most {MAX_EMPTIES} empty squares, not {empties}")


# ---------------------------------------------------------------------------------- Python


class _Stop(Exception):
    """The node budget or the deadline ran out."""


class _PySolver:
    """Fail-soft negamax alpha-beta with fewest-replies ordering (the fallback solver)."""

    __slots__ = ("geo", "area", "nodes", "max_nodes", "deadline")

    def __init__(self, n: int, max_nodes: int | None, deadline: float | None) -> None:
        self.geo = geometry(n)
        self.area = n * n
        self.nodes = 0
        self.max_nodes = max_nodes
        self.deadline = deadline

    def _tick(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise _Stop
        if self.deadline is not None and not self.nodes & 1023 and time.monotonic() > self.deadline:
            raise _Stop

    def ordered(self, p: int, o: int, m: int) -> list[tuple[int, int]]:
        """``(square, flips)`` of the moves, fewest opponent replies first (corners a
        little earlier), when there are enough empties for ordering to pay."""
        geo = self.geo
        out = []
        deep = self.area - (p | o).bit_count() > 6
        while m:
            x = m & -m
            m ^= x
            sq = x.bit_length() - 1
            f = geo.flips(p, o, sq)
            key = 0
            if deep:
                key = 2 * geo.moves(o ^ f, p | f | x).bit_count() - (3 if x & geo.corners else 0)
            out.append((key, sq, f))
        if deep:
            out.sort()
        return [(sq, f) for _, sq, f in out]

    def search(self, p: int, o: int, alpha: int, beta: int) -> int:
        self._tick()
        geo = self.geo
        m = geo.moves(p, o)
        if not m:
            if not geo.moves(o, p):
                return final_differential(p, o, self.area)
            return -self.search(o, p, -beta, -alpha)
        best = -1000
        for sq, f in self.ordered(p, o, m):
            x = 1 << sq
            v = -self.search(o ^ f, p | f | x, -beta, -max(alpha, best))
            if v > best:
                best = v
                if v >= beta:
                    break
        return best

    def root(self, p: int, o: int, alpha: int, beta: int) -> tuple[int, int | None]:
        self.nodes += 1
        geo = self.geo
        m = geo.moves(p, o)
        if not m:
            if not geo.moves(o, p):
                return final_differential(p, o, self.area), None
            return -self.search(o, p, -beta, -alpha), self.area
        best, best_move = -1000, None
        for sq, f in self.ordered(p, o, m):
            x = 1 << sq
            v = -self.search(o ^ f, p | f | x, -beta, -max(alpha, best))
            if v > best:
                best, best_move = v, sq
                if v >= beta:
                    break
        return best, best_move


def solve_python(black: int, white: int, to_move: int, n: int, *, exact: bool = True,
                 max_nodes: int | None = None, deadline: float | None = None) -> Solution:
    """:func:`solve_position` in Python."""
    _check_empties(black, white, n)
    p, o = (black, white) if to_move == 1 else (white, black)
    s = _PySolver(n, max_nodes, deadline)
    alpha, beta = (-1000, 1000) if exact else (-1, 1)
    try:
        value, move = s.root(p, o, alpha, beta)
    except _Stop:
        return Solution(0, None, s.nodes, False, exact)
    if not exact:
        value = (value > 0) - (value < 0)
    return Solution(value, move, s.nodes, True, exact)
