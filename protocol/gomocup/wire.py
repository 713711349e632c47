"""The Gomocup wire format: one text line in, a typed command out, and reply formatting.

Pure functions only, no state and no I/O.  ``parse_command`` raises
:class:`WireError` for bad input; its ``reply`` is the line to send back
(``ERROR …`` for a known command with bad arguments, ``UNKNOWN …`` otherwise).
Commands are matched case-insensitively; replies are always upper case.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.gomocup import yixin

#: Longest piece of a bad line quoted back in an ERROR/UNKNOWN reply.
QUOTE_LIMIT = 60


class WireError(ValueError):
    """A line that cannot be carried out.  ``reply`` is the complete answer line."""

    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.reply = reply


def error(text: str) -> WireError:
    """A ``ERROR <text>`` failure."""
    return WireError(f"ERROR {text}")


def unknown(text: str) -> WireError:
    """An ``UNKNOWN <text>`` failure."""
    return WireError(f"UNKNOWN {text}")


def quote(text: str) -> str:
    """``text`` made safe for a one-line reply: printable, short, quoted."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in text)
    if len(clean) > QUOTE_LIMIT:
        clean = clean[:QUOTE_LIMIT] + f"... ({len(text)} chars)"
    return f"'{clean}'"


# Commands ----------------------------------------------------------------------


@dataclass(frozen=True)
class Start:
    """``START n`` (square) or ``RECTSTART w,h``."""

    width: int
    height: int


@dataclass(frozen=True)
class Restart:
    """``RESTART``: a new game, same size."""


@dataclass(frozen=True)
class Begin:
    """``BEGIN``: the brain makes the first move."""


@dataclass(frozen=True)
class Turn:
    """``TURN x,y``: the opponent played; the brain answers."""

    x: int
    y: int


@dataclass(frozen=True)
class Play:
    """``PLAY x,y``: the brain must play exactly here and echo it."""

    x: int
    y: int


@dataclass(frozen=True)
class Takeback:
    """``TAKEBACK x,y``: remove that stone."""

    x: int
    y: int


@dataclass(frozen=True)
class BlockStart:
    """First line of a multi-line block: ``BOARD``, ``YXBOARD`` or ``SWAP2BOARD``."""

    kind: str


@dataclass(frozen=True)
class Done:
    """``DONE``, the end of a block."""


@dataclass(frozen=True)
class Info:
    """``INFO key value``: key lower-cased, value as text (may be empty)."""

    key: str
    value: str


@dataclass(frozen=True)
class End:
    """``END``: exit at once, print nothing."""


@dataclass(frozen=True)
class About:
    """``ABOUT``: one line describing the brain."""


@dataclass(frozen=True)
class Stop:
    """``YXSTOP`` / ``STOP``: answer the best move found so far."""


@dataclass(frozen=True)
class Analyse:
    """A Yixin analysis command on the current position, answered with a move:
    ``YXNBEST n`` (``kind`` ``"nbest"``, the ``count`` best moves reported),
    ``YXSEARCHDEFEND`` (``"defend"``: every move ranked, the lost ones marked),
    ``YXBALANCEONE b`` / ``YXBALANCETWO b`` (``"balance1"``/``"balance2"``: the move, or
    the move and the reply, that leave the game most even, ``bias`` in eval units)."""

    kind: str
    count: int | None = 1
    bias: int = 0


@dataclass(frozen=True)
class ShowInfo:
    """``YXSHOWINFO``: the brain's name and the limits the GUI's settings offer."""


@dataclass(frozen=True)
class ShowForbid:
    """``YXSHOWFORBID``: black's forbidden points (renju) in the current position."""


@dataclass(frozen=True)
class Quiet:
    """A Yixin command this brain has nothing to do for (:data:`protocol.gomocup.yixin.QUIET`):
    ``word`` upper case, ``rest`` the text after it on the same line."""

    word: str
    rest: str


Command = (Start | Restart | Begin | Turn | Play | Takeback | BlockStart | Done | Info | End | About | Stop
           | Analyse | ShowInfo | ShowForbid | Quiet)

#: Commands of the Yixin/Rapfi family that exist but that this brain does not implement.
KNOWN_UNSUPPORTED = frozenset({"SUGGEST"})


def parse_int(text: str, what: str) -> int:
    """A decimal integer (optional sign) or ``WireError`` naming ``what``."""
    t = text.strip()
    body = t[1:] if t[:1] in "+-" else t
    if not body.isdigit() or not body.isascii() or len(body) > 12:
        raise error(f"{what} must be an integer, got {quote(text)}")
    return int(t)


