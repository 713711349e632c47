"""What writing the match report costs a match: games a second with and without ``DIR/report.html``.

    python -m lab.report_overhead [--games 2000] [--repeats 3] [--size 15] [--win-length 5]

Plays ``referee random random --games N --out DIR --quiet`` in this process (the built-in
random movers: the fastest games the referee plays, so the page's share is at its largest),
alternating runs with the page and runs where the match is given no report (the one
difference), ``--repeats`` times each, and prints each run's games a second, the medians,
the page's size and number of writes, and the share of the match's time spent in the report
(counting each game, and writing the page) -- a figure the machine's noise does not blur.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

from referee.cli.main import main as referee
from referee.report import live


def one_run(args: argparse.Namespace, with_page: bool) -> tuple[float, int, int, float]:
    """Games a second of one match; the page's size, its writes and the share of the match's time
    spent in the report (0s without it)."""
    writes = []
    spent = [0.0]
    real_write, real_recorded, real_close = live.LiveReport.write, live.LiveReport.game_recorded, live.LiveReport.close

    def counted(self, state):
        writes.append(state)
        return real_write(self, state)

    def timed(real):
        def run(self, *a, **k):
            t = time.perf_counter()
            try:
                return real(self, *a, **k)
            finally:
                spent[0] += time.perf_counter() - t
        return run

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "m"
        argv = ["random", "random", "--games", str(args.games), "--size", str(args.size), "--win-length",
                str(args.win_length), "--seed", "1", "--out", str(out), "--quiet"]
        patches = [mock.patch.object(live.LiveReport, "write", counted),
                   mock.patch.object(live.LiveReport, "game_recorded", timed(real_recorded)),
                   mock.patch.object(live.LiveReport, "close", timed(real_close))] if with_page else \
            [mock.patch.object(live.LiveReport, "of_match", classmethod(lambda cls, *a, **k: None))]
        with contextlib.ExitStack() as stack, contextlib.redirect_stdout(io.StringIO()):
            for patch in patches:
                stack.enter_context(patch)
            t0 = time.perf_counter()
            assert referee(argv) == 0
            elapsed = time.perf_counter() - t0
        page = out / "report.html"
        return args.games / elapsed, page.stat().st_size if page.exists() else 0, len(writes), spent[0] / elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--size", type=int, default=15)
    p.add_argument("--win-length", type=int, default=5)
    args = p.parse_args()
    rates: dict[bool, list[float]] = {True: [], False: []}
    for i in range(args.repeats):
        for with_page in (i % 2 == 0, i % 2 == 1):  # alternate which arm goes first
            rate, size, writes, share = one_run(args, with_page)
            rates[with_page].append(rate)
            extra = f"  page {size / 1e6:.2f} MB, {writes} writes, {100 * share:.1f} % of the time in the report" \
                if with_page else ""
            print(f"run {i + 1} {'with page   ' if with_page else 'without page'}: {rate:7.1f} games/s{extra}",
                  flush=True)
    for with_page in (False, True):
        print(f"median {'with page   ' if with_page else 'without page'}: "
              f"{statistics.median(rates[with_page]):7.1f} games/s")


if __name__ == "__main__":
    main()
