"""The data a match report shows, built from the results file game by game: :class:`ReportBuilder`.

Every figure comes from the code that makes the terminal's: the match's tally, pairs and
SPRT from :class:`referee.match.settings.MatchOutcome`, a tournament's from
:class:`referee.match.standings.Standings`, the texts from :mod:`referee.match.output`.
The plots over the games recount the same objects one game at a time and keep a point
every ``step`` games (``step`` doubles whenever more than :data:`MAX_POINTS` points
would be kept), so that a long match's page stays small and each point is computed once.

Games are kept compact for the page (:mod:`referee.report.moves`: a move is two characters),
so a 2,000-game match's page stays well under a few megabytes.
"""

from __future__ import annotations

import math
import time
from typing import Any, Sequence

from referee.games.verdicts import Termination
from referee.match import output
from referee.match.pentanomial import Pairs, pair_interval
from referee.match.settings import MatchOutcome
from referee.match.standings import EngineLine, Standings
from referee.match.stats import Tally, elo_interval, sprt_bounds
from referee.play.result import GameResult
from referee.report.info import ReportInfo, colours_of, config_of_record, placeholder_tournament
from referee.report.moves import codes_of, foul_code, winning_line_codes
from referee.report.page import to_json

__all__ = ["ReportBuilder", "MAX_POINTS"]

#: The most points a plot keeps (beyond it every other one is dropped).
MAX_POINTS = 256


def _figure(v: float, nd: int = 1) -> float | None:
    """A plotted value: rounded, ``None`` for an infinite one (the data do not bound it)."""
    return None if math.isinf(v) or math.isnan(v) else round(v, nd)


def _triple(t: tuple[float, float, float]) -> list[float | None]:
    return [_figure(v) for v in t]


