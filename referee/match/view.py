"""What a person watching a match sees as it goes: the banner, each game's header, its moves or
boards, its verdict and the progress line, in one of the display modes.

The text itself is made by :mod:`referee.match.output`; this object decides when
each piece is printed, keeps the lines of simultaneous games from interleaving,
and shows the board legend once, above or under the first board.  A tournament of more
than two engines shows each game's engines by their places (``engine3``), a progress line
with games a second and the ETA after each game, and the standings every few games.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import IO, Any

from engine.mnk.board.rules import GameConfig
from referee.games.base import GameRules
from referee.match import output
from referee.match.settings import MatchOutcome, MatchSettings
from referee.match.standings import Standings
from referee.match.tournament import Tournament
from referee.play.game import MoveEvent
from referee.play.result import GameResult

__all__ = ["MatchView", "display_mode"]


def display_mode(settings: MatchSettings, workers: int) -> str:
    """The display in effect: ``settings.shown``, unless the games cannot show it (the boards
    of simultaneous games would interleave line by line; a cluster sends back whole games)."""
    mode = settings.shown
    if mode == "board" and workers > 1:
        mode = "moves"
    if settings.cluster and mode in ("board", "moves"):
        mode = "games"
    return mode


class MatchView:
    """Prints a match to ``out`` in display ``mode`` (see :data:`referee.match.output.DISPLAYS`)."""

    def __init__(self, out: IO[str], mode: str, rules: GameRules, settings: MatchSettings,
                 labels: tuple[str, str], tournament: Tournament | None = None,
                 standings: Standings | None = None, untimed: tuple[str, ...] = ()) -> None:
        self.out = out
        self.mode = mode
        self.rules = rules
        self.settings = settings
        self.labels = labels
        #: The games' numbers, colours and openings (``None``: a match numbered by ``settings``).
        self.tournament = tournament
        #: A tournament of more than two engines: its standings (``None`` for a match).
        self.standings = standings
        #: The people playing (no clock; the match goes at their pace: no ETA).
        self.untimed = untimed
        self._played = 0  # games this run finished (not resumed ones): the rate
        self._lock = threading.Lock()  # worker threads print moves; one game's lines stay together
        self._legend_due = bool(rules.board_legend)
        self._t0 = time.monotonic()

    @property
    def per_move(self) -> bool:
        """Moves are shown as they are played (the games need the move callbacks)."""
        return self.mode in ("board", "moves")

    def say(self, text: str) -> None:
        """Print ``text`` unless the display is ``none``."""
        if self.mode != "none":
            with self._lock:
                print(text, file=self.out, flush=True)

    def banner(self, names: Any) -> None:
        """The match's first lines: who plays, the rules and clock, the openings (``names``: every engine's)."""
        s = self.settings
        clock = output.clock_text(s.tc, self.rules.game_type, self.untimed)
        if self.standings is not None and self.tournament is not None:
            t = self.tournament
            self.say(output.tournament_banner(list(names), self.standings.tags, s.gauntlet, len(t.pairings),
                                              t.per_pairing, s.config, clock))
        else:
            self.say(output.match_banner((names[0], names[1]), self.labels, s.games, s.config, clock))
        self.say(f"openings: {s.openings_text()}")

    def labels_of(self, game: int) -> tuple[str, str]:
        """How game ``game``'s engine1 and engine2 are called (in a tournament: by their places)."""
        if self.standings is None or self.tournament is None:
            return self.labels
        i, j = self.tournament.engines_of(game)
        return self.standings.tags[i], self.standings.tags[j]

    def game_started(self, game: int, names: tuple[str, str]) -> None:
        """A game's header once both sides started (``names``: engine1's, engine2's)."""
        first = self.tournament.first_of(game) if self.tournament else self.settings.first_of(game)
        text = self._header(game, names, first)
        # every move's board follows the header: the legend goes above the first one
        self.say(text + self._legend() if self.mode == "board" else text)

    def move(self, ev: MoveEvent, human_colours: frozenset[int] = frozenset()) -> None:
        """One move: its line, and in board mode the board (a person to move sees the legal moves).

        The board after a person's own move is left out while an engine is to reply: the
        board after the reply shows both, so a person sees one board a turn."""
        rules = self.rules
        if self.standings is not None and self.tournament is not None:
            ev = dataclasses.replace(ev, seat_name=self.tournament.retag(ev.game, ev.seat_name))
        with self._lock:
            print(output.move_line(ev), file=self.out, flush=self.mode != "board")
            if self.mode == "board":
                over = rules.outcome(ev.board, {1: "", 2: ""}) is not None
                to_move_human = int(ev.board.to_move) in human_colours
                if over or ev.player not in human_colours or to_move_human:
                    text = rules.final_board_text(ev.board) if over else \
                        rules.board_text(ev.board, legal=to_move_human)
                    print(text, file=self.out, flush=True)
                else:
                    self.out.flush()

    def game_ended(self, r: GameResult, outcome: MatchOutcome, progress: dict[str, Any]) -> None:
        """A recorded game: header and final board unless already shown, verdict, progress line."""
        self._played += 1
        if self.mode == "none":
            return
        if not self.per_move:
            self.say(self._header(r.game, (r.engine1, r.engine2), r.first))
        if self.mode != "board" and r.moves:  # (board mode has just shown it)
            self.say(self.rules.final_board_text(self.rules.replay(r.moves)) + self._legend())
        self.say(output.verdict_text(r, self.labels_of(r.game)))
        elapsed = time.monotonic() - self._t0
        standings = self.standings
        if standings is None or self.tournament is None:
            self.say(output.progress_line(outcome.tally, self.settings.games, elapsed, self.labels[0],
                                          timing=not self.untimed, **progress))
            return
        total = self.tournament.total
        self.say(output.tournament_progress(standings.games, total, elapsed, self._played, **progress))
        every = self.settings.standings_every or 2 * len(self.tournament.pairings)
        if self._played % every == 0 and standings.games < total:  # (the last table is the summary's)
            self.say(standings.table_text())

    def _header(self, game: int, names: tuple[str, str], first: int) -> str:
        x, o = (0, 1) if first == 1 else (1, 0)
        cfg = self.settings.config
        plan: Any = self.tournament or self.settings
        opening: list[Any] = plan.opening_of(game)
        if isinstance(cfg, GameConfig):
            opening = [cfg.xy(m) for m in opening]
        total = self.tournament.total if self.tournament else self.settings.games
        labels = self.labels_of(game)
        return output.game_header(game, total, output.who(names[x], labels[x]),
                                  output.who(names[o], labels[o]), cfg, opening)

    def _legend(self) -> str:
        with self._lock:
            due, self._legend_due = self._legend_due, False
        return "\n" + self.rules.board_legend if due else ""
