"""The I/O loop in-process, over OS pipes, with a searcher double that thinks until stopped."""

from __future__ import annotations

import os
import queue
import threading
import time

import re

import pytest

from engine.search.limits import SearchResult
from engine.timecontrol import turn_budget_ms
from protocol.gomocup.loop import MAX_LINE_BYTES, BrainLoop, LineReader
from protocol.gomocup.position import quick_move
from protocol.gomocup.session import Session, SessionOptions

from support.loop_harness import harness_fixture

MOVE_RE = re.compile(r"^\d+,\d+$")


class ThinkUntilStopped:
    """Searches until ``stop`` is set (at most 20 s, so a broken test cannot hang)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.stopped_by_event = False

    def search(self, board, limits, stop=None):
        self.started.set()
        self.stopped_by_event = bool(stop is not None and stop.wait(20))
        move = quick_move(board)
        return SearchResult(move=move, pv=[move], reason="stopped")


harness = harness_fixture(lambda fd, out, thinker: BrainLoop(
    Session(SessionOptions(default_turn_ms=None), lambda config: thinker), fd, out))


def test_yxstop_answers_the_running_search(harness):
    thinker = ThinkUntilStopped()
    h = harness(thinker)
    h.send("START 15", "BEGIN")
    assert h.line() == "OK"
    assert thinker.started.wait(10)
    h.send("YXSTOP")
    messages, move = h.reply()
    assert messages and move == "7,7"
    assert thinker.stopped_by_event


def test_end_during_search_stops_it_answers_what_came_before_and_exits(harness):
    thinker = ThinkUntilStopped()
    h = harness(thinker)
    h.send("START 15", "BEGIN")
    assert h.line() == "OK"
    assert thinker.started.wait(10)
    h.send("TURN 0,0", "END")  # TURN is queued behind the search, END comes last
    assert h.code.get(timeout=5) == 0
    out = [ln for ln in h.pending_output().decode().splitlines() if not ln.startswith("MESSAGE")]
    assert out == ["7,7", out[1]] and out[1] != "7,7"  # BEGIN's move, then TURN's, nothing after
    assert thinker.stopped_by_event


def test_a_piped_session_ending_in_end_prints_every_move(harness):
    h = harness(ThinkUntilStopped())
    h.send("START 15", "BEGIN", "TURN 8,8", "TURN 9,9", "END")
    assert h.code.get(timeout=10) == 0
    out = [ln for ln in h.pending_output().decode().splitlines() if not ln.startswith("MESSAGE")]
    assert out[0] == "OK" and len(out) == 4 and all("," in ln for ln in out[1:])


def test_lines_during_search_wait_for_the_move(harness):
    thinker = ThinkUntilStopped()
    h = harness(thinker)
    h.send("START 15", "BEGIN")
    assert h.line() == "OK"
    assert thinker.started.wait(10)
    h.send("ABOUT", "TURN 0,0")  # queued behind the search
    thinker.started.clear()
    h.send("STOP")
    messages, move = h.reply()
    assert messages and move == "7,7"
    assert h.line().startswith('name="pbrain-mcts"')
    assert thinker.started.wait(10)  # TURN started the next search
    h.send("END")
    assert h.code.get(timeout=5) == 0


def test_eof_when_idle_exits_zero(harness):
    h = harness(ThinkUntilStopped())
    h.send("START 15")
    assert h.line() == "OK"
    os.close(h.w_in)
    assert h.code.get(timeout=5) == 0


def _read_all(data: bytes, chunks: int = 1) -> list[tuple]:
    r, w = os.pipe()
    events: "queue.Queue[tuple]" = queue.Queue()
    reader = LineReader(r, events, time.monotonic())
    reader.start()
    step = max(1, len(data) // chunks)
    for i in range(0, len(data), step):
        os.write(w, data[i:i + step])
    os.close(w)
    out = []
    while True:
        ev = events.get(timeout=10)
        out.append(ev[:2])
        if ev[0] == "eof":
            os.close(r)
            return out


def test_reader_splits_lines_strips_cr_and_replaces_bad_bytes():
    got = _read_all(b"START 15\r\nTURN 1,2\n\xff\xfeX\n\nlast", chunks=7)
    assert got == [("line", "START 15"), ("line", "TURN 1,2"), ("line", "\ufffd\ufffdX"), ("line", ""),
                   ("line", "last"), ("eof", None)]


def test_reader_refuses_over_long_lines_and_carries_on():
    long = b"A" * (MAX_LINE_BYTES + 5)
    got = _read_all(long + b"\nOK\n", chunks=40)
    assert got == [("toolong", MAX_LINE_BYTES + 5), ("line", "OK"), ("eof", None)]


@pytest.mark.slow
def test_reader_stamps_arrival_times():
    """Arrival is when the bytes came, not when the line is handled (never later than that)."""
    r, w = os.pipe()
    events: "queue.Queue[tuple]" = queue.Queue()
    LineReader(r, events, time.monotonic()).start()
    os.write(w, b"TURN 1,1\n")
    time.sleep(0.3)
    written = time.monotonic()
    os.write(w, b"TURN 2,2\n")
    first = events.get(timeout=10)
    second = events.get(timeout=10)
    handled = time.monotonic()
    os.close(w)
    assert first[1] == "TURN 1,1" and second[1] == "TURN 2,2"
    assert first[2] <= written - 0.25 and second[2] <= handled
    assert second[2] - first[2] >= 0.25


class NeverReturns:
    """A broken searcher: ignores its deadline and its stop event for 5 s."""

    def __init__(self) -> None:
        self.calls = 0
        self.saw_stop = threading.Event()

    def search(self, board, limits, stop=None):
        self.calls += 1
        end = time.monotonic() + 5
        while time.monotonic() < end:
            if stop is not None and stop.is_set():
                self.saw_stop.set()
            time.sleep(0.005)
        move = quick_move(board)
        return SearchResult(move=move, pv=[move])


@pytest.mark.slow
def test_watchdog_answers_on_time_when_the_search_overruns(harness):
    thinker = NeverReturns()
    h = harness(thinker)
    h.send("INFO timeout_turn 200", "START 15")
    assert h.line() == "OK"
    t0 = time.monotonic()
    h.send("TURN 7,7")
    messages, move = h.reply()
    elapsed = time.monotonic() - t0
    assert any("did not return in time" in m for m in messages) and move == "7,6"
    assert elapsed < 0.2 + 1.0  # generous on a loaded machine; the watchdog fires at ~0.205 s
    assert thinker.saw_stop.wait(2)
    # the game goes on with a fresh searcher (the stuck one is never shared)
    h.send("TURN 0,0")
    messages, move = h.reply()
    assert any("did not return in time" in m for m in messages) and MOVE_RE.match(move)
    h.send("END")
    assert h.code.get(timeout=5) == 0


class RecordsLimits:
    """Answers at once and keeps the limits of every search."""

    def __init__(self) -> None:
        self.limits = []

    def search(self, board, limits, stop=None):
        self.limits.append(limits)
        move = quick_move(board)
        return SearchResult(move=move, pv=[move])


@pytest.mark.slow
def test_a_board_block_typed_slowly_is_timed_from_done(harness):
    """Lines stamped by the real reader: a block whose DONE comes 0.6 s after BOARD gets a
    deadline counted from DONE (only a lower bound is asserted: no upper timing limit)."""
    thinker = RecordsLimits()
    h = harness(thinker)
    h.send("INFO timeout_turn 1000", "START 15")
    assert h.line() == "OK"
    h.send("BOARD", "7,7,2")
    time.sleep(0.6)
    done_sent = time.monotonic()
    h.send("DONE")
    messages, move = h.reply()
    assert messages and MOVE_RE.match(move)
    assert thinker.limits[0].deadline >= done_sent + turn_budget_ms(1000) / 1000
    h.send("END")
    assert h.code.get(timeout=5) == 0
