"""lab/judge_games.py: replaying games through a judging brain (here the fake brain)."""

import json
import subprocess
import sys

import pytest

from support.fakes import FAKE_BRAIN

from engine.mnk.board.rules import GameConfig
from lab import judge_games


def _record(game, first, winner, moves, opening=2):
    return {"game": game, "first": first, "winner": winner, "moves": moves, "opening": opening,
            "width": 15, "height": 15, "win_length": 5}


MOVES = [[x, 7 + (i % 2)] for i, x in enumerate(range(3, 13))]  # 10 plies


def test_scores_read_numbers_and_mates():
    assert judge_games.score("-35") == -35 and judge_games.score("+M7") == judge_games.MATE
    assert judge_games.score("-M2") == -judge_games.MATE
    assert judge_games.score(None) is None and judge_games.score("junk") is None


def test_a_game_is_judged_from_the_players_point_of_view():
    # A judge that sees a forced win for the side to move from 6 stones on, and
    # otherwise scores the stone count for the side to move.
    def ask(moves):
        return "+M1" if len(moves) >= 6 else str(len(moves))

    # engine1 moved first (X): it is to move at even plies, so it held the win at 6 and 8.
    v = judge_games.judge_game(_record(1, 1, "engine2", MOVES), "engine1", ask)
    assert (v.colour, v.result, v.opening) == ("X", "lost", 2)
    assert v.forced_wins == [6, 8]
    # The largest fall across one of its own moves: from its forced win at ply 6 to the
    # opponent's at ply 7 (ply 4 -> 5, +4 -> -MATE, falls less).
    assert v.worst == (6, 2 * judge_games.MATE)
    # The same game for engine2 (O, to move at odd plies).
    w = judge_games.judge_game(_record(1, 1, "engine2", MOVES), "engine2", ask)
    assert (w.colour, w.result, w.forced_wins) == ("O", "won", [7, 9])
    assert "won 0, drew 0, lost 1" in judge_games.summary([v]) and "held a forced win in 1 games: won 0, drew 0, lost 1" in judge_games.summary([v])


@pytest.mark.slow
def test_command_line_with_a_real_brain_process(tmp_path):
    records = tmp_path / "results.jsonl"
    records.write_text(json.dumps(_record(3, 2, "engine1", MOVES)) + "\n" + json.dumps(_record(4, 1, None, MOVES[:5])) + "\n")
    judge = f"{sys.executable} {FAKE_BRAIN} --eval-mate-from 7"
    out = subprocess.run([sys.executable, "-m", "lab.judge_games", "--engine", judge, "--nodes", "10", str(records)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # Game 3: engine1 moved second (O, odd plies); the judge sees a mate for the mover from 7 stones.
    assert lines[0].startswith("game   3  O  won") and "forced win held at plies 7, 9" in lines[0]
    assert lines[1].startswith("game   4  X  drew") and "no forced win" in lines[1]
    assert "2 games: won 1, drew 1, lost 0" in out.stdout
    assert "held a forced win in 1 games: won 1, drew 0, lost 0" in out.stdout


@pytest.mark.parametrize("bad", ["", "garbage", "M"])
def test_unreadable_evals_are_skipped(bad):
    v = judge_games.judge_game(_record(2, 1, "engine1", MOVES), "engine1", lambda moves: bad or None)
    assert v.opening is None and v.forced_wins == [] and v.worst is None


def test_our_solver_is_asked_for_the_opponents_win_after_the_worst_move():
    # X (engine1) leaves O's open three on row 7 alone at ply 6; O then wins.
    moves = [[0, 0], [5, 7], [0, 2], [6, 7], [0, 4], [7, 7], [0, 6], [8, 7], [0, 8], [9, 7]]
    record = dict(_record(5, 1, "engine2", moves, opening=0), rule="freestyle")

    def ask(seen):  # from ply 7 on O (to move at odd plies) wins
        return "0" if len(seen) < 7 else "+M1" if len(seen) % 2 else "-M1"

    lost = judge_games.judge_game(record, "engine1", ask)
    assert lost.worst == (6, judge_games.MATE)
    line, seconds = judge_games.prove_after_worst(record, lost, nodes=20000, threes=2)
    assert line and seconds >= 0
    config = GameConfig(15, 15, 5)
    assert config.xy(line[0]) in {(4, 7), (8, 7)}  # the open four (compact moves)
    # The same game with the worst move placed before O had anything: nothing to prove.
    early = judge_games.Verdict(5, "X", "lost", 0, worst=(2, 10))
    assert judge_games.prove_after_worst(record, early, nodes=20000, threes=2)[0] is None
    # A record the rules cannot replay (a stone played twice) is not asked either.
    bad = dict(record, moves=[[0, 0], [0, 0]] + moves[2:])
    assert judge_games.prove_after_worst(bad, lost, nodes=20000, threes=2) is None
    # A game the player won is not asked.
    won = judge_games.judge_game(record, "engine2", ask)
    assert judge_games.prove_after_worst(record, won, nodes=20000, threes=2) is None


def test_lost_positions_are_saved_for_the_solver_bench(tmp_path):
    # The position after the worst move of a lost game, in lab.solver_bench's format: the
    # bench replays it and finds the opponent to move with the win the open three allowed.
    moves = [[0, 0], [5, 7], [0, 2], [6, 7], [0, 4], [7, 7], [0, 6], [8, 7], [0, 8], [9, 7]]
    record = dict(_record(5, 1, "engine2", moves, opening=0), rule="freestyle")

    def ask(seen):
        return "0" if len(seen) < 7 else "+M1" if len(seen) % 2 else "-M1"

    lost = judge_games.judge_game(record, "engine1", ask)
    position = judge_games.lost_position(record, lost, "seed-5")
    assert position["moves"] == moves[:7] and (position["ply"], position["source"]) == (6, "seed-5")
    assert judge_games.lost_position(record, judge_games.judge_game(record, "engine2", ask), "x") is None
    from lab.solver_bench import board_of, prove_all
    assert board_of(position).to_move == 2
    assert prove_all([position], None, 20000, 2)["proved"] == 1


@pytest.mark.slow
def test_save_lost_on_the_command_line(tmp_path):
    moves = [[0, 0], [5, 7], [0, 2], [6, 7], [0, 4], [7, 7], [0, 6], [8, 7], [0, 8], [9, 7]]
    run = tmp_path / "seed-7"
    run.mkdir()
    (run / "results.jsonl").write_text(json.dumps(_record(1, 1, "engine2", moves)) + "\n"
                                       + json.dumps(_record(2, 1, "engine1", moves)) + "\n")
    out_file = tmp_path / "lost.json"
    judge = f"{sys.executable} {FAKE_BRAIN} --eval-mate-from 7"
    out = subprocess.run([sys.executable, "-m", "lab.judge_games", "--engine", judge, "--nodes", "10",
                          str(run / "results.jsonl"), "--save-lost", str(out_file)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    saved = json.loads(out_file.read_text())
    assert [(p["source"], p["game"]) for p in saved] == [("seed-7", 1)]  # game 2 was won
    assert "1 positions written" in out.stdout
