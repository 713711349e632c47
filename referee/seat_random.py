"""The built-in random mover: a side that plays a uniformly random legal move at once, no process.

A baseline opponent (``referee ENGINE random``) for any game the referee knows; its
moves go through the same judging as an engine's.
"""

from __future__ import annotations

import random
import time

from referee.clock import Turn
from referee.games.base import Position
from referee.spec import RANDOM

__all__ = ["RandomSeat"]


class RandomSeat:
    """Plays a uniformly random legal move; ``seed`` (any hashable) repeats its moves."""

    is_human = False

    def __init__(self, *, name: str = RANDOM, seed: object = None) -> None:
        self.name = name
        self.messages: list[str] = []
        self.about_answered = True
        self.sent_at = 0.0
        self._rng = random.Random(seed) if seed is not None else random.Random()

    def launch(self, config, tc) -> None:
        """Nothing to start."""

    def finish_start(self, config, tc) -> None:
        """Nothing to wait for."""

    def ask(self, pos: Position, turn: Turn):
        """A random legal move (the game's reply for it), in no time."""
        self.sent_at = time.monotonic()
        state = pos.state
        move = self._rng.choice(state.legal_moves())
        return pos.rules.reply_for(state, move), time.monotonic() - self.sent_at

    def close(self, grace_s: float = 0.0) -> None:
        """Nothing to end."""
