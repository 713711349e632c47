"""The bench: fixed positions, deterministic signature, JSON output."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stdout

import pytest

from engine.mnk import bench
from engine.mnk.tree.options import MnkOptions
from engine.mnk.board.rules import GameConfig


def run_bench(*args: str) -> str:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert bench.main(list(args)) == 0
    return buf.getvalue()


def test_json_lines_have_the_documented_fields():
    rows = [json.loads(line) for line in run_bench("--nodes", "60", "--json").splitlines()]
    boards = {r["board"] for r in rows}
    assert {"15x15k5", "7x7k4", "3x3k3"} <= boards
    assert any(r["board"] == "15x15k5" and r["stones"] == 0 for r in rows)
    assert any(r["board"] == "15x15k5" and r["stones"] >= 10 for r in rows)
    for r in rows:
        for key in ("board", "stones", "playouts_per_s", "nodes_per_s", "nodes"):
            assert key in r
        assert r["nodes"] <= 60 and r["playouts_per_s"] >= 0
        assert r["nodes"] == 60 or r["proven"] is not None


@pytest.mark.slow
def test_signature_is_deterministic():
    a = run_bench("--nodes", "40").splitlines()
    b = run_bench("--nodes", "40").splitlines()
    sig_a = [line for line in a if line.startswith(("Nodes searched", "Signature", "Playouts       :"))]
    sig_b = [line for line in b if line.startswith(("Nodes searched", "Signature", "Playouts       :"))]
    assert len(sig_a) == 3 and sig_a == sig_b
    c = run_bench("--nodes", "40", "--seed", "5").splitlines()
    assert [line for line in c if line.startswith("Signature")] != sig_a[-1:]


@pytest.mark.slow
def test_movetime_mode_and_bad_arguments():
    out = run_bench("--movetime", "20", "--json")
    assert len(out.splitlines()) == len(bench.positions())
    for bad in (["--nodes", "0"], ["--movetime", "-3"], ["--bogus"]):
        proc = subprocess.run([sys.executable, "-m", "engine.mnk.bench", *bad], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 2 and "usage" in proc.stderr


@pytest.mark.slow
def test_module_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "engine.mnk.bench", "--nodes", "20"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0
    assert "Nodes searched" in proc.stdout and "Signature" in proc.stdout


@pytest.mark.slow
def test_guided_mode_is_benchmarked_separately_and_deterministically():
    uct = run_bench("--nodes", "40")
    guided_a = run_bench("--nodes", "40", "--mode", "guided")
    guided_b = run_bench("--nodes", "40", "--mode", "guided")

    def signature(text):
        return [line for line in text.splitlines() if line.startswith("Signature")]

    assert signature(guided_a) == signature(guided_b)
    assert signature(guided_a) != signature(uct)


@pytest.mark.slow
def test_startup_probe_reports_a_fresh_interpreter_time():
    row = json.loads(run_bench("--startup", "--json"))
    assert row["runs"] == 5
    assert 0 < row["startup_median_s"] <= row["startup_max_s"] < 30


@pytest.mark.slow
def test_tactics_counts_correct_answers_and_fails_on_a_miss(tmp_path):
    # Equal counts: the first player moves and must block the second's three at 3,0 (7x7 k4)...
    win = "w | 7 7 4 0 | 0,0,2 6,6,1 1,0,2 5,5,1 2,0,2 6,4,1 | 3,0\n"
    # ...and the same position with a wrong answer set must count as a miss.
    wrong = "x | 7 7 4 0 | 0,0,2 6,6,1 1,0,2 5,5,1 2,0,2 6,4,1 | 4,4\n"
    good = tmp_path / "good.txt"
    good.write_text("# comment\n" + win)
    out = run_bench("--tactics", str(good), "--movetime", "100")
    assert "1/1 correct" in out
    bad = tmp_path / "bad.txt"
    bad.write_text(win + wrong)
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert bench.main(["--tactics", str(bad), "--movetime", "100"]) == 1
    assert "1/2 correct" in buf.getvalue() and "miss x" in buf.getvalue()


@pytest.mark.slow
def test_tactics_with_two_threads_use_the_root_thread_on_the_c_tree(tmp_path):
    from engine.mnk.tree.native import available

    if not available(GameConfig.square(15, 5), MnkOptions.guided()):
        pytest.skip("the C extension was not built")
    # X to move blocks O's open three on 15x15 k5 (4,7 or 8,7); the guided C tree with the
    # root threat search on its own thread must find it as the one-thread search does.
    line = "b | 15 15 5 0 | 0,0,1 5,7,2 14,14,1 6,7,2 0,14,1 7,7,2 | 4,7 8,7\n"
    f = tmp_path / "b.txt"
    f.write_text(line)
    out = run_bench("--tactics", str(f), "--movetime", "300", "--mode", "guided", "--threads", "2")
    assert "1/1 correct" in out and "own thread" in out
