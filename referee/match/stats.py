"""Match statistics: Elo difference with a confidence interval, LOS, and the SPRT.

Conventions (as in cutechess-cli and fishtest):

- score ``s = (W + D/2) / N`` for the first engine;
- logistic Elo: ``elo = -400 * log10(1/s - 1)`` (s = 0.75 gives +190.85);
- the 95 % interval maps ``s ± 1.96 * sd / sqrt(N)`` through the same formula,
  where ``sd`` is the per-game standard deviation of the score (trinomial).
  On a sample with an empty cell (no win, no draw or no loss yet) the observed
  spread understates the real one, down to zero for all draws or all losses,
  which would print a zero-width interval after four draws.  There a zero
  count is replaced by 0.5 (the same pseudo-count as the SPRT below) when
  computing ``sd`` only: the interval stays centred on the observed score and
  is wide on few games, and a sample with every cell filled gives exactly the
  usual figure.  A bound beyond a score of 0 or 1 is infinite: the data do not
  bound the Elo on that side (after losses only, there is no lower bound);
- likelihood of superiority from the normal approximation (draws ignored):
  ``LOS = 0.5 * (1 + erf((W - L) / sqrt(2 (W + L))))``;
- SPRT: the generalised SPRT with the normal approximation used by fishtest
  for trinomial results: with ``s0``/``s1`` the expected scores of the Elo
  hypotheses and ``var`` the per-game variance of the observed results,
  ``LLR = N * (s1 - s0) * (2 s - s0 - s1) / (2 var)``; stop with H1 accepted
  when ``LLR >= log((1 - beta) / alpha)``, H0 when ``LLR <= log(beta / (1 - alpha))``.
  A zero count is replaced by 0.5 (a pseudo-count) when computing ``s`` and
  ``var``, so a run of pure wins or losses gives a finite LLR that still
  needs a dozen or so games to decide, instead of deciding after one game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from referee.match.elo import Z95, elo_from_score, score_from_elo
from referee.match.pentanomial import gsprt_llr

__all__ = [
    "elo_from_score", "score_from_elo", "score", "elo_interval", "los",
    "sprt_llr", "sprt_bounds", "Sprt", "SprtState", "Tally", "SPRT_MODELS", "Z95",
]

#: The SPRT's Elo models: logistic Elo, or normalized Elo (fishtest's and fastchess's).
SPRT_MODELS = ("logistic", "normalized")

def score(wins: int, draws: int, losses: int) -> float:
    """``(W + D/2) / N``; 0.5 when no game was played."""
    n = wins + draws + losses
    return (wins + 0.5 * draws) / n if n else 0.5


def _variance(wins: float, draws: float, losses: float) -> float:
    """Per-game variance of the score under the observed trinomial frequencies."""
    n = wins + draws + losses
    s = (wins + 0.5 * draws) / n
    return (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n


def elo_interval(wins: int, draws: int, losses: int, z: float = Z95) -> tuple[float, float, float]:
    """``(elo, low, high)``: the Elo difference and its confidence interval (95 % by default).

    ``elo`` is infinite after wins only or losses only; ``low``/``high`` are
    infinite where the data give no bound (see the module docstring); with no
    game at all the answer is ``(0.0, -inf, inf)``.
    """
    n = wins + draws + losses
    if n == 0:
        return 0.0, -math.inf, math.inf
    s = score(wins, draws, losses)
    w, d, l = (c if c > 0 else 0.5 for c in (wins, draws, losses))
    margin = z * math.sqrt(_variance(w, d, l) / n)
    return elo_from_score(s), elo_from_score(s - margin), elo_from_score(s + margin)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority (probability that the first engine is stronger), in [0, 1]."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """``(lower, upper)`` log-likelihood-ratio bounds of the SPRT."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must be in (0, 1)")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``), GSPRT normal approximation."""
    n = wins + draws + losses
    if n == 0:
        return 0.0
    w, d, l = (c if c > 0 else 0.5 for c in (wins, draws, losses))
    var = _variance(w, d, l)
    s = (w + 0.5 * d) / (w + d + l)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)


@dataclass(frozen=True)
class SprtState:
    """Where the SPRT stands: the LLR, its bounds and the decision (``"H0"``, ``"H1"`` or ``None``)."""

    llr: float
    lower: float
    upper: float
    decision: str | None


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of ``elo0`` against ``elo1``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    #: ``logistic`` (the bounds are logistic Elo) or ``normalized`` (normalized Elo; pairs only).
    model: str = "logistic"

    def __post_init__(self) -> None:
        if self.elo1 <= self.elo0:
            raise ValueError("SPRT needs elo0 < elo1")
        if self.model not in SPRT_MODELS:
            raise ValueError(f"the SPRT model is one of {', '.join(SPRT_MODELS)}")
        sprt_bounds(self.alpha, self.beta)

    def state(self, wins: int, draws: int, losses: int) -> SprtState:
        """The test on games counted one by one (trinomial: for games that are not paired)."""
        if self.model == "normalized":
            return self._decide(gsprt_llr([losses, draws, wins], self.elo0, self.elo1, "normalized"))
        return self._decide(sprt_llr(wins, draws, losses, self.elo0, self.elo1))

    def state_of_pairs(self, counts) -> SprtState:
        """The test on colour-swapped pairs (pentanomial ``counts``: LL, LD, WL+DD, WD, WW)."""
        return self._decide(gsprt_llr(counts, self.elo0, self.elo1, self.model))

    def _decide(self, llr: float) -> SprtState:
        lower, upper = sprt_bounds(self.alpha, self.beta)
        decision = "H1" if llr >= upper else "H0" if llr <= lower else None
        return SprtState(llr, lower, upper, decision)


@dataclass
class Tally:
    """Results of engine1 against engine2, overall and by colour (X = first colour)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    wins_as_x: int = 0
    draws_as_x: int = 0
    losses_as_x: int = 0

    def add(self, score1: float, engine1_first: bool) -> None:
        """Count one game: ``score1`` is engine1's score (1, 0.5 or 0)."""
        if score1 >= 1.0:
            self.wins += 1
            self.wins_as_x += engine1_first
        elif score1 <= 0.0:
            self.losses += 1
            self.losses_as_x += engine1_first
        else:
            self.draws += 1
            self.draws_as_x += engine1_first

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def as_o(self) -> tuple[int, int, int]:
        """(wins, draws, losses) of engine1 when it played second (O)."""
        return (self.wins - self.wins_as_x, self.draws - self.draws_as_x, self.losses - self.losses_as_x)

    @property
    def as_x(self) -> tuple[int, int, int]:
        return (self.wins_as_x, self.draws_as_x, self.losses_as_x)

    def score(self) -> float:
        return score(self.wins, self.draws, self.losses)
