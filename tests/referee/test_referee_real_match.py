"""A real match between two copies of this project's brain (python -m protocol.gomocup) on 7x7, K=4."""

import json
import subprocess
import sys

import pytest

from engine.mnk.board.rules import Board, GameConfig

pytestmark = pytest.mark.slow


def test_two_pbrain_mcts_play_a_clean_match(tmp_path):
    out = tmp_path / "m"
    p = subprocess.run([sys.executable, "-m", "referee", "--size", "7", "--win-length", "4", "--turn-ms", "100",
                        "--tolerance-ms", "1500", "--games", "2", "--out", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    games = [json.loads(l) for l in (out / "results.jsonl").read_text().splitlines()]
    assert len(games) == 2
    cfg = GameConfig(7, 7, 4)
    for g in games:
        # a correct brain never loses on a fault: the game ends on the board
        assert g["termination"] in ("line", "full_board"), g["reason"]
        # the name comes from ABOUT; the second copy of the same command is told apart
        assert (g["engine1"], g["engine2"]) == ("pbrain-mcts", "pbrain-mcts#2")
        b = Board(cfg)
        for x, y in g["moves"]:
            b.play(cfg.move(x, y))
        assert (b.winner is not None) == (g["termination"] == "line")
        assert max(g["times_ms"]) < 100 + 1500
    assert "2 games" in p.stdout
