#!/usr/bin/env python3
"""Where guided mode's search time goes on 15x15 middle games: the root threat plan,
the C tree, and the Python around them.

Searches the bench's middle game and the first ``--positions`` - 1 positions of 14-40
stones from ``data/blunders-15x15.json`` (positions from real games) with
:func:`engine.api.open_engine` in guided mode, under :mod:`cProfile`, and prints per
position the tree's nodes, the time and microseconds a node, and the split of the time
between the root threat plan (:func:`engine.mnk.threats.roottactics.plan_root`), the C tree's
runs and the rest:

    python -m lab.node_profile --nodes 10000
    python -m lab.node_profile --movetime 1000      # as in a game: a deadline, 20 ms slices

With ``--tree-only`` the root plan is switched off (``root.enabled=false``), so that
``perf record -g python -m lab.node_profile --tree-only`` samples the C tree alone;
``--rule renju`` searches the same stones under renju, ``--size 20`` in the middle of a
20x20 board.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import threading
import time
from pathlib import Path

from engine.api import open_engine
from engine.mnk.bench import positions as bench_positions
from engine.mnk.tree.options import MnkOptions
from engine.mnk.board.rules import MAX_SIDE, Board, GameConfig, Rule
from engine.search.limits import Limits
from lab.judge_games import replay

BLUNDERS = Path(__file__).resolve().parent.parent / "data" / "blunders-15x15.json"
SEED = 20240601


def middle_games(count: int, rule: Rule = Rule.FREESTYLE, size: int = 15) -> list[tuple[str, Board]]:
    """The bench's 15x15 freestyle middle game, then game positions of 14-40 stones, each
    with its stones placed under ``rule`` in the middle of a ``size`` x ``size`` board."""
    bench = next(p for p in bench_positions() if p.name == "middle" and p.config == GameConfig.square(15, 5))
    cfg = GameConfig(size, size, 5, rule)
    shift = (size - 15) // 2
    stones = [("bench-middle", [bench.config.xy(m) for m in bench.board().history])]
    for pos in json.loads(BLUNDERS.read_text(encoding="utf-8")):
        if len(stones) >= count:
            break
        if 14 <= len(pos["moves"]) <= 40 and (pos["width"], pos["height"], pos["win_length"]) == (15, 15, 5):
            stones.append((f"game{pos['game']}-ply{pos['ply']}", pos["moves"]))
    return [(name, replay(cfg, [(x + shift, y + shift) for x, y in moves])) for name, moves in stones]


def _cumulative(stats: pstats.Stats, suffix: str, name: str) -> float:
    """Cumulative seconds of the functions called ``name`` in files ending with ``suffix``."""
    return sum(row[3] for (path, _, fn), row in stats.stats.items() if fn == name and path.endswith(suffix))


def _tree_runs(stats: pstats.Stats) -> float:
    """Cumulative seconds in the C tree's ``run`` method."""
    return sum(row[3] for (_, _, fn), row in stats.stats.items() if fn.startswith("<method 'run' of") and "Tree" in fn)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m lab.node_profile", description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=10_000, help="tree nodes a position (default 10000)")
    ap.add_argument("--movetime", type=float, help="milliseconds a position instead, with a stop event as the brain")
    ap.add_argument("--positions", type=int, default=8, help="positions to search (default 8)")
    ap.add_argument("--tree-only", action="store_true", help="no root threat plan (root.enabled=false)")
    ap.add_argument("--rule", choices=("freestyle", "renju"), default="freestyle",
                    help="the rule the positions are searched under (default freestyle)")
    ap.add_argument("--size", type=int, default=15, help="the board's side, 15 or more (default 15)")
    ap.add_argument("--no-cprofile", action="store_true", help="time without cProfile (for perf)")
    ns = ap.parse_args(argv)
    if ns.nodes < 1 or ns.positions < 1 or (ns.movetime is not None and ns.movetime <= 0):
        ap.error("--nodes, --positions and --movetime must be positive")
    if not 15 <= ns.size <= MAX_SIDE:
        ap.error(f"--size must be 15 to {MAX_SIDE}")
    options = MnkOptions.guided()
    if ns.tree_only:
        options = options.with_values({"root.enabled": False})
    games = middle_games(ns.positions, Rule(ns.rule), ns.size)
    totals = {"nodes": 0, "seconds": 0.0, "plan": 0.0, "tree": 0.0}
    for name, board in games:
        engine = open_engine(board.config, options, seed=SEED)
        limits = Limits.movetime(ns.movetime) if ns.movetime else Limits(nodes=ns.nodes)
        stop = threading.Event() if ns.movetime else None
        prof = None if ns.no_cprofile else cProfile.Profile()
        started = time.perf_counter()
        if prof:
            prof.enable()
        res = engine.search(board, limits, stop)
        if prof:
            prof.disable()
        seconds = time.perf_counter() - started
        plan = tree = 0.0
        if prof:
            stats = pstats.Stats(prof)
            plan = _cumulative(stats, "roottactics.py", "plan_root")
            tree = _tree_runs(stats)
        totals["nodes"] += res.nodes
        totals["seconds"] += seconds
        totals["plan"] += plan
        totals["tree"] += tree
        us = seconds / max(res.nodes, 1) * 1e6
        split = "" if prof is None else (f"  plan {plan:6.3f} s  tree {tree:6.3f} s  rest {seconds - plan - tree:6.3f} s")
        print(f"{name:<16} stones {board.stone_count:>2}  nodes {res.nodes:>6}  {seconds:6.3f} s  {us:6.1f} us/node"
              f"{split}  ({res.reason})")
    n, s = totals["nodes"], totals["seconds"]
    split = "" if ns.no_cprofile else (
        f"; plan {totals['plan'] / s:.1%}, tree {totals['tree'] / s:.1%}, "
        f"rest {1 - (totals['plan'] + totals['tree']) / s:.1%}")
    print(f"total: {n} nodes in {s:.3f} s, {n / s:.0f} nodes/s, {s / max(n, 1) * 1e6:.1f} us/node{split}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