class ReportBuilder:
    """The report of one match, fed its games in the order they ended (:meth:`add` as the match
    records them, :meth:`add_record` from ``results.jsonl``); :meth:`data` gives the page's data
    at any point."""

    def __init__(self, info: ReportInfo) -> None:
        self.info = info
        self.names = list(info.names)
        self.results: list[GameResult] = []  # the scored and listed games, as the match counted them
        self.games: list[dict] = []  # the page's game entries, made once each
        self.games_json: list[str] = []  # and each as the page embeds it (see page.render)
        self.sprt = info.sprt_test()
        n = len(info.names)
        self.standings: Standings | None = None
        self.outcome: MatchOutcome | None = None
        if info.is_match:
            self.outcome = MatchOutcome(Tally(), name1=self.names[0], name2=self.names[1],
                                        labels=(info.tags[0], info.tags[1]), paired=info.paired)
        elif info.per_pairing:
            self.standings = Standings(placeholder_tournament(n, info.per_pairing, info.gauntlet),
                                       self.names, info.tags)
        #: Per engine: its games by result (W, D, L) and termination.
        self.verdicts: list[dict[str, dict[str, int]]] = [{"W": {}, "D": {}, "L": {}} for _ in range(n)]
        self.lengths: list[int] = []
        self.step = 1
        self.points: list[dict] = []
        self._configs: dict[tuple, Any] = {}

    # Feeding ---------------------------------------------------------------------------
    def add_record(self, obj: dict) -> None:
        """Count and list one game of ``results.jsonl`` (one that is not a game record is skipped)."""
        try:
            r = GameResult.from_json(obj)
        except (KeyError, TypeError, ValueError):
            return
        self.add(r, obj)

    def add(self, r: GameResult, fields: dict | None = None) -> None:
        """Count and list the recorded game ``r`` (``fields``: what a tournament's record adds,
        its ``engine_numbers``).  An interrupted game is skipped, as the match never counts one."""
        if r.termination == Termination.INTERRUPTED.value:
            return
        try:
            entry = self._entry(fields or {}, r)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return
        self.results.append(r)
        self.games.append(entry)
        self.games_json.append(to_json(entry))
        if not self._count(r):
            return
        if r.termination != Termination.ABANDONED.value:
            self.lengths.append(len(r.moves))
            first, second = entry["e"]
            won = entry["w"]
            for e, colour in ((first, 1), (second, 2)):
                key = "D" if won == 0 else "W" if won == colour else "L"
                per = self.verdicts[e][key]
                per[r.termination] = per.get(r.termination, 0) + 1
            done = self._scored()
            if done % self.step == 0:
                self.points.append(self._counts(done))
                if len(self.points) > MAX_POINTS:
                    self.step *= 2
                    self.points = [p for p in self.points if p["x"] % self.step == 0]

    def _count(self, r: GameResult) -> bool:
        """Count ``r`` as the match did; False when it is no game of this match's numbering."""
        if self.outcome is not None:
            self.outcome.count(r)
            return True
        if self.standings is None:
            return False
        try:
            self.standings.count(r)
        except ValueError:  # a game number beyond the tournament (resumed with fewer games)
            return False
        return True

    def _scored(self) -> int:
        if self.outcome is not None:
            return self.outcome.tally.games
        return self.standings.games if self.standings is not None else 0

    def _engines_of(self, fields: dict) -> tuple[int, int]:
        """The places (0-based) of a game's engine1 and engine2 (a tournament's record ``fields``)."""
        places = fields.get("engine_numbers")
        if self.info.is_match or not isinstance(places, list):
            return 0, 1
        i, j = (int(p) - 1 for p in places)
        if not (0 <= i < len(self.names) and 0 <= j < len(self.names)):
            raise ValueError("engine_numbers out of range")
        return i, j

    def _entry(self, fields: dict, r: GameResult) -> dict:
        """The page's entry of one game (see the module docstring for the moves)."""
        i, j = self._engines_of(fields)
        for place, name in ((i, r.engine1), (j, r.engine2)):
            if name:
                self.names[place] = name
        first, second = (i, j) if r.first == 1 else (j, i)
        if r.termination == Termination.ABANDONED.value:
            won = -1
        elif r.winner is None:
            won = 0
        else:
            won = 1 if (r.winner == "engine1") == (r.first == 1) else 2
        times = r.times_ms  # (the record is not changed after it is counted)
        entry: dict[str, Any] = {
            "g": r.game, "e": [first, second], "w": won, "t": r.termination, "why": r.reason,
            "mv": codes_of(r.game_type, r.moves), "op": int(r.opening or 0), "ms": ",".join(map(str, times)),
            "tm": [sum(times[0::2]), sum(times[1::2])], "d": round(float(r.duration_s or 0.0), 2),
        }
        if r.game_type == "reversi":
            entry["f"] = [f"game-{r.game:04d}.ggf"]
            if r.discs is not None:
                entry["discs"] = list(r.discs)
        else:
            entry["f"] = [f"game-{r.game:04d}.sgf", f"game-{r.game:04d}.psq"]
        line = winning_line_codes(self._config(r), r) if r.game_type != "reversi" else ""
        if line:
            entry["line"] = line
        foul = foul_code(r)
        if foul:
            entry["foul"] = foul
        if getattr(r, "foul", None) is True:
            entry["fm"] = 1  # the last move is the foul itself: shown marked, not as a stone
        return entry

    def _key(self, r: GameResult) -> tuple:
        return r.game_type, r.width, r.height, r.win_length, r.rule

    def _config(self, r: GameResult) -> Any:
        key = self._key(r)
        if key not in self._configs:
            self._configs[key] = config_of_record(dict(zip(("game_type", "width", "height", "win_length", "rule"),
                                                           key), game=r.game))
        return self._configs[key]

    def _counts(self, done: int) -> dict:
        """What a plotted point needs after ``done`` scored games: the counts alone (its figures are
        worked out when a page is written, and only for the points a page keeps)."""
        if self.outcome is not None:
            t = self.outcome.tally
            return {"x": done, "c": (t.wins, t.draws, t.losses, tuple(self.outcome.pairs.counts))}
        assert self.standings is not None
        return {"x": done, "c": tuple((e.wins, e.draws, e.losses, tuple(e.pairs.counts))
                                      for e in self.standings.engines)}

    def _point(self, counts: dict) -> dict:
        """The plotted figures of a point of :meth:`_counts` (computed once)."""
        if "elo" in counts:
            return counts
        if self.outcome is not None:
            w, d, l, pairs = counts["c"]
            # the match's own objects, holding these counts, give the figures as they give the summary's
            then = MatchOutcome(Tally(w, d, l), pairs=Pairs(list(pairs)), paired=self.outcome.paired)
            counts["elo"] = _triple(_match_elo(then))
            if self.sprt is not None:
                counts["llr"] = round(then.sprt_state(self.sprt).llr, 3)
        else:
            lines = [EngineLine(w, d, l, Pairs(list(pairs))) for w, d, l, pairs in counts["c"]]
            counts["elo"] = [_triple(line.elo()) if line.games else [None, None, None] for line in lines]
        return counts

    def _match_elo(self) -> tuple[float, float, float]:
        assert self.outcome is not None
        return _match_elo(self.outcome)

    # The page's data -------------------------------------------------------------------
    def data(self, state: str = "recorded") -> dict:
        """Everything the page shows (``state``: ``running``, ``finished``, ``interrupted`` or
        ``recorded``; see the page's script for how each part is drawn)."""
        info = self.info
        first = self.results[0] if self.results else None
        colours = colours_of(None if first is None else self._config(first))
        done = self._scored()
        points = [self._point(p) for p in self.points]
        if done and (not points or points[-1]["x"] != done):
            points.append(self._point(self._counts(done)))
        out: dict[str, Any] = {
            "version": 1,
            "kind": "match" if info.is_match else "gauntlet" if info.gauntlet else "round-robin",
            "state": state,
            "written": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "engines": [{"name": n, "tag": t} for n, t in zip(self.names, info.tags)],
            "colours": list(colours),
            "done": done, "recorded": len(self.games), "total": info.total,
            "clock": info.clock, "openings": info.openings,
            "games": self.games,
        }
        if first is not None:
            out["board"] = {"game": first.game_type, "w": first.width, "h": first.height, "k": first.win_length,
                            "rule": first.rule}
            out["rules"] = output.rules_text(self._config(first))
        out["summary"] = self._summary_text(colours)
        out["standings"] = self._standings_rows()
        if self.standings is not None:
            out["cross"] = self._cross()
            out["reference"] = self.standings.reference_text()
        out["plots"] = self._plots(points)
        out["verdicts"] = self.verdicts
        out["lengths"] = _histogram(self.lengths)
        if self.outcome is not None and self.sprt is not None and done:
            st = self.outcome.sprt_state(self.sprt)
            s = self.sprt
            out["sprt"] = {"llr": round(st.llr, 3), "lower": round(st.lower, 3), "upper": round(st.upper, 3),
                           "decision": st.decision, "elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha,
                           "beta": s.beta, "model": s.model, "paired": self.outcome.paired}
        return out

    def _summary_text(self, colours: tuple[str, str]) -> str:
        """What the terminal prints at the end of the match (so far)."""
        lines = []
        if self.outcome is not None:
            o = self.outcome
            lines.append(output.summary_text(self.names[0], self.names[1], o.tally, self.sprt, o.labels, colours,
                                             o.pairs if o.paired else None))
            labels: Any = o.labels
        elif self.standings is not None:
            lines.append(self.standings.table_text())
            labels = self.standings.labels_of
        else:
            return ""
        if self.results:
            lines.append("  endings: " + output.endings_text(self.results, labels))
        if self.info.openings:
            lines.append(f"  openings: {self.info.openings}")
        return "\n".join(lines)

    def _standings_rows(self) -> list[dict]:
        """One row an engine, best first: games, W/D/L, points, score and Elo (figure, interval)."""
        rows = []
        if self.outcome is not None:
            o = self.outcome
            t = o.tally
            every = "pair" if o.paired and o.pairs.n else "game"
            elo, lo, hi = self._match_elo()
            lines = [(0, t.wins, t.draws, t.losses, (elo, lo, hi)), (1, t.losses, t.draws, t.wins, (-elo, -hi, -lo))]
            lines.sort(key=lambda row: -(row[1] + 0.5 * row[2]))
            for rank, (e, w, d, l, figures) in enumerate(lines, 1):
                rows.append(_row(rank, e, w, d, l, figures if t.games else None, every))
        elif self.standings is not None:
            st = self.standings
            for rank, e in enumerate(st.order(), 1):
                line = st.engines[e]
                every = "pair" if line.pairs.n else "game"
                ref = self.info.gauntlet and e == 0
                rows.append(_row(rank, e, line.wins, line.draws, line.losses,
                                 None if ref or not line.games else line.elo(), every, ref))
        return rows

    def _cross(self) -> list[list[list[float] | None]]:
        """``cross[i][j]``: engine i's points and games against engine j (``None``: they do not meet)."""
        st = self.standings
        assert st is not None
        n = len(self.names)
        cross: list[list[list[float] | None]] = [[None] * n for _ in range(n)]
        for k, (i, j) in enumerate(st.tournament.pairings):
            t = st.tallies[k]
            cross[i][j] = [t.wins + 0.5 * t.draws, t.games]
            cross[j][i] = [t.losses + 0.5 * t.draws, t.games]
        return cross

    def _plots(self, points: list[dict]) -> dict:
        """The series of the Elo plot (one an engine in a tournament) and the LLR plot."""
        xs = [p["x"] for p in points]
        plots: dict[str, Any] = {"x": xs}
        if self.outcome is not None:
            o = self.outcome
            which = "colour-swapped pairs" if o.paired else "games"
            plots["elo"] = [{"e": 0, "name": f"{self.names[0]} ({o.labels[0]})", "basis": which,
                             "y": [p["elo"][0] for p in points], "lo": [p["elo"][1] for p in points],
                             "hi": [p["elo"][2] for p in points]}]
            if self.sprt is not None:
                lower, upper = sprt_bounds(self.sprt.alpha, self.sprt.beta)
                plots["llr"] = {"y": [p["llr"] for p in points], "lower": round(lower, 3), "upper": round(upper, 3)}
        elif self.standings is not None:
            series = []
            for e, name in enumerate(self.names):
                if self.info.gauntlet and e == 0:
                    continue  # the reference: its Elo is 0 by definition
                series.append({"e": e, "name": f"{name} ({self.info.tags[e]})",
                               "y": [p["elo"][e][0] for p in points], "lo": [p["elo"][e][1] for p in points],
                               "hi": [p["elo"][e][2] for p in points]})
            plots["elo"] = series
        return plots


