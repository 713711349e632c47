"""The standings of a tournament: each engine's score and Elo, each pairing's results.

Each finished game is counted for its pairing (from the pairing's first engine's side:
wins, draws, losses, and once both games of a colour-swapped pair are in, the pair's
pentanomial outcome) and for both its engines.  An abandoned game is kept out, as in a match.

Elo: each engine's Elo is its performance against the engines it played, from its
colour-swapped pairs (the pentanomial model, :func:`referee.match.pentanomial.pair_interval`),
with a 95 % interval; from its single games where it has no complete pair yet.  In a
round-robin that is against the average of its opponents (the field without it); in a
gauntlet the first engine is the reference (0) and every other engine's figure is against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from referee.games.verdicts import Termination
from referee.match.output import elo_parts
from referee.match.pentanomial import Pairs, pair_interval
from referee.match.stats import Tally, elo_interval
from referee.match.tournament import Tournament
from referee.play.result import GameResult

__all__ = ["Standings", "EngineLine"]


@dataclass
class EngineLine:
    """One engine's results in a tournament: games, points, W/D/L and its pairs (its own side)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    pairs: Pairs = field(default_factory=Pairs)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    def add(self, score: float) -> None:
        """Count one game where this engine scored ``score`` (1, 0.5 or 0)."""
        if score >= 1.0:
            self.wins += 1
        elif score <= 0.0:
            self.losses += 1
        else:
            self.draws += 1

    def elo(self) -> tuple[float, float, float]:
        """``(elo, low, high)`` against the engines it played: from its pairs, else its games."""
        if self.pairs.n:
            return pair_interval(self.pairs.counts)
        return elo_interval(self.wins, self.draws, self.losses)


class Standings:
    """The standings of ``tournament`` (see the module docstring); ``names`` as shown."""

    def __init__(self, tournament: Tournament, names: Sequence[str], tags: Sequence[str]) -> None:
        self.tournament = tournament
        self.names = list(names)
        self.tags = list(tags)
        self.engines = [EngineLine() for _ in names]
        #: Per pairing: its first engine's results, and its pairs from that engine's side.
        self.tallies = [Tally() for _ in tournament.pairings]
        self.pair_counts = [Pairs() for _ in tournament.pairings]
        self._halves: dict[int, float] = {}  # game -> its first engine's score, until its partner is in
        self.games = 0

    def count(self, r: GameResult) -> None:
        """Add a finished game (an abandoned one is not scored); a pair counts once both its games are."""
        t = self.tournament
        k, _ = t.locate(r.game)
        i, j = t.pairings[k]
        for e, name in ((i, r.engine1), (j, r.engine2)):
            if name:
                self.names[e] = name  # what the engine called itself (or its name= setting)
        if r.termination == Termination.ABANDONED.value:
            return
        self.games += 1
        self.tallies[k].add(r.score1, r.first == 1)
        self.engines[i].add(r.score1)
        self.engines[j].add(1.0 - r.score1)
        partner = t.partner(r.game)
        other = self._halves.pop(partner, None) if partner is not None else None
        if other is None:
            self._halves[r.game] = r.score1
            return
        self.pair_counts[k].add(r.score1, other)
        self.engines[i].pairs.add(r.score1, other)
        self.engines[j].pairs.add(1.0 - r.score1, 1.0 - other)

    def labels_of(self, r: GameResult) -> tuple[str, str]:
        """How game ``r``'s engine1 and engine2 are called: by their places (``engine3``)."""
        i, j = self.tournament.engines_of(r.game)
        return self.tags[i], self.tags[j]

    def order(self) -> list[int]:
        """Engine indexes, best first: by points per game, then points, then command-line order."""
        def key(e: int):
            line = self.engines[e]
            return (-(line.points / line.games) if line.games else 0.0, -line.points, e)
        return sorted(range(len(self.engines)), key=key)

    def reference_text(self) -> str:
        """What the Elo column is relative to, in words."""
        if self.tournament.settings.gauntlet:
            return f"Elo relative to {self.tags[0]} (the gauntlet's first engine)"
        return "Elo against the average of each engine's opponents"

    def table_text(self) -> str:
        """The standings as text: one line an engine, then one line a pairing."""
        t = self.tournament
        who = [self.names[e] if self.names[e] == self.tags[e] else f"{self.names[e]} ({self.tags[e]})"
               for e in range(len(self.names))]
        width = max(len(w) for w in who)
        lines = [f"standings after {self.games} of {t.total} games ({self.reference_text()}, "
                 f"95 % from colour-swapped pairs):",
                 f"  {'#':>2}  {'engine':<{width}}  {'games':>5}  {'points':>6}  {'score':>6}  {'Elo':>7}  95 %"]
        for rank, e in enumerate(self.order(), 1):
            line = self.engines[e]
            score = f"{100 * line.points / line.games:5.1f}%" if line.games else "    -"
            elo = f"{'(ref)':>7}" if t.settings.gauntlet and e == 0 else _elo_cell(line)
            lines.append(f"  {rank:>2}  {who[e]:<{width}}  {line.games:>5}  {line.points:>6g}  {score:>6}  {elo}")
        lines.append("  pairings (the first-named engine's wins, draws, losses; its pairs LL LD WL+DD WD WW):")
        for k, (i, j) in enumerate(t.pairings):
            tally, pairs = self.tallies[k], self.pair_counts[k]
            pair_text = " ".join(str(c) for c in pairs.counts)
            lines.append(f"    {self.tags[i]} vs {self.tags[j]}: +{tally.wins} ={tally.draws} -{tally.losses}"
                         f"   pairs {pair_text}")
        return "\n".join(lines)


def _elo_cell(line: EngineLine) -> str:
    """``+12.3  95 % -40.1 .. +64.0`` (the Elo column and its interval), never infinite."""
    if not line.games:
        return f"{'-':>7}"
    figure, words = elo_parts(*line.elo(), "pair" if line.pairs.n else "game")
    return f"{figure:>7}  {words}"
