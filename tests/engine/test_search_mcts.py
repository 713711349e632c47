"""The generic MCTS on toy games through the game interface, with exact expectations."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from engine.search.choice import Child, choose, rank
from engine.game import Expansion, GameError, Outcome, Verdict
from engine.search.limits import Limits
from engine.search.mcts import MCTS, TreeSettings
from engine.search.playouts import RandomPlayouts
from support.toygames import Nim, TicTacToe, solve, winning_moves


def searcher(state, seed=0, oracle=None, weight=4, **settings) -> MCTS:
    tree = MCTS(RandomPlayouts(weight), oracle, TreeSettings(**settings), np.random.default_rng(seed))
    tree.set_root(state)
    return tree


def walk_tree(tree: MCTS, state):
    """Yield (node, position) for every node of the tree (iteratively)."""
    stack = [(tree.root, state.clone())]
    while stack:
        node, pos = stack.pop()
        yield node, pos
        for m, child in zip(node.moves or (), node.children or ()):
            if child is not None:
                nxt = pos.clone()
                nxt.apply(m)
                stack.append((child, nxt))


@pytest.mark.slow
def test_every_proof_in_the_tree_is_exact():
    """Searched to a node budget, every node the solver marked proven has that exact value."""
    for seed in range(4):
        start = TicTacToe()
        tree = searcher(start, seed=seed)
        tree.search(Limits(nodes=3000))
        proven = 0
        for node, pos in walk_tree(tree, start):
            if node.outcome:
                assert Outcome(node.outcome).score == solve(pos), (pos.cells, node.outcome)
                proven += 1
        assert proven > 100


@pytest.mark.slow
def test_the_empty_board_is_proven_a_draw():
    tree = searcher(TicTacToe(), seed=3, weight=1)
    result = tree.search(Limits(nodes=60_000))
    assert result.proven == "draw"
    assert result.reason == "proven"
    assert result.value == 0.5


@pytest.mark.parametrize("heaps", [(1, 2), (3, 3), (2, 5), (4, 1, 2), (5, 5)])
def test_nim_results_are_proven_and_winning_moves_played(heaps):
    state = Nim(heaps)
    tree = searcher(state, seed=1)
    result = tree.search(Limits(nodes=20_000))
    # Take-1..3 Nim: the position is lost for the mover exactly when the xor of heap sizes mod 4 is 0.
    lost = np.bitwise_xor.reduce([h % 4 for h in heaps]) == 0
    assert result.proven == ("loss" if lost else "win")
    if not lost:
        assert result.move in winning_moves(state)


def perfect_against_every_line(engine_side: int, nodes: int) -> int:
    """Walk every opponent line against the search; return the games the search lost."""
    losses = 0
    memo: dict = {}
    stack = [TicTacToe()]
    while stack:
        pos = stack.pop()
        if pos.is_terminal():
            if pos.winner() not in (0, engine_side):
                losses += 1
            continue
        if pos.to_move == engine_side:
            key = pos.key()
            if key not in memo:
                tree = searcher(pos, seed=len(memo))
                memo[key] = tree.search(Limits(nodes=nodes)).move
            nxt = pos.clone()
            nxt.apply(memo[key])
            stack.append(nxt)
        else:
            for m in pos.legal_moves():
                nxt = pos.clone()
                nxt.apply(m)
                stack.append(nxt)
    return losses


@pytest.mark.slow
@pytest.mark.parametrize("side", [1, 2])
def test_a_perfect_tictactoe_player(side):
    assert perfect_against_every_line(side, nodes=2000) == 0


def test_a_seed_and_a_node_limit_reproduce_the_search():
    results = []
    for _ in range(2):
        tree = searcher(TicTacToe([1, 0, 0, 0, 2, 0, 0, 0, 0], [0, 4]), seed=7)
        r = tree.search(Limits(nodes=500))
        results.append((r.move, r.visits, r.value, r.pv, r.playouts, r.nodes))
    assert results[0] == results[1]
    assert results[0][5] == 500


@pytest.mark.slow
def test_playout_limit_and_tree_cap():
    tree = searcher(TicTacToe(), seed=1, weight=4)
    r = tree.search(Limits(playouts=400))
    assert r.playouts == 400 and r.reason == "playouts"
    tree = searcher(TicTacToe(), seed=1)
    tree.search(Limits(nodes=5000, max_tree_nodes=50))
    assert tree.tree_nodes <= 50


def test_deadline_and_stop_end_the_search():
    tree = searcher(Nim([40, 40, 40, 40]), seed=1)
    t0 = time.monotonic()
    r = tree.search(Limits.movetime(100))
    assert r.reason == "deadline"
    assert time.monotonic() - t0 < 0.5
    stop = threading.Event()
    stop.set()
    r = searcher(Nim([40, 40, 40, 40]), seed=1).search(Limits(), stop=stop)
    assert r.reason == "stop"
    assert r.move in Nim([40, 40, 40, 40]).legal_moves()


class RecordsBegin(RandomPlayouts):
    """Remembers the deadline each search handed to :meth:`begin`."""

    def __init__(self, weight):
        super().__init__(weight)
        self.deadlines = []

    def begin(self, root, deadline=None):
        self.deadlines.append(deadline)


def test_the_search_hands_its_deadline_to_the_evaluator():
    evaluator = RecordsBegin(2)
    tree = MCTS(evaluator, None, TreeSettings(), np.random.default_rng(0))
    tree.set_root(Nim([5, 5]))
    limits = Limits.movetime(50)
    tree.search(limits)
    tree.search(Limits(nodes=50))
    assert evaluator.deadlines == [limits.deadline, None]


def test_info_callback_reports_progress():
    seen = []
    searcher(TicTacToe(), seed=1).search(Limits(nodes=800), on_info=seen.append)
    assert seen and seen[-1].nodes == 800
    assert all(0.0 <= i.value <= 1.0 for i in seen)


def test_tree_reuse_follows_history_and_keeps_statistics():
    start = TicTacToe()
    tree = searcher(start, seed=2)
    tree.search(Limits(nodes=2000))
    i = tree.root.moves.index(4)
    child = tree.root.children[i]
    assert child is not None and child.moves is not None
    visits = child.total
    nxt = start.clone()
    nxt.apply(4)
    assert tree.set_root(nxt) is True
    assert tree.root is child and tree.root.total == visits
    # A position that does not follow from the root starts afresh.
    other = TicTacToe()
    other.apply(0)
    other.apply(8)
    assert tree.set_root(other) is False
    assert tree.tree_nodes == 1


def test_a_finished_game_is_refused():
    done = TicTacToe([1, 1, 1, 2, 2, 0, 0, 0, 0], [0, 3, 1, 4, 2])
    with pytest.raises(GameError):
        searcher(done)


def test_dropped_root_moves_are_never_played():
    tree = searcher(TicTacToe(), seed=1)
    tree.search(Limits(nodes=300))
    assert tree.drop_root_moves([4, 0, 2]) == 3
    r = tree.search(Limits(nodes=600))
    assert r.move not in (4, 0, 2)
    assert sorted(tree.root_moves()) == [1, 3, 5, 6, 7, 8]
    assert tree.drop_root_moves(tree.root_moves()) == 0  # never all of them


class OnlyFirstMove(RandomPlayouts):
    """Lists only the first legal move unless asked for everything (an incomplete expansion)."""

    def expand(self, state, verdict, everything=False):
        moves = state.legal_moves()
        return Expansion(moves if everything else moves[:1], complete=everything or len(moves) <= 1)


def test_pruned_moves_never_make_a_false_loss():
    # X to move can win (2 completes the top row); the pruned expansion lists only 1 first,
    # which loses to nothing in particular: the node must be widened, not proven lost.
    pos = TicTacToe([1, 1, 0, 2, 2, 0, 0, 0, 0], [0, 3, 1, 4])
    tree = MCTS(OnlyFirstMove(2), None, TreeSettings(), np.random.default_rng(0))
    tree.set_root(pos)
    r = tree.search(Limits(nodes=3000))
    assert r.proven == "win" and r.move in (2, 5)


class ImmediateWins:
    """A toy oracle: a position where the mover completes a line at once is a proven win."""

    def __init__(self):
        self.calls = 0

    def verdict(self, state, parent, move):
        self.calls += 1
        if state.is_terminal():
            score = state.returns()[state.to_move - 1]
            return Verdict(Outcome.WIN if score > 0.5 else Outcome.LOSS if score < 0.5 else Outcome.DRAW)
        wins = []
        for m in state.legal_moves():
            state.apply(m)
            if state.winner():
                wins.append(m)
            state.undo()
        return Verdict(Outcome.WIN, plies=1, moves=wins) if wins else Verdict()


def test_an_oracle_proof_is_played_at_once():
    pos = TicTacToe([1, 1, 0, 2, 2, 0, 0, 0, 0], [0, 3, 1, 4])
    oracle = ImmediateWins()
    tree = searcher(pos, oracle=oracle)
    r = tree.search(Limits(nodes=1000))
    assert r.proven == "win" and r.move == 2 and r.nodes == 0
    assert oracle.calls == 1


def test_one_rule_chooses_the_move():
    W, L, D, U = Outcome.WIN, Outcome.LOSS, Outcome.DRAW, Outcome.UNKNOWN
    assert choose([]) is None
    # A proven win beats visits; the quickest win first.
    assert choose([Child(0, 100, 60), Child(1, 3, 0, W, 5), Child(2, 1, 0, W, 3)]) == 2
    # Most visited, never a proven loss.
    assert choose([Child(0, 100, 60, L, 2), Child(1, 50, 20), Child(2, 40, 30)]) == 1
    # A losing-looking favourite gives way to a proven draw.
    assert choose([Child(0, 100, 30), Child(1, 10, 5, D)]) == 1
    # Nothing visited: the first move not lost.
    assert choose([Child(0, 0, 0, L, 2), Child(1, 0, 0), Child(2, 0, 0)]) == 1
    # Everything lost: resist longest.
    assert choose([Child(0, 5, 0, L, 2), Child(1, 1, 0, L, 6), Child(2, 9, 0, L, 6)]) == 2
    assert choose([Child(0, 5, 2, U)]) == 0


def test_ranking_puts_the_chosen_move_first_then_wins_visits_and_losses():
    W, L, D = Outcome.WIN, Outcome.LOSS, Outcome.DRAW
    assert rank([]) == []
    children = [Child(0, 100, 60), Child(1, 3, 0, W, 5), Child(2, 1, 0, W, 3), Child(3, 50, 40),
                Child(4, 80, 0, L, 2), Child(5, 9, 0, L, 7), Child(6, 50, 20)]
    assert rank(children) == [2, 1, 0, 3, 6, 5, 4]
    # The move choose() plays leads even when it is not the most visited (a proven draw).
    assert rank([Child(0, 100, 30), Child(1, 10, 5, D), Child(2, 20, 15)]) == [1, 0, 2]


def test_between_batches_a_hook_may_change_the_root_or_end_the_search():
    tree = searcher(TicTacToe(), seed=1)
    calls = []

    def between(last):
        calls.append(last)
        if len(calls) == 3:
            tree.drop_root_moves([4])  # e.g. a move another thread proved bad
        return len(calls) >= 6

    r = tree.search(Limits(nodes=100_000), between=between)
    assert r.reason == "stop" and calls[-1] is True and calls.count(True) == 1
    assert 4 not in tree.root_moves() and r.move != 4


class StaticValue(RandomPlayouts):
    """Leaves valued by a fixed pseudo-random function of the position (no playouts)."""

    @staticmethod
    def value(state) -> float:
        return (hash((tuple(state.cells), state.to_move)) % 101) / 100

    def values(self, leaves, rng):
        return [self.value(leaf) for leaf in leaves]


def _tau(node) -> float:
    return Outcome(node.outcome).score if node.outcome else node.tau


@pytest.mark.parametrize("minimax", [0.3, 1.0])
def test_implicit_minimax_keeps_the_best_child_value_at_every_node(minimax):
    start = TicTacToe()
    tree = MCTS(StaticValue(1), None, TreeSettings(minimax=minimax), np.random.default_rng(5))
    tree.set_root(start)
    tree.search(Limits(nodes=1500))
    inner = leaves = 0
    for node, pos in walk_tree(tree, start):
        if node.outcome or node is tree.root:
            continue
        valued = [1.0 - _tau(ch) for ch in node.children if ch is not None and (ch.outcome or ch.tau >= 0)]
        if valued:
            assert node.tau == pytest.approx(max(valued))
            inner += 1
        else:
            assert node.tau == pytest.approx(StaticValue.value(pos))
            leaves += 1
    assert inner > 50 and leaves > 200


def test_minimax_weight_is_checked():
    with pytest.raises(ValueError):
        TreeSettings(minimax=1.5)
