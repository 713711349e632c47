"""The report of a match being played: ``DIR/report.html`` rewritten as games end (:class:`LiveReport`).

The match tells it when a game has been recorded; it reads the new lines of
``results.jsonl`` (the file is only appended to) and rewrites the page when enough time
has passed since the last write: at least :data:`MIN_INTERVAL_S`, and at least
:data:`COST_FACTOR` times what the last write took, so that writing the page never takes
more than about one percent of the match's time, however fast its games.  The first game
and the end of the match are always written.  A page that cannot be written costs the
match nothing: one line says so and the games go on.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Sequence

from referee.match.settings import RESULTS_FILE, MatchSettings
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
        self._offset = 0  # how far results.jsonl has been read
        self._last = -1.0  # when the page was last written (monotonic); -1: never
        self._cost = 0.0
        self._failed = False
        self.writes = 0
        self._read()  # a resumed match's games

    @classmethod
    def of_match(cls, settings: MatchSettings, names: Sequence[str], tags: Sequence[str],
                 paired: bool = True) -> "LiveReport | None":
        """The report of a match with ``--out`` (``None`` without)."""
        if not settings.out_dir:
            return None
        return cls(settings.out_dir, ReportInfo.of_match(settings, names, tags, paired))

    def game_recorded(self) -> None:
        """A game's line was appended to ``results.jsonl``: read it; write the page when due."""
        self._read()
        now = time.monotonic()
        if self._last < 0 or now - self._last >= max(self.min_interval_s, COST_FACTOR * self._cost):
            self.write("running")

    def close(self, interrupted: bool = False) -> None:
        """The match is over: the last page (none when no game was recorded)."""
        self._read()
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
            write_page(self.dir, self.builder.data(state))
        except OSError as exc:
            self._failed = True
            print(f"referee: cannot write {self.dir / REPORT_FILE} ({exc.strerror or exc}); "
                  "the match goes on without it ('referee report DIR' writes it afterwards)", file=self.err)
            return
        self.writes += 1
        self._last = time.monotonic()
        self._cost = self._last - t0

    def _read(self) -> None:
        """Feed the complete lines appended to ``results.jsonl`` since the last read."""
        try:
            with open(self.dir / RESULTS_FILE, "rb") as f:
                f.seek(self._offset)
                chunk = f.read()
        except OSError:
            return
        end = chunk.rfind(b"\n") + 1  # a line still being written is read next time
        self._offset += end
        for line in chunk[:end].splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and isinstance(obj.get("game"), int) and "termination" in obj:
                self.builder.add(obj)
