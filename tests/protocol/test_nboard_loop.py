"""The NBoard engine's I/O loop in-process, over OS pipes, with an engine double that
searches until it is stopped."""

from __future__ import annotations

import select
import threading
import time

import pytest

from engine.search.limits import RootMove, SearchResult
from protocol.nboard.game import quick_move
from protocol.nboard.loop import MAX_LINE_BYTES, NBoardLoop
from protocol.nboard.session import Session, SessionOptions

from support.loop_harness import harness_fixture


class UntilStopped:
    """Searches until ``stop`` is set (at most 20 s, so a broken test cannot hang)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.stopped = False
        self.searches = 0

    def _wait(self, stop) -> None:
        self.searches += 1
        self.started.set()
        self.stopped = bool(stop is not None and stop.wait(20))

    def search(self, state, limits, stop=None):
        self._wait(stop)
        move = quick_move(state)
        return SearchResult(move=move, pv=[move], nodes=7, reason="stop")

    def rank_moves(self, state, limits, count=None, stop=None):
        self._wait(stop)
        return [RootMove(m, pv=[m]) for m in state.legal_moves()][:count]

    # the thinker's side (protocol.engines.LazyEngine's methods)
    def engine(self, limits, stop=None):
        return self, ""

    def quick(self, state, why):
        return SearchResult(move=quick_move(state), reason=why)


def _loop(fd, out, engine, **options) -> NBoardLoop:
    return NBoardLoop(Session(SessionOptions(**options), lambda config: engine), fd, out)


_harness = harness_fixture(_loop)


@pytest.fixture
def harness(_harness):
    """``make(engine, **session options)``: a harness past the engine's ``set myname``."""

    def make(engine, **options):
        h = _harness(engine, **options)
        assert h.line() == "set myname nboard-mcts"
        return h

    return make


def test_a_ping_during_a_search_is_answered_after_the_move(harness):
    engine = UntilStopped()
    h = harness(engine, move_ms=300)
    h.send("go")
    assert engine.started.wait(10)
    h.send("ping 1")
    out = h.lines_until("pong")
    assert out[0] == "status thinking" and out[-1] == "pong 1"
    assert [line.split()[0] for line in out] == ["status", "nodestats", "===", "status", "pong"]
    assert engine.stopped  # the deadline's watchdog told it to answer


def test_a_go_runs_to_its_time_but_a_new_position_stops_a_hint(harness):
    engine = UntilStopped()
    h = harness(engine, move_ms=60_000)
    h.send("hint 2")
    assert engine.started.wait(10)
    t0 = time.monotonic()
    h.send("move d3", "ping 1")
    out = h.lines_until("pong")
    assert time.monotonic() - t0 < 5 and engine.stopped
    assert [line for line in out if line.startswith("search")] == ["search D3 0.00 0 0", "search C4 0.00 0 0"]
    engine.started.clear()
    engine.stopped = False
    h.send("go")  # white to move after d3
    assert engine.started.wait(10) and h.line() == "status thinking"
    h.send("set game (;GM[Othello];)", "ping 2")
    time.sleep(0.3)
    assert not h.buf and not select.select([h.r_out], [], [], 0)[0]  # the go is still thinking
    assert not engine.stopped
    h.send("quit")
    out = h.lines_until("pong")
    assert any(line.startswith("=== ") for line in out) and out[-1] == "pong 2"
    assert h.code.get(timeout=5) == 0


def test_eof_during_a_search_answers_at_once_and_exits(harness):
    engine = UntilStopped()
    h = harness(engine, move_ms=60_000)
    h.send("go", "ping 1", "go")
    assert engine.started.wait(10)
    t0 = time.monotonic()
    h.close_input()
    assert h.code.get(timeout=5) == 0 and time.monotonic() - t0 < 2
    out = h.lines_until("pong") + h.lines_until("===")
    assert sum(line.startswith("=== ") for line in out) == 2 and "pong 1" in out


def test_quit_during_a_search_exits(harness):
    engine = UntilStopped()
    h = harness(engine, move_ms=60_000)
    h.send("go")
    assert engine.started.wait(10)
    h.send("quit")
    assert h.code.get(timeout=5) == 0 and engine.stopped
    assert h.lines_until("===")[-1].startswith("=== ")


def test_eof_when_idle_exits_zero(harness):
    h = harness(UntilStopped())
    h.close_input()
    assert h.code.get(timeout=5) == 0


def test_over_long_lines_and_binary_bytes_get_a_status_and_the_engine_goes_on(harness):
    h = harness(UntilStopped())
    h.send("x" * 100_000)
    assert h.line() == f"status ignored a line of 100000 bytes (the limit is {MAX_LINE_BYTES})"
    h.send("set game (;GM[Othello]" + "PB[x]" * 20_000 + ";)")
    assert h.line().startswith("status ignored a line of")
    h.send_raw(b"\xff\xfe\x00\x01go\r\n")
    assert h.line().startswith("status ignored a line with unreadable bytes")
    h.send("ping 1")
    assert h.line() == "pong 1"


def test_an_internal_error_is_a_status_line_not_a_traceback(harness, monkeypatch):
    h = harness(UntilStopped())

    def broken(line, arrival=None):
        raise KeyError("bug")

    monkeypatch.setattr(h.loop.session, "feed", broken)
    h.send("ping 1")
    line = h.line()
    assert line.startswith("status internal error on 'ping 1': KeyError") and "Traceback" not in line
