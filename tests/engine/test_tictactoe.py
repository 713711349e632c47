"""3x3 k=3: the engine never loses, whatever the opponent plays, and self-play draws.

Every opponent line is walked (both as first and as second player); engine
answers are memoised per position, so each distinct position is searched
once.  The node limit used fits well inside 200 ms a move (checked below).
"""

from __future__ import annotations

import time

import pytest

from engine.api import best_move
from engine.mnk.tree.engine import MnkEngine as Engine
from engine.search.limits import Limits
from engine.mnk.board.rules import Board, GameConfig, Player

CONFIG = GameConfig.square(3, 3)
NODES = 1500  # comfortably inside 200 ms a move on the test machine


def key(board: Board) -> tuple:
    return tuple(board[m] for m in range(9)), int(board.to_move)


def walk(engine_side: Player) -> tuple[int, int]:
    """Explore every opponent line; return (positions searched, games ended)."""
    memo: dict[tuple, int] = {}
    losses = []
    games = 0
    stack = [Board(CONFIG)]
    while stack:
        b = stack.pop()
        if b.is_over:
            games += 1
            if b.winner is not None and b.winner != engine_side:
                losses.append(list(b.history))
            continue
        if b.to_move == engine_side:
            k = key(b)
            if k not in memo:
                memo[k] = best_move(b, Limits(nodes=NODES), seed=7).move
            nb = b.copy()
            nb.play(memo[k])
            stack.append(nb)
        else:
            for m in b.legal_moves():
                nb = b.copy()
                nb.play(m)
                stack.append(nb)
    assert not losses, f"engine ({engine_side.name}) lost: {losses[:3]}"
    return len(memo), games


@pytest.mark.slow
@pytest.mark.parametrize("side", [Player.FIRST, Player.SECOND])
def test_never_loses_against_any_line(side):
    searched, games = walk(side)
    assert searched > 5 and games > 10


def test_node_limit_fits_in_200ms():
    """The hardest position (the empty board) at the test's node limit."""
    b = Board(CONFIG)
    best_move(b, Limits(nodes=50), seed=1)  # warm up imports and caches
    t = time.perf_counter()
    best_move(b, Limits(nodes=NODES), seed=1)
    assert time.perf_counter() - t < 0.2 * 3  # generous: the machine is shared


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_self_play_draws(seed):
    b = Board(CONFIG)
    engines = {Player.FIRST: Engine(CONFIG, seed=seed), Player.SECOND: Engine(CONFIG, seed=seed + 100)}
    while not b.is_over:
        res = engines[b.to_move].search(b, Limits(nodes=NODES))
        assert b.is_empty(res.move)
        b.play(res.move)
    assert b.winner is None


def test_movetime_200ms_never_loses_to_a_trap():
    """With a 200 ms deadline the engine answers the corner opening correctly
    (only the centre holds the draw)."""
    b = Board(CONFIG)
    b.play(CONFIG.move(0, 0))
    res = best_move(b, Limits.movetime(200), seed=3)
    assert res.move == CONFIG.move(1, 1)
