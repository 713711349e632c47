"""One game from picklable settings (:mod:`referee.play.job`), and the record of a game that could not be
played (``abandoned``: no winner, not scored, played again by ``--resume``)."""

import json
import pickle
import threading

import pytest

from engine.mnk.board.rules import GameConfig
from support.fakes import assert_all_gone, fake_argv, read_pids
from referee.match.output import verdict_text
from referee.play.job import GameJob, abandoned_result, play_job
from referee.match.run import run_match
from referee.match.settings import MatchSettings
from referee.match.records import append_result, sgf_text
from referee.games.clock import TimeControl
from referee.seats.spec import EngineSpec

A = ("--name", "A", "--seed", "1")
B = ("--name", "B", "--seed", "2")


def test_a_game_job_is_picklable():
    job = GameJob(game=3, specs=(EngineSpec(fake_argv(), "a"), EngineSpec(fake_argv(), "b")), first=2,
                  config=GameConfig(7, 7, 4), tc=TimeControl(300), opening=(24, 17), seed=5)
    assert pickle.loads(pickle.dumps(job)) == job


def _abandoned():
    job = GameJob(game=1, specs=(EngineSpec(fake_argv(), "a"), EngineSpec(fake_argv(), "b")), first=1,
                  config=GameConfig(7, 7, 4), tc=TimeControl(300), opening=(24,), seed=5)
    return abandoned_result(job, ("A", "B"), "every Dask worker that played it died during the game")


def test_an_abandoned_game_has_no_winner_and_says_why():
    r = _abandoned()
    assert r.winner is None and r.termination == "abandoned" and r.moves == [[3, 3]]
    assert "RE[Void]" in sgf_text(r)
    assert verdict_text(r) == "game 1: abandoned, not scored: every Dask worker that played it died during the game"


@pytest.mark.slow
def test_an_abandoned_game_is_neither_scored_nor_kept_by_resume(tmp_path):
    r = _abandoned()
    out = tmp_path / "m"
    out.mkdir()
    append_result(out / "results.jsonl", r)
    settings = MatchSettings(config=GameConfig(7, 7, 4), tc=TimeControl(300, tolerance_ms=10000), games=1,
                             out_dir=str(out), resume=True, quiet=True, random_plies=1, seed=5)
    outcome = run_match(EngineSpec(fake_argv(*A), "A"), EngineSpec(fake_argv(*B), "B"), settings)
    assert outcome.tally.games == 1  # played again: the abandoned record did not count as played
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(g["game"], g["termination"]) for g in lines][0] == (1, "abandoned")
    assert len(lines) == 2 and lines[1]["termination"] != "abandoned"  # the later record is the game's


@pytest.mark.slow
def test_play_job_plays_one_game_and_brings_back_its_logs(tmp_path):
    job = GameJob(game=2, specs=(EngineSpec(fake_argv(*A), "A"), EngineSpec(fake_argv(*B, "--crash-at", "3"), "B")),
                  first=1, config=GameConfig(7, 7, 4), tc=TimeControl(2000, tolerance_ms=10000), log_io=True)
    played = play_job(job)
    r = played.result
    assert (r.game, r.termination, r.winner) == (2, "crash", "engine1")
    assert "engine1 > START 7" in played.io_log and "engine2 < OK" in played.io_log
    assert played.stderr == ("", "")
    played.write_logs(tmp_path)
    assert (tmp_path / "game-0002.log").read_text() == played.io_log
    assert (tmp_path / "game-0002.engine2.stderr").read_text() == ""


@pytest.mark.slow
def test_a_stopped_job_ends_interrupted_and_leaves_no_process(tmp_path):
    pidfile = tmp_path / "pids"
    hang = EngineSpec(fake_argv("--hang-at", "1", "--spawn-child", "--pidfile", str(pidfile)), "hang")
    job = GameJob(game=1, specs=(hang, hang), first=1, config=GameConfig(7, 7, 4), tc=TimeControl(60000))
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    r = play_job(job, stop=stop).result
    assert r.termination == "interrupted" and r.winner is None
    assert_all_gone(read_pids(pidfile))


def _reversi_job(pidfile, **kw):
    from engine.reversi.board.rules import ReversiConfig
    from support.fakes import nboard_argv

    return GameJob(game=2, specs=(EngineSpec(nboard_argv("--pidfile", str(pidfile)), "fake"),
                                  EngineSpec.parse("random")),
                   first=2, config=ReversiConfig(8), tc=TimeControl(300, tolerance_ms=1000), opening=(37, 43),
                   seed=9, **kw)


def test_a_reversi_job_pickles_and_plays_anywhere(tmp_path):
    job = pickle.loads(pickle.dumps(_reversi_job(tmp_path / "pids", log_io=True)))
    played = play_job(job)
    r = played.result
    assert r.game_type == "reversi" and r.termination == "discs" and r.moves[:2] == ["f5", "d6"]
    assert r.engine2 == "random" and r.seed == 9 and sum(r.discs) <= 64
    assert "engine1 > nboard 2" in played.io_log
    assert_all_gone(read_pids(tmp_path / "pids"))


def test_an_abandoned_reversi_game_keeps_its_opening():
    r = abandoned_result(_reversi_job("/nonexistent"), ("A", "B"), "the worker died")
    assert r.game_type == "reversi" and r.moves == ["f5", "d6"] and r.disc_diff is None and r.winner is None
