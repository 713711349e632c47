"""Opening files (offset and pos lines), random openings, and their schedule."""

import random

import pytest

from engine.mnk.rules import Board, GameConfig
from referee.games.openings import load_openings, opening_for_game, parse_opening, random_opening

C15 = GameConfig(15, 15, 5)


def xy(cfg, moves):
    return [cfg.xy(m) for m in moves]


def test_offset_lines_are_relative_to_the_centre():
    assert xy(C15, parse_opening("0,0, 1,-1, 2,1", C15)) == [(7, 7), (8, 6), (9, 8)]
    cfg = GameConfig(10, 8, 5)  # centre (5, 4)
    assert xy(cfg, parse_opening(" -1, 0 ,  0,+1", cfg)) == [(4, 4), (5, 5)]


def test_pos_lines_letter_is_x_number_is_y_from_one():
    assert xy(C15, parse_opening("h8i9j7", C15)) == [(7, 7), (8, 8), (9, 6)]
    assert xy(C15, parse_opening("a1 o15", C15)) == [(0, 0), (14, 14)]


@pytest.mark.parametrize("line,msg", [
    ("0,0, 1", "odd number"),
    ("0,0, 0,0", "twice"),
    ("8,0", "off the"),
    ("p1", "off the"),
    ("h8i9j", "not a pos"),
    ("0,0; 1,1", "not an offset"),
])
def test_bad_openings_are_refused(line, msg):
    with pytest.raises(ValueError, match=msg):
        parse_opening(line, C15)


def test_an_opening_that_already_wins_is_refused():
    cfg = GameConfig(7, 7, 3)
    with pytest.raises(ValueError, match="ends the game"):
        parse_opening("0,0, 0,3, 1,0, 1,3, 2,0", cfg)  # X makes three in a row on the last stone


def test_load_openings_skips_comments_and_names_the_bad_line():
    lines = ["# openings", "", "0,0, 1,1", "h8"]
    assert [xy(C15, o) for o in load_openings(lines, C15)] == [[(7, 7), (8, 8)], [(7, 7)]]
    with pytest.raises(ValueError, match="book.txt:2"):
        load_openings(["0,0", "zz"], C15, "book.txt")
    with pytest.raises(ValueError, match="no opening"):
        load_openings(["# nothing"], C15)


def test_random_opening_is_reproducible_legal_and_unfinished():
    cfg = GameConfig(7, 7, 3)
    a = random_opening(cfg, 4, random.Random(5))
    assert a == random_opening(cfg, 4, random.Random(5))
    assert len(set(a)) == 4
    for seed in range(50):
        b = Board(cfg)
        for m in random_opening(cfg, 4, random.Random(seed)):
            b.play(m)
        assert not b.is_over
    with pytest.raises(ValueError):
        random_opening(GameConfig(3, 3, 3), 9, random.Random(1))


def test_games_are_paired_on_the_same_opening():
    book = [[1], [2], [3]]
    got = [opening_for_game(g, book, 0, C15, 0) for g in range(1, 9)]
    assert got == [[1], [1], [2], [2], [3], [3], [1], [1]]
    r1 = opening_for_game(1, None, 3, C15, seed=9)
    assert r1 == opening_for_game(2, None, 3, C15, seed=9) and len(r1) == 3
    assert opening_for_game(3, None, 3, C15, seed=9) != r1 or opening_for_game(5, None, 3, C15, seed=9) != r1
    assert opening_for_game(1, None, 0, C15, 0) == []


def test_a_range_of_opening_sizes_draws_a_count_per_pair():
    cfg = GameConfig(15, 15, 5)
    sizes = {len(opening_for_game(g, None, (2, 4), cfg, 7)) for g in range(1, 61)}
    assert sizes == {2, 3, 4}
    for g in range(1, 61, 2):  # both games of a pair share the opening
        assert opening_for_game(g, None, (2, 4), cfg, 7) == opening_for_game(g + 1, None, (2, 4), cfg, 7)
    # A fixed count gives the same openings as before ranges existed.
    assert opening_for_game(3, None, 3, cfg, 7) == opening_for_game(3, None, (3, 3), cfg, 7)


def test_plies_range_argument():
    import argparse

    import pytest

    from referee.cli.argtypes import plies_range

    assert plies_range("3") == (3, 3)
    assert plies_range("2-4") == (2, 4)
    for bad in ("4-2", "x", "-1", "2-"):
        with pytest.raises(argparse.ArgumentTypeError):
            plies_range(bad)


def test_the_default_random_opening_suits_the_board():
    from referee.games.openings import default_random_plies

    assert default_random_plies(GameConfig(15, 15, 5)) == (2, 4)
    assert default_random_plies(GameConfig(9, 9, 6)) == (2, 4)
    assert default_random_plies(GameConfig(9, 9, 4)) == (2, 2)  # short lines: extra stones decide games
    assert default_random_plies(GameConfig(3, 3, 3)) == (2, 2)
    for cfg in (GameConfig(3, 3, 3), GameConfig(4, 3, 3), GameConfig(5, 5, 4), GameConfig(15, 15, 5)):
        lo, hi = default_random_plies(cfg)
        for g in range(1, 41):  # every pair gets a legal, unfinished opening of that size
            o = opening_for_game(g, None, (lo, hi), cfg, seed=11)
            assert lo <= len(o) <= hi
    # pairs differ: two deterministic engines no longer play one game over and over
    firsts = {tuple(opening_for_game(g, None, (2, 4), C15, seed=11)) for g in range(1, 21, 2)}
    assert len(firsts) == 10


def test_describe_openings():
    from referee.games.openings import describe_openings

    assert describe_openings(0, (2, 4), 17) == ("random, 2-4 stones near the centre, one per pair of games, "
                                                "colours swapped; seed 17 (--seed 17 repeats them)")
    assert describe_openings(0, 0, None).startswith("none (every game starts on the empty board)")
    assert describe_openings(3, 0, None).startswith("from the opening file (3 openings")
