"""lab.sprt_compare: a recorded match's SPRT replayed on pairs and on games."""

from lab.sprt_compare import replay
from referee.match.pentanomial import gsprt_llr
from referee.match.stats import Sprt, sprt_llr


def records(pair_results):
    """Match records from engine1's results by pair: (game 2j-1, game 2j) as 'W'/'D'/'L'."""
    out, game = [], 0
    for pair in pair_results:
        for r in pair:
            game += 1
            out.append({"game": game, "first": 1 if game % 2 else 2, "termination": "line",
                        "winner": {"W": "engine1", "L": "engine2", "D": None}[r]})
    return out


def test_both_tests_are_replayed_game_by_game():
    recs = records(["WL", "WW", "DD", "WD", "LW", "WW"] * 5)
    out = replay(recs, Sprt(0, 50))
    n, tri, penta = out["rows"][-1]
    assert n == 60 and out["games"] == 60
    assert out["pairs"] == [0, 0, 15, 5, 10]  # WL/LW/DD count 1 point, WD 1.5, WW 2
    assert penta == gsprt_llr([0, 0, 15, 5, 10], 0, 50)
    assert tri == sprt_llr(35, 15, 10, 0, 50)  # 7 wins, 3 draws, 2 losses a block of six pairs


def test_the_first_decision_of_each_is_reported():
    out = replay(records(["WW"] * 40), Sprt(0, 100))
    games, decision = out["stops"]["pentanomial"]
    assert decision == "H1" and games == 24  # the 12th pair won (see test_referee_cluster's SPRT test)
    assert out["stops"]["trinomial"][1] == "H1"
