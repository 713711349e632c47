"""Renju's rules: black's forbidden points (hand-checked positions), the win rule, legal moves."""

from __future__ import annotations

import random

import pytest

from engine.game import GameError
from engine.mnk.board.renju import forbidden_reason, python_reason
from engine.mnk.board.rules import Board, GameConfig, Player, Rule

RENJU = GameConfig.square(15, 5, Rule.RENJU)


def position(black, white=(), to_move=Player.FIRST, config=RENJU) -> Board:
    """A board with the given stones placed (no win test, no count check) and ``to_move``."""
    b = Board(config)
    for x, y in black:
        b.place(config.move(x, y), 1)
    for x, y in white:
        b.place(config.move(x, y), 2)
    b.to_move = to_move
    return b


def reason(board: Board, x: int, y: int) -> str | None:
    return board.forbidden(board.config.move(x, y))


def parse_moves(text: str) -> list[tuple[int, int]]:
    """``h8h9...`` (letter = column from a, number = row from 1) as (x, y) pairs."""
    out, i = [], 0
    while i < len(text):
        x = ord(text[i]) - ord("a")
        j = i + 1
        while j < len(text) and text[j].isdigit():
            j += 1
        out.append((x, int(text[i + 1 : j]) - 1))
        i = j
    return out


#: (name, black stones, white stones, the point for black, the expected reason).
#: Every position was checked by hand on a drawn board; the point is (7,7) unless named.
TABLE = [
    # X X X . X X on one row: the gap makes six.
    ("overline", [(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)], [], (5, 7), "overline"),
    # Two closed fours on a row and a column through the point.
    ("double four, two lines", [(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)], [(3, 7), (7, 3)],
     (7, 7), "double four"),
    # Two open fours (each a straight four is one four) still make a double four.
    ("double four, two straight fours", [(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)], [],
     (7, 7), "double four"),
    # X X X . P . X X X: each gap makes a different five.
    ("double four, one line", [(2, 7), (3, 7), (4, 7), (8, 7), (9, 7), (10, 7)], [], (6, 7), "double four"),
    # X . X P X . X: each gap makes a different five.
    ("double four, one line, X.XXX.X", [(4, 7), (6, 7), (8, 7), (10, 7)], [], (7, 7), "double four"),
    # Two open threes, on a row and a column.
    ("double three", [(5, 7), (6, 7), (7, 5), (7, 6)], [], (7, 7), "double three"),
    # A split three (X . X P) and a plain one.
    ("double three, split", [(4, 7), (6, 7), (7, 5), (7, 6)], [], (7, 7), "double three"),
    # The row's three is closed by white at (9,7) on one side and its other straight four
    # would need (4,7) with white beyond it at (3,7): no three, only the column's.
    ("false double three, blocked", [(5, 7), (6, 7), (7, 5), (7, 6)], [(8, 7), (3, 7)], (7, 7), None),
    # The row's three can only become a straight four at (4,7) (white at (9,7) closes the
    # other side), and (4,7) is itself forbidden (an overline on column 4): no three.
    ("false double three, forbidden completion",
     [(5, 7), (6, 7), (7, 5), (7, 6), (4, 4), (4, 5), (4, 6), (4, 8), (4, 9)], [(9, 7)], (7, 7), None),
    # The same without column 4: (4,7) is allowed, the three is real.
    ("double three, allowed completion", [(5, 7), (6, 7), (7, 5), (7, 6)], [(9, 7)], (7, 7), "double three"),
    # A four and a three at once is allowed.
    ("four-three", [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6)], [(3, 7)], (7, 7), None),
    # A five wins even when the same move makes a four and a three (the five comes first).
    ("five beats double four", [(3, 7), (4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6), (5, 5), (6, 6)], [],
     (7, 7), None),
    # A five on the row beats an overline on the column.
    ("five beats overline", [(3, 7), (4, 7), (5, 7), (6, 7), (7, 3), (7, 4), (7, 5), (7, 6), (7, 8)], [],
     (7, 7), None),
    # A three closed at both far ends (white two cells away on both sides) cannot become
    # a straight four with room: O . X X P . O is no three.
    ("three with no room", [(5, 7), (6, 7), (7, 5), (7, 6)], [(3, 7), (9, 7)], (7, 7), None),
    # At the edge: # X X P . has no room for a straight four, so only the column's three.
    ("no three at the edge", [(0, 7), (1, 7), (2, 5), (2, 6)], [], (2, 7), None),
    # One cell further in, # . X X P . . is a three: with the column's, a double three.
    ("three near the edge", [(1, 7), (2, 7), (3, 5), (3, 6)], [], (3, 7), "double three"),
    # Without the point's own stone counted twice: a lone three is allowed.
    ("one three", [(5, 7), (6, 7)], [], (7, 7), None),
]


