"""The m,n,k self-play games (lab.mnk_selfplay): the same from the same seed, ended as recorded."""

import gzip
import json

from engine.mnk.board.rules import Board, GameConfig
from lab import mnk_labels, mnk_selfplay

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


def test_a_game_records_its_own_searches_as_the_labels_of_its_positions():
    game = mnk_selfplay.play_game(SMALL, 4, 0, 60, 3, 0, 0.0)  # no exploring: the search's move is played
    rows = mnk_labels.own_labels(game)
    assert len(game["searches"]) == len(rows) == len(game["moves"]) - game["opening"]
    board = Board(SMALL)
    for x, y in game["moves"][: game["opening"]]:
        board.play(SMALL.move(x, y))
    for row, (x, y) in zip(rows, game["moves"][game["opening"]:]):
        assert row["moves"] == [list(m) for m in board_moves(board)]
        assert row["to_move"] == int(board.to_move) and row["winner"] == game["winner"]
        assert row["best"] == [x, y] and 0.0 <= row["value"] <= 1.0
        assert all(board.is_empty(SMALL.move(vx, vy)) for vx, vy, _ in row["visits"])
        if row["proven"] == "win":
            assert row["value"] == 1.0
        board.play(SMALL.move(x, y))
    # The last mover won with the move its search proved (a game ends on a win or a full board).
    if game["winner"]:
        assert rows[-1]["to_move"] == game["winner"] and rows[-1]["proven"] == "win"


def board_moves(board: Board) -> list[tuple[int, int]]:
    return [SMALL.xy(m) for m in board.history]
