"""Statistics checked against values worked out by hand (arithmetic shown in comments)."""

import math
from statistics import NormalDist

import pytest

from referee.match.stats import (Sprt, Tally, elo_from_score, elo_interval, los, score, score_from_elo,
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


def test_elo_interval_stays_wide_and_finite_on_tiny_samples():
    # 4 draws: a zero count counts 0.5 for the spread only: W=0.5 D=4 L=0.5, s = 0.5,
    # var = (0.5*0.25 + 0 + 0.5*0.25) / 5 = 0.05, margin = 1.959964 * sqrt(0.05/4) = 0.219131
    # high = 400 log10(0.719131/0.280869) = 163.3
    elo, lo, hi = elo_interval(0, 4, 0)
    assert elo == 0.0
    assert hi == pytest.approx(400 * math.log10(0.719131 / 0.280869), abs=1e-2) and lo == pytest.approx(-hi)
    assert hi == pytest.approx(163.3, abs=0.1)
    # one loss: W=0.5 D=0.5 L=1, s' = 0.375, var = (0.5*0.625^2 + 0.5*0.125^2 + 0.375^2)/2 = 0.171875,
    # margin = 1.959964 * sqrt(0.171875) = 0.812557: no lower bound, high = 400 log10(0.812557/0.187443)
    elo, lo, hi = elo_interval(0, 0, 1)
    assert elo == -math.inf and lo == -math.inf
    assert hi == pytest.approx(400 * math.log10(0.812557 / 0.187443), abs=1e-2)
    assert hi == pytest.approx(254.8, abs=0.1)
    # all wins mirror all losses
    for n in (1, 3, 10):
        elo, lo, hi = elo_interval(n, 0, 0)
        elo2, lo2, hi2 = elo_interval(0, 0, n)
        assert elo == math.inf and hi == math.inf and elo2 == -math.inf and lo2 == -math.inf
        assert lo == pytest.approx(-hi2) and math.isfinite(lo)
    # more losses, tighter (and lower) bound; still finite
    bounds = [elo_interval(0, 0, n)[2] for n in (1, 3, 10, 40)]
    assert bounds == sorted(bounds, reverse=True) and bounds[-1] < -300 and all(map(math.isfinite, bounds))
    # more draws, narrower interval, never zero width
    widths = [elo_interval(0, n, 0)[2] for n in (1, 4, 20, 100)]
    assert widths == sorted(widths, reverse=True) and widths[-1] > 0
    assert elo_interval(0, 0, 0) == (0.0, -math.inf, math.inf)


def test_a_full_sample_gives_the_usual_interval():
    # every cell filled: exactly the trinomial normal interval (values worked out above)
    assert elo_interval(30, 40, 30)[2] == pytest.approx(53.158, abs=1e-2)
    w, d, l = 12, 3, 5
    n = w + d + l
    s = (w + d / 2) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s ** 2) / n
    m = 1.959964 * math.sqrt(var / n)
    assert elo_interval(w, d, l) == pytest.approx(
        (elo_from_score(s), elo_from_score(s - m), elo_from_score(s + m)), abs=1e-3)
