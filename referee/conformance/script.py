"""Protocol transcripts: parsed, and replayed against any Gomocup engine (``game="reversi"``:
any NBoard engine); the command is :mod:`referee.cli.script`.

A transcript is a text file of lines to send and expectations (format in
``docs/SCRIPTS.md``)::

    # a comment
    > START 15
    < OK
    > BEGIN
    < move 2000ms
    > TURN 7,7
    < move in 6,6 8,8 6,8 8,6 7,6 7,8 6,7 8,7
    > FOO
    < UNKNOWN* | ERROR*
    > INFO timeout_turn 500
    < nothing 300ms
    > END
    < exit

MESSAGE/DEBUG/SUGGEST/INFO lines from the engine are skipped, except by an expectation
that starts with one of those words (``< MESSAGE REALTIME BEST*``): it waits for the first
such line that matches, skipping the others.  The runner keeps a
model of the occupied cells (from what was sent and the moves received), so
``< move`` means "a legal move: on the board, on an empty cell" -- and, after
``INFO rule`` with the renju bit (4), not a forbidden point when the engine is black
(it is black when it is to move with as many stones as its opponent).

NBoard engines (``--game reversi``): ``status``, ``nodestats`` and ``set myname``
lines are skipped, ``quit`` ends the engine, and the model follows ``set game`` and
``move`` lines, so ``< move`` means "``=== MOVE`` with a move legal in the position
sent" (``PA`` only when the side to move has none).
"""

from __future__ import annotations

import fnmatch
import re
import time
from dataclasses import dataclass, field
from typing import Sequence, TextIO

from referee.conformance.script_models import GomocupModel, NboardModel
from referee.conformance.session import Session
from referee.errors import ScriptError
from referee.engines.gomocup_wire import parse_about
from referee.engines.nboard_wire import is_chatter as nboard_chatter

__all__ = ["ScriptError", "Send", "Expect", "Directive", "parse_script", "run_script", "ScriptResult",
           "transcript_game", "DEFAULT_TIMEOUT_MS"]

DEFAULT_TIMEOUT_MS = 5000
DEFAULT_NOTHING_MS = 300
DEFAULT_EXIT_MS = 1000

_DURATION_RE = re.compile(r"^(\d+(?:\.\d+)?)(ms|s)$", re.IGNORECASE)
_CELL_RE = re.compile(r"^(-?\d+),(-?\d+)$")
_KEYWORDS = ("move", "nothing", "exit", "any", "about")


@dataclass(frozen=True)
class Send:
    """``> text``: send one line to the engine without waiting for anything."""

    line_no: int
    text: str


@dataclass(frozen=True)
class Expect:
    """``< ...``: one expectation about the engine's output.

    ``kind`` is ``"line"`` (``patterns`` are exact lines or globs, any may
    match), ``"move"`` (a legal move, restricted to ``cells`` when given),
    ``"nothing"`` (no reply for ``timeout_ms``), ``"exit"`` (the process ends
    within ``timeout_ms`` without printing a reply), ``"about"`` (a line made of
    ``key="value"`` pairs) or ``"any"`` (any reply line).
    ``timeout_ms`` ``None`` means the script's default.
    """

    line_no: int
    kind: str
    patterns: tuple[str, ...] = ()
    cells: tuple[tuple[int, int], ...] = ()
    timeout_ms: float | None = None
    text: str = ""

    def describe(self, default_ms: float) -> str:
        """Human wording of this expectation, for mismatch reports."""
        ms = self.timeout_ms if self.timeout_ms is not None else default_ms
        if self.kind == "line":
            alts = " or ".join(repr(p) for p in self.patterns)
            return f"a line matching {alts} within {ms:.0f} ms"
        if self.kind == "move":
            where = " in " + " ".join(f"{x},{y}" for x, y in self.cells) if self.cells else ""
            return f"a legal move{where} within {ms:.0f} ms"
        if self.kind == "nothing":
            return f"no reply for {ms:.0f} ms"
        if self.kind == "exit":
            return f"the engine to exit within {ms:.0f} ms, printing nothing"
        if self.kind == "about":
            return f'an ABOUT line of key="value" pairs within {ms:.0f} ms'
        return f"any reply line within {ms:.0f} ms"


@dataclass(frozen=True)
class Directive:
    """``! name value``: ``timeout 2000ms`` (default wait), ``sleep 100ms``, ``crlf on|off``."""

    line_no: int
    name: str
    value: str


