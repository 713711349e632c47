"""The NBoard wire format (protocol version 2): a GUI's line in, a typed command out, and
the engine's reply lines.

Pure functions only, no state and no I/O.  :func:`parse_command` raises
:class:`WireError` for a known command with bad arguments or a line of unreadable bytes
(its ``reply`` is the ``status`` line to send); a command this engine does not know is an
:class:`Ignored` (the protocol says to ignore it).  Command words are matched
case-insensitively.

Replies follow the NBoard GUI's own form: ``=== F5/0.50/1.23`` (move, eval in discs for
the side to move, seconds; the GUI also reads Edax's ``=== f5 0.50 1.2``),
``search PV EVAL 0 DEPTH`` for hints (the PV's moves run together, ``F5D6C3``; a depth of
``100%`` is an exact solve, ``100%W`` a win/draw/loss solve), ``nodestats NODES SECONDS``,
``status TEXT``, ``pong N`` and ``set myname NAME``.  :func:`parse_engine_move` reads
any engine's ``===`` line (for tools that drive NBoard engines).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Longest piece of a bad line quoted back in a status reply.
QUOTE_LIMIT = 60
#: Longest status text sent (a GUI shows it on one line).
STATUS_LIMIT = 200


class WireError(ValueError):
    """A line that cannot be carried out.  ``reply`` is the complete ``status`` line."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.reply = status(text)


def quote(text: str) -> str:
    """``text`` made safe for a one-line reply: printable, short, quoted."""
    clean = "".join(ch if ch.isprintable() and ch != "\ufffd" else "?" for ch in text)
    if len(clean) > QUOTE_LIMIT:
        clean = clean[:QUOTE_LIMIT] + f"... ({len(text)} chars)"
    return f"'{clean}'"


# Commands -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """``nboard VERSION``: the first command (any version is accepted)."""

    version: str


@dataclass(frozen=True)
class SetDepth:
    """``set depth N``: the GUI's strength level (mapped to a time a move)."""

    depth: int


@dataclass(frozen=True)
class SetGame:
    """``set game GGF``: the position is the end of this game (parsed by the session)."""

    ggf: str


@dataclass(frozen=True)
class SetContempt:
    """``set contempt N``: how proven draws should count, in centidiscs."""

    contempt: int


@dataclass(frozen=True)
class Move:
    """``move MOVE[/EVAL[/TIME]]``: a move played in the current game (parsed on its board)."""

    text: str


@dataclass(frozen=True)
class Go:
    """``go``: answer ``=== MOVE`` for the side to move (the GUI then sends ``move``)."""


@dataclass(frozen=True)
class Hint:
    """``hint N``: ``search`` lines for the N best moves."""

    count: int


@dataclass(frozen=True)
class Ping:
    """``ping N``: answer ``pong N`` once every earlier command is done."""

    token: str


@dataclass(frozen=True)
class Quit:
    """``quit``: exit."""


@dataclass(frozen=True)
class Ignored:
    """A command this engine does not carry out (``learn``, ``analyze``, anything unknown)."""

    word: str


Command = Hello | SetDepth | SetGame | SetContempt | Move | Go | Hint | Ping | Quit | Ignored

#: Commands that make a running hint search's answer stale: they stop it early (its
#: answer still comes, before theirs).
INTERRUPTING = frozenset({"go", "hint", "move", "quit", "set game"})


def command_word(line: str) -> str:
    """The lower-cased command of a line, ``set`` with its variable (``set game``);
    ``""`` for a blank line."""
    parts = line.split(None, 2)
    if not parts:
        return ""
    word = parts[0].lower()
    if word == "set" and len(parts) > 1:
        return f"set {parts[1].lower()}"
    return word


def interrupts(line: str) -> bool:
    """Does this line, arriving during a hint search, make its hints stale?"""
    return command_word(line) in INTERRUPTING


def _int(text: str, what: str) -> int:
    t = text.strip()
    body = t[1:] if t[:1] in "+-" else t
    if not body.isdigit() or not body.isascii() or len(body) > 12:
        raise WireError(f"{what} wants an integer, got {quote(text)}")
    return int(t)


