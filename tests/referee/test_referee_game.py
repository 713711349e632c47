"""One game under the referee: every kind of misbehaviour gets the right verdict, nothing is left running."""

import io
import threading
import time

import pytest

from engine.mnk.board.rules import Board, GameConfig, Player, Rule
from support.fakes import assert_all_gone, fake_argv, read_pids
from referee.play.game import play_game
from referee.games.clock import TimeControl
from referee.seats.gomocup import GomocupSeat
from referee.seats.human import HumanSeat
from referee.seats.spec import EngineSpec, name_from_argv

pytestmark = pytest.mark.slow  # every test here plays games with engine processes

SMALL = GameConfig(7, 7, 4)
FAST = TimeControl(turn_ms=300, match_ms=0, tolerance_ms=200, start_ms=5000, about_ms=1000)


def seat(pidfile, *opts, delay=0, log=None, tag=None, stop=None):
    argv = fake_argv("--pidfile", str(pidfile), *opts)
    return GomocupSeat(EngineSpec(argv, name_from_argv(argv), delay), log=log, tag=tag, stop=stop)


def play(tmp_path, opts1=(), opts2=(), *, config=SMALL, tc=FAST, first=1, opening=(), delay=0, stop=None):
    """Play one game between two fakes; check that every process is gone afterwards."""
    pidfile = tmp_path / "pids"
    log = io.StringIO()
    seats = [seat(pidfile, "--name", "one", "--seed", "1", *opts1, delay=delay, log=log, tag="engine1", stop=stop),
             seat(pidfile, "--name", "two", "--seed", "2", *opts2, delay=delay, log=log, tag="engine2", stop=stop)]
    r = play_game(seats, game=1, first=first, config=config, tc=tc, opening=opening, stop=stop)
    assert_all_gone(read_pids(pidfile))
    return r, log.getvalue()


def replay(config, moves):
    b = Board(config)
    for x, y in moves:
        b.play(config.move(x, y))
    return b


def test_normal_game_ends_by_the_referees_own_board(tmp_path):
    r, log = play(tmp_path)
    assert (r.engine1, r.engine2) == ("one", "two")  # names from ABOUT
    b = replay(SMALL, r.moves)
    assert r.termination in ("line", "full_board")
    if r.termination == "line":
        winner_colour = Player.FIRST if len(r.moves) % 2 == 1 else Player.SECOND
        assert b.winner == winner_colour
        assert r.winner == ("engine1" if winner_colour == Player.FIRST else "engine2")  # engine1 is X
    else:
        assert r.winner is None and b.is_full
    assert len(r.times_ms) == len(r.moves)
    assert "engine1 > BEGIN" in log and "engine2 > BEGIN" not in log
    x, y = r.moves[0]
    assert f"engine2 > TURN {x},{y}" in log and "BOARD" not in log
    lines = log.splitlines()
    first_begin = next(i for i, l in enumerate(lines) if l.endswith("engine1 > BEGIN"))
    assert lines[first_begin - 1].endswith("engine1 > INFO time_left 2147483647")
    for line in ("INFO timeout_turn 300", "INFO timeout_match 0", "INFO win_length 4", "INFO rule 0", "START 7"):
        assert f"engine1 > {line}" in log and f"engine2 > {line}" in log


def test_first_2_gives_engine2_the_first_move_and_the_win_credit(tmp_path):
    r, log = play(tmp_path, first=2, config=GameConfig(5, 5, 3))
    assert r.first == 2
    assert "engine2 > BEGIN" in log and "engine1 > BEGIN" not in log
    if r.termination == "line":
        x_won = len(r.moves) % 2 == 1
        assert r.winner == ("engine2" if x_won else "engine1")


def test_crash_loses(tmp_path):
    r, _ = play(tmp_path, opts1=("--crash-at", "3"))
    assert (r.termination, r.winner) == ("crash", "engine2")
    assert "exit status 3" in r.reason
    assert len(r.moves) == 4  # engine1 made two moves, engine2 two


