"""An engine in memory for the fast tests: the test scripts which command lines the seat must
send and what the engine answers to each (python-chess's ``MockTransport`` is the model).

:class:`MockTransport` has the interface of :class:`referee.engines.transport.Transport`,
so it is handed to a real ``GomocupSeat`` / ``NboardSeat`` (``transport=``) and the game
runs through the real ``play_game``, without a process.  Time is partly virtual: an answer
scripted ``after_s`` seconds after its command is never waited for; a read whose deadline
comes before the answer returns nothing at once (the engine would be late), and the
engine's think time as the seat measures it is ``after_s``.

Example::

    mock = MockTransport("brain", ignore=("INFO",))
    mock.expect("START 9", "OK").expect("ABOUT", 'name="brain"')
    mock.expect("BEGIN", "4,4").expect(re.compile(r"TURN \\d+,\\d+"), "4,4")   # an occupied cell
"""

from __future__ import annotations

import re
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Sequence

from referee.engines.gomocup_wire import is_chatter as is_info_line
from referee.engines.transport import LineSplitter, OverlongLine
from referee.errors import EngineExited

__all__ = ["MockTransport"]


@dataclass
class _Step:
    expect: str | re.Pattern
    replies: tuple[str, ...]
    after_s: float
    exit: int | None

    def matches(self, line: str) -> bool:
        if isinstance(self.expect, re.Pattern):
            return self.expect.fullmatch(line) is not None
        return line == self.expect


class MockTransport:
    """A scripted engine.  ``ignore``: prefixes of command lines accepted without a step
    (``INFO`` settings, whose values depend on the clock); ``end_line``: the protocol's end
    command, always accepted (the engine exits on it).  Every command line received is kept in :attr:`sent`."""

    def __init__(self, name: str = "mock", *, ignore: Sequence[str] = (), end_line: str = "END",
                 send_delay_s: float = 0.0) -> None:
        self.name = name
        self.pid: int | None = None
        self.end_line = end_line
        self.send_delay_s = send_delay_s
        self.last_line_time = 0.0
        #: Every command line the seat sent, in order.
        self.sent: list[str] = []
        self._ignore = tuple(ignore)
        self._steps: deque[_Step] = deque()
        self._out: deque[tuple[float, str]] = deque()  # (when it is printed, the line)
        self._splitter = LineSplitter()
        self._exit: int | None = None  # the status once the engine has exited after its last lines
        self._started = False
        self._closed = False

    # Scripting ------------------------------------------------------------------------
    def expect(self, line: str | re.Pattern, *replies: str, after_s: float = 0.0,
               exit: int | None = None) -> "MockTransport":
        """When the seat sends ``line`` (exact, or a pattern matching it whole), print ``replies``
        ``after_s`` seconds later, then exit with status ``exit`` if given.  Chainable."""
        self._steps.append(_Step(line, replies, after_s, exit))
        return self

    def assert_done(self) -> None:
        """Every scripted command was sent."""
        assert not self._steps, f"{self.name}: never sent {[s.expect for s in self._steps]!r}"

    # Transport ------------------------------------------------------------------------
    def start(self) -> None:
        """Nothing to spawn."""
        self._started = True

    def is_alive(self) -> bool:
        """Started, not closed and not exited."""
        return self._started and not self._closed and self._exit is None

    def send(self, line: str, eol: str = "\n") -> None:
        """Take one command line (see :meth:`send_many`)."""
        self.send_many([line], eol)

    def send_many(self, lines: Sequence[str], eol: str = "\n") -> None:
        """Take command lines: each must be the next scripted one (or ignored, or the end line);
        :class:`EngineExited` once the engine has exited; ``AssertionError`` for a line the
        script did not expect (a test failure, never a verdict)."""
        if not self.is_alive():
            raise EngineExited(f"{self.name} is not running", self._exit)
        now = time.monotonic()
        for line in lines:
            self.sent.append(line)
            if self._steps and self._steps[0].matches(line):
                step = self._steps.popleft()
                for reply in step.replies:
                    for text in self._splitter.feed((reply + "\n").encode()):
                        self._out.append((now + step.after_s, text))
                if step.exit is not None:
                    self._exit = step.exit
                    return
            elif line == self.end_line:
                self._exit = 0  # a well-behaved engine: the game's grace period need not wait
                return
            elif line.startswith(self._ignore):
                continue
            else:
                expected = self._steps[0].expect if self._steps else "nothing"
                raise AssertionError(f"{self.name}: expected {expected!r}, got {line!r}")

    def read_reply(self, deadline: float, is_info: Callable[[str], bool] = is_info_line
                   ) -> tuple[str | None, list[str]]:
        """The next scripted line that is not chatter, if printed by ``deadline`` (no waiting)."""
        skipped: list[str] = []
        while self._out:
            at, line = self._out[0]
            if at > deadline:
                return None, skipped
            self._out.popleft()
            self.last_line_time = max(self.last_line_time, at)
            if isinstance(line, OverlongLine) or not is_info(line):
                return line, skipped
            skipped.append(line)
        if self._exit is not None:
            exc = EngineExited(f"{self.name} exited", self._exit)
            exc.skipped = skipped  # type: ignore[attr-defined]
            raise exc
        return None, skipped

    def drain(self) -> list[str]:
        """The lines printed by now."""
        out: list[str] = []
        now = time.monotonic()
        while self._out and self._out[0][0] <= now:
            out.append(self._out.popleft()[1])
        return out

    def close(self, grace_s: float = 0.5, send_end: bool = True) -> None:
        """Nothing to kill."""
        self._closed = True

    def kill(self) -> None:
        """Nothing to kill."""
        self._closed = True
