#!/usr/bin/env python3
"""How many won positions does the threat solver prove, and how fast?

The conversion positions (``data/conversion-15x15.json``: our engine to move
with a forced win that is not a VCF) are where the games against pela were
lost; this runs :func:`engine.mnk.threats.solver.find_vct` on each, no engine and no judge
needed:

    # at 1 s a position (what a move could spend; the count depends on the machine)
    python -m lab.solver_bench data/conversion-15x15.json --ms 1000 --threes 3
    # a fixed node budget: the same result on every machine, for speed work
    python -m lab.solver_bench data/conversion-15x15.json --nodes 15000 --first 60

It prints one line per position (proved or not, seconds, line length), then
the count proved, the CPU seconds, and a signature of every line found: with
``--nodes`` a change that only makes the solver faster must keep the signature.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from engine.mnk.board.rules import Board
from engine.mnk.threats.solver import probe_vct
from lab.judge_games import config_of, replay


def board_of(position: dict) -> Board:
    """The board of a position (``moves`` as [x, y] pairs, first player first; ``rule``
    freestyle when absent)."""
    return replay(config_of(position), position["moves"])


def prove_all(positions: list[dict], ms: float | None, nodes: int, threes: int, out=None) -> dict:
    """Run the VCT on every position; return ``{"proved", "refuted", "positions", "cpu",
    "signature", "lines"}``.

    ``ms`` bounds each run by wall time (``None``: only the ``nodes`` budget).
    ``lines`` holds each position's winning line (compact moves) or ``None``; ``refuted``
    counts the searches that ended within their budget without a win (printed ``none``, where
    a budget that ran out prints ``-``).
    """
    lines: list[list[int] | None] = []
    refuted = 0
    cpu0 = time.process_time()
    for i, position in enumerate(positions):
        board = board_of(position)
        start = time.monotonic()
        deadline = None if ms is None else start + ms / 1000.0
        line, finished = probe_vct(board, int(board.to_move), deadline=deadline, max_nodes=nodes, max_threes=threes)
        lines.append(line)
        refuted += line is None and finished
        if out is not None:
            took = time.monotonic() - start
            verdict = "proved" if line else "none" if finished else "-"
            print(f"{i:4d} {position.get('eval', '?'):>6} {verdict:6} {took:6.2f}s "
                  f"{len(line) if line else 0:3d} plies", file=out, flush=True)
    cpu = time.process_time() - cpu0
    signature = hashlib.sha256(json.dumps(lines).encode()).hexdigest()[:8]
    return {"proved": sum(1 for line in lines if line), "refuted": refuted, "positions": len(lines), "cpu": cpu,
            "signature": signature, "lines": lines}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("positions", type=Path, help="a JSON list of positions (lab/conversion.py collect)")
    ap.add_argument("--ms", type=float, default=None, help="wall-time limit a position (default: none)")
    ap.add_argument("--nodes", type=int, default=10**9, help="solver nodes a position (default: no limit)")
    ap.add_argument("--threes", type=int, default=3, help="most threes in a line (default 3)")
    ap.add_argument("--first", type=int, default=None, help="only the first N positions")
    args = ap.parse_args(argv)
    if args.ms is None and args.nodes >= 10**9:
        ap.error("give --ms or --nodes: an unbounded VCT may not end")
    try:
        positions = json.loads(args.positions.read_text())
    except (OSError, ValueError) as exc:
        print(f"solver_bench: cannot read {args.positions}: {exc}", file=sys.stderr)
        return 2
    positions = positions[: args.first] if args.first is not None else positions
    result = prove_all(positions, args.ms, args.nodes, args.threes, out=sys.stdout)
    print(f"proved {result['proved']} of {result['positions']}, no win within the threes in "
          f"{result['refuted']}; cpu {result['cpu']:.2f} s; signature {result['signature']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
