"""The two 8x8 Reversi trees kept equal: the generic MCTS (engine.search.mcts) and the tree
in C (engine.reversi.tree.native), both with the pattern leaves and the endgame oracle.

The pattern leaves draw no random numbers, and the C tree repeats every floating-point
expression of the Python tree in the same order (the same libm ``exp``, ``log`` and ``pow``
in one process), so one leaf at a time (``leaves_per_batch=1, min_batch=1`` for the Python
tree) both make exactly the same choices: the tests assert equal visit counts, node and
playout counts, depths, proofs, moves and principal variations, and values equal up to
float noise (``pytest.approx`` at 1e-12; they have come out identical).  Also: reuse,
limits, stop, reports, and bad input.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from engine.game import GameError, Outcome
from engine.reversi import kernel
from engine.reversi.tree import native
from engine.reversi.evaluation import patterns
from engine.reversi.bench import fixed_positions, midgame
from engine.reversi.tree.engine import ReversiEngine
from engine.reversi.tree.options import TREE, ReversiOptions
from engine.reversi.board.rules import ReversiState
from engine.search.limits import Limits
from engine.search.mcts import MCTS, TreeSettings

pytestmark = pytest.mark.skipif(
    kernel.native() is None or not hasattr(kernel.native(), "Tree") or patterns.default() is None,
    reason="the C kernel was not built (or MNK_PURE_PYTHON is set)",
)

#: The shipped tree settings (the minimax share among them), one leaf at a time.
ONE_LEAF = replace(TREE, leaves_per_batch=1, min_batch=1)
ALL_SETTINGS = TreeSettings(leaves_per_batch=1, min_batch=1, widening=1.0, prior_bias=0.5, minimax=0.3,
                            exploration=1.1)


def opening() -> ReversiState:
    s = ReversiState()
    for m in ("f5", "d6", "c3"):
        s.apply(s.text_to_move(m))
    return s


def engines(settings: TreeSettings = ONE_LEAF, **options) -> tuple[ReversiEngine, ReversiEngine]:
    """Both trees; the root's win/draw/loss solve is off (the trees, not the solver, are compared)."""
    options.setdefault("root_wld_empties", 0)
    c_engine = ReversiEngine(8, ReversiOptions(tree=settings, **options), seed=1)
    py_engine = ReversiEngine(8, ReversiOptions(tree=settings, native=False, **options), seed=1)
    assert isinstance(c_engine.tree, native.NativeTree) and isinstance(py_engine.tree, MCTS)
    return c_engine, py_engine


def assert_same(c_engine: ReversiEngine, c_result, py_engine: ReversiEngine, py_result) -> None:
    """The same search: result fields, every root child's statistics, the principal variation."""
    for field in ("move", "visits", "nodes", "playouts", "depth", "proven", "reason", "pv"):
        assert getattr(c_result, field) == getattr(py_result, field), field
    assert c_result.value == pytest.approx(py_result.value, rel=1e-12, abs=1e-12)
    c_root, py_root = c_engine.tree.root_children(), py_engine.tree.root_children()
    assert [(c.move, c.n, c.outcome, c.plies) for c in c_root] == [(c.move, c.n, c.outcome, c.plies) for c in py_root]
    assert [c.w for c in c_root] == pytest.approx([c.w for c in py_root], rel=1e-12, abs=1e-12)
    for c in c_root[:3]:
        assert c_engine.tree.line(c.move) == py_engine.tree.line(c.move)


CASES = [
    ("opening", opening, 3000),
    ("midgame", midgame, 3000),
    ("20 empties", lambda: fixed_positions(20, 1)[0], 3000),
    ("22 empties", lambda: fixed_positions(22, 1)[0], 2000),
]


@pytest.mark.parametrize("name,make,nodes", CASES, ids=[c[0] for c in CASES])
def test_both_trees_search_alike_one_leaf_at_a_time(name, make, nodes):
    state = make()
    c_engine, py_engine = engines()
    c_result = c_engine.search(state, Limits(nodes=nodes))
    py_result = py_engine.search(state, Limits(nodes=nodes))
    assert_same(c_engine, c_result, py_engine, py_result)
    assert c_result.nodes == nodes and c_result.reason == "nodes"


