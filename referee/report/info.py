"""What a match report needs beyond ``results.jsonl``: :class:`ReportInfo`, kept in ``DIR/report.json``.

The results name each game's engines, board and verdict, but not the engines' places
in a tournament that has not played them yet, the number of games planned, the SPRT's
hypotheses or the clock.  The match writes them (:meth:`ReportInfo.of_match`,
:func:`save_info`); ``referee report DIR`` reads them back (:func:`load_info`), or,
for a match recorded without them, works out what it can from the results
(:meth:`ReportInfo.from_results`).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

from engine.game import GameError
from engine.mnk.board.rules import GameConfig, Rule
from engine.reversi.board.rules import ReversiConfig
from referee.games import rules_for
from referee.match import output
from referee.match.settings import MatchSettings
from referee.match.stats import Sprt
from referee.match.tournament import Tournament, pairings_of

__all__ = ["ReportInfo", "INFO_FILE", "load_info", "save_info", "config_of_record", "colours_of",
           "placeholder_tournament"]

#: The file of ``--out DIR`` that holds a :class:`ReportInfo` as JSON.
INFO_FILE = "report.json"


@dataclass
class ReportInfo:
    """The settings a report shows: the engines by place, the schedule, the SPRT, the texts.

    ``names``/``tags``: every engine's name and how the texts call it (``engine1``, or a
    person's name); ``per_pairing``: the games each pairing plays (``None``: not known);
    ``paired``: the statistics are those of colour-swapped pairs (no person plays);
    ``sprt``: the test's ``elo0``, ``elo1``, ``alpha``, ``beta`` and ``model``, if any.
    """

    names: list[str]
    tags: list[str]
    per_pairing: int | None = None
    gauntlet: bool = False
    paired: bool = True
    sprt: dict[str, Any] | None = None
    clock: str = ""
    openings: str = ""

    @property
    def is_match(self) -> bool:
        return len(self.names) == 2

    @property
    def total(self) -> int | None:
        """Games the whole match or tournament plays (``None``: not known)."""
        if self.per_pairing is None:
            return None
        return self.per_pairing * len(pairings_of(len(self.names), self.gauntlet))

    def sprt_test(self) -> Sprt | None:
        """The SPRT as :class:`referee.match.stats.Sprt` (``None``: none, or one that does not hold)."""
        if not self.sprt or not self.is_match:
            return None
        try:
            s = self.sprt
            return Sprt(float(s["elo0"]), float(s["elo1"]), float(s.get("alpha", 0.05)),
                        float(s.get("beta", 0.05)), str(s.get("model", "logistic")))
        except (KeyError, TypeError, ValueError):
            return None

    @classmethod
    def of_match(cls, settings: MatchSettings, names: Sequence[str], tags: Sequence[str],
                 paired: bool = True) -> "ReportInfo":
        """The info of a match about to play under ``settings`` (its seed resolved)."""
        sprt = None
        if settings.sprt is not None:
            sp = settings.sprt
            sprt = {"elo0": sp.elo0, "elo1": sp.elo1, "alpha": sp.alpha, "beta": sp.beta, "model": sp.model}
        return cls(names=list(names), tags=list(tags), per_pairing=settings.games, gauntlet=settings.gauntlet,
                   paired=paired, sprt=sprt, clock=output.clock_text(settings.tc),
                   openings=settings.openings_text())

    @classmethod
    def from_json(cls, obj: Any) -> "ReportInfo | None":
        """The info of a ``report.json`` object; ``None`` when it is not one."""
        if not isinstance(obj, dict):
            return None
        names, tags = obj.get("names"), obj.get("tags")
        if not (isinstance(names, list) and isinstance(tags, list) and len(names) == len(tags) >= 2):
            return None
        per = obj.get("per_pairing")
        sprt = obj.get("sprt")
        return cls(names=[str(n) for n in names], tags=[str(t) for t in tags],
                   per_pairing=per if isinstance(per, int) and per > 0 else None,
                   gauntlet=bool(obj.get("gauntlet", False)), paired=bool(obj.get("paired", True)),
                   sprt=sprt if isinstance(sprt, dict) else None, clock=str(obj.get("clock", "")),
                   openings=str(obj.get("openings", "")))

    @classmethod
    def from_results(cls, records: Sequence[dict]) -> "ReportInfo":
        """What the results of a match recorded without ``report.json`` tell: the engines (by
        their places in a tournament), whether it is a gauntlet, and the games a pairing plays."""
        places = [r.get("engine_numbers") for r in records]
        numbered = [p for p in places if isinstance(p, list) and len(p) == 2 and all(isinstance(v, int) for v in p)]
        n = max([2] + [max(p) for p in numbered])
        names = [f"engine{i + 1}" for i in range(n)]
        for r in records:  # the latest name of each place, as the standings keep it
            p = r.get("engine_numbers") if n > 2 else [1, 2]
            if isinstance(p, list) and len(p) == 2:
                for place, key in zip(p, ("engine1", "engine2")):
                    if isinstance(place, int) and 1 <= place <= n and r.get(key):
                        names[place - 1] = str(r[key])
        gauntlet = False
        if n > 2:
            fits = [g for g in (False, True) if _pairings_fit(records, n, g)]
            gauntlet = fits[0] if fits else False
        info = cls(names=names, tags=[f"engine{i + 1}" for i in range(n)], gauntlet=gauntlet)
        info.per_pairing = _per_pairing(records, info)
        return info


def _pairings_fit(records: Sequence[dict], n: int, gauntlet: bool) -> bool:
    pairings = pairings_of(n, gauntlet)
    for r in records:
        k, places = r.get("pairing"), r.get("engine_numbers")
        if not isinstance(k, int) or not 1 <= k <= len(pairings):
            return False
        if [i + 1 for i in pairings[k - 1]] != places:
            return False
    return True


def _per_pairing(records: Sequence[dict], info: ReportInfo) -> int | None:
    """The smallest number of games a pairing plays that numbers the recorded games as they are
    (the games of a pairing alone do not tell whether its last pair was played whole)."""
    if not records:
        return None
    if info.is_match:
        return max(r["game"] for r in records)
    low = max((r.get("pairing_game") or 1) for r in records)
    for per in (low, low + 1):
        t = placeholder_tournament(len(info.names), per, info.gauntlet)
        try:
            if all(t.locate(r["game"]) == (r.get("pairing", 0) - 1, r.get("pairing_game")) for r in records):
                return per
        except ValueError:
            continue
    return None


def placeholder_tournament(engines: int, per_pairing: int, gauntlet: bool) -> Tournament:
    """The games of a tournament of ``engines`` engines, each pairing playing ``per_pairing``:
    the numbering and pairs of :class:`referee.match.tournament.Tournament`, without engines to
    play them (a report only counts their games)."""
    return Tournament([None] * engines, MatchSettings(games=per_pairing, gauntlet=gauntlet))  # type: ignore[list-item]


def config_of_record(obj: dict) -> Any:
    """The game configuration a ``results.jsonl`` object was played under (``ValueError`` if none)."""
    try:
        if obj.get("game_type", "mnk") == "reversi":
            return ReversiConfig(int(obj["width"]))
        return GameConfig(int(obj["width"]), int(obj["height"]), int(obj["win_length"]),
                          Rule(obj.get("rule") or "freestyle"))
    except (KeyError, TypeError, ValueError, GameError) as exc:
        raise ValueError(f"game {obj.get('game')}: no board this referee knows ({exc})") from None


def colours_of(config: Any) -> tuple[str, str]:
    """The names of the first and second colour of a game configuration (``X``/``O``,
    ``black``/``white``; ``None``: X and O)."""
    if config is None:
        return "X", "O"
    rules = rules_for(config)
    return rules.colour_name(1), rules.colour_name(2)


def load_info(out_dir: str | os.PathLike) -> ReportInfo | None:
    """The :class:`ReportInfo` kept in ``out_dir``, or ``None`` (none, or not readable as one)."""
    try:
        text = (Path(out_dir) / INFO_FILE).read_text(encoding="utf-8")
        return ReportInfo.from_json(json.loads(text))
    except (OSError, ValueError):
        return None


def save_info(out_dir: str | os.PathLike, info: ReportInfo) -> Path:
    """Write ``info`` into ``out_dir`` (through a temporary file, so a reader never sees half of it)."""
    path = Path(out_dir) / INFO_FILE
    tmp = path.with_name(f".{INFO_FILE}.tmp")
    obj = asdict(info)
    tmp.write_text(json.dumps(obj, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path
