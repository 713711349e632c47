"""The line I/O both protocol programs share: stdin read on a thread into stamped lines,
replies written to stdout, and the process's start time.

- :class:`LineReader` turns raw bytes from the input file descriptor into lines (``\\r``
  stripped, undecodable bytes replaced, over-long lines refused) and stamps each with
  its arrival time on the monotonic clock, so a move's deadline counts from when its
  command arrived, as the managers and GUIs measure it;
- :func:`write_lines` writes a batch of reply lines and flushes them;
- :func:`process_start_time` dates the commands a manager wrote before the program was
  ready to read;
- :func:`exit_now` ends the program once its loop returns;
- :func:`quiet_on_closed_stdout` runs a program's entry point so that a reader that
  goes away (``pbrain-mcts --list-options | head``) ends it quietly.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from typing import BinaryIO, Callable

#: Longest accepted input line by default; longer ones are reported and skipped.
MAX_LINE_BYTES = 1 << 20
#: Bytes asked of ``os.read`` at a time.
READ_CHUNK = 1 << 16
#: A read that returns sooner than this found data already waiting (its arrival time is unknown).
IMMEDIATE_READ_S = 0.0005


def process_start_time() -> float:
    """This process's start as a ``time.monotonic()`` value (Linux /proc), else now.

    Commands a manager wrote before the program was ready to read count against
    the first move from the moment they were sent; the process start is the
    best bound we have for that moment.
    """
    now_mono = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
        fields = stat.rsplit(")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 of stat(5); fields[0] is field 3
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")
        if 0 <= age < 60:
            return now_mono - age
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    return now_mono


class LineReader:
    """Reads ``fd`` on a daemon thread and posts ``("line", text, arrival)``,
    ``("toolong", n, arrival)`` (a line of ``n`` bytes over ``max_line_bytes``, skipped)
    and finally ``("eof", None, t)`` to ``events``.

    Uses ``os.read`` rather than ``sys.stdin`` so that no buffer lock is held
    by a thread still blocked in a read when the process exits.
    """

    def __init__(self, fd: int, events: "queue.Queue[tuple]", started: float,
                 max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.fd = fd
        self.events = events
        self.started = started
        self.max_line_bytes = max_line_bytes
        self.thread = threading.Thread(target=self._run, name="stdin-reader", daemon=True)

    def start(self) -> None:
        """Start reading (once)."""
        self.thread.start()

    def _run(self) -> None:
        buf = bytearray()
        dropped = 0  # bytes of an over-long line being skipped
        last = self.started
        while True:
            before = time.monotonic()
            try:
                chunk = os.read(self.fd, READ_CHUNK)
            except OSError:
                chunk = b""
            after = time.monotonic()
            # Data that was already waiting arrived at the latest when the previous read ended.
            arrival = last if after - before < IMMEDIATE_READ_S else after
            last = after
            if not chunk:
                if dropped:
                    self.events.put(("toolong", dropped, arrival))
                elif buf:
                    self.events.put(("line", self._decode(buf), arrival))
                self.events.put(("eof", None, after))
                return
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                piece = chunk[start:] if nl < 0 else chunk[start:nl]
                if dropped:
                    dropped += len(piece)
                else:
                    buf += piece
                    if len(buf) > self.max_line_bytes:
                        dropped = len(buf)
                        buf.clear()
                if nl < 0:
                    break
                if dropped:
                    self.events.put(("toolong", dropped, arrival))
                    dropped = 0
                else:
                    self.events.put(("line", self._decode(buf), arrival))
                buf.clear()
                start = nl + 1

    @staticmethod
    def _decode(raw: bytes | bytearray) -> str:
        return bytes(raw).decode("utf-8", errors="replace").replace("\r", "")


def write_lines(out: BinaryIO, lines: list[str]) -> None:
    """Write ``lines`` (each ended by a newline) and flush; nothing for an empty list."""
    if lines:
        out.write(("\n".join(lines) + "\n").encode("utf-8", errors="replace"))
        out.flush()


def exit_now(code: int) -> None:
    """Flush stdout and stderr and end the process at once with ``code``, even with a
    search thread still running (a quit must be prompt, and a thread stuck in numpy must
    not delay interpreter shutdown)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


def quiet_on_closed_stdout(main: Callable[[], int]) -> int:
    """``main()``, but a closed stdout (the reader of a pipe gone, as ``| head`` does) ends
    the program quietly with code 0 instead of a ``BrokenPipeError`` traceback.

    stdout is flushed before returning (``--help`` and ``--version`` leave by
    ``SystemExit``: flushed too), so that the error shows here and not during interpreter
    shutdown; after it, stdout is pointed at the null device so that the final flush of
    what is still buffered cannot fail again.
    """
    try:
        try:
            return main()
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0
