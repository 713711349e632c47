"""Fit the scale of NBoard's evals: which ``s`` makes ``s * ln(v / (1 - v))`` of the
search's value ``v`` the best guess of the exact final margin?

    python -m lab.eval_scale [--empties 16,20] [--count 60] [--nodes 2000] [--seed 7]

Positions come from seeded random games (``engine.reversi.bench.fixed_positions``), each
solved exactly (positions the solver cannot finish within its budget are left out); the
search (the endgame oracle off, so that the value is the tree's own) gives ``v`` after
``--nodes`` nodes.  It prints the least-squares ``s`` and the root-mean-square error of a
few scales and of the linear ``128 * (v - 0.5)``.  ``protocol/nboard/discs.py`` holds the
chosen scale.
"""

from __future__ import annotations

import argparse
import math
import sys

from engine.reversi.bench import fixed_positions
from engine.reversi.tree.engine import ReversiEngine
from engine.reversi.tree.options import ReversiOptions
from engine.reversi.endgame.solver import solve
from engine.search.limits import Limits

#: Values this close to 0 or 1 are clipped (a value of 1 has no finite log-odds).
CLIP = 1e-3


def logit(v: float) -> float:
    """``ln(v / (1 - v))`` with ``v`` clipped to ``[CLIP, 1 - CLIP]``."""
    v = min(1.0 - CLIP, max(CLIP, v))
    return math.log(v / (1.0 - v))


def samples(empties: list[int], count: int, nodes: int, seed: int) -> list[tuple[int, float]]:
    """``(exact margin, search value)`` for each solved position."""
    out = []
    for e in empties:
        for state in fixed_positions(e, count, seed=seed):
            exact = solve(state, exact=True, max_nodes=50_000_000)
            if not exact.complete:
                continue
            engine = ReversiEngine(state.n, ReversiOptions(solver=False), seed=seed)
            out.append((exact.value, engine.search(state, Limits(nodes=nodes)).value))
    return out


def rmse(pairs: list[tuple[float, float]]) -> float:
    """Root-mean-square of ``truth - guess``."""
    return math.sqrt(sum((t - g) ** 2 for t, g in pairs) / len(pairs))


def main(argv: list[str] | None = None) -> int:
    """Print the fitted scale and the errors."""
    p = argparse.ArgumentParser(prog="python -m lab.eval_scale", description=__doc__.split("\n\n")[0])
    p.add_argument("--empties", default="16,20", help="empty squares of the positions (default 16,20)")
    p.add_argument("--count", type=int, default=60, help="positions of each (default 60)")
    p.add_argument("--nodes", type=int, default=2000, help="search nodes a position (default 2000)")
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    data = samples([int(x) for x in args.empties.split(",")], args.count, args.nodes, args.seed)
    if not data:
        print("no position solved")
        return 1
    xs = [logit(v) for _, v in data]
    fitted = sum(x * m for x, (m, _) in zip(xs, data)) / max(1e-12, sum(x * x for x in xs))
    print(f"{len(data)} positions; least-squares scale {fitted:.2f}")
    for s in sorted({4.0, 8.0, 10.0, 12.0, 16.0, 20.0, round(fitted, 2)}):
        guess = [(m, max(-64.0, min(64.0, s * x))) for x, (m, _) in zip(xs, data)]
        print(f"  scale {s:6.2f}: error {rmse(guess):6.2f} discs")
    print(f"  linear 128 * (v - 0.5): error {rmse([(m, 128 * (v - 0.5)) for m, v in data]):6.2f} discs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
