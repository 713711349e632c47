"""The pattern evaluation (engine/reversi/evaluation/patterns.py): the C kernel and the Python
reference give the same integers (evaluation, fixed-depth search, move values), the
placements respect the board's symmetries, the shipped weights load and predict, and the
solver's evaluation ordering changes no value."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.reversi import kernel
from engine.reversi.evaluation import patterns as pt
from engine.reversi.board.rules import ReversiState
from engine.reversi.endgame.solver import solve_position, solve_python

needs_c = pytest.mark.skipif(kernel.native() is None, reason="the C kernel is not in use")


def random_weights(seed: int = 1) -> pt.Weights:
    rng = np.random.default_rng(seed)
    return pt.Weights(rng.integers(-400, 400, size=(pt.PHASES, pt.table_size())).astype(np.int16), {})


def positions(count: int, seed: int = 2, lo: int = 0, hi: int = 60) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = ReversiState()
        for _ in range(rng.randrange(lo, hi)):
            if s.is_terminal():
                break
            s.apply(rng.choice(s.legal_moves()))
        b, w, t = s.snapshot()
        out.append((b, w) if t == 1 else (w, b))
    return out


def test_placements_cover_each_shape_under_every_symmetry():
    inst = pt.instances()
    counts = {}
    offsets = {}
    for offset, squares in inst:
        offsets.setdefault(offset, []).append(frozenset(squares))
    for (name, squares), group in zip(pt.SHAPES, offsets.values()):
        counts[name] = len(group)
        assert len(set(group)) == len(group)  # no placement twice
        assert all(len(g) == len(squares) for g in group)
    assert counts == {"edge_x": 4, "corner3x3": 4, "corner2x5": 8, "row2": 4, "row3": 4, "row4": 4,
                      "diag8": 2, "diag7": 4, "diag6": 4, "diag5": 4, "diag4": 4}


def tied(w: pt.Weights) -> pt.Weights:
    table = w.table.copy()
    table[:, :-pt.EXTRAS] = table[:, pt.tie_map()]
    return pt.Weights(table, w.meta)


def test_tied_weights_evaluate_every_symmetric_board_the_same():
    # weights shared by all placements, tied across each shape's own symmetries (as the
    # pipeline fits them): the eight images of a board have one value
    w = tied(random_weights(3))
    images = [lambda r, c: (r, 7 - c), lambda r, c: (c, r), lambda r, c: (7 - r, 7 - c), lambda r, c: (7 - c, 7 - r)]
    move = lambda b, f: sum(1 << (8 * f(i // 8, i % 8)[0] + f(i // 8, i % 8)[1]) for i in range(64) if b >> i & 1)
    for p, o in positions(20, seed=5):
        v = pt.evaluate_python(w, p, o)
        assert all(pt.evaluate_python(w, move(p, f), move(o, f)) == v for f in images)
    # untied, an edge read from the other end is another weight: the test can fail
    u = random_weights(3)
    assert any(pt.evaluate_python(u, p, o) != pt.evaluate_python(u, move(p, images[0]), move(o, images[0]))
               for p, o in positions(5, seed=5))


def test_batch_indices_equal_single():
    ps = positions(30, seed=7)
    batch = pt.indices_batch(np.array([p for p, _ in ps], dtype=np.uint64), np.array([o for _, o in ps], dtype=np.uint64))
    assert [list(row) for row in batch] == [pt.indices(p, o) for p, o in ps]


def test_finished_game_is_its_exact_result():
    w = random_weights()
    p, o = (1 << 64) - 1 - 0xFF, 0xFF  # full board, 56 to 8
    assert pt.evaluate_python(w, p, o) == pt.SCALE * 48


@needs_c
def test_c_evaluation_equals_python():
    w = random_weights()
    ev = pt.PatternEval(w)
    for p, o in positions(300):
        assert ev.evaluate(p, o) == pt.evaluate_python(w, p, o)
    leaves = [(p, o, 1) for p, o in positions(50, seed=9)] + [(o, p, 2) for p, o in positions(50, seed=10)]
    assert ev.leaves(leaves, 0) == [pt.evaluate_python(w, *((b, wh) if t == 1 else (wh, b))) for b, wh, t in leaves]


@needs_c
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_c_search_equals_python(depth):
    w = random_weights(4)
    ev = pt.PatternEval(w)
    for p, o in positions(12 if depth < 3 else 5, seed=depth, lo=20, hi=58):
        assert ev.search(p, o, depth) == pt.search_python(w, p, o, depth)[0]
    p, o = positions(1, seed=11, lo=30, hi=40)[0]
    python_moves = dict((sq, -pt.search_python(w, *pt_child(p, o, sq), depth - 1)[0]) for sq, _ in ev.moves(p, o, depth))
    assert dict(ev.moves(p, o, depth)) == python_moves


def pt_child(p: int, o: int, sq: int) -> tuple[int, int]:
    from engine.reversi.board.bitboard import geometry
    f = geometry(8).flips(p, o, sq)
    return o ^ f, p | f | (1 << sq)


def test_weights_round_trip(tmp_path):
    w = random_weights(6)
    w = pt.Weights(w.table, {"version": "t", "command": "x"})
    w.save(tmp_path / "w.npz")
    back = pt.Weights.load(tmp_path / "w.npz")
    assert np.array_equal(back.table, w.table) and back.version == "t"
    np.savez_compressed(tmp_path / "bad.npz", table=np.zeros((2, 3), dtype=np.int16), meta=np.array("{}"))
    with pytest.raises(ValueError):
        pt.Weights.load(tmp_path / "bad.npz")


def test_shipped_weights_predict_held_out_margins_better_than_nothing():
    from engine.reversi.bench import heldout_positions

    ev = pt.default()
    assert ev is not None
    meta = ev.weights.meta
    assert meta["version"] and meta["command"].startswith("python -m lab.reversi_train")
    positions = [x for x in heldout_positions() if x[2] == 16]
    assert len(positions) >= 20
    errors = [abs(ev.evaluate(p, o) / pt.SCALE - v) for p, o, _, v in positions]
    assert np.mean(errors) < 0.6 * np.mean([abs(v) for *_, v in positions])


@needs_c
def test_evaluation_ordering_keeps_the_solver_exact():
    ev = pt.PatternEval(random_weights(8))
    for p, o in positions(6, seed=12, lo=48, hi=50):
        plain = solve_position(p, o, 1, 8, ev=None)
        ordered = solve_position(p, o, 1, 8, ev=ev.handle)
        assert ordered.value == plain.value
    p, o = positions(1, seed=13, lo=52, hi=53)[0]
    assert solve_position(p, o, 1, 8, ev=ev.handle).value == solve_python(p, o, 1, 8).value


# ------------------------------------------------------------------ the search's evaluator
def test_engine_values_leaves_by_patterns_on_8x8_and_by_playouts_elsewhere():
    from engine.game import GameError
    from engine.reversi.tree.engine import ReversiEngine
    from engine.reversi.evaluation.playoutleaves import ReversiEvaluator
    from engine.reversi.tree.options import ReversiOptions
    from engine.reversi.evaluation.patternleaves import PatternLeaves

    assert isinstance(ReversiEngine(8).evaluator, PatternLeaves)
    assert isinstance(ReversiEngine(6).evaluator, ReversiEvaluator)
    assert isinstance(ReversiEngine(8, ReversiOptions(leaves="playouts")).evaluator, ReversiEvaluator)
    with pytest.raises(GameError):
        ReversiEngine(6, ReversiOptions(leaves="patterns"))
    with pytest.raises(ValueError):
        ReversiOptions(leaves="nets")


def test_pattern_leaves_order_moves_by_value_and_value_leaves_as_win_chances():
    from engine.reversi.evaluation.patternleaves import PatternLeaves

    ev = pt.PatternEval(tied(random_weights(9)))
    leaves = PatternLeaves(ev, depth=0)
    s = ReversiState()
    for m in ("f5", "d6", "c3", "d3", "c4"):
        s.apply(s.text_to_move(m))
    ex = leaves.expand(s, None)
    b, w, t = s.snapshot()
    p, o = (b, w) if t == 1 else (w, b)
    values = dict(ev.moves(p, o, 1))
    assert sorted(ex.moves) == sorted(s.legal_moves())
    assert [values[m] for m in ex.moves] == sorted(values.values(), reverse=True)
    assert ex.priors[0] == 1.0 and all(0 < q <= 1 for q in ex.priors)
    # a leaf's value is a logistic of its evaluation: above one half exactly when positive
    snaps = [c.snapshot() for c in child_states(s)]
    scores = ev.leaves(snaps, 0)
    for v, d in zip(leaves.values(snaps, np.random.default_rng(0)), scores):
        assert 0 < v < 1 and (v > 0.5) == (d > 0) and (v < 0.5) == (d < 0)


def child_states(s: ReversiState) -> list[ReversiState]:
    out = []
    for m in s.legal_moves():
        c = s.clone()
        c.apply(m)
        out.append(c)
    return out


def test_bench_reports_the_evaluations_speed_and_held_out_error():
    from engine.reversi.bench import eval_rows

    rows = list(eval_rows(0.05))
    speed = [r for r in rows if r["bench"] == "eval"]
    accuracy = {r["empties"]: r for r in rows if r["bench"] == "eval_accuracy"}
    assert len(speed) == 1 and speed[0]["evals_per_s"] > 0 and speed[0]["version"] == pt.default().weights.version
    assert 16 in accuracy and accuracy[16]["positions"] >= 20 and 0 < accuracy[16]["mae_discs"] < 16
