"""Engines kept between games: a process that ended its game well plays the next one.

Starting two engine processes for every game costs a good part of a short game (the
referee's own brain needs about a quarter of a second to start).  A game takes its
seats from the pool (a seat kept for the same engine spec, or a new one) and hands them
back when it ends; a seat is kept only when its engine is still running and was not at
fault in that game (a crash, a timeout, bad output, an illegal or forbidden move, a
refused new game), and never after an interrupted game.  The referee's judgement does
not depend on it: it keeps its own board and clock, and a kept engine is brought to the
new game by the protocol's own commands (Gomocup ``START`` again, NBoard ``set game``).
"""

from __future__ import annotations

import threading

from referee.games.verdicts import FAULTS, Termination
from referee.play.game import close_seats
from referee.play.result import GameResult
from referee.seats.base import Seat
from referee.seats.spec import EngineSpec

__all__ = ["EnginePool"]


class EnginePool:
    """Idle engine seats by spec, shared by the games of one match (thread-safe)."""

    def __init__(self) -> None:
        self._idle: dict[EngineSpec, list[Seat]] = {}
        self._lock = threading.Lock()
        self.reused = 0  # seats handed out again, for the figures

    def take(self, spec: EngineSpec) -> Seat | None:
        """An idle seat of ``spec``, or ``None`` when the game must open its own."""
        with self._lock:
            seats = self._idle.get(spec)
            if not seats:
                return None
            self.reused += 1
            return seats.pop()

    def give_back(self, seats: tuple[Seat, Seat], specs: tuple[EngineSpec, EngineSpec], r: GameResult) -> None:
        """Keep each engine seat of a finished game that may play on (see the module docstring);
        close the others."""
        for i, (seat, spec) in enumerate(zip(seats, specs)):
            at_fault = r.termination in {t.value for t in FAULTS} and r.winner == f"engine{2 - i}"
            keep = spec.is_process and seat.is_running() and not at_fault \
                and r.termination != Termination.INTERRUPTED.value
            if keep:
                with self._lock:
                    self._idle.setdefault(spec, []).append(seat)
            else:
                seat.close(0.3)

    def close(self, grace_s: float = 0.3) -> None:
        """End every idle engine: the end line to all, one shared grace period, then kill and reap."""
        with self._lock:
            seats = [s for group in self._idle.values() for s in group]
            self._idle.clear()
        close_seats(seats, grace_s)
