"""The report of a match being played: ``DIR/report.html`` rewritten as games end (:class:`LiveReport`).

It reads the games already in ``results.jsonl`` once (a resumed match's); the match then
hands it each game it records, and it rewrites the page when enough time has passed since
the last write: at least :data:`MIN_INTERVAL_S`, and at least :data:`COST_FACTOR` times what
the last write took, so that writing the page never takes more than about one percent of
the match's time, however fast its games.  The first game and the end of the match are
always written.  A page that cannot be written costs the match nothing: one line says so
and the games go on.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import IO, Sequence

from referee.match.records import read_results
from referee.match.settings import RESULTS_FILE, MatchSettings
from referee.play.result import GameResult
from referee.report.data import ReportBuilder
from referee.report.info import ReportInfo, save_info
from referee.report.page import REPORT_FILE, write_page

__all__ = ["LiveReport", "MIN_INTERVAL_S", "COST_FACTOR"]

#: The least time between two writes of the page while a match plays.
MIN_INTERVAL_S = 2.0
#: The time between two writes is also at least this many times the last write's cost.
COST_FACTOR = 100.0


class LiveReport:
    """The page of the match recorded in ``out_dir`` (see the module docstring)."""

    def __init__(self, out_dir: str | os.PathLike, info: ReportInfo, *, err: IO[str] | None = None,
                 min_interval_s: float = MIN_INTERVAL_S) -> None:
        self.dir = Path(out_dir)
        self.info = info
        self.builder = ReportBuilder(info)
        self.err = err if err is not None else sys.stderr
        self.min_interval_s = min_interval_s
        self._last = -1.0  # when the page was last written (monotonic); -1: never
        self._cost = 0.0
        self._failed = False
        self.writes = 0
        for obj in read_results(self.dir / RESULTS_FILE):  # a resumed match's games
            self.builder.add_record(obj)

    @classmethod
    def of_match(cls, settings: MatchSettings, names: Sequence[str], tags: Sequence[str],
                 paired: bool = True) -> "LiveReport | None":
        """The report of a match with ``--out`` (``None`` without)."""
        if not settings.out_dir:
            return None
        return cls(settings.out_dir, ReportInfo.of_match(settings, names, tags, paired))

    def game_recorded(self, r: GameResult, fields: dict | None = None) -> None:
        """The match recorded game ``r`` (``fields``: what its line in ``results.jsonl`` adds, a
        tournament's ``engine_numbers``): count it; write the page when due."""
        self.builder.add(r, fields)
        now = time.monotonic()
        if self._last < 0 or now - self._last >= max(self.min_interval_s, COST_FACTOR * self._cost):
            self.write("running")

    def close(self, interrupted: bool = False) -> None:
        """The match is over: the last page (none when no game was recorded)."""
        if self.builder.games or (self.dir / REPORT_FILE).exists():
            self.write("interrupted" if interrupted else "finished")

    def write(self, state: str) -> None:
        """Write ``report.json`` (the first time) and the page now."""
        if self._failed:
            return
        t0 = time.monotonic()
        try:
            if self.writes == 0:
                save_info(self.dir, self.info)
            write_page(self.dir, self.builder.data(state), self.builder.games_json)
        except OSError as exc:
            self._failed = True
            print(f"referee: cannot write {self.dir / REPORT_FILE} ({exc.strerror or exc}); "
                  "the match goes on without it ('referee report DIR' writes it afterwards)", file=self.err)
            return
        self.writes += 1
        self._last = time.monotonic()
        self._cost = self._last - t0
