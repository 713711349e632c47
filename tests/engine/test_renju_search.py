"""The search under renju: black never plays a forbidden point, and a forbidden defence is
no defence (the oracle, the threat knowledge and both modes)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.api import open_engine, options_for
from engine.mnk.board.cellsets import CellSets
from engine.mnk.threats.defence import defence_set, tactical_move
from engine.mnk.playouts.oracle import LineOracle
from engine.mnk.knowledge.patterns import LineState
from engine.mnk.board.rules import Board, GameConfig, Player, Rule
from engine.mnk.threats.solver import find_vcf
from engine.search.limits import Limits

RENJU = GameConfig.square(15, 5, Rule.RENJU)
FREE = GameConfig.square(15, 5, Rule.FREESTYLE)

#: Black's double three at (7,7): open twos on row 7 and column 7.
DOUBLE_THREE = [(5, 7), (6, 7), (7, 5), (7, 6)]
#: White's diagonal through (7,7), closed by black at (6,6) and (12,12): with (11,11) it is
#: a four whose only completion is (7,7), forbidden for black.
WHITE_DIAGONAL = [(8, 8), (9, 9), (10, 10), (0, 0), (14, 0)]
BLACK_ENDS = [(6, 6), (12, 12)]


def position(config, black, white, to_move) -> Board:
    return Board.from_stones(config, [(x, y, 1) for x, y in black] + [(x, y, 2) for x, y in white], to_move)


def forced_onto_forbidden(config) -> Board:
    """Black to move; white's four can only be blocked at black's forbidden (7,7)."""
    return position(config, DOUBLE_THREE + BLACK_ENDS, WHITE_DIAGONAL + [(11, 11)], Player.FIRST)


def test_oracle_calls_a_forbidden_only_block_a_loss():
    sets = CellSets(RENJU, 2)
    verdict = LineOracle(RENJU, sets).verdict(forced_onto_forbidden(RENJU), None, None)
    assert verdict.outcome.name == "LOSS"
    free = forced_onto_forbidden(FREE)
    assert LineOracle(FREE, CellSets(FREE, 2)).verdict(free, None, None).moves == [FREE.move(7, 7)]


def lost_with_one_legal_block(config) -> Board:
    """Black to move against two white fours: one completes only at black's forbidden (7,7),
    the other at (6,13), which black may play (and still loses)."""
    white_row = [(2, 13), (3, 13), (4, 13), (5, 13)]
    scattered = [(0, 10), (14, 7), (12, 3)]  # equal stone counts, black to move
    return position(config, DOUBLE_THREE + BLACK_ENDS + [(1, 13)] + scattered,
                    WHITE_DIAGONAL + [(11, 11)] + white_row, Player.FIRST)


def test_oracle_lists_only_the_blocks_black_may_play_in_a_lost_position():
    board = lost_with_one_legal_block(RENJU)
    assert board.forbidden(RENJU.move(7, 7)) == "double three"
    verdict = LineOracle(RENJU, CellSets(RENJU, 2)).verdict(board, None, None)
    assert verdict.outcome.name == "LOSS" and verdict.moves == [RENJU.move(6, 13)]
    free = lost_with_one_legal_block(FREE)
    assert LineOracle(FREE, CellSets(FREE, 2)).verdict(free, None, None).moves == sorted(
        [FREE.move(7, 7), FREE.move(6, 13)])


@pytest.mark.parametrize("mode, values", [("uct", {}), ("guided", {}), ("guided", {"native.enabled": False})],
                         ids=["uct", "guided", "guided-python"])
def test_a_lost_black_plays_a_legal_block_not_a_forbidden_one(mode, values):
    """The search's move in a proven loss is one black may play (every tree, both times)."""
    board = lost_with_one_legal_block(RENJU)
    for limits in (Limits(nodes=200), Limits(nodes=1)):
        result = open_engine(RENJU, options_for(RENJU, mode, values), seed=4).search(board, limits)
        assert result.proven == "loss"
        assert result.move == RENJU.move(6, 13)


