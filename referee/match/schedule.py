"""The schedule of a match: which games are still to play, from which opening, with which colours.

The games and their numbers are the :class:`~referee.match.tournament.Tournament`'s (a match
of two engines is one pairing, whose games are numbered as follows).  Game ``g`` (1-based) is played with engine1 as the first colour when ``g`` is odd
(``first=2`` flips this); games ``2j-1`` and ``2j`` share one opening with colours
swapped; random openings are drawn from the match's seed and the game number
alone, so a seed repeats a match and a resumed match keeps its openings (an unset
seed is drawn at random, or taken from the resumed match's records, where every
game keeps it).  A resumed match plays only the games its records lack; a tournament's
records must name the same engines for each game number (the same engines, ``--games``,
``--rounds`` and ``--gauntlet``).
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Sequence

from referee.errors import MatchError
from referee.games import rules_for
from referee.games.verdicts import was_played
from referee.match.records import read_results
from referee.match.settings import COMMAND_FILE, RESULTS_FILE, MatchSettings
from referee.match.tournament import Tournament
from referee.play.result import GameResult
from referee.play.job import GameJob
from referee.seats.spec import EngineSpec

__all__ = ["Schedule", "require_recorded_match", "recorded_command", "settings_differences"]


class Schedule:
    """The games of a match between ``specs`` under ``settings``, its records read and its seed fixed.

    :attr:`settings` are the settings with the seed resolved; :attr:`tournament` the games
    and their numbers; :attr:`prior` the games already recorded (``--resume``), by number;
    :attr:`todo` the numbers still to play.
    """

    def __init__(self, specs: Sequence[EngineSpec], settings: MatchSettings) -> None:
        self.specs = tuple(specs)
        layout = Tournament(self.specs, settings)
        prior = _prior_results(settings, layout)
        self.settings = _resolve_seed(settings, prior)
        self.tournament = Tournament(self.specs, self.settings)
        total = self.tournament.total
        self.prior = {g: r for g, r in sorted(prior.items()) if g <= total}
        self.todo = [g for g in range(1, total + 1) if g not in prior]

    def job(self, game: int, about_wait: Sequence[bool] = (True, True)) -> GameJob:
        """Game ``game`` as a job (``about_wait[e]``: wait for engine e's name after its start)."""
        return self.tournament.job(game, about_wait)


def _prior_results(settings: MatchSettings, layout: Tournament) -> dict[int, GameResult]:
    """The finished games recorded in ``--out DIR`` (a MatchError when there are some without
    ``--resume``, or when they were played by other engines than ``layout`` gives their numbers)."""
    if not settings.out_dir:
        return {}
    path = Path(settings.out_dir) / RESULTS_FILE
    prior = read_results(path)
    if prior and not settings.resume:
        raise MatchError(f"{path} already holds {len(prior)} games: use --resume, or another --out")
    rules = rules_for(settings.config)
    out = {}
    for obj in prior:
        if rules.record_key(obj) != rules.current_key():
            raise MatchError(f"{path}: game {obj['game']} was played with other settings: "
                             f"{settings_differences(rules.record_key(obj), rules.current_key())}"
                             f"{_repeat_hint(settings.out_dir)}")
        if obj["game"] <= layout.total and obj.get("engine_numbers") != \
                layout.record_fields(obj["game"]).get("engine_numbers"):
            raise MatchError(f"{path}: game {obj['game']} was played by other engines: resume with the same "
                             f"engines, --games, --rounds and --gauntlet{_repeat_hint(settings.out_dir)}")
        if was_played(obj.get("termination")):
            out[obj["game"]] = GameResult.from_json(obj)
    return out


def require_recorded_match(out_dir: str) -> None:
    """``--resume``: a :class:`MatchError` unless ``out_dir`` holds a match (its results, or the
    command line of one that had finished no game yet) - never a new match started silently."""
    d = Path(out_dir)
    if not d.exists():
        raise MatchError(f"--resume: {out_dir} does not exist, so there is no match to continue "
                         f"(leave out --resume to start one)")
    if not (d / RESULTS_FILE).is_file() and not (d / COMMAND_FILE).is_file():
        raise MatchError(f"--resume: {out_dir} holds no match to continue (no {RESULTS_FILE}); "
                         f"leave out --resume to start one")


def recorded_command(out_dir: str | None) -> str:
    """The command line recorded in ``out_dir`` (its first line), or ``""``."""
    if not out_dir:
        return ""
    try:
        text = (Path(out_dir) / COMMAND_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text.strip().splitlines()[0] if text.strip() else ""


def _repeat_hint(out_dir: str | None) -> str:
    command = recorded_command(out_dir)
    if not command:
        return ""
    return f"; the match was started with: {command}" + \
        ("" if "--resume" in command.split() else " (add --resume to continue it)")


def settings_differences(recorded: tuple, given: tuple) -> str:
    """The game settings that differ between a record's key and the match's (the rules'
    ``record_key``: game, width, height, then for m,n,k the win length and the rule), in words:
    ``size 15x15 recorded, 9x9 given``."""
    def fields(key: tuple) -> dict[str, str]:
        out = {"game": str(key[0]), "size": f"{key[1]}x{key[2]}"}
        if len(key) > 4:
            out.update({"win length": str(key[3]), "rule": str(key[4])})
        return out

    rec, cur = fields(recorded), fields(given)
    if rec["game"] != cur["game"]:
        return f"game {rec['game']} recorded, {cur['game']} given"
    parts = [f"{k} {rec.get(k)} recorded, {cur.get(k)} given" for k in cur if rec.get(k) != cur.get(k)]
    return "; ".join(parts) or "other game settings"


def _resolve_seed(settings: MatchSettings, prior: dict[int, GameResult]) -> MatchSettings:
    """Fix the random openings' seed: the given one, a resumed match's, or a new random one."""
    if not settings.seeded:
        return settings
    recorded = {r.seed for r in prior.values() if r.seed is not None}
    if settings.seed is not None:
        if recorded and recorded != {settings.seed}:
            raise MatchError(f"the games in {settings.out_dir} were played with --seed {min(recorded)}: "
                             f"resume with that seed, or without --seed")
        return settings
    if len(recorded) > 1:
        raise MatchError(f"the games in {settings.out_dir} were played with several seeds: give --seed")
    # A short seed is easy to type back; a million openings sequences are plenty.
    seed = recorded.pop() if recorded else random.SystemRandom().randrange(1, 1_000_000)
    return dataclasses.replace(settings, seed=seed)
