"""The shared tactical positions (win1/block1/win3/def3) answered by engine.mnk.threats within 500 ms."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.mnk import threats
from engine.mnk.rules import Board, GameConfig, Rule

from shared_positions import TACTICS
TIME_LIMIT = 0.5  # seconds per position, as the README's reference engines had


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
    if not TACTICS.is_file():
        return []
    return [parse(line) for line in TACTICS.read_text().splitlines() if line.strip() and not line.startswith("#")]


PUZZLES = load()
pytestmark = pytest.mark.skipif(not PUZZLES, reason=f"tactical positions not found at {TACTICS}")


def test_file_has_all_kinds():
    kinds = {p.kind for p in PUZZLES}
    assert kinds == {"win1", "block1", "win3", "def3"}
    assert all(p.answers for p in PUZZLES)


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p.name for p in PUZZLES])
def test_tactical_move_answers(puzzle: Puzzle):
    board = puzzle.board()
    before = list(board.cells)
    start = time.monotonic()
    result = threats.tactical_move(board, deadline=start + TIME_LIMIT)
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
    ds = threats.defence_set(board, deadline=start + TIME_LIMIT)
    assert time.monotonic() - start < TIME_LIMIT
    assert ds, f"{puzzle.name}: no defence set"
    assert ds <= puzzle.answers
    # Answers left out must really lose: the opponent then has a VCF.
    for m in puzzle.answers - ds:
        board.play(m)
        assert threats.find_vcf(board, board.to_move) is not None, puzzle.config.xy(m)
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


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p.name for p in PUZZLES])
def test_knowledge_hook_answers(puzzle: Puzzle):
    """The search hook (ThreatKnowledge.suggest) restricts or forces the answers of every puzzle."""
    board = puzzle.board()
    cells = list(board.cells)
    candidates = [m for m in range(puzzle.config.area) if board.is_empty(m)]
    sug = threats.ThreatKnowledge().suggest(puzzle.config, cells, int(board.to_move), candidates)
    assert cells == board.cells, "the caller's cells must not be modified"
    assert sug is not None
    if puzzle.kind in ("win1", "win3"):
        assert sug.forced in puzzle.answers and sug.proven_win
    elif puzzle.kind == "block1":
        assert set(sug.moves) == puzzle.answers and sug.forced is None
    else:
        assert sug.forced is None and sug.moves and set(sug.moves) <= puzzle.answers
        assert len(sug.priors) == len(sug.moves)
