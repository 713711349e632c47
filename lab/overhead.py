"""Measure the referee's own cost per move, and how games per second scale with concurrency.

    python -m lab.overhead [--games 20] [--size 15] [--concurrency 1 2]

Two instant engines (``python -m referee.random_engine``) play; for every move
the referee records the time from reading an engine's reply off the pipe to
having written the next command to the other engine: parsing, validation, its
own board and win test, clock keeping and the write.  Engine think time and
process start-up are excluded from that figure, but included in games/second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from engine.mnk.rules import GameConfig
from referee.match import MatchSettings, run_match
from referee.seats import EngineSpec, TimeControl


def measure(games: int, size: int, win_length: int, concurrency: int) -> dict:
    """Play ``games`` random games; return overhead percentiles (µs) and throughput."""
    def spec(seed: int) -> EngineSpec:
        argv = (sys.executable, "-m", "referee.random_engine", "--seed", str(seed))
        return EngineSpec(argv, "random")

    settings = MatchSettings(
        config=GameConfig(size, size, win_length),
        tc=TimeControl(turn_ms=5000, tolerance_ms=5000),
        games=games, concurrency=concurrency, quiet=True,
    )
    t = time.monotonic()
    outcome = run_match(spec(1), spec(2), settings)
    wall = time.monotonic() - t
    over = sorted(o for r in outcome.results for o in r.overhead_s)
    moves = sum(len(r.moves) for r in outcome.results)
    if not over:
        raise RuntimeError("no move was measured")
    return {
        "games": len(outcome.results),
        "moves": moves,
        "median_us": statistics.median(over) * 1e6,
        "p90_us": over[int(0.9 * (len(over) - 1))] * 1e6,
        "max_us": over[-1] * 1e6,
        "games_per_s": len(outcome.results) / wall,
        "moves_per_s": moves / wall,
        "wall_s": wall,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lab.overhead", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--size", type=int, default=15)
    ap.add_argument("--win-length", type=int, default=5)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average before: {load:.2f}; {os.cpu_count()} cpus; {args.size}x{args.size} k={args.win_length}")
    for c in args.concurrency:
        m = measure(args.games, args.size, args.win_length, c)
        print(f"concurrency {c}: {m['games']} games, {m['moves']} moves in {m['wall_s']:.2f} s; "
              f"referee overhead per move median {m['median_us']:.0f} us, p90 {m['p90_us']:.0f} us, "
              f"max {m['max_us']:.0f} us; {m['games_per_s']:.1f} games/s, {m['moves_per_s']:.0f} moves/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
