"""A protocol program's I/O loop run on a thread against OS pipes: lines in, lines out
(shared by the Gomocup and NBoard loop tests)."""

from __future__ import annotations

import os
import queue
import select
import threading
import time
from typing import Any, BinaryIO, Callable

import pytest


class LoopHarness:
    """``make_loop(input fd, output stream)`` builds the loop; :meth:`send` writes lines to
    its input, :meth:`line` reads one of its output lines; ``code`` gets what ``run`` returned."""

    def __init__(self, make_loop: Callable[[int, BinaryIO], Any]) -> None:
        self.r_in, self.w_in = os.pipe()
        self.r_out, w_out = os.pipe()
        self.out = os.fdopen(w_out, "wb")
        self.loop = make_loop(self.r_in, self.out)
        self.code: "queue.Queue[int]" = queue.Queue()
        self.thread = threading.Thread(target=lambda: self.code.put(self.loop.run()), daemon=True)
        self.thread.start()
        self.buf = b""

    def send(self, *lines: str) -> None:
        os.write(self.w_in, "".join(ln + "\n" for ln in lines).encode())

    def send_raw(self, data: bytes) -> None:
        os.write(self.w_in, data)

    def line(self, timeout: float = 10.0) -> str:
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            assert left > 0, "no output"
            ready, _, _ = select.select([self.r_out], [], [], left)
            if ready:
                chunk = os.read(self.r_out, 1 << 16)
                assert chunk, "output closed"
                self.buf += chunk
        text, self.buf = self.buf.split(b"\n", 1)
        return text.decode()

    def lines_until(self, prefix: str) -> list[str]:
        """Lines up to and including the first that starts with ``prefix``."""
        out = [self.line()]
        while not out[-1].startswith(prefix):
            out.append(self.line())
        return out

    def reply(self) -> tuple[list[str], str]:
        """The MESSAGE lines before the next other line, and that line."""
        messages = []
        line = self.line()
        while line.startswith("MESSAGE"):
            messages.append(line)
            line = self.line()
        return messages, line

    def pending_output(self) -> bytes:
        ready, _, _ = select.select([self.r_out], [], [], 0.2)
        return os.read(self.r_out, 4096) if ready else b""

    def close_input(self) -> None:
        os.close(self.w_in)
        self.w_in = -1

    def close(self) -> None:
        for fd in (self.w_in, self.r_out):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass


def harness_fixture(make_loop: Callable[..., Any]):
    """A pytest fixture giving ``make(*args)``: a :class:`LoopHarness` whose loop is
    ``make_loop(input fd, output stream, *args)``, closed after the test."""

    @pytest.fixture
    def harness():
        made = []

        def make(*args, **kw):
            h = LoopHarness(lambda fd, out: make_loop(fd, out, *args, **kw))
            made.append(h)
            return h

        yield make
        for h in made:
            h.close()

    return harness
