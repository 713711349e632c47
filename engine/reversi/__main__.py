"""``python -m engine.reversi``: perft, the bench, and solving a position.

    python -m engine.reversi perft 9
    python -m engine.reversi bench [--json] [--quick]
    python -m engine.reversi solve "<64 squares> X" [--wdl]
"""

from __future__ import annotations

import argparse
import sys
import time

from ..game import GameError
from . import kernel
from .board.perft import perft
from .board.rules import BLACK, ReversiState, start_bitboards

PERFT_HELP = (
    "Count the leaves of the move tree from the start position to each depth 1..N and print "
    "'depth D: COUNT' lines, then the time.  Convention of the published figures: a pass counts "
    "as a move, and a game that ended before depth N counts as one leaf at every later depth "
    "(8x8: 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288 for 1..9)."
)


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in[:1] == ["bench"]:
        from .bench import main as bench_main

        return bench_main(args_in[1:])
    parser = argparse.ArgumentParser(prog="python -m engine.reversi", description="Reversi tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("perft", help="leaf counts of the move tree (passes are moves)", description=PERFT_HELP)
    p.add_argument("depth", type=int, help="the deepest depth N (1..40)")
    p.add_argument("--size", type=int, default=8, help="board side (even, 4..16; default 8)")
    # listed for the help text: ``bench`` is handed to engine.reversi.bench.main before parsing
    sub.add_parser("bench", help="speed figures: playouts, perft, solver, search ([--json] [--quick])")
    s = sub.add_parser("solve", help="solve a position exactly",
                       description="Solve a position (at most 64 empty squares): the final disc differential "
                                   "for the side to move with best play (empties to the winner), and every move's.")
    s.add_argument("board", help="the squares row by row (X black, O white, - empty) and the side to move")
    s.add_argument("--wdl", action="store_true", help="win/draw/loss only (much faster)")
    args = parser.parse_args(args_in)
    try:
        if args.command == "perft":
            return _perft(args.depth, args.size)
        return _solve(args.board, args.wdl)
    except GameError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _perft(depth: int, size: int) -> int:
    if not 1 <= depth <= 40:
        raise GameError(f"perft depth must be 1..40, not {depth}")
    black, white = start_bitboards(size)
    t = time.perf_counter()
    for d in range(1, depth + 1):
        print(f"depth {d}: {perft(black, white, BLACK, size, d)}", flush=True)
    print(f"time: {time.perf_counter() - t:.3f} s ({kernel.name()} kernel, all depths)")
    return 0


def _solve(text: str, wdl: bool) -> int:
    from .endgame.solver import move_values, solve

    state = ReversiState.from_text(text)
    print(state.render())
    t = time.perf_counter()
    sol = solve(state, exact=not wdl)
    values = move_values(state, exact=not wdl)
    spent = time.perf_counter() - t
    word = {1: "win", 0: "draw", -1: "loss"}
    result = word[(sol.value > 0) - (sol.value < 0)]
    if sol.move is None:
        print(f"game over: {sol.value:+d} for the side to move")
        return 0
    margin = "" if wdl else f" {sol.value:+d}"
    print(f"best: {state.move_to_text(sol.move)} ({result}{margin}), {sol.nodes} nodes, "
          f"{spent:.3f} s with every move's value ({kernel.name()} kernel)")
    for move, v in sorted(values.items(), key=lambda mv: -mv[1]):
        print(f"  {state.move_to_text(move)}: {word[(v > 0) - (v < 0)] if wdl else f'{v:+d}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
