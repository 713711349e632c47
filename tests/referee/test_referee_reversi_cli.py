"""``referee --game reversi`` end to end: records (GGF and results.jsonl), --resume, the display,
the options that do not apply, and a real short match of nboard-mcts against the random mover."""

import json
import subprocess
import sys

import pytest

from engine.reversi.board.ggf import parse_ggf
from engine.reversi.board.rules import ReversiState
from support.fakes import REFEREE, assert_all_gone, nboard_cmd, read_pids

REF = [*REFEREE, "--game", "reversi"]
FAST = ["--turn-ms", "300", "--tolerance-ms", "1000"]


def run(args, timeout=60):
    return subprocess.run(REF + args, capture_output=True, text=True, timeout=timeout)


def results(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def check_records(out, games, size=8):
    """Every game's GGF parses back, replays to the recorded discs, and agrees with the verdict."""
    recs = results(out)
    assert [r["game"] for r in recs] == list(range(1, games + 1))
    for r in recs:
        assert r["game_type"] == "reversi" and r["width"] == r["height"] == size
        ggf = parse_ggf((out / f"game-{r['game']:04d}.ggf").read_text())
        final = ggf.position()
        state = ReversiState(size)
        for word in r["moves"]:
            state.apply(state.text_to_move(word))
        assert final.snapshot() == state.snapshot()
        black, white = ("engine1", "engine2") if r["first"] == 1 else ("engine2", "engine1")
        assert ggf.tags["PB"] == r[black] and ggf.tags["PW"] == r[white] and ggf.tags["TE"] == r["termination"]
        if r["termination"] == "discs":
            b, w = final.discs()
            assert final.is_terminal() and r["discs"] == [b, w] and f"black {b}, white {w}" in r["reason"]
            assert int(ggf.tags["RE"]) == r["disc_diff"] == final.disc_differential()
            assert r["winner"] == (None if b == w else black if b > w else white)
    # the match file: every recorded game once, in game order, each as its own file has it
    match = (out / "match.ggf").read_text().splitlines()
    assert match == [(out / f"game-{r['game']:04d}.ggf").read_text().strip() for r in recs]
    return recs


def two_games(tmp_path):
    """A recorded two-game match of the fake engine against the random mover: (its records, stdout, ...)."""
    pidfile = tmp_path / "pids"
    out = tmp_path / "run"
    eng = nboard_cmd("--pidfile", str(pidfile), "--seed", "5", "--name", "fakey")
    p = run([eng, "random", "--games", "2", "--out", str(out), "--display", "board"] + FAST)
    assert p.returncode == 0, p.stderr
    assert_all_gone(read_pids(pidfile))
    return check_records(out, 2), p.stdout, out, eng, pidfile


def test_a_reversi_match_is_recorded_as_ggf_with_boards_shown(tmp_path):
    recs, stdout, *_ = two_games(tmp_path)
    assert [r["first"] for r in recs] == [1, 2] and recs[0]["opening"] == recs[1]["opening"] >= 4
    assert recs[0]["moves"][:recs[0]["opening"]] == recs[1]["moves"][:recs[1]["opening"]]  # a shared opening
    assert "a b c d e f g h" in stdout and "fakey (engine1) vs random (engine2): 2 games" in stdout
    assert "openings: random, " in stdout and "legal plies" in stdout
    assert "as black (first): " in stdout and "game 1 move " in stdout


@pytest.mark.slow
def test_a_reversi_match_resumes(tmp_path):
    recs, _, out, eng, pidfile = two_games(tmp_path)
    p = run([eng, "random", "--games", "3", "--out", str(out), "--resume", "--display", "none"] + FAST)
    assert p.returncode == 0, p.stderr
    again = check_records(out, 3)
    assert again[:2] == recs and again[2]["seed"] == recs[0]["seed"]  # the resumed match keeps its seed
    assert "3 games" in p.stdout
    assert_all_gone(read_pids(pidfile))


def test_a_faulty_engine_loses_every_game_with_a_reason(tmp_path):
    out = tmp_path / "run"
    p = run([nboard_cmd("--pass-at", "1"), "random", "--games", "2", "--out", str(out), "--empty-board",
             "--display", "games"] + FAST)
    assert p.returncode == 0, p.stderr
    recs = check_records(out, 2)
    assert all(r["termination"] == "illegal_move" and r["winner"] == "engine2" for r in recs)
    assert all("passed with legal moves left" in r["reason"] for r in recs)
    assert all(r["opening"] == 0 for r in recs)
    assert "illegal_move 2 (engine1 at fault)" in p.stdout


@pytest.mark.parametrize("opt, words", [(["--win-length", "4"], "not a Reversi option"),
                                        (["--rule", "exact"], "not a Reversi option"),
                                        (["--size", "7"], "even number from 4 to 16"),
                                        (["--size", "18"], "even number from 4 to 16"),
                                        (["--size", "8x6"], "square")])
def test_options_that_make_no_reversi_game_are_refused(opt, words, capsys):
    from referee.cli.match import main

    with pytest.raises(SystemExit) as info:
        main(["--game", "reversi", *opt])
    assert info.value.code == 2 and words in capsys.readouterr().err


def test_a_reversi_match_on_another_board_size(tmp_path):
    out = tmp_path / "run"
    p = run(["random", "random", "--size", "6", "--games", "2", "--out", str(out), "--display", "none"] + FAST)
    assert p.returncode == 0, p.stderr
    for r in check_records(out, 2, size=6):
        assert r["termination"] == "discs" and sum(r["discs"]) <= 36


def test_the_default_engine_follows_the_game():
    from referee.cli.match import default_engine

    assert default_engine(game="reversi").argv[1:] == ("-m", "protocol.nboard")
    assert default_engine(game="reversi", turn_ms=100).argv[1:] == ("-m", "protocol.nboard", "--move-ms", "90")
    assert default_engine().argv[1:] == ("-m", "protocol.gomocup")


@pytest.mark.slow
def test_nboard_mcts_against_random_for_two_games(tmp_path):
    out = tmp_path / "run"
    mcts = f"{sys.executable} -m protocol.nboard --move-ms 30"
    p = run([mcts, "random", "--games", "2", "--out", str(out), "--turn-ms", "1000", "--display", "none"],
            timeout=180)
    assert p.returncode == 0, p.stderr
    recs = check_records(out, 2)
    assert all(r["termination"] == "discs" for r in recs)
    assert "nboard-mcts" in recs[0]["engine1"]


@pytest.mark.slow
def test_a_person_plays_a_whole_reversi_game_in_a_terminal():
    pexpect = pytest.importorskip("pexpect")
    import io
    import re

    child = pexpect.spawn(REF[0], REF[1:] + ["--size", "4", "--games", "1", "human", "random"], timeout=20,
                          encoding="utf-8")
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect(r"legal moves \(marked \*\): ([a-d1-4 ]+)\r?\n")
        legal = child.match.group(1).split()
        child.expect(r"human \(black\) move, or 'help': ")
        wrong = next(sq for sq in ("a1", "a4", "d1", "d4") if sq not in legal)
        child.sendline(wrong)  # a corner is never legal on the first move: refused, one try gone
        child.expect(r"move, or 'help': ")
        child.sendline(legal[0])
        while True:
            i = child.expect([r"legal moves \(marked \*\): ([a-d1-4 ]+)\r?\n", r"game 1: [^\r\n]*"])
            if i == 1:
                break
            legal = child.match.group(1).split()
            child.expect(r"move, or 'help': ")
            child.sendline(legal[0])
        child.expect(pexpect.EOF)
        text = seen.getvalue()
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert re.search(r"game 1: .* by discs", text) and "human vs random (engine2): 1 game" in text
    assert f"{wrong} flips nothing; legal: " in text and "(2 tries left)" in text
