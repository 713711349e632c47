"""The m,n,k self-play games (lab.mnk_selfplay): the same from the same seed, ended as recorded."""

import gzip
import json

from engine.mnk.board.rules import Board, GameConfig
from lab import mnk_selfplay

SMALL = GameConfig.square(9, 4)


def test_a_game_is_the_same_from_the_same_seed_and_ends_as_recorded():
    a = mnk_selfplay.play_game(SMALL, 3, 0, 60, 4, 6, 0.5)
    b = mnk_selfplay.play_game(SMALL, 3, 0, 60, 4, 6, 0.5)
    other = mnk_selfplay.play_game(SMALL, 3, 1, 60, 4, 6, 0.5)
    assert a == b and a["moves"] != other["moves"]
    assert 2 <= a["opening"] <= 4
    board = Board(SMALL)
    for x, y in a["moves"]:
        assert not board.is_over
        board.play(SMALL.move(x, y))
    assert board.is_over and a["winner"] == (0 if board.winner is None else int(board.winner))


def test_the_command_writes_every_game(tmp_path):
    out = tmp_path / "games.jsonl.gz"
    assert mnk_selfplay.main(["--games", "3", "--seed", "5", "--nodes", "40", "--size", "9",
                              "--win-length", "4", "--out", str(out)]) == 0
    with gzip.open(out, "rt") as f:
        games = [json.loads(line) for line in f]
    assert [g["game"] for g in games] == [0, 1, 2]
    assert games[0] == mnk_selfplay.play_game(SMALL, 5, 0, 40, 5, 12, 0.1)  # the defaults
    assert all(g["winner"] in (0, 1, 2) and len(g["moves"]) > g["opening"] for g in games)
