"""``pbrain-mcts bench``: fixed positions, fixed seed, fixed node budget.

Prints the speed of the search on each position and a final deterministic
signature (total nodes and playouts, and a checksum of the chosen moves), as
Stockfish's ``bench`` does: the same code gives the same signature on any
machine, so a changed signature means the search itself changed.

Run it as ``python -m engine.mnk.bench [--nodes N] [--movetime MS] [--json] [--mode M]``;
``--startup`` instead times ``import engine`` plus building an empty 15x15
search in fresh interpreters.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass
from typing import Sequence, TextIO

from ..api import native_note, open_engine
from ..search.limits import Limits
from .board.rules import Board, GameConfig, Rule
from .tree.options import MnkOptions

DEFAULT_NODES = 10_000
SEED = 20240601

# A fixed 15x15 middle game (x, y in play order, first player first).
_MIDDLE_15 = [
    (7, 7), (8, 8), (8, 6), (6, 8), (7, 8), (7, 9), (9, 7), (6, 6), (9, 9), (10, 8),
    (6, 7), (5, 7), (8, 7), (10, 7), (7, 6), (9, 5), (7, 5), (7, 4), (10, 10), (11, 11),
]
_MIDDLE_7 = [(3, 3), (2, 3), (3, 4)]


@dataclass(frozen=True)
class BenchPosition:
    """One bench position: a configuration and the moves leading to it."""

    name: str
    config: GameConfig
    moves: tuple[tuple[int, int], ...] = ()

    def board(self) -> Board:
        b = Board(self.config)
        for x, y in self.moves:
            b.play(self.config.move(x, y))
        return b


def positions() -> list[BenchPosition]:
    """The fixed bench positions (empty and middle-game boards of every size)."""
    g15 = GameConfig.square(15, 5)
    return [
        BenchPosition("empty", g15),
        BenchPosition("middle", g15, tuple(_MIDDLE_15)),
        BenchPosition("middle", GameConfig.square(15, 5, Rule.EXACT), tuple(_MIDDLE_15)),
        BenchPosition("middle", GameConfig.square(15, 5, Rule.CARO), tuple(_MIDDLE_15)),
        BenchPosition("middle", GameConfig.square(15, 5, Rule.RENJU), tuple(_MIDDLE_15)),
        BenchPosition("empty", GameConfig.square(7, 4)),
        BenchPosition("middle", GameConfig.square(7, 4), tuple(_MIDDLE_7)),
        BenchPosition("empty", GameConfig.square(3, 3)),
    ]


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="pbrain-mcts bench",
                                 description="Fixed-position search benchmark of the m,n,k engine: speed and a "
                                             "signature that changes only when the search does.")
    ap.add_argument("--nodes", type=int, default=DEFAULT_NODES, help="tree nodes per position")
    ap.add_argument("--movetime", type=float, default=None,
                    help="milliseconds per position instead of a node budget (not deterministic)")
    ap.add_argument("--json", action="store_true", help="one JSON object per position")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--mode", choices=("uct", "guided"), default="uct",
                    help="search mode (default uct, the plain searcher)")
    ap.add_argument("--tactics", metavar="FILE",
                    help="answer every position of a tactics file (shared/positions format) at --movetime "
                         "(default 500 ms) and count the correct ones")
    ap.add_argument("--threads", type=int, choices=(1, 2), default=1,
                    help="with --tactics: 2 runs the root threat search on a second thread where guided "
                         "mode's C tree runs, as the brain's --threads 2")
    ap.add_argument("--startup", action="store_true",
                    help="time import + building an empty 15x15 search in fresh interpreters")
    ns = ap.parse_args(list(argv))
    if ns.nodes < 1:
        ap.error("--nodes must be >= 1")
    if ns.movetime is not None and not ns.movetime > 0:
        ap.error("--movetime must be > 0")
    return ns


# Timed inside a fresh interpreter: from before ``import engine`` to a ready empty-board search.
_STARTUP_PROBE = """
import time
t0 = time.perf_counter()
import engine.api
from engine.search.limits import Limits
from engine.mnk.board.rules import Board, GameConfig
cfg = GameConfig.square(15, 5)
e = engine.api.open_engine(cfg, seed=1)
e.search(Board(cfg), Limits(nodes=1))
print(time.perf_counter() - t0)
"""


def load_tactics(path: str) -> list[tuple[str, Board, set[int]]]:
    """``(name, board, answers)`` from a file of ``name | W H K RULE | x,y,p ... | x,y ...`` lines."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            name, geometry, stones, answers = (part.strip() for part in raw.split("|"))
            w, h, k, rule = (int(v) for v in geometry.split())
            cfg = GameConfig(w, h, k, Rule.from_gomocup_bits(rule))
            placed = [tuple(int(v) for v in st.split(",")) for st in stones.split()]
            board = Board.from_stones(cfg, placed)
            out.append((name, board, {cfg.move(*(int(v) for v in a.split(","))) for a in answers.split()}))
    return out