def test_hang_is_a_timeout_and_is_killed_with_its_children(tmp_path):
    t = time.monotonic()
    r, _ = play(tmp_path, opts2=("--hang-at", "2", "--spawn-child"))
    assert (r.termination, r.winner) == ("timeout", "engine1")
    assert time.monotonic() - t < 5


def test_sleeping_past_turn_time_plus_tolerance_loses(tmp_path):
    r, _ = play(tmp_path, opts1=("--sleep-at", "2", "--sleep-ms", "900"))
    assert (r.termination, r.winner) == ("timeout", "engine2")
    assert "500 ms" in r.reason


def test_a_late_move_within_tolerance_is_accepted(tmp_path):
    tc = TimeControl(turn_ms=100, tolerance_ms=600)
    r, _ = play(tmp_path, opts1=("--sleep-at", "1", "--sleep-ms", "250"), tc=tc)
    assert r.termination in ("line", "full_board")
    assert r.times_ms[0] >= 240


def test_match_clock_runs_out(tmp_path):
    tc = TimeControl(turn_ms=5000, match_ms=300, tolerance_ms=100)
    r, log = play(tmp_path, opts1=("--sleep-at", "1", "--sleep-ms", "700"), tc=tc)
    assert (r.termination, r.winner) == ("timeout", "engine2")
    assert "engine1 > INFO time_left 300" in log and "engine1 > INFO timeout_match 300" in log


@pytest.mark.parametrize("opt", ["--occupied-at", "--offboard-at"])
def test_illegal_moves_lose(tmp_path, opt):
    r, _ = play(tmp_path, opts2=(opt, "2"))
    assert (r.termination, r.winner) == ("illegal_move", "engine1")
    assert ("occupied" if opt == "--occupied-at" else "off the 7x7 board") in r.reason
    assert len(r.moves) == 3  # the illegal move is not recorded


def test_garbage_is_bad_output(tmp_path):
    r, _ = play(tmp_path, opts1=("--garbage-at", "2"))
    assert (r.termination, r.winner) == ("bad_output", "engine2")


def test_error_to_start_is_start_failed(tmp_path):
    r, _ = play(tmp_path, opts2=("--start-error",))
    assert (r.termination, r.winner, r.moves) == ("start_failed", "engine1", [])
    assert "ERROR unsupported size" in r.reason


def test_no_answer_to_start_is_start_failed(tmp_path):
    tc = TimeControl(turn_ms=300, tolerance_ms=200, start_ms=400)
    t = time.monotonic()
    r, _ = play(tmp_path, opts1=("--no-start-reply",), tc=tc)
    assert (r.termination, r.winner) == ("start_failed", "engine2")
    assert time.monotonic() - t < 3


def test_an_engine_that_never_answers_about_is_named_after_its_command(tmp_path):
    tc = TimeControl(turn_ms=300, tolerance_ms=200, about_ms=300)
    r, _ = play(tmp_path, opts1=("--no-about",), tc=tc)
    assert r.engine1 == "fake_brain" and r.engine2 == "two"
    assert r.termination in ("line", "full_board")


def test_trailing_text_and_messages_are_not_moves(tmp_path):
    r, _ = play(tmp_path, opts1=("--trailing", "--messages", "3", "--big-message"))
    assert r.termination in ("line", "full_board")
    assert "MESSAGE thinking 0 best 7,7" in r.messages["engine1"]
    assert any(m.startswith("DEBUG depth") for m in r.messages["engine1"])
    assert all(len(m) <= 301 for m in r.messages["engine1"])


def test_rapfi_like_engine_needs_a_send_delay(tmp_path):
    # engine2 drops any command arriving within 100 ms of its own move (Rapfi does so within ~20 ms;
    # the wider window keeps the test deterministic on a loaded machine)
    cfg = GameConfig(5, 5, 3)
    pidfile = tmp_path / "pids"
    for delay, ok in ((0, False), (150, True)):
        seats = [seat(pidfile, "--seed", "1"), seat(pidfile, "--seed", "2", "--drop-ms", "100", delay=delay)]
        r = play_game(seats, game=1, first=1, config=cfg, tc=FAST)
        if ok:
            assert r.termination in ("line", "full_board"), r.reason
        else:
            assert (r.termination, r.winner) == ("bad_output", "engine1")
            assert "ERROR Unknown command" in r.reason
    assert_all_gone(read_pids(pidfile))


