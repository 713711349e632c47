"""The GUI's side of the NBoard wire format: parse engine lines, format commands.

Pure functions, no I/O.  An engine's replies are ``=== MOVE[/EVAL[/TIME]]`` (or
with spaces: Edax writes ``=== f5 0.00 0.0``; any case; ``PA`` a pass) and
``pong N``; every other line (``set myname``, ``status``, ``nodestats``,
``search``, ``book``, anything unknown) is chatter that never answers a command.
The referee writes squares in upper case as GGF does (``move F5//1.25``, ``move PA``).
"""

from __future__ import annotations

import re
from typing import Sequence

from engine.reversi.board.ggf import GgfMove, format_clock, format_ggf
from engine.reversi.board.rules import ReversiState

__all__ = ["is_reply", "is_chatter", "parse_go_reply", "looks_like_square", "myname", "pong_of",
           "move_command", "game_text", "position_lines"]

_SQUARE_OR_PASS_RE = re.compile(r"^(?:[a-z]\d{1,2}|pa|pass)$", re.IGNORECASE)


def is_reply(line: str) -> bool:
    """A line that answers a command: ``=== ...`` (to ``go``), ``pong N`` (to ``ping N``) or
    ``search ...`` (to ``hint``)."""
    s = line.lstrip()
    words = s.split(None, 1)
    return s.startswith("===") or (bool(words) and words[0].lower() in ("pong", "search"))


def is_chatter(line: str) -> bool:
    """Everything an engine may print that answers nothing (``status``, ``nodestats``,
    ``set myname``...): kept as messages, never parsed as a reply.  The one rule for the
    matches, the check suite and scripted sessions."""
    return not is_reply(line)


def parse_go_reply(line: str) -> tuple[str, float | None] | None:
    """``(move word, eval)`` of a ``===`` line (the word as written; ``""`` when there is
    none); ``None`` for any other line.  The eval is ``None`` when absent or not a number."""
    s = line.strip()
    if not s.startswith("==="):
        return None
    rest = s[3:].strip()
    if not rest:
        return "", None
    head, *more = rest.split()
    parts = head.split("/")
    word = parts[0]
    ev_text = parts[1] if len(parts) > 1 else (more[0] if more else "")
    try:
        ev = float(ev_text) if ev_text else None
    except ValueError:
        ev = None
    return word, ev


def looks_like_square(word: str) -> bool:
    """Is ``word`` shaped like a square or a pass (``f5``, ``J10``, ``PA``)?  Whether it is
    on the board, and legal, is the rules' business."""
    return bool(_SQUARE_OR_PASS_RE.match(word))


def myname(line: str) -> str | None:
    """The name of a ``set myname NAME`` line, else ``None``."""
    words = line.strip().split(None, 2)
    if len(words) == 3 and words[0].lower() == "set" and words[1].lower() == "myname":
        return words[2].strip()
    return None


def pong_of(line: str) -> str | None:
    """The number of a ``pong N`` line (as text), else ``None``."""
    words = line.split()
    if len(words) == 2 and words[0].lower() == "pong":
        return words[1]
    return None


def _word(state: ReversiState, move: int) -> str:
    return "PA" if move == state.pass_move else state.move_to_text(move).upper()


def move_command(state: ReversiState, move: int, seconds: float | None = None) -> str:
    """``move F5`` (``move F5//1.25`` with the seconds it took; ``move PA`` for a pass) for
    ``move`` on ``state``'s board."""
    word = _word(state, move)
    return f"move {word}" if seconds is None else f"move {word}//{seconds:.2f}"


def _seconds(times_ms: Sequence[int], opening: int, i: int) -> float | None:
    return None if i < opening else times_ms[i] / 1000.0


def game_text(state: ReversiState, times_ms: Sequence[int], opening: int = 0, clock_ms: int = 0) -> str:
    """The GGF of the game that led to ``state`` from its start, each played move with its
    seconds, and ``TI`` the game clock when there is one (whole seconds, rounded down:
    an engine must never be told more time than it has)."""
    start = ReversiState(state.n)
    moves = []
    replay = start.clone()
    for i, m in enumerate(state.history):
        moves.append(GgfMove(replay.to_move, m, None, _seconds(times_ms, opening, i)))
        replay.apply(m)
    tags = {"PC": "referee"}
    if clock_ms > 0:
        tags["TI"] = format_clock(clock_ms // 1000)
    return format_ggf(start, moves, tags)


def position_lines(known: Sequence[int] | None, state: ReversiState, times_ms: Sequence[int],
                   opening: int = 0, clock_ms: int = 0) -> list[str]:
    """The lines that take an engine whose game holds the moves ``known`` (from the start;
    ``None``: unknown) to ``state``: a ``move`` line for each new move when ``known`` is a
    start of the game, else the whole game as ``set game``."""
    hist = list(state.history)
    if known is not None and len(known) <= len(hist) and hist[:len(known)] == list(known):
        # a move's word depends on the board's size only: no replay (it would cost every move
        # a walk through the whole game)
        return [move_command(state, hist[i], _seconds(times_ms, opening, i)) for i in range(len(known), len(hist))]
    return [f"set game {game_text(state, times_ms, opening, clock_ms)}"]
