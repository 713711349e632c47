"""GGF, the Othello world's game record: read and write.

A game looks like ``(;GM[Othello]PC[place]DT[date]PB[black]PW[white]RE[+12]TI[15:00]
TY[8]BO[8 <n*n squares> <side>]B[F5//1.2]W[F6]...;)``: tags of two capital letters with
a value in brackets; ``BO`` the initial position (``*`` black, ``O`` white, ``-`` empty,
rows from the top, then the side to move); the moves, ``B[...]`` and ``W[...]``, each
``MOVE[/EVAL[/TIME]]`` (``PA`` is a pass); ``TI`` the game clock (``[[h:]m:]s``, anything
after ``/`` ignored); ``RE`` the result from black's side (``+12``, ``-4``, ``0``).
NBoard's ``set game`` sends one; the referee writes one per game.

Bad text raises :class:`engine.game.GameError` saying what was wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...game import GameError
from .rules import BLACK, WHITE, ReversiState

_TAG = re.compile(r"\s*([A-Z][A-Z0-9]?)\[((?:[^\]\\]|\\.)*)\]")
#: A whole record: ``(;`` ... ``;)``, whitespace (newlines too) allowed around and inside the
#: delimiters (``( ;``, ``; )``), as GGF readers accept it.
_RECORD = re.compile(r"\(\s*;(.*);\s*\)", re.DOTALL)
_MAX_TEXT = 200_000  # longer than any real game record


@dataclass(frozen=True)
class GgfMove:
    """One move of a record: the move (an int of :class:`ReversiState`), who made it, and
    the evaluation and seconds the record gave it (``None`` when absent)."""

    player: int
    move: int
    eval: float | None = None
    seconds: float | None = None


@dataclass
class GgfGame:
    """A parsed record: the initial position, the moves, and every other tag by name."""

    start: ReversiState
    moves: list[GgfMove] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)

    def position(self) -> ReversiState:
        """The position after the moves; :class:`GameError` naming the first illegal one.
        A move of the player not to move is read as a pass of the other side first
        (records often leave forced passes out)."""
        state = self.start.clone()
        for i, mv in enumerate(self.moves, 1):
            if mv.player != state.to_move and not state.is_terminal() and state.legal_moves() == [state.pass_move]:
                state.apply(state.pass_move)
            if mv.player != state.to_move:
                raise GameError(f"move {i} ({state.move_to_text(mv.move)}) is by the player not to move")
            try:
                state.apply(mv.move)
            except GameError as exc:
                raise GameError(f"move {i} ({state.move_to_text(mv.move)}): {exc}") from None
        return state

    def clock_seconds(self) -> float | None:
        """The game clock of each player (``TI``), or ``None`` when the record has none."""
        return parse_clock(self.tags["TI"]) if "TI" in self.tags else None

    def used_seconds(self, player: int) -> float:
        """Seconds ``player``'s moves took, as the record says."""
        return sum(m.seconds or 0.0 for m in self.moves if m.player == player)


def parse_clock(text: str) -> float:
    """Seconds of a GGF clock ``[[h:]m:]s`` (``15:00`` is 900); anything after ``/`` is
    ignored.  :class:`GameError` when malformed."""
    main = text.split("/")[0].strip()
    parts = main.split(":")
    try:
        if not 1 <= len(parts) <= 3 or not all(p.strip() for p in parts):
            raise ValueError
        seconds = 0.0
        for p in parts:
            seconds = seconds * 60 + float(p)
    except ValueError:
        raise GameError(f"bad GGF clock {text!r} (want [[h:]m:]s)") from None
    if not seconds >= 0:
        raise GameError(f"bad GGF clock {text!r}")
    return seconds


def format_clock(seconds: float) -> str:
    """``seconds`` as a GGF clock (``m:ss``, or ``h:mm:ss`` from an hour)."""
    whole = int(round(max(0.0, seconds)))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def parse_move(text: str, state: ReversiState) -> tuple[int, float | None, float | None]:
    """``MOVE[/EVAL[/TIME]]`` (``f5``, ``F5/0.00/1.5``, ``c3//``, ``PA``) as (move, eval, seconds)
    on ``state``'s board; :class:`GameError` when malformed."""
    parts = text.strip().split("/")
    if len(parts) > 3:
        raise GameError(f"bad move {text!r} (want MOVE[/EVAL[/TIME]])")
    move = state.text_to_move(parts[0].strip())
    numbers: list[float | None] = []
    for p in parts[1:]:
        p = p.strip()
        try:
            numbers.append(float(p) if p else None)
        except ValueError:
            raise GameError(f"bad number {p!r} in move {text!r}") from None
    numbers += [None] * (2 - len(numbers))
    return move, numbers[0], numbers[1]


