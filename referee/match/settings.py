"""What defines a match apart from its two engines, and what a match leaves: the outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.mnk.board.rules import GameConfig
from referee.games import rules_for
from referee.games.adjudication import Adjudication
from referee.games.clock import TimeControl
from referee.games.verdicts import Termination
from referee.games.openings import describe_openings, opening_for_game, plies_bounds, symmetries
from referee.match.pentanomial import Pairs
from referee.match.stats import Sprt, Tally
from referee.play.result import GameResult

__all__ = ["MatchSettings", "MatchOutcome", "RESULTS_FILE", "COMMAND_FILE"]

#: The file of ``--out DIR`` that holds one line a finished game (what ``--resume`` reads).
RESULTS_FILE = "results.jsonl"
#: The file of ``--out DIR`` that holds the command line that started the match (to repeat it).
COMMAND_FILE = "command.txt"


@dataclass(frozen=True)
class MatchSettings:
    """Everything that defines a match apart from the two engines."""

    #: The game: an m,n,k ``GameConfig`` or a ``ReversiConfig``.
    config: Any = GameConfig()
    tc: TimeControl = TimeControl()
    games: int = 2
    first: int = 1
    openings: tuple[tuple[int, ...], ...] = ()
    random_plies: int | tuple[int, int] = 0  # a count, or (lo, hi): a count per pair
    #: Seed of the random openings and of the built-in random mover; ``None``: :func:`run_match`
    #: takes the one recorded in a resumed match, or draws one for random openings (printed and
    #: recorded, so that ``seed=`` repeats the match).
    seed: int | None = None
    concurrency: int = 1
    out_dir: str | None = None
    resume: bool = False
    log_io: bool = False
    #: ``auto``: an engine process plays game after game until it is at fault (a crash, a
    #: timeout, bad output...); ``always``: every game starts its own (as with ``log_io``).
    restart: str = "auto"
    quiet: bool = False  # the same as display="none"
    sprt: Sprt | None = None
    #: What is printed as games go: one of :data:`referee.match.output.DISPLAYS`.
    display: str = "moves"
    #: When the referee declares a draw itself (``--draw-after``, ``--max-moves``).
    adjudication: Adjudication = Adjudication()
    #: A PGN file every finished game is appended to (for rating tools), or ``None``.
    pgn: str | None = None
    #: ``local:N`` or a Dask scheduler's address: the games are played there (see
    #: :mod:`referee.cluster.farm`); ``None``: here, ``concurrency`` at a time.
    cluster: str | None = None
    #: Each opening is also played in its symmetric images (``--transform``).
    transform: bool = False
    #: How file openings are taken: ``sequential`` or ``random`` (from the seed), from the
    #: ``openings_start``-th (1-based).
    openings_order: str = "sequential"
    openings_start: int = 1
    #: With more than two engines: the first plays each of the others (else every pair plays).
    gauntlet: bool = False
    #: With more than two engines: the standings are printed every this many games (0: after
    #: every pair of games of every pairing).
    standings_every: int = 0
    #: The command line that started the match, as typed (recorded in ``out_dir``; "" when not known).
    command: str = ""

    @property
    def shown(self) -> str:
        """The display in effect (``quiet`` wins)."""
        return "none" if self.quiet else self.display

    def first_of(self, game: int) -> int:
        """Which engine (1 or 2) plays X in game number ``game``."""
        engine1_x = (game % 2 == 1) == (self.first == 1)
        return 1 if engine1_x else 2

    @property
    def random_openings(self) -> bool:
        """True when games start from random stones (so the seed matters)."""
        return not self.openings and plies_bounds(self.random_plies)[1] > 0

    @property
    def seeded(self) -> bool:
        """True when the openings depend on the seed (random openings, or file openings in random order)."""
        return self.random_openings or (bool(self.openings) and self.openings_order == "random")

    def opening_of(self, game: int) -> list[int]:
        """The opening stones of game number ``game`` (a seed of ``None`` counts as 0 here)."""
        return opening_for_game(game, [list(o) for o in self.openings] or None,
                                self.random_plies, self.config, self.seed or 0, transform=self.transform,
                                order=self.openings_order, start=self.openings_start)

    def openings_text(self) -> str:
        """How the games of this match start, in one line (the seed included)."""
        return describe_openings(len(self.openings), self.random_plies, self.seed,
                                 rules_for(self.config).opening_unit,
                                 transform=symmetries(self.config) if self.transform else 1,
                                 order=self.openings_order, start=self.openings_start)


@dataclass
class MatchOutcome:
    """The results of a match (resumed games included) and why it stopped."""

    tally: Tally
    results: list[GameResult] = field(default_factory=list)
    name1: str = "engine1"
    name2: str = "engine2"
    interrupted: bool = False
    sprt_decision: str | None = None
    #: The settings the match ran with (the seed resolved).
    settings: MatchSettings | None = None
    #: How engine1 and engine2 are called in text: ``engine1``/``engine2``, or a human's name.
    labels: tuple[str, str] = ("engine1", "engine2")
    #: The name of the human who ended the match (``quit`` or end of input), if one did.
    ended_by: str | None = None
    #: Engine1's results by colour-swapped pair (games 2j-1 and 2j), both games scored.
    pairs: Pairs = field(default_factory=Pairs)
    #: The match is played in colour-swapped pairs (no person playing): its statistics are the pairs'.
    paired: bool = True
    #: A match of more than two engines: its standings (:class:`referee.match.standings.Standings`),
    #: which count its games instead of ``tally`` and ``pairs``.
    standings: Any = None
    #: Why the match stopped early when one of its records could not be written (``None``: it did not).
    write_error: str | None = None
    _halves: dict[int, float] = field(default_factory=dict, repr=False)

    def sprt_state(self, sprt: Sprt):
        """Where ``sprt`` stands: on the pairs in a paired match, else on the games."""
        if self.paired:
            return sprt.state_of_pairs(self.pairs.counts)
        t = self.tally
        return sprt.state(t.wins, t.draws, t.losses)

    def count(self, r: GameResult) -> None:
        """Add a finished game (an abandoned one is kept but not scored: no one played it); a
        pair is counted once both its games are."""
        if self.standings is not None:
            self.results.append(r)
            self.standings.count(r)
            return
        if not self.results:
            self.name1, self.name2 = r.engine1, r.engine2
        self.results.append(r)
        if r.termination != Termination.ABANDONED.value:
            self.tally.add(r.score1, r.first == 1)
            other = self._halves.pop(r.game + 1 if r.game % 2 else r.game - 1, None)
            if other is None:
                self._halves[r.game] = r.score1
            else:
                self.pairs.add(r.score1, other)
