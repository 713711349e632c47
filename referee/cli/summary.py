"""``referee summary DIR [DIR ...]``: one summary of matches recorded in several folders.

A long comparison is often played as several matches, one ``--out`` folder each (a seed
each, a machine each, or a match stopped and started again elsewhere).  This reads their
``results.jsonl`` and prints each folder's score, then the end-of-match summary of all their
games together: W/D/L by colour, Elo, LOS and the colour-swapped pairs (a pair never spans
two folders).  Every folder must hold a match of the same two engines, engine1 first.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Sequence

from referee.match.output import endings_text, summary_text
from referee.match.records import read_results
from referee.match.settings import RESULTS_FILE, MatchOutcome
from referee.match.pentanomial import Pairs
from referee.match.stats import Tally
from referee.games.verdicts import was_played
from referee.play.result import GameResult
from referee.report.info import ReportInfo, colours_of, config_of_record

__all__ = ["main", "build_parser", "pooled"]

def build_parser() -> argparse.ArgumentParser:
    """The ``referee summary`` option parser."""
    p = argparse.ArgumentParser(
        prog="referee summary",
        description="Print one summary of the matches recorded in several folders (referee --out DIR): "
                    "each folder's score, then W/D/L by colour, Elo, LOS and the pairs of all their games. "
                    "The folders must hold matches of the same two engines.")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="the folder of a match played with --out DIR")
    return p


class SummaryError(ValueError):
    """A folder that cannot be pooled with the others (its message says why)."""


def pooled(dirs: Sequence[str | Path]) -> tuple[MatchOutcome, list[tuple[str, MatchOutcome]]]:
    """All the games of the matches in ``dirs`` as one outcome, and each folder's own.

    Raises :class:`SummaryError` when a folder holds no match, a tournament, or other
    engines than the first folder.
    """
    if not dirs:
        raise SummaryError("no folder given")
    each: list[tuple[str, MatchOutcome]] = []
    names: tuple[str, str] | None = None
    for d in dirs:
        path = Path(d) / RESULTS_FILE
        if not path.is_file():
            raise SummaryError(f"{d} holds no {RESULTS_FILE}: not the folder of a match played with --out")
        records = read_results(path)
        if not ReportInfo.from_results(records).is_match:
            raise SummaryError(f"{d} holds a tournament (three engines or more): summarise it with referee report")
        games = [GameResult.from_json(obj) for obj in records if was_played(obj.get("termination"))]
        if not games:
            raise SummaryError(f"{path} holds no finished game")
        own = MatchOutcome(Tally())
        for r in sorted(games, key=lambda r: r.game):
            if names is None:
                names = (r.engine1, r.engine2)
            if (r.engine1, r.engine2) != names:
                raise SummaryError(f"{d}: game {r.game} is {r.engine1} against {r.engine2}, "
                                   f"not {names[0]} against {names[1]} as in {dirs[0]}")
            own.count(r)
        each.append((str(d), own))
    # The folders' sums: each folder paired its own games, so no pair spans two of them.
    outcomes = [o for _, o in each]
    tally = Tally(*(sum(getattr(o.tally, f.name) for o in outcomes) for f in dataclasses.fields(Tally)))
    pairs = Pairs([sum(c) for c in zip(*(o.pairs.counts for o in outcomes))])
    total = MatchOutcome(tally, [r for o in outcomes for r in o.results], *names, pairs=pairs)
    return total, each


def folder_line(name: str, o: MatchOutcome) -> str:
    """One folder's score: engine1's points, as first and second player, and the openings' seed
    when its games share one."""
    t = o.tally
    (xw, xd, _), (ow, od, _) = t.as_x, t.as_o
    seeds = {r.seed for r in o.results}
    seed = f"   seed {seeds.pop()}" if len(seeds) == 1 and None not in seeds else ""
    return (f"{name}: {t.wins + t.draws / 2:g} of {t.games} ({100 * t.score():.1f} %)   "
            f"first {xw + xd / 2:g} of {sum(t.as_x)}   second {ow + od / 2:g} of {sum(t.as_o)}{seed}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``referee summary``."""
    p = build_parser()
    args = p.parse_args(argv)
    try:
        total, each = pooled(args.dirs)
    except SummaryError as exc:
        p.error(str(exc))
    try:
        colours = colours_of(config_of_record(total.results[0].to_json()))
    except ValueError:  # a board this referee does not know: the names of the first game's colours
        colours = colours_of(None)
    for name, o in each:
        print(folder_line(name, o))
    print(summary_text(total.name1, total.name2, total.tally, colours=colours, pairs=total.pairs))
    print(f"  endings: {endings_text(total.results)}")
    return 0