def test_opening_is_sent_as_board_to_each_side_once(tmp_path):
    cfg = GameConfig(9, 9, 4)
    opening = [cfg.move(4, 4), cfg.move(5, 4), cfg.move(4, 5)]  # X O X: O (engine2) moves next
    r, log = play(tmp_path, config=cfg, opening=opening)
    assert r.opening == 3 and r.moves[:3] == [[4, 4], [5, 4], [4, 5]] and r.times_ms[:3] == [0, 0, 0]
    assert "BEGIN" not in log
    e2 = [l.split(" > ", 1)[1] for l in log.splitlines() if " engine2 > " in l]
    i = e2.index("BOARD")
    assert e2[i + 1:i + 5] == ["4,4,2", "5,4,1", "4,5,2", "DONE"]  # from engine2's point of view
    e1 = [l.split(" > ", 1)[1] for l in log.splitlines() if " engine1 > " in l]
    j = e1.index("BOARD")
    x, y = r.moves[3]
    assert e1[j + 1:j + 6] == ["4,4,1", "5,4,2", "4,5,1", f"{x},{y},2", "DONE"]
    assert e1.count("BOARD") == 1 and e2.count("BOARD") == 1
    replay(cfg, r.moves)  # every recorded stone is legal


def test_rectangular_board_uses_rectstart_and_exact_rule_bits(tmp_path):
    cfg = GameConfig(9, 6, 4, Rule.EXACT)
    r, log = play(tmp_path, config=cfg)
    assert "engine1 > RECTSTART 9,6" in log and "engine2 > INFO rule 1" in log
    assert all(0 <= x < 9 and 0 <= y < 6 for x, y in r.moves)


def test_stop_interrupts_a_game_promptly(tmp_path):
    stop = threading.Event()
    timer = threading.Timer(0.5, stop.set)
    timer.start()
    tc = TimeControl(turn_ms=60000, tolerance_ms=1000)
    t = time.monotonic()
    try:
        r, _ = play(tmp_path, opts2=("--hang-at", "1"), tc=tc, stop=stop)
    finally:
        timer.cancel()
    assert r.termination == "interrupted" and r.winner is None
    assert time.monotonic() - t < 5


def test_human_is_reprompted_on_bad_input(tmp_path):
    pidfile = tmp_path / "pids"
    cfg = GameConfig(3, 3, 3)
    answers = iter(["hello", "5,5", *[f"{x},{y}" for y in range(3) for x in range(3)] * 2])
    out = io.StringIO()
    human = HumanSeat(input_fn=lambda prompt: next(answers), output=out)
    r = play_game([human, seat(pidfile, "--seed", "3")], game=1, first=1, config=cfg, tc=FAST)
    assert_all_gone(read_pids(pidfile))
    text = out.getvalue()
    assert "please type two numbers" in text and "off the 3x3 board" in text
    assert r.termination in ("line", "full_board")
    replay(cfg, r.moves)


@pytest.mark.parametrize("argv,msg", [
    (("/nonexistent/pbrain-none",), "cannot start"),
    (("false",), "exited"),
])
def test_engines_that_cannot_start_lose_by_start_failed(tmp_path, argv, msg):
    pidfile = tmp_path / "pids"
    bad = GomocupSeat(EngineSpec(argv, "bad"))
    r = play_game([seat(pidfile), bad], game=1, first=1, config=SMALL, tc=FAST)
    assert (r.termination, r.winner, r.moves) == ("start_failed", "engine1", [])
    assert msg in r.reason
    assert_all_gone(read_pids(pidfile))


def test_win_length_info_is_sent_only_when_not_five(tmp_path):
    # Five in a row is the protocol's default; some engines (Rapfi) misread unknown INFO keys.
    _, log5 = play(tmp_path, config=GameConfig(9, 9, 5))
    assert "INFO win_length" not in log5 and "START 9" in log5
    _, log4 = play(tmp_path, config=SMALL)
    assert "INFO win_length 4" in log4
