"""How often the m,n,k knowledge and search play the moves a player played in recorded games.

    python -m lab.mnk_agreement OUT-42/results.jsonl OUT-303/results.jsonl --player engine2 \\
        --positions 600 --nodes 1000,8000,30000,100000 --workers 2

A judge of the knowledge by a stronger player's moves (Rapfi's, in the games of a referee match
against it): the positions before that player's moves (after the opening), a random
``--positions`` of them drawn by ``--seed``, are asked of

- the **move priors** (engine/mnk/knowledge/shapes.py): the rank of the move played among the
  empty cells (first, among the first five);
- the **search** at each of ``--nodes``, as self-play runs it (guided mode without the root's
  null-move probe, :func:`lab.mnk_selfplay.selfplay_options`, so no clock enters): how often its
  move is the one played, over all positions and over those it did not prove; and, between
  the first and the last budget, how often its move changes, and how often from or to the
  move played (a search that looks deeper should change towards the stronger player's moves).

With ``--engine CMD`` a Gomocup brain takes the search's place (``INFO max_node`` at each of
``--nodes``, as :mod:`lab.judge_games` asks it): the same measure of another engine's search,
for comparison.

Measurement only: nothing is fitted to those moves (docs/TUNING.md).  It measures how much a
search resembles that player as well as how strong it is: Rapfi at 10,000 nodes, level with our
engine in play, agrees with its own full-strength moves far more often (docs/RESULTS.md).  So it
can rule a change out only together with matches.
"""

from __future__ import annotations

import argparse
import random
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from engine.api import open_engine
from engine.mnk.knowledge.shapes import shape_board
from engine.search.limits import Limits

from .judge_games import Judge, config_of, read_records, replay
from .mnk_selfplay import selfplay_options


def positions(records, player: str) -> list[tuple[dict, int]]:
    """(record, ply) for every move ``player`` ("engine1" or "engine2") made after the opening."""
    out = []
    for rec in records:
        # "first" names the engine that moved first; it moves at the even plies.
        mover_at_even = rec["first"] == (1 if player == "engine1" else 2)
        for ply in range(rec.get("opening", 0), len(rec["moves"])):
            if (ply % 2 == 0) == mover_at_even:
                out.append((rec, ply))
    return out


def prior_rank(rec: dict, ply: int) -> int:
    """Rank (0 = first) of the move played at ``ply`` among the empty cells by the priors
    (cells scored as high count against it)."""
    config = config_of(rec)
    compact = np.zeros((1, config.area), dtype=np.int8)
    for j, (x, y) in enumerate(rec["moves"][:ply]):
        compact[0, y * config.width + x] = 1 + j % 2
    empty = np.flatnonzero(compact[0] == 0)
    x, y = rec["moves"][ply]
    logits = shape_board(config).prior_logits(compact, 1 + ply % 2, empty)[0]
    played = logits[np.flatnonzero(empty == y * config.width + x)[0]]
    return int((logits >= played).sum() - 1)


def search_agrees(args: tuple[dict, int, tuple[int, ...], int]) -> list[tuple[bool, bool, tuple[int, int]]]:
    """(plays the move played, proved the position, its move) for each node budget."""
    rec, ply, budgets, seed = args
    config = config_of(rec)
    played = tuple(rec["moves"][ply])
    out = []
    for nodes in budgets:
        board = replay(config, rec["moves"][:ply])
        result = open_engine(config, selfplay_options(config), seed=seed).search(board, Limits(nodes=nodes))
        move = config.xy(result.move)
        out.append((move == played, result.proven is not None, move))
    return out


def changes(results: list[list[tuple[bool, bool, tuple[int, int]]]]) -> tuple[int, int, int, int]:
    """Between the first and the last budget, over the positions neither proved: (how many
    such positions, how many change their move, how many of those changed from the move
    played, how many to it)."""
    open_ = [r for r in results if not r[0][1] and not r[-1][1]]
    moved = [r for r in open_ if r[0][2] != r[-1][2]]
    return len(open_), len(moved), sum(r[0][0] for r in moved), sum(r[-1][0] for r in moved)


def brain_agrees(command: str, found: list[tuple[dict, int]], nodes: int) -> int:
    """How many of ``found`` the brain answers with the move played, at ``nodes`` a move."""
    judge = Judge(command, nodes)
    try:
        return sum(judge.label(rec["moves"][:ply], (rec["width"], rec["height"]))[0] == list(rec["moves"][ply])
                   for rec, ply in found)
    finally:
        judge.close()


def main(argv: list[str] | None = None) -> int:
    """Command line: sample the positions, rank the moves, print one line per measure."""
    ap = argparse.ArgumentParser(prog="python -m lab.mnk_agreement", description=__doc__.split("\n")[0])
    ap.add_argument("records", nargs="+", help="referee results.jsonl files")
    ap.add_argument("--player", choices=("engine1", "engine2"), default="engine2")
    ap.add_argument("--positions", type=int, default=600, help="positions drawn (all when fewer)")
    ap.add_argument("--nodes", default="1000,8000", help="search budgets, comma-separated (none: priors only)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--engine", help="a Gomocup brain's command (split on spaces) to measure instead of our search")
    args = ap.parse_args(argv)
    try:
        budgets = tuple(int(n) for n in args.nodes.split(",") if n.strip())
    except ValueError:
        ap.error(f"--nodes: not a list of numbers: {args.nodes!r}")
    try:
        found = positions(read_records(args.records), args.player)
    except (OSError, ValueError, KeyError, TypeError) as e:  # no such file, or not referee records
        print(f"cannot read the records: {e!r}", file=sys.stderr)
        return 1
    random.Random(args.seed).shuffle(found)
    found = found[: args.positions]
    if not found:
        print("no positions: no moves of that player after the openings", file=sys.stderr)
        return 1
    ranks = np.array([prior_rank(rec, ply) for rec, ply in found])
    print(f"{len(found)} positions of {args.player}'s moves")
    print(f"priors: the move played first {np.mean(ranks < 1):.1%}, among the first five {np.mean(ranks < 5):.1%}")
    if budgets and args.engine:
        for nodes in budgets:
            try:
                agree = brain_agrees(args.engine, found, nodes)
            except (OSError, RuntimeError) as e:  # no such program, or it quit
                print(f"--engine: {e}", file=sys.stderr)
                return 1
            print(f"brain, {nodes} nodes: plays the move played in {agree} of {len(found)}"
                  f" ({agree / len(found):.1%})")
    elif budgets:
        with ProcessPoolExecutor(max(1, args.workers)) as pool:
            results = list(pool.map(search_agrees, [(rec, ply, budgets, args.seed) for rec, ply in found], chunksize=4))
        for k, nodes in enumerate(budgets):
            agree = sum(r[k][0] for r in results)
            open_ = [r[k][0] for r in results if not r[k][1]]
            print(f"search, {nodes} nodes: plays the move played in {agree} of {len(results)} ({agree / len(results):.1%});"
                  f" where it proved nothing {sum(open_)} of {len(open_)} ({sum(open_) / max(1, len(open_)):.1%})")
        if len(budgets) > 1:
            unproven, moved, away, to = changes(results)
            print(f"from {budgets[0]} to {budgets[-1]} nodes, where neither proved anything: the move changes in {moved}"
                  f" of {unproven}, from the move played in {away}, to it in {to}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
