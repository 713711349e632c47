#!/usr/bin/env python3
"""Does the engine keep a won position?  A fast measure of the weakness matches showed.

Against pela, this engine held a forced win (by Rapfi's judgement) in 80 of
180 games and won 33 of them (docs/RESULTS.md).  Matches take hours to show
a change in that; this takes minutes:

    # 1. positions where engine1 was to move with a forced win that is not a VCF
    python -m lab.conversion collect --engine /path/to/pbrain-rapfi --out wins.json \\
        matches/*/results.jsonl
    # 2. the engine's move in each, at 1 s, judged again: is the win still there?
    python -m lab.conversion run --engine /path/to/pbrain-rapfi wins.json \\
        [--ms 1000] [--option tree.exploration=0.3 ...]
    # the same for defence: positions where engine1's move in the game turned
    # a position the judge did not call lost into a forced loss (a blunder)
    python -m lab.conversion collect --blunders --engine ... --out holds.json records...
    python -m lab.conversion run --engine ... holds.json

``collect`` keeps, per game, the first ``--per-game`` such positions (the
moments a win appeared), skipping positions with a completion on the board or
a VCF that :func:`engine.mnk.threats.solver.find_vcf` finds (the root search plays those
at once).  ``run`` searches each with :func:`engine.api.open_engine` (guided
mode; ``--option`` sets engine options by key, as the brain's
``--engine-option``), and asks
the judge about the position after the move: a forced loss for the opponent
(``-M``) means the win was kept.  Blunder positions (``"goal": "hold"``) are
kept when the judge does not see a forced win for the opponent after the move.
It prints a line per position (the move and the judge's verdict, to compare two
builds position by position), then the count kept and how the
searches ended (``vct``: the root threat search proved the win itself).
``data/conversion-15x15.json`` holds the 137 positions docs/RESULTS.md's figures use.
The judging brain is not part of this project (docs/TUNING.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

from engine.api import open_engine, options_for
from engine.mnk.board.rules import GameConfig
from engine.mnk.threats.solver import find_vcf
from engine.search.limits import Limits
from lab.judge_games import MATE, Judge, read_records, replay, score


def _open_positions(rec: dict):
    """``(config, ply, board)`` for each ply of ``rec`` after the opening where engine1 is to
    move and neither side can complete a line (the last move excluded), in game order."""
    cfg = GameConfig(rec["width"], rec["height"], rec["win_length"])
    moves = rec["moves"]
    mine = 0 if rec.get("first", 1) == 1 else 1
    for ply in range(int(rec.get("opening", 0)), len(moves) - 1):
        if ply % 2 != mine:
            continue
        board = replay(cfg, moves[:ply])
        if board.winning_cells(board.to_move) or board.winning_cells(board.to_move.other):
            continue
        yield cfg, ply, board


def _position(rec: dict, cfg: GameConfig, ply: int, verdict: str | None, **extra) -> dict:
    """The stored form of the position before ``rec``'s move ``ply``."""
    return {"game": rec.get("game"), "ply": ply, "eval": verdict, **extra, "width": cfg.width,
            "height": cfg.height, "win_length": cfg.win_length, "moves": rec["moves"][:ply]}


def collect(records: list[dict], ask, per_game: int = 2) -> list[dict]:
    """Positions of ``records`` where engine1, to move, holds a forced win by ``ask(moves, size)``."""
    out = []
    for rec in records:
        found = 0
        for cfg, ply, board in _open_positions(rec):
            if found >= per_game:
                break
            if find_vcf(board, int(board.to_move), max_nodes=20000):
                continue
            verdict = ask(rec["moves"][:ply], (cfg.width, cfg.height))
            if score(verdict) == MATE:
                found += 1
                out.append(_position(rec, cfg, ply, verdict))
    return out


