"""The static line evaluation of guided mode (engine.mnk.evaluation)."""

import numpy as np
import pytest

from engine.mnk.engine import MnkEngine
from engine.mnk.options import MnkOptions
from engine.mnk.evaluation import OPPONENT_WEIGHTS, OWN_WEIGHTS, TEMPO, LineEvaluator
from engine.search.limits import Limits
from engine.mnk.rules import Board, GameConfig


def _boards(config, *stone_lists):
    out = np.zeros((len(stone_lists), config.area), dtype=np.int8)
    for i, stones in enumerate(stone_lists):
        for (x, y), p in stones:
            out[i, y * config.width + x] = p
    return out


CFG = GameConfig.square(15, 5)


def test_empty_board_is_worth_the_tempo_to_either_side():
    ev = LineEvaluator(CFG)
    v = ev.values(_boards(CFG, [], []), np.array([1, 2]))
    # Nothing to score: only having the move counts, the same for both colours.
    assert v[0] == pytest.approx(v[1]) == pytest.approx(1.0 / (1.0 + np.exp(-TEMPO)))


def test_more_and_fuller_live_windows_score_higher():
    ev = LineEvaluator(CFG)
    two = [((7, 7), 1), ((8, 7), 1)]
    three = two + [((9, 7), 1)]
    blocked_three = three + [((6, 7), 2), ((10, 7), 2)]
    v = ev.values(_boards(CFG, two, three, blocked_three), np.array([1, 1, 1]))
    assert v[1] > v[0] > 0.5
    # Blocking both ends kills the horizontal windows: the three is worth less than open.
    assert v[2] < v[1]
    # The same stones seen by the opponent, to move: worse for it the stronger they are.
    w = ev.values(_boards(CFG, two, three), np.array([2, 2]))
    assert w[1] < w[0]


def test_weights_depend_on_stones_missing_not_on_k():
    # A window one stone short of K weighs the same for every K.
    for k in (4, 5, 6):
        ev = LineEvaluator(GameConfig.square(9, k))
        assert ev.own[k - 2] == pytest.approx(OWN_WEIGHTS[2])
        assert ev.opponent[k - 1] == pytest.approx(OPPONENT_WEIGHTS[1])
        assert ev.own[0] == ev.own[k] == 0.0  # empty and full windows count for nothing


def test_value_is_from_the_side_to_move_and_symmetric():
    ev = LineEvaluator(CFG)
    three = [((7, 7), 1), ((8, 7), 1), ((9, 7), 1), ((3, 3), 2)]
    mirrored = [(xy, 3 - p) for xy, p in three]
    b = _boards(CFG, three, mirrored)
    v1 = ev.values(b, np.array([1, 2]))  # the owner of the three to move, in both colours
    v2 = ev.values(b, np.array([2, 1]))  # its opponent to move
    assert v1[0] == pytest.approx(v1[1]) and v1[0] > 0.75
    assert v2[0] == pytest.approx(v2[1]) and v2[0] < 0.4


@pytest.mark.parametrize("k", [3, 4, 6])
def test_other_win_lengths_have_finite_sensible_values(k):
    cfg = GameConfig.square(9, k)
    ev = LineEvaluator(cfg)
    stones = [((x, 4), 1) for x in range(k - 1)] + [((0, 0), 2)]
    v = ev.values(_boards(cfg, stones), np.array([1]))
    assert 0.5 < v[0] < 1.0


@pytest.mark.slow
def test_playout_limit_ends_an_evaluation_only_search():
    # Evaluated leaves count as playouts, so a playout limit stops the search.
    opts = MnkOptions.guided().with_values({"eval_weight": 1.0, "native.enabled": False})
    res = MnkEngine(CFG, opts, seed=3).search(Board(CFG), Limits(playouts=3000))
    assert 3000 <= res.playouts < 3000 + 64 * 16 and res.reason == "playouts"


def test_eval_weight_is_validated_and_mode_dependent():
    assert MnkOptions.uct().leaves.eval_weight == 0.0
    assert MnkOptions.guided().leaves.eval_weight > 0.0
    with pytest.raises(ValueError):
        MnkOptions.guided().with_values({"eval_weight": 1.5})