Step = Send | Expect | Directive


def _duration_ms(token: str) -> float | None:
    m = _DURATION_RE.match(token)
    if m is None:
        return None
    value = float(m.group(1))
    return value * 1000.0 if m.group(2).lower() == "s" else value


def _parse_expect(body: str, line_no: int, source: str) -> Expect:
    words = body.split()
    if not words:
        raise ScriptError("empty expectation after '<'", line_no, source)
    head = words[0].lower()
    if head in _KEYWORDS:
        rest = words[1:]
        timeout = None
        if rest and _duration_ms(rest[-1]) is not None:
            timeout = _duration_ms(rest[-1])
            rest = rest[:-1]
        cells: list[tuple[int, int]] = []
        if head == "move" and rest:
            if rest[0].lower() != "in" or len(rest) < 2:
                raise ScriptError(f"expected 'move', 'move in X,Y ...' or 'move 2000ms', got {body!r}",
                                  line_no, source)
            for tok in " ".join(rest[1:]).replace(", ", ",").split():
                m = _CELL_RE.match(tok)
                if m is None:
                    raise ScriptError(f"bad cell {tok!r} in {body!r} (write X,Y)", line_no, source)
                cells.append((int(m.group(1)), int(m.group(2))))
        elif rest:
            raise ScriptError(f"unexpected text after '{head}': {' '.join(rest)!r}", line_no, source)
        if head == "nothing" and timeout is None:
            timeout = DEFAULT_NOTHING_MS
        if head == "exit" and timeout is None:
            timeout = DEFAULT_EXIT_MS
        return Expect(line_no, head, cells=tuple(cells), timeout_ms=timeout, text=body)
    patterns = tuple(p.strip() for p in body.split(" | ") if p.strip())
    return Expect(line_no, "line", patterns=patterns, text=body)


def parse_script(text: str, source: str = "<script>") -> list[Step]:
    """Parse a transcript; raises :class:`ScriptError` naming the first bad line."""
    steps: list[Step] = []
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        marker, body = stripped[0], stripped[1:].strip()
        if marker == ">":
            steps.append(Send(no, body))
        elif marker == "<":
            steps.append(_parse_expect(body, no, source))
        elif marker == "!":
            parts = body.split()
            if len(parts) != 2:
                raise ScriptError(f"a directive is '! NAME VALUE', got {stripped!r}", no, source)
            name, value = parts[0].lower(), parts[1].lower()
            if name in ("timeout", "sleep"):
                if _duration_ms(value) is None:
                    raise ScriptError(f"'{name}' needs a duration such as 300ms or 2s, got {value!r}", no, source)
            elif name == "crlf":
                if value not in ("on", "off"):
                    raise ScriptError(f"'crlf' takes on or off, got {value!r}", no, source)
            else:
                raise ScriptError(f"unknown directive {name!r} (timeout, sleep, crlf)", no, source)
            steps.append(Directive(no, name, value))
        else:
            raise ScriptError(f"a line must start with '>', '<', '!' or '#', got {stripped!r}", no, source)
    return steps


#: The first command of a session in each protocol (``nboard`` opens every NBoard session).
_OPENING_COMMANDS = {"nboard": "reversi", "START": "mnk", "RECTSTART": "mnk", "ABOUT": "mnk", "INFO": "mnk",
                     "RESTART": "mnk"}


def transcript_game(steps: Sequence[Step]) -> str | None:
    """The game a transcript is written for, judged by the first line it sends (``reversi``
    for an NBoard session, ``mnk`` for a Gomocup one), or ``None`` when it does not say."""
    for step in steps:
        if isinstance(step, Send):
            words = step.text.split()
            return _OPENING_COMMANDS.get(words[0]) if words else None
    return None


@dataclass
class ScriptResult:
    """Outcome of one replay: ``ok``; ``held`` expectations met; ``failure`` text (empty when ok)."""

    ok: bool
    held: int = 0
    failure: str = ""
    failed_line: int = 0
    context: list[str] = field(default_factory=list)


