"""m,n,k on the generic tree: the oracle's threat bookkeeping, candidates, proofs, memory
cap, reuse (plain UCT mode, engine.mnk.playouts.oracle + engine.mnk.playouts.leaves on engine.search.mcts),
and the deadline guided mode's expansions keep there."""

from __future__ import annotations

import time

import numpy as np
import pytest

from engine.api import best_move
from engine.game import Outcome
from engine.mnk.tree.engine import MnkEngine
from engine.mnk.tree.options import MnkOptions
from engine.mnk.board.rules import Board, GameConfig, Player, Rule
from engine.search.limits import Limits
from engine.search.mcts import MCTS, Node

WIN, LOSS, DRAW = Outcome.WIN, Outcome.LOSS, Outcome.DRAW


def searcher_for(board: Board, seed: int = 0, mode: str = "uct", **values) -> MCTS:
    engine = MnkEngine(board.config, MnkOptions.preset(mode).with_values(values), seed=seed)
    engine.tree.set_root(board)
    return engine.tree


def wins_of(node: Node) -> list[int]:
    return node.verdict.facts[0]


def threats_of(node: Node) -> list[int]:
    return node.verdict.facts[1]


def random_board(config: GameConfig, stones: int, rng: np.random.Generator) -> Board | None:
    b = Board(config)
    for m in rng.permutation(config.area)[:stones]:
        if b.play(int(m)) is not None:
            return None
    return b


def walk_tree(root: Node, board: Board):
    """Yield (node, board) for every node of the tree (iteratively)."""
    stack = [(root, board)]
    while stack:
        node, b = stack.pop()
        yield node, b
        if node.moves is None:
            continue
        for m, child in zip(node.moves, node.children):
            if child is not None:
                nb = b.copy()
                nb.play(int(m))
                stack.append((child, nb))


@pytest.mark.slow
@pytest.mark.parametrize("rule", list(Rule))
def test_incremental_threats_match_full_scan(rule):
    """Every node's wins/threats equal a full-board scan of its position."""
    config = GameConfig(7, 7, 5 if rule is Rule.RENJU else 4, rule)
    rng = np.random.default_rng(2)
    checked = 0
    while checked < 2000:
        b = random_board(config, int(rng.integers(6, 16)), rng)
        if b is None:
            continue
        s = searcher_for(b, seed=int(rng.integers(1000)))
        s.search(Limits(nodes=150))
        for node, pos in walk_tree(s.root, b):
            if pos.is_over:
                continue
            # Sorted lists, not sets: a cell listed twice would fake a double threat.
            assert sorted(wins_of(node)) == pos.winning_cells(pos.to_move), str(pos)
            if node.outcome != WIN:
                assert sorted(threats_of(node)) == pos.winning_cells(pos.to_move.other), str(pos)
            checked += 1


def test_candidates_near_stones_adjacent_first():
    cfg = GameConfig.square(15, 5)
    b = Board(cfg)
    assert list(searcher_for(b).root.moves) == [cfg.move(7, 7)]  # empty board: the centre
    b.play(cfg.move(7, 7))
    moves = [cfg.xy(int(m)) for m in searcher_for(b).root.moves]
    assert len(moves) == 24
    assert all(max(abs(x - 7), abs(y - 7)) == 1 for x, y in moves[:8])
    assert all(max(abs(x - 7), abs(y - 7)) == 2 for x, y in moves[8:])


def test_small_boards_consider_every_cell():
    cfg = GameConfig.square(7, 4)
    b = Board(cfg)
    b.play(0)
    assert sorted(searcher_for(b).root.moves) == list(range(1, 49))


def test_double_threat_is_a_proven_loss():
    cfg = GameConfig.square(7, 4)
    # O (to move) faces X's open three on row 3 with both ends empty.
    b = Board.from_stones(cfg, [(2, 3, 1), (3, 3, 1), (4, 3, 1), (0, 0, 2), (6, 6, 2)], to_move=Player.SECOND)
    s = searcher_for(b)
    assert s.root.outcome == LOSS
    res = s.search(Limits(nodes=100))
    assert res.proven == "loss" and res.value == 0.0
    assert res.move in (cfg.move(1, 3), cfg.move(5, 3))  # still blocks one end


def test_forced_block_is_the_only_child():
    cfg = GameConfig.square(15, 5)
    b = Board.from_stones(cfg, [(3, 3, 1), (4, 3, 1), (5, 3, 1), (6, 3, 1), (2, 3, 2), (9, 9, 2), (10, 10, 1),
                                (11, 11, 2), (0, 14, 2)])
    assert b.to_move == Player.SECOND
    assert list(searcher_for(b).root.moves) == [cfg.move(7, 3)]


def test_solver_proves_tictactoe_draw_after_corner():
    b = Board(GameConfig.square(3, 3))
    b.play(0)
    res = best_move(b, Limits(nodes=5000), seed=1)
    assert res.proven == "draw" and res.value == 0.5
    assert res.move == 4  # the only drawing answer to a corner opening
    assert res.reason == "proven"


