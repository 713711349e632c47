"""The data a match report shows, built from the results file game by game: :class:`ReportBuilder`.

Every figure comes from the code that makes the terminal's: the match's tally, pairs and
SPRT from :class:`referee.match.settings.MatchOutcome`, a tournament's from
:class:`referee.match.standings.Standings`, the texts from :mod:`referee.match.output`.
The plots over the games recount the same objects one game at a time and keep a point
every ``step`` games (``step`` doubles whenever more than :data:`MAX_POINTS` points
would be kept), so that a long match's page stays small and each point is computed once.

Games are kept compact for the page: a move is two characters, column and row in
:data:`ALPHABET` (``..`` a pass), so a 2,000-game match stays well under a few megabytes.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any, Sequence

from engine.mnk.rules import winning_line
from referee.games import rules_for
from referee.games.verdicts import Termination
from referee.match import output
from referee.match.pentanomial import pair_interval
from referee.match.settings import MatchOutcome
from referee.match.standings import Standings
from referee.match.stats import Tally, elo_interval, sprt_bounds
from referee.play.result import GameResult
from referee.report.info import ReportInfo, colours_of, config_of_record, placeholder_tournament

__all__ = ["ReportBuilder", "ALPHABET", "PASS", "MAX_POINTS", "move_codes", "decode_cells"]

#: A board coordinate (0..63) as one character.
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
#: A pass, where a move's two characters go.
PASS = ".."
#: The most points a plot keeps (beyond it every other one is dropped).
MAX_POINTS = 256
#: The cell a foul names in its reason: ``played 7,7`` (m,n,k), ``played f5`` (Reversi).
_FOUL_MNK = re.compile(r"played (-?\d+),(-?\d+)")
_FOUL_REVERSI = re.compile(r"played ([a-z])(\d{1,2})\b")
#: The ends where a cell is at fault (marked on the board).
_FOULS = (Termination.FORBIDDEN.value, Termination.ILLEGAL_MOVE.value)


def _code(x: int, y: int) -> str:
    return ALPHABET[x] + ALPHABET[y]


def move_codes(obj: dict) -> str:
    """A recorded game's moves (``results.jsonl``'s ``moves``), two characters each."""
    out = []
    if obj.get("game_type", "mnk") == "reversi":
        for word in obj["moves"]:
            w = str(word).lower()
            out.append(PASS if w in ("pass", "pa") else _code(ord(w[0]) - ord("a"), int(w[1:]) - 1))
    else:
        out.extend(_code(int(x), int(y)) for x, y in obj["moves"])
    return "".join(out)


def decode_cells(codes: str) -> list[tuple[int, int] | None]:
    """The cells of a :func:`move_codes` string (``None`` for a pass)."""
    return [None if codes[i:i + 2] == PASS else (ALPHABET.index(codes[i]), ALPHABET.index(codes[i + 1]))
            for i in range(0, len(codes), 2)]


def _figure(v: float, nd: int = 1) -> float | None:
    """A plotted value: rounded, ``None`` for an infinite one (the data do not bound it)."""
    return None if math.isinf(v) or math.isnan(v) else round(v, nd)


def _triple(t: tuple[float, float, float]) -> list[float | None]:
    return [_figure(v) for v in t]


class ReportBuilder:
    """The report of one match, fed its ``results.jsonl`` objects in file order (:meth:`add`);
    :meth:`data` gives the page's data at any point."""

    def __init__(self, info: ReportInfo) -> None:
        self.info = info
        self.names = list(info.names)
        self.records: list[dict] = []
        self.results: list[GameResult] = []  # the scored and listed games, as the match counted them
        self.games: list[dict] = []  # the page's game entries, made once each
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
        self._rules: dict[tuple, Any] = {}

    # Feeding ---------------------------------------------------------------------------
    def add(self, obj: dict) -> None:
        """Count and list one game of ``results.jsonl`` (an interrupted one, or one that is not
        a game record, is skipped: the match never counts them)."""
        if obj.get("termination") == Termination.INTERRUPTED.value:
            return
        try:
            r = GameResult.from_json(obj)
            entry = self._entry(obj, r)
        except (KeyError, TypeError, ValueError, IndexError):
            return
        self.records.append(obj)
        self.results.append(r)
        self.games.append(entry)
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
                self.points.append(self._point(done))
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

    def _engines_of(self, obj: dict) -> tuple[int, int]:
        """The places (0-based) of a game's engine1 and engine2."""
        places = obj.get("engine_numbers")
        if self.info.is_match or not isinstance(places, list):
            return 0, 1
        i, j = (int(p) - 1 for p in places)
        if not (0 <= i < len(self.names) and 0 <= j < len(self.names)):
            raise ValueError("engine_numbers out of range")
        return i, j

    def _entry(self, obj: dict, r: GameResult) -> dict:
        """The page's entry of one game (see the module docstring for the moves)."""
        i, j = self._engines_of(obj)
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
        times = [int(t) for t in r.times_ms]
        entry: dict[str, Any] = {
            "g": r.game, "e": [first, second], "w": won, "t": r.termination, "why": r.reason,
            "mv": move_codes(obj), "op": int(r.opening or 0), "ms": times,
            "tm": [sum(times[0::2]), sum(times[1::2])], "d": round(float(r.duration_s or 0.0), 2),
        }
        if r.game_type == "reversi":
            entry["f"] = [f"game-{r.game:04d}.ggf"]
            if r.discs is not None:
                entry["discs"] = list(r.discs)
        else:
            entry["f"] = [f"game-{r.game:04d}.sgf", f"game-{r.game:04d}.psq"]
        line = self._winning_line(obj, r)
        if line:
            entry["line"] = line
        foul = self._foul(obj, r)
        if foul:
            entry["foul"] = foul
        if obj.get("foul") is True:
            entry["fm"] = 1  # the last move is the foul itself: shown marked, not as a stone
        return entry

    def _config(self, obj: dict) -> Any:
        key = (obj.get("game_type"), obj.get("width"), obj.get("height"), obj.get("win_length"), obj.get("rule"))
        if key not in self._rules:
            self._rules[key] = config_of_record(obj)
        return self._rules[key]

    def _winning_line(self, obj: dict, r: GameResult) -> str:
        """The stones of the line that won (m,n,k), as move codes."""
        if r.game_type == "reversi" or r.termination != Termination.LINE.value or not r.moves:
            return ""
        config = self._config(obj)
        board = rules_for(config).replay(r.moves)
        if not board.history:
            return ""
        return "".join(_code(*config.xy(m)) for m in winning_line(board, board.history[-1]))

    def _foul(self, obj: dict, r: GameResult) -> str:
        """The cell of the foul that ended the game, when it is on the board: the last move when
        the record keeps the foul (``"foul": true``), else the cell its reason names."""
        if obj.get("foul") is True and r.moves:
            return move_codes({"game_type": r.game_type, "moves": r.moves[-1:]})
        if r.termination not in _FOULS:
            return ""
        if r.game_type == "reversi":
            m = _FOUL_REVERSI.search(r.reason)
            if m is None:
                return ""
            x, y = ord(m.group(1)) - ord("a"), int(m.group(2)) - 1
        else:
            m = _FOUL_MNK.search(r.reason)
            if m is None:
                return ""
            x, y = int(m.group(1)), int(m.group(2))
        return _code(x, y) if 0 <= x < r.width and 0 <= y < r.height else ""

    def _point(self, done: int) -> dict:
        """The plotted figures after ``done`` scored games."""
        point: dict[str, Any] = {"x": done}
        if self.outcome is not None:
            point["elo"] = _triple(self._match_elo())
            if self.sprt is not None:
                point["llr"] = round(self.outcome.sprt_state(self.sprt).llr, 3)
        elif self.standings is not None:
            point["elo"] = [_triple(line.elo()) if line.games else [None, None, None]
                            for line in self.standings.engines]
        return point

    def _match_elo(self) -> tuple[float, float, float]:
        """Engine1's Elo: from its colour-swapped pairs in a paired match, else from its games."""
        o = self.outcome
        assert o is not None
        if o.paired and o.pairs.n:
            return pair_interval(o.pairs.counts)
        t = o.tally
        return elo_interval(t.wins, t.draws, t.losses)

    # The page's data -------------------------------------------------------------------
    def data(self, state: str = "recorded") -> dict:
        """Everything the page shows (``state``: ``running``, ``finished``, ``interrupted`` or
        ``recorded``; see the page's script for how each part is drawn)."""
        info = self.info
        first = self.records[0] if self.records else None
        colours = colours_of(first)
        done = self._scored()
        points = list(self.points)
        if done and (not points or points[-1]["x"] != done):
            points.append(self._point(done))
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
            config = self._config(first)
            out["board"] = {"game": first.get("game_type", "mnk"), "w": int(first["width"]),
                            "h": int(first["height"]), "k": first.get("win_length"), "rule": first.get("rule")}
            out["rules"] = output.rules_text(config)
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
