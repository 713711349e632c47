"""The pentanomial statistics of colour-swapped pairs: intervals, normalized Elo and the GSPRT."""

import math
import random

import pytest

from referee.match.pentanomial import (NELO_PER_T, PAIR_POINTS, Pairs, _mle_mean, _mle_t, _observed, gsprt_llr,
                                       nelo_interval, pair_interval)
from referee.match.stats import Sprt, elo_from_score


def test_a_pair_counts_by_engine1s_points():
    p = Pairs()
    for a, b in [(1, 1), (1, 0), (0.5, 0.5), (0, 0.5), (1, 0.5), (0, 0)]:
        p.add(a, b)
    assert p.counts == [1, 1, 2, 1, 1] and p.n == 6


def test_the_interval_and_normalized_elo_by_hand():
    # pairs LL, LD, WL/DD, WD, WW = 1, 2, 3, 2, 2: mean 0.55, variance 0.0975 (worked by hand)
    counts = [1, 2, 3, 2, 2]
    mu, var = 0.55, 0.1 * 0.55 ** 2 + 0.2 * 0.3 ** 2 + 0.3 * 0.05 ** 2 + 0.2 * 0.2 ** 2 + 0.2 * 0.45 ** 2
    assert var == pytest.approx(0.0975)
    margin = 1.959963984540054 * math.sqrt(var / 10)
    elo, lo, hi = pair_interval(counts)
    assert elo == pytest.approx(-400 * math.log10(1 / 0.55 - 1))  # +34.86
    assert (lo, hi) == pytest.approx((elo_from_score(mu - margin), elo_from_score(mu + margin)))
    nelo, nlo, nhi = nelo_interval(counts)
    assert nelo == pytest.approx((mu - 0.5) / math.sqrt(2 * var) * 800 / math.log(10))  # +39.34
    assert nlo < 0 < nelo < nhi


def test_elo_and_normalized_elo_are_unbounded_together():
    """One pair: neither interval can be bounded, and the summary must not bound one only."""
    for counts in ([0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]):
        _, lo, hi = pair_interval(counts)
        _, nlo, nhi = nelo_interval(counts)
        assert (math.isinf(lo), math.isinf(hi)) == (math.isinf(nlo), math.isinf(nhi)), counts
    assert nelo_interval([0, 0, 1, 0, 0]) == (0.0, -math.inf, math.inf)
    _, nlo, nhi = nelo_interval([1, 2, 3, 2, 2])
    assert math.isfinite(nlo) and math.isfinite(nhi)


def test_few_pairs_never_give_a_zero_width_interval():
    _, lo, hi = pair_interval([0, 0, 4, 0, 0])  # four drawn pairs: no spread observed
    assert lo < -50 and hi > 50
    assert pair_interval([0, 0, 0, 0, 0]) == (0.0, -math.inf, math.inf)


@pytest.mark.parametrize("counts", [[1, 2, 3, 2, 2], [10, 40, 100, 60, 20], [0, 5, 30, 6, 1], [3, 0, 9]])
@pytest.mark.parametrize("s", [0.45, 0.5, 0.5072])
def test_the_constrained_maximum_likelihood_is_a_stationary_point(counts, s):
    """The GSPRT's distributions: a distribution on the outcomes, of mean ``s``, where the
    likelihood's gradient lies in the span of the two constraints (n_i / q_i = lambda + mu a_i)."""
    pdf = _observed(counts, 1e-3)
    q = _mle_mean(pdf, s)
    assert sum(q) == pytest.approx(1.0) and min(q) > 0
    assert sum(qi * a for (a, _), qi in zip(pdf, q)) == pytest.approx(s)
    g = [p / qi for (_, p), qi in zip(pdf, q)]
    a = [a for a, _ in pdf]
    slope = (g[-1] - g[0]) / (a[-1] - a[0])
    assert all(gi == pytest.approx(g[0] + slope * (ai - a[0]), rel=1e-6) for gi, ai in zip(g, a))


def test_the_t_value_fit_has_the_t_value_asked_for():
    pdf = _observed([10, 40, 100, 60, 20], 1e-3)
    q = _mle_t(pdf, 0.05)
    mean = sum(qi * a for (a, _), qi in zip(pdf, q))
    sd = math.sqrt(sum(qi * (a - mean) ** 2 for (a, _), qi in zip(pdf, q)))
    assert (mean - 0.5) / sd == pytest.approx(0.05)


@pytest.mark.parametrize("counts,model,h0,h1,llr", [
    # the GSPRT as fishtest defines it (its published LLRcalc definitions evaluated independently)
    ([1, 2, 3, 2, 2], "logistic", 0, 5, 0.033833795287),
    ([10, 40, 100, 60, 20], "logistic", 0, 5, 1.103914777391),
    ([0, 5, 30, 6, 1], "logistic", 0, 5, 0.204191877723),
    ([30, 40, 100, 45, 28], "logistic", -1.75, 0.25, 0.018077203803),
    ([1, 2, 3, 2, 2], "normalized", 0, 5, 0.030318781560),
    ([10, 40, 100, 60, 20], "normalized", 0, 5, 0.783424341724),
    ([0, 5, 30, 6, 1], "normalized", 0, 5, 0.096646611775),
    ([30, 40, 100, 45, 28], "normalized", 0, 2, -0.000924200379),
])
def test_the_gsprt_log_likelihood_ratio(counts, model, h0, h1, llr):
    assert gsprt_llr(counts, h0, h1, model) == pytest.approx(llr, rel=1e-6)


def test_the_llr_grows_with_evidence_for_h1_and_is_zero_without_data():
    assert gsprt_llr([0] * 5, 0, 5) == 0.0
    assert gsprt_llr([5, 10, 20, 10, 5], 0, 10) < 0 < gsprt_llr([5, 10, 20, 20, 10], 0, 10)


def test_an_sprt_between_equal_engines_accepts_h1_no_more_often_than_alpha():
    """Simulated matches of two equal engines (a symmetric pair distribution with many
    draws): the pentanomial SPRT's false positives stay within alpha."""
    rng = random.Random(20261125)
    probs = [0.05, 0.2, 0.5, 0.2, 0.05]
    sprt = Sprt(0, 25)
    runs, h1 = 200, 0
    for _ in range(runs):
        counts = [0] * 5
        while True:
            for _ in range(4):  # the test looks every four pairs, as results come in batches
                counts[rng.choices(range(5), probs)[0]] += 1
            decision = sprt.state_of_pairs(counts).decision
            if decision is not None:
                h1 += decision == "H1"
                break
    assert h1 <= runs * 0.05 + 3 * math.sqrt(runs * 0.05 * 0.95)  # 0.05 + three standard errors


def test_pair_points_are_per_game():
    assert PAIR_POINTS == (0.0, 0.25, 0.5, 0.75, 1.0) and NELO_PER_T == pytest.approx(347.4355855)
