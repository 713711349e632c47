"""What an engine seat talks to: a line transport with deadlines, and the line rule it keeps.

:class:`Transport` declares the small interface a seat
(:class:`referee.seats.process.ProcessSeat`) needs of an engine: start it, send
command lines, read the next reply line before a deadline (skipping chatter),
take what arrived between turns, end it.  The referee's implementation is
:class:`referee.engines.process.EngineProcess` (a child process); the tests pass
an in-memory one, so every verdict can be tried without processes.

:class:`LineSplitter` turns the bytes an engine prints into lines under the
referee's one rule for untrusted output: a line is at most
:data:`MAX_LINE_BYTES` bytes.  A longer line is handed out once, cut, as an
:class:`OverlongLine` (the seat judges the engine for bad output) and the rest of
it is dropped as it arrives, so an engine printing without a newline costs the
referee no memory.
"""

from __future__ import annotations

from typing import Callable, Protocol, Sequence, runtime_checkable

__all__ = ["Transport", "LineSplitter", "OverlongLine", "MAX_LINE_BYTES", "MAX_SKIPPED_LINES"]

#: The longest output line an engine may print (bytes, without its newline).  Far above any
#: real reply (a move, an ABOUT line, an NBoard status), low enough that a flood costs little.
MAX_LINE_BYTES = 64 * 1024
#: At most this many skipped (chatter) lines are handed back by one read; the seats keep
#: fewer still (``MAX_KEPT_MESSAGES``), so the rest of a flood is read and dropped.
MAX_SKIPPED_LINES = 200


class OverlongLine(str):
    """An output line longer than :data:`MAX_LINE_BYTES`: its first bytes only (the rest was
    dropped).  A ``str``, so code that only shows lines needs no case for it; a seat that
    sees one judges the engine for bad output."""

    __slots__ = ()


class LineSplitter:
    """Bytes in, lines out (decoded with ``errors="replace"``, without ``\\r\\n``), each line
    capped at ``max_line_bytes``: a longer line comes out once as an :class:`OverlongLine`
    and the rest of it, up to its newline, is dropped as it arrives.

    The only bytes kept between calls are the start of an unfinished line (less than the cap).
    """

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_line_bytes = max(1, int(max_line_bytes))
        self._buf = bytearray()
        self._dropping = False  # inside a line already handed out cut: drop up to its newline

    def feed(self, data: bytes) -> list[str]:
        """The lines completed (or cut) by ``data``."""
        out: list[str] = []
        start, n = 0, len(data)
        while start < n:
            nl = data.find(b"\n", start)
            end = n if nl < 0 else nl
            if self._dropping:
                if nl < 0:
                    return out
                self._dropping = False
            elif end - start > self.max_line_bytes - len(self._buf):
                room = self.max_line_bytes - len(self._buf)
                self._buf += data[start:start + room]
                out.append(OverlongLine(self._take()))
                self._dropping = nl < 0
            else:
                self._buf += data[start:end]
                if nl < 0:
                    return out
                out.append(self._take())
            if nl < 0:
                return out
            start = nl + 1
        return out

    def finish(self) -> list[str]:
        """At end of output: the unfinished last line, if any."""
        if self._dropping or not self._buf:
            self._buf.clear()
            return []
        return [self._take()]

    def _take(self) -> str:
        text = self._buf.decode("utf-8", errors="replace").rstrip("\r\n")
        self._buf.clear()
        return text


@runtime_checkable
class Transport(Protocol):
    """One engine as a seat drives it: command lines out, reply lines in, with deadlines.

    Times are ``time.monotonic()`` seconds.  Failures are the referee's engine errors:
    :class:`~referee.errors.EngineStartError` from :meth:`start`,
    :class:`~referee.errors.EngineExited` when the engine has gone (``returncode`` set when
    known; from :meth:`read_reply` with ``skipped`` holding the chatter read before),
    :class:`~referee.errors.EngineTimeout` when it stops reading its input.
    """

    #: Label in logs and error messages.
    name: str
    #: Process id once started (``None`` before, or for an engine without a process).
    pid: int | None
    #: The command that asks the engine to exit (``END``, ``quit``).
    end_line: str
    #: The pause kept between the engine's last output line and the next command.
    send_delay_s: float
    #: ``time.monotonic()`` when the last output line was received.
    last_line_time: float

    def start(self) -> None:
        """Start the engine."""

    def is_alive(self) -> bool:
        """The engine has not exited."""

    def send(self, line: str, eol: str = "\n") -> None:
        """Send one command line."""

    def send_many(self, lines: Sequence[str], eol: str = "\n") -> None:
        """Send several command lines in one write."""

    def read_reply(self, deadline: float, is_info: Callable[[str], bool] = ...
                   ) -> tuple[str | None, list[str]]:
        """``(reply, skipped)``: the next line that is not chatter (``None`` once ``deadline``
        passed) and at most :data:`MAX_SKIPPED_LINES` of the chatter read meanwhile.  An
        :class:`OverlongLine` is returned as the reply, chatter or not."""

    def drain(self) -> list[str]:
        """The output that arrived between turns, without waiting (bounded; an
        :class:`OverlongLine` ends it)."""

    def close(self, grace_s: float = 0.5, send_end: bool = True) -> None:
        """End the engine (its end line, a grace period, then kill); never raises."""

    def kill(self) -> None:
        """End the engine at once; never raises."""