def _match_elo(o: MatchOutcome) -> tuple[float, float, float]:
    """Engine1's Elo: from its colour-swapped pairs in a paired match, else from its games."""
    if o.paired and o.pairs.n:
        return pair_interval(o.pairs.counts)
    t = o.tally
    return elo_interval(t.wins, t.draws, t.losses)


def _row(rank: int, e: int, w: int, d: int, l: int, figures: tuple[float, float, float] | None,
         every: str, ref: bool = False) -> dict:
    games = w + d + l
    figure, words = ("(ref)", "") if ref else ("-", "") if figures is None else output.elo_parts(*figures, every)
    return {"rank": rank, "e": e, "games": games, "w": w, "d": d, "l": l, "points": w + 0.5 * d,
            "score": round(100.0 * (w + 0.5 * d) / games, 1) if games else None, "elo": figure, "ci": words}


def _histogram(lengths: Sequence[int], bins: int = 20) -> list[list[int]]:
    """``[low, high, count]`` rows (``low <= length < high``) over the games' lengths."""
    if not lengths:
        return []
    lo, hi = min(lengths), max(lengths) + 1
    width = max(1, math.ceil((hi - lo) / bins))
    counts = [0] * math.ceil((hi - lo) / width)
    for n in lengths:
        counts[(n - lo) // width] += 1
    return [[lo + i * width, lo + (i + 1) * width, c] for i, c in enumerate(counts)]
