"""``pbrain-mcts``: the Gomocup brain on stdin/stdout, and ``pbrain-mcts bench``.

Start-up is kept light: numpy and the search are imported on a background
thread from the start, and ``START`` is answered as soon as the engine is ready
or ``protocol.gomocup.loop.START_REPLY_BY_S`` after spawn, whichever comes first.
"""

from __future__ import annotations

import argparse
import sys

from protocol.cliargs import (add_engine_options, add_version, check_options, integer, list_options, non_negative,
                              package_version, positive, warn_without_c_extension)
from protocol.gomocup.loop import BrainLoop, process_start_time
from protocol.lines import exit_now, quiet_on_closed_stdout

DEFAULT_MODE = "guided"

EPILOG = """\
The brain speaks the Gomocup protocol (START, BEGIN, TURN, BOARD, INFO, END, ...)
on stdin/stdout, for Piskvork, c-gomoku-cli, GomocupJudge or `referee`.  Managers may
send `INFO win_length K` to change the win length; --win-length sets it for managers
that cannot.  Move deadlines count from each command's arrival; END stops a search at
once (the commands before it still get their answers).  To script a session with real
thinking time, use `referee script FILE pbrain-mcts`.  `pbrain-mcts bench --help` runs
the engine benchmark.
"""


def _rule(text: str):
    from engine.mnk.board.rules import Rule

    try:
        return Rule.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser (shared with tests)."""
    p = argparse.ArgumentParser(
        prog="pbrain-mcts",
        description="Gomocup brain for m,n,k-games using Monte Carlo tree search.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_version(p, lambda: f"pbrain-mcts {_version()}")
    p.add_argument("--win-length", type=positive, default=5, metavar="K",
                   help="stones in a row that win (default 5; INFO win_length overrides)")
    p.add_argument("--rule", type=_rule, default=None, metavar="N|NAME",
                   help="freestyle, exact, caro, renju or a Gomocup bitmask (INFO rule overrides)")
    p.add_argument("--seed", type=integer, default=None, help="random seed (reproducible with a playout/node limit)")
    p.add_argument("--max-playouts", type=positive, default=None, metavar="N", help="playouts per move")
    p.add_argument("--max-nodes", type=positive, default=None, metavar="N",
                   help="tree nodes per move (INFO max_node overrides)")
    p.add_argument("--turn-ms", type=non_negative, default=None, metavar="MS",
                   help="time per move when the manager sends no time limit "
                        "(default 5000, or none with --max-playouts/--max-nodes)")
    p.add_argument("--mode", choices=("guided", "uct"), default=DEFAULT_MODE,
                   help="guided (threat knowledge, and priors and a value learned from line shapes: the default) "
                        "or uct (plain UCT with random playouts)")
    p.add_argument("--threads", type=positive, default=1, metavar="N",
                   help="searching threads (default 1; at most the CPU count; INFO thread_num overrides): "
                        "with 2, guided mode runs its root threat search beside the tree on a second core "
                        "where its tree runs in C (freestyle with K >= 4, and renju); elsewhere the search uses one thread")
    add_engine_options(p)
    p.add_argument("--quick", action="store_true", help="no search: instant win/block/centre moves (testing)")
    return p


def _version() -> str:
    from engine.api import native_note

    return f"{package_version()} ({native_note()})"


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``pbrain-mcts``.

    ``bench``, ``--help``, ``--version`` and bad arguments return (or raise
    ``SystemExit``) normally; serving the protocol ends the process with
    ``os._exit`` once stdout is flushed.  A reader that closes stdout early
    (``| head``) ends the program quietly.
    """
    return quiet_on_closed_stdout(lambda: _main(argv))


def _main(argv: list[str] | None) -> int:
    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in[:1] == ["bench"]:
        from engine.mnk.bench import main as bench_main

        return int(bench_main(args_in[1:]) or 0)
    started = process_start_time()
    parser = build_parser()
    args = parser.parse_args(args_in)

    from engine.mnk.board.rules import RENJU_WIN_LENGTH, Rule

    if args.rule is Rule.RENJU and args.win_length != RENJU_WIN_LENGTH:
        parser.error(f"--rule renju is played with five in a row: --win-length must be "
                     f"{RENJU_WIN_LENGTH}, got {args.win_length}")
    from engine.timecontrol import DEFAULT_TURN_MS
    from protocol.gomocup.session import Session, SessionOptions
    from protocol.gomocup.thinker import EngineFactory

    if args.list_options:
        from engine.mnk.board.rules import GameConfig

        return list_options(GameConfig(), args.mode)
    factory = None
    if not args.quick:
        factory = EngineFactory(args.mode, dict(args.engine_option), seed=args.seed, threads=args.threads)
        if args.engine_option and not check_options(factory, "pbrain-mcts"):
            return 2
        warn_without_c_extension("pbrain-mcts", None)
    if factory is not None:
        factory.preload()
    limited = args.max_playouts is not None or args.max_nodes is not None
    options = SessionOptions(
        win_length=args.win_length,
        rule=args.rule if args.rule is not None else Rule.FREESTYLE,
        playouts=args.max_playouts,
        nodes=args.max_nodes,
        default_turn_ms=args.turn_ms if args.turn_ms is not None else (None if limited else DEFAULT_TURN_MS),
    )
    loop = BrainLoop(Session(options, factory), sys.stdin.fileno(), sys.stdout.buffer, started)
    exit_now(loop.run())
