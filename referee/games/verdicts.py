"""Why a game ended."""

from __future__ import annotations

import enum

__all__ = ["Termination", "FAULTS", "NORMAL", "was_played"]


class Termination(str, enum.Enum):
    """How a game ended; the value is what ``results.jsonl`` holds.

    ``LINE`` and ``FULL_BOARD`` (m,n,k) and ``DISCS`` (Reversi: neither side
    can move, the disc count decides) are normal ends; ``FORBIDDEN`` is black playing
    a forbidden point under renju (an overline, a double four or a double three: white
    wins, as the renju rules say, so it counts among the faults); ``RESIGN`` is a human giving
    up (``resign``, ``quit`` or the end of its input); every other value except
    ``INTERRUPTED`` means one engine was at fault and lost.  ``INTERRUPTED``
    games (Ctrl-C, SIGTERM, SPRT stop) are never recorded as results.
    ``ABANDONED`` games (a cluster game whose worker died on every try, or
    where the referee failed) are recorded but neither scored nor taken as
    played: ``--resume`` plays them again.  ``DRAW_AFTER`` and ``MAX_LENGTH`` are draws
    the referee declared (:mod:`referee.games.adjudication`).
    """

    LINE = "line"
    FULL_BOARD = "full_board"
    DISCS = "discs"
    ILLEGAL_MOVE = "illegal_move"
    FORBIDDEN = "forbidden"
    BAD_OUTPUT = "bad_output"
    TIMEOUT = "timeout"
    CRASH = "crash"
    START_FAILED = "start_failed"
    RESIGN = "resign"
    DRAW_AFTER = "draw_after"
    MAX_LENGTH = "max_length"
    INTERRUPTED = "interrupted"
    ABANDONED = "abandoned"


#: The ends of a game played out under its rules (no one at fault).
NORMAL = frozenset({Termination.LINE, Termination.FULL_BOARD, Termination.DISCS})

#: Terminations where the side at fault loses.
FAULTS = frozenset({
    Termination.ILLEGAL_MOVE, Termination.FORBIDDEN, Termination.BAD_OUTPUT, Termination.TIMEOUT,
    Termination.CRASH, Termination.START_FAILED,
})


def was_played(termination: str | None) -> bool:
    """Does a recorded game with this ``termination`` (its ``results.jsonl`` value) count as
    played: neither interrupted nor abandoned (see :class:`Termination`)?"""
    return termination not in (Termination.INTERRUPTED.value, Termination.ABANDONED.value)
