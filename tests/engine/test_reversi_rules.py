"""Reversi rules (engine/reversi/board/rules.py, bitboard.py): perft, hand-checked positions,
edges that do not wrap, passes, the end of the game, and bad input."""

from __future__ import annotations

import random

import pytest

from engine.reversi.board.bitboard import geometry, squares
from engine.reversi.board.perft import PERFT_8X8, perft_python
from engine.reversi.board.rules import (BLACK, PASS, WHITE, ReversiState, parse_board, square_to_text,
                                  start_bitboards, text_to_square)
from engine.game import GameError, GameState

from support.reversi_reference import cells, moves as ref_moves, to_bb


def sq(text: str, n: int = 8) -> int:
    return text_to_square(text, n)


def board(rows: list[str], side: str = "X") -> ReversiState:
    """A position from rows of text (``X``, ``O``, ``-``)."""
    return ReversiState.from_text("".join(rows) + " " + side)


def walk_perft(state: ReversiState, depth: int) -> int:
    """perft through the GameState interface (legal_moves / apply / undo)."""
    if depth == 0:
        return 1
    moves = state.legal_moves()
    if not moves:
        return 1
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        state.apply(m)
        total += walk_perft(state, depth - 1)
        state.undo()
    return total


# ---------------------------------------------------------------------------- perft
@pytest.mark.parametrize("depth", range(1, 8))
def test_perft_python_matches_published(depth):
    black, white = start_bitboards(8)
    assert perft_python(black, white, BLACK, 8, depth) == PERFT_8X8[depth - 1]


def test_perft_through_the_state_interface():
    s = ReversiState()
    assert [walk_perft(s, d) for d in range(1, 7)] == list(PERFT_8X8[:6])
    assert s.key() == ReversiState().key() and s.history == ()


# ---------------------------------------------------------------------------- start
@pytest.mark.parametrize("n", [4, 6, 8, 10, 12, 14, 16])
def test_start_position_is_the_centre(n):
    s = ReversiState(n)
    h = n // 2
    assert cells(s.white, n) == {(h - 1, h - 1), (h, h)}
    assert cells(s.black, n) == {(h - 1, h), (h, h - 1)}
    assert s.to_move == BLACK and s.discs() == (2, 2) and s.empties() == n * n - 4
    assert len(s.legal_moves()) == 4


def test_8x8_start_squares_and_first_moves():
    s = ReversiState()
    assert s.white == (1 << sq("d4")) | (1 << sq("e5"))
    assert s.black == (1 << sq("d5")) | (1 << sq("e4"))
    assert sorted(s.move_to_text(m) for m in s.legal_moves()) == ["c4", "d3", "e6", "f5"]
    s.apply(sq("f5"))
    assert s.discs() == (4, 1) and s.to_move == WHITE
    assert sorted(s.move_to_text(m) for m in s.legal_moves()) == ["d6", "f4", "f6"]
    assert s.flips(sq("f4")) == [sq("e4")]


def test_is_a_game_state():
    assert isinstance(ReversiState(), GameState)


# ---------------------------------------------------------------------------- flips
def test_flips_in_all_eight_directions():
    rows = [
        "X--X--X-",
        "-O-O-O--",
        "--OOO---",
        "XOO-OOX-",
        "--OOO---",
        "-O-O-O--",
        "X--X--X-",
        "--------",
    ]
    s = board(rows)
    d4 = sq("d4")
    expected = {sq(t) for t in ("c3", "b2", "d3", "d2", "e3", "f2", "c4", "b4", "e4", "f4",
                                "c5", "b6", "d5", "d6", "e5", "f6")}
    assert set(s.flips(d4)) == expected
    s.apply(d4)
    assert s.discs() == (8 + 16 + 1, 0)
    assert s.is_terminal()  # white has no discs left: a wipe-out


def test_a_line_needs_an_own_disc_at_its_end():
    s = board(["-OOX----"] + ["--------"] * 6 + ["-------X"])
    assert s.flips(sq("a1")) == [sq("b1"), sq("c1")]
    s2 = board(["-OO-----"] + ["--------"] * 6 + ["-------X"])
    assert s2.flips(sq("a1")) == []


