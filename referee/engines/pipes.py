"""The pipes of one engine process: its stdin and stdout, made non-blocking, and a wake pipe.

A reader waits in ``select`` on the engine's stdout *and* on the private wake pipe.
``close`` (:meth:`EnginePipes.begin_close`) writes to the wake pipe before it does
anything else, so a reader already waiting, or one that starts waiting afterwards,
returns at once.  The descriptors a reader or writer may be using (the pipes, the
selector, the wake pipe) are only closed once no read or write is in progress:
closing a descriptor silently removes it from an epoll set, so tearing them down
under a reader would leave it asleep until its deadline (and a recycled descriptor
number could be read by mistake).

Reads take at most :data:`CHUNK_BYTES` at a time and go through a
:class:`~referee.engines.transport.LineSplitter`, so what is held between reads is
bounded by the line cap.
"""

from __future__ import annotations

import errno
import os
import selectors
import subprocess
import threading
import time
from typing import Callable

from referee.engines.transport import LineSplitter
from referee.errors import EngineExited, EngineTimeout

__all__ = ["EnginePipes", "CHUNK_BYTES"]

#: One read of the engine's pipe takes at most this much (the pipe's usual capacity).
CHUNK_BYTES = 65536


class EnginePipes:
    """The non-blocking stdin/stdout of ``proc`` and the wake pipe that interrupts a reader.

    ``name`` labels errors; ``returncode()`` gives the exit status for them.  Raises
    ``OSError`` when the descriptors cannot be made (the caller kills the process).
    """

    def __init__(self, proc: subprocess.Popen, name: str, max_line_bytes: int,
                 returncode: Callable[[], int | None]) -> None:
        self.proc = proc
        self.name = name
        self._returncode = returncode
        self.splitter = LineSplitter(max_line_bytes)
        #: The engine closed its stdout.
        self.eof = False
        #: Bytes read from the engine's stdout so far.
        self.bytes_read = 0
        self.sel: selectors.BaseSelector | None = None
        self._wake_r: int | None = None
        self._wake_w: int | None = None
        self._lock = threading.RLock()  # re-entrant: close() may run in a signal handler
        self._users = 0  # reads and writes in progress
        self._closed = False
        self._close_done = False
        self._torn_down = False
        try:
            os.set_blocking(proc.stdin.fileno(), False)
            os.set_blocking(proc.stdout.fileno(), False)
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_r, False)
            os.set_blocking(self._wake_w, False)
            self.sel = selectors.DefaultSelector()
            self.sel.register(proc.stdout.fileno(), selectors.EVENT_READ)
            self.sel.register(self._wake_r, selectors.EVENT_READ)
        except OSError:  # out of descriptors: give back the ones made
            self._teardown()
            raise

    # Reading --------------------------------------------------------------------------
    def wait_and_read(self, timeout_s: float) -> list[str]:
        """Wait up to ``timeout_s`` for output and read one chunk of it: the lines it completes
        (the last, unfinished one at EOF; see :attr:`eof`).  :class:`EngineExited` once closed."""
        if not self._enter():
            raise EngineExited(f"{self.name} was closed", self._returncode())
        try:
            ready = self.sel.select(timeout_s)
            if any(key.fd == self._wake_r for key, _ in ready):
                raise EngineExited(f"{self.name} was closed", self._returncode())
            return self._read_chunk() if ready else []
        except (OSError, ValueError) as exc:  # not expected: the descriptors outlive the read
            raise EngineExited(f"{self.name} was closed", self._returncode()) from exc
        finally:
            self._leave()

    def _read_chunk(self) -> list[str]:
        fd = self.proc.stdout.fileno()
        try:
            chunk = os.read(fd, CHUNK_BYTES)
        except BlockingIOError:
            return []
        except OSError:
            chunk = b""
        if chunk:
            self.bytes_read += len(chunk)
            return self.splitter.feed(chunk)
        self.eof = True
        try:
            self.sel.unregister(fd)
        except (KeyError, ValueError, OSError):
            pass
        return self.splitter.finish()

    # Writing --------------------------------------------------------------------------
    def write(self, data: bytes, deadline: float, allow_closed: bool = False) -> None:
        """Write all of ``data`` before ``deadline``: :class:`EngineExited` when the engine has
        gone (or is closed, unless ``allow_closed``: the end line), :class:`EngineTimeout` when
        it does not read."""
        if not self._enter(allow_closed):
            raise EngineExited(f"{self.name} is not running", self._returncode())
        try:
            stdin = self.proc.stdin
            if stdin is None or stdin.closed:
                raise EngineExited(f"{self.name} is not running", self._returncode())
            self._write_all(stdin.fileno(), data, deadline)
        finally:
            self._leave()

    def _write_all(self, fd: int, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        wsel = None
        try:
            while view:
                try:
                    view = view[os.write(fd, view):]
                    continue
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError) as exc:
                    raise EngineExited(f"{self.name} closed its input", self._returncode()) from exc
                except OSError as exc:
                    if exc.errno in (errno.EPIPE, errno.EBADF):
                        raise EngineExited(f"{self.name} closed its input", self._returncode()) from exc
                    raise EngineExited(f"{self.name}: write failed: {exc}", self._returncode()) from exc
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

    # Closing --------------------------------------------------------------------------
    def begin_close(self) -> None:
        """No new read or write may start (but the end line); wake a reader at once."""
        self._closed = True
        if self._wake_w is not None:
            try:
                os.write(self._wake_w, b"!")  # never drained: once closed, always closed
            except OSError:
                pass

    def finish_close(self) -> None:
        """The process is gone: close every descriptor now, or when the last read or write leaves."""
        with self._lock:
            self._close_done = True
            if self._users == 0:
                self._teardown()

    def _enter(self, allow_closed: bool = False) -> bool:
        """Count a read or write as in progress; False when closed (or torn down)."""
        with self._lock:
            if self._torn_down or (self._closed and not allow_closed):
                return False
            self._users += 1
            return True

    def _leave(self) -> None:
        with self._lock:
            self._users -= 1
            if self._close_done and self._users == 0:
                self._teardown()

    def _teardown(self) -> None:
        """Close every descriptor; only with no read or write in progress (caller holds the lock)."""
        if self._torn_down:
            return
        self._torn_down = True
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self.sel is not None:
            try:
                self.sel.close()
            except (OSError, ValueError):
                pass
        for fd in (self._wake_r, self._wake_w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