def test_solver_proves_a_forced_win():
    """X to move on 7x7 k=4 makes an open three (two ways to win) and proves it."""
    cfg = GameConfig.square(7, 4)
    b = Board.from_stones(cfg, [(2, 3, 1), (3, 3, 1), (0, 0, 2), (6, 0, 2)])
    res = best_move(b, Limits(nodes=4000), seed=1)
    assert res.proven == "win"
    assert res.move in (cfg.move(1, 3), cfg.move(4, 3))


def test_widening_adds_every_empty_cell():
    cfg = GameConfig.square(15, 5)
    b = Board(cfg)
    b.play(cfg.move(7, 7))
    s = searcher_for(b)
    root = s.root
    assert not root.complete
    s._widen([(root, 0)], 0)
    assert root.complete and sorted(root.moves) == sorted(b.legal_moves())
    assert len(root.children) == len(root.moves) == len(root.n) == len(root.w)


def test_memory_cap_stops_growth_but_not_playouts():
    cfg = GameConfig.square(15, 5)
    b = Board(cfg)
    b.play(cfg.move(7, 7))
    res = best_move(b, Limits(playouts=8000, max_tree_nodes=40), seed=1)
    assert res.nodes <= 40
    assert res.playouts >= 8000


def test_reused_tree_keeps_statistics():
    cfg = GameConfig.square(7, 4)
    b = Board(cfg)
    s = searcher_for(b, seed=3)
    r1 = s.search(Limits(nodes=3000))
    b.play(r1.move)
    b.play(r1.pv[1])
    expected = s.root.children[s.root.moves.index(r1.move)]
    expected = expected.children[expected.moves.index(r1.pv[1])]
    assert s.set_root(b)
    assert s.root is expected and s.root.total > 0
    assert sum(s.root.n) == s.root.total


def test_reuse_follows_from_stones_histories():
    """A position rebuilt from stones in a different order still finds the subtree
    when the new moves come last."""
    cfg = GameConfig.square(7, 4)
    b = Board(cfg)
    eng = MnkEngine(cfg, seed=3)
    r1 = eng.search(b, Limits(nodes=500))
    moves = [r1.move, r1.pv[1]]
    stones = [(*cfg.xy(m), 1 + i % 2) for i, m in enumerate(moves)]
    eng.search(Board.from_stones(cfg, stones), Limits(nodes=1))
    assert eng.reused


def test_proven_draw_value_when_board_nearly_full():
    cfg = GameConfig.square(3, 3)
    b = Board(cfg)
    for m in (0, 1, 2, 4, 3, 5, 7):  # X O X / X O O / . X .
        b.play(m)
    res = best_move(b, Limits(nodes=100), seed=0)
    assert res.proven == "draw" and b.is_empty(res.move)


def test_reuse_when_stones_arrive_out_of_order():
    """The new stones are listed first-player-last: the colour interleaving
    still walks down the tree."""
    cfg = GameConfig.square(7, 4)
    b = Board(cfg)
    eng = MnkEngine(cfg, seed=3)
    r1 = eng.search(b, Limits(nodes=800))
    x_move, o_move = r1.move, r1.pv[1]
    stones = [(*cfg.xy(o_move), 2), (*cfg.xy(x_move), 1)]
    eng.search(Board.from_stones(cfg, stones), Limits(nodes=1))
    assert eng.reused


def test_subtree_sizes_track_the_memory_cap_across_reuse():
    cfg = GameConfig.square(7, 4)
    b = Board(cfg)
    s = searcher_for(b, seed=1)
    s.search(Limits(nodes=1500))
    counted = sum(1 for _ in walk_tree(s.root, b))
    assert s.root.size == counted == s.tree_nodes
    r = s.principal_variation()
    b.play(r[0])
    b.play(r[1])
    assert s.set_root(b)
    assert s.tree_nodes == s.root.size == sum(1 for _ in walk_tree(s.root, b)) < counted


def test_pruned_node_is_widened_before_a_loss_is_proven():
    """9x9 (candidates pruned to stones' neighbourhood): O cannot stop X's
    L-shape.  The loss is proven only after every empty cell became a move,
    and an independent three-ply check confirms each reply loses."""
    cfg = GameConfig.square(9, 4)
    b = Board.from_stones(cfg, [(3, 4, 1), (4, 4, 1), (4, 3, 1), (0, 0, 2), (8, 8, 2), (0, 8, 2)],
                          to_move=Player.SECOND)
    s = searcher_for(b, seed=1)
    assert not s.root.complete
    res = s.search(Limits(nodes=5000))
    assert res.proven == "loss"
    assert s.root.complete and sorted(s.root.moves) == b.legal_moves()
    for m in b.legal_moves():
        after = b.copy()
        after.play(m)
        assert not after.winning_cells(after.to_move)
        wins = False
        for x in after.legal_moves():
            c = after.copy()
            c.play(x)
            if len(c.winning_cells(Player.FIRST)) >= 2 and not c.winning_cells(Player.SECOND):
                wins = True
                break
        assert wins, cfg.xy(m)