def run_tactics(path: str, movetime_ms: float, mode: str, seed: int, out: TextIO,
                root_thread: bool = False) -> tuple[int, int]:
    """Search each tactics position for ``movetime_ms``; print misses; return (correct, total).
    ``root_thread``: two threads (the root threat search beside the C tree, where it applies)."""
    puzzles = load_tactics(path)
    options = MnkOptions.preset(mode)
    correct = 0
    worst = 0.0
    for name, board, answers in puzzles:
        started = time.perf_counter()
        engine = open_engine(board.config, options, seed=seed, threads=2 if root_thread else 1)
        res = engine.search(board, Limits.movetime(movetime_ms))
        worst = max(worst, time.perf_counter() - started)
        if res.move in answers:
            correct += 1
        else:
            out.write(f"miss {name}: played {board.config.xy(res.move)}\n")
    threads = ", root threat search on its own thread" if root_thread else ""
    out.write(f"tactics: {correct}/{len(puzzles)} correct at {movetime_ms:g} ms a move (mode {mode}{threads}), "
              f"slowest answer {worst * 1000:.0f} ms\n")
    return correct, len(puzzles)


def startup_seconds(runs: int = 5) -> list[float]:
    """Seconds from ``import engine`` to a finished 1-node empty 15x15 search, per fresh process."""
    out = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", _STARTUP_PROBE], capture_output=True, text=True,
                              timeout=60, check=True)
        out.append(float(done.stdout.strip()))
    return out


def run(nodes: int, movetime: float | None, seed: int, as_json: bool, out: TextIO,
        mode: str = "uct") -> dict:
    """Search every bench position; write one line per position; return totals."""
    total_nodes = total_playouts = 0
    total_time = 0.0
    checksum = 0
    # Warm up (first numpy calls, memory arenas) so the first figure is fair.
    options = MnkOptions.preset(mode)
    open_engine(GameConfig.square(15, 5), options, seed=seed).search(Board(GameConfig.square(15, 5)),
                                                                     Limits(nodes=300))
    for pos in positions():
        board = pos.board()
        engine = open_engine(pos.config, options, seed=seed)
        limits = Limits.movetime(movetime) if movetime is not None else Limits(nodes=nodes)
        started = time.perf_counter()
        res = engine.search(board, limits)
        elapsed = max(time.perf_counter() - started, 1e-9)
        total_nodes += res.nodes
        total_playouts += res.playouts
        total_time += elapsed
        checksum = zlib.crc32(f"{pos.config.label}:{res.move}:{res.nodes}:{res.playouts}".encode(), checksum)
        row = {
            "board": pos.config.label,
            "position": pos.name,
            "stones": board.stone_count,
            "move": list(pos.config.xy(res.move)),
            "value": round(res.value, 4),
            "nodes": res.nodes,
            "playouts": res.playouts,
            "depth": res.depth,
            "seconds": round(elapsed, 4),
            "playouts_per_s": round(res.playouts / elapsed),
            "nodes_per_s": round(res.nodes / elapsed),
            "proven": res.proven,
        }
        if as_json:
            out.write(json.dumps(row) + "\n")
        else:
            x, y = row["move"]
            out.write(
                f"{row['board']:<18} {pos.name:<7} stones {row['stones']:>3}  move {x},{y}  "
                f"nodes {res.nodes:>7}  playouts {res.playouts:>8}  "
                f"{row['nodes_per_s']:>7} nodes/s  {row['playouts_per_s']:>8} playouts/s\n"
            )
    totals = {"nodes": total_nodes, "playouts": total_playouts, "seconds": total_time,
              "signature": f"{checksum:08x}"}
    return totals


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    ns = _parse(sys.argv[1:] if argv is None else argv)
    out = sys.stdout
    try:
        if ns.tactics:
            correct, total = run_tactics(ns.tactics, ns.movetime or 500.0, ns.mode, ns.seed, out,
                                         root_thread=ns.threads == 2)
            return 0 if correct == total else 1
        if ns.startup:
            times = startup_seconds()
            row = {"startup_median_s": round(statistics.median(times), 4), "startup_max_s": round(max(times), 4),
                   "runs": len(times)}
            out.write((json.dumps(row) if ns.json else
                       f"import engine + empty 15x15 search: median {row['startup_median_s']:.3f} s, "
                       f"max {row['startup_max_s']:.3f} s over {len(times)} fresh processes") + "\n")
            return 0
        totals = run(ns.nodes, ns.movetime, ns.seed, ns.json, out, ns.mode)
        if not ns.json:
            secs = max(totals["seconds"], 1e-9)
            out.write("=" * 40 + "\n")
            out.write(f"Total time (s) : {secs:.3f}\n")
            out.write(f"Nodes searched : {totals['nodes']}\n")
            out.write(f"Playouts       : {totals['playouts']}\n")
            out.write(f"Nodes/second   : {round(totals['nodes'] / secs)}\n")
            out.write(f"Playouts/second: {round(totals['playouts'] / secs)}\n")
            out.write(f"Signature      : {totals['signature']}\n")
            out.write(f"C extension    : {native_note().removeprefix('C extension ')}\n")
        out.flush()
    except BrokenPipeError:
        # The reader went away (e.g. piped into ``head``): not an error of ours.
        return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
