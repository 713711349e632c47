"""Positions built by the protocol: blocked cells, rule changes mid-game, the quick move."""

from __future__ import annotations

import pytest

from engine.mnk.board.rules import Board, GameConfig, Player, Rule
from protocol.gomocup.position import blocked_cells, make_board, quick_move, rebuild


def test_make_board_checks_counts_and_finished_games():
    cfg = GameConfig.square(9, 4)
    b = make_board(cfg, [(1, 1, Player.FIRST), (2, 2, Player.SECOND)], [], Player.FIRST)
    assert b.stone_count == 2 and b.to_move is Player.FIRST
    with pytest.raises(ValueError, match="impossible"):
        make_board(cfg, [(1, 1, Player.FIRST), (2, 2, Player.FIRST)], [], Player.FIRST)
    with pytest.raises(ValueError, match="already over"):
        make_board(cfg, [(x, 0, Player.FIRST) for x in range(4)] + [(x, 5, Player.SECOND) for x in range(4)],
                   [], Player.FIRST)


def test_blocked_cells_break_lines_and_are_not_playable():
    cfg = GameConfig.square(7, 4)
    # a finished line (field 3) on row 0, first player stones beside it on row 1
    b = make_board(cfg, [(0, 1, Player.FIRST), (1, 1, Player.FIRST), (2, 1, Player.FIRST)],
                   [(x, 0) for x in range(4)], Player.FIRST)
    assert b.empty_count == 49 - 7
    assert sorted(blocked_cells(b)) == [(x, 0) for x in range(4)]
    assert all(not b.is_empty(cfg.move(x, 0)) for x in range(4))
    assert cfg.move(3, 1) in b.winning_cells(Player.FIRST)
    assert quick_move(b) == cfg.move(3, 1)
    # a blocked cell interrupts a line: three + blocked + one is no four
    b2 = make_board(cfg, [(0, 3, Player.FIRST), (1, 3, Player.FIRST), (2, 3, Player.FIRST)],
                    [(3, 3)], Player.FIRST)
    assert cfg.move(4, 3) not in b2.winning_cells(Player.FIRST)
    with pytest.raises(ValueError, match="two stones"):
        make_board(cfg, [(0, 0, Player.FIRST)], [(0, 0)], Player.SECOND)


def test_rebuild_keeps_history_and_judges_the_final_position():
    free = GameConfig.square(9, 4)
    b = Board(free)
    for x, y in [(0, 0), (8, 8), (1, 0), (8, 7), (2, 0), (8, 6)]:
        b.play(free.move(x, y))
    exact = GameConfig(9, 9, 4, Rule.EXACT)
    nb = rebuild(b, exact)
    assert nb.config == exact and nb.history == b.history and nb.to_move == b.to_move
    assert nb.stones() == b.stones()
    # four in a row is harmless under k=5 but a finished game under k=4: refused
    done = Board(GameConfig.square(9, 5))
    for x, y in [(0, 0), (0, 8), (1, 0), (1, 8), (2, 0), (2, 8), (3, 0), (3, 8)]:
        done.play(done.config.move(x, y))
    with pytest.raises(ValueError, match="already over"):
        rebuild(done, GameConfig.square(9, 4))
    with pytest.raises(ValueError, match="size"):
        rebuild(b, GameConfig.square(10, 4))


def test_rebuild_to_caro_sees_blocks_placed_after_the_line():
    """Under caro a four blocked at both ends is no win, whatever order the stones came in."""
    caro = GameConfig(9, 9, 4, Rule.CARO)
    # first player's four 2..5 on row 4, the blocks at 1 and 6 given last (BOARD order)
    stones = [(x, 4, Player.FIRST) for x in range(2, 6)] + [(1, 4, Player.SECOND), (6, 4, Player.SECOND),
                                                             (0, 0, Player.SECOND), (8, 8, Player.SECOND)]
    free = GameConfig.square(9, 5)  # under k=5 freestyle the four is harmless
    b = make_board(free, [(8, 0, Player.FIRST)] + stones, [], Player.SECOND)
    nb = rebuild(b, caro)
    assert nb.winner is None and nb.config.rule is Rule.CARO
    with pytest.raises(ValueError, match="already over"):
        rebuild(b, GameConfig.square(9, 4))  # freestyle k=4: the blocked four wins


def test_quick_move_prefers_win_then_block_then_centre():
    cfg = GameConfig.square(9, 4)
    b = Board(cfg)
    assert quick_move(b) == cfg.move(4, 4)
    b = make_board(cfg, [(0, 8, Player.FIRST), (1, 8, Player.FIRST), (2, 8, Player.FIRST),
                         (5, 5, Player.SECOND), (5, 6, Player.SECOND), (5, 7, Player.SECOND)], [], Player.FIRST)
    assert quick_move(b) == cfg.move(3, 8)  # win beats block
    b.to_move = Player.SECOND
    assert quick_move(b) in (cfg.move(5, 4), cfg.move(5, 8))  # second player wins too
    full = make_board(GameConfig.square(3, 3), [(0, 0, Player.FIRST)], [(x, y) for x in range(3) for y in range(3)
                                                                       if (x, y) != (0, 0)], Player.SECOND)
    with pytest.raises(ValueError):
        quick_move(full)