def parse_ints(text: str, count: int, what: str) -> tuple[int, ...]:
    """``count`` comma-separated integers (spaces around commas allowed)."""
    parts = text.split(",")
    if len(parts) != count or any(not p.strip() for p in parts):
        raise error(f"{what} must be {count} comma-separated integers, got {quote(text)}")
    return tuple(parse_int(p, what) for p in parts)


def parse_board_line(line: str) -> tuple[int, int, int]:
    """An ``x,y,field`` line inside a BOARD-like block (range checks are the caller's)."""
    return parse_ints(line, 3, "a board line (x,y,field)")  # type: ignore[return-value]


def looks_like_board_line(line: str) -> bool:
    """True when the line has the shape of ``x,y,field`` (not a command word)."""
    head = line.strip()[:1]
    return bool(head) and (head.isdigit() or head in "+-,")


def command_word(line: str) -> str:
    """The upper-cased first word of a line ('' for a blank line)."""
    parts = line.split(None, 1)
    return parts[0].upper() if parts else ""


def parse_command(line: str) -> Command:
    """Parse one stripped, non-empty line outside a block.

    Raises :class:`WireError` with the reply to send for unknown commands and
    for known commands with malformed arguments.
    """
    parts = line.strip().split(None, 1)
    if not parts:
        raise unknown("empty command")
    word = parts[0].upper()
    rest = parts[1].strip() if len(parts) > 1 else ""

    def no_args(cmd: Command) -> Command:
        if rest:
            raise error(f"{word} takes no arguments, got {quote(rest)}")
        return cmd

    def coords() -> tuple[int, int]:
        if not rest:
            raise error(f"{word} needs coordinates x,y")
        x, y = parse_ints(rest, 2, f"{word} coordinates")
        return x, y

    if word == "START":
        if not rest:
            raise error("START needs a board size")
        size = parse_int(rest, "START board size")
        return Start(size, size)
    if word == "RECTSTART":
        if not rest:
            raise error("RECTSTART needs width,height")
        w, h = parse_ints(rest, 2, "RECTSTART width,height")
        return Start(w, h)
    if word == "TURN":
        return Turn(*coords())
    if word == "PLAY":
        return Play(*coords())
    if word == "TAKEBACK":
        return Takeback(*coords())
    if word == "INFO":
        # INFO is never answered, not even when malformed: a bare INFO is an empty key.
        kv = rest.split(None, 1)
        return Info(kv[0].lower() if kv else "", kv[1].strip() if len(kv) > 1 else "")
    if word in ("BOARD", "YXBOARD", "SWAP2BOARD"):
        return no_args(BlockStart(word))
    simple = {"RESTART": Restart(), "BEGIN": Begin(), "DONE": Done(), "END": End(),
              "ABOUT": About(), "YXSTOP": Stop(), "STOP": Stop()}
    if word in simple:
        # ABOUT/END/STOP with trailing text are still honoured: refusing END would be worse.
        if word in ("END", "ABOUT", "YXSTOP", "STOP"):
            return simple[word]
        return no_args(simple[word])
    if word == "YXNBEST":
        count = parse_int(rest, "YXNBEST count") if rest else 1
        if count < 1:
            raise error(f"YXNBEST count must be at least 1, got {count}")
        return Analyse("nbest", count)
    if word in ("YXBALANCEONE", "YXBALANCETWO"):
        bias = parse_int(rest, f"{word} bias") if rest else 0
        return Analyse("balance1" if word == "YXBALANCEONE" else "balance2", 1, bias)
    if word == "YXSEARCHDEFEND":
        return Analyse("defend", None)
    if word == "YXSHOWINFO":
        return ShowInfo()
    if word == "YXSHOWFORBID":
        return ShowForbid()
    if word in yixin.QUIET:
        return Quiet(word, rest)
    if word in KNOWN_UNSUPPORTED:
        raise unknown(f"{word} is not supported")
    raise unknown(f"command {quote(parts[0])}")


# Replies -------------------------------------------------------------------------


def format_move(x: int, y: int) -> str:
    """A move as the wire wants it: ``x,y``."""
    return f"{x},{y}"


def format_about(fields: dict[str, str]) -> str:
    """``key="value", …`` on one line (quotes in values replaced)."""
    return ", ".join(f'{k}="{str(v).replace(chr(34), chr(39))}"' for k, v in fields.items())


def message(text: str) -> str:
    """A ``MESSAGE`` line (newlines folded so it stays one line)."""
    return "MESSAGE " + " ".join(text.split())
