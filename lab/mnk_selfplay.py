"""Self-play games of the m,n,k engine: training data made by the project itself.

    python -m lab.mnk_selfplay --games 150 --seed 1 --nodes 600 --workers 2 --out games.jsonl.gz

Deterministic from ``--seed``: game ``g`` starts from 2..``--opening-max`` random stones
(black first) within distance 3 of the centre, drawn from ``random.Random(f"{seed}:{g}")``, and
is then played out by guided mode with a node limit (no clock, so no timing enters) and
the engine seeded from the same pair; for the first ``--explore`` plies a move is, with
probability ``--explore-rate``, one of the root's four most visited instead of the best.
One JSON line per game: the moves (opening included), how many of them were the opening,
the winner (1 black, 2 white, 0 a draw), the configuration, the game's number, and
``searches``, what the search of each move after the opening found: its value for the side
to move, whether it proved the position, its move and every root move's visits (the labels
:func:`lab.mnk_labels.own_labels` turns into positions for :mod:`lab.mnk_fit`, at no cost
beyond the game).

Without a clock, the root's null-move probe of the opponent's VCT and the per-move checks it
sets off run on growing node budgets that cost over nine tenths of a self-play move; self-play
leaves the probe out (:func:`selfplay_options`), which makes a game about twelve times
faster, and keeps every other part of the brain's search.  ``--workers`` games are played at
once (processes).  Each game is written as it ends: a stopped run started again with the same
command keeps the games in ``--out`` and plays the rest (:mod:`lab.jsonlines`).

Nothing here comes from another program: the games, their openings and their results are
the project's own.  What a fit of the evaluation to them gave is in docs/RESULTS.md
("Experiments that showed no gain").
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from engine.api import open_engine, options_for
from engine.mnk.board.rules import Board, GameConfig, Rule
from engine.mnk.threats.solver import fast_solver
from engine.mnk.tree.options import MnkOptions
from engine.search.limits import Limits

from .jsonlines import RowWriter

#: Plies from the centre within which opening stones are dropped.
OPENING_RADIUS = 3


def opening(config: GameConfig, rng: random.Random, stones: int) -> list[tuple[int, int]]:
    """``stones`` random stones near the centre, black first, none of them a win or
    (under renju) a forbidden point of black's."""
    board = Board(config)
    cx, cy = config.width // 2, config.height // 2
    out: list[tuple[int, int]] = []
    while len(out) < stones:
        x = min(config.width - 1, max(0, cx + rng.randint(-OPENING_RADIUS, OPENING_RADIUS)))
        y = min(config.height - 1, max(0, cy + rng.randint(-OPENING_RADIUS, OPENING_RADIUS)))
        m = config.move(x, y)
        if board.is_empty(m) and m in board.legal_moves() and not board.wins_if_played(m, board.to_move):
            board.apply(m)
            out.append((x, y))
    return out


def selfplay_options(config: GameConfig) -> MnkOptions:
    """Guided mode as the brain plays it, without the root's null-move probe (see the module doc)."""
    options = options_for(config, "guided")
    budgets = options.budgets(fast_solver(config))._replace(threat_threes=0)
    return replace(options, root=replace(options.root, budgets=budgets))


def search_label(config: GameConfig, engine, result) -> dict:
    """What a root search found, as a self-play game records it (see the module doc)."""
    proven = result.proven
    value = 1.0 if proven == "win" else 0.0 if proven == "loss" else float(result.value)
    return {"value": round(value, 4), "proven": proven, "best": list(config.xy(result.move)),
            "visits": [[*config.xy(c.move), int(c.n)] for c in engine.root_children() if c.n > 0]}


def play_game(config: GameConfig, seed: int, number: int, nodes: int, opening_max: int,
              explore: int, explore_rate: float) -> dict:
    """One self-play game (see the module's doc)."""
    rng = random.Random(f"{seed}:{number}")
    board = Board(config)
    moves = opening(config, rng, rng.randint(2, opening_max))
    stones = len(moves)
    for x, y in moves:
        board.apply(config.move(x, y))
    engine = open_engine(config, selfplay_options(config), seed=seed * 100_003 + number)
    plies = 0
    searches = []
    while not board.is_terminal():
        result = engine.search(board, Limits(nodes=nodes))
        searches.append(search_label(config, engine, result))
        move = result.move
        if plies < explore and result.proven is None and rng.random() < explore_rate:
            children = sorted(engine.root_children(), key=lambda c: -c.n)[:4]
            if children:
                move = rng.choice(children).move
        board.apply(move)
        moves.append(config.xy(move))
        plies += 1
    winner = board.winner
    return {
        "game": number, "seed": seed, "moves": [list(m) for m in moves], "opening": stones,
        "winner": 0 if winner is None else int(winner),
        "width": config.width, "height": config.height, "win_length": config.win_length,
        "rule": config.rule.value, "nodes": nodes, "searches": searches,
    }


def _job(args: tuple) -> dict:
    return play_game(*args)


def main(argv: list[str] | None = None) -> int:
    """Command line: play the games and write them as JSON lines (gzip when the name ends .gz)."""
    ap = argparse.ArgumentParser(prog="python -m lab.mnk_selfplay", description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=800, help="tree nodes a move")
    ap.add_argument("--size", type=int, default=15)
    ap.add_argument("--win-length", type=int, default=5)
    ap.add_argument("--rule", default="freestyle")
    ap.add_argument("--opening-max", type=int, default=5, help="most random opening stones (at least 2)")
    ap.add_argument("--explore", type=int, default=12, help="plies after the opening that may explore")
    ap.add_argument("--explore-rate", type=float, default=0.1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    config = GameConfig(args.size, args.size, args.win_length, Rule.parse(args.rule))
    started = time.monotonic()
    with RowWriter(args.out) as out:
        ours = (args.seed, args.nodes, config.width, config.height, config.win_length, config.rule.value)
        if any((g["seed"], g["nodes"], g["width"], g["height"], g["win_length"], g["rule"]) != ours for g in out.done):
            print(f"{args.out} holds games of other settings: give another --out", file=sys.stderr)
            return 2
        done = {g["game"] for g in out.done}
        jobs = [(config, args.seed, g, args.nodes, max(2, args.opening_max), args.explore, args.explore_rate)
                for g in range(args.games) if g not in done]
        if done:
            print(f"resuming: {len(done)} games already in {args.out}", file=sys.stderr)
        with ProcessPoolExecutor(max(1, args.workers)) as pool:
            for i, game in enumerate(pool.map(_job, jobs, chunksize=1), 1):
                out.write([game])
                if i % 20 == 0 or i == len(jobs):
                    print(f"{i}/{len(jobs)} games, {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
