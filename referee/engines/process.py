"""One engine as a child process, driven line by line with deadlines (any line protocol).

The referee never trusts an engine, so this wrapper guarantees:

- the child runs in its own session / process group, so :meth:`EngineProcess.close`
  can kill the engine *and everything it spawned* (``killpg``);
- reads never block past a caller's deadline (``selectors`` on the raw pipe,
  no blocking ``readline``), so a silent engine cannot hang the referee;
- huge lines (100 kB and more) and binary garbage are survivable: bytes are
  decoded with ``errors="replace"``, a line longer than ``max_line_bytes`` is cut
  and returned in pieces;
- writes never block forever either: stdin is non-blocking and a write that
  cannot proceed within ``write_timeout_s`` raises :class:`EngineTimeout`;
- the leader process is not reaped before :meth:`close` (its exit is observed
  with ``waitid(..., WNOWAIT)``), so its pid / process-group id cannot be reused
  by an unrelated process while we may still ``killpg`` it.

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

Closing while another thread reads: a reader waits in ``select`` on the
engine's stdout *and* on a private wake pipe.  ``close`` writes to the wake
pipe before it does anything else, so a reader already waiting, or one that
starts waiting afterwards, returns at once.  The descriptors a reader or
writer may be using (the pipes, the selector, the wake pipe) are only closed
once no read or write is in progress: closing a descriptor silently removes it
from an epoll set, so tearing them down under a reader would leave it asleep
until its deadline (and a recycled descriptor number could be read by mistake).
"""

from __future__ import annotations

import errno
from collections import deque
import os
import selectors
import signal
import subprocess
import threading
import time
from typing import IO, Callable, Sequence

from referee.errors import EngineError, EngineExited, EngineStartError, EngineTimeout

__all__ = [
    "EngineProcess",
    "is_info_line",
    "close_many",
    "spawn_failure_text",
    "ProcessRegistry",
]

# Prefixes of output lines that carry no reply (kept as messages, never parsed as moves).
_INFO_PREFIXES = ("MESSAGE", "DEBUG", "SUGGEST")


def is_info_line(line: str) -> bool:
    """True for ``MESSAGE``/``DEBUG``/``SUGGEST`` lines and blank lines: output that is not a reply."""
    s = line.lstrip()
    if not s:
        return True
    head = s.split(None, 1)[0].upper()
    return head in _INFO_PREFIXES


def spawn_failure_text(program: str, exc: BaseException, cwd: str | os.PathLike | None = None) -> str:
    """Why ``program`` could not be spawned, in words a user can act on (``exc``: the spawn's error)."""
    path = os.path.join(cwd, program) if cwd is not None else program
    if isinstance(exc, FileNotFoundError):
        if cwd is not None and not os.path.isdir(cwd):
            return f"its working directory {str(cwd)!r} does not exist"
        if os.sep not in program:
            if os.path.isfile(path):
                return (f"not found on PATH (to run the file {program!r} in the current directory, "
                        f"write ./{program})")
            return "command not found (not a file, and not on PATH)"
        if not os.path.exists(path):
            return "no such file"
        try:  # the file exists, so the missing file is the interpreter named by its #! line
            with open(path, "rb") as f:
                first = f.readline(200)
        except OSError:
            first = b""
        if first.startswith(b"#!"):
            interp = first[2:].decode("utf-8", "replace").strip()
            return f"its interpreter ({interp!r}, from its #! line) was not found"
        return f"{exc.strerror or exc}"
    if isinstance(exc, PermissionError) or getattr(exc, "errno", None) == errno.EACCES:
        if os.path.isdir(path):
            return "it is a directory, not a program"
        return (f"not executable: make it so (chmod +x {program}) or run it through its interpreter, "
                f"e.g. \"python3 {program}\"")
    if getattr(exc, "errno", None) == errno.ENOEXEC:
        if program.lower().endswith(".exe"):
            return f"a Windows program: run it through wine, \"wine {program}\""
        return "not a program this system can run (exec format error; a script needs a #! line)"
    return str(exc)