@pytest.mark.parametrize("name,black,white,point,expected", TABLE, ids=[t[0] for t in TABLE])
def test_hand_checked_positions(name, black, white, point, expected):
    board = position(black, white)
    assert reason(board, *point) == expected
    assert python_reason(board.cells, RENJU.padded(RENJU.move(*point)), RENJU.directions) == expected


def test_double_four_on_one_line_with_split_stones():
    # X . X X P . X: filling (5,7) makes 4..8 five; filling (9,7) makes 6..10 five.
    board = position([(4, 7), (6, 7), (7, 7), (10, 7)])
    assert reason(board, 8, 7) == "double four"


def test_gomocup_judge_rule_position():
    """GomocupJudge's renju test: after h8 h9 i7 i9 h10 i6 i11 i12, black's g9 = (6,8) is
    a double three (two open diagonals through h8-i7 and h10-i11)."""
    moves = parse_moves("h8h9i7i9h10i6i11i12")
    assert moves[:2] == [(7, 7), (7, 8)]
    board = Board(RENJU)
    for x, y in moves:
        board.apply(RENJU.move(x, y))
    assert board.to_move is Player.FIRST
    g9 = RENJU.move(6, 8)
    assert board.forbidden(g9) == "double three"
    assert g9 not in board.legal_moves()
    with pytest.raises(GameError, match="6,8 is forbidden for black: double three"):
        board.apply(g9)
    assert board[g9] == 0 and len(board.history) == 8  # nothing changed


def test_white_may_play_blacks_forbidden_point():
    board = position([(5, 7), (6, 7), (7, 5), (7, 6)], [(0, 0), (14, 14), (0, 14)], to_move=Player.SECOND)
    point = RENJU.move(7, 7)
    assert board.forbidden(point) == "double three"
    assert point in board.legal_moves()
    board.apply(point)
    assert board.winner is None


def test_black_wins_only_with_exactly_five_white_with_more():
    board = position([(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)], [(2, 9), (3, 9), (4, 9), (6, 9), (7, 9)])
    with pytest.raises(GameError, match="overline"):
        board.apply(RENJU.move(5, 7))
    board.to_move = Player.SECOND
    board.apply(RENJU.move(5, 9))
    assert board.winner is Player.SECOND


def test_five_that_is_also_a_double_four_wins():
    black = [(3, 7), (4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)]
    board = position(black, [(0, 0), (14, 14), (0, 14), (14, 0), (0, 7), (14, 7), (7, 14)])
    board.apply(RENJU.move(7, 7))
    assert board.winner is Player.FIRST


def test_config_refuses_other_win_lengths_and_tiny_boards():
    with pytest.raises(GameError, match="renju is played with five in a row: win length must be 5, got 4"):
        GameConfig.square(15, 4, Rule.RENJU)
    with pytest.raises(GameError, match="at least 5x5"):
        GameConfig(4, 9, 5, Rule.RENJU)
    assert GameConfig.square(5, 5, Rule.RENJU).label == "5x5k5-renju"


def test_rule_names_and_bits():
    assert Rule.parse("renju") is Rule.RENJU
    assert Rule.parse("4") is Rule.RENJU
    assert Rule.parse("5") is Rule.RENJU  # renju already holds black to exactly five
    assert Rule.RENJU.gomocup_bits == 4
    with pytest.raises(GameError, match="renju.*caro"):
        Rule.from_gomocup_bits(12)


def test_other_rules_have_no_forbidden_points():
    cfg = GameConfig.square(15, 5, Rule.EXACT)
    board = position([(5, 7), (6, 7), (7, 5), (7, 6)], config=cfg)
    assert board.forbidden(cfg.move(7, 7)) is None
    assert cfg.move(7, 7) in board.legal_moves()


