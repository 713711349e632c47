"""What ``referee`` prints once a match has ended: the summary, the endings, and why it stopped early."""

from __future__ import annotations

import sys

from referee.games import rules_for
from referee.match import output as display
from referee.match.settings import MatchOutcome, MatchSettings

__all__ = ["report"]


def report(outcome: MatchOutcome, settings: MatchSettings) -> int:
    """Print the summary and notes of a finished match; return the exit status."""
    rules = rules_for(settings.config)
    standings = outcome.standings
    if standings is not None:
        print(standings.table_text(), flush=True)
    else:
        print(display.summary_text(outcome.name1, outcome.name2, outcome.tally, settings.sprt, outcome.labels,
                                   (rules.colour_name(1), rules.colour_name(2)),
                                   outcome.pairs if outcome.paired else None), flush=True)
    if outcome.results:
        labels = outcome.labels if standings is None else standings.labels_of
        print("  endings: " + display.endings_text(outcome.results, labels), flush=True)
    ran = outcome.settings or settings
    if ran.seeded:
        print(f"  openings: {ran.openings_text()}", flush=True)
    if outcome.write_error is not None:
        kept = (f"; the games recorded in {settings.out_dir} are kept: once it can be written, run the same "
                "command with --resume to continue") if settings.out_dir else ""
        print(f"referee: {outcome.write_error}: the match stopped after {len(outcome.results)} of "
              f"{settings.games if standings is None else standings.tournament.total} games{kept}",
              file=sys.stderr)
        return 1
    if outcome.ended_by is not None:
        print(f"referee: {outcome.ended_by} ended the match after {outcome.tally.games} of {settings.games} games",
              file=sys.stderr)
    if outcome.interrupted:
        if settings.out_dir:  # only then is anything kept
            print(f"referee: interrupted; finished games are kept in {settings.out_dir} "
                  "(run the same command with --resume to continue)", file=sys.stderr)
        else:
            print("referee: interrupted", file=sys.stderr)
        return 130
    return 0
