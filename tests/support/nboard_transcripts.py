"""NBoard transcripts (``tests/transcripts/nboard/*.txt``): read them, and check an
engine's answers against them, in-process (a :class:`~protocol.nboard.session.Session`)
or through a real process (any NBoard engine).

Notation: ``> LINE`` is sent; the ``<`` lines after it are the answers (fnmatch
patterns) other than ``status`` and ``nodestats`` lines, which are checked only when a
pattern asks for them; ``< nothing``: no line at all; ``< exit``: the engine exits
(code 0).  A ``>`` line with no ``<`` line must get no answer but status lines.
"""

from __future__ import annotations

import fnmatch
import time
from pathlib import Path

from protocol.nboard.session import Session
from referee.errors import EngineExited

DIR = Path(__file__).resolve().parents[1] / "transcripts" / "nboard"
TRANSCRIPTS = sorted(DIR.glob("*.txt"))


def parse(text: str) -> list[tuple[str, list[str]]]:
    """The transcript's steps: ``(sent line, expected patterns)``."""
    steps: list[tuple[str, list[str]]] = []
    for raw in text.splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        if raw.startswith("> "):
            steps.append((raw[2:], []))
        elif raw.startswith("<"):
            assert steps, f"an answer before any command: {raw!r}"
            steps[-1][1].append(raw[1:].strip())
        else:
            raise AssertionError(f"not a transcript line: {raw!r}")
    return steps


def check(sent: str, out: list[str], expects: list[str]) -> None:
    """Assert that ``out`` (the answer lines to ``sent``) meets ``expects``."""
    context = f"after > {sent[:80]!r}: got {out!r}, want {expects!r}"
    if expects == ["nothing"]:
        assert out == [], context
        return
    if any(e.startswith(("status", "nodestats")) for e in expects):
        got = out
    else:
        got = [line for line in out if not line.startswith(("status ", "nodestats "))]
    assert len(got) == len(expects), context
    for line, pattern in zip(got, expects):
        assert fnmatch.fnmatchcase(line, pattern), context


def run_in_session(session: Session, text: str) -> int:
    """Play a transcript against ``session``; the number of steps checked."""
    steps = parse(text)
    for sent, expects in steps:
        step = session.feed(sent)
        out = list(step.lines)
        if step.job is not None:
            out += session.finish(step.job, step.job.run())
        if expects == ["exit"]:
            assert step.quit, f"after > {sent!r}: the session did not quit"
            continue
        assert not step.quit, f"after > {sent!r}: the session quit"
        check(sent, out, expects)
    return len(steps)


def run_in_process(engine, text: str, timeout: float = 30.0) -> int:
    """Play a transcript against a started ``referee.engines.process.EngineProcess`` speaking
    NBoard: after each command a ``ping`` marks the end of its answers.  The number of
    steps checked."""
    steps = parse(text)
    first = engine.read_line(time.monotonic() + timeout)  # every engine names itself first
    assert first is not None and first.startswith("set myname"), first
    for i, (sent, expects) in enumerate(steps):
        engine.send(sent)
        out: list[str] = []
        if expects == ["exit"]:
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                try:
                    line = engine.read_line(time.monotonic() + 0.05)
                except EngineExited:
                    break
                if line is not None:
                    out.append(line)
            while engine.is_alive() and time.monotonic() < end:
                time.sleep(0.01)
            assert not engine.is_alive() and engine.returncode == 0, (sent, out, engine.returncode)
            continue
        marker = f"sync{i}"
        engine.send(f"ping {marker}")
        while True:
            line = engine.read_line(time.monotonic() + timeout)
            assert line is not None, f"after > {sent!r}: no pong within {timeout} s; got {out!r}"
            if line == f"pong {marker}":
                break
            out.append(line)
        check(sent, out, expects)
    return len(steps)
