"""The guided tree search in C (engine/mnk/tree/_tree.h behind engine/mnk/tree/native.py).

Its pieces are checked against the Python code they mirror (the static evaluation,
the window priors, the defence sets), and the searcher as a whole on the things a
search must get right whatever its speed: wins, blocks, defences, proofs, limits,
memory caps and bad input.
"""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest

from engine.mnk.threats import solver
from engine.mnk.threats import roottactics
from engine.mnk.threats import defence
from engine.mnk.tree.engine import MnkEngine
from engine.mnk.tree.native import NativeSearcher, available
from engine.mnk.tree.options import MnkOptions
from engine.mnk.knowledge.patterns import cell_scores
from engine.mnk.knowledge.shapes import shape_board
from engine.mnk.board.rules import Board, GameConfig, Rule
from engine.search.limits import Limits
from engine.search.mcts import MCTS

from test_threats import random_position as _random_position

pytestmark = pytest.mark.skipif(
    solver._threatcore is None or not hasattr(solver._threatcore, "Tree") or not solver.USE_NATIVE,
    reason="the C extension was not built (or MNK_PURE_PYTHON is set)",
)

GUIDED = MnkOptions.guided()
C15 = GameConfig.square(15, 5)


def board_of(config: GameConfig, stones: list[tuple[int, int, int]]) -> Board:
    """A board with the given (x, y, player) stones played in order."""
    b = Board(config)
    for x, y, _ in stones:
        b.play(config.move(x, y))
    return b


def random_position(config: GameConfig, rng: random.Random, stones: int) -> Board:
    return _random_position(config, rng, stones, rng.choice((1, 2)))


def native(config: GameConfig = C15, **values) -> NativeSearcher:
    return NativeSearcher(config, GUIDED.with_values(values), full_width=config.area <= 64)


def Engine(config: GameConfig, options: MnkOptions = GUIDED, seed=None) -> MnkEngine:
    return MnkEngine(config, options, seed=seed)


def test_engine_uses_the_c_tree_only_where_it_applies():
    assert available(C15, GUIDED)
    assert isinstance(Engine(C15, GUIDED).tree, NativeSearcher)
    assert isinstance(Engine(C15, GUIDED.with_values({"native.enabled": False})).tree, MCTS)
    assert isinstance(Engine(C15, MnkOptions.uct()).tree, MCTS)
    assert isinstance(Engine(C15, GUIDED.with_values({"eval_weight": 0.5})).tree, MCTS)
    exact = GameConfig(15, 15, 5, Rule.EXACT)
    assert isinstance(Engine(exact, GUIDED).tree, MCTS)
    assert isinstance(Engine(GameConfig.square(9, 3), GUIDED).tree, MCTS)  # the solver needs K >= 4


@pytest.mark.parametrize("size,k,rule", [(15, 5, Rule.FREESTYLE), (9, 4, Rule.FREESTYLE), (12, 6, Rule.FREESTYLE),
                                         (7, 4, Rule.FREESTYLE), (15, 5, Rule.RENJU)])
