"""Helpers shared by the referee tests: command lines of the fake brain and process checks."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

FAKE_BRAIN = str(Path(__file__).with_name("fake_brain.py"))
FAKE_NBOARD = str(Path(__file__).with_name("fake_nboard.py"))

#: ``python -m referee`` with Python's own Ctrl-C handling even when this run inherited SIGINT
#: ignored (as a shell's background job does, and its children with it): the interrupt tests
#: must not depend on how pytest was started.
REFEREE = [sys.executable, "-c", "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
           "runpy.run_module('referee', run_name='__main__', alter_sys=True)"]


def fake_argv(*options: str) -> tuple[str, ...]:
    """argv running the fake brain with ``options``."""
    return (sys.executable, FAKE_BRAIN, *options)


def fake_cmd(*options: str) -> str:
    """The same as one shell-quoted command line (for the CLI)."""
    return shlex.join(fake_argv(*options))


def nboard_argv(*options: str) -> tuple[str, ...]:
    """argv running the fake NBoard (Reversi) engine with ``options``."""
    return (sys.executable, FAKE_NBOARD, *options)


def nboard_cmd(*options: str) -> str:
    """The same as one shell-quoted command line (for the CLI)."""
    return shlex.join(nboard_argv(*options))


def running(pid: int) -> bool:
    """True when ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (OSError, IndexError):
        return False


def read_pids(pidfile: Path) -> list[int]:
    if not pidfile.exists():
        return []
    return [int(s) for s in pidfile.read_text().split()]


def assert_all_gone(pids: list[int], within_s: float = 3.0) -> None:
    """Every pid must be gone (or a zombie awaiting its new parent) within ``within_s``."""
    assert pids, "the fake engines wrote no pid: the test would prove nothing"
    end = time.monotonic() + within_s
    while True:
        alive = [p for p in pids if running(p)]
        if not alive:
            return
        if time.monotonic() > end:
            raise AssertionError(f"processes left running: {alive}")
        time.sleep(0.02)


def cmdline(pid: int) -> str:
    """The command line of ``pid`` as one string (``""`` once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (read from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and running(int(entry)):
            out.append(int(entry))
    return out


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid``."""
    out, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out