def parse_command(line: str) -> Command:
    """Parse one non-blank line (surrounding blanks ignored); see the module docstring."""
    text = line.strip()
    if any((not ch.isprintable() and ch != "\t") or ch == "\ufffd" for ch in text):
        raise WireError(f"ignored a line with unreadable bytes: {quote(text)}")
    parts = text.split(None, 1)
    if not parts:
        return Ignored("")
    word = parts[0].lower()
    rest = parts[1].strip() if len(parts) > 1 else ""
    if word == "nboard":
        return Hello(rest)
    if word == "set":
        name, _, value = rest.partition(" ")
        name, value = name.lower(), value.strip()
        if name == "depth":
            depth = _int(value, "set depth")
            if depth < 1:
                raise WireError(f"set depth wants a level of 1 or more, got {depth}")
            return SetDepth(depth)
        if name == "game":
            if not value:
                raise WireError("set game wants a GGF game: (;GM[Othello]...;)")
            return SetGame(value)
        if name == "contempt":
            return SetContempt(_int(value, "set contempt"))
        return Ignored(f"set {name}")
    if word == "move":
        if not rest:
            raise WireError("move wants a move such as f5, f5/0.50/1.2 or PA")
        return Move(rest)
    if word == "go":
        return Go()
    if word == "hint":
        count = _int(rest, "hint") if rest else 1
        if count < 1:
            raise WireError(f"hint wants a number of moves of 1 or more, got {count}")
        return Hint(count)
    if word == "ping":
        return Ping(rest)
    if word == "quit":
        return Quit()
    return Ignored(word)


# Replies ---------------------------------------------------------------------------------


def status(text: str) -> str:
    """A ``status`` line: one printable line, at most ``STATUS_LIMIT`` characters."""
    clean = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    if len(clean) > STATUS_LIMIT:
        clean = clean[: STATUS_LIMIT - 3] + "..."
    return f"status {clean}"


def myname(name: str) -> str:
    """``set myname NAME`` (the name is one word)."""
    return "set myname " + ("".join(name.split()) or "engine")


def pong(token: str) -> str:
    """``pong N``."""
    return f"pong {token}" if token else "pong"


def eval_text(discs: float) -> str:
    """An eval in discs with two decimals (never ``-0.00``)."""
    text = f"{discs:.2f}"
    return "0.00" if text == "-0.00" else text


def move_reply(move: str, discs: float | None = None, seconds: float | None = None) -> str:
    """``=== MOVE[/EVAL[/TIME]]``, the move in GGF case (``F5``, ``PA``)."""
    out = "=== " + move.upper()
    if discs is not None or seconds is not None:
        out += "/" + ("" if discs is None else eval_text(discs))
        if seconds is not None:
            out += f"/{max(0.0, seconds):.2f}"
    return out


def search_line(pv: list[str], discs: float, depth: str) -> str:
    """``search PV EVAL 0 DEPTH``: one hint (``pv`` the moves as text, best first)."""
    return f"search {''.join(m.upper() for m in pv)} {eval_text(discs)} 0 {depth}"


def hint_depth(depth: int, proven: str | None, exact: int | None) -> str:
    """A hint's depth as NBoard reads it: ``100%`` an exact solve, ``100%W`` a
    win/draw/loss solve, else the plies searched."""
    if exact is not None:
        return "100%"
    if proven is not None:
        return "100%W"
    return str(max(0, int(depth)))


def nodestats(nodes: int, seconds: float) -> str:
    """``nodestats NODES SECONDS``."""
    return f"nodestats {int(nodes)} {max(0.0, seconds):.2f}"


def parse_engine_move(line: str) -> tuple[str, float | None, float | None] | None:
    """An engine's ``=== MOVE[/EVAL[/TIME]]`` (or Edax's ``=== move eval time``) as
    ``(move in lower case, eval, seconds)`` (``None`` where absent or unreadable); ``None``
    when the line is not a move."""
    parts = line.strip().split(None, 1)
    if len(parts) != 2 or parts[0] != "===":
        return None
    # Slashes and blanks both separate the fields; "F5//1.2" keeps its empty eval field.
    words = [f.lstrip("/") for f in parts[1].replace("/", " /").split()]
    numbers: list[float | None] = []
    for w in words[1:3]:
        try:
            numbers.append(float(w) if w else None)
        except ValueError:
            numbers.append(None)
    numbers += [None] * (2 - len(numbers))
    return words[0].lower(), numbers[0], numbers[1]
