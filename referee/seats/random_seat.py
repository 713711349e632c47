"""The built-in random mover: a side that plays a uniformly random legal move at once, no process.

A baseline opponent (``referee ENGINE random``) for any game the referee knows; its
moves go through the same judging as an engine's.
"""

from __future__ import annotations

import random
import time

from referee.games.clock import Turn
from referee.games.base import Position
from referee.seats.base import InProcessSeat
from referee.seats.spec import RANDOM

__all__ = ["RandomSeat"]


class RandomSeat(InProcessSeat):
    """Plays a uniformly random legal move; ``seed`` (any hashable) repeats its moves."""

    def __init__(self, *, name: str = RANDOM, seed: object = None) -> None:
        super().__init__(name)
        self._rng = random.Random(seed) if seed is not None else random.Random()

    def ask(self, pos: Position, turn: Turn):
        """A random legal move (the game's reply for it), in no time."""
        self.sent_at = time.monotonic()
        state = pos.state
        move = self._rng.choice(state.legal_moves())
        self.replied_at = time.monotonic()
        return pos.rules.reply_for(state, move), self.replied_at - self.sent_at
