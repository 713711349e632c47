"""Engines kept between games: the same process plays on after a good game, a faulty one is replaced."""

import re

import pytest

from engine.mnk.board.rules import GameConfig
from support.mock_transport import MockTransport
from referee.games.clock import TimeControl
from referee.play.game import play_game
from referee.play.pool import EnginePool
from referee.seats.gomocup import GomocupSeat
from referee.seats.random_seat import RandomSeat
from referee.seats.spec import EngineSpec

CFG = GameConfig(7, 7, 4)
TC = TimeControl(turn_ms=300, match_ms=0, tolerance_ms=200, start_ms=1000, about_ms=500)
SPEC = EngineSpec(("brain",), "brain")


def kept_game(pool: EnginePool, mock: MockTransport, seat: GomocupSeat | None = None):
    seat = seat or GomocupSeat(SPEC, transport=mock)
    other = RandomSeat(seed=1)
    r = play_game([seat, other], game=1, first=1, config=CFG, tc=TC, close=False)
    pool.give_back((seat, other), (SPEC, EngineSpec.parse("random")), r)
    return seat, r


def test_an_engine_at_fault_is_not_kept():
    mock = MockTransport("brain", ignore=("INFO",))
    mock.expect("START 7", "OK").expect("ABOUT", 'name="Brain", version="1"')
    mock.expect("BEGIN", "0,0").expect(re.compile(r"TURN \d+,\d+"), "no move here")  # bad output
    pool = EnginePool()
    seat, r = kept_game(pool, mock)
    assert r.termination == "bad_output" and r.winner == "engine2"
    assert pool.take(SPEC) is None  # at fault: not kept
    assert not seat.is_running()


def test_a_kept_engine_gets_start_again_and_no_second_about():
    mock = MockTransport("brain", ignore=("INFO",))
    mock.expect("START 7", "OK").expect("ABOUT", 'name="Brain", version="1"')
    pool = EnginePool()
    seat = GomocupSeat(SPEC, transport=mock)
    seat.launch(CFG, TC)
    seat.finish_start(CFG, TC)
    assert seat.name == "Brain" and seat.games == 1
    # a game that ends without the engine at fault: it is kept
    from referee.play.result import GameResult
    draw = GameResult(game=1, engine1="Brain", engine2="random", first=1, winner=None, termination="draw_after",
                      reason="", moves=[], times_ms=[])
    pool.give_back((seat, RandomSeat()), (SPEC, EngineSpec.parse("random")), draw)
    again = pool.take(SPEC)
    assert again is seat and pool.take(SPEC) is None and pool.reused == 1
    mock.expect("START 7", "OK")  # the new game: START again; its name is known, so no ABOUT
    again.launch(CFG, TC)
    again.finish_start(CFG, TC)
    assert again.games == 2 and again.kept and again.messages == []
    assert mock.sent.count("ABOUT") == 1 and mock.sent.count("START 7") == 2
    pool.give_back((again, RandomSeat()), (SPEC, EngineSpec.parse("random")), draw)
    pool.close()  # the match's end: the idle engines are ended
    assert not again.is_running() and pool.take(SPEC) is None


@pytest.mark.parametrize("termination,winner,kept", [
    ("line", "engine2", True), ("timeout", "engine2", False), ("timeout", "engine1", True),
    ("crash", "engine2", False), ("illegal_move", "engine2", False), ("interrupted", None, False),
])
def test_what_is_kept_after_each_ending(termination, winner, kept):
    from referee.play.result import GameResult

    mock = MockTransport("brain", ignore=("INFO",))
    mock.expect("START 7", "OK").expect("ABOUT", 'name="Brain"')
    seat = GomocupSeat(SPEC, transport=mock)
    seat.launch(CFG, TC)
    seat.finish_start(CFG, TC)
    pool = EnginePool()
    r = GameResult(game=1, engine1="Brain", engine2="x", first=1, winner=winner, termination=termination,
                   reason="", moves=[], times_ms=[])
    pool.give_back((seat, RandomSeat()), (SPEC, EngineSpec.parse("random")), r)
    assert (pool.take(SPEC) is seat) == kept


@pytest.mark.slow
def test_a_match_keeps_its_engines_and_replaces_a_crashed_one(tmp_path):
    from support.fakes import assert_all_gone, fake_argv, read_pids
    from referee.match.run import run_match
    from referee.match.settings import MatchSettings

    pidfile = tmp_path / "pids"
    settings = MatchSettings(config=CFG, tc=TC, games=6, display="none", random_plies=2, seed=5)
    good = EngineSpec(fake_argv("--seed", "1", "--pidfile", str(pidfile)), "good")
    outcome = run_match(good, EngineSpec(fake_argv("--seed", "2", "--pidfile", str(pidfile)), "other"), settings)
    assert len(outcome.results) == 6 and all(r.termination in ("line", "full_board") for r in outcome.results)
    assert len(read_pids(pidfile)) == 2 + 2  # the start check's two, then one process a side for all six games
    assert_all_gone(read_pids(pidfile))
    crashing = tmp_path / "crashing"
    bad = EngineSpec(fake_argv("--crash-at", "2", "--pidfile", str(crashing)), "bad")
    outcome = run_match(good, bad, settings)
    assert [r.termination for r in outcome.results] == ["crash"] * 6
    assert len(read_pids(crashing)) == 1 + 6  # the start check's, then a new one after each crash
    assert_all_gone(read_pids(crashing) + read_pids(pidfile))


def test_the_shipped_random_engine_plays_each_game_as_a_fresh_process_would():
    import random

    from referee.engines.random_engine import RandomBrain

    brain = RandomBrain(random.Random(4), seed=4)
    games = []
    for _ in range(2):
        assert brain.handle("START 9") == (["OK"], False)
        games.append([brain.handle("BEGIN")[0][0]] + [brain.handle(f"TURN {i},{i}")[0][0] for i in range(3)])
    assert games[0] == games[1]
