"""Opening files (offset and pos lines), random openings, and their schedule."""

import random

import pytest

from engine.mnk.board.rules import Board, GameConfig
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


# Transforms, order and start (--transform, --openings-order, --openings-start) ---------------------------

def _legal_mnk(cfg, moves):
    b = Board(cfg)
    for m in moves:
        assert b.is_empty(m)
        b.play(m)
        assert not b.is_over
    return True


def test_an_opening_and_its_eight_images_are_distinct_and_legal():
    from referee.games.openings import symmetries, transform_opening

    assert symmetries(C15) == 8 and symmetries(GameConfig(9, 7, 4)) == 4
    opening = parse_opening("0,0, 1,0, 2,-1, 0,2", C15)  # no symmetry of its own
    images = [transform_opening(C15, opening, k) for k in range(8)]
    assert images[0] == opening
    assert len({tuple(i) for i in images}) == 8
    assert all(_legal_mnk(C15, i) for i in images)
    # the centre stays the centre; the stones keep their distances
    assert all(C15.xy(i[0]) == (7, 7) for i in images)
    rect = GameConfig(9, 7, 4)
    o = parse_opening("0,0, 1,0, 2,-1", rect)
    images = [transform_opening(rect, o, k) for k in range(4)]
    assert len({tuple(i) for i in images}) == 4 and all(_legal_mnk(rect, i) for i in images)


def test_reversi_images_keep_the_start_so_every_image_is_legal():
    from engine.reversi.board.rules import ReversiConfig, ReversiState
    from referee.games.openings import symmetries, transform_opening

    cfg = ReversiConfig(8)
    assert symmetries(cfg) == 4
    for seed in range(20):
        o = random_opening(cfg, 5, random.Random(seed))
        images = [transform_opening(cfg, o, k) for k in range(4)]
        assert len({tuple(i) for i in images}) == 4
        for i in images:
            state = ReversiState(8)
            for m in i:
                state.apply(m)  # raises on an illegal move
    # a pass stays a pass
    assert transform_opening(cfg, [64], 2) == [64]


def test_a_pair_shares_its_transformed_opening_and_a_file_yields_every_image():
    book = [parse_opening("0,0, 1,0, 2,-1", C15), parse_opening("0,0, 1,1, 3,0", C15)]
    seen = set()
    for g in range(1, 2 * 16 + 1, 2):
        a = opening_for_game(g, book, 0, C15, 0, transform=True)
        assert a == opening_for_game(g + 1, book, 0, C15, 0, transform=True)
        seen.add(tuple(a))
    assert len(seen) == 16  # 2 openings in 8 images each, before any repeats
    # the first pass through the file is the file itself, as without --transform
    assert [opening_for_game(g, book, 0, C15, 0, transform=True) for g in (1, 3)] == book
    for g in range(1, 41, 2):
        r = opening_for_game(g, None, (2, 4), C15, 7, transform=True)
        assert r == opening_for_game(g + 1, None, (2, 4), C15, 7, transform=True)
        plain = opening_for_game(g, None, (2, 4), C15, 7)
        assert len(r) == len(plain) and _legal_mnk(C15, r)
    transformed = [opening_for_game(g, None, (2, 4), C15, 7, transform=True) for g in range(1, 41, 2)]
    assert transformed != [opening_for_game(g, None, (2, 4), C15, 7) for g in range(1, 41, 2)]


def test_openings_order_and_start():
    book = [[m] for m in range(10)]
    seq = [opening_for_game(g, book, 0, C15, 3, start=4)[0] for g in range(1, 21, 2)]
    assert seq == [3, 4, 5, 6, 7, 8, 9, 0, 1, 2]
    shuffled = [opening_for_game(g, book, 0, C15, 3, order="random")[0] for g in range(1, 21, 2)]
    assert sorted(shuffled) == list(range(10)) and shuffled != list(range(10))  # each once, in another order
    assert shuffled == [opening_for_game(g, book, 0, C15, 3, order="random")[0] for g in range(1, 21, 2)]
    assert shuffled != [opening_for_game(g, book, 0, C15, 4, order="random")[0] for g in range(1, 21, 2)]
    started = [opening_for_game(g, book, 0, C15, 3, order="random", start=2)[0] for g in range(1, 21, 2)]
    assert started == shuffled[1:] + shuffled[:1]


def test_random_order_needs_and_prints_a_seed(tmp_path):
    from referee.match.schedule import Schedule
    from referee.match.settings import MatchSettings
    from referee.seats.spec import EngineSpec

    book = tmp_path / "book.txt"
    book.write_text("0,0\n0,0, 1,1\nh8i9j7\n")
    s = _cli_settings("--openings", str(book), "--openings-order", "random", "--transform")
    assert s.openings_order == "random" and s.transform and s.seeded
    resolved = Schedule((EngineSpec.parse("random"),) * 2, s).settings
    assert resolved.seed is not None
    assert f"seed {resolved.seed}" in resolved.openings_text() and "8 symmetric images" in resolved.openings_text()
    assert not MatchSettings(openings=((1,),)).seeded  # a file in file order needs no seed
    assert _cli_settings("--openings", str(book), "--openings-start", "3").opening_of(1) == \
        parse_opening("h8i9j7", C15)


@pytest.mark.parametrize("args,msg", [
    (["--openings-order", "random"], "--openings FILE"),
    (["--openings-start", "2"], "--openings FILE"),
    (["--openings", "BOOK", "--openings-start", "4"], "has 3 openings"),
])
def test_bad_openings_options(tmp_path, capsys, args, msg):
    book = tmp_path / "book.txt"
    book.write_text("0,0\n0,0, 1,1\nh8i9j7\n")
    with pytest.raises(SystemExit):
        _cli_settings(*[str(book) if a == "BOOK" else a for a in args])
    assert msg in capsys.readouterr().err


@pytest.mark.parametrize("make,said", [
    (lambda d: d / "missing.txt", "missing.txt: no such file or directory"),
    (lambda d: d, ": is a directory"),
    (lambda d: _write(d / "prog", b"\x7fELF\x02\x01\x01\x00\x00\x00junk\n"), "prog: not a text file"),
    (lambda d: _write(d / "latin1.txt", "0,0 # caf\xe9\n".encode("latin-1")), "latin1.txt: not a text file"),
])
def test_an_openings_file_that_cannot_be_read_is_one_sentence(tmp_path, capsys, make, said):
    path = make(tmp_path)
    with pytest.raises(SystemExit) as info:
        _cli_settings("--openings", str(path))
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert info.value.code == 2 and err.startswith(f"referee: error: --openings {path}") and said in err
    assert "Errno" not in err and "ELF" not in err and "\\x" not in err


def _write(path, data: bytes):
    path.write_bytes(data)
    return path


def _cli_settings(*argv):
    from referee.cli.match import _settings, build_parser

    p = build_parser()
    return _settings(p.parse_intermixed_args(list(argv)), p)
