"""Every verdict, in memory: scripted engines (``MockTransport``) behind the real Gomocup and
NBoard seats, played by the real ``play_game``, without a process (the fast tier).

The real-process counterparts, for the process layer, are in test_referee_game.py,
test_referee_reversi.py and test_referee_flood.py.
"""

from __future__ import annotations

import re

import pytest

from engine.mnk.board.rules import GameConfig
from engine.reversi.board.rules import ReversiConfig
from support.mock_transport import MockTransport
from referee.engines.process import EngineProcess
from referee.engines.transport import Transport
from referee.games.clock import TimeControl
from referee.play.game import play_game
from referee.seats.base import Seat
from referee.seats.gomocup import GomocupSeat
from referee.seats.nboard import NboardSeat
from referee.seats.process import MAX_KEPT_MESSAGES
from referee.seats.spec import EngineSpec

SMALL = GameConfig(7, 7, 4)
TC = TimeControl(turn_ms=300, match_ms=0, tolerance_ms=200, start_ms=1000, about_ms=500)
TURN = re.compile(r"TURN \d+,\d+")
LONG = "7," + "7" * 70_000  # a line of more than 64 kB


def test_the_engine_process_and_the_mock_are_both_transports():
    assert isinstance(EngineProcess(["pbrain-none"], name="x"), Transport)  # not started: no process
    assert isinstance(MockTransport(), Transport)


# Gomocup --------------------------------------------------------------------------------------

def brain(name: str, *, start: tuple = ("OK",), about: bool = True) -> MockTransport:
    """A scripted Gomocup brain up to its first move: START answered ``start``, ABOUT named."""
    mock = MockTransport(name, ignore=("INFO",), end_line="END")
    mock.expect("START 7", *start)
    if start == ("OK",):
        mock.expect("ABOUT", f'name="{name}", version="1"' if about else "")
    return mock


def play_gomocup(one: MockTransport, two: MockTransport, tc: TimeControl = TC):
    seats = [GomocupSeat(EngineSpec(("one",), "one"), transport=one),
             GomocupSeat(EngineSpec(("two",), "two"), transport=two)]
    assert all(isinstance(s, Seat) for s in seats)
    return play_game(seats, game=1, first=1, config=SMALL, tc=tc)


def test_a_scripted_game_is_won_by_a_line_and_the_seats_send_what_the_protocol_says():
    one, two = brain("one"), brain("two")
    one.expect("BEGIN", "0,0").expect("TURN 0,6", "1,0").expect("TURN 1,6", "2,0").expect("TURN 2,6", "3,0")
    two.expect("TURN 0,0", "0,6").expect("TURN 1,0", "1,6").expect("TURN 2,0", "2,6")
    r = play_gomocup(one, two)
    assert (r.termination, r.winner, r.engine1, r.engine2) == ("line", "engine1", "one", "two")
    assert r.moves == [[0, 0], [0, 6], [1, 0], [1, 6], [2, 0], [2, 6], [3, 0]]
    one.assert_done(), two.assert_done()
    assert "INFO win_length 4" in one.sent and one.sent[-1] == "END"
    assert one.sent.index("INFO win_length 4") < one.sent.index("START 7")  # before START, for small boards


@pytest.mark.parametrize("reply, termination, words", [
    ("9,9", "illegal_move", "one played 9,9, off the 7x7 board"),
    ("hello", "bad_output", "one answered 'hello' instead of a move"),
    (LONG, "bad_output", "one sent a line of more than 64 kB"),
])
def test_a_bad_first_move_loses(reply, termination, words):
    one, two = brain("one"), brain("two")
    one.expect("BEGIN", reply)
    r = play_gomocup(one, two)
    assert (r.termination, r.winner, r.reason) == (termination, "engine2", words)


def test_an_overlong_line_after_a_move_is_bad_output_at_the_next_turn():
    one, two = brain("one"), brain("two")
    one.expect("BEGIN", "3,3", LONG)  # printed after its move, read between turns
    two.expect("TURN 3,3", "4,4")
    r = play_gomocup(one, two)
    assert (r.termination, r.winner, r.reason) == ("bad_output", "engine2", "one sent a line of more than 64 kB")
    assert r.moves == [[3, 3], [4, 4]]


def test_a_move_on_an_occupied_cell_loses():
    one, two = brain("one"), brain("two")
    one.expect("BEGIN", "3,3")
    two.expect("TURN 3,3", "3,3")
    r = play_gomocup(one, two)
    assert (r.termination, r.winner, r.reason) == ("illegal_move", "engine1", "two played 3,3, which is occupied")


def test_a_late_move_is_a_timeout_and_a_move_within_the_tolerance_is_not():
    one, two = brain("one"), brain("two")
    one.expect("BEGIN", "3,3", after_s=0.45)  # over the 300 ms limit, within the 200 ms tolerance
    two.expect("TURN 3,3", "4,4", after_s=0.6)  # over both
    r = play_gomocup(one, two)
    assert (r.termination, r.winner) == ("timeout", "engine1")
    assert r.reason == "two did not move within 500 ms"
    assert r.moves == [[3, 3]] and 440 <= r.times_ms[0] <= 500  # the think time is the engine's, not ours


