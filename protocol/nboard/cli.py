"""``nboard-mcts``: the Reversi engine for NBoard-protocol GUIs on stdin/stdout, and
``nboard-mcts bench``.

Start-up is kept light: numpy and the search are imported on a background thread from
the start, so ``set myname`` and the first ``pong`` come at once; the first ``go`` waits
for the import within its time (or plays an instant move when there is none left).
"""

from __future__ import annotations

import argparse
import sys

from protocol.cliargs import (add_engine_options, add_version, check_options, integer, list_options, milliseconds,
                              package_version, positive, warn_without_c_extension)
from protocol.lines import exit_now, process_start_time, quiet_on_closed_stdout

EPILOG = """\
The engine speaks the NBoard protocol (version 2) on stdin/stdout: nboard, set depth,
set game GGF, set contempt, move, go, hint N, ping, quit.  `go` answers
`=== MOVE/EVAL/TIME` with the eval in discs for the side to move (the exact final margin
once the endgame solver has proved it).  Time a move: --move-ms when given, else the GUI's
`set depth` level (level 10 is 1 s, every 3 levels double it: 4 is 250 ms, 16 is 4 s, at
most 60 s), else 1 s; the game clock of `set game` (TI, less the side's move times) caps it.
Any even board size 4..16 in `set game` is played (NBoard itself is 8x8).
`nboard-mcts bench --help` runs the Reversi benchmark.
"""


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser (shared with tests)."""
    p = argparse.ArgumentParser(
        prog="nboard-mcts",
        description="Reversi (Othello) engine for NBoard-protocol GUIs, using Monte Carlo tree search "
                    "with an exact endgame solver.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_version(p, _version)
    p.add_argument("--move-ms", type=milliseconds, default=None, metavar="MS",
                   help="time a move, overriding the GUI's set depth (default: from set depth, else 1000)")
    p.add_argument("--max-nodes", type=positive, default=None, metavar="N",
                   help="tree nodes a move at most (with --seed, reproducible moves)")
    p.add_argument("--seed", type=integer, default=None, help="random seed")
    add_engine_options(p)
    return p


def _version() -> str:
    from engine.api import native_note
    from engine.reversi.board.rules import ReversiConfig

    return f"nboard-mcts {package_version()} ({native_note(ReversiConfig())})"


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``nboard-mcts``.

    ``bench``, ``--help``, ``--version`` and bad arguments return (or raise
    ``SystemExit``) normally; serving the protocol ends the process with ``os._exit``
    once stdout is flushed (a search thread must not hold the exit up).  A reader that
    closes stdout early (``| head``) ends the program quietly.
    """
    return quiet_on_closed_stdout(lambda: _main(argv))


def _main(argv: list[str] | None) -> int:
    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in[:1] == ["bench"]:
        from engine.reversi.bench import main as bench_main

        return int(bench_main(args_in[1:], prog="nboard-mcts bench") or 0)
    started = process_start_time()
    args = build_parser().parse_args(args_in)

    from engine.reversi.board.rules import ReversiConfig
    from protocol.engines import EngineFactory
    from protocol.nboard.game import quick_move

    if args.list_options:
        return list_options(ReversiConfig(), "uct", has_mode_option=False)  # its one preset
    factory = EngineFactory(ReversiConfig(), quick_move, "uct", dict(args.engine_option), seed=args.seed)
    if args.engine_option and not check_options(factory, "nboard-mcts"):
        return 2
    factory.preload()
    return _serve(factory, args, started)


def _serve(factory, args: argparse.Namespace, started: float) -> int:
    from engine.reversi.board.rules import ReversiConfig
    from protocol.nboard.loop import NBoardLoop
    from protocol.nboard.session import Session, SessionOptions

    warn_without_c_extension("nboard-mcts", ReversiConfig())
    session = Session(SessionOptions(move_ms=args.move_ms, nodes=args.max_nodes), factory)
    exit_now(NBoardLoop(session, sys.stdin.fileno(), sys.stdout.buffer, started).run())
    return 0  # not reached