@pytest.mark.parametrize("n", [4, 6, 8, 10])
def test_edges_do_not_wrap(n):
    """A line that would run off one side and come back on the other is no line: each
    case has the opponent's disc on an edge and the mover's disc where a wrapped shift
    would land."""
    size = n * n
    cases = []
    for r in range(n - 1):
        # east: move (r, n-2), O at (r, n-1), X at (r+1, 0)
        cases.append(((r, n - 2), {(r, n - 1)}, {(r + 1, 0)}))
        # west: move (r+1, 1), O at (r+1, 0), X at (r, n-1)
        cases.append(((r + 1, 1), {(r + 1, 0)}, {(r, n - 1)}))
        # south-east: move (r, n-2)... O at (r+1, n-1) then wrapped (r+2, 0)
        if r + 2 < n:
            cases.append(((r, n - 2), {(r + 1, n - 1)}, {(r + 2, 0)}))
            cases.append(((r, 1), {(r + 1, 0)}, {(r + 1, n - 1)}))
    for move, opp, own in cases:
        black = to_bb(own, n)
        white = to_bb(opp, n)
        s = ReversiState.from_bitboards(black, white, BLACK, n)
        m = move[0] * n + move[1]
        assert s.flips(m) == [], (n, move, opp, own)
        assert not (s.move_mask() >> m) & 1
        assert s.legal_moves() in ([], [size])


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12, 16])
def test_bitboards_match_a_walking_reference(n):
    """Moves and flips on random positions against the square-walking reference."""
    rng = random.Random(n)
    geo = geometry(n)
    for _ in range(60 if n <= 10 else 20):
        p = o = 0
        for i in range(n * n):
            x = rng.random()
            if x < 0.35:
                p |= 1 << i
            elif x < 0.7:
                o |= 1 << i
        own, opp = cells(p, n), cells(o, n)
        ref = ref_moves(own, opp, n)
        assert geo.moves(p, o) == to_bb(set(ref), n)
        for (r, c), f in ref.items():
            assert geo.flips(p, o, r * n + c) == to_bb(f, n)


# ---------------------------------------------------------------------------- passes and the end
def test_pass_then_wipe_out():
    s = board(["OX------"] + ["--------"] * 7, "X")
    assert s.legal_moves() == [PASS] and not s.is_terminal()
    with pytest.raises(GameError):
        s.apply(sq("c1"))
    s.apply(PASS)
    assert s.to_move == WHITE and s.legal_moves() == [sq("c1")]
    with pytest.raises(GameError):
        s.apply(PASS)  # white has a move
    s.apply(sq("c1"))
    assert s.is_terminal() and s.legal_moves() == []
    assert s.discs() == (0, 3)
    assert s.disc_differential() == -64  # 3 - 0, and the 61 empties go to white
    assert s.returns() == (0.0, 1.0) and s.winner() == WHITE
    assert s.history == (PASS, sq("c1"))
    s.undo()
    s.undo()
    assert s.legal_moves() == [PASS]


def test_full_board_end():
    s = ReversiState.from_text("X" * 33 + "O" * 31 + " O")
    assert s.is_terminal() and s.legal_moves() == []
    assert s.disc_differential() == 2 and s.returns() == (1.0, 0.0) and s.winner() == BLACK
    for move in (0, 63, PASS):
        with pytest.raises(GameError, match="over"):
            s.apply(move)


def test_blocked_board_end_gives_the_empties_to_the_winner():
    s = ReversiState.from_text("XX" + "-" * 61 + "O" + " X")
    assert s.is_terminal() and s.empties() == 61
    assert s.disc_differential() == 2 - 1 + 61
    draw = ReversiState.from_text("X" + "-" * 62 + "O" + " O")
    assert draw.is_terminal() and draw.disc_differential() == 0
    assert draw.returns() == (0.5, 0.5) and draw.winner() is None


def test_returns_before_the_end_is_an_error():
    with pytest.raises(GameError):
        ReversiState().returns()


# ---------------------------------------------------------------------------- state mechanics
def test_random_games_undo_to_the_start():
    rng = random.Random(3)
    for n in (4, 6, 8, 10):
        s = ReversiState(n)
        keys = [s.key()]
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_moves()))
            keys.append(s.key())
        assert len(s.history) == len(keys) - 1
        b, w = s.discs()
        assert s.returns() == ((1.0, 0.0) if b > w else (0.0, 1.0) if w > b else (0.5, 0.5))
        for k in reversed(keys[:-1]):
            s.undo()
            assert s.key() == k
        with pytest.raises(GameError, match="undo"):
            s.undo()


