#!/usr/bin/env python3
"""Label positions from referee game records with a strong brain's move and evaluation.

    python -m lab.label_positions --engine /path/to/pbrain-rapfi --nodes 100000 \\
        --positions 3000 --out labels.jsonl  matches/*/results.jsonl

Positions are prefixes of the recorded games (after the opening, before the
last move), shuffled with ``--seed`` and de-duplicated; ``--skip`` drops the
first N of that order (to extend a set without repeats).  Each is sent to
the brain as ``BOARD ... DONE`` with ``INFO max_node``, and the answer is
stored with the last ``Eval <v>`` the brain printed in a MESSAGE line (Rapfi
prints one per iteration; brains that print none get ``"eval": null``).
``python -m lab.tuning`` fits the engine's weights to the result.  The
brain is not part of this project: build it yourself (docs/TUNING.md).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

#: Pause before each BOARD: some brains drop a command that arrives just as they print a move.
SEND_DELAY_S = 0.03


def positions(paths, count, seed, skip):
    """Distinct game prefixes of the 15x15-style records in ``paths`` (see the module doc)."""
    prefixes = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("rule", "freestyle") != "freestyle":
                    continue
                moves = rec["moves"]
                for i in range(max(rec.get("opening", 0), 2), len(moves) - 1):
                    prefixes.append((rec["width"], rec["height"], rec["win_length"], moves[:i]))
    random.Random(seed).shuffle(prefixes)
    seen, out = set(), []
    for w, h, k, moves in prefixes:
        key = (w, h, k, tuple(map(tuple, moves)))
        if key not in seen:
            seen.add(key)
            out.append({"width": w, "height": h, "win_length": k, "moves": moves})
    return out[skip : skip + count]


class Brain:
    """A brain process answering BOARD requests with a node limit."""

    def __init__(self, command: list[str], nodes: int, width: int, height: int) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.size = (width, height)
        self._send(f"START {width}" if width == height else f"RECTSTART {width},{height}")
        self._read_until(lambda line: line == "OK" or line.startswith("ERROR"))
        for info in (f"INFO max_node {nodes}", "INFO timeout_turn 0", "INFO timeout_match 0"):
            self._send(info)

    def _send(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def _read_until(self, done) -> list[str]:
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the brain exited")
            line = line.strip()
            lines.append(line)
            if done(line):
                return lines

    def label(self, moves):
        """(best move [x, y] or None, last Eval text or None) for the side to move after ``moves``."""
        time.sleep(SEND_DELAY_S)
        mover = len(moves) % 2
        self._send("BOARD")
        for i, (x, y) in enumerate(moves):
            self._send(f"{x},{y},{1 if i % 2 == mover else 2}")
        self._send("DONE")
        lines = self._read_until(lambda s: s.startswith("ERROR") or re.fullmatch(r"\d+,\d+", s) is not None)
        evals = [m.group(1) for m in (re.search(r"\bEval (\S+)", s) for s in lines) if m]
        if lines[-1].startswith("ERROR"):
            return None, None
        return [int(v) for v in lines[-1].split(",")], (evals[-1] if evals else None)

    def close(self) -> None:
        try:
            self._send("END")
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records", nargs="+", help="referee results.jsonl files")
    ap.add_argument("--engine", required=True, help="brain command (split on spaces)")
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--positions", type=int, default=3000)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    todo = positions(args.records, args.positions, args.seed, args.skip)
    print(f"{len(todo)} positions", file=sys.stderr)

    def work(chunk):
        brains = {}
        out = []
        try:
            for pos in chunk:
                size = (pos["width"], pos["height"])
                if size not in brains:
                    brains[size] = Brain(args.engine.split(), args.nodes, *size)
                best, ev = brains[size].label(pos["moves"])
                if best is not None:
                    out.append(dict(pos, best=best, eval=ev))
        finally:
            for b in brains.values():
                b.close()
        return out

    chunks = [todo[i :: args.workers] for i in range(args.workers)]
    with ThreadPoolExecutor(args.workers) as pool:
        results = [r for part in pool.map(work, chunks) for r in part]
    with open(args.out, "w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    print(f"{len(results)} labelled -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
