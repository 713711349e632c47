"""GGF records: read what NBoard and Edax send, write what they read, refuse bad text."""

from __future__ import annotations

import pytest

from engine.game import GameError
from engine.reversi.board.ggf import GgfMove, format_clock, format_ggf, parse_clock, parse_ggf, parse_move
from engine.reversi.board.rules import BLACK, WHITE, ReversiState

START = "---------------------------O*------*O---------------------------"
NBOARD = f"(;GM[Othello]PC[NBoard]DT[2026-11-23]PB[me]PW[Edax]RE[?]TI[15:00]TY[8]BO[8 {START} *]B[F5//1.2]W[F6/-0.5/2]B[e6];)"


def test_a_game_from_nboard_parses_to_its_position_and_clock():
    game = parse_ggf(NBOARD)
    assert [(m.player, m.eval, m.seconds) for m in game.moves] == [(BLACK, None, 1.2), (WHITE, -0.5, 2.0), (BLACK, None, None)]
    expected = ReversiState()
    for text in ("f5", "f6", "e6"):
        expected.apply(expected.text_to_move(text))
    assert game.position().key() == expected.key()
    assert game.clock_seconds() == 900.0
    assert game.used_seconds(BLACK) == pytest.approx(1.2) and game.used_seconds(WHITE) == 2.0
    assert game.tags["PB"] == "me" and game.tags["RE"] == "?"


def test_a_written_record_reads_back_the_same():
    start = ReversiState()
    moves = []
    state = start.clone()
    for i, text in enumerate(("f5", "d6", "c3", "d3", "c4")):
        m = state.text_to_move(text)
        moves.append(GgfMove(state.to_move, m, 0.25 * i if i % 2 else None, 0.5 + i))
        state.apply(m)
    text = format_ggf(start, moves, {"PB": "a]b", "PW": "w", "RE": "+2", "TI": "5:00"})
    back = parse_ggf(text)
    assert back.moves == moves and back.tags["PB"] == "a]b" and back.position().key() == state.key()


GAME = ("c4 c5 f6 c3 b5 g7 e3 e6 c2 f3 g3 a5 h8 b3 f4 f2 b4 f5 f7 h3 a3 d2 e2 e1 a6 e7 d7 c1 c6 g8 f1 g4 "
        "d1 b6 b1 d3 g6 b7 f8 a7 c7 h6 a8 b2 g5 g2 a1 d6 h2 h5 a4 d8 c8 h7 e8 a2 h4 b8").split()


def test_a_forced_pass_left_out_of_a_record_is_put_back():
    """After b8 the side to move must pass: a record that goes straight on with the other
    side's move means the same game as one with ``PA`` written."""
    state = ReversiState()
    for text in GAME:
        state.apply(state.text_to_move(text))
    assert state.legal_moves() == [state.pass_move]
    mover = 3 - state.to_move
    after_pass = state.clone()
    after_pass.apply(state.pass_move)
    reply = after_pass.legal_moves()[0]
    moves = [GgfMove(BLACK if i % 2 == 0 else WHITE, ReversiState().text_to_move(t)) for i, t in enumerate(GAME)]
    written = format_ggf(ReversiState(), moves + [GgfMove(mover, reply)])
    with_pass = format_ggf(ReversiState(), moves + [GgfMove(state.to_move, state.pass_move), GgfMove(mover, reply)])
    assert "PA" in with_pass
    a, b = parse_ggf(written).position(), parse_ggf(with_pass).position()
    assert a.key() == b.key()


def test_clocks_and_moves():
    assert parse_clock("15:00") == 900 and parse_clock("1:00:00") == 3600 and parse_clock("30") == 30
    assert parse_clock("05:00//02:00") == 300
    assert format_clock(900) == "15:00" and format_clock(3725) == "1:02:05"
    state = ReversiState()
    assert parse_move("F5/0.00/1.5", state) == (state.text_to_move("f5"), 0.0, 1.5)
    assert parse_move("c4//", state) == (state.text_to_move("c4"), None, None)
    for bad in ("x:y", "", "1::2"):
        with pytest.raises(GameError):
            parse_clock(bad)
    for bad in ("z9", "f5/x", "f5/1/2/3"):
        with pytest.raises(GameError):
            parse_move(bad, state)


@pytest.mark.parametrize("spaced", [
    NBOARD[:-2] + ";  )",                                       # NBoard-like, a space before ')'
    "( ;" + NBOARD[2:-2] + "; )",                               # inside both delimiters
    "\n(\n;\n" + NBOARD[2:-2].replace("]", "]\n  ") + "\n;\n)\n",  # newlines everywhere between
])
def test_whitespace_around_the_delimiters_and_between_tags_is_accepted(spaced):
    game, plain = parse_ggf(spaced), parse_ggf(NBOARD)
    assert game.moves == plain.moves and game.tags == plain.tags
    assert game.position().key() == plain.position().key()


@pytest.mark.parametrize("bad", [
    "", "(;GM[Othello]", "GM[Othello];)", "(;GM[Chess];)", "(;GM[Othello]BO[8 --- *];)",
    "(;GM[Othello]BO[8 " + START + " *]B[f5]B[e6]W[zz];)", "(;GM[Othello]??;)", "(;" + "x" * 300_000 + ";)",
    "(;GM[Othello]BO[9 " + "-" * 81 + " *];)", "(;GM[Othello]BO[8 " + START + " *]; ) x", "(GM[Othello];)",
])
def test_bad_records_raise_game_error(bad):
    with pytest.raises(GameError):
        game = parse_ggf(bad)
        game.position()


def test_an_illegal_move_names_itself():
    game = parse_ggf(f"(;GM[Othello]BO[8 {START} *]B[a1];)")
    with pytest.raises(GameError, match="move 1 .a1."):
        game.position()
