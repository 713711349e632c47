"""A scripted conversation with one engine process, shared by ``referee check`` and ``referee script``.

:class:`Session` wraps :class:`referee.engines.process.EngineProcess` and adds what a
conformance test needs on top of it: a history of every line sent and
received (printed as context when something goes wrong), CR LF sends, closing
stdin (EOF), and small waits with deadlines ("a reply", "nothing for 300 ms",
"the process exits").  :class:`Cells` follows which cells are occupied, so a
reply can be judged as a legal move without the full rules.

Nothing here raises on bad engine output: every wait returns a value that
says what happened.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Sequence

from referee.engines.gomocup_wire import is_chatter as gomocup_chatter
from referee.engines.process import EngineProcess
from referee.engines.transport import MAX_SKIPPED_LINES
from referee.errors import EngineError, EngineExited
from referee.engines.gomocup_wire import parse_move

__all__ = ["Session", "Cells", "Wait", "HISTORY_LINES", "silence_stdout"]

#: How many sent/received lines a session remembers for error context.
HISTORY_LINES = 40
#: A wait that reads this many chatter lines without a reply ends at once: a flooding engine
#: fails each check quickly instead of holding every one until its deadline.
FLOOD_CHATTER_LINES = 10_000


@dataclass
class Wait:
    """What one wait for engine output saw.

    ``line`` is the first reply line (``None`` when none came), ``exited`` is
    true when the engine closed its output or died, ``timed_out`` when the
    deadline passed first; ``skipped`` holds the MESSAGE/DEBUG lines read
    meanwhile, ``elapsed`` the seconds waited.
    """

    line: str | None = None
    exited: bool = False
    timed_out: bool = False
    skipped: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    #: Chatter lines read in all (``skipped`` keeps the first :data:`MAX_SKIPPED_LINES`).
    chatter: int = 0

    @property
    def flooded(self) -> bool:
        """The engine printed so much chatter that the wait gave up on it."""
        return self.chatter >= FLOOD_CHATTER_LINES

    def describe(self) -> str:
        """Short text of the outcome, for reports."""
        if self.line is not None:
            return repr(self.line)
        if self.exited:
            return "the engine exited"
        if self.flooded:
            return f"{self.chatter} lines of chatter and no reply (a flood)"
        return f"nothing within {self.elapsed * 1000:.0f} ms"


class Session:
    """One engine process plus the record of the conversation with it."""

    def __init__(self, argv: Sequence[str], *, send_delay_ms: float = 0, name: str | None = None,
                 cwd: str | None = None, end_line: str = "END",
                 is_chatter: Callable[[str], bool] = gomocup_chatter) -> None:
        # ``end_line`` ends the engine (Gomocup END, NBoard quit); ``is_chatter`` says which
        # lines answer nothing (Gomocup MESSAGE/DEBUG, anything but === and pong in NBoard).
        self.proc = EngineProcess(argv, name=name, send_delay_ms=send_delay_ms, cwd=cwd, end_line=end_line)
        self._is_chatter = is_chatter
        self.history: deque[str] = deque(maxlen=HISTORY_LINES)
        self.crlf = False
        #: Set when the engine hung, died or could not be written to: start a fresh one.
        self.broken = False
        self._stdin_closed = False
        #: Lines received so far (any kind): 0 after a failure means the engine never spoke.
        self.received = 0
        self._t0 = time.monotonic()

    # Lifecycle ------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the engine (raises :class:`referee.engines.process.EngineStartError`)."""
        self.proc.start()
        self._t0 = time.monotonic()

    def close(self) -> None:
        """END, a short grace, then kill the process group.  Never raises."""
        try:
            if self._stdin_closed:
                self.proc.kill()  # END cannot be written any more
            else:
                self.proc.close(grace_s=0.3)
        except Exception:  # noqa: BLE001 - clean-up must go on; kill is idempotent
            self.proc.kill()

    def is_alive(self) -> bool:
        return self.proc.is_alive()

    # Sending --------------------------------------------------------------------
    def send(self, line: str) -> bool:
        """Send one line (CR LF when :attr:`crlf`); False (and :attr:`broken`) when the engine is gone."""
        return self.send_many([line])

    def send_many(self, lines: Sequence[str]) -> bool:
        """Send several lines in one write (a BOARD block); False when the engine is gone."""
        for ln in lines:
            self._note(">", ln)
        try:
            self.proc.send_many(list(lines), eol="\r\n" if self.crlf else "\n")
            return True
        except (EngineError, OSError):
            self.broken = True
            return False

    def close_stdin(self) -> bool:
        """Close the engine's stdin (EOF).  False when that was not possible."""
        self._note(">", "<EOF>")
        try:
            self.proc.close_stdin()
            self._stdin_closed = True
            return True
        except (OSError, AttributeError, EngineError):
            return False

    # Receiving ------------------------------------------------------------------
    def reply(self, timeout_s: float, wanted: Callable[[str], bool] | None = None) -> Wait:
        """The next reply line (chatter such as MESSAGE/DEBUG/SUGGEST skipped), waiting at most
        ``timeout_s``; a chatter line for which ``wanted`` is true counts as the reply (a
        script expecting a MESSAGE or INFO line)."""
        t0 = time.monotonic()
        deadline = t0 + max(0.0, timeout_s)
        w = Wait()
        while True:
            if w.chatter and time.monotonic() > deadline:
                # read_line hands out buffered lines even past the deadline: a flood of
                # MESSAGE lines must not keep us here.
                w.timed_out = True
                break
            try:
                line = self.proc.read_line(deadline)
            except EngineExited:
                w.exited = True
                self.broken = True
                self._note("<", "<EOF>")
                break
            except (EngineError, OSError):
                w.exited = True
                self.broken = True
                break
            if line is None:
                w.timed_out = True
                break
            self.received += 1
            self._note("<", line)
            if self._is_chatter(line) and not (wanted is not None and wanted(line)):
                w.chatter += 1
                if len(w.skipped) < MAX_SKIPPED_LINES:  # what is kept stays bounded
                    w.skipped.append(line)
                if w.flooded:
                    break
                continue
            w.line = line
            break
        w.elapsed = time.monotonic() - t0
        return w

    def replies_within(self, timeout_s: float, max_lines: int = 50) -> tuple[list[str], bool]:
        """The reply lines that arrive within ``timeout_s`` (at most ``max_lines``: an engine
        flooding its output is not read to the end), and whether the engine exited."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        got: list[str] = []
        while len(got) < max_lines:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            w = self.reply(remaining)
            if w.line is not None:
                got.append(w.line)
                continue
            return got, w.exited
        return got, False

    def wait_exit(self, timeout_s: float) -> tuple[bool, list[str]]:
        """Wait until the process exits; ``(exited, reply lines printed meanwhile)``."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        printed: list[str] = []
        while time.monotonic() < deadline:
            w = self.reply(min(0.05, max(0.0, deadline - time.monotonic())))
            if w.line is not None and len(printed) < 50:  # keep a few; a flood is not stored
                printed.append(w.line)
            if w.exited or not self.proc.is_alive():
                # stdout closed: give the process itself the rest of the time to go.
                while self.proc.is_alive() and time.monotonic() < deadline:
                    time.sleep(0.01)
                return not self.proc.is_alive(), printed
        return not self.proc.is_alive(), printed

    # Context --------------------------------------------------------------------
    def _note(self, direction: str, line: str) -> None:
        self.history.append(f"{time.monotonic() - self._t0:7.3f} {direction} {line}")

    def context(self, n: int = 12) -> list[str]:
        """The last ``n`` lines of the conversation, oldest first (``>`` sent, ``<`` received)."""
        return list(self.history)[-n:]


