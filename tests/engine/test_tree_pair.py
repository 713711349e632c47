"""The two m,n,k trees kept equal: the generic MCTS (engine.search.mcts) and the guided tree
in C (engine.mnk.tree.native) prove the same results and play the same move where one move wins.

On small boards a brute-force minimax gives the exact value, so every proof either tree
makes is checked against the truth, not only against the other tree.
"""

from __future__ import annotations

import random

import pytest

from engine.mnk.threats import solver
from engine.mnk.tree.engine import MnkEngine
from engine.mnk.tree.native import NativeSearcher
from engine.mnk.tree.options import MnkOptions
from engine.mnk.board.rules import Board, GameConfig, Player, Rule
from engine.search.limits import Limits
from engine.search.mcts import MCTS

from support.shared_positions import TACTICS

pytestmark = pytest.mark.skipif(
    solver._threatcore is None or not hasattr(solver._threatcore, "Tree") or not solver.USE_NATIVE,
    reason="the C extension was not built (or MNK_PURE_PYTHON is set)",
)

GUIDED = MnkOptions.guided()
PYTHON_TREE = GUIDED.with_values({"native.enabled": False})
LABEL = {1.0: "win", 0.5: "draw", 0.0: "loss"}


def exact_value(board: Board, memo: dict) -> float:
    """The value of ``board`` for its side to move, by minimax over every move."""
    key = board.key()
    if key not in memo:
        best = 0.0
        for m in board.legal_moves():
            board.apply(m)
            v = 1.0 - (board.returns()[board.to_move - 1] if board.is_terminal() else exact_value(board, memo))
            board.undo()
            if v > best:
                best = v
                if best == 1.0:
                    break
        memo[key] = best
    return memo[key]


def small_positions(count: int, seed: int) -> list[Board]:
    """Random 5x5 k=4 positions with 9 to 12 empty cells, not over."""
    cfg = GameConfig.square(5, 4)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        b = Board(cfg)
        cells = list(range(cfg.area))
        rng.shuffle(cells)
        for m in cells[: rng.randint(13, 16)]:
            b.apply(m)
            if b.is_terminal():
                break
        if not b.is_terminal():
            out.append(b)
    return out


def both(board: Board, limits: Limits):
    c_engine = MnkEngine(board.config, GUIDED, seed=1)
    py_engine = MnkEngine(board.config, PYTHON_TREE, seed=1)
    assert isinstance(c_engine.tree, NativeSearcher) and isinstance(py_engine.tree, MCTS)
    return c_engine.search(board, limits), py_engine.search(board, limits)


@pytest.mark.slow
def test_both_trees_prove_the_exact_result_of_small_positions():
    """Every proof either tree makes is the true result; both prove every decided position
    (a draw needs the whole tree, which MCTS without transpositions may not finish)."""
    memo: dict = {}
    decided = draws_proven = 0
    for board in small_positions(30, seed=7):
        truth = LABEL[exact_value(board.clone(), memo)]
        c_result, py_result = both(board, Limits(nodes=30_000))
        for result in (c_result, py_result):
            assert result.proven in (truth, None), (board.history, result.proven, truth)
        if truth == "draw":
            draws_proven += (c_result.proven is not None) + (py_result.proven is not None)
            continue
        decided += 1
        assert c_result.proven == py_result.proven == truth, (board.history, c_result.proven, py_result.proven)
        if truth == "win":
            for result in (c_result, py_result):
                after = board.clone()
                after.apply(result.move)
                assert after.is_terminal() or exact_value(after, memo) == 0.0, "a proven win plays a winning move"
    assert decided >= 10


def small_renju_positions(count: int, seed: int) -> list[Board]:
    """Random 6x6 renju positions (five in a row) with 10 to 12 empty cells, not over, where
    black has a legal move whenever it is to move."""
    cfg = GameConfig(6, 6, 5, Rule.RENJU)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        b = Board(cfg)
        for _ in range(rng.randint(24, 26)):
            moves = b.legal_moves()
            if not moves:
                break
            b.apply(rng.choice(moves))
            if b.is_terminal():
                break
        if not b.is_terminal() and b.legal_moves():
            out.append(b)
    return out


@pytest.mark.slow
def test_both_trees_prove_the_exact_result_of_small_renju_positions():
    """Renju in the C tree: no proof contradicts minimax under renju (black's forbidden points
    are no moves, black wins with exactly five), and both trees prove every decided position."""
    memo: dict = {}
    decided = 0
    for board in small_renju_positions(10, seed=1):
        truth = LABEL[exact_value(board.clone(), memo)]
        c_result, py_result = both(board, Limits(nodes=30_000))
        for result in (c_result, py_result):
            assert result.proven in (truth, None), (board.history, result.proven, truth)
            assert board.to_move is not Player.FIRST or board.forbidden(result.move) is None
        if truth != "draw":
            decided += 1
            assert c_result.proven == py_result.proven == truth, (board.history, c_result.proven, py_result.proven)
    assert decided >= 3


def single_answer_puzzles() -> list[tuple[str, Board, int]]:
    """The puzzles of the shared set on boards the C tree plays (freestyle, K >= 4) that have
    exactly one answer (a win now, the only block, a win in three, the only defence)."""
    out = []
    for line in TACTICS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, geo, stones, answers = (part.strip() for part in line.split("|"))
        w, h, k, rule = (int(v) for v in geo.split())
        if rule != 0 or k < 4 or len(answers.split()) != 1:
            continue
        cfg = GameConfig(w, h, k)
        board = Board.from_stones(cfg, [tuple(int(v) for v in s.split(",")) for s in stones.split()])
        out.append((name, board, cfg.move(*(int(v) for v in answers.split(",")))))
    return out


@pytest.mark.slow
def test_both_trees_play_the_only_winning_or_saving_move():
    puzzles = single_answer_puzzles()
    assert len(puzzles) >= 20
    for name, board, answer in puzzles:
        c_result, py_result = both(board, Limits(nodes=3000))
        assert c_result.move == py_result.move == answer, (name, c_result.move, py_result.move, answer)
        if name.startswith(("win1", "win3")):
            assert c_result.proven == py_result.proven == "win", name


def test_a_lost_position_is_lost_for_both():
    cfg = GameConfig.square(9, 4)
    # X has an open three with both ends open on row 4 and it is O's move: every answer loses.
    board = Board.from_stones(cfg, [(3, 4, 1), (4, 4, 1), (5, 4, 1), (0, 0, 2), (8, 8, 2)], to_move=Player.SECOND)
    c_result, py_result = both(board, Limits(nodes=20_000))
    assert c_result.proven == py_result.proven == "loss"
    assert c_result.move in (cfg.move(2, 4), cfg.move(6, 4)) and py_result.move in (cfg.move(2, 4), cfg.move(6, 4))
