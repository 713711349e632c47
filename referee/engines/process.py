"""One engine as a child process, driven line by line with deadlines (any line protocol).

The referee never trusts an engine, so this wrapper guarantees:

- the child runs in its own session / process group, so :meth:`EngineProcess.close`
  can kill the engine *and everything it spawned* (``killpg``; see
  :mod:`referee.engines.child`);
- every read returns by its deadline whatever the engine prints: the pipe is
  watched with ``selectors`` (no blocking ``readline``) and read at most
  :data:`referee.engines.pipes.CHUNK_BYTES` at a time, only when the lines already read are used up,
  and the deadline is looked at before every read of the pipe;
- what the engine prints costs bounded memory: a line is at most
  :data:`~referee.engines.transport.MAX_LINE_BYTES` (a longer one is handed out
  once, cut, as an :class:`~referee.engines.transport.OverlongLine`, and its rest is
  dropped), bytes are decoded with ``errors="replace"``, one read keeps at most
  :data:`~referee.engines.transport.MAX_SKIPPED_LINES` of the chatter it skips,
  and the I/O log is written line by line, never kept;
- writes never block forever either: stdin is non-blocking and a write that
  cannot proceed within ``write_timeout_s`` raises :class:`EngineTimeout`;
- the leader process is not reaped before :meth:`close`, so its process-group id
  cannot be reused by an unrelated process while we may still ``killpg`` it.

Usage::

    eng = EngineProcess(["pbrain-x"], name="x", send_delay_ms=25, log=transcript)
    eng.start()
    try:
        eng.send("START 15")
        reply, messages = eng.read_reply(time.monotonic() + 2.0)   # None on timeout
    finally:
        eng.close()

All times are ``time.monotonic()`` seconds.  Methods are meant to be called
from one thread at a time, except :meth:`close` / :meth:`kill`, which may be
called from any thread or from a signal handler (they are idempotent; the only
lock they take is re-entrant and never held while waiting).

Closing while another thread reads wakes the reader at once; see :mod:`referee.engines.pipes`.
"""

from __future__ import annotations

import os
import time
from collections import deque
from typing import IO, Callable, Sequence

from referee.engines.child import Child
from referee.engines.gomocup_wire import is_chatter as gomocup_chatter
from referee.engines.pipes import EnginePipes
from referee.engines.transport import MAX_LINE_BYTES, MAX_SKIPPED_LINES, OverlongLine
from referee.errors import EngineError, EngineExited, EngineStartError

__all__ = ["EngineProcess", "DRAIN_BYTES"]

#: :meth:`EngineProcess.drain` stops reading once this much has arrived in one call (a flood
#: between turns is left in the pipe, to be read, as chatter, by the next read with a deadline).
DRAIN_BYTES = 1 << 20