def _check(exp: Expect, sess: Session, model: GomocupModel | NboardModel, default_ms: float) -> str:
    """Empty string when ``exp`` held, else what was seen instead."""
    ms = exp.timeout_ms if exp.timeout_ms is not None else default_ms
    if exp.kind == "nothing":
        got, exited = sess.replies_within(ms / 1000.0)
        if got:
            return f"got {got[0]!r}"
        return "the engine exited" if exited else ""
    if exp.kind == "exit":
        exited, printed = sess.wait_exit(ms / 1000.0)
        if printed:
            return f"got {printed[0]!r}" + ("" if exited else " and it did not exit")
        return "" if exited else "it is still running"
    wanted = None
    if exp.kind == "line" and any(_is_chatter_pattern(p) for p in exp.patterns):
        wanted = lambda line: _matches(line, exp.patterns)  # noqa: E731 - a chatter line it waits for
    w = sess.reply(ms / 1000.0, wanted)
    if w.line is None:
        return f"got {w.describe()}"
    model.received(w.line)
    if exp.kind == "any":
        return ""
    if exp.kind == "about":
        return "" if parse_about(w.line, strict=True) else f"got {w.line!r}"
    if exp.kind == "line":
        return "" if _matches(w.line, exp.patterns) else f"got {w.line!r}"
    if isinstance(model, NboardModel):
        why = model.judge(w.line)
        if why:
            return f"got {w.line!r}: {why}"
        if exp.cells:
            return "'move in X,Y' is for Gomocup engines"
        return ""
    mv, why = model.cells.judge(w.line)
    if mv is None:
        return f"got {w.line!r}: {why}"
    why = model.forbidden(mv)
    if why is not None:
        return f"got {w.line!r}: {mv[0]},{mv[1]} is forbidden for black under renju ({why})"
    model.cells.stones[mv] = 1
    if exp.cells and mv not in exp.cells:
        return f"got {w.line!r}: {mv[0]},{mv[1]} is not one of the expected cells"
    return ""


def _matches(line: str, patterns: Sequence[str]) -> bool:
    """Does ``line`` (trailing blanks ignored) equal one of ``patterns`` or match its glob?"""
    text = line.rstrip()
    return any(any(c in p for c in "*?[") and fnmatch.fnmatchcase(text, p) or text == p for p in patterns)


def _is_chatter_pattern(pattern: str) -> bool:
    """Does an expected line start with a word engines use for chatter (MESSAGE, INFO, …)?
    Then the runner looks for it among the chatter instead of skipping the chatter."""
    head = pattern.split(None, 1)[0].upper() if pattern.strip() else ""
    return head in ("MESSAGE", "DEBUG", "SUGGEST", "INFO")


def run_script(steps: Sequence[Step], argv: Sequence[str], *, send_delay_ms: float = 0,
               default_timeout_ms: float = DEFAULT_TIMEOUT_MS, echo: TextIO | None = None,
               cwd: str | None = None, game: str = "mnk") -> ScriptResult:
    """Replay ``steps`` against a fresh engine ``argv`` (a Gomocup engine, or an NBoard one
    for ``game="reversi"``); the engine is always closed afterwards.

    Raises :class:`referee.engines.process.EngineStartError` when the engine cannot be spawned.
    """
    model: GomocupModel | NboardModel
    if game == "reversi":
        sess = Session(argv, send_delay_ms=send_delay_ms, cwd=cwd, end_line="quit", is_chatter=nboard_chatter)
        model = NboardModel()
    else:
        sess = Session(argv, send_delay_ms=send_delay_ms, cwd=cwd)
        model = GomocupModel()
    held = 0
    default_ms = float(default_timeout_ms)
    sess.start()
    try:
        for step in steps:
            if isinstance(step, Directive):
                if step.name == "timeout":
                    default_ms = _duration_ms(step.value) or default_ms
                elif step.name == "sleep":
                    time.sleep((_duration_ms(step.value) or 0) / 1000.0)
                else:
                    sess.crlf = step.value == "on"
                continue
            if isinstance(step, Send):
                model.sent(step.text)
                if echo is not None:
                    echo.write(f"> {step.text}\n")
                if not sess.send(step.text):
                    return ScriptResult(False, held, f"{step.line_no}: could not send {step.text!r}: "
                                        "the engine is gone", step.line_no, sess.context())
                continue
            problem = _check(step, sess, model, default_ms)
            if echo is not None:
                echo.write(f"< {step.text}: {'ok' if not problem else problem}\n")
            if problem:
                what = step.describe(default_ms)
                return ScriptResult(False, held, f"{step.line_no}: expected {what}; {problem}",
                                    step.line_no, sess.context())
            held += 1
        return ScriptResult(True, held)
    finally:
        sess.close()
