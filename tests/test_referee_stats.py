"""Statistics checked against values worked out by hand (arithmetic shown in comments)."""

import math
from statistics import NormalDist

import pytest

from referee.stats import (Sprt, Tally, elo_from_score, elo_interval, los, score, score_from_elo,
                           sprt_bounds, sprt_llr)


def test_elo_of_known_scores():
    # 0.75: -400 log10(1/0.75 - 1) = 400 log10(3) = 400 * 0.4771213 = 190.8485
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-3)
    assert elo_from_score(0.25) == pytest.approx(-190.8485, abs=1e-3)
    assert elo_from_score(0.5) == 0.0 and str(elo_from_score(0.5)) == "0.0"
    # 0.9: 400 log10(9) = 400 * 0.9542425 = 381.697
    assert elo_from_score(0.9) == pytest.approx(381.697, abs=1e-2)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    for elo in (-300, -50, 0, 12.5, 400):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


def test_score():
    assert score(3, 2, 1) == pytest.approx(4 / 6)
    assert score(0, 0, 0) == 0.5


def test_elo_interval_by_hand():
    # W=30 D=40 L=30: s = 0.5; per-game variance = (30*0.25 + 40*0 + 30*0.25)/100 = 0.15
    # margin = 1.96 * sqrt(0.15/100) = 1.959964 * 0.0387298 = 0.0759090
    # high = elo(0.5759090) = 400 log10(0.575909/0.424091) = 400 * 0.1328949 = 53.158
    elo, lo, hi = elo_interval(30, 40, 30)
    assert elo == 0.0
    assert hi == pytest.approx(53.158, abs=1e-2) and lo == pytest.approx(-53.158, abs=1e-2)
    # W=60 D=20 L=20: s = 0.7, var = (60*0.09 + 20*0.04 + 20*0.49)/100 = 0.16
    # margin = 1.959964 * 0.04 = 0.0783986 -> [0.6216014, 0.7783986]
    elo, lo, hi = elo_interval(60, 20, 20)
    assert elo == pytest.approx(400 * math.log10(0.7 / 0.3))
    assert lo == pytest.approx(400 * math.log10(0.6216014 / 0.3783986), abs=1e-3)
    assert hi == pytest.approx(400 * math.log10(0.7783986 / 0.2216014), abs=1e-3)
    assert elo_interval(0, 0, 0) == (0.0, -math.inf, math.inf)


def test_los_matches_the_normal_cdf():
    # LOS = Phi((W - L) / sqrt(W + L)); 10 vs 5: Phi(5 / sqrt(15)) = Phi(1.290994) = 0.90164
    assert los(10, 5) == pytest.approx(0.90164, abs=1e-4)
    assert los(10, 5) == pytest.approx(NormalDist().cdf(5 / math.sqrt(15)))
    assert los(5, 10) == pytest.approx(1 - los(10, 5))
    assert los(0, 0) == 0.5 and los(7, 7) == 0.5


def test_sprt_bounds():
    lo, hi = sprt_bounds(0.05, 0.05)
    # ln(0.05/0.95) = -ln(19) = -2.944439
    assert lo == pytest.approx(-2.944439, abs=1e-6) and hi == pytest.approx(2.944439, abs=1e-6)
    lo, hi = sprt_bounds(0.05, 0.1)
    assert lo == pytest.approx(math.log(0.1 / 0.95)) and hi == pytest.approx(math.log(0.9 / 0.05))
    with pytest.raises(ValueError):
        sprt_bounds(0, 0.05)


def test_sprt_llr_by_hand():
    # W=60 D=20 L=20, elo0=0, elo1=10: s = 0.7, var = 0.16 (see above),
    # s0 = 0.5, s1 = 1/(1 + 10^(-10/400)) = 0.5143868
    # LLR = 100 * (0.0143868) * (1.4 - 0.5 - 0.5143868) / (2 * 0.16)
    #     = 100 * 0.0143868 * 0.3856132 / 0.32 = 1.73367
    assert sprt_llr(60, 20, 20, 0, 10) == pytest.approx(1.73367, abs=1e-4)
    # symmetric results favour neither hypothesis' side of the midpoint: s = 0.5 < (s0+s1)/2
    assert sprt_llr(30, 40, 30, 0, 10) < 0
    assert sprt_llr(0, 0, 0, 0, 10) == 0.0


def test_sprt_decides_and_pure_losses_need_several_games():
    sprt = Sprt(0, 10)
    assert sprt.state(600, 200, 200).decision == "H1"
    assert sprt.state(200, 200, 600).decision == "H0"
    assert sprt.state(60, 20, 20).decision is None
    assert sprt.state(0, 0, 3).decision is None  # one or three games never decide
    assert sprt.state(0, 0, 40).decision == "H0"
    with pytest.raises(ValueError):
        Sprt(10, 0)


def test_tally_by_colour():
    t = Tally()
    for s, first in [(1, True), (1, False), (0.5, True), (0, False), (0, True)]:
        t.add(s, first)
    assert (t.wins, t.draws, t.losses, t.games) == (2, 1, 2, 5)
    assert t.as_x == (1, 1, 1) and t.as_o == (1, 0, 1)
    assert t.score() == pytest.approx(0.5)
