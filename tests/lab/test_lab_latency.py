"""The pure helpers of the latency tool (the measurement itself is run by hand)."""

from __future__ import annotations

import numpy as np

from engine.mnk.board.rules import Board, GameConfig
from lab.latency import opponent_move, summary


def test_summary_reports_percentiles_and_max():
    text = summary([float(v) for v in range(1, 101)])
    assert "n=100" in text and "median=50.5" in text and "p90=91.0" in text and "max=100.0" in text


def test_opponent_wins_then_blocks_then_plays_near_stones():
    cfg = GameConfig.square(9, 4)
    rng = np.random.default_rng(0)
    board = Board(cfg)
    for x, y in [(1, 1), (5, 5), (2, 1), (5, 6), (3, 1), (5, 7)]:
        board.play(cfg.move(x, y))
    # first player to move, can complete 0..3 or 1..4 on row 1: must win rather than block 5,4/5,8
    assert cfg.xy(opponent_move(board, rng)) in [(0, 1), (4, 1)]
    board.play(cfg.move(8, 8))  # first player wastes the win
    assert cfg.xy(opponent_move(board, rng)) in [(5, 4), (5, 8)]  # second player wins now
    b2 = Board(cfg)
    b2.play(cfg.move(4, 4))
    for _ in range(20):
        x, y = cfg.xy(opponent_move(b2, rng))
        assert max(abs(x - 4), abs(y - 4)) == 1