def collect_blunders(records: list[dict], ask) -> list[dict]:
    """Per game, the first position where engine1's move turned "not lost" into a forced loss.

    The judge's verdict before the move must not be a forced loss for engine1
    (``-M``), and after it (the opponent to move) must be a forced win for the
    opponent (``+M``).  Positions where engine1 could complete a line, or had
    to block a completion, are skipped: those are not where games are thrown.
    """
    out = []
    for rec in records:
        moves = rec["moves"]
        for cfg, ply, _ in _open_positions(rec):
            size = (cfg.width, cfg.height)
            if score(ask(moves[: ply + 1], size)) != MATE:
                continue
            before = ask(moves[:ply], size)
            if score(before) != -MATE:  # else it was lost already: the blunder came earlier
                out.append(_position(rec, cfg, ply, before, goal="hold"))
            break
    return out


def kept(position: dict, verdict: str | None) -> bool:
    """Whether the judge's verdict on the position after the engine's move keeps the goal.

    ``"win"`` (the default): the opponent, now to move, is lost (``-M``);
    ``"hold"``: the opponent, now to move, has no forced win (not ``+M``).
    """
    s = score(verdict)
    if position.get("goal", "win") == "hold":
        return s != MATE
    return s == -MATE


def run(positions: list[dict], ask, options, ms: int, seed: int = 1, threads: int = 1,
        out: TextIO | None = None) -> tuple[int, Counter]:
    """(in how many positions the engine's move kept the goal, how its searches ended);
    ``threads`` as the brain's ``--threads``.  With ``out``, a line per position goes
    there (its index, game and ply, the move, how the search ended, the judge's verdict,
    ``kept`` or ``lost``), so two builds can be compared position by position."""
    held = 0
    reasons: Counter = Counter()
    for i, pos in enumerate(positions):
        cfg = GameConfig(pos["width"], pos["height"], pos["win_length"])
        board = replay(cfg, pos["moves"])
        result = open_engine(cfg, options, seed=seed, threads=threads).search(board, Limits.movetime(ms))
        reasons[result.reason] += 1
        x, y = cfg.xy(result.move)
        verdict = ask(pos["moves"] + [[x, y]], (cfg.width, cfg.height))
        good = kept(pos, verdict)
        held += good
        if out is not None:
            print(f"{i:4d}  game {pos.get('game', '?')!s:>4} ply {pos.get('ply', '?')!s:>3}  move {x},{y}  "
                  f"{result.reason:8}  judge {verdict}  {'kept' if good else 'lost'}", file=out, flush=True)
    return held, reasons


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="find won positions in referee records")
    c.add_argument("records", nargs="+")
    c.add_argument("--out", required=True)
    c.add_argument("--per-game", type=int, default=2)
    c.add_argument("--blunders", action="store_true", help="collect engine1's losing moves instead of its wins")
    r = sub.add_parser("run", help="play the engine in each won position and judge its move")
    r.add_argument("positions")
    r.add_argument("--ms", type=int, default=1000)
    r.add_argument("--option", action="append", default=[], help="engine option KEY=VALUE (repeatable)")
    r.add_argument("--threads", type=int, default=1, help="searching threads, as the brain's --threads")
    for p in (c, r):
        p.add_argument("--engine", required=True, help="judging brain command (split on spaces)")
        p.add_argument("--nodes", type=int, default=30_000)
    args = ap.parse_args(argv)
    judge = Judge(args.engine, args.nodes)
    try:
        if args.command == "collect":
            records = list(read_records(args.records))
            found = collect_blunders(records, judge) if args.blunders else collect(records, judge, args.per_game)
            Path(args.out).write_text(json.dumps(found) + "\n", encoding="utf-8")
            print(f"{len(found)} positions from {len(records)} games -> {args.out}")
        else:
            positions = json.loads(Path(args.positions).read_text(encoding="utf-8"))
            values = dict(o.split("=", 1) for o in args.option)
            options = options_for(GameConfig(), "guided", values)
            held, reasons = run(positions, judge, options, args.ms, threads=args.threads, out=sys.stdout)
            ends = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
            print(f"kept the goal in {held} of {len(positions)} positions ({100 * held / max(1, len(positions)):.1f} %); searches ended: {ends}")
    finally:
        judge.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
