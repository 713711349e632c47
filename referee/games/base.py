"""What the referee must know of a game, as one interface: :class:`GameRules`.

The game loop (:mod:`referee.play.game`), the seats, the openings, the display and the
records ask a game's rules through it and never look at the game's own types.  A
game's state is the rules' own mutable position (:class:`engine.mnk.board.rules.Board`,
:class:`engine.reversi.board.rules.ReversiState`): ``to_move`` (1 moves first),
``history``, ``legal_moves``, ``apply``, ``undo``, ``clone``, ``is_terminal``.

A *reply* is a move as a seat gives it, before the referee has judged it: for m,n,k
``(x, y)`` (which may be off the board), for Reversi the square's text (``f5``,
``PA``).  :meth:`GameRules.judge` turns it into the game's move int or says why it is
illegal.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Sequence

from referee.games.verdicts import Termination

__all__ = ["GameRules", "Illegal", "HumanInput", "End", "Position"]


class Illegal(Exception):
    """A reply that is not a legal move here; the message says why (``played 7,7, which is occupied``).

    ``termination`` is how the game ends when an engine plays it (a game may name a
    more precise verdict in a subclass, e.g. renju's forbidden points).  ``foul`` is the
    move when it is a point of the board that records can show as the game's last move,
    marked as the foul (renju's forbidden point), else ``None`` (off the board, occupied)."""

    termination = Termination.ILLEGAL_MOVE

    def __init__(self, message: str, foul: int | None = None) -> None:
        super().__init__(message)
        self.foul = foul


@dataclass(frozen=True)
class HumanInput:
    """What a person's typed move is: ``reply`` to play, or ``problem`` to show (then
    ``illegal`` says whether it was a move the rules forbid, which may cost a try)."""

    reply: Any = None
    problem: str = ""
    illegal: bool = False


@dataclass(frozen=True)
class End:
    """How a finished game ended: the termination, the reason, the winning colour (``None``: a draw)."""

    termination: Termination
    reason: str
    winner: int | None


@dataclass
class Position:
    """A game in progress as the referee shows it to a seat: its rules, its position
    (``state``, which a seat must not change), the think time of each move in the
    state's history (0 for the opening and forced passes) and how many of the first
    moves the referee placed as the opening."""

    rules: "GameRules"
    state: Any
    times_ms: list[int]
    opening: int = 0


class GameRules:
    """The referee's view of one game (one configuration); subclasses fill in every method.

    ``game_type`` is what records call the game (``mnk``, ``reversi``),
    ``protocol`` the engines' protocol (``Gomocup``, ``NBoard``).
    """

    game_type = ""
    protocol = ""
    #: How many illegal moves a person may try before losing (``None``: as many as they like).
    human_tries: int | None = None
    #: What :meth:`random_opening`'s plies are, in words (``stones near the centre``).
    opening_unit = ""
    #: What the marks on :meth:`board_text` and :meth:`final_board_text` mean, shown once
    #: before the first board of a match (``""``: the board explains itself).
    board_legend = ""
    #: How a person types a move (shown by ``help``).
    human_help = ""

    def __init__(self, config: Any) -> None:
        self.config = config

    # The position ------------------------------------------------------------------
    def new_state(self) -> Any:
        """The position a game starts from (before any opening)."""
        raise NotImplementedError

    def colour_name(self, player: int) -> str:
        """``X``/``O``, ``black``/``white``."""
        raise NotImplementedError

    def size_text(self) -> str:
        """The board, e.g. ``15x15``."""
        raise NotImplementedError

    def describe(self) -> str:
        """The rules in words, for banners and headers."""
        raise NotImplementedError

    # Moves ---------------------------------------------------------------------------
    def judge(self, state: Any, reply: Any) -> int:
        """The move ``reply`` stands for in ``state``; :class:`Illegal` when it is not legal there."""
        raise NotImplementedError

    def forced_pass(self, state: Any) -> int | None:
        """The pass the referee plays for the side to move when it has no other move
        (engines are not asked), else ``None``."""
        return None

    def is_pass(self, state: Any, move: int) -> bool:
        """Is ``move`` a pass?"""
        return False

    def reply_for(self, state: Any, move: int) -> Any:
        """The reply that stands for the legal ``move`` (what a built-in seat answers)."""
        raise NotImplementedError

    def move_text(self, state: Any, move: int) -> str:
        """A move as people read it (``7,7``, ``f5``, ``pass``)."""
        raise NotImplementedError

    def record_of(self, state: Any, move: int) -> Any:
        """A move as ``results.jsonl`` keeps it (JSON)."""
        raise NotImplementedError

    def records(self, moves: Sequence[int]) -> list[Any]:
        """The moves ``moves`` played from the start, each as :meth:`record_of` keeps it."""
        state = self.new_state()
        out = []
        for m in moves:
            out.append(self.record_of(state, m))
            state.apply(m)
        return out

    def replay(self, moves: Sequence[Any]) -> Any:
        """The position after the recorded ``moves`` (:meth:`record_of` values) from the start;
        a recorded foul at the end (:attr:`Illegal.foul`) is not played."""
        raise NotImplementedError

    def flipped_by_last(self, state: Any) -> list[int]:
        """The discs the last move turned over (games where moves change other stones)."""
        return []

    # The end -------------------------------------------------------------------------
    def outcome(self, state: Any, names: dict[int, str]) -> End | None:
        """How the game has ended, or ``None`` while it goes on; ``names`` by colour for the reason."""
        raise NotImplementedError

    def result_fields(self, state: Any, end: End | None = None) -> dict[str, Any]:
        """The game's fields of a result record (board size, rule, a score), from the final
        ``state`` and how it ended (``None``: it did not)."""
        raise NotImplementedError

    def record_key(self, obj: dict) -> tuple:
        """What of a recorded game (a ``results.jsonl`` object) must equal :meth:`current_key`
        for ``--resume`` to continue it."""
        raise NotImplementedError

    def current_key(self) -> tuple:
        """This configuration's :meth:`record_key`."""
        raise NotImplementedError

    # Text ------------------------------------------------------------------------------
    def board_text(self, state: Any, legal: bool = False) -> str:
        """The board with coordinates and the last move marked (``legal``: a person's
        view, with the legal moves marked where the game shows them)."""
        raise NotImplementedError

    def final_board_text(self, state: Any) -> str:
        """The board at the end of a game (a winning line or the disc count shown)."""
        raise NotImplementedError

    def turn_hint(self, state: Any) -> str:
        """A line shown to a person before the prompt (e.g. the legal moves), or ``""``."""
        return ""

    # Openings --------------------------------------------------------------------------
    def parse_opening(self, text: str) -> list[int]:
        """The moves of one opening line; ``ValueError`` saying what is wrong."""
        raise NotImplementedError

    def random_opening(self, plies: int, rng: random.Random) -> list[int]:
        """``plies`` random moves that leave the game open; ``ValueError`` when impossible."""
        raise NotImplementedError

    def default_random_plies(self) -> tuple[int, int]:
        """The random opening of an engine match when none is asked for."""
        raise NotImplementedError

    # A person's moves ------------------------------------------------------------------
    def read_human(self, text: str, state: Any) -> HumanInput:
        """What a person's typed ``text`` (not a command) means in ``state``."""
        raise NotImplementedError
