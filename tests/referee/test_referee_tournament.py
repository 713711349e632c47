"""Tournaments of more than two engines: pairings, one numbering of all games, standings, records, resume."""

import io
import json
import subprocess
import sys

import pytest

from engine.mnk.board.rules import GameConfig
from support.fakes import fake_cmd
from referee.errors import MatchError
from referee.games.clock import TimeControl
from referee.match.run import run_match, run_tournament
from referee.match.settings import MatchSettings
from referee.match.standings import Standings
from referee.match.tournament import Tournament, pairings_of
from referee.play.result import GameResult
from referee.seats.spec import EngineSpec

RANDOM = EngineSpec.parse("random")
SMALL = dict(config=GameConfig(7, 7, 4), tc=TimeControl(1000, 0, 1000, 5000), seed=5, random_plies=2)


def test_pairings_round_robin_and_gauntlet():
    assert pairings_of(2) == ((0, 1),)
    assert pairings_of(2, gauntlet=True) == ((0, 1),)
    assert pairings_of(4) == ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
    assert pairings_of(4, gauntlet=True) == ((0, 1), (0, 2), (0, 3))
    with pytest.raises(ValueError):
        pairings_of(1)


@pytest.mark.parametrize("engines,games,gauntlet", [(2, 5, False), (3, 4, False), (3, 3, False), (5, 2, True),
                                                    (4, 1, False)])
def test_every_game_has_one_number_and_pairs_share_opening_with_colours_swapped(engines, games, gauntlet):
    t = Tournament([RANDOM] * engines, MatchSettings(games=games, gauntlet=gauntlet, **SMALL))
    assert t.total == len(t.pairings) * games
    places = [t.locate(g) for g in range(1, t.total + 1)]
    assert len(set(places)) == t.total  # a bijection onto (pairing, game in pairing)
    assert all(t.game_of(k, h) == g for g, (k, h) in enumerate(places, 1))
    for g in range(1, t.total + 1):
        other = t.partner(g)
        if other is None:
            assert games % 2 == 1 and t.locate(g)[1] == games  # the odd last game has no partner
            continue
        assert t.partner(other) == g and t.engines_of(other) == t.engines_of(g)
        assert t.opening_of(other) == t.opening_of(g)
        assert t.first_of(other) != t.first_of(g)
    # every pairing plays the same openings, in the same order
    for h in range(1, games + 1):
        assert len({tuple(t.opening_of(t.game_of(k, h))) for k in range(len(t.pairings))}) == 1


def test_two_engines_number_games_as_a_match_does():
    s = MatchSettings(games=6, first=2, **SMALL)
    t = Tournament([RANDOM, RANDOM], s)
    assert [t.locate(g) for g in range(1, 7)] == [(0, h) for h in range(1, 7)]
    assert all(t.first_of(g) == s.first_of(g) and t.opening_of(g) == s.opening_of(g) for g in range(1, 7))
    assert t.record_fields(3) == {} and t.retag(3, "x (engine2)") == "x (engine2)"


def test_a_game_is_interleaved_by_pairs_and_its_job_names_its_engines():
    a, b, c = (EngineSpec.parse(f"./{n}") for n in "abc")
    t = Tournament([a, b, c], MatchSettings(games=3, **SMALL))
    # the first pair of every pairing, then the second (here one game: --games is odd)
    assert [t.locate(g) for g in range(1, 10)] == [(0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2),
                                                   (0, 3), (1, 3), (2, 3)]
    job = t.job(4, [True, False, True])
    assert job.specs == (a, c) and job.game == 4 and job.about_wait == (True, True) and job.first == 2
    assert t.job(5, [True, False, True]).about_wait == (False, True)
    assert t.record_fields(8) == {"pairing": 2, "engine_numbers": [1, 3], "pairing_game": 3}
    assert t.retag(5, "b (engine1) completed a line; c (engine2, O)") == "b (engine2) completed a line; c (engine3, O)"


def _result(game: int, winner: str | None, first: int = 1, termination: str = "line") -> GameResult:
    return GameResult(game=game, engine1="", engine2="", first=first, winner=winner, termination=termination,
                      reason="", moves=[], times_ms=[])


