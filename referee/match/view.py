"""What a person watching a match sees as it goes: the banner, each game's header, its moves or
boards, its verdict and the progress line, in one of the display modes.

The text itself is made by :mod:`referee.match.output`; this object decides when
each piece is printed, keeps the lines of simultaneous games from interleaving,
and shows the board legend once, above or under the first board.
"""

from __future__ import annotations

import threading
import time
from typing import IO, Any

from engine.mnk.rules import GameConfig
from referee.games.base import GameRules
from referee.match import output
from referee.match.settings import MatchOutcome, MatchSettings
from referee.play.game import GameResult, MoveEvent

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
                 labels: tuple[str, str]) -> None:
        self.out = out
        self.mode = mode
        self.rules = rules
        self.settings = settings
        self.labels = labels
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

    def banner(self, names: tuple[str, str]) -> None:
        """The match's first lines: who plays, the rules and clock, the openings."""
        s = self.settings
        self.say(output.match_banner(names, self.labels, s.games, s.config, output.clock_text(s.tc)))
        self.say(f"openings: {s.openings_text()}")

    def game_started(self, game: int, names: tuple[str, str]) -> None:
        """A game's header once both sides started (``names``: engine1's, engine2's)."""
        text = self._header(game, names, self.settings.first_of(game))
        # every move's board follows the header: the legend goes above the first one
        self.say(text + self._legend() if self.mode == "board" else text)

    def move(self, ev: MoveEvent, human_colours: frozenset[int] = frozenset()) -> None:
        """One move: its line, and in board mode the board (a person to move sees the legal moves)."""
        rules = self.rules
        with self._lock:
            print(output.move_line(ev), file=self.out, flush=self.mode != "board")
            if self.mode == "board":
                over = rules.outcome(ev.board, {1: "", 2: ""}) is not None
                text = rules.final_board_text(ev.board) if over else \
                    rules.board_text(ev.board, legal=int(ev.board.to_move) in human_colours)
                print(text, file=self.out, flush=True)

    def game_ended(self, r: GameResult, outcome: MatchOutcome, progress: dict[str, Any]) -> None:
        """A recorded game: header and final board unless already shown, verdict, progress line."""
        if self.mode == "none":
            return
        if not self.per_move:
            self.say(self._header(r.game, (r.engine1, r.engine2), r.first))
        if self.mode != "board" and r.moves:  # (board mode has just shown it)
            self.say(self.rules.final_board_text(self.rules.replay(r.moves)) + self._legend())
        self.say(output.verdict_text(r, self.labels))
        self.say(output.progress_line(outcome.tally, self.settings.games, time.monotonic() - self._t0,
                                      self.labels[0], **progress))

    def _header(self, game: int, names: tuple[str, str], first: int) -> str:
        x, o = (0, 1) if first == 1 else (1, 0)
        cfg = self.settings.config
        opening: list[Any] = self.settings.opening_of(game)
        if isinstance(cfg, GameConfig):
            opening = [cfg.xy(m) for m in opening]
        return output.game_header(game, self.settings.games, output.who(names[x], self.labels[x]),
                                  output.who(names[o], self.labels[o]), cfg, opening)

    def _legend(self) -> str:
        with self._lock:
            due, self._legend_due = self._legend_due, False
        return "\n" + self.rules.board_legend if due else ""