def test_threat_knowledge_leaves_out_forbidden_points():
    board = forced_onto_forbidden(RENJU)
    st = LineState(RENJU, board.cells)
    wins = st.completing(2)
    assert wins == [RENJU.padded(RENJU.move(7, 7))]
    assert st.killers(2, wins) == []  # black's only block is forbidden: no defence
    assert tactical_move(board) is None
    # Without white's threat, the double-three point is no four/three/double threat of black's.
    quiet = position(RENJU, DOUBLE_THREE + BLACK_ENDS, WHITE_DIAGONAL, Player.SECOND)
    st = LineState(RENJU, quiet.cells)
    point = RENJU.padded(RENJU.move(7, 7))
    assert point not in [c for c, _ in st.threes(1)]
    free = position(FREE, DOUBLE_THREE + BLACK_ENDS, WHITE_DIAGONAL, Player.SECOND)
    assert FREE.padded(FREE.move(7, 7)) in [c for c, _ in LineState(FREE, free.cells).threes(1)]


def test_white_four_onto_a_forbidden_point_is_a_win_for_white():
    """White's VCF: the four at (11,11) leaves black only the forbidden (7,7)."""
    board = position(RENJU, DOUBLE_THREE + BLACK_ENDS, WHITE_DIAGONAL, Player.SECOND)
    line = find_vcf(board, 2, max_nodes=2000)
    assert line is not None and len(line) == 1  # one four that black cannot answer
    assert line == [RENJU.move(11, 11)]
    # Under freestyle black blocks at (7,7) (and gets a double three): no VCF there.
    free = position(FREE, DOUBLE_THREE + BLACK_ENDS, WHITE_DIAGONAL, Player.SECOND)
    assert find_vcf(free, 2, max_nodes=2000) is None


def test_black_defence_set_has_no_forbidden_point():
    board = forced_onto_forbidden(RENJU)
    assert defence_set(board) == set()


@pytest.mark.parametrize("mode", ["uct", "guided"])
def test_both_modes_never_play_a_forbidden_point(mode):
    """(7,7) would be black's best move (a double three) under freestyle; under renju the
    root does not even list it, and the search plays something else."""
    board = position(RENJU, DOUBLE_THREE + [(3, 11)], [(0, 0), (14, 0), (0, 14), (14, 14), (2, 2)], Player.FIRST)
    engine = open_engine(RENJU, options_for(RENJU, mode), seed=3)
    result = engine.search(board, Limits(nodes=200))
    point = RENJU.move(7, 7)
    assert result.move != point and board.forbidden(result.move) is None
    assert point not in [c.move for c in engine.root_children()]


@pytest.mark.parametrize("mode", ["uct", "guided"])
def test_both_modes_see_the_forbidden_defence_loss(mode):
    board = forced_onto_forbidden(RENJU)
    result = open_engine(RENJU, options_for(RENJU, mode), seed=1).search(board, Limits(nodes=100))
    assert result.move != RENJU.move(7, 7)
    assert result.proven == "loss"


def test_rollouts_score_blacks_overline_as_no_win():
    """The playouts' win rule: a black overline is no win, white's is."""
    from engine.mnk.playouts.rollout import RolloutKernel

    cfg = GameConfig(9, 5, 5, Rule.RENJU)
    # Row 0: X X X . X X . . . (black's gap makes six); row 4: the same for white.
    # Only the two gaps are empty; rows 1-3 are filled without any line of five.
    rows = ["XXX.XX" + "OXO", "OOXXOOXXO", "XXOOXXOOX", "OOXXOOXXO", "OOO.OO" + "XOX"]
    cells = np.array([".XO".index(ch) for row in rows for ch in row], dtype=np.int8)
    board = Board(cfg)
    for m, v in enumerate(cells):
        if v:
            board.place(m, int(v))
    board.to_move = Player.FIRST
    assert board.scan_winner() is None
    winners = RolloutKernel(cfg).run([(cells, 1)], 64, np.random.default_rng(0))
    # Black fills (3,0) (an overline, no win) or (3,4) (blocking white); either way black
    # never wins, and white wins exactly when black fills (3,0) first.
    assert set(np.unique(winners)) <= {0, 2}
    assert (winners == 2).any() and (winners == 0).any()


