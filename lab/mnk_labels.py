"""Label positions of m,n,k self-play games with a deeper search of the project's own engine.

    python -m lab.mnk_labels games.jsonl.gz --nodes 3000 --workers 2 --out labels.jsonl.gz

Reads the games of :mod:`lab.mnk_selfplay` and, for every position after the opening that
is not over, runs guided mode as self-play does (:func:`lab.mnk_selfplay.selfplay_options`)
with ``--nodes`` tree nodes (no clock, so the labels do not depend on the machine's speed;
the engine is seeded from the game's seed and number).  One JSON line per position:

- ``moves``: the game's moves up to the position (``[x, y]`` pairs);
- ``best``: the move the search chose; ``visits``: every root move's visit count
  (``[x, y, n]``), the target of the move priors;
- ``value``: the search's value of the position for the side to move, in [0, 1]
  (a proven win or loss is 1 or 0);
- ``proven``: ``"win"``/``"loss"``/``"draw"`` when the search proved the position, else null;
- ``winner``: how the self-play game ended (1 black, 2 white, 0 draw), and ``to_move``.

Each game's positions are written as they are labelled: a stopped run started again with
the same command keeps the games labelled in ``--out`` (but the last, which may have been cut
off, and is labelled again) and labels the rest (:mod:`lab.jsonlines`).

The same rows come at no cost from the searches a self-play game recorded as it was played
(:func:`own_labels`, shallower: the game's node budget); :mod:`lab.mnk_fit` reads either.

Nothing here comes from another program.  :mod:`lab.mnk_fit` fits the shape tables to
these labels.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from engine.api import open_engine
from engine.mnk.board.rules import Board, GameConfig, Rule
from engine.search.limits import Limits

from .jsonlines import RowWriter, read_rows
from .mnk_selfplay import search_label, selfplay_options


def config_of(game: dict) -> GameConfig:
    """The configuration a recorded game was played under."""
    return GameConfig(game["width"], game["height"], game["win_length"], Rule.parse(game["rule"]))


def _row(game: dict, config: GameConfig, moves: list, ply: int, to_move: int, label: dict, nodes: int) -> dict:
    return {"moves": [list(m) for m in moves[:ply]], "to_move": to_move, **label, "winner": game["winner"],
            "game": game["game"], "seed": game["seed"], "width": config.width, "height": config.height,
            "win_length": config.win_length, "rule": config.rule.value, "nodes": nodes}


def label_game(game: dict, nodes: int) -> list[dict]:
    """Every position of ``game`` after its opening, labelled by a ``nodes``-node search."""
    config = config_of(game)
    engine = open_engine(config, selfplay_options(config), seed=game["seed"] * 100_003 + game["game"])
    board = Board(config)
    moves = [tuple(m) for m in game["moves"]]
    out = []
    for i, (x, y) in enumerate(moves):
        if i >= game["opening"] and not board.is_terminal():
            engine.new_game()
            result = engine.search(board, Limits(nodes=nodes))
            out.append(_row(game, config, moves, i, int(board.to_move), search_label(config, engine, result), nodes))
        board.apply(config.move(x, y))
    return out


def own_labels(game: dict) -> list[dict]:
    """Every position of a self-play ``game`` after its opening, labelled by the search that
    chose its move in the game (the rows of :func:`label_game`)."""
    config = config_of(game)
    moves = [tuple(m) for m in game["moves"]]
    first = game["opening"]
    return [_row(game, config, moves, first + j, 1 + (first + j) % 2, label, game["nodes"])
            for j, label in enumerate(game["searches"])]


def expand(rows: list[dict]) -> list[dict]:
    """Label rows as they are, self-play games as the rows of their own searches (:func:`own_labels`)."""
    out: list[dict] = []
    for row in rows:
        out.extend(own_labels(row) if "searches" in row else [row])
    return out


def _job(args: tuple) -> list[dict]:
    return label_game(*args)


def read_games(paths: list[str]) -> list[dict]:
    """Rows from JSON-lines files (gzip when the name ends .gz); a cut-off tail is left out, with a warning."""
    games = []
    for path in paths:
        rows, clean = read_rows(path)
        if not clean:
            print(f"{path}: cut off after {len(rows)} complete rows (a stopped run?); using those", file=sys.stderr)
        games.extend(rows)
    return games


def main(argv: list[str] | None = None) -> int:
    """Command line: label the games' positions and write them as JSON lines."""
    ap = argparse.ArgumentParser(prog="python -m lab.mnk_labels", description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="+", help="files written by lab.mnk_selfplay")
    ap.add_argument("--nodes", type=int, default=3000, help="tree nodes of the labelling search")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    games = read_games(args.games)
    started = time.monotonic()
    with RowWriter(args.out, trim=_without_last_game) as out:
        done = {_key(row) for row in out.done}
        todo = [g for g in games if _key(g) not in done]
        count = len(out.done)
        if done:
            print(f"resuming: {len(done)} games already labelled in {args.out}", file=sys.stderr)
        with ProcessPoolExecutor(max(1, args.workers)) as pool:
            for i, rows in enumerate(pool.map(_job, [(g, args.nodes) for g in todo], chunksize=1), 1):
                out.write(rows)
                count += len(rows)
                if i % 20 == 0 or i == len(todo):
                    print(f"{i}/{len(todo)} games, {count} positions, {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


def _key(row: dict) -> tuple[int, int]:
    return row["seed"], row["game"]


def _without_last_game(rows: list[dict]) -> list[dict]:
    """The rows but those of the last game written (its rows may have been cut off)."""
    return [row for row in rows if _key(row) != _key(rows[-1])] if rows else rows


if __name__ == "__main__":
    sys.exit(main())
