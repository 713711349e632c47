"""The seat contract: what one game asks of the side that plays a colour, and how a side fails.

:func:`referee.play.game.play_game` drives two :class:`Seat` objects and nothing
else: it starts both (``launch`` then ``finish_start``, so two engines start at
once), asks the side to move for a move within a :class:`~referee.games.clock.Turn`
(``ask`` gets the whole :class:`~referee.games.base.Position`: a Gomocup seat sends
the opponent's last move or a BOARD block, an NBoard seat the moves since its last
sync or a new ``set game``), and ends both (``send_end`` to each, one shared grace
period while any ``is_running``, then ``close``).

A seat never decides who won.  A side that breaks the rules or resigns raises
:class:`Fault`, with the verdict's termination and a reason naming the seat; the
referee judges every move it returns with the game's own rules.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from referee.games.base import Position
from referee.games.clock import TimeControl, Turn
from referee.games.verdicts import Termination

__all__ = ["Seat", "Fault", "UndoRequest"]


class Fault(Exception):
    """A seat broke the rules (or resigned): it loses with this ``termination`` and ``reason``."""

    def __init__(self, termination: Termination, reason: str) -> None:
        super().__init__(reason)
        self.termination = termination
        self.reason = reason


class UndoRequest(Exception):
    """Raised by a person's ``undo``: take back their last move and the replies since.

    The game answers by calling the seat's ``taken_back(done)`` and asking again.
    """


@runtime_checkable
class Seat(Protocol):
    """One side of one game: an engine process, a person or the built-in random mover."""

    #: How verdicts, records and the display name the side (an engine's ABOUT name once started).
    name: str
    #: A person: no clock is enforced and no referee overhead is measured.
    is_human: bool
    #: What the side said besides its moves (MESSAGE lines, NBoard status...), bounded.
    messages: list[str]
    #: ``time.monotonic()`` when the last ask was fully sent (the start of the side's clock).
    sent_at: float
    #: ``time.monotonic()`` when the reply to the last ask was read off its pipe.
    replied_at: float
    #: The delay the side asked for before each command (an accommodation, not referee overhead).
    send_delay_s: float
    #: The side said its name (later games need not wait for it).
    about_answered: bool
    #: The side asked to end the match (a person's ``quit``): no further game starts.
    quit_requested: bool

    def time_control(self, tc: TimeControl) -> TimeControl:
        """The clock this side plays by in a game whose clock is ``tc`` (its own, with time odds)."""

    def launch(self, config: Any, tc: TimeControl) -> None:
        """Start the side and send what starts a game, without waiting for an answer."""

    def finish_start(self, config: Any, tc: TimeControl) -> None:
        """Wait for the start's answer; :class:`Fault` (``start_failed``...) when it does not come."""

    def ask(self, pos: Position, turn: Turn) -> tuple[Any, float]:
        """The side's reply for the position (the rules judge it) and its think time in seconds.

        :class:`Fault` when it breaks the protocol or runs out of time, :class:`UndoRequest`
        when a person takes back."""

    def taken_back(self, done: bool) -> None:
        """Told after an :class:`UndoRequest` whether anything was taken back."""

    def send_end(self) -> None:
        """Ask the side to end (its protocol's end line); does not wait."""

    def is_running(self) -> bool:
        """Still running after :meth:`send_end` (the game's shared grace period waits for it)."""

    def close(self, grace_s: float = 0.3) -> None:
        """End the side for good: kill and reap what is left.  Never raises."""


class InProcessSeat:
    """What a seat without a process does for the parts of :class:`Seat` that concern one:
    nothing to start, to end or to wait for, no send delay; its reply is read as it returns."""

    is_human = False
    send_delay_s = 0.0
    about_answered = True
    quit_requested = False

    def __init__(self, name: str) -> None:
        self.name = name
        self.messages: list[str] = []
        self.sent_at = 0.0
        self.replied_at = 0.0

    def time_control(self, tc: TimeControl) -> TimeControl:
        """The game's clock."""
        return tc

    def launch(self, config: Any, tc: TimeControl) -> None:
        """Nothing to start."""

    def finish_start(self, config: Any, tc: TimeControl) -> None:
        """Nothing to wait for."""

    def taken_back(self, done: bool) -> None:
        """Nothing to say."""

    def send_end(self) -> None:
        """Nothing to end."""

    def is_running(self) -> bool:
        """Never running: there is no process."""
        return False

    def close(self, grace_s: float = 0.0) -> None:
        """Nothing to close."""
