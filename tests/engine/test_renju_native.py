"""Renju's forbidden points in C (``engine/mnk/board/_renju.h``) against the Python reference
(:func:`engine.mnk.board.renju.python_reason`) on many random positions."""

from __future__ import annotations

import random

import pytest

from engine.mnk.board import renju
from engine.mnk.board.rules import BORDER, Board, GameConfig, Rule

native = pytest.mark.skipif(renju._threatcore is None or not hasattr(renju._threatcore, "forbidden"),
                            reason="the C extension is not built")
CODES = {0: None, 1: "overline", 2: "double four", 3: "double three"}


def random_board(cfg: GameConfig, rng: random.Random) -> Board:
    """Stones (mostly black, so that forbidden shapes are common) in a random region, a few
    blocked cells, sometimes against the edges."""
    board = Board(cfg)
    x0, y0 = rng.randrange(0, max(1, cfg.width - 6)), rng.randrange(0, max(1, cfg.height - 6))
    span = min(8, cfg.width, cfg.height)
    for _ in range(rng.randrange(4, 34)):
        x = min(cfg.width - 1, x0 + rng.randrange(span))
        y = min(cfg.height - 1, y0 + rng.randrange(span))
        m = cfg.move(x, y)
        if board.is_empty(m):
            r = rng.random()
            if r < 0.03:
                board.block(m)
            else:
                board.place(m, 1 if r < 0.68 else 2)
    return board


@native
@pytest.mark.parametrize("size", [(15, 15), (9, 9), (5, 5), (12, 7)])
def test_c_and_python_agree_on_random_positions(size):
    rng = random.Random(4 + size[0] * 100 + size[1])
    cfg = GameConfig(size[0], size[1], 5, Rule.RENJU)
    seen = {name: 0 for name in CODES.values()}
    positions = 120 if size == (15, 15) else 60
    for _ in range(positions):
        board = random_board(cfg, rng)
        cells = board.cells
        before = list(cells)
        targets = list(cfg.pad)  # every on-board cell, occupied ones included (code 0)
        codes = renju._threatcore.forbidden(bytes(cells), targets, cfg.directions)
        assert cells == before  # the board is not changed
        for t, code in zip(targets, codes):
            want = renju.python_reason(cells, t, cfg.directions) if cells[t] == 0 else None
            assert CODES[code] == want, (str(board), cfg.unpadded(t))
            seen[want] += 1
    if size == (15, 15):
        assert all(seen.values()), seen  # every reason occurred


@native
def test_c_refuses_bad_input():
    cfg = GameConfig(9, 9, 5, Rule.RENJU)
    cells = bytes(Board(cfg).cells)
    with pytest.raises(ValueError):
        renju._threatcore.forbidden(cells, [len(cells)], cfg.directions)
    with pytest.raises(ValueError):
        renju._threatcore.forbidden(bytes([9]) + cells[1:], [cfg.pad[0]], cfg.directions)
    assert renju._threatcore.forbidden(cells, [], cfg.directions) == b""
    assert BORDER == 3  # the C code's off-board value


@native
@pytest.mark.parametrize("size", [(15, 15), (12, 7)])
def test_the_solvers_test_names_every_forbidden_point(size):
    """The threat solver asks black's cells through a filter on its window counts and a
    memory by position: neither may let a forbidden point pass as a move, on boards with
    blocked cells and with every cell asked twice (the second answer from the memory)."""
    from engine.mnk.threats.solver import _native_geometry

    rng = random.Random(17 + size[0])
    cfg = GameConfig(size[0], size[1], 5, Rule.RENJU)
    geometry = _native_geometry(cfg)
    forbidden = 0
    for _ in range(150):
        board = random_board(cfg, rng)
        cells = bytes(board.cells)
        targets = list(cfg.pad) * 2
        plain = renju._threatcore.forbidden(cells, targets, cfg.directions)
        assert renju._threatcore.forbidden(cells, targets, cfg.directions, geometry) == plain
        forbidden += sum(1 for code in plain if code)
    assert forbidden > 100  # the boards had forbidden points to miss
    with pytest.raises(ValueError):
        renju._threatcore.forbidden(bytes(Board(GameConfig(9, 9, 5, Rule.RENJU)).cells), [], cfg.directions, geometry)
