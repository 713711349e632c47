"""The Reversi speed figures: the playout kernel against a plain C loop, perft, the
endgame solver, and the search, from fixed positions with fixed seeds.

Every row is a dict; ``python -m engine.reversi bench --json`` prints one JSON object a
line.  Rows that play random games carry ``playouts_per_s``; search rows also carry a
``signature`` (the move, the playouts and the root's visit counts under a node limit and a
fixed seed), which is the same on every machine, so a change that alters the search shows up
there while the timings show the speed.  A search row's ``tree`` says which tree searched:
with the C kernel the pattern leaves run in the C tree (:mod:`engine.reversi.tree.native`, one
leaf at a time, where the generic tree values leaves in batches), so those signatures differ
from the Python kernel's; the random-playout rows are the generic tree's with both kernels.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

from . import kernel
from .board.perft import PERFT_8X8, perft
from .board.rules import BLACK, ReversiState, start_bitboards
from .endgame.solver import solve
from .evaluation import playout

#: What the bench measures (its ``--help``).
DESCRIPTION = ("Speed figures from fixed positions and seeds: random playouts against a plain C loop, "
               "perft, the endgame solver, and the search under a node limit (with a signature that "
               "changes only when the search does).")
#: Seconds of random games per kernel row (the C kernel plays ~300,000 a second).
KERNEL_SECONDS = 1.0
#: The fixed opening of the midgame rows (a common line: perpendicular opening).
MIDGAME_OPENING = ("f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7")


def fixed_positions(empties: int, count: int, seed: int = 2026) -> list[ReversiState]:
    """``count`` positions with ``empties`` empty squares, from random games played with a
    seeded :class:`random.Random` (the same on every machine)."""
    rng = random.Random(seed * 100 + empties)
    out = []
    while len(out) < count:
        s = ReversiState()
        while s.empties() > empties and not s.is_terminal():
            s.apply(rng.choice(s.legal_moves()))
        if s.empties() == empties and not s.is_terminal():
            out.append(ReversiState.from_bitboards(*s.snapshot()))
    return out


def midgame() -> ReversiState:
    s = ReversiState()
    for m in MIDGAME_OPENING:
        s.apply(s.text_to_move(m))
    return ReversiState.from_bitboards(*s.snapshot())


def _timed(run: Callable[[int], object], seconds: float, first: int) -> tuple[int, float]:
    """Run ``run(count)`` with growing counts until ``seconds`` have passed; return the
    games played and the time they took."""
    games, spent, count = 0, 0.0, first
    while spent < seconds:
        t = time.perf_counter()
        run(count)
        spent += time.perf_counter() - t
        games += count
        count *= 2
    return games, spent


def kernel_rows(seconds: float = KERNEL_SECONDS) -> Iterator[dict]:
    """Random games a second: the kernel from the start and a midgame position, batched
    for many leaves, and the plain C loop it is measured against."""
    core = kernel.native()
    first = 2000 if core is not None else 20
    black, white = start_bitboards(8)
    positions = [("start", (black, white, BLACK)), ("midgame", midgame().snapshot())]
    for name, (b, w, tm) in positions:
        games, spent = _timed(lambda c: playout.playouts(b, w, tm, 8, c, 1), seconds, first)
        yield {"bench": "playouts", "position": name, "kernel": kernel.name(), "games": games,
               "seconds": round(spent, 3), "playouts_per_s": round(games / spent)}
    leaves = [s.snapshot() for s in fixed_positions(40, 64)]
    games, spent = _timed(lambda c: playout.leaf_values(leaves, 8, max(1, c // 64), 1), seconds, max(64, first))
    yield {"bench": "playouts_batched", "position": "64 leaves, 40 empties", "kernel": kernel.name(),
           "games": games, "seconds": round(spent, 3), "playouts_per_s": round(games / spent)}
    if kernel.available():
        ref = kernel._reversicore.reference_playouts
        games, spent = _timed(lambda c: ref(c, 1), seconds, 2000)
        yield {"bench": "playouts_plain_c", "position": "start", "kernel": "C reference loop", "games": games,
               "seconds": round(spent, 3), "playouts_per_s": round(games / spent)}


def perft_row(depth: int | None = None) -> dict:
    """perft from the 8x8 start (depth 9 with the C kernel, 7 without)."""
    if depth is None:
        depth = 9 if kernel.native() is not None else 7
    black, white = start_bitboards(8)
    t = time.perf_counter()
    leaves = perft(black, white, BLACK, 8, depth)
    spent = time.perf_counter() - t
    return {"bench": "perft", "depth": depth, "leaves": leaves, "correct": leaves == PERFT_8X8[depth - 1],
            "kernel": kernel.name(), "seconds": round(spent, 4)}


def solver_rows(empties: tuple[int, ...] = (10, 12, 14), count: int = 20) -> Iterator[dict]:
    """Exact and win/draw/loss solves of fixed positions: median time and nodes (on 8x8
    the pattern evaluation orders the moves far from the end; loaded first, not timed)."""
    from .evaluation.patterns import default

    default()
    for e in empties:
        positions = fixed_positions(e, count)
        for exact in (True, False):
            times, nodes = [], []
            for s in positions:
                t = time.perf_counter()
                sol = solve(s, exact=exact)
                times.append(time.perf_counter() - t)
                nodes.append(sol.nodes)
            yield {"bench": "solver", "empties": e, "mode": "exact" if exact else "wdl", "positions": count,
                   "kernel": kernel.name(), "median_ms": round(1000 * statistics.median(times), 3),
                   "mean_ms": round(1000 * statistics.mean(times), 3), "max_ms": round(1000 * max(times), 3),
                   "median_nodes": int(statistics.median(nodes)),
                   "nodes_per_s": round(sum(nodes) / sum(times))}


def search_rows(nodes: int = 5000, seed: int = 1) -> Iterator[dict]:
    """The searcher under a node limit and a fixed seed, its leaves valued by random
    playouts and by the pattern evaluation (the default on 8x8), from the start and from a
    position with 22 empties (the endgame oracle at work).  A leaf valued by the
    evaluation counts as one playout."""
    from ..search.limits import Limits  # the search (and numpy) only for these rows
    from .evaluation import patterns
    from .tree.engine import ReversiEngine
    from .tree.native import NativeTree
    from .tree.options import ReversiOptions

    cases = [("start", ReversiState()), ("22 empties", fixed_positions(22, 1)[0])]
    kinds = ["playouts"] + (["patterns"] if patterns.default() is not None else [])
    for leaves, (name, state) in ((k, c) for k in kinds for c in cases):
        # 16 playouts or a 2-ply search a leaf whatever the kernel, so both give the same
        # signature; no win/draw/loss solve at the root, so the 22-empty row times the tree
        options = ReversiOptions(leaves=leaves, playouts_per_leaf=16, eval_depth=2, root_wld_empties=0)
        searcher = ReversiEngine(8, options, seed=seed)
        t = time.perf_counter()
        result = searcher.search(state, Limits(nodes=nodes))
        spent = time.perf_counter() - t
        root = searcher.tree.root_children()
        visits = ",".join(f"{state.move_to_text(c.move)}:{int(c.n)}" for c in root)
        digest = hashlib.sha1(f"{result.move}|{result.playouts}|{visits}".encode()).hexdigest()[:12]
        oracle = searcher.oracle
        tree = "C" if isinstance(searcher.tree, NativeTree) else "Python"
        yield {"bench": "search", "leaves": leaves, "position": name, "kernel": kernel.name(), "tree": tree,
               "node_limit": nodes,
               "seed": seed,
               "move": state.move_to_text(result.move), "nodes": result.nodes, "playouts": result.playouts,
               "proven": result.proven, "signature": digest, "seconds": round(spent, 3),
               "nodes_per_s": round(result.nodes / spent), "playouts_per_s": round(result.playouts / spent),
               "solves": oracle.solves if oracle else 0, "solved": oracle.solved if oracle else 0}


#: Held-out positions with their exact margins (``lab/reversi_accuracy.py make``): games
#: the training never saw, solved by the project's solver.
HELDOUT_PATH = Path(__file__).with_name("evaluation") / "data" / "heldout8.txt"


def heldout_positions(path: Path | str = HELDOUT_PATH) -> list[tuple[int, int, int, int]]:
    """``(p, o, empties, exact margin)`` of each ``BOARD SIDE MARGIN`` line (64 squares
    ``*`` black, ``O`` white, ``-`` empty; the side to move ``p``; ``#`` comments)."""
    out = []
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        board, side, value = line.split()
        black = sum(1 << i for i, ch in enumerate(board) if ch == "*")
        white = sum(1 << i for i, ch in enumerate(board) if ch == "O")
        p, o = (black, white) if side == "*" else (white, black)
        out.append((p, o, 64 - (black | white).bit_count(), int(value)))
    return out


def eval_rows(seconds: float = KERNEL_SECONDS) -> Iterator[dict]:
    """The pattern evaluation: evaluations a second (one batch call for 64 leaves), and
    its mean absolute error in discs on the held-out positions, by empty squares."""
    from .evaluation import patterns

    ev = patterns.default()
    if ev is None:
        return
    leaves = [s.snapshot() for s in fixed_positions(30, 64)]
    done, spent = _timed(lambda c: [ev.leaves(leaves, 0) for _ in range(max(1, c // 64))], seconds, 64 * 16)
    yield {"bench": "eval", "version": ev.weights.version, "kernel": kernel.name(), "evals": done,
           "seconds": round(spent, 3), "evals_per_s": round(done / spent)}
    if HELDOUT_PATH.exists():
        errors: dict[int, list[float]] = {}
        for p, o, e, value in heldout_positions():
            errors.setdefault(e, []).append(abs(ev.evaluate(p, o) / patterns.SCALE - value))
        for e, errs in sorted(errors.items()):
            yield {"bench": "eval_accuracy", "empties": e, "positions": len(errs),
                   "mae_discs": round(statistics.mean(errs), 2)}


def run(quick: bool = False) -> Iterator[dict]:
    """Every bench row (``quick``: shorter kernel rows, fewer solves, a smaller search;
    the Python kernel solves smaller endgames)."""
    yield from kernel_rows(0.25 if quick else KERNEL_SECONDS)
    yield perft_row()
    if kernel.native() is not None:
        yield from solver_rows((10, 12) if quick else (10, 12, 14), 5 if quick else 20)
    else:  # the Python solver needs seconds from 12 empties
        yield from solver_rows((8, 10), 5)
    yield from eval_rows(0.25 if quick else KERNEL_SECONDS)
    yield from search_rows(1000 if quick else 5000)


def main(argv: Sequence[str] | None = None, prog: str = "python -m engine.reversi bench") -> int:
    """Print every bench row (``key=value`` pairs, or JSON with ``--json``); the entry point
    of ``python -m engine.reversi bench`` and ``nboard-mcts bench``."""
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
    parser.add_argument("--quick", action="store_true", help="shorter rows")
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    try:
        for row in run(args.quick):
            print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    except BrokenPipeError:  # the reader went away (piped into ``head``): not an error of ours
        pass
    return 0
