"""``referee``: run a match between two Gomocup engines (or a human) and adjudicate it.

    referee [options] [ENGINE1 [ENGINE2]]
    referee check ...      (engine conformance check, referee.check)
    referee script ...     (scripted protocol session, referee.script)

Each ENGINE is one command line as a single string (split like a shell would,
but run without a shell), or ``human``.  A missing ENGINE is this project's
own brain, ``python -m protocol.gomocup``.  Exit status: 0 when the match ran, 2 for a
usage error, 130 when interrupted (Ctrl-C / SIGTERM; finished games are kept
and ``--resume`` continues).
"""

from __future__ import annotations

import argparse
import importlib
import random
import signal
import sys
from pathlib import Path
from typing import Sequence

from engine.mnk.rules import GameConfig, Rule
from referee import display
from referee.argtypes import board_size, nonneg_int, plies_range, positive_int
from referee.match import MatchError, MatchSettings, run_match
from referee.openings import load_openings, random_opening
from referee.seats import EngineSpec, TimeControl
from referee.stats import Sprt

__all__ = ["main", "build_parser", "default_engine"]

SUBCOMMANDS = {"check": "referee.check", "script": "referee.script"}


def default_engine(send_delay_ms: float = 0) -> EngineSpec:
    """This project's own brain, run with the current interpreter."""
    return EngineSpec((sys.executable, "-m", "protocol.gomocup"), "pbrain-mcts", send_delay_ms)





def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="referee",
        description="Play games between two Gomocup engines (or 'human'), adjudicated by the referee "
                    "with its own board and clock. Subcommands: 'referee check ...', 'referee script ...'.",
    )
    p.add_argument("engines", nargs="*", metavar="ENGINE",
                   help="engine command line (one quoted string) or 'human'; default: python -m protocol.gomocup")
    g = p.add_argument_group("game")
    g.add_argument("--size", type=board_size, default=(15, 15), help="board size N or WxH (default 15)")
    g.add_argument("--win-length", type=positive_int, default=5, metavar="K",
                   help="stones in a row to win (default 5)")
    g.add_argument("--rule", default="freestyle", help="freestyle | exact | caro (or a Gomocup bitmask)")
    g.add_argument("--games", type=positive_int, default=2, help="number of games (default 2)")
    g.add_argument("--first", type=int, choices=(1, 2), default=1,
                   help="which engine moves first in game 1; colours alternate (default 1)")
    t = p.add_argument_group("time")
    t.add_argument("--turn-ms", type=nonneg_int, default=1000, help="time per move in ms (default 1000; 0 = none)")
    t.add_argument("--match-ms", type=nonneg_int, default=0, help="time per game and side in ms (0 = none)")
    t.add_argument("--tolerance-ms", type=nonneg_int, default=1000,
                   help="grace added before a move is late, like Piskvork's tolerance (default 1000)")
    t.add_argument("--start-ms", type=positive_int, default=5000,
                   help="time to start and answer START with OK (default 5000, not on the clock)")
    t.add_argument("--send-delay-ms", type=float, default=0,
                   help="min delay between an engine's output and our next command (Rapfi needs ~30)")
    o = p.add_argument_group("openings")
    o.add_argument("--openings", metavar="FILE", help="opening file (offset or pos lines)")
    o.add_argument("--random-opening", type=plies_range, default=(0, 0), metavar="PLIES",
                   help="random opening of PLIES stones per pair of games (LO-HI: a random count "
                        "in that range for each pair)")
    o.add_argument("--seed", type=int, default=1, help="seed for random openings (default 1)")
    r = p.add_argument_group("running and output")
    r.add_argument("--concurrency", type=positive_int, default=1, help="games played at once (default 1)")
    r.add_argument("--out", metavar="DIR", help="write game-NNNN.psq/.sgf and results.jsonl here")
    r.add_argument("--resume", action="store_true", help="continue the match recorded in --out")
    r.add_argument("--log-io", action="store_true", help="write each game's protocol I/O (needs --out)")
    r.add_argument("--quiet", action="store_true", help="print only the final summary")
    r.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), help="stop when the SPRT decides")
    r.add_argument("--alpha", type=float, default=0.05, help="SPRT alpha (default 0.05)")
    r.add_argument("--beta", type=float, default=0.05, help="SPRT beta (default 0.05)")
    return p


def _dispatch(sub: str, argv: list[str]) -> int:
    try:
        mod = importlib.import_module(SUBCOMMANDS[sub])
    except ModuleNotFoundError as exc:
        if exc.name == SUBCOMMANDS[sub]:
            print(f"referee: the '{sub}' subcommand is not available in this build ({exc.name} is missing)",
                  file=sys.stderr)
            return 2
        raise
    rc = mod.main(argv)
    return int(rc or 0)


def _settings(args: argparse.Namespace, p: argparse.ArgumentParser) -> MatchSettings:
    try:
        rule = Rule.parse(args.rule)
        config = GameConfig(args.size[0], args.size[1], args.win_length, rule)
    except ValueError as exc:
        p.error(str(exc))
    if (args.resume or args.log_io) and not args.out:
        p.error("--resume and --log-io need --out DIR")
    if args.openings and args.random_opening[1]:
        p.error("use either --openings or --random-opening, not both")
    if args.turn_ms == 0 and args.match_ms == 0:
        p.error("--turn-ms 0 needs --match-ms: without any clock a silent engine would never lose")
    if args.send_delay_ms < 0:
        p.error("--send-delay-ms must be >= 0")
    openings: tuple = ()
    if args.openings:
        try:
            text = Path(args.openings).read_text(encoding="utf-8", errors="replace").splitlines()
            openings = tuple(tuple(o) for o in load_openings(text, config, args.openings))
        except (OSError, ValueError) as exc:
            p.error(f"--openings: {exc}")
    if args.random_opening[1]:
        try:
            random_opening(config, args.random_opening[1], random.Random(0))  # fits the board?
        except ValueError as exc:
            p.error(f"--random-opening: {exc}")
    sprt = None
    if args.sprt:
        try:
            sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta)
        except ValueError as exc:
            p.error(f"--sprt: {exc}")
    return MatchSettings(
        config=config,
        tc=TimeControl(args.turn_ms, args.match_ms, args.tolerance_ms, args.start_ms),
        games=args.games, first=args.first, openings=openings, random_plies=args.random_opening,
        seed=args.seed, concurrency=args.concurrency, out_dir=args.out, resume=args.resume,
        log_io=args.log_io, quiet=args.quiet, sprt=sprt,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``referee`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        return _dispatch(argv[0], argv[1:])
    p = build_parser()
    args = p.parse_intermixed_args(argv)
    if len(args.engines) > 2:
        p.error(f"at most two engines, got {len(args.engines)}")
    settings = _settings(args, p)
    specs = []
    for text in args.engines:
        try:
            specs.append(EngineSpec.parse(text, send_delay_ms=args.send_delay_ms))
        except ValueError as exc:
            p.error(f"engine {text!r}: {exc}")
    while len(specs) < 2:
        specs.append(default_engine(args.send_delay_ms))

    def on_term(signum, frame):  # SIGTERM ends the match like Ctrl-C: engines killed, games kept
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        outcome = run_match(specs[0], specs[1], settings)
    except MatchError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C during clean-up
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)
    print(display.summary_text(outcome.name1, outcome.name2, outcome.tally, settings.sprt), flush=True)
    if outcome.results:
        print("  endings: " + display.endings_text(outcome.results), flush=True)
    if outcome.interrupted:
        print("referee: interrupted; finished games are kept (use --resume to continue)", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
