"""Rules of the m,n,k family: configuration ranges, win detection, variants, positions."""

import random

import pytest

from engine.mnk.board.rules import Board, GameConfig, Player, Rule, render

DIRECTIONS = [(1, 0), (0, 1), (1, 1), (1, -1)]


def naive_winner(board: Board) -> Player | None:
    """Independent reference: scan every maximal run on a 2-D grid, apply the rule literally."""
    cfg = board.config
    grid = [[board.at(x, y) for x in range(cfg.width)] for y in range(cfg.height)]

    def cell(x, y):
        return grid[y][x] if 0 <= x < cfg.width and 0 <= y < cfg.height else None

    found = set()
    for y in range(cfg.height):
        for x in range(cfg.width):
            p = grid[y][x]
            if p == 0:
                continue
            for dx, dy in DIRECTIONS:
                if cell(x - dx, y - dy) == p:
                    continue  # not the start of a maximal run
                n = 0
                while cell(x + n * dx, y + n * dy) == p:
                    n += 1
                before, after = cell(x - dx, y - dy), cell(x + n * dx, y + n * dy)
                if cfg.rule is Rule.FREESTYLE:
                    ok = n >= cfg.win_length
                elif cfg.rule is Rule.EXACT:
                    ok = n == cfg.win_length
                else:
                    blocked = before == 3 - p and after == 3 - p
                    ok = n > cfg.win_length or (n == cfg.win_length and not blocked)
                if ok:
                    found.add(Player(p))
    assert len(found) <= 1, "both players have lines: the game should have stopped earlier"
    return found.pop() if found else None


def place(cfg, stones):
    """Board with raw stones placed, bypassing play() (for hand-made patterns)."""
    b = Board(cfg)
    for x, y, p in stones:
        b.cells[cfg.padded(cfg.move(x, y))] = p
        b._empty_count -= 1
    return b


# --- configuration ---------------------------------------------------------------


@pytest.mark.parametrize("w,h,k", [(2, 15, 2), (15, 2, 2), (65, 15, 5), (15, 15, 1), (15, 15, 16), (7, 9, 10)])
def test_config_out_of_range_names_the_range(w, h, k):
    with pytest.raises(ValueError, match=r"\.\."):
        GameConfig(w, h, k)


@pytest.mark.parametrize("w,h,k", [(3, 3, 3), (3, 3, 2), (64, 64, 5), (3, 40, 40), (20, 7, 20)])
def test_config_in_range(w, h, k):
    cfg = GameConfig(w, h, k)
    assert cfg.area == w * h
    assert cfg.label == f"{w}x{h}k{k}"


def test_rule_bitmask_mapping():
    assert Rule.from_gomocup_bits(0) is Rule.FREESTYLE
    assert Rule.from_gomocup_bits(1) is Rule.EXACT
    assert Rule.from_gomocup_bits(8) is Rule.CARO
    assert Rule.from_gomocup_bits(3) is Rule.EXACT  # the continuous-game bit does not change lines
    assert Rule.from_gomocup_bits(2) is Rule.RENJU  # ... but 2 alone is the Yixin protocol's renju
    assert Rule.from_gomocup_bits(4) is Rule.RENJU
    assert Rule.from_gomocup_bits(6) is Rule.RENJU
    with pytest.raises(ValueError, match="renju"):
        Rule.from_gomocup_bits(12)
    assert Rule.parse("exact") is Rule.EXACT and Rule.parse("8") is Rule.CARO
    assert Rule.parse("renju") is Rule.RENJU
    with pytest.raises(ValueError, match="unknown rule"):
        Rule.parse("swap")
    for r in Rule:
        assert Rule.from_gomocup_bits(r.gomocup_bits) is r


def test_coordinates_roundtrip_rectangular():
    cfg = GameConfig(7, 4, 3)
    seen = set()
    for y in range(4):
        for x in range(7):
            m = cfg.move(x, y)
            assert cfg.xy(m) == (x, y)
            assert cfg.unpadded(cfg.padded(m)) == m
            seen.add(cfg.padded(m))
    assert len(seen) == 28
    with pytest.raises(ValueError):
        cfg.move(7, 0)
    with pytest.raises(ValueError):
        cfg.move(0, 4)


