"""The engine's child process itself: spawned in its own session, its exit seen without
reaping it, its whole process group killed, and a failed spawn said in words a user can act on.

The leader is not reaped before the owner's close (its exit is observed with
``waitid(..., WNOWAIT)``), so its pid / process-group id cannot be reused by an
unrelated process while the referee may still ``killpg`` it.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import time
from typing import IO, Sequence

from referee.errors import EngineStartError

__all__ = ["Child", "spawn_failure_text"]


class Child:
    """A spawned engine process (stdin and stdout are non-blocking pipes)."""

    def __init__(self, argv: Sequence[str], name: str, cwd: str | os.PathLike | None,
                 env: dict[str, str] | None, stderr_path: str | os.PathLike | None) -> None:
        """Spawn ``argv``; :class:`EngineStartError` (with the reason in words) when it cannot run."""
        err_target: int | IO[bytes] = subprocess.DEVNULL
        err_file = None
        try:
            if stderr_path is not None:
                err_file = open(stderr_path, "ab")
                err_target = err_file
            self.proc = subprocess.Popen(
                list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err_target, cwd=cwd, env=env,
                start_new_session=True,  # own process group: killpg reaches grandchildren
                bufsize=0, close_fds=True,
            )
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            why = spawn_failure_text(argv[0], exc, cwd)
            raise EngineStartError(f"{name}: cannot start {argv[0]!r}: {why}", why) from exc
        finally:
            if err_file is not None:
                err_file.close()
        self.pid = self.proc.pid
        self._exit_status: int | None = None

    def peek_exit(self) -> int | None:
        """Exit status if the leader has exited, without reaping it (keeps the pgid reserved)."""
        proc = self.proc
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
        self._exit_status = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        return self._exit_status

    def wait_exit_briefly(self, timeout_s: float = 0.2) -> int | None:
        """The exit status once known, waiting at most ``timeout_s`` for it."""
        end = time.monotonic() + timeout_s
        while True:
            code = self.peek_exit()
            if code is not None or time.monotonic() >= end:
                return code
            time.sleep(0.005)

    def kill_group(self) -> None:
        """SIGKILL the whole process group (grandchildren included), unless already reaped."""
        proc = self.proc
        if proc.returncode is not None:
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

    def reap(self) -> None:
        """Wait for the killed leader (bounded: an unkillable one in D state is left)."""
        try:
            self.proc.wait(timeout=5)
        except (subprocess.TimeoutExpired, OSError):
            pass


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