def test_clone_is_independent():
    s = ReversiState()
    s.apply(sq("f5"))
    c = s.clone()
    c.apply(c.legal_moves()[0])
    assert len(s.history) == 1 and len(c.history) == 2
    c.undo()
    c.undo()
    assert c.key() == ReversiState().key()
    assert s.key() != c.key()


def test_failed_apply_changes_nothing():
    s = ReversiState()
    before = (s.key(), s.history)
    for bad in (sq("a1"), sq("d4"), PASS, -1, 65, 10**30, "f5", None, 3.0, True):
        with pytest.raises(GameError):
            s.apply(bad)
        assert (s.key(), s.history) == before


def test_text_round_trip_and_key():
    s = ReversiState()
    for m in ("f5", "d6", "c3"):
        s.apply(s.text_to_move(m))
    t = ReversiState.from_text(s.to_text())
    assert t.key() == s.key() and t.history == ()
    assert ReversiState.from_text(s.to_text().replace(" ", "")).key() == s.key()
    rows = s.to_text()[:-2]
    assert ReversiState.from_text("\n".join(rows[i:i + 8] for i in range(0, 64, 8)), s.to_move).key() == s.key()


def test_render_shows_coordinates_and_moves():
    text = ReversiState().render()
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh")
    assert lines[4].split() == ["4", "-", "-", "*", "O", "X", "-", "-", "-"]
    assert "X (black) to move" in lines[-1]


# ---------------------------------------------------------------------------- coordinates and text
def test_coordinates():
    assert text_to_square("a1") == 0 and text_to_square("h8") == 63
    assert text_to_square("F5") == 4 * 8 + 5 and text_to_square(" f5 ") == 37
    assert text_to_square("pass") == PASS == text_to_square("PA") == text_to_square("PASS")
    assert text_to_square("p16", 16) == 255 and text_to_square("j10", 10) == 99
    assert square_to_text(37) == "f5" and square_to_text(64) == "pass"
    assert square_to_text(255, 16) == "p16" and square_to_text(36, 6) == "pass"
    for n in (4, 8, 16):
        assert all(text_to_square(square_to_text(m, n), n) == m for m in range(n * n + 1))


@pytest.mark.parametrize("bad", ["", "a", "1a", "i1", "a9", "a0", "a01", "z9", "f5x", "ff", "a-1", "a²",
                                 None, 5])
def test_bad_coordinates(bad):
    with pytest.raises(GameError):
        text_to_square(bad)


def test_square_to_text_rejects_non_moves():
    for bad in (-1, 65, "a1", None):
        with pytest.raises(GameError):
            square_to_text(bad)


@pytest.mark.parametrize("text", [
    "",
    "X" * 64,                      # no side to move
    "X" * 63 + " X",               # not a square number of squares
    "X" * 64 + " Z",               # bad side
    "Y" * 64 + " X",               # bad square
    "X" * 9 + " O",                # 3x3: odd
    "X" * 324 + " O",              # 18x18: too big
    "X" * 4 + " O",                # 2x2: too small
])
def test_malformed_board_text(text):
    with pytest.raises(GameError):
        ReversiState.from_text(text)


def test_bad_constructor_arguments():
    for n in (3, 5, 2, 18, 0, -8, "8", None, 8.0):
        with pytest.raises(GameError):
            ReversiState(n)
    with pytest.raises(GameError):
        ReversiState.from_bitboards(1, 1, BLACK)  # overlap
    with pytest.raises(GameError):
        ReversiState.from_bitboards(1 << 64, 0, BLACK)  # off the board
    with pytest.raises(GameError):
        ReversiState.from_bitboards(-1, 0, BLACK)
    with pytest.raises(GameError):
        ReversiState.from_bitboards(1, 2, 3)  # bad side
    with pytest.raises(GameError):
        parse_board(None)


def test_flips_of_non_moves_are_empty():
    s = ReversiState()
    assert s.flips(sq("d4")) == [] and s.flips(PASS) == [] and s.flips(-3) == [] and s.flips(sq("a1")) == []
    assert squares(0b1011) == [0, 1, 3]
