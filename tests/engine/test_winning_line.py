"""engine.mnk.board.rules.winning_line against a brute-force scan in plain (x, y) coordinates."""

import random

import pytest

from engine.mnk.board.rules import Board, GameConfig, Rule, render, run_wins, winning_line

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def brute_force_line(board: Board, x: int, y: int) -> set[tuple[int, int]]:
    """Every stone of a winning run through (x, y), straight from the rule's definition."""
    cfg = board.config
    player = board.at(x, y)
    if player not in (1, 2):
        return set()

    def owner(cx, cy):
        return board.at(cx, cy) if cfg.on_board(cx, cy) else None  # None: off the board

    out = set()
    for dx, dy in DIRECTIONS:
        run = [(x, y)]
        for sign in (1, -1):
            cx, cy = x + sign * dx, y + sign * dy
            while owner(cx, cy) == player:
                run.append((cx, cy))
                cx, cy = cx + sign * dx, cy + sign * dy
        n, k = len(run), cfg.win_length
        if cfg.rule is Rule.FREESTYLE:
            wins = n >= k
        elif cfg.rule is Rule.EXACT:
            wins = n == k
        else:  # caro: exactly k with an opponent stone just beyond both ends does not win
            along = sorted(run, key=lambda c: c[0] * dx + c[1] * dy)  # the run in the direction's order
            first, last = along[0], along[-1]
            before = owner(first[0] - dx, first[1] - dy)
            after = owner(last[0] + dx, last[1] + dy)
            opp = 3 - player
            wins = n > k or (n == k and not (before == opp and after == opp))
        if wins:
            out.update(run)
    return out


@pytest.mark.parametrize("config", [
    GameConfig(7, 7, 3), GameConfig(9, 6, 4), GameConfig(9, 9, 4, Rule.EXACT), GameConfig(8, 8, 3, Rule.CARO),
    GameConfig(15, 15, 5), GameConfig(10, 10, 5, Rule.EXACT), GameConfig(11, 7, 4, Rule.CARO),
])
def test_winning_line_matches_a_brute_force_scan(config):
    rng = random.Random(config.label)
    checked = wins = 0
    for _ in range(60):
        board = Board(config)
        cells = rng.sample(range(config.area), rng.randint(1, config.area * 2 // 3))
        for i, m in enumerate(cells):
            board.place(m, 1 + i % 2)  # no win test: dense positions with many lines
        for m in cells:
            x, y = config.xy(m)
            expected = sorted(config.move(cx, cy) for cx, cy in brute_force_line(board, x, y))
            got = winning_line(board, m)
            assert got == expected, (config, (x, y), render(board))
            assert bool(got) == run_wins(config, board.cells, config.padded(m), board[m])
            checked += 1
            wins += bool(got)
    assert wins > 20 and checked - wins > 20  # both kinds of stone were seen


def test_winning_line_of_a_played_game_overline_and_double():
    cfg = GameConfig(9, 9, 4)
    b = Board(cfg)
    assert winning_line(b, cfg.move(4, 4)) == []  # empty cell
    # X: 0..2 and 4 on row 0, then 3 joins them into an overline of five; O plays row 8
    moves = [(0, 0), (0, 8), (1, 0), (1, 8), (2, 0), (2, 8), (4, 0), (8, 8), (3, 0)]
    for x, y in moves:
        b.play(cfg.move(x, y))
    assert b.winner is not None
    assert winning_line(b, cfg.move(3, 0)) == [cfg.move(x, 0) for x in range(5)]
    assert winning_line(b, cfg.move(0, 8)) == []  # O's three: no line
    # one stone completing a row and a column at once gives both
    b = Board(cfg)
    moves = [(1, 4), (8, 0), (2, 4), (8, 2), (3, 4), (8, 4), (4, 1), (8, 6), (4, 2), (6, 8), (4, 3), (0, 8), (4, 4)]
    for x, y in moves:
        b.play(cfg.move(x, y))
    got = {cfg.xy(m) for m in winning_line(b, cfg.move(4, 4))}
    assert got == {(1, 4), (2, 4), (3, 4), (4, 4), (4, 1), (4, 2), (4, 3)}


def test_render_marks_stones_in_lower_case():
    cfg = GameConfig(5, 5, 3)
    b = Board(cfg)
    for x, y in [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]:
        b.play(cfg.move(x, y))
    rows = render(b, marked=winning_line(b, cfg.move(2, 0))).splitlines()
    assert rows[1].split() == ["0", "x", "x", "x", ".", "."]
    assert rows[2].split() == ["1", "O", "O", ".", ".", "."]
