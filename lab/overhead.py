"""Measure the referee's own cost per move, and how games per second scale with concurrency or a cluster.

    python -m lab.overhead [--games 20] [--size 15] [--concurrency 1 2] [--restart auto always]
                           [--cluster local:2] [--marginal]

Two instant engines (``python -m referee.engines.random_engine``) play; for every move
the referee records the time from reading an engine's reply off the pipe to
having written the next command to the other engine: parsing, validation, its
own board and win test, clock keeping and the write.  Engine think time and
process start-up are excluded from that figure, but included in games/second.
``--restart auto always`` measures each setting with engines kept between games and
with a new pair of processes for every game.

``--cluster ADDRESS`` also plays the games through ``referee --cluster`` (the
per-move figure is then measured on the workers).  ``--marginal`` plays each
setting twice, ``games`` and ``2 * games``, and reports the time one more game
adds, ``(T(2n) - T(n)) / n``: what is paid once per match (starting a local
cluster, the start check) cancels out, so the cluster's cost per game is its
marginal time less that of ``--concurrency`` with as many games at once.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

from engine.mnk.board.rules import GameConfig
from engine.reversi.board.rules import ReversiConfig
from referee.match.run import run_match
from referee.match.settings import MatchSettings
from referee.games.clock import TimeControl
from referee.seats.spec import EngineSpec


def measure(games: int, size: int, win_length: int, concurrency: int = 1, cluster: str | None = None,
            game: str = "mnk", restart: str = "auto") -> dict:
    """Play ``games`` random games (here, or on ``cluster``); return overhead percentiles (µs) and throughput.

    ``game``: ``mnk`` (Gomocup random brains on a ``size`` board) or ``reversi`` (NBoard random
    engines, 8x8)."""
    reversi = game == "reversi"

    def spec(seed: int) -> EngineSpec:
        argv = (sys.executable, "-m", "referee.engines.random_engine", "--seed", str(seed)) + (("--nboard",) if reversi else ())
        return EngineSpec(argv, "random")

    settings = MatchSettings(
        config=ReversiConfig(8) if reversi else GameConfig(size, size, win_length),
        tc=TimeControl(turn_ms=5000, tolerance_ms=5000),
        games=games, concurrency=concurrency, quiet=True, cluster=cluster, restart=restart,
    )
    t, cpu = time.monotonic(), _cpu_s()
    outcome = run_match(spec(1), spec(2), settings)
    wall, cpu = time.monotonic() - t, _cpu_s() - cpu
    over = sorted(o for r in outcome.results for o in r.overhead_s)
    moves = sum(len(r.moves) for r in outcome.results)
    if not over:
        raise RuntimeError("no move was measured")
    return {
        "games": len(outcome.results),
        "moves": moves,
        "median_us": statistics.median(over) * 1e6,
        "p90_us": over[int(0.9 * (len(over) - 1))] * 1e6,
        "p99_us": over[int(0.99 * (len(over) - 1))] * 1e6,
        "max_us": over[-1] * 1e6,
        "games_per_s": len(outcome.results) / wall,
        "moves_per_s": moves / wall,
        "wall_s": wall,
        "cpu_s": cpu,
    }


def _measure_one(label: str, how: dict, args: argparse.Namespace) -> dict[str, float]:
    """Measure one setting (and its marginal cost per game, if asked); print it; return its key figures."""
    m = measure(args.games, args.size, args.win_length, game=args.game, **how)
    print(f"{label}: {m['games']} games, {m['moves']} moves in {m['wall_s']:.2f} s ({m['cpu_s']:.2f} s CPU); "
          f"referee overhead per move median {m['median_us']:.0f} us, p90 {m['p90_us']:.0f} us, "
          f"p99 {m['p99_us']:.0f} us, "
          f"max {m['max_us']:.0f} us; {m['games_per_s']:.1f} games/s, {m['moves_per_s']:.0f} moves/s", flush=True)
    figures = {"games/s": m["games_per_s"], "overhead/move us": m["median_us"]}
    if args.marginal:
        m2 = measure(2 * args.games, args.size, args.win_length, game=args.game, **how)
        n = m2["games"] - m["games"]
        extra, extra_cpu = (m2["wall_s"] - m["wall_s"]) / n, (m2["cpu_s"] - m["cpu_s"]) / n
        print(f"{label}: {m2['games']} games in {m2['wall_s']:.2f} s; one more game adds "
              f"{extra * 1000:.1f} ms ({1 / extra:.1f} games/s once started) and {extra_cpu * 1000:.1f} ms CPU",
              flush=True)
        figures.update({"ms/game": extra * 1000, "CPU ms/game": extra_cpu * 1000})
    return figures


def _cpu_s() -> float:
    """CPU seconds of this process and of every child it has reaped (engines; a local cluster's workers
    and the engines they reaped, once the cluster is shut down)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lab.overhead", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", choices=("mnk", "reversi"), default="mnk",
                    help="mnk: Gomocup random brains (--size, --win-length); reversi: NBoard random engines, 8x8")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--size", type=int, default=15)
    ap.add_argument("--win-length", type=int, default=5)
    ap.add_argument("--concurrency", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--restart", nargs="*", default=["auto"], choices=("auto", "always"),
                    help="engines kept between games (auto) and/or started for every game (always)")
    ap.add_argument("--cluster", nargs="*", default=[], metavar="ADDRESS",
                    help="also play on these Dask clusters (local:N or a scheduler address)")
    ap.add_argument("--marginal", action="store_true",
                    help="also play 2 * games and report the time one more game adds")
    ap.add_argument("--repeat", type=int, default=1, metavar="R",
                    help="measure every setting R times, interleaved (a loaded machine drifts), and end with "
                         "the medians")
    args = ap.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    what = "Reversi 8x8" if args.game == "reversi" else f"{args.size}x{args.size} k={args.win_length}"
    print(f"load average before: {load:.2f}; {os.cpu_count()} cpus; {what}")
    runs = [(f"concurrency {c}, restart {r}", {"concurrency": c, "restart": r})
            for c in args.concurrency for r in args.restart]
    runs += [(f"cluster {a}", {"cluster": a}) for a in args.cluster]
    seen: dict[str, dict[str, list[float]]] = {label: {} for label, _ in runs}
    for _ in range(max(1, args.repeat)):
        for label, how in runs:
            figures = _measure_one(label, how, args)
            for key, value in figures.items():
                seen[label].setdefault(key, []).append(value)
    if args.repeat > 1:
        for label, figures in seen.items():
            print(f"{label}, median of {args.repeat}: " + ", ".join(
                f"{key} {statistics.median(values):.1f} ({min(values):.1f}..{max(values):.1f})"
                for key, values in figures.items()))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average after: {load:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