def test_standings_arithmetic_checked_by_hand():
    t = Tournament([RANDOM] * 3, MatchSettings(games=2, **SMALL))
    st = Standings(t, ["a", "b", "c"], ["engine1", "engine2", "engine3"])
    g = t.game_of
    # a-b: a wins, then a draw; a-c: c wins both; b-c: b wins, c wins; plus an abandoned game (not scored)
    st.count(_result(g(0, 1), "engine1"))
    st.count(_result(g(1, 1), "engine2"))
    st.count(_result(g(2, 1), "engine1"))
    assert st.games == 3 and [e.pairs.n for e in st.engines] == [0, 0, 0]  # no pair is complete yet
    st.count(_result(g(0, 2), None, first=2))
    st.count(_result(g(1, 2), "engine2", first=2))
    st.count(_result(g(2, 2), "engine2", first=2))
    st.count(_result(g(2, 2), None, termination="abandoned"))
    assert st.games == 6
    a, b, c = st.engines
    assert (a.wins, a.draws, a.losses, a.points) == (1, 1, 2, 1.5)
    assert (b.wins, b.draws, b.losses, b.points) == (1, 1, 2, 1.5)
    assert (c.wins, c.draws, c.losses, c.points) == (3, 0, 1, 3.0)
    # pentanomial LL LD WL+DD WD WW, each engine from its own side
    assert a.pairs.counts == [1, 0, 0, 1, 0]  # WD against b, LL against c
    assert b.pairs.counts == [0, 1, 1, 0, 0]  # LD against a, WL against c
    assert c.pairs.counts == [0, 0, 1, 0, 1]  # WW against a, WL against b
    assert [p.counts for p in st.pair_counts] == [[0, 0, 0, 1, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0]]
    assert [(x.wins, x.draws, x.losses) for x in st.tallies] == [(1, 1, 0), (0, 0, 2), (1, 0, 1)]
    assert st.order() == [2, 0, 1]  # c; a and b tie on points and keep their order
    # c scored 0.75 a game over its pairs: Elo -400 log10(1/0.75 - 1) = +190.8
    assert c.elo()[0] == pytest.approx(190.85, abs=0.01)
    # a: pairs worth 1.5 and 0 points of 4, 0.375 a game: -400 log10(1/0.375 - 1) = -88.7
    assert a.elo()[0] == pytest.approx(-88.74, abs=0.01)
    text = st.table_text()
    assert "standings after 6 of 6 games" in text and "+190.8" in text
    assert "engine1 vs engine3: +0 =0 -2   pairs 1 0 0 0 0" in text


def test_a_round_robin_of_random_movers_records_every_game_once(tmp_path):
    out = io.StringIO()
    settings = MatchSettings(games=2, out_dir=str(tmp_path), display="games", standings_every=2, **SMALL)
    outcome = run_tournament([RANDOM, RANDOM, RANDOM], settings, out=out)
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert sorted(r["game"] for r in records) == [1, 2, 3, 4, 5, 6]
    t = Tournament([RANDOM] * 3, settings)
    for r in records:
        assert r["engine_numbers"] == [i + 1 for i in t.engines_of(r["game"])]
        assert r["pairing"] == t.locate(r["game"])[0] + 1 and r["pairing_game"] == t.locate(r["game"])[1]
        assert r["seed"] == 5
    st = outcome.standings
    assert st.games == 6 and sum(e.points for e in st.engines) == 6
    assert all(e.games == 4 and e.pairs.n == 2 for e in st.engines)
    text = out.getvalue()
    assert text.startswith("tournament: round-robin of 3 engines, 3 pairings of 2 games, 6 games")
    assert text.count("standings after") == 2  # after games 2 and 4 (the last table is the summary's)
    assert "games/s" in text and "ETA" in text
    assert "=== game 3/6: X random (engine1)  vs  O random#3 (engine3)" in text  # names are unique
    assert "engine2 is 'random#2', engine3 is 'random#3'" in text
    for r in records:
        assert (r["engine1"], r["engine2"]) == tuple(("random", "random#2", "random#3")[e - 1]
                                                     for e in r["engine_numbers"])
    assert (tmp_path / "game-0006.sgf").exists() and (tmp_path / "match.sgf").exists()


def test_a_resumed_tournament_plays_exactly_the_missing_games(tmp_path):
    settings = MatchSettings(games=2, out_dir=str(tmp_path), display="none", **SMALL)
    run_tournament([RANDOM] * 3, settings, out=io.StringIO())
    path = tmp_path / "results.jsonl"
    lines = path.read_text().splitlines()
    full = {json.loads(line)["game"]: json.loads(line) for line in lines}
    kept = [line for line in lines if json.loads(line)["game"] not in (2, 5)]
    path.write_text("\n".join(kept) + "\n")
    outcome = run_tournament([RANDOM] * 3, MatchSettings(games=2, out_dir=str(tmp_path), display="none",
                                                        resume=True, **{**SMALL, "seed": None}), out=io.StringIO())
    again = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(r["game"] for r in again) == [1, 2, 3, 4, 5, 6]
    assert [r["game"] for r in again[-2:]] == [2, 5]  # only they were played, with the recorded seed
    for r in again[-2:]:  # the random movers repeat their moves for the seed, the game and the side
        assert r["moves"] == full[r["game"]]["moves"] and r["engine_numbers"] == full[r["game"]]["engine_numbers"]
    assert outcome.standings.games == 6
    with pytest.raises(MatchError, match="other engines"):  # a fourth engine numbers the games otherwise
        run_tournament([RANDOM] * 4, MatchSettings(games=2, out_dir=str(tmp_path), resume=True, **SMALL),
                       out=io.StringIO())
    with pytest.raises(MatchError, match="other engines"):  # a match of two cannot continue a tournament
        run_match(RANDOM, RANDOM, MatchSettings(games=6, out_dir=str(tmp_path), resume=True, **SMALL),
                  out=io.StringIO())