def test_shape_value_and_priors_match_the_python_shapes(size, k, rule):
    config = GameConfig(size, size, k, rule)
    shapes = shape_board(config)
    s = native(config)
    rng = random.Random(size * 10 + k)
    pad = np.array([config.padded(m) for m in range(config.area)])
    for _ in range(25):
        b = random_position(config, rng, rng.randrange(0, config.area // 3))
        if b.is_over:
            continue
        s.set_root(b)
        compact = np.array(b.cells)[pad][None, :]
        empty = [m for m in range(config.area) if b.is_empty(m)]
        for p in (1, 2):
            expected = float(shapes.values(compact, np.array([p]))[0])
            assert s._tree.value(p) == pytest.approx(expected, rel=1e-9, abs=1e-12)
            logits = shapes.prior_logits(compact, p, empty)[0]
            assert s._tree.priors(empty, p) == pytest.approx(list(logits), rel=1e-9, abs=1e-9)


def test_shape_sums_stay_exact_through_searches_and_advances():
    # The C tree keeps its line codes and value sums incrementally: after searches (which
    # place and take stones all over the tree) and moving the root on, they must equal a
    # fresh computation.
    config = C15
    shapes = shape_board(config)
    pad = np.array([config.padded(m) for m in range(config.area)])
    rng = random.Random(11)
    b = random_position(config, rng, 6)
    s = native(config)
    s.set_root(b)
    for _ in range(6):
        s.search(Limits(nodes=400))
        move = s.root_moves()[0]
        b.apply(move)
        if b.is_over:
            break
        s.set_root(b)
        compact = np.array(b.cells)[pad][None, :]
        for p in (1, 2):
            assert s._tree.value(p) == pytest.approx(float(shapes.values(compact, np.array([p]))[0]), rel=1e-9)


def test_root_moves_are_the_cells_near_stones_best_prior_first():
    rng = random.Random(5)
    for _ in range(20):
        b = random_position(C15, rng, rng.randrange(2, 30))
        if b.is_over:
            continue
        s = native()
        s.set_root(b)
        if s.root_settled():
            continue
        sug = defence.defence_set(b, max_nodes=200)
        moves = s.root_moves()
        if sug is not None or s._tree.root()[0]:
            continue  # a defence set (checked in the next test) or a VCF (a single move)
        p = int(b.to_move)
        scores = cell_scores(C15, b.cells, p)
        expected = {C15.unpadded(c) for c in scores}
        assert set(moves) == expected
        ranked = [scores[C15.padded(m)] for m in moves]
        assert all(a >= b - 1e-9 for a, b in zip(ranked, ranked[1:]))


def test_root_moves_facing_a_threat_are_the_python_defence_set():
    # O has an open three on row 7 (x = 5..7) and X to move.
    b = board_of(C15, [(0, 0, 1), (5, 7, 2), (14, 14, 1), (6, 7, 2), (0, 14, 1), (7, 7, 2)])
    s = native()
    s.set_root(b)
    expected = defence.defence_set(b, max_nodes=200)
    assert expected is not None and len(expected) < 10
    assert set(s.root_moves()) == expected


def test_the_defence_set_does_not_depend_on_a_spent_solver_budget():
    # O has a split three on row 7 (x = 5, 7, 8: one move makes two completions, three stop
    # it) and X a three of its own on the top row (a four to play, no win).  With a one-node
    # VCF budget the root's own VCF runs out before the defences are worked out, which must
    # not cut the defence set short (to the one threat cell).
    b = board_of(C15, [(0, 0, 1), (5, 7, 2), (1, 0, 1), (7, 7, 2), (2, 0, 1), (8, 7, 2)])
    s = native(**{"knowledge.vcf_nodes": 1})
    s.set_root(b)
    expected = defence.defence_set(b, max_nodes=200)
    assert expected is not None and len(expected) < 12
    assert set(s.root_moves()) == expected


def test_plays_the_immediate_win_and_blocks_the_opponents():
    # X to move with four in a row: wins at once.
    b = board_of(C15, [(3, 3, 1), (10, 10, 2), (4, 3, 1), (10, 11, 2), (5, 3, 1), (11, 12, 2), (6, 3, 1), (0, 14, 2)])
    res = Engine(C15, GUIDED).search(b, Limits(nodes=50))
    assert res.move in (C15.move(2, 3), C15.move(7, 3)) and res.proven == "win"
    # O to move, X threatens to complete: O must block the open end left.
    b = board_of(C15, [(3, 3, 1), (10, 10, 2), (4, 3, 1), (10, 11, 2), (5, 3, 1), (11, 12, 2), (6, 3, 1)])
    b.play(C15.move(2, 3))  # O blocks one end; X to move completes at (7, 3)
    res = Engine(C15, GUIDED).search(b, Limits(nodes=50))
    assert res.move == C15.move(7, 3)
    b2 = board_of(C15, [(3, 3, 1), (10, 10, 2), (4, 3, 1), (10, 11, 2), (5, 3, 1), (11, 12, 2), (6, 3, 1), (2, 3, 2)])
    b2.play(C15.move(0, 0))  # X wastes a move; O must block (7, 3)
    res = Engine(C15, GUIDED).search(b2, Limits(nodes=200))
    assert res.move == C15.move(7, 3)


@pytest.mark.slow
def test_a_node_limited_search_is_reproducible_and_respects_its_limits():
    rng = random.Random(11)
    b = random_position(C15, rng, 20)
    while b.is_over:
        b = random_position(C15, rng, 20)
    runs = [Engine(C15, GUIDED).search(b, Limits(nodes=3000)) for _ in range(2)]
    assert runs[0].move == runs[1].move and runs[0].pv == runs[1].pv and runs[0].visits == runs[1].visits
    assert runs[0].nodes <= 3000
    res = Engine(C15, GUIDED).search(b, Limits(nodes=5000, max_tree_nodes=300))
    assert res.nodes <= 300
    assert b.cells[C15.padded(res.move)] == 0


def test_the_minimax_weight_reaches_the_c_tree():
    assert GUIDED.tree.minimax > 0
    rng = random.Random(11)
    plain = None
    while plain is None or not plain.visits:  # a position the tree searches (no win the root plays at once)
        b = random_position(C15, rng, 20)
        if not b.is_over:
            plain = Engine(C15, GUIDED.with_values({"tree.minimax": 0.0})).search(b, Limits(nodes=3000))
    mixed = Engine(C15, GUIDED).search(b, Limits(nodes=3000))
    assert plain.visits != mixed.visits


@pytest.mark.slow
def test_the_deadline_and_the_stop_event_end_the_search():
    b = board_of(C15, [(7, 7, 1), (8, 8, 2), (6, 8, 1)])
    eng = Engine(C15, GUIDED)
    t = time.monotonic()
    res = eng.search(b, Limits(deadline=t + 0.3))
    assert res.reason == "deadline" and time.monotonic() - t < 1.0
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    t = time.monotonic()
    res = eng.search(b, Limits(), stop=stop)
    assert res.reason == "stop" and time.monotonic() - t < 1.0
    assert res.nodes > 0


@pytest.mark.slow
def test_info_reports_arrive_during_a_search():
    b = board_of(C15, [(7, 7, 1), (8, 8, 2), (6, 8, 1)])
    seen = []
    Engine(C15, GUIDED).search(b, Limits(deadline=time.monotonic() + 0.7), on_info=seen.append)
    assert seen and all(info.pv for info in seen)
    assert seen[-1].nodes >= seen[0].nodes


def test_dropping_root_moves_never_drops_them_all():
    b = board_of(C15, [(7, 7, 1), (8, 8, 2)])
    s = native()
    s.set_root(b)
    moves = s.root_moves()
    assert s.drop_root_moves(moves) == 0
    assert s.drop_root_moves(moves[1:]) == len(moves) - 1
    assert s.root_moves() == moves[:1]
    res = s.search(Limits(nodes=200))
    assert res.move == moves[0]


def test_a_lost_position_is_proven_and_still_answered_with_a_legal_move():
    # X has two open fours' worth: four on row 3 open at both ends, O to move.
    b = board_of(C15, [(3, 3, 1), (10, 10, 2), (4, 3, 1), (10, 12, 2), (5, 3, 1), (12, 10, 2), (6, 3, 1)])
    res = Engine(C15, GUIDED).search(b, Limits(nodes=2000))
    assert res.proven == "loss"
    assert res.move in (C15.move(2, 3), C15.move(7, 3))


def test_a_small_board_searched_to_the_end_gets_the_python_trees_proof():
    # 4x4, K = 4, both diagonals blocked, 8 empty cells: both trees prove the result.
    config = GameConfig.square(4, 4)
    b = board_of(config, [(0, 0, 1), (1, 1, 2), (2, 2, 1), (3, 3, 2), (0, 3, 1), (3, 0, 2), (1, 2, 1), (2, 1, 2)])
    ours = Engine(config, GUIDED).search(b, Limits(nodes=200_000))
    python = Engine(config, GUIDED.with_values({"native.enabled": False})).search(b, Limits(nodes=200_000))
    assert ours.proven is not None
    assert ours.proven == python.proven


@pytest.mark.slow
@pytest.mark.parametrize("vct_visits", [0, 16])
def test_random_games_between_two_c_trees_end_legally(vct_visits):
    rng = random.Random(vct_visits)
    for size, k in ((9, 4), (15, 5)):
        config = GameConfig.square(size, k)
        b = random_position(config, rng, 4)
        opts = GUIDED.with_values({"native.vct_visits": vct_visits})
        engines = [Engine(config, opts), Engine(config, opts)]
        while not b.is_over:
            res = engines[len(b.history) % 2].search(b, Limits(nodes=400))
            assert b.cells[config.padded(res.move)] == 0
            b.play(res.move)


def test_bad_positions_are_refused():
    s = native()
    with pytest.raises(ValueError):
        s._tree.set_root([0] * 10, 1)
    cells = list(Board(C15).cells)
    with pytest.raises(ValueError):
        s._tree.set_root(cells, 3)
    bad = list(cells)
    bad[C15.padded(0)] = 3  # a border value on the board
    with pytest.raises(ValueError):
        s._tree.set_root(bad, 1)
    with pytest.raises(RuntimeError):
        native()._tree.run(None, 10, 100)  # no root yet


@pytest.mark.slow
def test_the_tree_is_reused_when_the_game_goes_on_through_it():
    b = board_of(C15, [(7, 7, 1), (8, 8, 2), (6, 8, 1), (8, 6, 2)])
    eng = Engine(C15, GUIDED)
    res = eng.search(b, Limits(nodes=4000))
    assert not eng.reused
    b.play(res.move)
    b.play(res.pv[1])  # the reply the tree expected most
    s = eng.tree
    assert s.set_root(b)
    kept = s._tree.root()[2]
    assert kept > 0  # the visits of the kept subtree
    fresh = native()
    fresh.set_root(b)
    if not fresh.root_settled() and not s._tree.root()[0]:
        assert set(s.root_moves()) == set(fresh.root_moves())  # every move, not only the best 40
    res2 = eng.search(b, Limits(nodes=2000))
    assert eng.reused and b.cells[C15.padded(res2.move)] == 0
    assert s._tree.root()[2] >= kept
    # A position that does not follow (a stone taken back) starts a new tree.
    b.undo()
    b.undo()
    b.undo()
    eng.search(b, Limits(nodes=100))
    assert not eng.reused


@pytest.mark.slow
def test_the_replies_to_the_roots_moves_list_every_move_and_deeper_nodes_the_best_edge_cap():
    b = board_of(C15, [(7, 7, 1), (8, 8, 2), (6, 8, 1), (8, 6, 2)])
    eng = Engine(C15, GUIDED)
    res = eng.search(b, Limits(nodes=4000))
    tree = eng.tree._tree
    cut = 0  # replies a cap of edge_cap would have cut short
    for move, _, _, proven, _ in tree.stats():
        replies = tree.listed([move])
        if replies is None or proven:
            continue
        b.play(move)
        fresh = native()
        fresh.set_root(b)
        if not fresh._tree.root()[0]:
            every = fresh.root_moves()  # what a new root lists in this position
            assert set(every) <= set(replies), move
            cut += len(every) > GUIDED.native.edge_cap
        b.undo()
    assert cut > 0
    assert len(tree.listed(res.pv[:2])) == GUIDED.native.edge_cap
    assert tree.listed([res.move, res.pv[1], res.move]) is None  # not a path of the tree


def test_dropping_root_moves_after_a_search_keeps_the_order_and_the_statistics():
    b = board_of(C15, [(7, 7, 1), (8, 8, 2), (6, 8, 1)])
    s = native()
    s.set_root(b)
    s.search(Limits(nodes=500))
    before = s.root_moves()
    stats = {m: (n, w) for m, n, w, _, _ in s._tree.stats()}
    drop = set(before[1::3])
    assert s.drop_root_moves(drop) == len(drop)
    assert s.root_moves() == [m for m in before if m not in drop]
    after = {m: (n, w) for m, n, w, _, _ in s._tree.stats()}
    assert after == {m: v for m, v in stats.items() if m not in drop}
    res = s.search(Limits(nodes=300))
    assert res.move not in drop


def test_moves_the_plan_beside_the_tree_proves_lost_leave_the_root_before_the_plan_ends(monkeypatch):
    """``root_thread``: each proof of a lost move reaches the tree between two slices, not
    when the whole plan is done (which, under a threat, is near the end of the turn)."""
    from engine.mnk.tree import engine as engine_module

    board = board_of(C15, [(7, 7, 1), (7, 8, 2), (8, 8, 1)])
    told = threading.Event()

    def plan_that_never_finishes(board, moves, deadline, share, stop=None, on_losing=None, **_):
        on_losing(moves[:5])
        told.set()
        stop.wait(5.0)  # the tree's search ends it: set when the search stops
        return roottactics.RootPlan()

    monkeypatch.setattr(engine_module, "plan_root", plan_that_never_finishes)
    eng = Engine(C15, GUIDED.with_values({"root.thread": True}), seed=1)
    first = native()
    first.set_root(board)
    lost = first.root_moves()[:5]
    res = eng.search(board, Limits(deadline=time.monotonic() + 0.3))
    assert told.is_set() and res.move not in lost
    assert not set(lost) & set(eng.tree.root_moves())
    assert len(eng.tree.root_moves()) == len(first.root_moves()) - 5


def test_losing_news_waits_for_a_move_that_stands():
    """The plan tells no proven-lost move while no other move stands, so a tree beside it
    is never left with only lost moves by the news alone."""
    from engine.mnk.threats.roottactics import LOSING, OPEN, SAFE, _LosingNews

    heard = []
    news = _LosingNews(heard.append)
    news(1, LOSING)
    assert heard == []
    news(2, OPEN)
    assert heard == [[1]]
    news(3, LOSING)
    assert heard == [[1], [3]]
    news(2, LOSING)  # a later pass proves the open move lost: nothing stands now
    assert heard == [[1], [3]]
    news(4, SAFE)
    assert heard == [[1], [3], [2]]


@pytest.mark.slow
def test_the_root_threat_search_on_its_own_thread_prunes_the_root_and_plays_wins():
    """``root_thread``: the plan runs beside the C tree; its losing moves leave the root,
    its forced wins are played, and its thread is gone once the search has returned."""
    opts = GUIDED.with_values({"root.thread": True})
    # From a game against pela: O to move must answer X's threats; most moves lose to a VCT.
    stones = [(7, 6), (6, 6), (6, 7), (7, 7), (5, 5), (9, 5), (4, 5)]
    board = board_of(C15, [(x, y, 0) for x, y in stones])
    eng = Engine(C15, opts, seed=1)
    res = eng.search(board, Limits(deadline=time.monotonic() + 1.0))
    assert res.playouts > 0 and res.proven != "loss"
    left = eng.tree.root_moves()
    safe, losing, _ = roottactics.losing_moves(board, left, max_nodes=20_000, max_threes=2)
    assert res.move in left and not losing, "moves proven to lose must have left the root"
    fresh = native()
    fresh.set_root(board)
    assert len(fresh.root_moves()) > len(left) + 20
    assert not any(t.name == "root-tactics" and t.is_alive() for t in threading.enumerate())
    # An own forced win is played (by the plan or by the tree's own knowledge).
    win = board_of(C15, [(5, 7, 1), (0, 0, 2), (6, 7, 1), (14, 14, 2), (7, 7, 1), (0, 14, 2)])
    res = Engine(C15, opts, seed=1).search(win, Limits(deadline=time.monotonic() + 1.0))
    assert res.proven == "win" and res.move in {C15.move(x, 7) for x in (3, 4, 8, 9)}