class Cells:
    """Which cells of a ``width`` x ``height`` board are occupied (no rules, no colours needed).

    Used to judge a reply as a legal move: on the board and on an empty cell.
    """

    def __init__(self, width: int = 15, height: int | None = None) -> None:
        self.width = width
        self.height = width if height is None else height
        self.stones: dict[tuple[int, int], int] = {}

    def reset(self, width: int | None = None, height: int | None = None) -> None:
        if width is not None:
            self.width = width
            self.height = width if height is None else height
        self.stones.clear()

    def on_board(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def empty(self, x: int, y: int) -> bool:
        return self.on_board(x, y) and (x, y) not in self.stones

    def judge(self, line: str | None) -> tuple[tuple[int, int] | None, str]:
        """``((x, y), "")`` for a legal move reply, else ``(None, why)``."""
        if line is None:
            return None, "no reply"
        mv = parse_move(line)
        if mv is None:
            return None, f"{line!r} is not a move"
        if not self.on_board(*mv):
            return None, f"{mv[0]},{mv[1]} is off the {self.width}x{self.height} board"
        if mv in self.stones:
            return None, f"{mv[0]},{mv[1]} is occupied"
        return mv, ""

    def first_empty_near(self, x0: int, y0: int, avoid: Sequence[tuple[int, int]] = ()) -> tuple[int, int]:
        """The empty cell nearest to ``(x0, y0)`` (ties in a fixed order), not in ``avoid``."""
        best = None
        for y in range(self.height):
            for x in range(self.width):
                if (x, y) in self.stones or (x, y) in avoid:
                    continue
                d = (max(abs(x - x0), abs(y - y0)), abs(x - x0) + abs(y - y0), y, x)
                if best is None or d < best[0]:
                    best = (d, (x, y))
        if best is None:
            raise ValueError("the board is full")
        return best[1]


def silence_stdout() -> None:
    """Point stdout at /dev/null after a broken pipe (``referee check ... | head``), so that
    Python's final flush does not report it again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