def test_proof_lengths_pick_fast_wins_and_long_losses():
    cfg = GameConfig.square(7, 4)
    # X to move can win at once on row 0, or build threats elsewhere: plays the
    # immediate win.
    b = Board.from_stones(cfg, [(0, 0, 1), (1, 0, 1), (2, 0, 1), (0, 6, 2), (3, 6, 2), (6, 6, 2)])
    res = best_move(b, Limits(nodes=200), seed=0)
    assert res.move == cfg.move(3, 0) and res.proven == "win"
    # A lost position (def3 puzzle): the search proves the loss, and still
    # plays one of the moves that survive the longest.
    lost = Board(cfg)
    for x, y in [(0, 1), (2, 1), (1, 1), (3, 1), (3, 2), (0, 2), (4, 5), (5, 3)]:
        lost.play(cfg.move(x, y))
    s = searcher_for(lost, seed=1)
    res = s.search(Limits(nodes=20000))
    assert res.proven == "loss" and res.value == 0.0
    longest = max(ch.plies for ch in s.root.children)
    assert s.root.children[s.root.moves.index(res.move)].plies == longest > 2
    assert res.move in (cfg.move(2, 0), cfg.move(4, 2), cfg.move(6, 4))


def test_progressive_widening_limits_tried_moves():
    cfg = GameConfig.square(15, 5)
    b = Board(cfg)
    for x, y in [(7, 7), (8, 8), (8, 6), (6, 8)]:
        b.play(cfg.move(x, y))
    plain = searcher_for(b, seed=1)
    plain.search(Limits(nodes=400))
    assert plain.root.next_new == len(plain.root.moves)  # UCT tries every move first
    wide = searcher_for(b, seed=1, widening=1.0)
    wide.search(Limits(nodes=400))
    visits = wide.root.total / wide.evaluator.weight
    assert wide.root.next_new <= 1 + visits ** 0.5 < len(wide.root.moves)


def test_widening_still_proves_losses():
    cfg = GameConfig.square(9, 4)
    b = Board.from_stones(cfg, [(3, 4, 1), (4, 4, 1), (4, 3, 1), (0, 0, 2), (8, 8, 2), (0, 8, 2)],
                          to_move=Player.SECOND)
    res = searcher_for(b, seed=1, widening=1.0).search(Limits(nodes=5000))
    assert res.proven == "loss"


def test_uct_scores_match_the_formula():
    """Kept-up-to-date scores lag the exact UCT value only through the
    exploration coefficient (by under 2.5 %); a refresh makes them exact."""
    cfg = GameConfig.square(9, 4)
    b = Board(cfg)
    b.play(cfg.move(4, 4))
    s = searcher_for(b, seed=2)
    s.search(Limits(nodes=1500))
    root = s.root
    k = root.next_new
    n = np.array(root.n[:k])
    w = np.array(root.w[:k])
    c = s.settings.exploration * np.sqrt(np.log(root.total))
    live = [i for i in range(k) if i not in root.excluded]
    assert abs(root.cref - c) <= 0.025 * c
    assert np.allclose(root.score[live], (w / n + root.cref / np.sqrt(n))[live])
    s._refresh(root, k)
    assert np.allclose(root.score[live], (w / n + c / np.sqrt(n))[live])
    assert all(root.score[i] < -1e8 for i in root.excluded)


def test_guided_expansions_stop_their_solver_runs_at_the_search_deadline():
    """The Python tree's threat knowledge (the exact rule has no C tree) gives up at the
    deadline the search hands it, as when its budgets run out: no proof, no false one."""
    cfg = GameConfig.square(15, 5, Rule.EXACT)
    # Black's (8,7) makes two fours at once: row 5-8 (4,7 held by white) and column 4-7
    # (8,3 held by white).
    black = [(5, 7), (6, 7), (7, 7), (8, 4), (8, 5), (8, 6)]
    white = [(4, 7), (8, 3), (0, 0), (14, 0), (0, 14), (14, 14)]
    board = Board.from_stones(cfg, [(x, y, 1) for x, y in black] + [(x, y, 2) for x, y in white], Player.FIRST)
    tree = MnkEngine(cfg, MnkOptions.guided()).tree
    leaves, verdict = tree.evaluator, tree.oracle.verdict(board, None, None)
    leaves.begin(board)
    found = leaves.expand(board, verdict)
    assert found.win_plies and list(found.moves) == [cfg.move(8, 7)]
    leaves.begin(board, time.monotonic() - 1.0)
    late = leaves.expand(board, verdict)
    assert not late.win_plies and cfg.move(8, 7) in late.moves
