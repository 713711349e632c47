"""Two builds' benchmarks in the same run: ``python -m lab.compare BRAIN_A BRAIN_B``.

Runs ``BRAIN bench --json`` of each build in turn (A, B, A, B, ...) ``--runs`` times and prints,
per bench position, the median playouts a second of each and B's ratio to A.  Alternating
the two is what makes the figures comparable on a machine whose speed drifts (shared
cores, other work): each build sees the same conditions on average.

    python -m lab.compare /old/.venv/bin/pbrain-mcts .venv/bin/pbrain-mcts --runs 7
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys


def bench_rows(command: str, mode: str) -> list[dict]:
    """One ``bench --json`` run of ``command`` (a brain's command line)."""
    argv = shlex.split(command) + ["bench", "--json", "--mode", mode]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def compare(a: str, b: str, runs: int, mode: str) -> list[tuple[str, float, float]]:
    """``(position, median playouts/s of A, of B)`` per bench position, over ``runs``
    alternating runs of each."""
    speeds: dict[str, dict[str, list[float]]] = {}
    for _ in range(runs):
        for side, command in (("a", a), ("b", b)):
            for row in bench_rows(command, mode):
                key = f"{row['board']} {row['position']}"
                speeds.setdefault(key, {"a": [], "b": []})[side].append(row["playouts_per_s"])
    return [(key, statistics.median(v["a"]), statistics.median(v["b"])) for key, v in speeds.items()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lab.compare", description=__doc__.split("\n")[0])
    ap.add_argument("a", help="the reference build's brain command (e.g. /old/.venv/bin/pbrain-mcts)")
    ap.add_argument("b", help="the build under test")
    ap.add_argument("--runs", type=int, default=5, help="bench runs of each build (default 5)")
    ap.add_argument("--mode", default="uct", help="bench mode (default uct)")
    args = ap.parse_args(argv)
    rows = compare(args.a, args.b, args.runs, args.mode)
    print(f"{'position':<26} {'A playouts/s':>13} {'B playouts/s':>13} {'B/A':>6}   (medians of {args.runs} runs)")
    for key, pa, pb in rows:
        print(f"{key:<26} {pa:>13,.0f} {pb:>13,.0f} {pb / pa:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
