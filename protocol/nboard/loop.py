"""The NBoard engine's I/O: a stdin reader thread, a search thread, stdout written from one place.

- The reader (:class:`protocol.lines.LineReader`) posts stamped lines; lines longer than
  ``MAX_LINE_BYTES`` (no GGF game comes near it) are refused with a ``status`` line.
- A ``go`` or ``hint`` runs on its own thread (:func:`protocol.jobs.start_job`), so the
  loop sees what arrives meanwhile: every command waits until the job's answer is
  printed (so ``pong N`` follows every earlier answer).  A ``hint`` search is stopped
  early by a command that makes its hints stale (``set game``, ``move``, ``go``, ``hint``):
  a GUI asks for hints again after every change; a ``go`` runs to its time (the GUI
  waits for the move; so does Edax).
- ``quit`` and the end of stdin stop a running search at once; the commands received
  before them are still answered (any search they ask for answers at once), then the
  loop returns 0: the program exits within milliseconds.
- A search that overruns its deadline by ``STOP_GRACE_S`` is told to stop (the engine's
  contract is to return within a few ms of it; this guards against a regression).
- Nothing the session raises reaches stdout as a traceback: a bug becomes a ``status`` line.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from typing import BinaryIO

from protocol.jobs import start_job
from protocol.lines import LineReader, write_lines
from protocol.nboard import wire
from protocol.nboard.session import NAME, Job, Session

#: Longest accepted input line (a 16x16 game with every move timed is some 6 kB).
MAX_LINE_BYTES = 64 * 1024
#: A search still running this long after its deadline is told to stop.
STOP_GRACE_S = 0.010


class NBoardLoop:
    """Runs a :class:`Session` against an input fd and an output stream (see the module doc)."""

    def __init__(self, session: Session, in_fd: int, out: BinaryIO, started: float | None = None) -> None:
        self.session = session
        self.out = out
        self.events: "queue.Queue[tuple]" = queue.Queue()
        self.reader = LineReader(in_fd, self.events, time.monotonic() if started is None else started,
                                 MAX_LINE_BYTES)
        self._pending: deque[tuple[str, object, float]] = deque()
        self._job: Job | None = None
        self._stop: threading.Event | None = None
        self._ending = False  # quit or EOF has arrived: searches answer at once

    def run(self) -> int:
        """Serve until ``quit`` or EOF; return the exit code (0, also when stdout is gone)."""
        try:
            self._write([wire.myname(NAME)])
            self.reader.start()
            while True:
                if self._job is None and self._pending:
                    kind, payload, stamp = self._pending.popleft()
                    if kind == "eof" or self._handle(kind, payload, stamp):
                        return 0
                    continue
                try:
                    kind, payload, stamp = self.events.get(timeout=self._watchdog_timeout())
                except queue.Empty:
                    self._stop.set()  # the deadline passed: the engine must answer now
                    continue
                if kind == "result":
                    job, (outcome, failure) = payload
                    if job is self._job:
                        self._job = None
                        self._write(self._finish(job, outcome, failure))
                    continue
                if kind == "eof" or (kind == "line" and wire.command_word(payload) == "quit"):
                    self._ending = True
                job = self._job
                if job is not None and (self._ending or (job.interruptible and kind == "line"
                                                         and wire.interrupts(payload))):
                    self._stop.set()
                self._pending.append((kind, payload, stamp))
        except (OSError, KeyboardInterrupt):  # stdout gone (broken pipe) or Ctrl-C
            return 0
        finally:
            if self._stop is not None:
                self._stop.set()

    def _handle(self, kind: str, payload: object, arrival: float) -> bool:
        """One received line (or an over-long one); start its job if it asks for one.
        True means quit."""
        if kind == "toolong":
            self._write([wire.status(f"ignored a line of {payload} bytes (the limit is {MAX_LINE_BYTES})")])
            return False
        try:
            step = self.session.feed(str(payload), arrival)
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the engine mid-game
            self._write([wire.status(f"internal error on {wire.quote(str(payload))}: {type(exc).__name__}: {exc}")])
            return False
        self._write(step.lines)
        if step.quit:
            return True
        if step.job is not None:
            stop = threading.Event()
            if self._ending:
                stop.set()
            self._job, self._stop = step.job, stop
            start_job(step.job, stop, self.events)
        return False

    def _watchdog_timeout(self) -> float | None:
        """Seconds until the running search must be told to stop (``None``: no such time)."""
        job = self._job
        if job is None or job.limits.deadline is None or self._stop.is_set():
            return None
        return max(0.0, job.limits.deadline + STOP_GRACE_S - time.monotonic())

    def _finish(self, job: Job, outcome: object, failure: str | None) -> list[str]:
        try:
            return self.session.finish(job, outcome, failure)
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the engine mid-game
            return [wire.status(f"internal error after the search: {type(exc).__name__}: {exc}")]

    def _write(self, lines: list[str]) -> None:
        write_lines(self.out, lines)
