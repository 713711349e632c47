"""The vectorised rollouts against sequential random play and exact enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.mnk.playouts.rollout import RolloutKernel
from engine.mnk.board.rules import Board, GameConfig, Rule


def compact(board: Board) -> np.ndarray:
    return np.array([board[m] for m in range(board.config.area)], dtype=np.int8)


def sequential_outcomes(board: Board, games: int, rng: np.random.Generator) -> np.ndarray:
    """Reference: play random games move by move with the rules module."""
    counts = np.zeros(3)
    for _ in range(games):
        b = board.copy()
        moves = b.legal_moves()
        rng.shuffle(moves)
        winner = None
        for m in moves:
            winner = b.play(m)
            if winner is not None:
                break
        counts[0 if winner is None else int(winner)] += 1
    return counts / games


def exact_outcomes(board: Board) -> np.ndarray:
    """Distribution of the result over every order of the empty cells."""
    counts = np.zeros(3)
    empties = board.legal_moves()
    for order in itertools.permutations(empties):
        b = board.copy()
        winner = None
        for m in order:
            winner = b.play(m)
            if winner is not None:
                break
        counts[0 if winner is None else int(winner)] += 1
    return counts / counts.sum()


def kernel_outcomes(board: Board, playouts: int, rng: np.random.Generator, leaves: int = 1) -> np.ndarray:
    kernel = RolloutKernel(board.config)
    per = playouts // leaves
    w = kernel.run([(compact(board), int(board.to_move))] * leaves, per, rng)
    return np.array([(w == i).mean() for i in (0, 1, 2)])


def random_position(config: GameConfig, stones: int, rng: np.random.Generator) -> Board | None:
    """A random unfinished position with ``stones`` stones, or None."""
    b = Board(config)
    for m in rng.permutation(config.area)[:stones]:
        if b.play(int(m)) is not None:
            return None
    return b


def test_tictactoe_distribution_from_empty():
    got = kernel_outcomes(Board(GameConfig.square(3, 3)), 60_000, np.random.default_rng(5), leaves=6)
    draw, first, second = got
    assert first == pytest.approx(0.5849, abs=0.01)
    assert second == pytest.approx(0.2881, abs=0.01)
    assert draw == pytest.approx(0.1270, abs=0.01)


@pytest.mark.parametrize("rule", [r for r in Rule if r is not Rule.RENJU])  # renju needs K = 5
def test_near_full_positions_match_exact_enumeration(rule):
    """With at most 4 empty cells every order is enumerated exactly; the kernel's
    frequencies must match, and impossible outcomes must never appear."""
    config = GameConfig(4, 4, 3, rule)
    rng = np.random.default_rng(11)
    checked = 0
    kernel = RolloutKernel(config)
    while checked < 25:
        stones = int(rng.integers(12, 15))
        b = random_position(config, stones, rng)
        if b is None:
            continue
        want = exact_outcomes(b)
        w = kernel.run([(compact(b), int(b.to_move))], 4000, rng)
        got = np.array([(w == i).mean() for i in (0, 1, 2)])
        for i in range(3):
            if want[i] == 0:
                assert got[i] == 0, (rule, str(b), want, got)
        assert np.abs(got - want).max() < 0.04, (rule, str(b), want, got)
        checked += 1


@pytest.mark.parametrize(
    "config",
    [GameConfig(6, 6, 4, Rule.FREESTYLE), GameConfig(6, 6, 3, Rule.EXACT), GameConfig(6, 5, 3, Rule.CARO)],
    ids=lambda c: c.label,
)
@pytest.mark.slow
def test_matches_sequential_random_play(config):
    rng = np.random.default_rng(3)
    done = 0
    while done < 3:
        b = random_position(config, int(rng.integers(2, 9)), rng)
        if b is None:
            continue
        want = sequential_outcomes(b, 3000, rng)
        got = kernel_outcomes(b, 20_000, rng, leaves=4)
        # 3000 games: standard error <= 0.9 %; 4.5 sigma band.
        assert np.abs(got - want).max() < 0.045, (config.label, str(b), want, got)
        done += 1


def test_mixed_leaves_in_one_batch_are_independent():
    """Leaves of different positions and sides share a batch without mixing."""
    config = GameConfig.square(3, 3)
    kernel = RolloutKernel(config)
    # One empty cell each, so every result is forced.
    won = Board.from_stones(config, [(0, 0, 1), (1, 1, 2), (1, 0, 1), (0, 1, 2), (2, 1, 1),
                                     (0, 2, 2), (1, 2, 1), (2, 2, 2)])  # X to move, 2,0 wins
    drawn = Board.from_stones(config, [(0, 0, 1), (1, 0, 2), (2, 0, 1), (1, 1, 2), (0, 1, 1),
                                       (2, 1, 2), (1, 2, 1), (0, 2, 2)])  # X to move, 2,2 draws
    w = kernel.run([(compact(won), 1), (compact(drawn), 1), (compact(won), 1)], 50, np.random.default_rng(0))
    assert (w[0] == 1).all() and (w[2] == 1).all()
    assert (w[1] == 0).all()


def overline_position(rule: Rule) -> Board:
    """4x3, k=3: ``O O . O`` on the top row, O to move into the last empty cell."""
    config = GameConfig(4, 3, 3, rule)
    rest = [(x, y) for y in (1, 2) for x in range(4)]
    for extra in itertools.combinations(range(len(rest)), 2):
        stones = [(0, 0, 2), (1, 0, 2), (3, 0, 2)]
        stones += [(x, y, 2 if i in extra else 1) for i, (x, y) in enumerate(rest)]
        try:
            b = Board.from_stones(config, stones, to_move=2)
        except ValueError:
            continue
        if len(b.winning_cells(b.to_move)) == int(rule is Rule.FREESTYLE):
            return b
    raise AssertionError("no such position")


@pytest.mark.parametrize("rule, expected", [(Rule.EXACT, 0), (Rule.FREESTYLE, 2)])
def test_overline_wins_only_in_freestyle(rule, expected):
    b = overline_position(rule)
    w = RolloutKernel(b.config).run([(compact(b), 2)], 20, np.random.default_rng(1))
    assert (w == expected).all()


def test_zero_leaves_and_zero_playouts():
    kernel = RolloutKernel(GameConfig.square(3, 3))
    assert kernel.run([], 10, np.random.default_rng(0)).shape == (0, 10)
    assert kernel.run([(np.zeros(9, np.int8), 1)], 0, np.random.default_rng(0)).shape == (1, 0)


@pytest.mark.slow
def test_large_board_chunked_batches_match_sequential_play():
    """15x15 with many leaves per call, so the kernel works in several chunks."""
    config = GameConfig.square(15, 5)
    rng = np.random.default_rng(8)
    b = Board(config)
    for x, y in [(7, 7), (8, 8), (8, 7), (6, 7), (9, 7), (10, 7), (7, 8), (6, 9)]:
        b.play(config.move(x, y))
    kernel = RolloutKernel(config)
    assert 40 * 100 > kernel.chunk
    w = kernel.run([(compact(b), int(b.to_move))] * 40, 100, rng)
    got = np.array([(w == i).mean() for i in (0, 1, 2)])
    want = sequential_outcomes(b, 2000, rng)
    # 2000 games: standard error <= 1.1 %; about a 4.5 sigma band.
    assert np.abs(got - want).max() < 0.05, (want, got)
