"""The referee's clock: the time-control settings and each side's time in one game.

All the time logic of a game is here: how long a move may take, what is left of a
side's match clock, when a move is late, and the words that say why.  Times are
measured by the referee on ``time.monotonic()``; an engine's own account of its
time is never used.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TimeControl", "Turn", "GameClock"]


@dataclass(frozen=True)
class TimeControl:
    """Clock settings of a game, in milliseconds.

    - ``turn_ms``: time per move (0 = no per-move limit; then ``match_ms`` is the limit).
    - ``match_ms``: time per game and side (0 = none).
    - ``tolerance_ms``: extra time granted before a move counts as late, like
      Piskvork's "tolerance" (default 1000 ms there): it absorbs process start-up,
      pipe latency and machine load, so the engine is told ``turn_ms`` but lost
      only after ``turn_ms + tolerance_ms``.
    - ``start_ms``: how long an engine may take to start and confirm it (Gomocup's
      ``START`` answered ``OK``, NBoard's first ``ping`` answered ``pong``); not
      charged to its clock.
    - ``about_ms``: how long to wait for a Gomocup ``ABOUT`` answer before naming the
      engine after its command.
    """

    turn_ms: int = 1000
    match_ms: int = 0
    tolerance_ms: int = 1000
    start_ms: int = 5000
    about_ms: int = 1500


@dataclass(frozen=True)
class Turn:
    """The clock of one move, as the referee hands it to a seat.

    ``limit_ms`` is what the move may take without tolerance (``inf``: no
    limit); ``left_ms`` what is left of the side's match clock (``None``: no
    match clock); ``budget_s`` how long the seat may wait for the move before
    it is late (the limit plus the tolerance; ``inf`` for a person).
    """

    limit_ms: float
    left_ms: float | None
    budget_s: float


class GameClock:
    """Both sides' time in one game: the limit of each move and the time used so far."""

    def __init__(self, tc: TimeControl, sides: tuple[TimeControl, TimeControl] | None = None) -> None:
        self.tc = tc
        #: Each side's own clock (time odds); both the game's by default.
        self.sides = sides if sides is not None else (tc, tc)
        self.used_ms = [0.0, 0.0]

    def turn(self, side: int, timed: bool = True) -> Turn:
        """The clock of side ``side``'s (0 or 1) next move; ``timed=False`` for a person,
        whose time is recorded but never enforced."""
        tc = self.sides[side]
        limit = float(tc.turn_ms) if tc.turn_ms > 0 else float("inf")
        left = None
        if tc.match_ms > 0:
            left = tc.match_ms - self.used_ms[side]
            limit = min(limit, left)
        budget = max(0.0, limit + tc.tolerance_ms) / 1000.0 if timed else float("inf")
        return Turn(limit, left, budget)

    def late(self, turn: Turn, ms: float, side: int = 0) -> str | None:
        """Why side ``side``'s move of ``ms`` is late for ``turn`` (over the limit and the
        tolerance), else ``None``."""
        tc = self.sides[side]
        if ms <= turn.limit_ms + tc.tolerance_ms:
            return None
        if tc.match_ms > 0 and (tc.turn_ms <= 0 or turn.limit_ms < tc.turn_ms):
            over = f"its remaining match time {turn.limit_ms:.0f} ms + {tc.tolerance_ms} ms tolerance"
        else:
            over = f"the {tc.turn_ms} ms turn time + {tc.tolerance_ms} ms tolerance"
        return f"took {ms:.0f} ms, over {over}"

    def charge(self, side: int, ms: float) -> None:
        """Count ``ms`` against side ``side``'s match clock."""
        self.used_ms[side] += ms
