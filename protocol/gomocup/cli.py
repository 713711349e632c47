"""``pbrain-mcts``: the Gomocup brain on stdin/stdout, and ``pbrain-mcts bench``.

Start-up is kept light: numpy and the search are imported on a background
thread from the start, and ``START`` is answered as soon as the engine is ready
or ``protocol.gomocup.loop.START_REPLY_BY_S`` after spawn, whichever comes first.
"""

from __future__ import annotations

import argparse
import os
import sys

from protocol.gomocup.loop import BrainLoop, process_start_time

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


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _rule(text: str):
    from engine.mnk.rules import Rule

    try:
        return Rule.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _option(text: str) -> tuple[str, str]:
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"want KEY=VALUE, got {text!r} (--list-options shows the keys)")
    return key.strip(), raw  # checked against the engine's keys at start-up


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser (shared with tests)."""
    p = argparse.ArgumentParser(
        prog="pbrain-mcts",
        description="Gomocup brain for m,n,k-games using Monte Carlo tree search.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"pbrain-mcts {_version()}")
    p.add_argument("--win-length", type=_positive, default=5, metavar="K",
                   help="stones in a row that win (default 5; INFO win_length overrides)")
    p.add_argument("--rule", type=_rule, default=None, metavar="N|NAME",
                   help="freestyle, exact, caro or a Gomocup bitmask (INFO rule overrides)")
    p.add_argument("--seed", type=int, default=None, help="random seed (reproducible with a playout/node limit)")
    p.add_argument("--max-playouts", type=_positive, default=None, metavar="N", help="playouts per move")
    p.add_argument("--max-nodes", type=_positive, default=None, metavar="N",
                   help="tree nodes per move (INFO max_node overrides)")
    p.add_argument("--turn-ms", type=_non_negative, default=None, metavar="MS",
                   help="time per move when the manager sends no time limit "
                        "(default 5000, or none with --max-playouts/--max-nodes)")
    p.add_argument("--mode", choices=("guided", "uct"), default=DEFAULT_MODE,
                   help="guided (threat knowledge, priors and a static evaluation: the default) "
                        "or uct (plain UCT with random playouts)")
    p.add_argument("--threads", type=_positive, default=1, metavar="N",
                   help="searching threads (default 1; at most the CPU count; INFO thread_num overrides): "
                        "with 2, guided mode runs its root threat search beside the tree on a second core "
                        "where its tree runs in C (freestyle, K >= 4); elsewhere the search uses one thread")
    p.add_argument("--engine-option", type=_option, action="append", default=[], metavar="KEY=VALUE",
                   help="set an engine option (repeatable); --list-options shows the keys")
    p.add_argument("--list-options", action="store_true", help="list the engine option keys and exit")
    p.add_argument("--quick", action="store_true", help="no search: instant win/block/centre moves (testing)")
    return p


def _version() -> str:
    from engine.api import native_code
    from protocol.gomocup.session import _version as version

    return f"{version()} ({'C extension built' if native_code() else NO_C_EXTENSION})"


#: Said by --version, bench and once at start-up when the C extension is missing.
NO_C_EXTENSION = "C extension not built: the engine runs 15-25 times slower"


def _list_options(mode: str) -> int:
    from engine.api import option_keys, options_for
    from engine.mnk.rules import GameConfig

    print(f"engine option keys (--engine-option KEY=VALUE; a unique last part such as 'exploration' "
          f"also works), with their values in --mode {mode}:")
    for key, kind, value in option_keys(options_for(GameConfig(), mode)):
        print(f"  {key:<28} {kind:<10} {value}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``pbrain-mcts``.

    ``bench``, ``--help``, ``--version`` and bad arguments return (or raise
    ``SystemExit``) normally; serving the protocol ends the process with
    ``os._exit`` once stdout is flushed.
    """
    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in[:1] == ["bench"]:
        from engine.mnk.bench import main as bench_main

        return int(bench_main(args_in[1:]) or 0)
    started = process_start_time()
    args = build_parser().parse_args(args_in)

    from engine.mnk.rules import Rule
    from engine.timecontrol import DEFAULT_TURN_MS
    from protocol.gomocup.session import Session, SessionOptions
    from protocol.gomocup.thinker import EngineFactory

    if args.list_options:
        return _list_options(args.mode)
    factory = None
    if not args.quick:
        factory = EngineFactory(args.mode, dict(args.engine_option), seed=args.seed, threads=args.threads)
        if args.engine_option:
            try:
                factory.check()  # fail at start-up, not mid-game, on a misspelt option
            except (ValueError, ImportError) as exc:
                print(f"pbrain-mcts: {exc}", file=sys.stderr)
                return 2
        from engine.api import native_code

        if not native_code():
            print(f"pbrain-mcts: {NO_C_EXTENSION} (reinstall where a C compiler and the Python headers "
                  "are present)", file=sys.stderr, flush=True)
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
    code = loop.run()
    # Exit at once, even with a search thread still running (END must be prompt, and a
    # thread stuck in numpy must not delay interpreter shutdown).  Everything is flushed.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)
