"""``MnkEngine.rank_moves``: the multi-PV ranking behind Yixin-Board's nbest, defend and
balance commands, for both trees (the C tree in guided mode, the generic MCTS in uct)."""

from __future__ import annotations

import pytest

from engine.api import open_engine, options_for
from engine.mnk.board.rules import Board, GameConfig
from engine.search.limits import Limits

CFG = GameConfig(15, 15, 5)


def board(*cells: tuple[int, int]) -> Board:
    b = Board(CFG)
    for x, y in cells:
        b.play(CFG.move(x, y))
    return b


@pytest.mark.parametrize("mode", ["guided", "uct"])
def test_each_ranked_move_has_its_own_playable_line(mode):
    engine = open_engine(CFG, options_for(CFG, mode), seed=3)
    b = board((7, 7), (8, 8))
    infos = []
    result, ranked = engine.rank_moves(b, Limits(nodes=3000), 4, on_info=infos.append)
    assert len(ranked) == 4 and len({r.move for r in ranked}) == 4
    assert ranked[0].move == result.move and ranked[0].pv == result.pv
    for r in ranked:
        assert r.pv[0] == r.move and 0.0 <= r.value <= 1.0
        line = b.copy()
        for m in r.pv:  # the line is a sequence of legal moves from the position
            assert line.is_empty(m) and not line.is_over
            line.play(m)
    assert len(ranked[1].pv) > 1  # a searched alternative shows the reply it expects
    assert infos and all(0 < len(i.ranked) <= 4 for i in infos)
    assert infos[-1].ranked[0].move == result.move


@pytest.mark.parametrize("mode", ["guided", "uct"])
def test_no_count_ranks_every_root_move(mode):
    engine = open_engine(CFG, options_for(CFG, mode), seed=5)
    _, ranked = engine.rank_moves(board((7, 7)), Limits(nodes=1500), None)
    assert len(ranked) == len(engine.root_children()) > 4


def test_a_forced_win_is_the_ranking_alone_or_first():
    # Black has an open four: the win is ranked first, proven.
    engine = open_engine(CFG, options_for(CFG, "guided"), seed=1)
    b = board((5, 7), (5, 0), (6, 7), (6, 0), (7, 7), (7, 0), (8, 7), (9, 1))
    result, ranked = engine.rank_moves(b, Limits(nodes=2000), 3)
    assert result.proven == "win" and ranked[0].move == result.move
    assert ranked[0].proven == "win" and CFG.xy(ranked[0].move) in ((4, 7), (9, 7))
