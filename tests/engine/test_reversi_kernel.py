"""The C kernel (engine/reversi/_reversicore.c) against the Python paths: perft, the
very same random games for the same seed, the result distribution of random games, and
bad input that must raise, not crash."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from engine.reversi import kernel
from engine.reversi.evaluation import playout
from engine.reversi.board.perft import PERFT_8X8, perft, perft_python
from engine.reversi.board.rules import BLACK, ReversiState, start_bitboards

core = kernel._reversicore
needs_c = pytest.mark.skipif(core is None, reason="the C kernel was not built")


def random_position(n: int, rng: random.Random, plies: int | None = None) -> ReversiState:
    s = ReversiState(n)
    for _ in range(rng.randrange(n * n) if plies is None else plies):
        moves = s.legal_moves()
        if not moves:
            break
        s.apply(rng.choice(moves))
    return s


@needs_c
def test_c_perft_matches_published_to_depth_9():
    black, white = start_bitboards(8)
    assert [core.perft(8, black, white, BLACK, d) for d in range(1, 10)] == list(PERFT_8X8[:9])


@needs_c
@pytest.mark.parametrize("n", [4, 6, 8, 10, 12, 14, 16])
def test_c_perft_matches_python(n):
    rng = random.Random(n)
    depth = 3 if n > 8 else 4
    for _ in range(12):
        b, w, tm = random_position(n, rng).snapshot()
        assert core.perft(n, b, w, tm, depth) == perft_python(b, w, tm, n, depth)


@pytest.mark.slow
@needs_c
def test_c_perft_depth_10_and_11():
    black, white = start_bitboards(8)
    assert core.perft(8, black, white, BLACK, 10) == PERFT_8X8[9]
    assert core.perft(8, black, white, BLACK, 11) == PERFT_8X8[10]


def test_perft_dispatch_uses_whichever_kernel():
    black, white = start_bitboards(8)
    assert perft(black, white, BLACK, 8, 5) == 1396


@needs_c
@pytest.mark.parametrize("n", [4, 6, 8, 10, 16])
def test_c_and_python_play_the_same_games(n):
    rng = random.Random(100 + n)
    for seed in (0, 1, 2**64 - 1, 123456789):
        b, w, tm = random_position(n, rng, plies=rng.randrange(8)).snapshot()
        games = 40 if n <= 8 else 6
        expected = playout.playout_scores_python(b, w, tm, n, games, seed)
        assert core.playout_scores(n, b, w, tm, games, seed) == expected
        wins = sum(d > 0 for d in expected)
        draws = sum(d == 0 for d in expected)
        assert core.playouts(n, b, w, tm, games, seed) == (wins, draws, games - wins - draws)


@needs_c
def test_c_and_python_leaf_values_agree():
    rng = random.Random(7)
    for n in (6, 8, 10):
        leaves = [random_position(n, rng).snapshot() for _ in range(5)]
        assert core.playouts_many(n, leaves, 4, 99) == playout.leaf_values_python(leaves, n, 4, 99)


def test_playouts_from_a_finished_game_give_its_result():
    s = ReversiState.from_text("XX" + "-" * 61 + "O" + " O")
    b, w, tm = s.snapshot()
    assert playout.playouts(b, w, tm, 8, 5, 1) == (0, 0, 5)
    assert playout.playout_scores(b, w, tm, 8, 2, 1) == [-62, -62]
    assert playout.leaf_values([(b, w, 1), (b, w, 2)], 8, 3, 1) == [1.0, 0.0]


@needs_c
def test_random_games_from_the_start_have_the_known_distribution():
    """White wins about 50 %, black 45 %, draws 4 % of uniformly random 8x8 games."""
    black, white = start_bitboards(8)
    games = 40_000
    wins, draws, losses = core.playouts(8, black, white, BLACK, games, 2026)
    assert abs(wins / games - 0.455) < 0.015  # black
    assert abs(losses / games - 0.504) < 0.015  # white
    assert abs(draws / games - 0.042) < 0.006
    # the bench's independent plain loop agrees
    b2, w2, d2 = core.reference_playouts(games, 11)
    assert abs(b2 - wins) / games < 0.02 and abs(w2 - losses) / games < 0.02


def test_python_random_games_have_the_known_distribution():
    black, white = start_bitboards(8)
    games = 1500
    scores = playout.playout_scores_python(black, white, BLACK, 8, games, 5)
    assert abs(sum(d > 0 for d in scores) / games - 0.455) < 0.05
    assert abs(sum(d < 0 for d in scores) / games - 0.504) < 0.05


@needs_c
@pytest.mark.parametrize("call", [
    lambda: core.perft(7, 0, 0, 1, 1),                 # odd size
    lambda: core.perft(18, 0, 0, 1, 1),                # too big
    lambda: core.perft(8, 1, 1, 1, 1),                 # overlap
    lambda: core.perft(8, -1, 0, 1, 1),                # negative
    lambda: core.perft(6, 1 << 36, 0, 1, 1),           # off the board
    lambda: core.perft(10, 1 << 100, 0, 1, 1),         # off the board (wide)
    lambda: core.perft(8, 1 << 64, 0, 1, 1),           # too large
    lambda: core.perft(8, "x", 0, 1, 1),               # not an int
    lambda: core.perft(8, 0, 0, 3, 1),                 # bad side
    lambda: core.perft(8, 0, 0, 1, -1),                # bad depth
    lambda: core.playouts(8, 0, 0, 1, -5, 1),          # bad count
    lambda: core.playouts_many(8, [(1, 2)], 4, 1),     # bad leaf
    lambda: core.playouts_many(8, [None], 4, 1),       # bad leaf
    lambda: core.playouts_many(8, 5, 4, 1),            # not a sequence
    lambda: core.playouts_many(8, [], 0, 1),           # bad count
    lambda: core.solve(8, 0, 0, 1, True, 0, 0.0, 0, 0, 9),  # too many arguments
])
def test_c_rejects_bad_input(call):
    with pytest.raises((ValueError, TypeError)):
        call()


@needs_c
def test_c_wide_boards_read_big_ints():
    s = random_position(16, random.Random(1), plies=40)
    b, w, tm = s.snapshot()
    assert b >> 128 or w >> 128  # the position reaches the last words
    assert core.perft(16, b, w, tm, 2) == perft_python(b, w, tm, 16, 2)


def test_pure_python_environment_switch():
    env = dict(os.environ, MNK_PURE_PYTHON="1")
    out = subprocess.run([sys.executable, "-c", "from engine.reversi import kernel; print(kernel.name())"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "Python"
