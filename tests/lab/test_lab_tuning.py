"""Fitting the evaluation weights (lab.tuning) and the shipped label data."""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from lab import tuning
from engine.mnk.evaluation import OPPONENT_WEIGHTS, OWN_WEIGHTS, TEMPO, LineEvaluator
from engine.mnk.rules import GameConfig

DATA = Path(__file__).resolve().parents[2] / "data" / "rapfi-labels-15x15.jsonl.gz"


def test_win_chance_reads_scores_and_mates():
    assert tuning.win_chance("0") == pytest.approx(0.5)
    assert tuning.win_chance("200") == pytest.approx(1 / (1 + np.exp(-1)))
    assert tuning.win_chance("+M7") == 1.0 and tuning.win_chance("M3") == 1.0
    assert tuning.win_chance("-M12") == 0.0
    assert tuning.win_chance(None) is None and tuning.win_chance("junk") is None


def test_replay_rejects_bad_records():
    good = {"moves": [[7, 7], [8, 8]], "best": [7, 8], "eval": "12"}
    item = tuning.replay(good)
    assert item is not None and item.board.stone_count == 2 and not item.forced
    assert tuning.replay(dict(good, best=[7, 7])) is None  # occupied
    assert tuning.replay(dict(good, moves=[[7, 7], [7, 7]])) is None  # doubled stone
    assert tuning.replay(dict(good, moves=[[20, 1]])) is None  # off the board
    assert tuning.replay({"moves": "x"}) is None
    five = [[j // 2, 0] if j % 2 == 0 else [j // 2, 5] for j in range(9)]
    assert tuning.replay(dict(good, moves=five)) is None  # the game is over


@pytest.mark.slow
def test_evaluation_fit_recovers_known_weights():
    rng = np.random.default_rng(5)
    true = np.array([0.5, 0.2, 0.05, 0.01, -0.6, -0.3, -0.05, -0.01])
    x = rng.integers(0, 12, size=(4000, 8)).astype(float)
    y = 1 / (1 + np.exp(-(x @ true + 0.4)))
    own, opp, tempo = tuning.fit_evaluation(x, y, iters=4000)
    assert np.allclose(own[1:3], true[:2], atol=0.05)
    assert np.allclose(opp[1:3], true[4:6], atol=0.05)
    assert tempo == pytest.approx(0.4, abs=0.15)


@pytest.mark.slow
def test_shipped_weights_beat_the_former_hand_set_evaluation_on_the_data():
    # The engine's evaluation must predict the labelling engine's verdict better than the
    # hand-set weights it replaced (6x per stone, tempo 1.5 on the mover, scale 12).
    cfg = GameConfig.square(15, 5)
    ev = LineEvaluator(cfg)
    xs, ys = [], []
    with gzip.open(DATA, "rt") as f:
        for i, line in enumerate(f):
            if i >= 1500:
                break
            item = tuning.replay(json.loads(line))
            if item is not None and item.win_chance is not None:
                xs.append(tuning.window_features(item.board))
                ys.append(item.win_chance)
    x, y = np.array(xs), np.array(ys)
    fitted = 1 / (1 + np.exp(-tuning.evaluation_logit(x, OWN_WEIGHTS, OPPONENT_WEIGHTS, TEMPO)))
    base = np.array([1 / 6, 1, 6, 36])
    old = 1 / (1 + np.exp(-((x[:, :4] * base).sum(axis=1) * 1.5 - (x[:, 4:] * base).sum(axis=1)) / 12))
    right = lambda p: np.mean((p > 0.5) == (y > 0.5))  # noqa: E731
    assert right(fitted) > right(old) + 0.04
    # And the vectorised evaluator computes exactly the fitted model.
    assert ev.own[4] == OWN_WEIGHTS[1] and ev.opponent[1] == OPPONENT_WEIGHTS[4]
