"""The brain's I/O: a stdin reader thread, a search thread, and stdout written from one place.

Threads:

- the reader (:class:`protocol.lines.LineReader`, shared with the NBoard program) turns
  raw bytes from the input file descriptor into lines (``\\r`` stripped, undecodable
  bytes replaced, over-long lines refused) and stamps each with its arrival time on
  the monotonic clock;
- a search runs on its own thread per move, so ``YXSTOP``/``STOP`` (answer
  now) and ``END`` are seen while it thinks;
- the main thread owns the :class:`~protocol.gomocup.session.Session` and is the only
  writer of stdout (flushed after every batch of replies).

Other commands that arrive during a search wait until its move is printed.  With
``INFO show_detail`` the search's progress reports come back through the same queue and
are written (throttled by the session) while it thinks.
``END`` during a search stops it at once: the commands received before END
still get their answers, with no further thinking, and nothing is printed
after END's turn comes (so a piped session ending in END prints every move it
asked for).  EOF on stdin finishes the work already received, thinking as
usual, then exits with code 0.  Deadlines count from each command's arrival,
as managers expect, so commands piped in together share the time of the first; a
BOARD/YXBOARD/SWAP2BOARD block arrives with its last line, ``DONE``.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from typing import BinaryIO

from protocol.gomocup import wire
from protocol.gomocup.session import SearchJob, Session
from protocol.jobs import start_job
from protocol.lines import MAX_LINE_BYTES, LineReader, process_start_time, write_lines

__all__ = ["BrainLoop", "LineReader", "MAX_LINE_BYTES", "process_start_time"]

#: START waits for the engine to be built (so the first moves do not share the CPU with
#: the numpy import) but is answered by this long after the process started regardless.
START_REPLY_BY_S = 0.25
#: Watchdog: a search still running this long after its deadline is told to stop.
STOP_GRACE_S = 0.010
#: Watchdog: a search still running this long after the move's hard deadline is abandoned
#: and an instant move is played (the protocol tolerance aimed at is +20 ms).
GIVE_UP_AFTER_S = 0.005


class BrainLoop:
    """Runs a :class:`Session` against an input fd and an output stream; see the module docstring."""

    def __init__(self, session: Session, in_fd: int, out: BinaryIO, started: float | None = None) -> None:
        self.session = session
        self.out = out
        self.events: "queue.Queue[tuple]" = queue.Queue()
        self.started = time.monotonic() if started is None else started
        self.reader = LineReader(in_fd, self.events, self.started)
        self._pending: deque[tuple[str, object, float]] = deque()
        self._job: SearchJob | None = None
        self._stop: threading.Event | None = None
        self._ending = False  # END has arrived: searches before it answer at once

    def run(self) -> int:
        """Serve until END or EOF; return the exit code (0 unless stdout is gone: also 0)."""
        self.reader.start()
        eof = False
        try:
            while True:
                if self._job is None and self._pending:
                    kind, payload, stamp = self._pending.popleft()
                    if kind == "toolong":
                        self._write([f"ERROR line too long ({payload} bytes, limit {MAX_LINE_BYTES}); ignored"])
                    elif self._handle(str(payload), stamp):
                        return 0
                    continue
                if self._job is None and eof:
                    return 0
                try:
                    kind, payload, stamp = self.events.get(timeout=self._watchdog_timeout())
                except queue.Empty:
                    self._watchdog()
                    continue
                if kind == "info":
                    job, info = payload
                    if job is self._job:
                        self._write(self._report(job, info))
                elif kind == "result":
                    job, (result, failure) = payload
                    if job is self._job:
                        self._job = None
                        self._write(self._finish(job, result, failure))
                elif kind == "line":
                    if self._job is not None:
                        word = wire.command_word(payload)
                        if word in ("YXSTOP", "STOP"):
                            self._stop.set()
                            continue
                        if word == "END":
                            # Stop now; the earlier commands still get their (instant) answers.
                            self._ending = True
                            self._stop.set()
                    self._pending.append(("line", payload, stamp))
                elif kind == "toolong":
                    self._pending.append(("toolong", payload, stamp))
                elif kind == "eof":
                    eof = True
        except (OSError, KeyboardInterrupt):  # stdout gone (broken pipe) or Ctrl-C
            return 0
        finally:
            if self._stop is not None:
                self._stop.set()

    def _handle(self, text: str, arrival: float) -> bool:
        """Feed one line; start a search if asked.  True means quit."""
        try:
            step = self.session.feed(text, arrival)
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the brain mid-game
            self._write([f"ERROR internal error on {wire.quote(text)}: {type(exc).__name__}: {exc}"])
            return False
        if step.prepare:
            # A new game: build its engine.  Right after spawn the numpy import may still
            # be running; waiting for it here (bounded) keeps it off the first moves' clock.
            step.lines += self.session.prepare()
            self.session.wait_ready(self.started + START_REPLY_BY_S - time.monotonic())
        self._write(step.lines)
        if step.quit:
            return True
        if step.job is not None:
            self._start_search(step.job)
        return False

    def _watch_points(self) -> tuple[float | None, float | None]:
        """(when to set stop, when to give up) for the running search."""
        job = self._job
        if job is None:
            return None, None
        stop_at = None
        if job.limits.deadline is not None and not self._stop.is_set():
            stop_at = job.limits.deadline + STOP_GRACE_S
        give_up_at = None if job.hard_deadline is None else job.hard_deadline + GIVE_UP_AFTER_S
        return stop_at, give_up_at

    def _watchdog_timeout(self) -> float | None:
        points = [t for t in self._watch_points() if t is not None]
        return None if not points else max(0.0, min(points) - time.monotonic())

    def _watchdog(self) -> None:
        """A search overran: ask it to stop; if the move is about to be late, answer without it.

        The engine's contract is to return within a few ms of its deadline; this
        guards the clock against a regression or a long pause in the engine.
        """
        stop_at, give_up_at = self._watch_points()
        now = time.monotonic()
        if give_up_at is not None and now >= give_up_at:
            job, self._job = self._job, None
            self._stop.set()
            self._write(self._finish(job, None, "the search did not return in time", abandoned=True))
        elif stop_at is not None and now >= stop_at:
            self._stop.set()

    def _finish(self, job: SearchJob, result, failure, abandoned: bool = False) -> list[str]:
        try:
            return self.session.finish(job, result, failure, abandoned)
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the brain mid-game
            return [f"ERROR internal error after the search: {type(exc).__name__}: {exc}"]

    def _report(self, job: SearchJob, info) -> list[str]:
        try:
            return self.session.report(job, info)
        except Exception as exc:  # noqa: BLE001 - a report must never cost the move
            return [wire.message(f"report failed: {type(exc).__name__}: {exc}")]

    def _start_search(self, job: SearchJob) -> None:
        stop = threading.Event()
        if self._ending:
            stop.set()
        self._job, self._stop = job, stop
        if self.session.wants_reports(job):
            # Reports cross to this thread through the queue: stdout has one writer.
            events = self.events
            job.on_info = lambda info: events.put(("info", (job, info), time.monotonic()))

        start_job(job, stop, self.events)  # a failure comes back as the outcome: a quick move is played

    def _write(self, lines: list[str]) -> None:
        write_lines(self.out, lines)
