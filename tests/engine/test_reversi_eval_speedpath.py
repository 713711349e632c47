"""The C pattern evaluation's table path (engine/reversi/_reversi_eval.h: each placement's
base-3 index summed from per-nibble tables built at load time) gives exactly the integers of
the reference (patterns.evaluate_python, whose indices loop over each placement's squares):
on positions of every phase from seeded random games, on near-empty and full boards, on
boards with whole rows, columns or diagonals empty or filled by one side, on placement sets
other than the shipped one, and through the fixed-depth searches on the evaluation."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.reversi import kernel
from engine.reversi.evaluation import patterns as pt
from engine.reversi.board.bitboard import final_differential, geometry
from engine.reversi.board.rules import ReversiState

pytestmark = pytest.mark.skipif(kernel.native() is None, reason="the C kernel is not in use")

FULL = (1 << 64) - 1


def random_weights(seed: int, size: int | None = None) -> pt.Weights:
    # the whole int16 range, so a wrong index or a lost lane shows in the sum
    rng = np.random.default_rng(seed)
    size = pt.table_size() if size is None else size
    return pt.Weights(rng.integers(-32768, 32768, size=(pt.PHASES, size)).astype(np.int16), {})


def game_positions(games: int, seed: int) -> list[tuple[int, int]]:
    """Every position (side to move first) of `games` seeded random games, start to end."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        s = ReversiState()
        while True:
            b, w, t = s.snapshot()
            out.append((b, w) if t == 1 else (w, b))
            if s.is_terminal():
                break
            s.apply(rng.choice(s.legal_moves()))
    return out


def line_masks() -> list[int]:
    """Every row, column, diagonal and anti-diagonal of 2 or more squares."""
    lines = [[(r, c) for c in range(8)] for r in range(8)] + [[(r, c) for r in range(8)] for c in range(8)]
    for d in range(-6, 7):
        lines.append([(r, r - d) for r in range(8) if 0 <= r - d < 8])
        lines.append([(r, 7 - r + d) for r in range(8) if 0 <= 7 - r + d < 8])
    return [sum(1 << (8 * r + c) for r, c in line) for line in lines]


def shaped_positions(count: int, seed: int) -> list[tuple[int, int]]:
    """Boards that games rarely reach: random fills of every density with a few lines
    emptied or given to one side, and boards one to three squares from full."""
    rng = random.Random(seed)
    lines = line_masks()
    out = []
    while len(out) < count:
        density = rng.random()
        occupied = sum(1 << i for i in range(64) if rng.random() < density)
        p = sum(1 << i for i in range(64) if occupied >> i & 1 and rng.random() < 0.5)
        o = occupied & ~p
        for _ in range(rng.randrange(4)):
            line = rng.choice(lines)
            kind = rng.randrange(3)
            p, o = (p & ~line, o & ~line) if kind == 0 else (p | line, o & ~line) if kind == 1 else (p & ~line, o | line)
        out.append((p, o))
        holes = rng.sample(range(64), rng.randrange(1, 4))
        q = sum(1 << i for i in range(64) if i not in holes and rng.random() < 0.5)
        out.append((q, FULL & ~q & ~sum(1 << h for h in holes)))
    return out


def test_evaluation_equals_reference_on_positions_of_every_phase():
    w = random_weights(21)
    ev = pt.PatternEval(w)
    games = game_positions(40, seed=22)
    empties = {64 - (p | o).bit_count() for p, o in games}
    assert set(range(0, 61)) <= empties  # start to full board, every phase
    boards = games + shaped_positions(600, seed=23) + [(0, 0), (FULL, 0), (0x0000000810000000, 0x0000001008000000)]
    assert len(boards) >= 3000
    c_values = ev.leaves([(p, o, 1) for p, o in boards], 0)
    assert c_values == [pt.evaluate_python(w, p, o) for p, o in boards]
    assert [ev.evaluate(p, o) for p, o in boards[::7]] == c_values[::7]


def test_evaluation_equals_reference_with_the_shipped_weights():
    ev = pt.default()
    assert ev is not None
    boards = game_positions(10, seed=24) + shaped_positions(100, seed=25)
    assert ev.leaves([(p, o, 1) for p, o in boards], 0) == [pt.evaluate_python(ev.weights, p, o) for p, o in boards]