def test_a_crash_loses_with_its_exit_status_and_its_last_words_are_kept():
    one, two = brain("one"), brain("two")
    one.expect("BEGIN", "MESSAGE going down", exit=3)
    r = play_gomocup(one, two)
    assert (r.termination, r.winner, r.reason) == ("crash", "engine2", "one exited (exit status 3)")
    assert r.messages["engine1"] == ["MESSAGE going down"]


def test_an_engine_gone_before_it_is_asked_crashes_on_the_write():
    one, two = brain("one"), brain("two")
    one.expect("BEGIN", "3,3")
    two.expect("TURN 3,3", exit=-9)
    r = play_gomocup(one, two)
    assert (r.termination, r.winner, r.reason) == ("crash", "engine1", "two exited (killed by signal 9)")


@pytest.mark.parametrize("start, words", [
    ((), "one did not answer START within 1000 ms"),
    (("ERROR unsupported size",), "one refused START: 'ERROR unsupported size'"),
    ((LONG,), "one sent a line of more than 64 kB"),
])
def test_a_start_that_fails_is_start_failed(start, words):
    r = play_gomocup(brain("one", start=start), brain("two"))
    assert (r.termination, r.winner, r.reason) == ("start_failed", "engine2", words)
    assert r.moves == []


def test_chatter_is_kept_bounded_and_never_taken_for_a_move():
    one, two = brain("one"), brain("two")
    chatter = [f"MESSAGE depth {i} best 1,1" for i in range(MAX_KEPT_MESSAGES + 50)]
    one.expect("BEGIN", *chatter, "DEBUG x", "9,9")
    r = play_gomocup(one, two)
    assert r.termination == "illegal_move" and r.reason.startswith("one played 9,9")
    assert r.messages["engine1"] == chatter[:MAX_KEPT_MESSAGES]


def test_an_about_answer_that_comes_late_is_not_taken_for_a_move():
    one = MockTransport("one", ignore=("INFO",))
    # ABOUT answered after about_ms (the seat stops waiting), but before the move
    one.expect("START 7", "OK").expect("ABOUT", 'name="slow", version="1"', after_s=0.2)
    one.expect("BEGIN", "9,9")
    tc = TimeControl(turn_ms=3000, tolerance_ms=200, start_ms=1000, about_ms=100)
    r = play_gomocup(one, brain("two"), tc)
    assert r.engine1 == "one"  # not named by the late answer
    assert (r.termination, r.reason) == ("illegal_move", "one played 9,9, off the 7x7 board")
    assert r.messages["engine1"] == ['name="slow", version="1"']


# NBoard ---------------------------------------------------------------------------------------

def nboard(name: str, *, pong: bool = True) -> MockTransport:
    """A scripted NBoard engine up to its first move (positions and moves sent are accepted)."""
    mock = MockTransport(name, ignore=("set game", "move "), end_line="quit")
    mock.expect("nboard 2", f"set myname {name}")
    mock.expect("ping 1", *(["pong 1"] if pong else []))
    return mock


def play_reversi(one: MockTransport, two: MockTransport):
    seats = [NboardSeat(EngineSpec(("e1",), "e1"), transport=one),
             NboardSeat(EngineSpec(("e2",), "e2"), transport=two)]
    return play_game(seats, game=1, first=1, config=ReversiConfig(8), tc=TC)


@pytest.mark.parametrize("reply, termination, words", [
    ("=== D4", "illegal_move", "black played d4, which is occupied"),
    ("=== A1", "illegal_move", "black played a1, which flips nothing"),
    ("=== PA", "illegal_move", "black passed with legal moves left"),  # a false pass
    ("=== J9", "illegal_move", "black played J9, off the 8x8 board"),
    ("=== @@", "bad_output", "black answered '=== @@' instead of a move"),
    (f"=== {LONG}", "bad_output", "black sent a line of more than 64 kB"),
])
def test_a_bad_reversi_move_loses(reply, termination, words):
    black, white = nboard("black"), nboard("white")
    black.expect("go", "status thinking", reply)
    r = play_reversi(black, white)
    assert (r.termination, r.winner) == (termination, "engine2")
    assert r.reason.startswith(words), r.reason
    assert r.engine1 == "black"  # named by its set myname line
    assert r.messages["engine1"] == ["set myname black", "status thinking"]


def test_a_reversi_game_runs_move_after_move_and_a_late_move_is_a_timeout():
    black, white = nboard("black"), nboard("white")
    black.expect("go", "=== F5/0.00/0.01").expect("go", "=== D3", after_s=1.0)
    white.expect("go", "=== F6")
    r = play_reversi(black, white)
    assert (r.termination, r.winner, r.reason) == ("timeout", "engine2", "black did not move within 500 ms")
    assert r.moves == ["f5", "f6"]
    # an NBoard engine does not play the move it answers: it is sent back with the others
    assert white.sent[3:] == ["move F5//0.00", "go", "quit"]
    assert black.sent[3:] == ["go", "move F5//0.00", "move F6//0.00", "go", "quit"]


def test_a_reversi_crash_and_a_missing_pong():
    black, white = nboard("black"), nboard("white")
    black.expect("go", exit=3)
    r = play_reversi(black, white)
    assert (r.termination, r.winner, r.reason) == ("crash", "engine2", "black exited (exit status 3)")
    r = play_reversi(nboard("black"), nboard("white", pong=False))
    assert (r.termination, r.winner) == ("start_failed", "engine1")
    assert r.reason == "white did not answer ping 1 within 1000 ms"