class EngineProcess:
    """An engine (a Gomocup brain, an NBoard engine) running as a child process.

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
        max_line_bytes: an output line longer than this is returned in pieces of
            this size, so an engine printing endless garbage without a newline
            cannot exhaust memory.
        write_timeout_s: how long a single :meth:`send` may wait for a full pipe.
        end_line: the command that asks the engine to exit (``END`` in Gomocup,
            ``quit`` in NBoard), sent by :meth:`close` and :func:`close_many`.
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
        max_line_bytes: int = 1 << 20,
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
        self._proc: subprocess.Popen | None = None
        self._sel: selectors.BaseSelector | None = None
        self._buf = bytearray()
        self._lines: deque[bytes] = deque()  # a flooding engine must not make reads quadratic
        self._eof = False
        self._closed = False
        # Wake pipe and the count of reads/writes in progress: see the module docstring.
        self._wake_r: int | None = None
        self._wake_w: int | None = None
        self._io_lock = threading.RLock()  # re-entrant: close() may run in a signal handler
        self._io_users = 0
        self._close_done = False
        self._torn_down = False
        self._exit_status: int | None = None
        self._t0 = time.monotonic() if log_t0 is None else log_t0
        self._fixed_t0 = log_t0 is not None

    # Lifecycle ------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the engine.  Raises :class:`EngineStartError` if it cannot be run."""
        if self._proc is not None:
            raise RuntimeError("engine already started")
        err_target: int | IO[bytes] = subprocess.DEVNULL
        err_file = None
        try:
            if self.stderr_path is not None:
                err_file = open(self.stderr_path, "ab")
                err_target = err_file
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err_target,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,  # own process group: killpg reaches grandchildren
                bufsize=0,
                close_fds=True,
            )
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            why = spawn_failure_text(self.argv[0], exc, self.cwd)
            raise EngineStartError(f"{self.name}: cannot start {self.argv[0]!r}: {why}", why) from exc
        finally:
            if err_file is not None:
                err_file.close()
        self.pid = self._proc.pid
        if not self._fixed_t0:
            self._t0 = time.monotonic()
        os.set_blocking(self._proc.stdin.fileno(), False)
        os.set_blocking(self._proc.stdout.fileno(), False)
        try:
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_r, False)
            os.set_blocking(self._wake_w, False)
            self._sel = selectors.DefaultSelector()
            self._sel.register(self._proc.stdout.fileno(), selectors.EVENT_READ)
            self._sel.register(self._wake_r, selectors.EVENT_READ)
        except OSError as exc:  # out of descriptors: do not leave the child running
            self.kill()
            raise EngineStartError(f"{self.name}: cannot watch {self.argv[0]!r}: {exc}") from exc

    def is_alive(self) -> bool:
        """True while the engine process has not exited (does not reap it)."""
        if self._proc is None or self._closed:
            return False
        return self._peek_exit() is None

    @property
    def returncode(self) -> int | None:
        """Exit status once the process has exited (negative: killed by a signal)."""
        if self._proc is None:
            return None
        if self._proc.returncode is not None:
            return self._proc.returncode
        return self._peek_exit()

    def close(self, grace_s: float = 0.5, send_end: bool = True) -> None:
        """End the engine: send its end line, wait up to ``grace_s``, then kill its process group, reap.

        Idempotent; never raises; safe in ``finally`` blocks, ``atexit`` and
        signal handlers, and from another thread while one reads: that reader
        is woken at once and gets :class:`EngineExited`.
        """
        if self._proc is None or self._closed:
            return
        self._closed = True
        self._wake()  # first of all: a reader must not sleep through what follows
        proc = self._proc
        try:
            if send_end and self._peek_exit() is None:
                try:
                    self._write_raw(self._end_bytes(), time.monotonic() + 0.1)
                    self._log(">", self.end_line)
                except (EngineError, OSError):
                    pass
                end = time.monotonic() + max(0.0, grace_s)
                while self._peek_exit() is None and time.monotonic() < end:
                    time.sleep(0.005)
        finally:
            self._kill_group()
            try:
                proc.wait(timeout=5)
            except (subprocess.TimeoutExpired, OSError):
                pass  # unkillable (D state); nothing more we can do
            with self._io_lock:
                self._close_done = True
                if self._io_users == 0:
                    self._teardown()
                # else: the last read or write still running tears down when it leaves

    def close_stdin(self) -> None:
        """Close the engine's stdin (it reads EOF); the process is left to exit by itself."""
        self._require_started()
        assert self._proc is not None
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            self._log(">", "<EOF>")
            self._proc.stdin.close()

    def kill(self) -> None:
        """Kill the engine's process group at once (no end line), then reap.  Idempotent."""
        self.close(grace_s=0.0, send_end=False)

    def __enter__(self) -> "EngineProcess":
        if self._proc is None:
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
        self._require_started()
        if self.send_delay_s > 0 and self.last_line_time:
            wait = self.last_line_time + self.send_delay_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        data = (line.rstrip("\r\n") + eol).encode("utf-8", errors="replace")
        self._log(">", line.rstrip("\r\n"))
        self._write_raw(data, time.monotonic() + self.write_timeout_s)

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
            self._log(">", ln)
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

        Raises :class:`EngineExited` when the engine closed stdout and every
        buffered line has been returned.
        """
        self._require_started()
        while True:
            if self._lines:
                return self._take_line()
            if self._eof:
                raise EngineExited(f"{self.name} exited", self._wait_exit_briefly())
            if self._sel is None or not self._enter_io():
                raise EngineExited(f"{self.name} was closed", self.returncode)
            try:
                remaining = deadline - time.monotonic()
                # Even with the deadline gone, look at the pipe once without waiting:
                # output already written must be seen (drain() relies on it).
                ready = self._sel.select(max(0.0, remaining))
                if any(key.fd == self._wake_r for key, _ in ready):
                    raise EngineExited(f"{self.name} was closed", self.returncode)
                if ready:
                    self._fill()
            except (OSError, ValueError) as exc:  # not expected: the descriptors outlive the read
                raise EngineExited(f"{self.name} was closed", self.returncode) from exc
            finally:
                self._leave_io()
            if not ready and remaining <= 0:
                return None

    def read_reply(self, deadline: float, is_info: Callable[[str], bool] = is_info_line
                   ) -> tuple[str | None, list[str]]:
        """Next line that is a reply, skipping lines ``is_info`` calls chatter (by default
        Gomocup's ``MESSAGE``/``DEBUG``/``SUGGEST`` and blank lines).

        Returns ``(reply, skipped)``: ``reply`` is ``None`` when the deadline
        passed first; ``skipped`` holds the informational lines read meanwhile.
        Raises :class:`EngineExited` (with ``.skipped`` set) when the engine is gone.
        """
        skipped: list[str] = []
        while True:
            try:
                line = self.read_line(deadline)
            except EngineExited as exc:
                exc.skipped = skipped  # type: ignore[attr-defined]
                raise
            if line is None:
                return None, skipped
            if is_info(line):
                skipped.append(line)
                continue
            return line, skipped

    def drain(self) -> list[str]:
        """Every output line available right now, without waiting (EOF is not an error here)."""
        out: list[str] = []
        try:
            while True:
                line = self.read_line(time.monotonic())
                if line is None:
                    return out
                out.append(line)
        except EngineExited:
            return out

    # Internals ------------------------------------------------------------------
    def _require_started(self) -> None:
        if self._proc is None:
            raise RuntimeError("engine not started")

    def _log(self, direction: str, line: str) -> None:
        if self.log is not None:
            try:
                self.log.write(f"{time.monotonic() - self._t0:9.3f} {self.name} {direction} {line}\n")
            except (OSError, ValueError):
                pass  # a broken log must never break a game

    def _take_line(self) -> str:
        raw = self._lines.popleft()
        text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        self._log("<", text)
        return text

    def _fill(self) -> None:
        """Read what the pipe holds and split it into lines."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
                break
            self._buf += chunk
            if len(chunk) < 65536:
                break
        now = time.monotonic()
        buf = self._buf
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            self._lines.append(bytes(buf[start:nl]))
            start = nl + 1
        if start:
            del buf[:start]
        while len(buf) >= self.max_line_bytes:
            self._lines.append(bytes(buf[: self.max_line_bytes]))
            del buf[: self.max_line_bytes]
        if self._eof and buf:
            self._lines.append(bytes(buf))
            buf.clear()
        if self._lines:
            self.last_line_time = now
        if self._eof and self._sel is not None:
            try:
                self._sel.unregister(fd)
            except (KeyError, ValueError, OSError):
                pass

    def _end_bytes(self) -> bytes:
        return (self.end_line + "\n").encode("utf-8")

    def _write_raw(self, data: bytes, deadline: float) -> None:
        proc = self._proc
        if proc is None or not self._enter_io(allow_closed=data == self._end_bytes()):
            raise EngineExited(f"{self.name} is not running", self.returncode)
        try:
            if proc.stdin is None or proc.stdin.closed:
                raise EngineExited(f"{self.name} is not running", self.returncode)
            self._write_fd(proc.stdin.fileno(), data, deadline)
        finally:
            self._leave_io()

    def _write_fd(self, fd: int, data: bytes, deadline: float) -> None:
        """Write all of ``data`` to the non-blocking ``fd`` before ``deadline``."""
        view = memoryview(data)
        wsel = None
        try:
            while view:
                try:
                    n = os.write(fd, view)
                    view = view[n:]
                    continue
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError) as exc:
                    raise EngineExited(f"{self.name} closed its input", self.returncode) from exc
                except OSError as exc:
                    if exc.errno in (errno.EPIPE, errno.EBADF):
                        raise EngineExited(f"{self.name} closed its input", self.returncode) from exc
                    raise EngineExited(f"{self.name}: write failed: {exc}", self.returncode) from exc
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise EngineTimeout(f"{self.name} does not read its input")
                if wsel is None:
                    wsel = selectors.DefaultSelector()
                    wsel.register(fd, selectors.EVENT_WRITE)
                wsel.select(min(remaining, 0.05))
        finally:
            if wsel is not None:
                wsel.close()

    def _enter_io(self, allow_closed: bool = False) -> bool:
        """Count a read or write as in progress; False when the engine is closed (or torn down)."""
        with self._io_lock:
            if self._torn_down or (self._closed and not allow_closed):
                return False
            self._io_users += 1
            return True

    def _leave_io(self) -> None:
        with self._io_lock:
            self._io_users -= 1
            if self._close_done and self._io_users == 0:
                self._teardown()

    def _wake(self) -> None:
        """Make the wake pipe readable (it is never drained: once closed, always closed)."""
        if self._wake_w is not None:
            try:
                os.write(self._wake_w, b"!")
            except OSError:
                pass

    def _teardown(self) -> None:
        """Close every descriptor; only with no read or write in progress (caller holds the lock)."""
        if self._torn_down:
            return
        self._torn_down = True
        proc = self._proc
        for stream in ((proc.stdin, proc.stdout) if proc is not None else ()):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self._sel is not None:
            try:
                self._sel.close()
            except (OSError, ValueError):
                pass
        for fd in (self._wake_r, self._wake_w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _peek_exit(self) -> int | None:
        """Exit status if the leader has exited, without reaping it (keeps the pgid reserved)."""
        proc = self._proc
        if proc is None:
            return None
        if proc.returncode is not None:
            return proc.returncode
        if self._exit_status is not None:
            return self._exit_status
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return proc.poll()
        except OSError:
            return None
        if info is None:
            return None
        if info.si_code == os.CLD_EXITED:
            self._exit_status = info.si_status
        else:
            self._exit_status = -info.si_status
        return self._exit_status

    def _wait_exit_briefly(self, timeout_s: float = 0.2) -> int | None:
        end = time.monotonic() + timeout_s
        while True:
            code = self._peek_exit()
            if code is not None or time.monotonic() >= end:
                return code
            time.sleep(0.005)

    def _kill_group(self) -> None:
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return  # already reaped: the pgid may belong to someone else now
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            try:
                proc.kill()
            except OSError:
                pass
        except OSError:
            pass


def close_many(engines: Sequence["EngineProcess"], grace_s: float = 0.5) -> None:
    """Close several engines at once: the end line to all, one shared grace period, then kill and reap each.

    Never raises.  Faster than closing them one by one when they exit promptly.
    """
    live = [e for e in engines if e is not None and e.is_alive()]
    for e in live:
        try:
            e.send(e.end_line)
        except (EngineError, OSError, RuntimeError):
            pass
    end = time.monotonic() + max(0.0, grace_s)
    while time.monotonic() < end and any(e.is_alive() for e in live):
        time.sleep(0.005)
    for e in engines:
        if e is not None:
            e.close(grace_s=0.0, send_end=False)


class ProcessRegistry:
    """Every live engine process of a match, so an interrupt can kill them all.

    One instance per match (no module-level state).  Thread-safe; ``kill_all``
    may be called from the main thread while workers run games.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._procs: set[EngineProcess] = set()

    def add(self, proc: EngineProcess) -> None:
        with self._lock:
            self._procs.add(proc)

    def discard(self, proc: EngineProcess) -> None:
        with self._lock:
            self._procs.discard(proc)

    def __len__(self) -> int:
        with self._lock:
            return len(self._procs)

    def kill_all(self) -> None:
        """Kill and reap every registered process (their whole process groups)."""
        with self._lock:
            procs = list(self._procs)
            self._procs.clear()
        for p in procs:
            p.kill()
