"""Shape classes and the fitted shape priors (engine.mnk.shapes)."""

import numpy as np
import pytest

from engine.mnk import shapes
from engine.mnk.patterns import geometry, window_counts
from engine.mnk.rules import Board, GameConfig

CFG = GameConfig.square(15, 5)


def _board(stones, cfg=CFG):
    return Board.from_stones(cfg, [(x, y, p) for (x, y), p in stones])


def _classes(board, player, xy):
    c1, c2 = window_counts(geometry(board.config), board.cells)
    own, opp = (c1, c2) if player == 1 else (c2, c1)
    cell = board.config.padded(board.config.move(*xy))
    return shapes.shape_classes(board.config, own, opp, np.array([cell]))[0]


def _cls(r, n):
    return 1 + r * shapes.OPENNESS + min(n, shapes.OPENNESS) - 1


def test_open_three_end_makes_an_open_four_and_a_blocked_one_a_closed_four():
    three = [((6, 7), 1), ((7, 7), 1), ((8, 7), 1), ((0, 0), 2), ((14, 14), 2), ((0, 14), 2)]
    b = _board(three)
    assert _classes(b, 1, (9, 7))[0] == _cls(1, 2)  # horizontal: two windows one stone short
    blocked = _board(three[:3] + [((5, 7), 2), ((14, 14), 2), ((0, 14), 2)])
    assert _classes(blocked, 1, (9, 7))[0] == _cls(1, 1)
    # The other directions through (9, 7) hold no stone of player 1: four stones missing.
    assert list(_classes(b, 1, (9, 7))[1:]) == [_cls(4, 3)] * 3


def test_completing_cell_and_dead_direction():
    four = [((3, 3), 1), ((4, 3), 1), ((5, 3), 1), ((6, 3), 1), ((2, 3), 2), ((9, 9), 2), ((10, 10), 2)]
    b = _board(four)
    assert _classes(b, 1, (7, 3))[0] == _cls(0, 1)
    # On a 5-wide board the only horizontal window through (2, 2) holds player 1's stones.
    small = GameConfig.square(5, 5)
    row = _board([((0, 2), 1), ((4, 2), 1), ((0, 0), 2)], small)
    assert _classes(row, 2, (2, 2))[0] == 0


def test_strongest_pair_is_order_independent():
    a = np.array([[_cls(1, 2), _cls(2, 3), 0, _cls(4, 3)]])
    b = np.array([[0, _cls(4, 3), _cls(2, 3), _cls(1, 2)]])
    assert shapes.strongest_pair(a)[0] == shapes.strongest_pair(b)[0]
    c = np.array([[_cls(1, 2), _cls(1, 1), 0, 0]])
    assert shapes.strongest_pair(c)[0] != shapes.strongest_pair(a)[0]


def test_features_and_gathered_scores_agree():
    b = _board([((7, 7), 1), ((8, 8), 2), ((8, 7), 1), ((6, 6), 2), ((9, 7), 1)])
    cells = [c for c in geometry(CFG).board_cells if b.cells[c] == 0][:80]
    s = int(b.to_move)
    idx = shapes.feature_indices(CFG, b.cells, s, cells)
    assert idx.shape == (len(cells), 10)
    feats = np.zeros((len(cells), shapes.FEATURES))
    np.add.at(feats, (np.repeat(np.arange(len(cells)), 10), idx.ravel()), 1.0)
    # Four directions counted per side, and one strongest pair per side.
    assert np.all(feats[:, : shapes.CLASSES].sum(axis=1) == 4)
    assert np.all(feats[:, shapes.CLASSES : shapes.SIDE_FEATURES].sum(axis=1) == 1)
    logits = (feats * shapes.fitted_weights()).sum(axis=1)
    scores = shapes.shape_scores(CFG, b.cells, s, cells)
    expected = np.exp((logits - logits.max()) * shapes.SHARPNESS)
    assert np.allclose([scores[c] for c in cells], expected)


def _ranked(board, cand):
    sc = shapes.shape_scores(CFG, board.cells, int(board.to_move), cand)
    return sorted(sc, key=sc.get, reverse=True)


def _cells(*xys):
    return {CFG.padded(CFG.move(x, y)) for x, y in xys}


def test_fitted_priors_rank_the_forcing_cells_first():
    # (Completions are left to the searcher, which plays or blocks them exactly; the
    # priors are fitted on the other positions.)
    box = [CFG.padded(CFG.move(x, y)) for x in range(2, 13) for y in range(2, 13)]
    # Player 2 to move faces an open three: a cell that stops it is among the best four.
    stones = [((6, 7), 1), ((7, 7), 1), ((8, 7), 1), ((7, 8), 2), ((3, 10), 2)]
    b = _board(stones)
    cand = [c for c in box if b.cells[c] == 0]
    assert int(b.to_move) == 2 and _cells((5, 7), (9, 7)) & set(_ranked(b, cand)[:4])
    # Player 1 to move with an open three of its own and nothing to fear: make the open four.
    attack = _board(stones + [((11, 3), 2)])
    assert int(attack.to_move) == 1
    assert _ranked(attack, cand)[0] in _cells((5, 7), (9, 7))


@pytest.mark.parametrize("k", [3, 4, 6])
def test_other_win_lengths_give_finite_positive_priors(k):
    cfg = GameConfig.square(9, k)
    b = Board.from_stones(cfg, [(4, 4, 1), (5, 5, 2)])
    cells = [c for c in geometry(cfg).board_cells if b.cells[c] == 0]
    sc = shapes.shape_scores(cfg, b.cells, 1, cells)
    v = np.array(list(sc.values()))
    assert len(sc) == len(cells) and np.all(np.isfinite(v)) and np.all(v > 0) and v.max() == 1.0


def test_completions_outrank_everything_then_blocks():
    box = [CFG.padded(CFG.move(x, y)) for x in range(1, 14) for y in range(1, 14)]
    # Player 2 to move: its own four (7..10, 8) beats blocking player 1's open three.
    stones = [((6, 7), 1), ((7, 7), 1), ((8, 7), 1), ((2, 2), 1), ((3, 2), 1)]
    stones += [((7, 8), 2), ((8, 8), 2), ((9, 8), 2), ((10, 8), 2)]
    b = _board(stones)
    cand = [c for c in box if b.cells[c] == 0]
    assert _ranked(b, cand)[0] in _cells((6, 8), (11, 8))
    # Player 1 to move facing that four (its own three is not a four yet): block it.
    b1 = _board(stones + [((0, 14), 2)])
    assert int(b1.to_move) == 1
    assert set(_ranked(b1, cand)[:2]) == _cells((6, 8), (11, 8))


def test_priors_option_selects_the_knowledge_scores():
    from engine.api import Engine, EngineOptions
    from engine.search.limits import Limits

    assert EngineOptions(mode="guided").knowledge._scores.__name__ == "cell_scores"
    opts = EngineOptions(mode="guided", priors="shapes")
    assert opts.knowledge._scores is shapes.shape_scores
    with pytest.raises(ValueError):
        EngineOptions(mode="guided", priors="neural")
    # A guided search with the shape priors stops an open three like the default does.
    b = _board([((6, 7), 1), ((7, 7), 1), ((8, 7), 1), ((7, 8), 2), ((3, 10), 2), ((10, 10), 1), ((1, 1), 2)])
    assert int(b.to_move) == 2
    res = Engine(CFG, opts, seed=1).search(b, Limits(playouts=4000))
    assert CFG.xy(res.move) in {(5, 7), (9, 7), (4, 7), (10, 7)}