def parse_ggf(text: str) -> GgfGame:
    """A GGF game record (one game) as a :class:`GgfGame`; :class:`GameError` when malformed."""
    if len(text) > _MAX_TEXT:
        raise GameError(f"GGF record of {len(text)} characters is too long")
    record = _RECORD.fullmatch(text.strip())
    if record is None:
        raise GameError("a GGF game starts with '(;' and ends with ';)'")
    body = record.group(1)
    tags: dict[str, str] = {}
    raw_moves: list[tuple[int, str]] = []
    pos = 0
    while pos < len(body):
        if body[pos:].strip() == "":
            break
        m = _TAG.match(body, pos)
        if m is None:
            raise GameError(f"bad GGF text near {body[pos:pos + 20]!r}")
        name, value = m.group(1), m.group(2).replace("\\]", "]")
        if name in ("B", "W"):
            raw_moves.append((BLACK if name == "B" else WHITE, value))
        elif name not in ("BO",) or "BO" not in tags:
            tags[name] = value
        else:
            raise GameError("a GGF game has one BO tag")
        pos = m.end()
    if tags.get("GM", "Othello").lower() != "othello":
        raise GameError(f"GGF game type {tags['GM']!r} is not Othello")
    start = _board(tags.get("BO"), tags.get("TY"))
    game = GgfGame(start, [], tags)
    state = start.clone()
    for player, value in raw_moves:
        move, ev, seconds = parse_move(value, state)
        game.moves.append(GgfMove(player, move, ev, seconds))
    return game


def _board(bo: str | None, ty: str | None) -> ReversiState:
    """The initial position of a ``BO`` tag (the standard start of the ``TY`` size without one)."""
    if bo is None:
        size = 8
        if ty:
            digits = re.match(r"\d+", ty.strip())
            if digits is None:
                raise GameError(f"bad GGF board type {ty!r}")
            size = int(digits.group())
        return ReversiState(size)
    words = bo.split()
    if len(words) < 3:
        raise GameError("GGF BO wants a size, the squares and the side to move")
    try:
        size = int(words[0])
    except ValueError:
        raise GameError(f"bad GGF board size {words[0]!r}") from None
    squares = "".join(words[1:-1])
    if len(squares) != size * size:
        raise GameError(f"GGF BO of size {size} has {len(squares)} squares, not {size * size}")
    return ReversiState.from_text(squares, words[-1])


def format_ggf(start: ReversiState, moves: list[GgfMove], tags: dict[str, str] | None = None) -> str:
    """A GGF record of the game from ``start`` through ``moves``; ``tags`` (``PB``, ``PW``,
    ``RE``, ``TI``, ``PC``, ``DT``, ...) are written in their order after ``GM``."""
    n = start.n
    out = ["(;GM[Othello]"]
    for name, value in (tags or {}).items():
        if name not in ("GM", "BO", "TY"):
            out.append(f"{name}[{str(value).replace(']', chr(92) + ']')}]")
    out.append(f"TY[{n}]")
    side = "*" if start.to_move == BLACK else "O"
    squares = start.to_text().split()[0].replace("X", "*")
    out.append(f"BO[{n} {squares} {side}]")
    state = start.clone()
    for mv in moves:
        text = "PA" if mv.move == state.pass_move else state.move_to_text(mv.move).upper()
        if mv.eval is not None or mv.seconds is not None:
            text += "/" + ("" if mv.eval is None else f"{mv.eval:.2f}")
            if mv.seconds is not None:
                text += f"/{mv.seconds:.2f}"
        out.append(f"{'B' if mv.player == BLACK else 'W'}[{text}]")
        if mv.player == state.to_move:
            state.apply(mv.move)
    out.append(";)")
    return "".join(out)
