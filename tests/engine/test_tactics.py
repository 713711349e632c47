"""The shared tactical positions (win1/block1/win3/def3) answered by the threat modules within 500 ms."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from engine.game import Outcome
from engine.mnk.threats import kinds as threats
from engine.mnk.threats import solver
from engine.mnk.threats import defence
from engine.mnk.tree.engine import MnkEngine
from engine.mnk.tree.options import MnkOptions
from engine.mnk.board.rules import Board, GameConfig, Rule

from support.shared_positions import TACTICS

TIME_LIMIT = 0.5  # seconds per position, as the tactics figure in docs/RESULTS.md


@dataclass(frozen=True)
class Puzzle:
    name: str
    kind: str
    config: GameConfig
    stones: tuple[tuple[int, int, int], ...]
    answers: frozenset[int]

    def board(self) -> Board:
        board = Board(self.config)
        for x, y, p in self.stones:
            assert int(board.to_move) == p, f"{self.name}: stones are not in move order"
            board.play(self.config.move(x, y))
        return board


def parse(line: str) -> Puzzle:
    """One ``name | W H K RULE | stones | answers`` line."""
    name, geo, stones, answers = (part.strip() for part in line.split("|"))
    w, h, k, rule = (int(v) for v in geo.split())
    cfg = GameConfig(w, h, k, Rule.from_gomocup_bits(rule))
    st = tuple(tuple(int(v) for v in s.split(",")) for s in stones.split())
    ans = frozenset(cfg.move(*(int(v) for v in a.split(","))) for a in answers.split())
    return Puzzle(name, name.split("-")[0], cfg, st, ans)


def load() -> list[Puzzle]:
    return [parse(line) for line in TACTICS.read_text().splitlines() if line.strip() and not line.startswith("#")]


PUZZLES = load()


def test_file_has_all_kinds():
    kinds = {p.kind for p in PUZZLES}
    assert kinds == {"win1", "block1", "win3", "def3"}
    assert all(p.answers for p in PUZZLES)


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p.name for p in PUZZLES])
def test_tactical_move_answers(puzzle: Puzzle):
    board = puzzle.board()
    before = list(board.cells)
    start = time.monotonic()
    result = defence.tactical_move(board, deadline=start + TIME_LIMIT)
    elapsed = time.monotonic() - start
    assert board.cells == before, "the board must be restored exactly"
    assert result is not None, f"{puzzle.name}: no tactical answer"
    move, reason = result
    assert move in puzzle.answers, f"{puzzle.name}: {puzzle.config.xy(move)} ({reason}) is not an answer"
    expected_reason = {"win1": "win", "block1": "block", "win3": "vcf", "def3": "defend"}[puzzle.kind]
    assert reason == expected_reason
    assert elapsed < TIME_LIMIT, f"{puzzle.name}: {elapsed * 1000:.0f} ms"


@pytest.mark.parametrize("puzzle", [p for p in PUZZLES if p.kind == "def3"], ids=lambda p: p.name)
def test_defence_set_within_answers(puzzle: Puzzle):
    board = puzzle.board()
    start = time.monotonic()
    ds = defence.defence_set(board, deadline=start + TIME_LIMIT)
    assert time.monotonic() - start < TIME_LIMIT
    assert ds, f"{puzzle.name}: no defence set"
    assert ds <= puzzle.answers
    # Answers left out must really lose: the opponent then has a VCF.
    for m in puzzle.answers - ds:
        board.play(m)
        assert solver.find_vcf(board, board.to_move) is not None, puzzle.config.xy(m)
        board.undo()


@pytest.mark.parametrize("puzzle", [p for p in PUZZLES if p.kind == "win3"], ids=lambda p: p.name)
def test_win3_answers_are_the_double_threats(puzzle: Puzzle):
    board = puzzle.board()
    assert set(threats.double_threat_moves(board, board.to_move)) == puzzle.answers


@pytest.mark.parametrize("puzzle", [p for p in PUZZLES if p.kind in ("win1", "block1")], ids=lambda p: p.name)
def test_win1_block1_sets_exact(puzzle: Puzzle):
    board = puzzle.board()
    side = board.to_move if puzzle.kind == "win1" else board.to_move.other
    assert set(threats.winning_moves(board, side)) == puzzle.answers


def guided_expansion(board: Board):
    """The oracle's verdict and guided mode's expansion of ``board`` (the Python tree's)."""
    options = MnkOptions.guided().with_values({"native.enabled": False})
    tree = MnkEngine(board.config, options, seed=0).tree
    verdict = tree.oracle.verdict(board, None, None)
    return verdict, tree.evaluator.expand(board, verdict)


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p.name for p in PUZZLES])
def test_tree_knowledge_answers(puzzle: Puzzle):
    """The tree's knowledge (the oracle, then guided mode's expansion) forces, proves or
    restricts to the answers of every puzzle."""
    board = puzzle.board()
    cells = list(board.cells)
    verdict, expansion = guided_expansion(board)
    assert cells == board.cells, "the position must not be modified"
    if puzzle.kind == "win1":
        assert verdict.outcome == Outcome.WIN and set(verdict.moves) <= puzzle.answers
    elif puzzle.kind == "block1":
        assert set(verdict.moves) == puzzle.answers and verdict.outcome == Outcome.UNKNOWN
    elif puzzle.kind == "win3":
        assert expansion.win_plies > 0 and expansion.moves[0] in puzzle.answers
    elif expansion.win_plies:
        assert expansion.moves[0] in puzzle.answers  # a VCT that also defends
    else:
        assert expansion.moves and set(expansion.moves) <= puzzle.answers
        assert len(expansion.priors) == len(expansion.moves)
