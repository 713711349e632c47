"""Reversi under the referee: NBoard engines judged move by move, forced passes, the disc count,
every misbehaviour's verdict, and no process left behind.

The engines are the fake NBoard engine (tests/support/fake_nboard.py, quick to
start) and the built-in random mover (no process).
"""

import io
import random

import pytest

from engine.reversi.board.rules import ReversiConfig
from support.fakes import assert_all_gone, nboard_argv, read_pids
from referee.games.clock import TimeControl
from referee.play.game import play_game
from referee.games import rules_for
from referee.seats.factory import open_seat
from referee.seats.nboard import NboardSeat
from referee.seats.random_seat import RandomSeat
from referee.seats.spec import EngineSpec, name_from_argv

CFG = ReversiConfig(8)
RULES = rules_for(CFG)
FAST = TimeControl(turn_ms=300, match_ms=0, tolerance_ms=200, start_ms=5000)


def nboard(pidfile, *opts, log=None, tag="engine1"):
    argv = nboard_argv("--pidfile", str(pidfile), *opts)
    return NboardSeat(EngineSpec(argv, name_from_argv(argv)), log=log, tag=tag)


def play_fake(tmp_path, *opts, first=1, tc=FAST, opening=()):
    """The fake engine (engine1) with ``opts`` against the random mover; every process gone afterwards."""
    pidfile = tmp_path / "pids"
    log = io.StringIO()
    seats = [nboard(pidfile, "--seed", "1", *opts, log=log), RandomSeat(seed=2)]
    r = play_game(seats, game=1, first=first, config=CFG, tc=tc, opening=opening)
    assert_all_gone(read_pids(pidfile))
    return r, log.getvalue()


def check_disc_verdict(r):
    """A game ended by the board: the referee's replay, the recorded discs and the winner agree."""
    state = RULES.replay(r.moves)
    assert state.is_terminal()
    b, w = state.discs()
    assert r.termination == "discs" and r.discs == [b, w] and f"black {b}, white {w}" in r.reason
    assert r.disc_diff == state.disc_differential()
    black = "engine1" if r.first == 1 else "engine2"
    white = "engine2" if r.first == 1 else "engine1"
    assert r.winner == (None if b == w else black if b > w else white)
    assert len(r.times_ms) == len(r.moves)


def test_random_movers_play_whole_games_with_forced_passes_and_a_disc_verdict():
    passes = 0
    for g in range(1, 31):
        seats = [RandomSeat(seed=g), RandomSeat(seed=1000 + g)]
        r = play_game(seats, game=g, first=1 + g % 2, config=CFG, tc=FAST)
        check_disc_verdict(r)
        state = RULES.new_state()
        for word, ms in zip(r.moves, r.times_ms):
            move = state.text_to_move(word)
            if move == state.pass_move:
                passes += 1
                assert state.legal_moves() == [state.pass_move] and ms == 0  # only forced, on no clock
            state.apply(move)
    assert passes > 0  # thirty random games hold a forced pass (else the test proves nothing)


def test_a_draw_is_a_draw():
    # Random games from a seed search: find one that ends equal, then check its verdict.
    for g in range(1, 400):
        r = play_game([RandomSeat(seed=g), RandomSeat(seed=-g)], game=1, first=1, config=CFG, tc=FAST)
        if r.discs[0] == r.discs[1]:
            assert r.winner is None and r.termination == "discs" and "a draw" in r.reason
            return
    pytest.skip("no drawn random game among the seeds tried")


def test_fake_engine_plays_a_whole_game_and_the_referee_counts_the_discs(tmp_path):
    r, log = play_fake(tmp_path, "--name", "fakey", "--chatter")
    check_disc_verdict(r)
    assert r.engine1 == "fakey"  # set myname
    assert "engine1 > nboard 2" in log and "engine1 > ping 1" in log and "engine1 > go" in log
    assert any(m.startswith("status") for m in r.messages["engine1"])


def test_edax_style_answers_are_understood(tmp_path):
    r, _ = play_fake(tmp_path, "--edax-style", first=2)
    check_disc_verdict(r)


def test_an_opening_is_sent_as_set_game_and_kept_in_the_record(tmp_path):
    opening = RULES.random_opening(5, random.Random(3))
    r, log = play_fake(tmp_path, opening=opening)
    check_disc_verdict(r)
    assert r.opening == 5 and r.times_ms[:5] == [0] * 5
    assert "engine1 > set game (;GM[Othello]" in log


