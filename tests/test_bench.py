"""The bench: fixed positions, deterministic signature, JSON output."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stdout

from engine import bench


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


def test_signature_is_deterministic():
    a = run_bench("--nodes", "40").splitlines()
    b = run_bench("--nodes", "40").splitlines()
    sig_a = [line for line in a if line.startswith(("Nodes searched", "Signature", "Playouts       :"))]
    sig_b = [line for line in b if line.startswith(("Nodes searched", "Signature", "Playouts       :"))]
    assert len(sig_a) == 3 and sig_a == sig_b
    c = run_bench("--nodes", "40", "--seed", "5").splitlines()
    assert [line for line in c if line.startswith("Signature")] != sig_a[-1:]


def test_movetime_mode_and_bad_arguments():
    out = run_bench("--movetime", "20", "--json")
    assert len(out.splitlines()) == len(bench.positions())
    for bad in (["--nodes", "0"], ["--movetime", "-3"], ["--bogus"]):
        proc = subprocess.run([sys.executable, "-m", "engine.bench", *bad], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 2 and "usage" in proc.stderr


def test_module_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "engine.bench", "--nodes", "20"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0
    assert "Nodes searched" in proc.stdout and "Signature" in proc.stdout


def test_guided_mode_is_benchmarked_separately_and_deterministically():
    uct = run_bench("--nodes", "40")
    guided_a = run_bench("--nodes", "40", "--mode", "guided")
    guided_b = run_bench("--nodes", "40", "--mode", "guided")

    def signature(text):
        return [line for line in text.splitlines() if line.startswith("Signature")]

    assert signature(guided_a) == signature(guided_b)
    assert signature(guided_a) != signature(uct)


def test_startup_probe_reports_a_fresh_interpreter_time():
    row = json.loads(run_bench("--startup", "--json"))
    assert row["runs"] == 5
    assert 0 < row["startup_median_s"] <= row["startup_max_s"] < 30