def test_the_trees_leaf_values_are_the_kernels():
    """The C tree's leaf (the kernel's evaluation in a search that orders the last ply by a
    killer move) gives the kernel's eval_leaves values, from the opening to finished games,
    at every depth."""
    ev = patterns.default()
    leaves = [s.snapshot() for e in (55, 40, 25, 12, 3) for s in fixed_positions(e, 25)]
    leaves.append(ReversiState.from_text("XX" + "-" * 61 + "O" + " O").snapshot())  # over: the exact result
    for depth in (0, 1, 2, 3):
        tree = kernel.native().Tree(leaf_ev=ev.handle, order_ev=None, depth=depth, leaf_k=1 / 1536, prior_t=1 / 512,
                                    weight=1.0, exploration=0.8, widening=0.0, prior_bias=0.0, minimax=0.0,
                                    solver=True, tree_empties=14, tree_nodes=1000, ev_min=14)
        mine = [tree.leaf(*((b, w) if t == 1 else (w, b))) for b, w, t in leaves]
        assert mine == ev.leaves(leaves, depth), depth


def test_both_trees_prove_alike_with_the_oracle():
    """From 18 empties the tree solves nodes from 14 empties and proves the root lost:
    the same proofs, plies, visits and move in both (the root's own solve is off)."""
    state = fixed_positions(18, 1)[0]
    c_engine, py_engine = engines(root_empties=0)
    c_result = c_engine.search(state, Limits(nodes=5000))
    py_result = py_engine.search(state, Limits(nodes=5000))
    assert_same(c_engine, c_result, py_engine, py_result)
    assert c_result.proven == "loss" and c_result.reason == "proven"
    assert all(c.outcome == Outcome.LOSS for c in c_engine.tree.root_children())
    assert c_engine.oracle.solved > 0  # the tree's solves are counted with the oracle's


def test_both_trees_apply_widening_prior_bias_and_minimax_alike():
    for state in (midgame(), fixed_positions(20, 1)[0]):
        c_engine, py_engine = engines(ALL_SETTINGS)
        c_result = c_engine.search(state, Limits(nodes=2500))
        py_result = py_engine.search(state, Limits(nodes=2500))
        assert_same(c_engine, c_result, py_engine, py_result)


def test_both_trees_search_alike_without_the_oracle_and_at_the_memory_cap():
    state = fixed_positions(16, 1)[0]
    c_engine, py_engine = engines(solver=False, eval_depth=1)
    c_result = c_engine.search(state, Limits(nodes=2000, max_tree_nodes=700))
    py_result = py_engine.search(state, Limits(nodes=2000, max_tree_nodes=700))
    assert_same(c_engine, c_result, py_engine, py_result)
    assert c_engine.tree.tree_nodes == py_engine.tree.tree_nodes == 700
    assert c_result.nodes == 699  # nodes created (the root was there); leaves past the cap still count


def test_both_trees_reuse_the_subtree_of_the_next_position_alike():
    state = midgame()
    c_engine, py_engine = engines()
    c_engine.search(state, Limits(nodes=2000))
    py_engine.search(state, Limits(nodes=2000))
    line = c_engine.tree.principal_variation()[:2]
    assert line == py_engine.tree.principal_variation()[:2] and len(line) == 2
    for m in line:
        state.apply(m)
    kept = c_engine.tree._tree.node(line)
    assert kept is not None and sum(n for _, n, *_ in kept[3]) > 0
    assert c_engine.tree.set_root(state) and py_engine.tree.set_root(state)
    assert c_engine.tree.tree_nodes == py_engine.tree.tree_nodes > 1
    c_result = c_engine.search(state, Limits(nodes=1500))
    py_result = py_engine.search(state, Limits(nodes=1500))
    assert_same(c_engine, c_result, py_engine, py_result)
    # a position off the tree starts a new one
    other = opening()
    assert not c_engine.tree.set_root(other)
    assert c_engine.tree.tree_nodes == 1


def test_no_reuse_when_the_option_is_off():
    state = midgame()
    c_engine, _ = engines(TreeSettings(leaves_per_batch=1, min_batch=1, reuse_tree=False))
    c_engine.search(state, Limits(nodes=500))
    state.apply(c_engine.tree.principal_variation()[0])
    assert not c_engine.tree.set_root(state)


def test_playout_and_node_limits_and_the_deadline():
    state = midgame()
    engine = ReversiEngine(8, seed=1)
    result = engine.search(state, Limits(playouts=777))
    assert result.playouts == 777 and result.reason == "playouts"
    result = engine.search(state, Limits(nodes=321))
    assert result.nodes == 321 and result.reason == "nodes"
    t = time.monotonic()
    result = engine.search(state, Limits(deadline=t + 0.3))
    spent = time.monotonic() - t
    assert result.reason == "deadline" and 0.29 <= spent < 1.0 and result.nodes > 100


