"""``referee check``: the suite passes a correct engine, catches faulty ones, and never hangs.

The engines here are a tiny fake Gomocup brain written by this test (``FAKE_SOURCE``),
run with ``sys.executable``; command-line words switch on faults.
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import pytest

from engine.mnk.board.rules import Board, GameConfig, Player
from support.scripted_brain import FAKE_SOURCE, write_fake  # noqa: F401
from referee.cli import check
from referee.conformance.positions import block_four, move_order, win_in_one, win_length_probe
from referee.conformance.gomocup_suite import GROUPS, Options
from referee.engines.gomocup_wire import parse_about

# A correct little brain: takes a win, blocks a win, else plays near the centre.
# Faults (argv words): hang-<CMD> (never answers CMD), ignore-win-length, no-exit-on-eof,
# flood-abc (prints ERROR forever after "START abc"), require-crlf (ERROR on LF-only lines),
# ignore-end (END does nothing), ignore-time-left (thinks 90% of timeout_turn on every move),
# chatty (MESSAGE/DEBUG lines before each move, trailing text after it, like Rapfi and pela).  PIDFILE=<path> appends its pid there.
def fake_opts(tmp_path: Path, *faults: str, **kw) -> Options:
    argv = [sys.executable, str(write_fake(tmp_path)), *faults]
    base = dict(turn_ms=100, tolerance_ms=2000, quiet_ms=150, exit_ms=2000, start_ms=5000)
    base.update(kw)
    return Options(argv=argv, **base)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def statuses(results) -> dict[str, str]:
    return {r.name: r.status for r in results}


ALL_CHECKS = [c.name for g in GROUPS for c in g.checks]


@pytest.mark.slow
def test_a_correct_engine_passes_every_check_and_leaves_no_process(tmp_path):
    pidfile = tmp_path / "pids"
    opts = fake_opts(tmp_path, f"PIDFILE={pidfile}")
    results = check.run_checks(opts)
    bad = [check.format_result(r) for r in results if r.status != "pass"]
    assert not bad, "\n".join(bad)
    assert [r.name for r in results] == ALL_CHECKS
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) >= len(GROUPS)  # a fresh process per group at least
    time.sleep(0.1)
    assert not [p for p in pids if alive(p)]


@pytest.mark.slow
def test_main_prints_one_line_per_check_and_the_summary(tmp_path):
    opts = fake_opts(tmp_path)
    out = io.StringIO()
    rc = check.main([" ".join(opts.argv), "--turn-ms", "100", "--quiet-ms", "150", "--only", "about",
                     "--only", "start"], out=out)
    lines = out.getvalue().splitlines()
    names = [c for c in ALL_CHECKS if c.startswith(("about", "start"))]
    assert rc == 0
    assert len(lines) == len(names) + 1
    assert all(ln.startswith("PASS") for ln in lines[:-1])
    assert lines[-1] == f"{len(names)} passed, 0 failed"


@pytest.mark.slow
def test_a_hang_fails_that_check_only_and_the_suite_goes_on(tmp_path):
    pidfile = tmp_path / "pids"
    opts = fake_opts(tmp_path, "hang-FOOBARBAZ", f"PIDFILE={pidfile}")
    t0 = time.monotonic()
    results = check.run_checks(opts, only=["error-malformed", "unknown-command", "crlf", "takeback"])
    assert time.monotonic() - t0 < 30
    st = statuses(results)
    assert st == {"error-malformed": "pass", "unknown-command": "fail", "crlf": "pass", "takeback": "pass"}
    failed = next(r for r in results if r.status == "fail")
    assert failed.sent == "FOOBARBAZ" and "nothing within" in failed.got and "UNKNOWN" in failed.expected
    time.sleep(0.1)
    assert not [p for p in map(int, pidfile.read_text().split()) if alive(p)]


@pytest.mark.slow
def test_info_lines_and_trailing_text_are_tolerated(tmp_path):
    opts = fake_opts(tmp_path, "chatty")
    st = statuses(check.run_checks(opts, only=["begin", "turns", "error-occupied", "win-in-one", "takeback"]))
    assert set(st.values()) == {"pass"} and len(st) == 5


@pytest.mark.slow
def test_an_engine_ignoring_win_length_is_skipped_not_failed(tmp_path):
    out = io.StringIO()
    opts = fake_opts(tmp_path, "ignore-win-length")
    rc = check.main([" ".join(opts.argv), "--turn-ms", "100", "--only", "win-length"], out=out)
    text = out.getvalue()
    assert rc == 0, text
    assert "SKIP  win-length-detect" in text and "ignores win_length" in text
    assert text.splitlines()[-1] == "0 passed, 0 failed, 4 skipped"


@pytest.mark.slow
def test_tactics_at_win_length_4_need_the_extension(tmp_path):
    good = check.run_checks(fake_opts(tmp_path, win_length=4), only=["win-length-detect", "win-in-one", "block"])
    assert statuses(good) == {"win-length-detect": "pass", "win-in-one": "pass", "block-four": "pass"}
    ignoring = check.run_checks(fake_opts(tmp_path, "ignore-win-length", win_length=4),
                                only=["win-length-detect", "win-in-one"])
    assert statuses(ignoring) == {"win-length-detect": "skip", "win-in-one": "skip"}


@pytest.mark.slow
def test_faults_are_caught(tmp_path):
    opts = fake_opts(tmp_path, "no-exit-on-eof", "flood-abc", "require-crlf", "ignore-end")
    t0 = time.monotonic()
    st = statuses(check.run_checks(opts, only=["start-malformed", "about-first", "crlf", "end", "eof"]))
    assert time.monotonic() - t0 < 40
    # every LF-only line gets an ERROR: ABOUT fails, the CR LF session passes
    assert st == {"about-first": "fail", "start-malformed": "fail", "crlf": "pass", "end": "fail", "eof": "fail"}


@pytest.mark.slow
def test_an_engine_ignoring_the_match_clock_fails_match_clock(tmp_path):
    opts = fake_opts(tmp_path, "ignore-time-left", turn_ms=500, tolerance_ms=1000)
    results = check.run_checks(opts, only=["match-clock"])
    assert statuses(results) == {"match-clock": "fail"}
    assert "ms used after" in results[0].got
    assert statuses(check.run_checks(fake_opts(tmp_path, turn_ms=500), only=["match-clock"])) == {
        "match-clock": "pass"}


@pytest.mark.slow
def test_a_silent_engine_costs_a_few_deadlines_not_the_whole_suite():
    opts = Options(argv=[sys.executable, "-c", "import time; time.sleep(60)"], start_ms=300, turn_ms=100,
                   tolerance_ms=200, quiet_ms=100, exit_ms=300)
    t0 = time.monotonic()
    results = check.run_checks(opts)
    assert time.monotonic() - t0 < 20
    assert len(results) == len(ALL_CHECKS) and all(r.status == "fail" for r in results)
    assert sum("not run" in r.got for r in results) == len(ALL_CHECKS) - check.MUTE_LIMIT


@pytest.mark.slow
def test_an_engine_that_cannot_start_is_a_usage_error(tmp_path, capsys):
    assert check.main([str(tmp_path / "no-such-engine")]) == 2
    assert "cannot start" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [[], ["x", "--size", "3"], ["x", "--win-length", "40"], ["x", "--turn-ms", "0"],
                                  ["'unclosed"]])
def test_bad_arguments_exit_2(argv):
    with pytest.raises(SystemExit) as exc:
        check.main(argv, out=io.StringIO())
    assert exc.value.code == 2


def test_list_names_every_check():
    out = io.StringIO()
    assert check.main(["--list"], out=out) == 0
    assert [ln.split()[0] for ln in out.getvalue().splitlines()] == ALL_CHECKS


@pytest.mark.parametrize("line, ok", [
    ('name="pbrain-x", version="1.0", author="A B", country="CZ"', True),
    ('name = "Wine", version ="2.1", author = "J", country = "China"', True),
    ('author="Petr", version="7.9",  www="https://x"', True),
    ("OK", False),
    ('name="x" trailing junk', False),
    ("", False),
])
def test_about_form(line, ok):
    assert bool(parse_about(line, strict=True)) == ok


@pytest.mark.parametrize("w, h, k", [(15, 15, 5), (20, 20, 5), (20, 10, 5), (9, 9, 4), (10, 10, 3)])
def test_tactical_positions_have_exactly_the_stated_answer(w, h, k):
    cfg = GameConfig(w, h, k)
    for pos, side in ((win_in_one(cfg), Player.FIRST), (block_four(cfg), Player.SECOND)):
        board = Board.from_stones(cfg, [(x, y, Player(f)) for x, y, f in pos.stones])
        assert board.to_move is Player.FIRST  # the engine (stones marked 1) moves
        assert [cfg.xy(m) for m in board.winning_cells(side)] == list(pos.answers)
        assert not board.winning_cells(side.other)
        order = move_order(pos.stones)
        assert sorted(order) == sorted(pos.stones) and order[-1][2] == 2
        assert all(a[2] != b[2] for a, b in zip(order, order[1:]))


def test_win_length_probe_separates_the_two_rules():
    probe = win_length_probe(15, 15, 4)
    stones = [(x, y, Player(f)) for x, y, f in probe.position.stones]
    k4 = Board.from_stones(GameConfig(15, 15, 4), stones)
    k5 = Board.from_stones(GameConfig(15, 15, 5), stones)
    xy = GameConfig(15, 15).xy
    assert [xy(m) for m in k4.winning_cells(Player.FIRST)] == [probe.win]
    assert not k5.winning_cells(Player.FIRST)
    assert [xy(m) for m in k5.winning_cells(Player.SECOND)] == [probe.block]
    with pytest.raises(ValueError):
        win_length_probe(5, 5, 4)


@pytest.mark.slow
def test_the_referee_command_dispatches_check_and_script(tmp_path, capsys):
    from referee.cli.main import main as referee_main

    assert referee_main(["check", "--list"]) == 0
    assert "win-length-detect" in capsys.readouterr().out
    transcript = tmp_path / "t.txt"
    transcript.write_text("> START 15\n< OK\n> END\n< exit\n")
    engine = f"{sys.executable} {write_fake(tmp_path)}"
    assert referee_main(["script", str(transcript), engine]) == 0
    assert "all 2 expectations held" in capsys.readouterr().out
