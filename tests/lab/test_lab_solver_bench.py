"""lab/solver_bench.py: counting the won positions the threat solver proves."""

import json
from pathlib import Path

import pytest

from engine.mnk.board.rules import EMPTY
from engine.mnk.threats.solver import find_vcf

from lab import solver_bench

DATA = Path(__file__).resolve().parents[2] / "data" / "conversion-15x15.json"
#: A position of the data file whose win the VCT proves in a few milliseconds.
QUICK_WIN = 5
QUIET = {"width": 15, "height": 15, "win_length": 5, "eval": "0", "moves": [[7, 7], [0, 0], [14, 14], [0, 14]]}


def test_proves_a_known_win_and_not_a_quiet_position():
    won = json.loads(DATA.read_text())[QUICK_WIN]
    result = solver_bench.prove_all([won, QUIET], ms=None, nodes=15000, threes=3)
    assert result["proved"] == 1 and result["positions"] == 2
    assert result["refuted"] == 1  # the quiet position: no win, and the search said so in budget
    assert solver_bench.prove_all([QUIET], ms=None, nodes=1, threes=3)["refuted"] == 0  # budget out
    line, none = result["lines"]
    assert none is None
    # Replaying the line leaves the defender lost: after every reply the attacker has a VCF.
    board = solver_bench.board_of(won)
    attacker = int(board.to_move)
    for m in line:
        assert board.play(m) is None
    assert int(board.to_move) != attacker
    cfg = board.config
    for reply in range(cfg.area):
        if board.cells[cfg.padded(reply)] != EMPTY:
            continue
        board.play(reply)
        assert board.winner is None and find_vcf(board, attacker, max_nodes=5000), cfg.xy(reply)
        board.undo()

def test_a_node_budget_gives_the_same_signature_every_time():
    positions = json.loads(DATA.read_text())[:4]
    a = solver_bench.prove_all(positions, ms=None, nodes=3000, threes=2)
    b = solver_bench.prove_all(positions, ms=None, nodes=3000, threes=2)
    assert a["signature"] == b["signature"] and a["lines"] == b["lines"]
    # A different budget can change what is found, and then the signature says so.
    c = solver_bench.prove_all(positions[:1], ms=None, nodes=3000, threes=2)
    assert c["signature"] != a["signature"]


def test_command_line(tmp_path, capsys):
    f = tmp_path / "p.json"
    f.write_text(json.dumps([json.loads(DATA.read_text())[QUICK_WIN], QUIET]))
    assert solver_bench.main([str(f), "--nodes", "15000"]) == 0
    out = capsys.readouterr().out
    assert "proved 1 of 2, no win within the threes in 1" in out and "signature" in out
    assert solver_bench.main([str(tmp_path / "missing.json"), "--ms", "10"]) == 2
    with pytest.raises(SystemExit):
        solver_bench.main([str(f)])  # no bound at all is refused


@pytest.mark.parametrize("name", ["lost-20x20.json", "lost-rapfi-15x15.json"])
def test_shipped_lost_positions_are_open_and_some_are_proved_on_a_small_budget(name):
    # Positions after a lost game's worst move (lab.judge_games --save-lost): the game goes on,
    # the opponent of the player who moved last is to move, and the solver finds its win in
    # a few of them on 20,000 nodes (the judge saw a forced win in every one).
    positions = json.loads((DATA.parent / name).read_text())
    assert len(positions) >= 40
    for pos in positions:
        board = solver_bench.board_of(pos)
        assert not board.is_over and len(pos["moves"]) == pos["ply"] + 1
        assert pos["source"].startswith("seed-")
    result = solver_bench.prove_all(positions[:20], ms=None, nodes=20000, threes=6)
    assert result["proved"] >= 2