class EngineProcess:
    """An engine (a Gomocup brain, an NBoard engine) running as a child process; a
    :class:`~referee.engines.transport.Transport`.

    Parameters:
        argv: the program and its arguments (run without a shell).
        name: label used in logs and error messages (default: ``argv[0]``'s base name).
        cwd: working directory of the child.
        send_delay_ms: minimum time between the engine's last output line and the
            next command we send.  Some engines (Rapfi) print their move before
            they are ready to read again and drop a command that arrives within
            ~20 ms; a delay of 25-50 ms avoids it.  The delay is measured from
            the last line *received*, so back-to-back commands (``INFO`` then
            ``TURN``) are delayed only once.
        log: a text stream receiving one line per protocol line,
            ``"<seconds> <name> > <command>"`` or ``"<seconds> <name> < <reply>"``;
            seconds count from ``log_t0`` (a ``time.monotonic()`` value; default: the spawn).
        env: environment of the child (default: inherited).
        stderr_path: file that receives the engine's stderr (appended); default
            discards it.
        max_line_bytes: the longest output line; a longer one is read as an
            :class:`~referee.engines.transport.OverlongLine` holding its first
            ``max_line_bytes`` bytes, and the rest of it is dropped.
        write_timeout_s: how long a single :meth:`send` may wait for a full pipe.
        end_line: the command that asks the engine to exit (``END`` in Gomocup,
            ``quit`` in NBoard), sent by :meth:`close` and :func:`referee.engines.registry.close_many`.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str | None = None,
        cwd: str | os.PathLike | None = None,
        send_delay_ms: float = 0,
        log: IO[str] | None = None,
        stderr_path: str | os.PathLike | None = None,
        max_line_bytes: int = MAX_LINE_BYTES,
        write_timeout_s: float = 5.0,
        env: dict[str, str] | None = None,
        log_t0: float | None = None,
        end_line: str = "END",
    ) -> None:
        if not argv:
            raise ValueError("empty engine command line")
        self.argv = [str(a) for a in argv]
        self.name = name or os.path.basename(self.argv[0]) or self.argv[0]
        self.cwd = cwd
        self.send_delay_s = max(0.0, float(send_delay_ms)) / 1000.0
        self.log = log
        self.stderr_path = stderr_path
        self.max_line_bytes = max(1, int(max_line_bytes))
        self.write_timeout_s = write_timeout_s
        self.env = env
        self.end_line = end_line
        self.pid: int | None = None
        #: ``time.monotonic()`` when the last complete output line was received.
        self.last_line_time: float = 0.0
        self._child: Child | None = None
        self._pipes: EnginePipes | None = None
        self._lines: deque[str] = deque()  # at most one chunk's lines: the pipe is read when it is empty
        self._closed = False
        self._t0 = time.monotonic() if log_t0 is None else log_t0
        self._fixed_t0 = log_t0 is not None

    @property
    def bytes_read(self) -> int:
        """Bytes read from the engine's stdout so far."""
        return 0 if self._pipes is None else self._pipes.bytes_read

    # Lifecycle ------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the engine.  Raises :class:`EngineStartError` if it cannot be run."""
        if self._child is not None:
            raise RuntimeError("engine already started")
        self._child = Child(self.argv, self.name, self.cwd, self.env, self.stderr_path)
        self.pid = self._child.pid
        if not self._fixed_t0:
            self._t0 = time.monotonic()
        try:
            self._pipes = EnginePipes(self._child.proc, self.name, self.max_line_bytes, lambda: self.returncode)
        except OSError as exc:  # out of descriptors: do not leave the child running
            self.kill()
            raise EngineStartError(f"{self.name}: cannot watch {self.argv[0]!r}: {exc}") from exc

    def is_alive(self) -> bool:
        """True while the engine process has not exited (does not reap it)."""
        if self._child is None or self._closed:
            return False
        return self._child.peek_exit() is None

    @property
    def returncode(self) -> int | None:
        """Exit status once the process has exited (negative: killed by a signal)."""
        return None if self._child is None else self._child.peek_exit()

    def close(self, grace_s: float = 0.5, send_end: bool = True) -> None:
        """End the engine: send its end line, wait up to ``grace_s``, then kill its process group, reap.

        Idempotent; never raises; safe in ``finally`` blocks, ``atexit`` and
        signal handlers, and from another thread while one reads: that reader
        is woken at once and gets :class:`EngineExited`.
        """
        child = self._child
        if child is None or self._closed:
            return
        self._closed = True
        if self._pipes is not None:
            self._pipes.begin_close()  # first of all: a reader must not sleep through what follows
        try:
            if send_end and child.peek_exit() is None:
                try:
                    self._write_raw(self._end_bytes(), time.monotonic() + 0.1)
                    self._log(">", self.end_line)
                except (EngineError, OSError):
                    pass
                end = time.monotonic() + max(0.0, grace_s)
                while child.peek_exit() is None and time.monotonic() < end:
                    time.sleep(0.005)
        finally:
            child.kill_group()
            child.reap()
            if self._pipes is not None:
                self._pipes.finish_close()

    def close_stdin(self) -> None:
        """Close the engine's stdin (it reads EOF); the process is left to exit by itself."""
        proc = self._require_started().proc
        if proc.stdin is not None and not proc.stdin.closed:
            self._log(">", "<EOF>")
            proc.stdin.close()

    def kill(self) -> None:
        """Kill the engine's process group at once (no end line), then reap.  Idempotent."""
        self.close(grace_s=0.0, send_end=False)

    def __enter__(self) -> "EngineProcess":
        if self._child is None:
            self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # Output ---------------------------------------------------------------------
    def send(self, line: str, eol: str = "\n") -> None:
        """Send one command line (``eol`` is appended: LF, or ``"\r\n"`` as Piskvork sends).

        Waits first so that at least ``send_delay_ms`` separate the engine's
        last output line from this command.  Raises :class:`EngineExited` when
        the engine has gone, :class:`EngineTimeout` when its stdin stays full.
        """
        self.send_many([line], eol)

    def send_many(self, lines: Sequence[str], eol: str = "\n") -> None:
        """Send several command lines in one write (e.g. a ``BOARD`` block), each ended by ``eol``."""
        self._require_started()
        if not lines:
            return
        if self.send_delay_s > 0 and self.last_line_time:
            wait = self.last_line_time + self.send_delay_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        for ln in lines:
            self._log(">", ln.rstrip("\r\n"))
        data = "".join(ln.rstrip("\r\n") + eol for ln in lines).encode("utf-8", errors="replace")
        self._write_raw(data, time.monotonic() + self.write_timeout_s)

    def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (a conformance check's binary garbage); same errors as :meth:`send`."""
        self._require_started()
        self._log(">", data.decode("utf-8", errors="replace").rstrip("\r\n"))
        self._write_raw(data, time.monotonic() + self.write_timeout_s)

    # Input ----------------------------------------------------------------------
    def read_line(self, deadline: float) -> str | None:
        """Next output line (without ``\\r\\n``), or ``None`` once ``deadline`` has passed.

        Lines already read off the pipe are handed out first; past the deadline the
        pipe is looked at once more without waiting (output already written is seen),
        so a call returns by its deadline plus one read of at most :data:`referee.engines.pipes.CHUNK_BYTES`,
        whatever the engine prints.  A line longer than ``max_line_bytes`` comes as an
        :class:`~referee.engines.transport.OverlongLine`.  Raises :class:`EngineExited`
        when the engine closed stdout and every line read has been returned.
        """
        return self._next_line(deadline, True)[0]

    def read_reply(self, deadline: float, is_info: Callable[[str], bool] = gomocup_chatter
                   ) -> tuple[str | None, list[str]]:
        """Next line that is a reply, skipping lines ``is_info`` calls chatter (by default
        Gomocup's ``MESSAGE``/``DEBUG``/``SUGGEST`` and blank lines).

        Returns ``(reply, skipped)``: ``reply`` is ``None`` when the deadline passed first
        (past it, only what the pipe held at one last look is read: an engine that never
        stops printing chatter cannot hold the call); an
        :class:`~referee.engines.transport.OverlongLine` is returned as the reply, chatter
        or not.  ``skipped`` holds the first
        :data:`~referee.engines.transport.MAX_SKIPPED_LINES` chatter lines read meanwhile
        (the rest is dropped).  Raises :class:`EngineExited` (with ``.skipped`` set) when
        the engine is gone.
        """
        skipped: list[str] = []
        late_look = True
        while True:
            try:
                line, late_look = self._next_line(deadline, late_look)
            except EngineExited as exc:
                exc.skipped = skipped  # type: ignore[attr-defined]
                raise
            if line is None:
                return None, skipped
            if isinstance(line, OverlongLine) or not is_info(line):
                return line, skipped
            if len(skipped) < MAX_SKIPPED_LINES:
                skipped.append(line)

    def drain(self) -> list[str]:
        """The output available right now, without waiting (EOF is not an error here).

        At most :data:`~referee.engines.transport.MAX_SKIPPED_LINES` lines are returned
        (the rest is dropped); an :class:`~referee.engines.transport.OverlongLine` ends the
        list.  Reading stops once :data:`DRAIN_BYTES` have arrived, so a flood is not read
        to its end here.
        """
        self._require_started()
        out: list[str] = []
        start = self.bytes_read
        try:
            while True:
                line = self._next_line(time.monotonic(), True)[0]
                if line is None:
                    return out
                if isinstance(line, OverlongLine):
                    out.append(line)
                    return out
                if len(out) < MAX_SKIPPED_LINES:
                    out.append(line)
                if self.bytes_read - start >= DRAIN_BYTES and not self._lines:
                    return out
        except EngineExited:
            return out

    # Internals ------------------------------------------------------------------
    def _next_line(self, deadline: float, late_look: bool) -> tuple[str | None, bool]:
        """The next line, or ``None`` once ``deadline`` passed; ``late_look``: whether the pipe
        may still be looked at once past the deadline (returned: whether it still may)."""
        self._require_started()
        while True:
            if self._lines:
                return self._take_line(), late_look
            if self._pipes.eof:
                raise EngineExited(f"{self.name} exited", self._child.wait_exit_briefly())
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if not late_look:
                    return None, False
                late_look = False
            lines = self._pipes.wait_and_read(max(0.0, remaining))
            if lines:
                self._lines.extend(lines)
                self.last_line_time = time.monotonic()

    def _require_started(self) -> Child:
        if self._child is None or self._pipes is None:
            raise RuntimeError("engine not started")
        return self._child

    def _log(self, direction: str, line: str) -> None:
        if self.log is not None:
            try:
                self.log.write(f"{time.monotonic() - self._t0:9.3f} {self.name} {direction} {line}\n")
            except (OSError, ValueError):
                pass  # a broken log must never break a game

    def _take_line(self) -> str:
        line = self._lines.popleft()
        if isinstance(line, OverlongLine):
            self._log("<", f"{line} [cut: a line of more than {self.max_line_bytes} bytes]")
        else:
            self._log("<", line)
        return line

    def _end_bytes(self) -> bytes:
        return (self.end_line + "\n").encode("utf-8")

    def _write_raw(self, data: bytes, deadline: float) -> None:
        if self._pipes is None:
            raise EngineExited(f"{self.name} is not running", self.returncode)
        self._pipes.write(data, deadline, allow_closed=data == self._end_bytes())