def test_guided_renju_runs_in_the_c_tree_where_it_is_built():
    from engine.mnk.threats import solver
    from engine.mnk.tree.native import NativeSearcher

    if solver._threatcore is None or not solver.USE_NATIVE:
        pytest.skip("the C extension was not built (or MNK_PURE_PYTHON is set)")
    engine = open_engine(RENJU, options_for(RENJU, "guided"), seed=1)
    assert isinstance(engine.tree, NativeSearcher)


#: Random renju games (black to move or white) where freestyle's best line puts black on a
#: point renju forbids: the positions where the rule changes what the search must see.
RULE_MATTERS = [
    [(5, 10), (4, 10), (9, 9), (4, 6), (4, 4), (5, 9), (8, 8), (4, 9), (5, 4), (7, 4), (6, 7), (6, 6), (4, 7), (8, 10)],
    [(8, 7), (5, 6), (10, 5), (9, 9), (10, 4), (6, 6), (9, 4), (5, 5), (7, 6), (4, 9)],
    [(9, 6), (6, 6), (7, 4), (6, 5), (4, 10), (9, 9), (8, 9), (4, 8), (10, 4), (5, 6), (9, 7), (10, 10), (10, 5),
     (10, 7), (7, 7), (8, 7)],
    [(4, 9), (4, 10), (8, 4), (7, 7), (7, 6), (10, 8), (7, 10), (8, 7), (5, 9), (10, 5)],
    [(7, 7), (5, 9), (6, 4), (8, 5), (5, 4), (10, 10), (9, 7), (6, 7), (5, 7), (7, 4), (10, 9), (4, 10), (4, 4), (7, 8)],
    [(8, 6), (7, 7), (5, 10), (5, 8), (6, 7), (5, 9), (9, 8), (8, 7), (9, 9), (9, 7), (6, 8), (9, 6), (10, 7), (7, 8)],
]


def _played(config: GameConfig, game) -> Board:
    board = Board(config)
    for x, y in game:
        board.apply(config.move(x, y))
    return board


def _first_forbidden(board: Board, line) -> int | None:
    """Where ``line`` (from ``board``) first puts black on a forbidden point, or None."""
    replay = board.clone()
    for i, m in enumerate(line):
        if replay.is_terminal():
            return None
        if replay.to_move is Player.FIRST and replay.forbidden(m):
            return i
        replay.apply(m)
    return None


def test_the_rule_matters_in_these_positions():
    """Freestyle's guided search would put black on a forbidden point in most of them."""
    hits = 0
    for game in RULE_MATTERS:
        free = _played(FREE, game)
        result = open_engine(FREE, options_for(FREE, "guided"), seed=2).search(free, Limits(nodes=3000))
        hits += _first_forbidden(_played(RENJU, game), result.pv) is not None
    assert hits >= 4


@pytest.mark.parametrize("mode", ["uct", "guided"])
def test_principal_variations_never_put_black_on_a_forbidden_point(mode):
    """Deep in the tree, not only at the root: no line the search reports puts black on a
    forbidden point, and the lines are long enough to say so."""
    depth = 0
    for game in RULE_MATTERS:
        board = _played(RENJU, game)
        engine = open_engine(RENJU, options_for(RENJU, mode), seed=2)
        result = engine.search(board, Limits(nodes=3000 if mode == "guided" else 400))
        assert _first_forbidden(board, [result.move] + result.pv[1:]) is None, game
        depth += len(result.pv)
    assert depth >= 2 * len(RULE_MATTERS)
