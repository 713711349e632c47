"""Does an NBoard engine keep the result of solved endgames?  Any engine that speaks the
NBoard protocol, through its real process:

    python -m lab.endgames -- .venv/bin/nboard-mcts --move-ms 1000
    python -m lab.endgames --depth 8 -- /path/to/edax-nboard 8
    python -m lab.endgames --json --file tests/data/reversi-endgames.txt -- ENGINE [ARGS...]

For every position of the file (``name | board | side | moves that keep the result |
result``, the format of ``tests/data/reversi-endgames.txt``) the engine gets
``set game`` with the position as the record's ``BO`` and ``go``; its move is right when
it is one of the file's moves.  One process serves every position (``nboard 2`` first,
``set depth N`` with ``--depth``).  It prints a line a position (the move, right or not,
the engine's eval against the exact margin, the seconds from ``go`` to the move) and the
count kept, with the median and longest time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from protocol.nboard.wire import parse_engine_move
from referee.engines.process import EngineProcess
from referee.errors import EngineError

DEFAULT_FILE = Path(__file__).resolve().parent.parent / "tests" / "data" / "reversi-endgames.txt"


@dataclass(frozen=True)
class Endgame:
    """A position of the file: its board (``X``/``O``/``-``, rows from the top), the side to
    move, the moves that keep the result with best play, and the exact margin."""

    name: str
    board: str
    side: str
    answers: frozenset[str]
    margin: int


@dataclass
class Answer:
    """What the engine did with one position."""

    name: str
    move: str | None
    right: bool
    eval: float | None
    margin: int
    seconds: float
    answers: str


def read_endgames(path: Path) -> list[Endgame]:
    """The positions of a file in the format of ``tests/data/reversi-endgames.txt``."""
    out = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, board, side, moves, result = (f.strip() for f in line.split("|"))
        out.append(Endgame(name, board, side.upper(), frozenset(m.lower() for m in moves.split(",")),
                           int(result.split()[1])))
    return out


def ggf(game: Endgame) -> str:
    """The position as a GGF record whose start (``BO``) is the position, with no moves."""
    n = int(round(len(game.board) ** 0.5))
    squares = game.board.replace("X", "*").replace("x", "*")
    side = "*" if game.side in ("X", "*", "B") else "O"
    return f"(;GM[Othello]PC[lab.endgames]PB[?]PW[?]RE[?]TY[{n}]BO[{n} {squares} {side}];)"


def ask(engine: EngineProcess, game: Endgame, timeout: float) -> Answer:
    """Send the position and ``go``; read up to the engine's move."""
    engine.send(f"set game {ggf(game)}")
    t0 = time.monotonic()
    engine.send("go")
    end = t0 + timeout
    while True:
        line = engine.read_line(end)
        if line is None:
            return Answer(game.name, None, False, None, game.margin, time.monotonic() - t0, ",".join(sorted(game.answers)))
        parsed = parse_engine_move(line)
        if parsed is not None:
            seconds = time.monotonic() - t0
            move, ev, _ = parsed
            return Answer(game.name, move, move in game.answers, ev, game.margin, seconds,
                          ",".join(sorted(game.answers)))


def run(argv: list[str], games: list[Endgame], depth: int | None, timeout: float) -> list[Answer]:
    """Every position through one process of the engine ``argv``."""
    engine = EngineProcess(argv, name=Path(argv[0]).name)
    engine.start()
    try:
        engine.send("nboard 2")
        if depth is not None:
            engine.send(f"set depth {depth}")
        return [ask(engine, g, timeout) for g in games]
    finally:
        engine.close_stdin()
        engine.close(send_end=False)


def main(args: list[str] | None = None) -> int:
    """Entry point: 0 when every move kept the result, 1 otherwise, 2 when the engine failed."""
    parser = argparse.ArgumentParser(prog="python -m lab.endgames", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="the positions (default: %(default)s)")
    parser.add_argument("--depth", type=int, default=None, help="send 'set depth N' first")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for a move (default 60)")
    parser.add_argument("--json", action="store_true", help="one JSON object a position, then the summary")
    parser.add_argument("engine", nargs=argparse.REMAINDER, help="-- ENGINE [ARGS...]")
    ns = parser.parse_args(sys.argv[1:] if args is None else args)
    argv = ns.engine[1:] if ns.engine[:1] == ["--"] else ns.engine
    if not argv:
        parser.error("no engine: give it after --")
    games = read_endgames(ns.file)
    try:
        answers = run(argv, games, ns.depth, ns.timeout)
    except EngineError as exc:
        print(f"lab.endgames: {exc}", file=sys.stderr)
        return 2
    for a in answers:
        if ns.json:
            print(json.dumps(asdict(a)))
        else:
            ev = "-" if a.eval is None else f"{a.eval:+.2f}"
            print(f"{a.name}  {a.move or 'none':>4}  {'kept' if a.right else 'LOST':<4}  eval {ev:>7}  "
                  f"exact {a.margin:+3d}  {a.seconds:6.3f} s  (right: {a.answers})")
    times = [a.seconds for a in answers]
    summary = {"kept": sum(a.right for a in answers), "positions": len(answers),
               "median_s": round(statistics.median(times), 3), "max_s": round(max(times), 3),
               "exact_evals": sum(a.eval is not None and a.eval == a.margin for a in answers)}
    if ns.json:
        print(json.dumps(summary))
    else:
        print(f"kept the result in {summary['kept']} of {summary['positions']}; the exact margin as eval in "
              f"{summary['exact_evals']}; time to the move: median {summary['median_s']:.3f} s, "
              f"longest {summary['max_s']:.3f} s")
    return 0 if summary["kept"] == summary["positions"] else 1


if __name__ == "__main__":
    sys.exit(main())