def test_the_largest_indices_reach_the_tables_last_weights():
    # the opponent on every square but one, and on all ten squares of an edge placement:
    # index 3^10 - 1, the last weight of its table
    w = random_weights(26)
    ev = pt.PatternEval(w)
    boards = []
    for hole in range(64):
        for mine in (0, 1 << ((hole + 9) % 64), 1 << ((hole + 27) % 64)):
            p, o = mine, FULL & ~mine & ~(1 << hole)
            if geometry(8).moves(p, o) or geometry(8).moves(o, p):
                boards.append((p, o))
                boards.append((o, p))
    assert len(boards) > 20
    offsets = [offset for offset, _ in pt.instances()]
    assert max(k - off for p, o in boards for k, off in zip(pt.indices(p, o), offsets)) == 3 ** 10 - 1
    assert ev.leaves([(p, o, 1) for p, o in boards], 0) == [pt.evaluate_python(w, p, o) for p, o in boards]


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_searches_on_the_evaluation_equal_the_reference(depth):
    w = random_weights(30 + depth)
    ev = pt.PatternEval(w)
    pool = game_positions(8, seed=40 + depth)
    rng = random.Random(depth)
    count = {0: 400, 1: 150, 2: 60, 3: 20}[depth]
    boards = rng.sample(pool, count)
    leaves = [(p, o, 1) if i % 2 else (o, p, 2) for i, (p, o) in enumerate(boards)]
    assert ev.leaves(leaves, depth) == [pt.search_python(w, p, o, depth)[0] for p, o in boards]


def evaluate_with(instances, table: np.ndarray, p: int, o: int) -> int:
    """The evaluation's definition for any placement set (the reference's arithmetic)."""
    geo = geometry(8)
    mp, mo = geo.moves(p, o).bit_count(), geo.moves(o, p).bit_count()
    if mp == 0 and mo == 0:
        return pt.SCALE * final_differential(p, o, 64)
    w = table[pt.phase_of(64 - (p | o).bit_count())]
    total = 0
    for offset, squares in instances:
        k = 0
        for sq in squares:
            k = 3 * k + (p >> sq & 1) + 2 * (o >> sq & 1)
        total += int(w[offset + k])
    return total + int(w[-3]) * mp + int(w[-2]) * mo + int(w[-1])


@pytest.mark.parametrize("count", [1, 7, 9, 48])
def test_any_placement_set_up_to_the_limit_evaluates_as_defined(count):
    # placements of 1 to 10 squares in scrambled order, sharing squares and tables, any
    # number up to the 48 lanes (a partly filled vector of lanes included)
    rng = random.Random(count)
    instances, offset = [], 0
    for i in range(count):
        squares = tuple(rng.sample(range(64), rng.randrange(1, 11)))
        if i and rng.random() < 0.3:  # another placement of the previous table
            squares = tuple(rng.sample(range(64), len(instances[-1][1])))
            instances.append((instances[-1][0], squares))
            continue
        instances.append((offset, squares))
        offset += 3 ** len(squares)
    size = offset + pt.EXTRAS
    w = random_weights(50 + count, size)
    handle = kernel.native().eval_load(w.table.tobytes(), pt.PHASES, size, pt.PHASE_WIDTH, instances)
    boards = game_positions(3, seed=60 + count) + shaped_positions(60, seed=70 + count)
    got = kernel.native().eval_leaves(handle, [(p, o, 1) for p, o in boards], 0)
    assert got == [evaluate_with(instances, w.table, p, o) for p, o in boards]


def test_placement_sets_beyond_the_tables_are_refused():
    core = kernel.native()
    w = random_weights(80)
    table = w.table.tobytes()
    too_long = [(0, tuple(range(11)))]  # 3^11 does not fit a 16-bit lane
    too_many = [(0, (i,)) for i in range(49)]
    for instances, size in ((too_long, 3 ** 11 + pt.EXTRAS), (too_many, 3 + pt.EXTRAS)):
        weights = np.zeros((pt.PHASES, size), dtype=np.int16).tobytes()
        with pytest.raises(ValueError):
            core.eval_load(weights, pt.PHASES, size, pt.PHASE_WIDTH, instances)
    # the shipped pattern set fits
    assert core.eval_load(table, pt.PHASES, pt.table_size(), pt.PHASE_WIDTH, list(pt.instances())) is not None


def test_a_square_in_both_bitboards_keeps_every_index_in_its_table():
    # bad input: every pattern weight 1, the extras 0, so each evaluation (not a finished
    # game) is the number of placements exactly when every index falls inside a table
    table = np.ones((pt.PHASES, pt.table_size()), dtype=np.int16)
    table[:, -pt.EXTRAS:] = 0
    ev = pt.PatternEval(pt.Weights(table, {}))
    rng = random.Random(90)
    geo = geometry(8)
    boards = []
    while len(boards) < 200:
        p, o = rng.getrandbits(64), rng.getrandbits(64)
        if p & o and (geo.moves(p, o & ~p) or geo.moves(o & ~p, p)) and (geo.moves(p, o) or geo.moves(o, p)):
            boards.append((p, o))
    assert ev.leaves([(p, o, 1) for p, o in boards], 0) == [len(pt.instances())] * len(boards)
