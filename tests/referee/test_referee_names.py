"""Unique engine names: engines that would share a name are told apart in every record of a match."""

import io
import json
import re

import pytest

from engine.mnk.board.rules import GameConfig
from referee.games.clock import TimeControl
from referee.match.names import unique_names
from referee.match.run import run_match, run_tournament
from referee.match.settings import MatchSettings
from referee.seats.spec import EngineSpec
from support.fakes import fake_argv, fake_cmd

SMALL = dict(config=GameConfig(7, 7, 4), tc=TimeControl(1000, 0, 5000, 5000), seed=5, random_plies=2)


def spec(cmd: str) -> EngineSpec:
    return EngineSpec.parse(cmd)


def test_names_are_told_apart_by_the_words_their_commands_differ_in():
    a, b = spec("./pbrain-mcts --turn-ms 100"), spec("./pbrain-mcts --mode uct --turn-ms 100")
    assert unique_names([a, b], ["pbrain-mcts"] * 2) == ["pbrain-mcts", "pbrain-mcts --mode uct"]
    # a differing value keeps the option it belongs to
    c, d = spec("./x --mode uct"), spec("./x --mode puct")
    assert unique_names([c, d], ["x", "x"]) == ["x --mode uct", "x --mode puct"]
    # the same command twice, two random movers: #2, #3
    assert unique_names([a, a, a], ["m"] * 3) == ["m", "m#2", "m#3"]
    r = spec("random")
    assert unique_names([r, r, a], ["random", "random", "pbrain-mcts"]) == ["random", "random#2", "pbrain-mcts"]
    # names that differ already are kept, whatever the commands
    assert unique_names([a, a], ["A", "B"]) == ["A", "B"]
    # a name that would come out too long, or twice, falls back to #k without taking a name in use
    long_ = spec("./x --option " + "v" * 70)
    assert unique_names([spec("./x"), long_], ["x", "x"]) == ["x", "x#2"]
    e, f = spec("./x --a 1"), spec("./x --a 1 --b")
    assert unique_names([e, f, e], ["x", "x", "x"]) == ["x", "x --b", "x#2"]
    assert unique_names([a, a, a], ["m", "m", "m#2"]) == ["m", "m#3", "m#2"]


def test_a_person_keeps_the_name_given():
    h = spec("human")
    assert unique_names([h, spec("random")], ["human", "human"]) == ["human", "human#2"]
    assert unique_names([spec("random"), h], ["human", "human"]) == ["human#2", "human"]


def test_a_match_of_an_engine_against_itself_records_two_names(tmp_path):
    out = io.StringIO()
    settings = MatchSettings(games=2, out_dir=str(tmp_path), pgn=str(tmp_path / "g.pgn"), display="games", **SMALL)
    outcome = run_match(spec("random"), spec("random"), settings, out=out)
    assert (outcome.name1, outcome.name2) == ("random", "random#2")
    text = out.getvalue()
    assert "match: random (engine1) vs random#2 (engine2)" in text
    assert "engines with the same name are told apart" in text and "engine2 is 'random#2'" in text
    pgn = (tmp_path / "g.pgn").read_text()
    assert sorted(set(re.findall(r'\[(?:White|Black) "([^"]*)"\]', pgn))) == ["random", "random#2"]


@pytest.mark.slow
def test_a_round_robin_of_one_program_with_other_flags_gives_distinct_names_everywhere(tmp_path):
    # two engines that both call themselves pbrain-mcts (ABOUT), told apart by their flags
    same = [EngineSpec(fake_argv("--name", "pbrain-mcts", "--seed", "1"), "fake"),
            EngineSpec(fake_argv("--name", "pbrain-mcts", "--seed", "1", "--trailing"), "fake"),
            spec("random")]
    pgn = tmp_path / "games.pgn"
    out = tmp_path / "m"
    settings = MatchSettings(games=2, out_dir=str(out), pgn=str(pgn), display="none", **SMALL)
    outcome = run_tournament(same, settings, out=io.StringIO())
    names = ["pbrain-mcts", "pbrain-mcts --trailing", "random"]
    assert outcome.standings.names == names
    assert names[1] in outcome.standings.table_text()
    players = re.findall(r'\[(?:White|Black) "([^"]*)"\]', pgn.read_text())
    assert sorted(set(players)) == sorted(names) and len(players) == 12
    for line in (out / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        assert (r["engine1"], r["engine2"]) == tuple(names[e - 1] for e in r["engine_numbers"])
    sgf = (out / "match.sgf").read_text()
    assert "PB[pbrain-mcts --trailing]" in sgf or "PW[pbrain-mcts --trailing]" in sgf


@pytest.mark.slow
def test_the_cli_says_which_names_it_gave(tmp_path):
    import subprocess

    from support.fakes import REFEREE

    a, b = fake_cmd("--name", "pbrain-mcts", "--seed", "1"), fake_cmd("--name", "pbrain-mcts", "--seed", "2")
    p = subprocess.run(REFEREE + [a, b, "--size", "7", "--win-length", "4", "--games", "2", "--display", "games",
                                  "--turn-ms", "300", "--tolerance-ms", "5000", "--pgn", str(tmp_path / "g.pgn")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "engine1 is 'pbrain-mcts --seed 1', engine2 is 'pbrain-mcts --seed 2'" in p.stdout
    assert "pbrain-mcts --seed 2 (engine2): 2 games" in p.stdout  # the summary uses them
    assert '[White "pbrain-mcts --seed 2"]' in (tmp_path / "g.pgn").read_text()
