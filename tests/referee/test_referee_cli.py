"""The ``referee`` command line end to end, with fake engines (each run bounded by a timeout)."""

import io
import json
import signal
import subprocess
import sys
import time

import pytest

from support.fakes import REFEREE, assert_all_gone, fake_argv, fake_cmd, read_pids

REF = REFEREE
SMALL = ["--size", "7", "--win-length", "4", "--turn-ms", "300", "--tolerance-ms", "300"]
# For tests whose verdicts depend on the exact game: the seeded fakes then always play the same one.
EMPTY = ["--empty-board"]
# For tests that compare whole games between runs: no move may be late, even on a loaded machine.
PATIENT = ["--tolerance-ms", "10000"]


def run(args, timeout=60):
    return subprocess.run(REF + args, capture_output=True, text=True, timeout=timeout)


def results(out):
    return [json.loads(l) for l in (out / "results.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_match_writes_records_alternates_colours_and_summarises(tmp_path):
    out = tmp_path / "m"
    pidfile = tmp_path / "pids"
    p = run(SMALL + ["--games", "4", "--concurrency", "2", "--out", str(out), "--quiet", "--log-io",
                     fake_cmd("--name", "A", "--seed", "1", "--pidfile", str(pidfile)),
                     fake_cmd("--name", "B", "--seed", "2", "--pidfile", str(pidfile))])
    assert p.returncode == 0, p.stderr
    games = sorted(results(out), key=lambda g: g["game"])
    assert [g["game"] for g in games] == [1, 2, 3, 4]
    assert [g["first"] for g in games] == [1, 2, 1, 2]
    assert all(g["engine1"] == "A" and g["engine2"] == "B" for g in games)
    for g in games:
        assert (out / f"game-{g['game']:04d}.psq").exists() and (out / f"game-{g['game']:04d}.sgf").exists()
        assert "engine1 > START 7" in (out / f"game-{g['game']:04d}.log").read_text()
    wins = sum(g["winner"] == "engine1" for g in games)
    losses = sum(g["winner"] == "engine2" for g in games)
    assert f"engine1: {wins} wins, {4 - wins - losses} draws, {losses} losses" in p.stdout
    assert "Elo difference" in p.stdout and "LOS" in p.stdout
    assert_all_gone(read_pids(pidfile))
    assert len(read_pids(pidfile)) == 2 + 8  # the start check's two, then fresh processes for every game


@pytest.mark.slow
def test_display_shows_boards_and_verdicts(tmp_path):
    p = run(SMALL + EMPTY + ["--games", "1", fake_cmd("--name", "A", "--seed", "1"),
                     fake_cmd("--name", "B", "--crash-at", "2")])
    assert p.returncode == 0, p.stderr
    assert "=== game 1/1: X A (engine1)  vs  O B (engine2)" in p.stdout
    assert "7x7, four or more in a row (freestyle)" in p.stdout
    assert "   0 1 2 3 4 5 6" in p.stdout  # board with coordinates
    assert "game 1: A (engine1) wins by crash" in p.stdout
    assert "endings: crash 1 (engine2 at fault)" in p.stdout


@pytest.mark.slow
def test_resume_continues_without_replaying(tmp_path):
    out = tmp_path / "m"
    engines = [fake_cmd("--name", "A", "--seed", "1"), fake_cmd("--name", "B", "--seed", "2")]
    p = run(SMALL + ["--games", "2", "--out", str(out), "--quiet", *engines])
    assert p.returncode == 0, p.stderr
    first_two = (out / "results.jsonl").read_text()
    p = run(SMALL + ["--games", "4", "--out", str(out), "--quiet", *engines])
    assert p.returncode == 2 and "--resume" in p.stderr  # never mixes two matches silently
    p = run(SMALL + ["--games", "4", "--out", str(out), "--quiet", "--resume", *engines])
    assert p.returncode == 0, p.stderr
    text = (out / "results.jsonl").read_text()
    assert text.startswith(first_two)
    assert sorted(g["game"] for g in results(out)) == [1, 2, 3, 4]
    assert "4 games" in p.stdout
    # the match's SGF collection: the four games once each, in game order
    games = [(out / f"game-{g:04d}.sgf").read_text().strip() for g in (1, 2, 3, 4)]
    assert (out / "match.sgf").read_text() == "\n".join(games) + "\n"


@pytest.mark.slow
def test_sprt_stops_early(tmp_path):
    out = tmp_path / "m"
    p = run(SMALL + ["--games", "300", "--out", str(out), "--quiet", "--sprt", "0", "10",
                     fake_cmd("--crash-at", "1"), fake_cmd()], timeout=180)
    assert p.returncode == 0, p.stderr
    n = len(results(out))
    # every pair lost: the pentanomial GSPRT (fishtest's, an unseen outcome counting 0.001)
    # passes its lower bound at the 101st pair
    assert n == 202
    assert "H0 accepted" in p.stdout and "SPRT (pentanomial, logistic Elo)" in p.stdout


@pytest.mark.slow
def test_openings_file_is_placed_and_shared_by_pairs(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("# test\n0,0, 1,0\nd4e5f4\n")
    out = tmp_path / "m"
    p = run(SMALL + ["--games", "4", "--openings", str(book), "--out", str(out), "--quiet",
                     fake_cmd("--seed", "1"), fake_cmd("--seed", "2")])
    assert p.returncode == 0, p.stderr
    games = sorted(results(out), key=lambda g: g["game"])
    assert [g["moves"][:2] for g in games[:2]] == [[[3, 3], [4, 3]]] * 2
    assert [g["moves"][:3] for g in games[2:]] == [[[3, 3], [4, 4], [5, 3]]] * 2
    assert [g["opening"] for g in games] == [2, 2, 3, 3]


@pytest.mark.slow
@pytest.mark.parametrize("sig,concurrency", [(signal.SIGINT, 2), (signal.SIGTERM, 2), (signal.SIGINT, 1)])
def test_interrupt_kills_every_engine_and_records_nothing(tmp_path, sig, concurrency):
    out = tmp_path / "m"
    pidfile = tmp_path / "pids"
    hang = fake_cmd("--hang-at", "1", "--spawn-child", "--pidfile", str(pidfile))
    proc = subprocess.Popen(REF + ["--turn-ms", "60000", "--games", "4", "--concurrency", str(concurrency),
                                   "--out", str(out), "--quiet", hang, hang],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    expected = 2 + 4 * concurrency  # the start check (one command, once), then per game 2 engines with a child each
    try:
        end = time.monotonic() + 20
        while len(read_pids(pidfile)) < expected and time.monotonic() < end:
            time.sleep(0.05)
        assert len(read_pids(pidfile)) == expected
        time.sleep(0.3)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert_all_gone(read_pids(pidfile))
    assert not (out / "results.jsonl").exists() or results(out) == []


@pytest.mark.parametrize("args,msg", [
    (["--size", "2"], "board width"),
    (["--size", "axb"], "size must be"),
    (["--win-length", "9", "--size", "7"], "win length"),
    (["--rule", "renju", "--win-length", "4"], "renju is played with five in a row"),
    (["--openings", "/nonexistent/book"], "--openings"),
    (["--resume"], "need --out"),
    (["--sprt", "10", "0"], "--sprt"),
    (["a", "b", "human"], "no person playing"),  # three engines are a tournament, without a person
    (["--turn-ms", "0"], "needs --match-ms"),
    (["--game", "reversi", "--draw-after", "30"], "for Reversi use --max-moves"),
    (["--max-moves", "-1"], "must be >= 0"),
])
def test_bad_arguments_exit_2(args, msg, capsys):
    from referee.cli.match import main

    with pytest.raises(SystemExit) as info:  # in-process: usage errors start no engine
        main(args)
    assert info.value.code == 2
    assert msg in capsys.readouterr().err


@pytest.mark.parametrize("sub", ["check", "script"])
def test_subcommands_are_dispatched(sub, capsys):
    from referee.cli.main import main

    with pytest.raises(SystemExit) as info:
        main([sub, "--help"])
    assert info.value.code == 0 and f"usage: referee {sub}" in capsys.readouterr().out


@pytest.mark.slow
def test_human_plays_in_a_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(REF[0], REF[1:] + ["--size", "3", "--win-length", "3", "--games", "1", "human",
                                             fake_cmd("--seed", "4")], timeout=20, encoding="utf-8")
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect(r"human \(X\) move, or 'help': ")
        child.sendline("nonsense")
        child.expect("please type two numbers")
        cells = iter(f"{x},{y}" if (x + y) % 2 else f"{x} {y}" for y in range(3) for x in range(3))
        while True:
            i = child.expect([r"move, or 'help': ", r"game 1: .*"])
            if i == 1:
                break
            child.sendline(next(cells))
        child.expect(pexpect.EOF)
        text = seen.getvalue()
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert "human vs fake (engine2): 1 game" in text and "engine1" not in text


@pytest.mark.slow
def test_end_of_input_ends_a_human_match_cleanly(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(REF[0], REF[1:] + SMALL + ["--games", "3", "human", fake_cmd("--seed", "4")],
                          timeout=20, encoding="utf-8")
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect(r"human \(X\) move, or 'help': ")
        child.sendline("3 3")
        child.expect(r"human \(X\) move, or 'help': ")
        child.sendeof()  # Ctrl-D
        child.expect(pexpect.EOF)
        text = seen.getvalue()
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert "end of input: human resigns this game and the match ends" in text
    assert "game 1: fake (engine2) wins by resign" in text and "game 2" not in text
    assert "human vs fake (engine2): 1 game" in text and "human: 0 wins, 0 draws, 1 losses" in text
    assert "human ended the match after 1 of 3 games" in text
    assert "--resume" not in text  # nothing was written, so nothing can be resumed


@pytest.mark.slow
def test_an_interrupt_without_out_does_not_promise_kept_games(tmp_path):
    pidfile = tmp_path / "pids"
    hang = fake_cmd("--hang-at", "1", "--pidfile", str(pidfile))
    proc = subprocess.Popen(REF + ["--turn-ms", "60000", "--games", "2", "--quiet", hang, hang],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 20
        while len(read_pids(pidfile)) < 3 and time.monotonic() < end:  # the check's, then the game's
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "referee: interrupted"
    assert "no game finished" in stdout and "score" not in stdout  # no made-up 0.500
    assert_all_gone(read_pids(pidfile))


@pytest.mark.slow
def test_an_engine_silent_to_about_costs_the_wait_only_once(tmp_path):
    out = tmp_path / "m"
    t = time.monotonic()
    p = run(SMALL + ["--games", "4", "--out", str(out), "--quiet",
                     fake_cmd("--no-about"), fake_cmd("--name", "B")])
    assert p.returncode == 0, p.stderr
    assert time.monotonic() - t < 1.5 * 2 + 2  # one 1.5 s ABOUT wait, not four
    assert {g["engine1"] for g in results(out)} == {"fake_brain"}


@pytest.mark.slow
def test_send_delay_option_reaches_the_engines(tmp_path):
    out = tmp_path / "m"
    rapfi_like = fake_cmd("--drop-ms", "100")
    args = ["--size", "5", "--win-length", "3", "--games", "2", "--out", str(out), "--quiet", *EMPTY,
            rapfi_like, rapfi_like]  # the empty board: an opening could let a side win before a command is dropped
    p = run(args)
    assert p.returncode == 0, p.stderr
    assert {g["termination"] for g in results(out)} == {"bad_output"}  # commands dropped without a delay
    out2 = tmp_path / "m2"
    p = run(["--send-delay-ms", "150"] + [str(out2) if a == str(out) else a for a in args])
    assert p.returncode == 0, p.stderr
    assert {g["termination"] for g in results(out2)} <= {"line", "full_board"}


def test_version_names_the_program_and_the_package():
    from engine.version import package_version

    p = run(["--version"], timeout=30)
    assert p.returncode == 0 and p.stdout.strip() == f"referee {package_version()}"


def test_shared_argument_types():
    import argparse

    from referee.cli.argtypes import board_size, nonneg_int, positive_int

    assert board_size("15") == (15, 15) and board_size("20X10") == (20, 10)
    assert nonneg_int("0") == 0 and positive_int("3") == 3
    for bad, fn in (("0", positive_int), ("-1", nonneg_int), ("x", nonneg_int), ("3x", board_size),
                    ("0x5", board_size), ("", board_size)):
        with pytest.raises(argparse.ArgumentTypeError):
            fn(bad)
    # Every value below an option's bound is refused with that bound, not a lower one.
    for bad in ("0", "-1", "-7"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be >= 1, got"):
            positive_int(bad)


@pytest.mark.slow
def test_an_engine_that_cannot_start_fails_the_match_before_any_game(tmp_path):
    out = tmp_path / "m"
    p = run(SMALL + ["--games", "4", "--out", str(out), "./no-such-engine", fake_cmd()], timeout=30)
    assert p.returncode == 2
    err = p.stderr.strip().splitlines()
    assert len(err) == 1, p.stderr  # one clear message
    assert "engine1 (./no-such-engine) cannot be started: no such file" in err[0]
    assert "no game was played" in err[0]
    assert "Elo" not in p.stdout and "game 1" not in p.stdout
    assert not out.exists()  # no empty --out folder left behind


@pytest.mark.slow
@pytest.mark.parametrize("engine,said", [
    ([sys.executable, "-c", "import sys; sys.exit('the config file is missing')"],
     "exited (exit status 1); its stderr ends: 'the config file is missing'"),
    (list(fake_argv("--start-error")), "refused START: 'ERROR unsupported size'"),
])
def test_the_start_check_says_why(tmp_path, engine, said):
    import shlex

    p = run(SMALL + ["--games", "2", fake_cmd(), shlex.join(engine)], timeout=30)
    assert p.returncode == 2
    assert "engine2 (" in p.stderr and said in p.stderr and "engine1" not in p.stderr
    assert "Elo" not in p.stdout


@pytest.mark.slow
def test_the_start_check_starts_a_command_given_twice_once(tmp_path):
    from engine.mnk.board.rules import GameConfig
    from referee.seats.startcheck import check_engines
    from referee.games.clock import TimeControl
    from referee.seats.spec import EngineSpec

    pidfile = tmp_path / "pids"
    spec = EngineSpec.parse(fake_cmd("--name", "twin", "--pidfile", str(pidfile)))
    seats = check_engines({"engine1": spec, "engine2": spec, "engine3": EngineSpec.parse("human")},
                          GameConfig(7, 7, 4), TimeControl())
    assert set(seats) == {"engine1", "engine2"} and seats["engine1"] is seats["engine2"]
    assert seats["engine1"].name == "twin" and seats["engine1"].about_answered
    assert len(read_pids(pidfile)) == 1
    assert_all_gone(read_pids(pidfile))


def _settings_of(*argv):
    from referee.cli.match import _settings, build_parser

    p = build_parser()
    args = p.parse_intermixed_args(list(argv))
    return _settings(args, p, human="human" in args.engines)


def test_the_turn_limit_defaults_by_game():
    assert _settings_of("a", "b").tc.turn_ms == 1000
    # NBoard engines set their own time: the referee's limit only catches a hung one
    assert _settings_of("a", "b", "--game", "reversi").tc.turn_ms == 60_000
    assert _settings_of("a", "b", "--game", "reversi", "--turn-ms", "500").tc.turn_ms == 500


def test_opening_defaults_random_for_engines_empty_for_a_human():
    assert _settings_of("a", "b").random_plies == (2, 4)
    assert _settings_of("a", "b").seed is None  # drawn by run_match, printed and recorded
    assert _settings_of("human", "b").random_plies == (0, 0)
    assert _settings_of("human", "b", "--random-opening", "3").random_plies == (3, 3)
    assert _settings_of("a", "b", "--random-opening", "0").random_plies == (0, 0)
    assert _settings_of("a", "b", "--empty-board").random_plies == (0, 0)
    assert _settings_of("a", "b", "--seed", "9").seed == 9
    assert not _settings_of("a", "b", "--empty-board").random_openings


@pytest.mark.parametrize("args", [["--openings", "x", "--empty-board"], ["--openings", "x", "--random-opening", "2"],
                                  ["--empty-board", "--random-opening", "2"]])
def test_opening_options_exclude_each_other(args):
    with pytest.raises(SystemExit):
        _settings_of("a", "b", *args)


def _moves(out):
    return {g["game"]: g["moves"] for g in results(out)}


@pytest.mark.slow
def test_default_openings_vary_the_games_and_the_printed_seed_repeats_them(tmp_path):
    import re

    engines = [fake_cmd("--seed", "1"), fake_cmd("--seed", "2")]  # deterministic: same position, same move
    p = run(SMALL + PATIENT + ["--games", "4", "--out", str(tmp_path / "a"), *engines])
    assert p.returncode == 0, p.stderr
    seed = int(re.search(r"openings: random, 2 stones .* seed (\d+) \(--seed \1 repeats them\)", p.stdout).group(1))
    games = sorted(results(tmp_path / "a"), key=lambda g: g["game"])
    assert all(g["seed"] == seed and g["opening"] == 2 for g in games)  # four in a row: 2 stones
    for a, b in ((0, 1), (2, 3)):  # a pair shares its opening, colours swapped
        n = games[a]["opening"]
        assert games[a]["moves"][:n] == games[b]["moves"][:n] and games[a]["first"] != games[b]["first"]
    p = run(SMALL + PATIENT + ["--games", "4", "--out", str(tmp_path / "b"), "--seed", str(seed), *engines])
    assert p.returncode == 0, p.stderr
    assert _moves(tmp_path / "b") == _moves(tmp_path / "a")  # the same match again
    p = run(SMALL + PATIENT + ["--games", "4", "--out", str(tmp_path / "c"), "--seed", "3", *engines])
    moves = _moves(tmp_path / "c")
    assert moves[1] != moves[3] and moves[2] != moves[4]  # seed 3: pairs start differently


@pytest.mark.slow
@pytest.mark.parametrize("flag", [["--random-opening", "0"], ["--empty-board"]])
def test_the_empty_board_can_be_asked_for(tmp_path, flag):
    out = tmp_path / "m"
    p = run(SMALL + PATIENT + ["--games", "4", "--out", str(out), *flag, fake_cmd("--name", "A", "--seed", "1"),
                               fake_cmd("--name", "B", "--seed", "2")])
    assert p.returncode == 0, p.stderr
    assert "seed" not in p.stdout
    games = results(out)
    assert all(g["opening"] == 0 and g["seed"] is None for g in games)
    moves = _moves(out)
    assert moves[1] == moves[3]  # deterministic engines, same colours, same board: the same game


@pytest.mark.slow
def test_resume_keeps_the_recorded_seed(tmp_path):
    out = tmp_path / "m"
    engines = [fake_cmd("--seed", "1"), fake_cmd("--seed", "2")]
    assert run(SMALL + ["--games", "2", "--out", str(out), "--quiet", *engines]).returncode == 0
    seed = results(out)[0]["seed"]
    p = run(SMALL + ["--games", "4", "--out", str(out), "--quiet", "--resume", "--seed", str(seed + 1), *engines])
    assert p.returncode == 2 and f"--seed {seed}" in p.stderr
    p = run(SMALL + ["--games", "4", "--out", str(out), "--quiet", "--resume", *engines])
    assert p.returncode == 0, p.stderr
    games = sorted(results(out), key=lambda g: g["game"])
    assert [g["seed"] for g in games] == [seed] * 4
    n = games[2]["opening"]
    assert games[2]["moves"][:n] == games[3]["moves"][:n]  # the resumed pair shares its opening
    assert f"seed {seed}" in p.stdout  # the summary names it


@pytest.mark.slow
def test_display_modes(tmp_path):
    engines = [fake_cmd("--name", "A", "--seed", "1"), fake_cmd("--name", "B", "--seed", "2")]
    board_head = "   0 1 2 3 4 5 6"
    common = SMALL + PATIENT + EMPTY + ["--games", "2", *engines]
    shown = {}
    for mode in ("board", "moves", "games", "none"):
        p = run(common + ["--display", mode])
        assert p.returncode == 0, p.stderr
        shown[mode] = p.stdout
    import re

    def move_lines(text):
        return len(re.findall(r"^game \d move \d+: ", text, re.M))

    moves = move_lines(shown["moves"])
    assert moves > 10 and move_lines(shown["board"]) == moves  # one line per move in both
    assert shown["board"].count(board_head) == moves  # a board after every move
    assert shown["moves"].count(board_head) == 2  # only the final boards
    assert move_lines(shown["games"]) == 0 and shown["games"].count(board_head) == 2
    for mode in ("board", "moves", "games"):
        out = shown[mode]
        assert "=== game 1/2: X A (engine1)  vs  O B (engine2)" in out and "game 2: " in out
        legend = "(lower case: the last move; on the final board of a won game, the winning line)"
        assert out.count(legend) == 1  # one legend, where the first board appears
        assert out.index(legend) < out.index(board_head) if mode == "board" else \
            out.index(legend) > out.index(board_head)
    assert shown["none"].splitlines()[0] == "A (engine1) vs B (engine2): 2 games"
    assert board_head not in shown["none"] and "game 1" not in shown["none"] and "lower case" not in shown["none"]
    p = run(common + ["--quiet"])
    assert p.stdout == shown["none"]


def test_board_display_needs_one_game_at_a_time(capsys):
    with pytest.raises(SystemExit) as info:
        _settings_of("--display", "board", "--concurrency", "2", "a", "b")
    assert info.value.code == 2 and "--display board shows one game at a time" in capsys.readouterr().err
    assert _settings_of("--display", "board", "--concurrency", "2", "human", "b").display == "board"


def test_help_describes_the_real_defaults():
    from referee.cli.match import build_parser

    text = " ".join(build_parser().format_help().split())
    assert "python -m protocol" not in text
    assert "a missing ENGINE is this project's engine: pbrain-mcts, or nboard-mcts for --game reversi" in text
    assert "seed of the random openings and of the built-in random mover's moves (default: drawn at random" in text
    assert "2-4 random stones near the centre" in text and "--empty-board" in text
    assert "'moves' = one line per move and the final board (the default otherwise)" in text
    assert "'undo'" in text and "Ctrl-D" in text and "exit status" in text


def test_engine_words_starting_with_a_tilde_are_expanded():
    import os

    from referee.seats.spec import EngineSpec

    spec = EngineSpec.parse("~/engines/pbrain-x --config ~/x.cfg --name=~a")
    home = os.path.expanduser("~")
    assert spec.argv == (f"{home}/engines/pbrain-x", "--config", f"{home}/x.cfg", "--name=~a")


def test_an_unquoted_engine_option_gets_a_hint(capsys):
    from referee.cli.match import main

    with pytest.raises(SystemExit) as info:
        main(["./pbrain-x", "--fast"])
    assert info.value.code == 2
    assert "inside its quoted command line" in capsys.readouterr().err


@pytest.mark.slow
def test_a_closed_output_pipe_ends_the_match_quietly(tmp_path):
    pidfile = tmp_path / "pids"
    engine = fake_cmd("--pidfile", str(pidfile), "--sleep-at", "2", "--sleep-ms", "50")
    proc = subprocess.Popen(REF + SMALL + ["--games", "50", engine, engine],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        while not proc.stdout.readline().startswith(b"game 1 move"):  # a game is under way
            pass
        proc.stdout.close()  # like '| head'
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1
    assert b"Traceback" not in err and b"BrokenPipe" not in err
    assert_all_gone(read_pids(pidfile))