def test_a_match_of_two_records_no_tournament_fields_and_has_no_standings(tmp_path):
    outcome = run_tournament([RANDOM, RANDOM], MatchSettings(games=2, out_dir=str(tmp_path), display="none",
                                                             **SMALL), out=io.StringIO())
    assert outcome.standings is None and outcome.tally.games == 2 and outcome.pairs.n == 1
    for line in (tmp_path / "results.jsonl").read_text().splitlines():
        assert not {"pairing", "engine_numbers", "pairing_game"} & set(json.loads(line))


def test_no_person_plays_in_a_tournament():
    with pytest.raises(MatchError, match="person"):
        run_tournament([RANDOM, RANDOM, EngineSpec.parse("human")], MatchSettings(**SMALL), out=io.StringIO())


@pytest.mark.slow
def test_cli_round_robin_of_three_engine_processes(tmp_path):
    out = tmp_path / "t"
    engines = [fake_cmd("--name", n, "--seed", str(i)) for i, n in enumerate("ABC", 1)]
    p = subprocess.run([sys.executable, "-m", "referee", *engines, "--size", "7", "--win-length", "4",
                        "--turn-ms", "300", "--tolerance-ms", "5000", "--games", "2", "--concurrency", "2",
                        "--display", "none", "--out", str(out), "--seed", "3", "--transform"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["game"] for r in records) == [1, 2, 3, 4, 5, 6]
    assert {tuple(r["engine_numbers"]) for r in records} == {(1, 2), (1, 3), (2, 3)}
    names = {1: "A", 2: "B", 3: "C"}
    for r in records:  # each game names its own two engines
        assert (r["engine1"], r["engine2"]) == tuple(names[e] for e in r["engine_numbers"])
    assert "standings after 6 of 6 games" in p.stdout
    for n in "ABC":
        assert f"{n} (engine" in p.stdout
    assert "in a random symmetric image" in p.stdout and "seed 3" in p.stdout


@pytest.mark.slow
def test_a_tournament_on_a_local_cluster_plays_the_same_games_as_here(tmp_path):
    pytest.importorskip("distributed")
    here, there = tmp_path / "here", tmp_path / "there"
    run_tournament([RANDOM] * 3, MatchSettings(games=2, out_dir=str(here), display="none", **SMALL),
                   out=io.StringIO())
    outcome = run_tournament([RANDOM] * 3, MatchSettings(games=2, out_dir=str(there), display="none",
                                                         cluster="local:1", **SMALL), out=io.StringIO())
    assert outcome.standings.games == 6

    def games(d):
        return {r["game"]: (r["engine_numbers"], r["moves"], r["winner"])
                for r in map(json.loads, (d / "results.jsonl").read_text().splitlines())}

    assert games(there) == games(here)  # same numbers, same engines, same moves (the movers are seeded)


def test_a_gauntlet_plays_the_first_engine_against_each_other_and_takes_it_as_the_reference():
    outcome = run_tournament([RANDOM] * 4, MatchSettings(games=2, gauntlet=True, display="none", **SMALL),
                             out=io.StringIO())
    st = outcome.standings
    assert [e.games for e in st.engines] == [6, 2, 2, 2]
    text = st.table_text()
    assert "Elo relative to engine1 (the gauntlet's first engine)" in text
    assert [line for line in text.splitlines() if "(engine1)" in line][0].endswith("(ref)")
    assert text.count(" vs ") == 3 and "engine2 vs engine3" not in text


def test_the_standings_never_print_an_infinite_elo():
    from referee.match.pentanomial import Pairs
    from referee.match.standings import _elo_cell

    class Line:
        games = 2
        pairs = Pairs([0, 0, 0, 0, 1])

        def __init__(self, elo):
            self._elo = elo

        def elo(self):
            return self._elo

    inf = float("inf")
    cells = {e: _elo_cell(Line(e)) for e in [(inf, 70.4, inf), (-inf, -inf, -70.4), (120.4, -238.1, inf),
                                              (5.0, -inf, inf), (inf, -inf, inf)]}
    assert all("inf" not in c for c in cells.values())
    assert cells[(inf, 70.4, inf)].strip() == "> +70.4  won every pair"
    assert cells[(120.4, -238.1, inf)].strip() == "+120.4  95 % above -238.1"
