"""No engine can exhaust the referee: engines that print without end, at the start, in the
middle of a game and after their move, in both protocols, each get their verdict by their
deadline while the referee's memory stays flat.

The line rule is tested without processes; the process layer with a flooding child; the
referee as a whole by running ``python -m referee`` (short deadlines) under a small wrapper
that reports the peak resident memory of its children (the referee and the engines it
reaped), compared with the same wrapper around ``python -m referee --version``.  Before the
read deadlines and the line cap, these commands never ended and grew by ~100 MB a second."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from support.fakes import fake_cmd, nboard_cmd
from referee.engines.process import EngineProcess
from referee.engines.transport import MAX_LINE_BYTES, MAX_SKIPPED_LINES, LineSplitter, OverlongLine

slow = pytest.mark.slow  # the tests that start processes

#: Run argv[1:], then print the peak RSS (kB) of every process it waited for: the referee,
#: and through it the engines it reaped.
_PEAK = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
         "print('PEAK_KB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
         "sys.exit(r.returncode)")
#: The referee may use this much more memory for a flood game than to print its version.
GROWTH_LIMIT_KB = 50 * 1024
TURN_MS, TOLERANCE_MS, START_MS = 800, 200, 800
#: Slack on top of a deadline for starting Python, the other engine's moves and closing,
#: on a loaded machine (before the fix these commands did not end at all).
MARGIN_S = 6.0


def run_referee(*args: str) -> tuple[subprocess.CompletedProcess, int, float]:
    """``python -m referee ARGS`` under the peak-memory wrapper: (process, peak kB, seconds)."""
    t = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", _PEAK, sys.executable, "-m", "referee", *args],
                          capture_output=True, text=True, timeout=60)
    took = time.monotonic() - t
    peak = [int(ln.split()[1]) for ln in proc.stderr.splitlines() if ln.startswith("PEAK_KB")]
    assert peak, proc.stderr
    return proc, peak[-1], took


# The line rule, without processes (fast) -------------------------------------------------

def test_a_line_over_the_cap_comes_once_cut_and_its_rest_is_dropped_as_it_arrives():
    s = LineSplitter(4)
    assert s.feed(b"abcd\r\n") == ["abcd"]  # at the cap: a line like any other
    cut = s.feed(b"abcde")
    assert cut == ["abcd"] and isinstance(cut[0], OverlongLine)
    assert s.feed(b"f" * 100_000) == []  # the rest of that line is dropped, not kept
    assert len(s._buf) == 0
    assert s.feed(b"gh\nok\n") == ["ok"]
    assert s.feed(b"ab") == [] and s.feed(b"cd\n") == ["abcd"]  # a line in pieces is one line
    assert not isinstance(s.feed(b"\xff\n")[0], OverlongLine)
    assert s.feed(b"tail") == [] and s.finish() == ["tail"]


def test_the_default_cap_is_64_kB():
    s = LineSplitter()
    assert MAX_LINE_BYTES == 65536 and s.feed(b"x" * 65536 + b"\n") == ["x" * 65536]
    assert isinstance(s.feed(b"x" * 65537 + b"\n")[0], OverlongLine)


# The process layer: a read returns by its deadline whatever the engine prints -------------

def flooder(text: str) -> EngineProcess:
    eng = EngineProcess([sys.executable, "-c", f"import sys\nb = {text!r}.encode() * 8192\n"
                         "while True: sys.stdout.buffer.write(b)"], name="flood")
    eng.start()
    return eng


@slow
@pytest.mark.parametrize("text", ["MESSAGE flood\n", "x" * 1000])  # chatter lines; one endless line
def test_read_reply_returns_by_its_deadline_during_a_flood(text):
    eng = flooder(text)
    try:
        t = time.monotonic()
        reply, skipped = eng.read_reply(t + 0.5)
        took = time.monotonic() - t
        if "\n" in text:
            assert reply is None and 0 < len(skipped) <= MAX_SKIPPED_LINES
            assert 0.45 <= took < 2.0
            assert eng.bytes_read > 100_000  # it was a flood, read and dropped
        else:
            assert isinstance(reply, OverlongLine) and len(reply) == MAX_LINE_BYTES
            assert took < 2.0
            assert eng.read_line(time.monotonic() + 0.3) is None  # the rest of the line is dropped
        t = time.monotonic()
        assert len(eng.drain()) <= MAX_SKIPPED_LINES
        assert time.monotonic() - t < 2.0
    finally:
        eng.close(grace_s=0.1)


# The referee as a whole ------------------------------------------------------------------

@pytest.fixture(scope="module")
def baseline_kb() -> int:
    """Peak RSS of the referee doing nothing (Python plus its imports)."""
    proc, peak, _ = run_referee("--version")
    assert proc.returncode == 0, proc.stderr
    return peak


def play_one(tmp_path, *args: str) -> tuple[dict, int, float]:
    """One game of ``args`` (engine1 moves first): (its results record, peak kB, seconds)."""
    out = tmp_path / "out"
    proc, peak, took = run_referee(*args, "--games", "1", "--first", "1", "--empty-board", "--display", "none",
                                   "--quiet", "--turn-ms", str(TURN_MS), "--tolerance-ms", str(TOLERANCE_MS),
                                   "--start-ms", str(START_MS), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(ln) for ln in (out / "results.jsonl").read_text().splitlines() if ln.strip()]
    assert len(records) == 1
    return records[0], peak, took


def assert_flat(peak_kb: int, baseline_kb: int) -> None:
    assert peak_kb - baseline_kb < GROWTH_LIMIT_KB, f"peak {peak_kb} kB against {baseline_kb} kB doing nothing"


# Floods at the start: the start's deadline ends them --------------------------------------

@slow
@pytest.mark.parametrize("argv, game, words", [
    ("yes MESSAGE", (), "did not answer START within"),           # chatter: never an answer
    ("yes garbage", ("--game", "reversi"), "did not answer ping 1 within"),  # NBoard chatter
    (nboard_cmd("--flood-on-start"), ("--game", "reversi"), "did not answer ping 1 within"),
])
def test_a_flood_at_the_start_fails_the_start_by_its_deadline(argv, game, words, baseline_kb):
    proc, peak, took = run_referee(*game, argv, "random", "--games", "2", "--start-ms", str(START_MS),
                                   "--display", "none")
    assert proc.returncode != 0
    assert "failed to start" in proc.stderr and words in proc.stderr
    assert took < START_MS / 1000 + MARGIN_S
    assert_flat(peak, baseline_kb)


@slow
def test_an_endless_line_at_the_start_fails_the_start_naming_the_cap(baseline_kb):
    line = f"{sys.executable} -c \"import sys; [sys.stdout.write('x' * 65536) for _ in iter(int, 1)]\""
    proc, peak, took = run_referee(line, "random", "--start-ms", str(START_MS), "--display", "none")
    assert proc.returncode != 0
    assert "sent a line of more than 64 kB" in proc.stderr
    assert took < START_MS / 1000 + MARGIN_S
    assert_flat(peak, baseline_kb)


# Floods in the middle of a game and after a move: the move's deadline ends them ---------------

BUDGET_S = (TURN_MS + TOLERANCE_MS) / 1000


@slow
@pytest.mark.parametrize("engine, game, termination, words", [
    # Gomocup: chatter instead of the 2nd move; chatter after the 1st move (the next move times out);
    # an endless line instead of the 2nd move
    (fake_cmd("--flood-at", "2"), ("--size", "9"), "timeout", "did not move within"),
    (fake_cmd("--flood-after", "1"), ("--size", "9"), "timeout", "did not move within"),
    (fake_cmd("--flood-at", "2", "--flood-no-newline"), ("--size", "9"), "bad_output",
     "sent a line of more than 64 kB"),
    # NBoard: the same, and garbage (which NBoard takes for chatter) after the 1st move
    (nboard_cmd("--flood-at", "2"), ("--game", "reversi"), "timeout", "did not move within"),
    (nboard_cmd("--flood-after", "1", "--flood-text", "garbage"), ("--game", "reversi"), "timeout",
     "did not move within"),
    (nboard_cmd("--flood-at", "2", "--flood-no-newline"), ("--game", "reversi"), "bad_output",
     "sent a line of more than 64 kB"),
])
def test_a_flood_in_a_game_gets_its_verdict_by_the_deadline(tmp_path, engine, game, termination, words,
                                                            baseline_kb):
    rec, peak, took = play_one(tmp_path, *game, engine, "random")
    assert rec["termination"] == termination and rec["winner"] == "engine2"
    assert words in rec["reason"]
    assert len(rec["messages"]["engine1"]) <= 200  # what is kept of the chatter is bounded
    # two moves of engine1 at most, the random mover's moves take no time
    assert rec["duration_s"] < 2 * BUDGET_S + 2.0
    assert took < 2 * BUDGET_S + MARGIN_S
    assert_flat(peak, baseline_kb)


@slow
def test_the_io_log_of_a_flood_game_is_written_through(tmp_path, baseline_kb):
    rec, peak, _ = play_one(tmp_path, "--size", "9", fake_cmd("--flood-at", "2"), "random", "--log-io")
    assert rec["termination"] == "timeout"
    log = (tmp_path / "out" / "game-0001.log").read_text()
    assert "engine1 < MESSAGE flood" in log
    assert_flat(peak, baseline_kb)


@slow
def test_the_check_suite_fails_a_flooding_engine_quickly_and_keeps_its_memory(baseline_kb):
    """``referee check`` against an engine that prints chatter forever: each check gives up on
    the flood at once (it would otherwise wait out every deadline) and nothing accumulates."""
    proc, peak, took = run_referee("check", "yes MESSAGE", "--start-ms", str(START_MS))
    assert proc.returncode == 1
    assert "chatter and no reply (a flood)" in proc.stdout and " failed" in proc.stdout.splitlines()[-1]
    assert took < 45
    assert_flat(peak, baseline_kb)