def _reference_forbidden(board: Board, x: int, y: int) -> str | None:
    """A second checker, written independently on (x, y) coordinates and whole lines of
    text: the shapes are found by matching the row strings through the point."""
    cfg = board.config

    def line(dx, dy, cells_override):
        s = []
        for i in range(-6, 7):
            cx, cy = x + i * dx, y + i * dy
            if not cfg.on_board(cx, cy):
                s.append("#")
            else:
                v = cells_override.get((cx, cy), board.at(cx, cy))
                s.append(".XO"[v])
        return "".join(s)  # the point at index 6

    dirs = ((1, 0), (0, 1), (1, 1), (1, -1))

    def runs_at(over, px, py):
        out = []
        for dx, dy in dirs:
            n = 1
            for sgn in (1, -1):
                cx, cy = px + sgn * dx, py + sgn * dy
                while cfg.on_board(cx, cy) and over.get((cx, cy), board.at(cx, cy)) == 1:
                    n += 1
                    cx, cy = cx + sgn * dx, cy + sgn * dy
            out.append(n)
        return out

    def check(over, px, py):
        over = dict(over)
        over[(px, py)] = 1
        runs = runs_at(over, px, py)
        if 5 in runs:
            return None
        if max(runs) > 5:
            return "overline"
        fours, four_dirs, threes = 0, set(), 0
        for dx, dy in dirs:
            wins = set()
            for i in range(-4, 5):
                cx, cy = px + i * dx, py + i * dy
                if cfg.on_board(cx, cy) and over.get((cx, cy), board.at(cx, cy)) == 0:
                    o2 = dict(over)
                    o2[(cx, cy)] = 1
                    # a five through both (cx,cy) and the point
                    lo = min(0, i)
                    hi = max(0, i)
                    if all(o2.get((px + j * dx, py + j * dy), board.at(px + j * dx, py + j * dy)) == 1
                           for j in range(lo, hi + 1)) and runs_at(o2, cx, cy)[dirs.index((dx, dy))] == 5:
                        wins.add(i)
            n = len(wins)
            if n == 2 and max(wins) - min(wins) == 5:
                n = 1
            if n:
                four_dirs.add((dx, dy))
            fours += n
        if fours >= 2:
            return "double four"
        for dx, dy in dirs:
            if (dx, dy) in four_dirs:
                continue
            found = False
            for i in range(-4, 5):
                cx, cy = px + i * dx, py + i * dy
                if found or not cfg.on_board(cx, cy) or over.get((cx, cy), board.at(cx, cy)) != 0:
                    continue
                o2 = dict(over)
                o2[(cx, cy)] = 1
                # straight four through the point: a run of 4 with both ends playable to exactly five
                k = dirs.index((dx, dy))
                if runs_at(o2, px, py)[k] != 4:
                    continue
                ok = 0
                for j in range(-5, 6):
                    ex, ey = px + j * dx, py + j * dy
                    if cfg.on_board(ex, ey) and o2.get((ex, ey), board.at(ex, ey)) == 0:
                        o3 = dict(o2)
                        o3[(ex, ey)] = 1
                        if runs_at(o3, ex, ey)[k] == 5 and runs_at(o3, px, py)[k] == 5:
                            ok += 1
                if ok == 2 and check(over, cx, cy) is None:
                    found = True
            if found:
                threes += 1
        return "double three" if threes >= 2 else None

    return check({}, x, y)


def test_agrees_with_an_independent_checker_on_random_positions():
    """Random dense-ish positions near the centre: the rules' checker and the one above
    (whole-line, coordinate-based, written separately) name the same reason everywhere."""
    rng = random.Random(31)
    cfg = GameConfig.square(11, 5, Rule.RENJU)
    seen = {None: 0, "overline": 0, "double four": 0, "double three": 0}
    for _ in range(150):  # about 15,000 empty points judged
        board = Board(cfg)
        n = rng.randrange(6, 30)
        for _ in range(n):
            x, y = rng.randrange(2, 9), rng.randrange(2, 9)
            if board.at(x, y) == 0:
                board.place(cfg.move(x, y), 1 if rng.random() < 0.6 else 2)
        for m in range(cfg.area):
            if board[m] != 0:
                continue
            x, y = cfg.xy(m)
            want = _reference_forbidden(board, x, y)
            got = forbidden_reason(board.cells, cfg.pad[m], cfg.directions)
            assert got == want, (str(board), x, y)
            assert python_reason(board.cells, cfg.pad[m], cfg.directions) == want, (str(board), x, y)
            seen[got] += 1
    assert all(n > 0 for n in seen.values()), seen  # every reason occurred
