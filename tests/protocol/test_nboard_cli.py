"""``nboard-mcts`` as a real process: transcripts, ping/pong order during a search, EOF,
start-up, the command line; and Edax (when built here) answering the same commands."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.api import PURE_PYTHON_SLOWDOWN
from protocol.nboard.wire import parse_engine_move
from referee.engines.process import EngineProcess

from support.nboard_transcripts import TRANSCRIPTS, run_in_process

ROOT = Path(__file__).resolve().parents[2]
ENGINE = [sys.executable, "-m", "protocol.nboard"]
# An Edax build for comparison, if the machine has one: EDAX_NBOARD=/path/to/a-script-running-edax-nboard
# (it is called with a level as its one argument); never part of the project.
EDAX = Path(os.environ.get("EDAX_NBOARD", "/nonexistent/edax-nboard"))
START = "---------------------------O*------*O---------------------------"
OPENING = f"(;GM[Othello]PC[test]DT[2026]PB[a]PW[b]RE[?]TI[15:00]TY[8]BO[8 {START} *]B[F5]W[F6];)"
MUST_PASS = ("(;GM[Othello]PC[test]DT[2026]PB[a]PW[b]RE[?]TI[15:00]TY[8]BO[8 OOOOO*OOOOOO**OOO*OO**OOO**OO*OOO*"
             "OO*OOOOOOOO*OOOO*****-O******- *];)")

pytestmark = pytest.mark.slow


def spawn(*args: str, argv: list[str] | None = None, env: dict | None = None) -> EngineProcess:
    engine = EngineProcess(argv or [*ENGINE, *args], name="nboard", cwd=ROOT, env=env)
    engine.start()
    return engine


def read_until(engine: EngineProcess, prefix: str, timeout: float = 30.0) -> list[str]:
    out = []
    end = time.monotonic() + timeout
    while not out or not out[-1].lower().startswith(prefix):
        line = engine.read_line(end)
        assert line is not None, f"no {prefix!r} within {timeout} s: {out}"
        out.append(line)
    return out


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.stem)
def test_transcript_through_the_real_process(path):
    engine = spawn("--max-nodes", "300", "--seed", "1")
    try:
        assert run_in_process(engine, path.read_text()) > 10
    finally:
        engine.close(send_end=False)


def test_a_ping_during_a_search_is_answered_after_the_move():
    engine = spawn("--move-ms", "1500")
    try:
        read_until(engine, "set myname")
        engine.send(f"set game {OPENING}")
        engine.send("ping 1")
        read_until(engine, "pong 1")
        t0 = time.monotonic()
        engine.send("go")
        engine.send("ping 2")
        out = read_until(engine, "pong 2")
        moves = [i for i, line in enumerate(out) if line.startswith("=== ")]
        assert len(moves) == 1 and moves[0] < len(out) - 1, out
        assert time.monotonic() - t0 > 1.2  # the pong waited for the whole search
        assert parse_engine_move(out[moves[0]])[0] in {"d3", "f4", "f7", "c4", "d6", "e6", "g6"}
    finally:
        engine.close(send_end=False)


def test_eof_exits_at_once_even_during_a_long_search():
    engine = spawn("--move-ms", "60000")
    try:
        read_until(engine, "set myname")
        engine.send("go")
        read_until(engine, "status thinking")
        t0 = time.monotonic()
        engine.close_stdin()
        out = read_until(engine, "===", timeout=5)
        while engine.is_alive() and time.monotonic() - t0 < 5:
            time.sleep(0.01)
        assert engine.returncode == 0 and time.monotonic() - t0 < 5, out
    finally:
        engine.close(send_end=False)


def test_the_first_pong_comes_fast():
    # A generous sanity bound (a loaded machine): the measured figure is in the docs.
    t0 = time.monotonic()
    engine = spawn(argv=[str(Path(sys.executable).parent / "nboard-mcts")])
    try:
        engine.send("nboard 2")
        engine.send("ping 1")
        out = read_until(engine, "pong 1", timeout=10)
        assert out[0] == "set myname nboard-mcts" and time.monotonic() - t0 < 3.0
    finally:
        engine.close(send_end=False)


def test_garbage_never_gets_a_traceback():
    out = subprocess.run(ENGINE, input=b"\xff\x00\x01garbage\n" + b"y" * 100_000 + b"\nset game (;x;)\nmove\nping 5\n",
                         capture_output=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0
    text = out.stdout.decode()
    assert "Traceback" not in text and "Traceback" not in out.stderr.decode()
    assert text.splitlines()[-1] == "pong 5" and text.count("\nstatus ") == 4


def test_version_help_and_options():
    bin_dir = Path(sys.executable).parent
    nboard = str(bin_dir / "nboard-mcts")
    built = subprocess.run([nboard, "--version"], capture_output=True, text=True, timeout=30)
    assert built.stdout.startswith("nboard-mcts ") and "C extension built" in built.stdout
    pure = subprocess.run([nboard, "--version"], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "MNK_PURE_PYTHON": "1"})
    assert "C extension switched off by MNK_PURE_PYTHON=1" in pure.stdout and "not built" not in pure.stdout
    assert PURE_PYTHON_SLOWDOWN["reversi"] in pure.stdout
    help_text = subprocess.run([nboard, "--help"], capture_output=True, text=True, timeout=30).stdout
    assert all(w in help_text for w in ("--move-ms", "set depth", "level 10 is 1 s", "--engine-option"))
    listed = subprocess.run([nboard, "--list-options"], capture_output=True, text=True, timeout=30).stdout
    assert all(k in listed for k in ("playouts_per_leaf", "root_empties", "tree.exploration"))
    assert "--mode" not in listed and "default values" in listed.splitlines()[0]  # nboard-mcts has no --mode
    bad = subprocess.run([nboard, "--engine-option", "foo=1"], capture_output=True, text=True, timeout=30, input="")
    assert bad.returncode == 2 and "unknown engine option 'foo'" in bad.stderr and "valid keys" in bad.stderr
    good = subprocess.run([nboard, "--engine-option", "exploration=1.0", "--seed", "3", "--max-nodes", "50"],
                          capture_output=True, text=True, timeout=30, input="go\nping 1\n")
    assert good.returncode == 0 and good.stdout.splitlines()[-1] == "pong 1"
    bench_help = subprocess.run([nboard, "bench", "--help"], capture_output=True, text=True, timeout=30).stdout
    assert bench_help.startswith("usage: nboard-mcts bench")


def test_the_same_seed_and_node_limit_give_the_same_move():
    def search() -> tuple:
        engine = spawn("--seed", "7", "--max-nodes", "400")  # stdin stays open: EOF would stop the search
        try:
            engine.send(f"set game {OPENING}")
            engine.send("go")
            out = read_until(engine, "===")
            nodes = next(line for line in out if line.startswith("nodestats")).split()[1]
            return out[-1].split("/")[0], nodes
        finally:
            engine.close(send_end=False)

    first = search()
    assert first == search() and first[1] == "400"


@pytest.mark.skipif(not EDAX.exists(), reason="no Edax build here (set EDAX_NBOARD to run this)")
def test_edax_and_this_engine_answer_alike():
    """The commands of the protocol notes' session: both pass when they must, both find the
    solved best move with the same margin, both list it first in their hints."""
    answers = {}
    for name, argv in (("edax", [str(EDAX), "6"]), ("ours", [*ENGINE, "--max-nodes", "300"])):
        engine = spawn(argv=argv)
        try:
            engine.send("nboard 2")
            engine.send("set depth 6")
            engine.send(f"set game {MUST_PASS}")
            engine.send("go")
            passed = parse_engine_move(read_until(engine, "===")[-1])
            engine.send("move PA")
            engine.send("go")
            solved = parse_engine_move(read_until(engine, "===")[-1])
            engine.send("hint 2")
            engine.send("ping 9")
            hints = [line.split() for line in read_until(engine, "pong 9") if line.startswith("search")]
            answers[name] = (passed[0], solved[:2], [(h[1][:2].lower(), float(h[2])) for h in hints])
        finally:
            engine.close(send_end=False)
    assert answers["edax"] == answers["ours"] == ("pa", ("h8", 32.0), [("h8", 32.0), ("h7", 24.0)])


@pytest.mark.parametrize("args", [["--list-options"], ["--version"], ["--help"], ["bench", "--quick"]],
                         ids=" ".join)
def test_a_closed_stdout_ends_the_program_quietly(args):
    """stdout a pipe whose reader is already gone (``nboard-mcts --list-options | head``)."""
    r, w = os.pipe()
    os.close(r)
    try:
        out = subprocess.run([str(Path(sys.executable).parent / "nboard-mcts"), *args], stdout=w,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, timeout=120)
    finally:
        os.close(w)
    assert "Traceback" not in out.stderr and "BrokenPipeError" not in out.stderr, out.stderr
    assert out.returncode == 0