def test_stop_and_reports():
    state = midgame()
    engine = ReversiEngine(8, seed=1)
    stop = threading.Event()
    stop.set()
    result = engine.search(state, Limits(nodes=1000), stop=stop)
    assert result.reason == "stop" and result.nodes == 0 and result.move in state.legal_moves()
    stop = threading.Event()
    infos = []
    threading.Timer(0.4, stop.set).start()
    t = time.monotonic()
    result = engine.search(state, Limits(), stop=stop, on_info=infos.append)
    assert result.reason == "stop" and time.monotonic() - t < 1.0
    assert len(infos) >= 2 and infos[-1].nodes == result.nodes and infos[-1].pv == result.pv
    assert result.pv[0] == result.move and 0.0 <= result.value <= 1.0


def test_ranked_moves_and_the_margin_come_through_the_c_tree():
    state = midgame()
    c_engine, py_engine = engines()
    ranked = c_engine.rank_moves(state, Limits(nodes=800))
    assert ranked == py_engine.rank_moves(state, Limits(nodes=800))
    assert sorted(r.move for r in ranked) == sorted(state.legal_moves())
    assert sum(r.visits for r in ranked) == 800  # one playout a leaf
    # a result the tree proves gets its exact margin with the time left (as the generic tree)
    end = fixed_positions(12, 1, seed=7)[0]
    engine = ReversiEngine(8, ReversiOptions(root_empties=0, root_wld_empties=0), seed=1)
    assert isinstance(engine.tree, native.NativeTree)
    result = engine.search(end, Limits(deadline=time.monotonic() + 30))
    assert result.proven is not None and engine.last_margin is not None


def test_the_engine_falls_back_to_the_generic_tree(monkeypatch):
    assert ReversiOptions().with_values({"native": "false"}).native is False
    assert isinstance(ReversiEngine(8, ReversiOptions(native=False)).tree, MCTS)
    assert isinstance(ReversiEngine(8, ReversiOptions(leaves="playouts")).tree, MCTS)
    assert isinstance(ReversiEngine(6).tree, MCTS)
    monkeypatch.setattr(kernel, "native", lambda: None)  # as MNK_PURE_PYTHON=1
    assert not native.available(8, True, ReversiEngine(8, ReversiOptions(native=False)).evaluator)


def test_bad_input_is_refused_with_a_clear_error():
    engine = ReversiEngine(8, seed=1)
    tree = engine.tree
    with pytest.raises(GameError, match="set_root"):
        tree.search(Limits(nodes=10))
    with pytest.raises(GameError, match="over"):
        tree.set_root(ReversiState.from_text("XX" + "-" * 61 + "O" + " O"))
    with pytest.raises(GameError, match="8x8"):
        tree.set_root(ReversiState(6))
    assert tree.root_children() == [] and tree.principal_variation() == [] and tree.line(19) == [19]
    core = kernel.native()
    good = dict(leaf_ev=patterns.default().handle, order_ev=None, depth=2, leaf_k=1 / 1536, prior_t=1 / 512,
                weight=1.0, exploration=0.8, widening=0.0, prior_bias=0.0, minimax=0.0, solver=True,
                tree_empties=14, tree_nodes=1000, ev_min=14)
    for bad in ({"leaf_ev": "weights"}, {"depth": 9}, {"exploration": -1.0}, {"minimax": 2.0}, {"weight": 0.0},
                {"tree_empties": 65}):
        with pytest.raises((ValueError, TypeError)):
            core.Tree(**{**good, **bad})
    raw = core.Tree(**good)
    with pytest.raises(RuntimeError, match="set_root"):
        raw.run(None, 10, -1, 100)
    with pytest.raises(ValueError, match="same square"):
        raw.set_root(1, 1, 1, 0, 0, None)
    with pytest.raises(ValueError, match="to_move"):
        raw.set_root(0x0000000810000000, 0x0000001008000000, 3, 0, 0, None)
    with pytest.raises(ValueError, match="legal"):
        raw.set_root(0x0000000810000000, 0x0000001008000000, 1, 0, 0, [0])
    raw.set_root(0x0000000810000000, 0x0000001008000000, 1, 0, 0, None)
    with pytest.raises(ValueError, match="max_nodes"):
        raw.run(None, 10, -1, 0)
    assert raw.run(None, 10, -1, 100) == "nodes" and raw.node([99]) is None
    # a closed engine forgets its tree and searches again from scratch, as before
    state = midgame()
    first = engine.search(state, Limits(nodes=300))
    engine.close()
    assert engine.tree.root_children() == []
    again = engine.search(state, Limits(nodes=300))
    assert (again.move, again.visits, again.value, again.pv) == (first.move, first.visits, first.value, first.pv)
