"""Held-out Reversi positions with exact values, and the errors of evaluations on them.

``make``: positions with given numbers of empty squares from games the pattern
evaluation plays against itself (softmax of its one-ply values, a random opening), with
a seed the training never uses, each solved exactly by the project's endgame solver;
written as ``BOARD SIDE VALUE`` lines (64 squares ``*`` black ``O`` white ``-`` empty,
the side to move, its exact final margin).  The shipped file is
``engine/reversi/evaluation/data/heldout8.txt`` (``nboard-mcts bench`` reports the evaluation's
error on it).

``measure``: the mean absolute error in discs, per number of empties, of the pattern
evaluation (``--weights``, or none: all zeros, i.e. always 0) and, with ``--search-ms``,
of ``nboard-mcts``'s search (its root value in discs, as ``go`` reports it).

    python -m lab.reversi_accuracy make --empties 16 20 24 --count 40 --out FILE
    python -m lab.reversi_accuracy measure FILE [--weights W.npz] [--search-ms 1000]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

from engine.reversi.evaluation import patterns as pt
from engine.reversi.bench import heldout_positions
from engine.reversi.board.bitboard import geometry
from engine.reversi.endgame.solver import solve_position

GEO = geometry(8)
START = ((1 << 28) | (1 << 35), (1 << 27) | (1 << 36))


def board_text(p: int, o: int, black_to_move: bool) -> str:
    black, white = (p, o) if black_to_move else (o, p)
    return "".join("*" if black >> i & 1 else "O" if white >> i & 1 else "-" for i in range(64))


def make(empties: list[int], count: int | list[int], seed: int, ev: pt.PatternEval | None,
         temperature: float = 2.0, opening: int = 8, log=None) -> list[str]:
    """``count`` solved positions at each number of ``empties`` (one a game; a list: one
    count per number of empties)."""
    rng = random.Random(seed)
    lines = []
    counts = count if isinstance(count, list) else [count] * len(empties)
    for e, count in zip(empties, counts):
        made = 0
        while made < count:
            p, o, black = START[0], START[1], True
            ply = 0
            while 64 - (p | o).bit_count() > e:
                m = GEO.moves(p, o)
                if not m:
                    if not GEO.moves(o, p):
                        break
                    p, o, black = o, p, not black
                    continue
                if ev is None or ply < opening:
                    sq = rng.choice([s for s in range(64) if m >> s & 1])
                else:
                    values = ev.moves(p, o, 1)
                    top = max(v for _, v in values)
                    sq = rng.choices([s for s, _ in values],
                                     [math.exp((v - top) / (pt.SCALE * temperature)) for _, v in values])[0]
                f = GEO.flips(p, o, sq)
                p, o, black = o ^ f, p | f | (1 << sq), not black
                ply += 1
            if 64 - (p | o).bit_count() != e or not GEO.moves(p, o):
                continue
            value = solve_position(p, o, 1, 8).value
            lines.append(f"{board_text(p, o, black)} {'*' if black else 'O'} {value}")
            made += 1
            if log:
                log(lines[-1])
    return lines


def eval_errors(positions, ev: pt.PatternEval | None) -> dict[int, float]:
    """The evaluation's mean absolute error in discs by number of empties."""
    errs: dict[int, list[float]] = {}
    for p, o, e, value in positions:
        guess = ev.evaluate(p, o) / pt.SCALE if ev is not None else 0.0
        errs.setdefault(e, []).append(abs(guess - value))
    return {e: statistics.mean(v) for e, v in sorted(errs.items())}


def search_errors(positions, move_ms: int, options: dict | None = None) -> dict[int, float]:
    """The error of ``nboard-mcts``'s search (its eval in discs after ``move_ms``)."""
    from engine.api import open_engine
    from engine.reversi.tree.options import ReversiOptions
    from engine.reversi.board.rules import ReversiConfig, ReversiState
    from engine.search.limits import Limits
    from protocol.nboard.discs import eval_discs

    errs: dict[int, list[float]] = {}
    for p, o, e, value in positions:
        state = ReversiState.from_bitboards(p, o, 1)
        opts = ReversiOptions().with_values(options or {})
        engine = open_engine(ReversiConfig(8), opts, seed=1)
        result = engine.search(state, Limits.movetime(move_ms))
        guess = eval_discs(result.value, result.proven, engine.last_margin)
        errs.setdefault(e, []).append(abs(guess - value))
    return {e: statistics.mean(v) for e, v in sorted(errs.items())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lab.reversi_accuracy", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("--empties", type=int, nargs="+", default=[16, 20, 24])
    mk.add_argument("--count", type=int, nargs="+", default=[40], help="positions per empties (one, or one each)")
    mk.add_argument("--seed", type=int, default=424242)
    mk.add_argument("--weights", default=str(pt.DEFAULT_PATH))
    mk.add_argument("--out", required=True)
    ms = sub.add_parser("measure")
    ms.add_argument("file")
    ms.add_argument("--weights", default=None, help="weights file (default: none, the zero evaluation)")
    ms.add_argument("--search-ms", type=int, default=0)
    ms.add_argument("--engine-option", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args(argv)
    if args.cmd == "make":
        ev = pt.PatternEval(pt.Weights.load(args.weights))
        t0 = time.monotonic()
        count = args.count if len(args.count) > 1 else args.count[0]
        lines = make(args.empties, count, args.seed, ev, log=lambda s: print(s, flush=True))
        header = (f"# python -m lab.reversi_accuracy make --empties {' '.join(map(str, args.empties))} "
                  f"--count {' '.join(map(str, args.count))} --seed {args.seed} "
                  f"(games played by the weights of version {ev.weights.version})\n"
                  f"# BOARD SIDE EXACT-MARGIN (for the side to move)\n")
        Path(args.out).write_text(header + "\n".join(lines) + "\n")
        print(f"wrote {len(lines)} positions to {args.out} in {time.monotonic() - t0:.0f} s")
        return 0
    positions = heldout_positions(args.file)
    ev = pt.PatternEval(pt.Weights.load(args.weights)) if args.weights else None
    for e, mae in eval_errors(positions, ev).items():
        print(f"evaluation  empties={e}  mae={mae:.2f}")
    if args.search_ms:
        options = dict(kv.split("=", 1) for kv in args.engine_option)
        for e, mae in search_errors(positions, args.search_ms, options).items():
            print(f"search {args.search_ms} ms  empties={e}  mae={mae:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
