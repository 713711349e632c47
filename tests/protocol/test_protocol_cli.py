"""The installed ``pbrain-mcts`` driven through pipes (pexpect), as a manager would.

Timing assertions are generous (the machine is shared); the strict figures
come from ``python -m lab.latency``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pexpect
import pytest
from pexpect.popen_spawn import PopenSpawn

BRAIN = os.path.join(os.path.dirname(sys.executable), "pbrain-mcts")
MOVE = re.compile(r"^(\d+),(\d+)$")
#: Slack for replies on a loaded 2-core machine.
SLACK = 1.5

pytestmark = pytest.mark.skipif(not os.path.exists(BRAIN), reason="pbrain-mcts is not installed")


def spawn(*args: str) -> PopenSpawn:
    return PopenSpawn([BRAIN, *args], timeout=15)


def send(p: PopenSpawn, *lines: str, eol: bytes = b"\n") -> float:
    t = time.monotonic()
    p.send(b"".join(line.encode("utf-8", "surrogateescape") + eol for line in lines))
    return t


def line(p: PopenSpawn, timeout: float = 15, skip_messages: bool = True) -> str:
    """The next output line (MESSAGE/DEBUG skipped unless asked)."""
    while True:
        p.expect(b"\n", timeout=timeout)
        text = p.before.decode("utf-8", "replace").rstrip("\r")
        if not (skip_messages and text.startswith(("MESSAGE ", "DEBUG "))):
            return text


def exits(p: PopenSpawn, timeout: float = 5) -> int:
    """Wait for EOF on stdout; assert nothing was printed; return the exit code."""
    p.expect(pexpect.EOF, timeout=timeout)
    assert p.before == b"", f"printed after END/EOF: {p.before!r}"
    return p.wait()


def play_move(p: PopenSpawn, cmd: str, taken: set[tuple[int, int]]) -> tuple[int, int]:
    send(p, cmd)
    got = line(p)
    m = MOVE.match(got)
    assert m, f"{cmd} -> {got!r}"
    move = (int(m[1]), int(m[2]))
    assert move not in taken and 0 <= move[0] < 15 and 0 <= move[1] < 15
    taken.add(move)
    return move


#: Opponent moves far from the centre, tried in this order (skipping any the brain took).
FAR_CELLS = [(0, 0), (14, 14), (0, 14), (14, 0), (0, 7), (14, 7), (7, 0), (7, 14)]


def far_turn(taken: set[tuple[int, int]]) -> str:
    """A TURN command on a far cell nobody has played, recorded in ``taken``."""
    cell = next(c for c in FAR_CELLS if c not in taken)
    taken.add(cell)
    return "TURN {},{}".format(*cell)


@pytest.mark.slow
def test_full_game_about_end():
    t0 = time.monotonic()
    p = spawn()
    send(p, "ABOUT")
    assert line(p).startswith('name="pbrain-mcts", version="')
    send(p, "INFO timeout_turn 150", "INFO timeout_match 100000", "START 15")
    assert line(p) == "OK"
    assert time.monotonic() - t0 < 0.5 + 2 * SLACK  # 0.5 s is the target; the machine is shared
    taken: set[tuple[int, int]] = set()
    play_move(p, "BEGIN", taken)
    for _ in range(3):  # four brain stones: no win yet
        play_move(p, far_turn(taken), taken)
    t = send(p, "END")
    assert exits(p) == 0
    assert time.monotonic() - t < SLACK


def test_message_line_precedes_each_move():
    p = spawn()
    send(p, "INFO timeout_turn 100", "START 15", "BEGIN")
    assert line(p) == "OK"
    messages = [line(p, skip_messages=False)]
    while messages[-1].startswith("MESSAGE "):
        messages.append(line(p, skip_messages=False))
    assert MOVE.match(messages.pop())
    # the last MESSAGE before the move is the search in the form clients parse
    assert messages and messages[-1].startswith("MESSAGE depth ") and " pv " in messages[-1]
    assert all(len(m) < 300 for m in messages)
    send(p, "END")
    assert exits(p) == 0


@pytest.mark.slow
def test_eof_exits_zero_idle_and_after_work():
    p = spawn()
    p.sendeof()
    assert exits(p) == 0
    # EOF right after a move request: the move is still answered, then exit 0
    p = spawn()
    send(p, "INFO timeout_turn 100", "START 15", "BEGIN")
    p.sendeof()
    assert line(p) == "OK"
    assert MOVE.match(line(p))
    p.expect(pexpect.EOF, timeout=5)
    assert p.wait() == 0


@pytest.mark.slow
def test_bad_input_never_crashes_and_game_goes_on():
    p = spawn()
    send(p, "TURN 7,7")
    assert line(p).startswith("ERROR")
    p.send(b"\xff\xfe\x00\x01garbage\n")
    assert line(p).startswith("UNKNOWN")
    send(p, "", "   ", "\t")  # blank lines: no reply
    send(p, "X" * 200_000)
    assert line(p).startswith("UNKNOWN")
    send(p, "TURN " + "9" * 150_000 + ",1")
    assert line(p).startswith("ERROR")
    send(p, "info timeout_turn 100", eol=b"\r\n")
    send(p, "start 15", eol=b"\r\n")
    assert line(p) == "OK"
    send(p, "TURN 15,15")
    assert "off the 15x15 board" in line(p)
    send(p, "TURN 7,7")
    first = line(p)
    assert MOVE.match(first)
    send(p, "TURN 7,7")
    assert "occupied" in line(p)
    send(p, f"TURN {first}")
    assert "occupied" in line(p)
    send(p, "BOARD", "1,1,1", "junk", "DONE")
    assert line(p).startswith("ERROR")
    send(p, "BOARD", "1,1,1", "2,2,1", "DONE")
    assert "impossible stone counts" in line(p)
    send(p, "BOARD", *[f"{x},0,2" for x in range(5)], *[f"{x},5,1" for x in range(4)], "9,9,1", "DONE")
    assert "already over" in line(p)
    send(p, "DONE")
    assert line(p).startswith("ERROR")
    send(p, "SWAP2BOARD", "7,7", "DONE")
    assert "0, 3 or 5 stones" in line(p)
    send(p, "INFO rule 12")  # never answered; refused at the next game command
    send(p, "TURN 0,0")
    assert "renju" in line(p)
    send(p, "INFO rule 0", "TURN 0,0")
    assert MOVE.match(line(p))
    send(p, "END")
    assert exits(p) == 0


@pytest.mark.slow
def test_very_long_line_over_the_limit_is_refused():
    from protocol.gomocup.loop import MAX_LINE_BYTES

    p = spawn()
    send(p, "A" * (MAX_LINE_BYTES + 10))
    assert "too long" in line(p)
    send(p, "START 15")
    assert line(p) == "OK"
    send(p, "END")
    assert exits(p) == 0


@pytest.mark.slow
def test_gomocupjudge_style_burst_and_board_on_empty_board():
    p = spawn()
    # START and INFO without waiting for OK, then the first move as BOARD ... DONE
    send(p, "START 15", "INFO timeout_turn 200", "INFO timeout_match 90000", "INFO max_memory 367001600",
         "INFO game_type 1", "INFO rule 0", "INFO time_left 90000", "INFO folder /tmp", "BOARD", "DONE")
    assert line(p) == "OK"
    assert MOVE.match(line(p))
    send(p, "BOARD", "7,7,2", "8,8,1", "6,6,2", "DONE")
    got = line(p)
    assert MOVE.match(got) and got not in ("7,7", "8,8", "6,6")
    send(p, "END")
    assert exits(p) == 0


@pytest.mark.slow
def test_turn_time_is_respected():
    p = spawn()
    send(p, "INFO timeout_turn 300", "START 15")
    assert line(p) == "OK"
    taken: set[tuple[int, int]] = {(7, 7)}
    for cmd in ["TURN 7,7"] + [far_turn(taken) for _ in range(3)]:
        t0 = time.monotonic()
        play_move(p, cmd, taken)
        assert time.monotonic() - t0 < 0.3 + SLACK
    send(p, "INFO timeout_turn 0")
    t0 = time.monotonic()
    play_move(p, far_turn(taken), taken)
    assert time.monotonic() - t0 < SLACK
    send(p, "END")
    assert exits(p) == 0


@pytest.mark.slow
def test_yxstop_answers_at_once_and_end_during_search_exits():
    p = spawn()
    send(p, "INFO timeout_turn 60000", "START 15")
    assert line(p) == "OK"
    send(p, "BEGIN")
    time.sleep(0.5)
    t0 = send(p, "YXSTOP")
    assert MOVE.match(line(p))
    assert time.monotonic() - t0 < SLACK
    send(p, "TURN 0,0")
    time.sleep(0.5)
    t0 = send(p, "END")  # stops the search: TURN's move comes at once, then the brain exits
    assert MOVE.match(line(p))
    assert exits(p) == 0
    assert time.monotonic() - t0 < SLACK


@pytest.mark.slow
def test_commands_during_a_search_wait_for_the_move():
    p = spawn()
    send(p, "INFO timeout_turn 400", "START 15")
    assert line(p) == "OK"
    send(p, "BEGIN", "ABOUT")  # ABOUT arrives while thinking: answered after the move
    assert MOVE.match(line(p))
    assert line(p).startswith('name="pbrain-mcts"')
    send(p, "END")
    assert exits(p) == 0


@pytest.mark.slow
def test_piskvork_style_pty_crlf_restart_takeback():
    child = pexpect.spawn(BRAIN, timeout=15, echo=False)
    try:
        child.send("START 10\r\n")
        child.expect_exact("OK\r\n")
        child.send("INFO timeout_turn 100\r\nBEGIN\r\n")
        child.expect(r"(\d+),(\d+)\r\n")
        x, y = child.match.group(1).decode(), child.match.group(2).decode()
        child.send(f"TAKEBACK {x},{y}\r\n")
        child.expect_exact("OK\r\n")
        child.send("RESTART\r\n")
        child.expect_exact("OK\r\n")
        child.send("TURN 9,9\r\n")
        child.expect(r"\n(\d+),(\d+)\r\n")
        child.send("END\r\n")
        child.expect(pexpect.EOF, timeout=5)
    finally:
        child.close()
    assert child.exitstatus == 0


@pytest.mark.slow
def test_python_dash_m_protocol_and_command_line():
    out = subprocess.run([sys.executable, "-m", "protocol.gomocup", "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stdout.startswith("pbrain-mcts ")
    out = subprocess.run([BRAIN, "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and "--win-length" in out.stdout and "--max-playouts" in out.stdout
    out = subprocess.run([BRAIN, "--win-length", "0"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2
    out = subprocess.run([BRAIN, "--rule", "renju", "--win-length", "4"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "--rule renju is played with five in a row" in out.stderr
    out = subprocess.run([BRAIN, "--mode", "nonsense"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "mode" in out.stderr


@pytest.mark.slow
def test_command_line_win_length_rule_and_reproducible_playouts():
    moves = []
    for _ in range(2):
        p = spawn("--win-length", "4", "--rule", "exact", "--seed", "7", "--max-playouts", "3000")
        send(p, "START 9", "TURN 4,4")
        assert line(p) == "OK"
        first = line(p)
        corner = next(c for c in ("8,8", "0,0") if c != first)
        send(p, f"TURN {corner}")
        moves.append((first, line(p)))
        send(p, "END")
        assert exits(p) == 0
    assert moves[0] == moves[1] and all(MOVE.match(m) for m in moves[0])


@pytest.mark.slow
def test_bench_subcommand_is_delegated():
    pytest.importorskip("engine.mnk.bench")
    out = subprocess.run([BRAIN, "bench", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "bench" in out.stdout.lower()


TRANSCRIPT = os.path.join(os.path.dirname(os.path.dirname(__file__)), "transcripts", "game_and_bad_input.txt")


@pytest.mark.slow
def test_a_transcript_through_the_referee_script_command():
    """The installed brain, driven by the ``referee script`` command line (all transcripts run
    in-process in ``test_protocol_transcripts.py``)."""
    # A generous default wait: the 2 cores are shared with other test runs.
    out = subprocess.run([sys.executable, "-m", "referee", "script", TRANSCRIPT, BRAIN, "--timeout-ms", "15000"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "expectations held" in out.stdout


@pytest.mark.slow
def test_bad_engine_options_are_refused_at_start_with_the_valid_keys():
    for option, words in (("foo=1", ["unknown engine option 'foo'", "valid keys", "tree.exploration"]),
                          ("exploration=abc", ["exploration", "want a number"]),
                          ("enabled=true", ["ambiguous", "native.enabled", "root.enabled"]),
                          ("novalue", ["want KEY=VALUE"])):
        out = subprocess.run([BRAIN, "--engine-option", option], capture_output=True, text=True, timeout=30,
                             input="")
        assert out.returncode == 2, (option, out)
        assert all(w in out.stderr for w in words), (option, out.stderr)
        assert "Traceback" not in out.stderr and "__init__" not in out.stderr


@pytest.mark.slow
def test_list_options_and_help_describe_the_real_engine():
    out = subprocess.run([BRAIN, "--list-options"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    for key in ("tree.exploration", "root.thread", "native.enabled", "leaves.eval_weight", "knowledge.vct_nodes"):
        assert key in out.stdout
    help_text = subprocess.run([BRAIN, "--help"], capture_output=True, text=True, timeout=30).stdout
    assert "helper process" not in help_text and re.search(r"second\s+core", help_text)
    bench_help = subprocess.run([BRAIN, "bench", "--help"], capture_output=True, text=True, timeout=30).stdout
    assert bench_help.startswith("usage: pbrain-mcts bench")


@pytest.mark.slow
def test_version_says_whether_the_c_extension_is_in_use():
    from engine.api import PURE_PYTHON_SLOWDOWN

    built = subprocess.run([BRAIN, "--version"], capture_output=True, text=True, timeout=30)
    assert "C extension built" in built.stdout
    # built but switched off: said so (not "not built"), with the measured cost
    pure = subprocess.run([BRAIN, "--version"], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "MNK_PURE_PYTHON": "1"})
    assert "C extension switched off by MNK_PURE_PYTHON=1" in pure.stdout and "not built" not in pure.stdout
    assert PURE_PYTHON_SLOWDOWN["mnk"] in pure.stdout
    start = subprocess.run([BRAIN], capture_output=True, text=True, timeout=30, input="END\n",
                           env={**os.environ, "MNK_PURE_PYTHON": "1"})
    assert start.stderr.count("C extension switched off by MNK_PURE_PYTHON=1") == 1 and start.stdout == ""
    assert "reinstall" not in start.stderr  # nothing to reinstall: it is built


def run_with_stdout_closed(argv: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``argv`` with stdout a pipe whose reader is already gone (what ``| head`` leaves
    once it has its line): every write the program makes fails with a broken pipe."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run(argv, stdout=w, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                              timeout=120, env=env)
    finally:
        os.close(w)


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--list-options"], ["--version"], ["--help"], ["bench", "--nodes", "100"],
                                  ["bench", "--help"]], ids=" ".join)
def test_a_closed_stdout_ends_the_program_quietly(args):
    out = run_with_stdout_closed([BRAIN, *args])
    assert "Traceback" not in out.stderr and "BrokenPipeError" not in out.stderr, out.stderr
    assert out.returncode == 0