# --- win detection ----------------------------------------------------------------


def _line_game(cfg, cells_first, filler):
    """Play the first player's cells in order with the second player answering from `filler`."""
    b = Board(cfg)
    filler = iter(filler)
    for i, (x, y) in enumerate(cells_first):
        won = b.play(cfg.move(x, y))
        if i < len(cells_first) - 1:
            assert won is None
            b.play(cfg.move(*next(filler)))
    return b


@pytest.mark.parametrize("dx,dy", DIRECTIONS)
@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_every_direction_every_k_and_last_stone_in_the_middle(dx, dy, k):
    size = 11
    cfg = GameConfig(size, size, k)
    x0, y0 = 2, 4 if dy >= 0 else 8
    line = [(x0 + i * dx, y0 + i * dy) for i in range(k)]
    # Finish the line in the middle, not at an end.
    order = line[: k // 2] + line[k // 2 + 1 :] + [line[k // 2]]
    filler = [(size - 1, i) for i in range(size)]
    b = _line_game(cfg, order, filler)
    assert b.winner is Player.FIRST and b.is_over
    assert naive_winner(b) is Player.FIRST


@pytest.mark.parametrize(
    "line",
    [
        [(0, 0), (1, 1), (2, 2), (3, 3)],  # corner diagonal
        [(8, 0), (7, 1), (6, 2), (5, 3)],  # anti-diagonal from the top-right corner
        [(0, 5), (0, 4), (0, 3), (0, 2)],  # left edge
        [(8, 5), (7, 5), (6, 5), (5, 5)],  # bottom-right corner along the edge
    ],
)
def test_edges_and_corners_rectangular(line):
    cfg = GameConfig(9, 6, 4)
    filler = [(4, 0), (4, 1), (4, 2), (4, 3), (3, 0)]
    filler = [c for c in filler if c not in line]
    b = _line_game(cfg, line, filler)
    assert b.winner is Player.FIRST


def test_no_wrap_around_between_rows():
    cfg = GameConfig(5, 5, 3)
    # (3,0),(4,0) and (0,1) are consecutive in memory order but not on a line.
    b = place(cfg, [(3, 0, 1), (4, 0, 1)])
    assert not b.wins_if_played(cfg.move(0, 1), Player.FIRST)
    # Same across the diagonal seam.
    b = place(cfg, [(4, 0, 1), (0, 2, 1)])
    assert not b.wins_if_played(cfg.move(0, 1), Player.FIRST)


def test_overline_rules():
    cfg_free = GameConfig(10, 3, 4, Rule.FREESTYLE)
    cfg_exact = GameConfig(10, 3, 4, Rule.EXACT)
    stones = [(1, 1, 1), (2, 1, 1), (4, 1, 1), (5, 1, 1)]
    # Filling (3,1) makes five in a row: an overline for k=4.
    assert place(cfg_free, stones).wins_if_played(cfg_free.move(3, 1), Player.FIRST)
    assert not place(cfg_exact, stones).wins_if_played(cfg_exact.move(3, 1), Player.FIRST)
    # Exactly four wins under exact.
    b = place(cfg_exact, [(1, 1, 1), (2, 1, 1), (3, 1, 1)])
    assert b.wins_if_played(cfg_exact.move(4, 1), Player.FIRST)
    # An overline in one direction does not spoil an exact line in another.
    cfg = GameConfig(9, 9, 4, Rule.EXACT)
    b = place(cfg, [(0, 4, 1), (1, 4, 1), (3, 4, 1), (4, 4, 1), (2, 1, 1), (2, 2, 1), (2, 3, 1)])
    assert b.wins_if_played(cfg.move(2, 4), Player.FIRST)


def test_caro_blocked_both_ends():
    cfg = GameConfig(9, 3, 4, Rule.CARO)
    row = [(2, 1, 1), (3, 1, 1), (4, 1, 1)]
    # Blocked at both ends by the opponent: no win.
    b = place(cfg, row + [(1, 1, 2), (6, 1, 2)])
    assert not b.wins_if_played(cfg.move(5, 1), Player.FIRST)
    # Blocked at one end only: a win.
    b = place(cfg, row + [(1, 1, 2)])
    assert b.wins_if_played(cfg.move(5, 1), Player.FIRST)
    # The board edge is not a block.
    b = place(cfg, [(0, 1, 1), (1, 1, 1), (2, 1, 1), (4, 1, 2)])
    assert b.wins_if_played(cfg.move(3, 1), Player.FIRST)
    # Own stone beyond the end makes an overline, which wins.
    b = place(cfg, [(1, 1, 2), (2, 1, 1), (3, 1, 1), (4, 1, 1), (6, 1, 1), (7, 1, 2)])
    assert b.wins_if_played(cfg.move(5, 1), Player.FIRST)


@pytest.mark.parametrize(
    "w,h,k,rule,games",
    [
        (3, 3, 3, Rule.FREESTYLE, 600),
        (7, 7, 4, Rule.FREESTYLE, 500),
        (9, 6, 4, Rule.EXACT, 500),
        (8, 8, 3, Rule.CARO, 500),
        (15, 15, 5, Rule.FREESTYLE, 300),
        (6, 11, 5, Rule.EXACT, 300),
        (10, 10, 4, Rule.CARO, 300),
        (5, 5, 2, Rule.FREESTYLE, 200),
    ],
)
@pytest.mark.slow
def test_random_games_match_full_board_scan(w, h, k, rule, games):
    """Thousands of random games in total: the incremental result equals a naive scan after every move."""
    cfg = GameConfig(w, h, k, rule)
    rng = random.Random(1000 * w + 10 * h + k)
    outcomes = {None: 0, Player.FIRST: 0, Player.SECOND: 0}
    for _ in range(games):
        b = Board(cfg)
        moves = list(range(cfg.area))
        rng.shuffle(moves)
        for m in moves:
            b.play(m)
            # A full scan after every move is costly on 15x15; scan there only at the end.
            if cfg.area <= 100 or b.is_over:
                assert naive_winner(b) == b.winner
            if b.is_over:
                break
        outcomes[b.winner] += 1
        assert b.is_over
    assert outcomes[Player.FIRST] > 0


def test_random_games_with_undo_restore_exact_state():
    cfg = GameConfig(7, 7, 4)
    rng = random.Random(7)
    for _ in range(50):
        b = Board(cfg)
        snapshots = []
        while not b.is_over:
            snapshots.append((b.cells.copy(), b.to_move, b.empty_count))
            b.play(rng.choice(b.legal_moves()))
        while b.history:
            b.undo()
            cells, to_move, empty = snapshots.pop()
            assert b.cells == cells and b.to_move == to_move and b.empty_count == empty
            assert b.winner is None


def test_full_board_is_a_draw():
    cfg = GameConfig(3, 3, 3)
    b = Board(cfg)
    # X O X / X O O / O X X : no line.
    for x, y in [(0, 0), (1, 0), (2, 0), (1, 1), (0, 1), (2, 1), (1, 2), (0, 2), (2, 2)]:
        b.play(cfg.move(x, y))
    assert b.winner is None and b.is_full and b.is_over
    assert b.legal_moves() == []


def test_play_rejects_bad_moves():
    cfg = GameConfig(5, 5, 3)
    b = Board(cfg)
    b.play(cfg.move(2, 2))
    with pytest.raises(ValueError, match="occupied"):
        b.play(cfg.move(2, 2))
    with pytest.raises(ValueError, match="off the 5x5 board"):
        b.play(25)
    with pytest.raises(ValueError):
        b.play(-1)
    assert b.stone_count == 1 and b.to_move is Player.SECOND


# --- positions from stones ------------------------------------------------------------


def test_from_stones_any_order_and_side_to_move():
    cfg = GameConfig(9, 9, 4)
    stones = [(4, 4, 1), (3, 3, 2), (5, 5, 1)]
    for order in (stones, stones[::-1]):
        b = Board.from_stones(cfg, order)
        assert b.to_move is Player.SECOND
        assert b.at(4, 4) == 1 and b.at(3, 3) == 2 and b.stone_count == 3
    assert Board.from_stones(cfg, []).to_move is Player.FIRST
    # The second player may have moved first: explicit side to move.
    b = Board.from_stones(cfg, [(0, 0, 2)], to_move=Player.FIRST)
    assert b.to_move is Player.FIRST


@pytest.mark.parametrize(
    "stones,to_move,match",
    [
        ([(0, 0, 1), (1, 1, 1)], None, "impossible stone counts"),
        ([(0, 0, 2)], None, "impossible stone counts"),
        ([(0, 0, 1), (0, 0, 2)], None, "two stones"),
        ([(9, 0, 1)], None, "off the"),
        ([(0, 0, 3)], None, "player must be"),
        ([(0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1), (0, 5, 2), (1, 5, 2), (2, 5, 2)], None, "already over"),
        ([(0, 0, 1)], Player.FIRST, "impossible stone counts"),
    ],
)
def test_from_stones_rejects_inconsistent_positions(stones, to_move, match):
    with pytest.raises(ValueError, match=match):
        Board.from_stones(GameConfig(9, 9, 4), stones, to_move=to_move)


def test_remove_arbitrary_stone_and_render():
    cfg = GameConfig(5, 4, 3)
    b = Board(cfg)
    for x, y in [(0, 0), (1, 1), (2, 2)]:
        b.play(cfg.move(x, y))
    b.remove(cfg.move(0, 0))
    assert b.at(0, 0) == 0 and b.to_move is Player.FIRST and b.stone_count == 2
    text = render(b)
    lines = text.splitlines()
    assert len(lines) == cfg.height + 1
    assert lines[2].split()[1:] == [".", "O", ".", ".", "."]
    assert b.to_array().shape == (4, 5)


def test_place_and_block_for_position_setup():
    cfg = GameConfig(7, 7, 4)
    b = Board(cfg)
    b.place(cfg.move(1, 1), 2)
    assert b.at(1, 1) == 2 and b.to_move is Player.FIRST and b.stone_count == 1
    with pytest.raises(ValueError):
        b.place(cfg.move(1, 1), 1)
    with pytest.raises(ValueError):
        b.place(cfg.move(2, 2), 3)
    # A blocked cell breaks lines like the edge and cannot be played.
    b.block(cfg.move(3, 0))
    assert not b.is_empty(cfg.move(3, 0)) and b.empty_count == 47
    for x in (0, 1, 2):
        b.place(cfg.move(x, 0), 1)
    assert not b.wins_if_played(cfg.move(4, 0), Player.FIRST)
    with pytest.raises(ValueError):
        b.play(cfg.move(3, 0))
    with pytest.raises(ValueError):
        b.block(cfg.move(3, 0))


# --- the game interface ---------------------------------------------------------------


def test_board_is_the_game_state_of_the_interface():
    from engine.game import GameError, GameState

    cfg = GameConfig(5, 5, 3)
    b = Board(cfg)
    assert isinstance(b, GameState)
    for m in (12, 0, 13, 1):
        b.apply(m)
    before = (list(b.cells), list(b.history), b.to_move, b.winner)
    for bad in (12, 25, -1):  # occupied, off the board both ways: nothing half-applied
        with pytest.raises(GameError):
            b.apply(bad)
        assert (list(b.cells), list(b.history), b.to_move, b.winner) == before
    b.apply(14)  # X completes 12-13-14
    assert b.is_terminal() and b.returns() == (1.0, 0.0)
    with pytest.raises(GameError, match="already won"):
        b.apply(20)
    assert b.legal_moves() == []
    b.undo()
    assert not b.is_terminal() and b.returns() == (0.5, 0.5)
    assert b.key() == b.clone().key() and b.key() != Board(cfg).key()
    assert b.text_to_move(b.move_to_text(7)) == 7 and b.text_to_move("2 1") == 7
    for text in ("7", "a,b", "9,9", "1,2,3"):
        with pytest.raises(GameError):
            b.text_to_move(text)
    empty = Board(cfg)
    with pytest.raises(GameError):
        empty.undo()
