"""lab/conversion.py: finding won positions in records and checking the engine keeps them."""

import io
import json
from pathlib import Path

import pytest

from engine.api import options_for
from engine.mnk.board.rules import GameConfig

GUIDED = options_for(GameConfig(), "guided")

from lab import conversion, judge_games

DATA = Path(__file__).resolve().parents[2] / "data" / "conversion-15x15.json"


def _record(moves, first=1, opening=0):
    return {"game": 1, "first": first, "moves": moves, "opening": opening, "width": 9, "height": 9, "win_length": 4}


QUIET = [[0, 0], [8, 8], [0, 8], [8, 0], [2, 4], [6, 4], [4, 1], [4, 7], [1, 1], [7, 7]]


def test_collect_keeps_the_first_wins_of_engine1_only():
    asked = []

    def judge(moves, size):
        asked.append(len(moves))
        return "+M9" if len(moves) >= 4 else "-12"

    # engine1 moved first: it is to move at even plies; the judge sees a win from ply 4 on.
    found = conversion.collect([_record(QUIET)], judge, per_game=2)
    assert [p["ply"] for p in found] == [4, 6]
    assert all(n % 2 == 0 for n in asked)
    assert found[0]["moves"] == QUIET[:4] and found[0]["eval"] == "+M9"
    # As the second player (odd plies), and one position per game.
    assert [p["ply"] for p in conversion.collect([_record(QUIET, first=2)], judge, per_game=1)] == [5]


def test_collect_skips_positions_with_a_vcf():
    # On 9x9 k4, X's open two at ply 4 is a VCF (the open three it makes is a double threat),
    # and at ply 6 X can complete a line: neither is asked about or kept.
    moves = [[3, 4], [0, 0], [4, 4], [0, 8], [5, 4], [8, 0], [6, 4], [1, 1]]
    asked = []
    found = conversion.collect([_record(moves)], lambda m, s: asked.append(len(m)) or "+M3", per_game=5)
    assert [p["ply"] for p in found] == [0, 2] and asked == [0, 2]


def test_run_counts_moves_that_keep_the_win():
    # X to move can complete four in a row at (6, 4) or (2, 4); the judge calls the win kept
    # only after one of those.
    won = {"width": 9, "height": 9, "win_length": 4, "moves": [[3, 4], [0, 0], [4, 4], [0, 8], [5, 4], [8, 0]]}

    def judge(moves, size):
        return "-M1" if moves[-1] in ([6, 4], [2, 4]) else "35"

    kept, reasons = conversion.run([won, won], judge, GUIDED, ms=100)
    assert kept == 2 and sum(reasons.values()) == 2
    lines = io.StringIO()
    kept, _ = conversion.run([dict(won, game=7, ply=6)], lambda m, s: "+M1", GUIDED, ms=100, out=lines)
    assert kept == 0  # the judge says the opponent wins now: the win was not kept
    # One line for the position: where it came from, the move played, the verdict.
    [line] = lines.getvalue().splitlines()
    assert line.split()[:5] == ["0", "game", "7", "ply", "6"]
    assert ("move 6,4" in line or "move 2,4" in line) and line.endswith("judge +M1  lost")
    # With two threads (the root threat search beside the C tree): the same verdicts.
    kept, reasons = conversion.run([won, won], judge, GUIDED, ms=300, threads=2)
    assert kept == 2 and sum(reasons.values()) == 2


@pytest.mark.skipif(not DATA.exists(), reason="conversion positions not present")
def test_shipped_positions_are_won_for_the_side_to_move_and_not_trivial():
    from engine.mnk.board.rules import GameConfig
    from engine.mnk.threats.solver import find_vcf

    positions = json.loads(DATA.read_text())
    assert len(positions) >= 100
    for pos in positions[:20]:
        cfg = GameConfig(pos["width"], pos["height"], pos["win_length"])
        board = judge_games.replay(cfg, pos["moves"])
        assert pos["eval"].startswith("+M") and not board.is_over
        assert not board.winning_cells(board.to_move) and find_vcf(board, int(board.to_move), max_nodes=2000) is None


def test_collect_blunders_keeps_engine1s_first_move_into_a_forced_loss():
    # engine1 moves first (even plies).  The judge: after ply 6's move (7 moves played) the
    # opponent has a forced win; before it engine1 was not lost.  Later blunders are ignored.
    def judge(moves, size):
        return "+M7" if len(moves) in (7, 9) else "-M6" if len(moves) == 8 else "15"

    found = conversion.collect_blunders([_record(QUIET)], judge)
    assert [(p["ply"], p["goal"], p["eval"]) for p in found] == [(6, "hold", "15")]
    assert found[0]["moves"] == QUIET[:6]
    # A move that only confirmed a loss the judge already saw is not a blunder.
    assert conversion.collect_blunders([_record(QUIET)], lambda m, s: "-M9" if len(m) % 2 == 0 else "+M8") == []
    # As the second player engine1 moves at odd plies.
    found = conversion.collect_blunders([_record(QUIET, first=2)], lambda m, s: "+M4" if len(m) == 6 else "-20")
    assert [p["ply"] for p in found] == [5]


def test_hold_positions_are_kept_unless_the_opponent_then_has_a_forced_win():
    hold = {"goal": "hold"}
    assert conversion.kept(hold, "-35") and conversion.kept(hold, "-M3") and conversion.kept(hold, None)
    assert not conversion.kept(hold, "+M5")
    assert conversion.kept({}, "-M5") and not conversion.kept({}, "-400")  # the default goal: win


@pytest.mark.parametrize("name, count", [("blunders-15x15.json", 161), ("blunders-rapfi-15x15.json", 46)])
def test_shipped_blunders_are_open_positions_and_the_played_move_lets_a_line_through(name, count):
    from engine.mnk.board.rules import GameConfig

    positions = json.loads((DATA.parent / name).read_text())
    assert len(positions) == count and all(p["goal"] == "hold" for p in positions)
    for pos in positions[:30]:
        cfg = GameConfig(pos["width"], pos["height"], pos["win_length"])
        board = judge_games.replay(cfg, pos["moves"])
        assert not board.is_over and not pos["eval"].startswith("-M")
        assert not board.winning_cells(board.to_move) and not board.winning_cells(board.to_move.other)
        assert board.cells[cfg.padded(cfg.move(*pos["played"]))] == 0  # the move played in the game
