"""Statistics of colour-swapped pairs: the pentanomial model (as fishtest and fastchess define it).

The two games of a pair start from one opening with the colours swapped, so their
results are not independent: an opening that favours one colour makes a win and a loss
likelier than two wins.  Counting each pair's total for engine1 (0, 1/2, 1, 3/2 or 2
points: LL, LD, WL or DD, WD, WW) and treating the pairs as the independent samples
gives honest, usually narrower, intervals than counting games.

- score ``mu``: the mean per-game score over the pairs; its variance ``var`` is the
  variance of a pair's per-game score; the 95 % interval is ``mu ± 1.96 sqrt(var / N)``
  for N pairs, mapped to Elo as games are (:func:`referee.match.stats.elo_from_score`);
- normalized Elo: ``nElo = (mu - 0.5) / sigma * 800 / ln 10`` with ``sigma = sqrt(2 var)``
  the per-game standard deviation that the pairs imply;
- the SPRT is a generalised SPRT (GSPRT): the log-likelihood ratio of the two most likely
  pair distributions under each hypothesis (their score, or for the normalized model their
  t-value ``(mu - 0.5) / sqrt(var)``, fixed to the hypothesis), given the observed
  frequencies; an outcome never seen counts 0.001 so that the ratio stays finite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

from referee.match.elo import Z95, elo_from_score, score_from_elo

__all__ = ["PAIR_POINTS", "Pairs", "pair_interval", "nelo_interval", "gsprt_llr", "NELO_PER_T"]

#: What a pair is worth to engine1 per game: LL, LD, WL or DD, WD, WW.
PAIR_POINTS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Normalized Elo per unit of t-value (800 / ln 10).
NELO_PER_T = 800.0 / math.log(10.0)
#: What an outcome never seen counts in the likelihood ratio.
_EMPTY = 1e-3


@dataclass
class Pairs:
    """The pentanomial counts of a match: ``counts[k]`` pairs where engine1 scored ``k / 2`` points."""

    counts: list[int] = field(default_factory=lambda: [0] * 5)

    def add(self, score_a: float, score_b: float) -> None:
        """Count one pair from engine1's scores in its two games (1, 0.5 or 0 each)."""
        self.counts[round(2 * (score_a + score_b))] += 1

    @property
    def n(self) -> int:
        """The number of pairs."""
        return sum(self.counts)


def _moments(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def _observed(counts: Sequence[int], fill_empty: float = 0.0) -> list[tuple[float, float]]:
    """The outcomes as ``(points per game, frequency)``; ``fill_empty`` stands in for a zero count."""
    points = [i / (len(counts) - 1) for i in range(len(counts))]
    filled = [c if c > 0 else fill_empty for c in counts]
    total = sum(filled)
    return [(a, c / total) for a, c in zip(points, filled)]


def pair_interval(counts: Sequence[int], z: float = Z95) -> tuple[float, float, float]:
    """``(elo, low, high)`` of engine1 from pentanomial ``counts`` (95 % by default).

    As for games (:func:`referee.match.stats.elo_interval`), an empty outcome counts 0.5
    in the spread only, so that few pairs give a wide interval, never a zero-width one.
    """
    n = sum(counts)
    if n == 0:
        return 0.0, -math.inf, math.inf
    mu, _ = _moments(_observed(counts))
    _, var = _moments(_observed(counts, 0.5))
    margin = z * math.sqrt(var / n)
    return elo_from_score(mu), elo_from_score(mu - margin), elo_from_score(mu + margin)


def nelo_interval(counts: Sequence[int], z: float = Z95) -> tuple[float, float, float]:
    """``(nelo, low, high)``: normalized Elo of engine1 and its interval from pentanomial ``counts``.

    A bound whose score leaves (0, 1) is infinite, as in :func:`pair_interval`, so that both
    say "too few pairs" together."""
    n = sum(counts)
    if n == 0:
        return 0.0, -math.inf, math.inf
    mu, _ = _moments(_observed(counts))
    _, var = _moments(_observed(counts, 0.5))
    sigma = math.sqrt(2.0 * var)  # per game
    margin = z * math.sqrt(var / n)

    def nelo(m: float) -> float:
        return NELO_PER_T * (m - 0.5) / sigma

    lo = nelo(mu - margin) if mu - margin > 0.0 else -math.inf
    hi = nelo(mu + margin) if mu + margin < 1.0 else math.inf
    return nelo(mu), lo, hi


def _secular_root(pdf: Sequence[tuple[float, float]]) -> float:
    """The root ``x`` of ``sum p a / (1 + x a) = 0`` between its poles (the ``a`` straddle zero)."""
    lo_a, hi_a = min(a for a, _ in pdf), max(a for a, _ in pdf)
    if lo_a >= 0 or hi_a <= 0:
        raise ValueError("the outcomes must straddle the hypothesis")
    lo, hi = -1.0 / hi_a, -1.0 / lo_a
    # f falls from +inf to -inf between the poles: bisect to the float precision
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if sum(p * a / (1.0 + mid * a) for a, p in pdf) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def _mle_mean(pdf: Sequence[tuple[float, float]], s: float) -> list[float]:
    """The most likely distribution on the same outcomes whose mean is ``s``."""
    x = _secular_root([(a - s, p) for a, p in pdf])
    return [p / (1.0 + x * (a - s)) for a, p in pdf]


def _mle_t(pdf: Sequence[tuple[float, float]], t: float, ref: float = 0.5) -> list[float]:
    """The most likely distribution on the same outcomes whose t-value ``(mean - ref) / sd`` is ``t``
    (a fixed point: each step solves for the mean the current spread asks for)."""
    q = [1.0 / len(pdf)] * len(pdf)
    for _ in range(50):
        mean, var = _moments([(a, qi) for (a, _), qi in zip(pdf, q)])
        sd = math.sqrt(var)
        shifted = [(a - ref - t * sd * (1.0 + ((mean - a) / sd) ** 2) / 2.0, p) for a, p in pdf]
        x = _secular_root(shifted)
        new = [p / (1.0 + x * b) for (b, p) in shifted]
        done = max(abs(u - v) for u, v in zip(new, q)) < 1e-12
        q = new
        if done:
            break
    return q


def gsprt_llr(counts: Sequence[int], h0: float, h1: float, model: str = "logistic") -> float:
    """The GSPRT log-likelihood ratio of H1 against H0 for pentanomial (5) or trinomial (3) ``counts``.

    ``model`` ``logistic``: ``h0``/``h1`` are logistic Elo (the hypotheses fix the score);
    ``normalized``: they are normalized Elo (the hypotheses fix the t-value).
    """
    if sum(counts) == 0:
        return 0.0
    n = sum(c if c > 0 else _EMPTY for c in counts)
    pdf = _observed(counts, _EMPTY)
    if model == "logistic":
        q0, q1 = (_mle_mean(pdf, score_from_elo(h)) for h in (h0, h1))
    elif model == "normalized":
        per = math.sqrt(2.0) if len(counts) == 5 else 1.0  # a pair's t-value is sqrt(2) a game's
        q0, q1 = (_mle_t(pdf, h / NELO_PER_T * per) for h in (h0, h1))
    else:
        raise ValueError(f"unknown SPRT model {model!r}")
    return n * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, q0, q1))
