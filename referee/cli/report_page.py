"""``referee report DIR``: write the match report ``DIR/report.html`` again from a recorded match.

A match played with ``--out DIR`` writes its page as it goes; this writes it from the
records alone: after an interrupted, resumed or cluster match, or for a match recorded
before the page existed.  The settings the page shows beyond the results (the clock, the
SPRT, the games planned) come from ``DIR/report.json``; without it they are worked out
from the results, and ``--sprt`` gives the test to plot.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from referee.match.records import read_results
from referee.match.settings import RESULTS_FILE
from referee.match.stats import SPRT_MODELS, Sprt
from referee.report.data import ReportBuilder
from referee.report.info import ReportInfo, load_info
from referee.report.page import write_page

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The ``referee report`` option parser."""
    p = argparse.ArgumentParser(
        prog="referee report",
        description="Write DIR/report.html, the match report (standings, plots, every game replayable), "
                    "from the games recorded in DIR (referee --out DIR). It opens in any browser, "
                    "from the file system.")
    p.add_argument("dir", metavar="DIR", help="the folder of a match played with --out DIR")
    p.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                   help="plot this SPRT (the one recorded in DIR/report.json otherwise)")
    p.add_argument("--sprt-model", choices=SPRT_MODELS, default="logistic", help="the Elo of --sprt's bounds")
    p.add_argument("--alpha", type=float, default=0.05, help="SPRT false-positive rate (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="SPRT false-negative rate (default 0.05)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``referee report``."""
    p = build_parser()
    args = p.parse_args(argv)
    out_dir = Path(args.dir)
    results = out_dir / RESULTS_FILE
    if not out_dir.is_dir():
        p.error(f"{out_dir} is not a folder")
    if not results.is_file():
        p.error(f"{out_dir} holds no {RESULTS_FILE}: not the folder of a match played with --out")
    records = read_results(results)
    if not records:
        p.error(f"{results} holds no finished game")
    info = load_info(out_dir) or ReportInfo.from_results(records)
    if args.sprt:
        try:
            s = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta, args.sprt_model)
        except ValueError as exc:
            p.error(f"--sprt: {exc}")
        if not info.is_match:
            p.error("--sprt: a tournament (three engines or more) has no SPRT")
        info.sprt = {"elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta, "model": s.model}
    builder = ReportBuilder(info)
    for obj in records:
        builder.add_record(obj)
    try:
        path = write_page(out_dir, builder.data("recorded"), builder.games_json)
    except OSError as exc:
        print(f"referee report: cannot write {out_dir / 'report.html'}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"{path}: {len(builder.games)} game{'s' if len(builder.games) != 1 else ''}")
    return 0