@pytest.mark.parametrize("opts,termination,words", [
    (("--illegal-at", "2"), "illegal_move", "occupied"),
    (("--noflip-at", "2"), "illegal_move", "flips nothing"),
    (("--pass-at", "2"), "illegal_move", "passed with legal moves left"),
    (("--offboard-at", "2"), "illegal_move", "off the 8x8 board"),
    (("--garbage-at", "2"), "bad_output", "instead of a move"),
    (("--binary-at", "2"), "timeout", "did not move within"),
    (("--sleep-at", "2", "--sleep-ms", "900"), "timeout", "did not move within"),
    (("--crash-at", "2"), "crash", "exit status 3"),
    (("--hang-at", "2"), "timeout", "did not move within"),
    (("--no-pong",), "start_failed", "did not answer ping 1"),
])
def test_each_misbehaviour_loses_with_its_termination(tmp_path, opts, termination, words):
    tc = TimeControl(turn_ms=300, tolerance_ms=200, start_ms=800)  # a silent start fails soon
    r, _ = play_fake(tmp_path, *opts, tc=tc)
    assert r.termination == termination, r.reason
    assert r.winner == "engine2" and words in r.reason, r.reason
    assert r.reason.startswith("fake_nboard"), r.reason  # the reason names who did it
    assert r.disc_diff == -64  # the whole board to the winner (engine2 is white)


def test_a_late_move_within_the_wait_is_still_a_timeout(tmp_path):
    # over the 300 ms limit plus 50 ms tolerance, but read before the referee stopped waiting
    tc = TimeControl(turn_ms=300, tolerance_ms=50, start_ms=5000)
    r, _ = play_fake(tmp_path, "--sleep-at", "2", "--sleep-ms", "380", tc=tc)
    assert r.termination == "timeout" and r.winner == "engine2"
    assert "did not move within 350 ms" in r.reason or "took" in r.reason


def test_open_seat_gives_each_spec_its_seat():
    assert isinstance(open_seat(EngineSpec.parse("random"), CFG), RandomSeat)
    assert isinstance(open_seat(EngineSpec.parse("./x"), CFG), NboardSeat)


def test_forced_pass_is_the_only_legal_pass():
    # the first forced pass of random games: the rules give it, and PA is legal only there
    rules = RULES
    for seed in range(200):
        s = rules.new_state()
        rng = random.Random(seed)
        while not s.is_terminal():
            if rules.forced_pass(s) is not None:
                assert s.legal_moves() == [s.pass_move]
                assert rules.judge(s, "PA") == s.pass_move  # a pass with no move left is legal
                return
            s.apply(rng.choice(s.legal_moves()))
    pytest.fail("no forced pass in 200 random games")


def human(answers):
    from referee.seats.human import HumanSeat

    out = io.StringIO()
    it = iter(answers)

    def ask(prompt):
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return HumanSeat(input_fn=ask, output=out, show_board=True), out


def test_a_person_plays_reversi_with_three_tries_for_illegal_moves():
    seat, out = human(["help", "f5", "a1", "pass", "zz", "h8"])  # f5 legal; then three illegal tries
    r = play_game([seat, RandomSeat(seed=1)], game=1, first=1, config=CFG, tc=FAST)
    text = out.getvalue()
    assert "column letter and row number" in text and "legal moves (marked *)" in text
    assert "2 tries left" in text and "1 try left" in text and "that was the last try" in text
    assert r.moves[0] == "f5" and r.termination == "illegal_move" and r.winner == "engine2"
    assert "a1, pass, h8" in r.reason


def test_a_person_can_take_back_a_reversi_move():
    seat, out = human(["f5", "undo", "d3", "resign"])
    r = play_game([seat, RandomSeat(seed=1)], game=1, first=1, config=CFG, tc=FAST)
    assert "taken back" in out.getvalue()
    assert r.moves[0] == "d3" and r.termination == "resign" and r.winner == "engine2"


def test_the_shipped_nboard_random_engine_plays_whole_games_as_a_process():
    import sys
    argv = (sys.executable, "-m", "referee.engines.random_engine", "--nboard", "--seed")
    for g in (1, 2):
        seats = [NboardSeat(EngineSpec(argv + (str(g),), "random"), tag="engine1"),
                 NboardSeat(EngineSpec(argv + (str(10 + g),), "random"), tag="engine2")]
        check_disc_verdict(play_game(seats, game=g, first=g, config=CFG, tc=FAST))


def test_the_nboard_random_engine_reports_bad_input_and_keeps_its_position():
    from referee.engines.random_engine import RandomNboard
    e = RandomNboard(random.Random(1))
    assert e.handle("move f5") == ([], False)
    before = e.state.clone()
    for bad in ("move f5", "move zz", "set game (;GM[Othello]BO[garbage];)"):
        replies, done = e.handle(bad)
        assert not done and len(replies) == 1 and replies[0].startswith("status ")
        assert e.state.key() == before.key()
    reply = e.handle("go")[0][0]
    assert reply.startswith("=== ") and e.state.text_to_move(reply[4:].lower()) in e.state.legal_moves()
    assert e.handle("ping 7") == (["pong 7"], False) and e.handle("quit") == ([], True)
