"""``referee``: run a match between two Gomocup engines (or a person, or random moves) and adjudicate it;
with ``--game reversi``, Reversi (8x8 by default) between two NBoard engines.

    referee [options] [ENGINE1 [ENGINE2 [ENGINE3...]]]
    referee check ...      (engine conformance check, referee.cli.check)
    referee script ...     (scripted protocol session, referee.cli.script)
    referee report DIR     (the match report DIR/report.html again, referee.cli.report_page)
    referee summary DIR... (matches recorded in several folders as one, referee.cli.summary)

Each ENGINE is one command line as a single string (split like a shell would,
but run without a shell), or ``human`` (``human:NAME``).  A missing ENGINE is
this project's brain, ``pbrain-mcts`` (run as ``python -m protocol.gomocup`` with the
interpreter running the referee, so it is the same install; for Reversi ``nboard-mcts``,
``python -m protocol.nboard``).  ``random`` is the referee's built-in random mover.  Before the first
game every engine is started once; one that cannot start ends the match with
one message.  Three engines or more play a tournament (a round-robin, or ``--gauntlet``).
Every output path (``--out``, ``--pgn``) is checked before the first game; a record that
cannot be written later (a full disk) stops the match with the games recorded so far kept.
Exit status: 0 when the match ran (a human's ``quit`` included), 1 when a record could not
be written, 2 for a usage error, an output path that cannot be written or an engine that
cannot start, 130 when interrupted
(Ctrl-C / SIGTERM; with ``--out`` finished games are kept and ``--resume``
continues).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import shlex
import signal
import sys
import textwrap
from typing import Sequence

from engine.game import GameError
from engine.mnk.board.rules import GameConfig, Rule
from engine.reversi.board.rules import ReversiConfig
from engine.version import package_version
from referee.match import output as display
from referee.cli.engines import engine_specs, load_engines_file, parse_each
from referee.cli.argtypes import (any_int, board_size, nonneg_int, nonneg_ms, number, plies_range, positive_int,
                                  read_text_file)
from referee.cluster.address import cluster_address
from referee.games import GAME_TYPES
from referee.games.adjudication import Adjudication
from referee.errors import MatchError
from referee.match.run import run_tournament
from referee.match.settings import MatchSettings
from referee.cli.report import report as _report
from referee.games.openings import ORDERS, default_random_plies, load_openings, random_opening
from referee.games.clock import TimeControl
from referee.seats.spec import EngineSpec
from referee.match.stats import SPRT_MODELS, Sprt

__all__ = ["main", "build_parser", "default_engine"]

#: The per-move limit when --turn-ms is not given.  NBoard has no way to tell an engine
#: the time of a move, so Reversi engines play at their own settings (a level, a time
#: option) and the referee's limit only catches one that hangs.
DEFAULT_TURN_MS = {"mnk": 1000, "reversi": 60_000}


def default_engine(send_delay_ms: float = 0, game: str = "mnk", turn_ms: int = 0) -> EngineSpec:
    """This project's engine for ``game``, run with the current interpreter (the same install):
    ``pbrain-mcts`` (Gomocup) for m,n,k, ``nboard-mcts`` (NBoard) for Reversi.

    NBoard cannot tell an engine the time of a move (only a game clock, ``TI``), so
    nboard-mcts is given ``--move-ms``: 90 % of ``turn_ms`` when there is a per-move
    limit, the rest left for its start-up and the pipes.
    """
    if game == "reversi":
        argv: tuple[str, ...] = (sys.executable, "-m", "protocol.nboard")
        if turn_ms > 0:
            argv += ("--move-ms", str(max(1, turn_ms * 9 // 10)))
        return EngineSpec(argv, "nboard-mcts", send_delay_ms)
    return EngineSpec((sys.executable, "-m", "protocol.gomocup"), "pbrain-mcts", send_delay_ms)


EPILOG = """\
examples:
  referee                                 pbrain-mcts against itself, 2 games
  referee ./pbrain-mine --games 100 --concurrency 2 --out runs/a
                                          your engine against pbrain-mcts, recorded
  referee human --size 9 --win-length 4   you against pbrain-mcts, 9x9, four in a row
  referee ./pbrain-a ./pbrain-b --games 1000 --sprt 0 10 --display none
  referee ./a ./b ./c --games 20 --display none     a round-robin of three engines
  referee --game reversi random --games 20 --turn-ms 50
                                          nboard-mcts against random moves, Reversi 8x8
  referee --game reversi "edax-nboard 1" human
                                          you against an NBoard engine

ENGINE 'random' is the referee's own random mover (uniform legal moves, no process).
a human types a move as column and row numbers, "7,7" or "7 7" (Reversi: a square,
"f5"); 'help', 'undo'
(take back your move and the reply), 'resign' (this game), 'quit' or Ctrl-D
(resign and end the match).

exit status: 0 match played, 1 a record could not be written (a full disk: the
games recorded are kept, --resume continues), 2 usage error, an output path that
cannot be written or an engine that cannot start, 130 interrupted (with --out,
finished games are kept: --resume continues).
"""


def _wrap(text: str, width: int = 79) -> str:
    # The raw formatter (which keeps the epilog's layout) does not wrap: wrap here.
    return textwrap.fill(text, width=width)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose complaint about unknown options says where engine options go."""

    def error(self, message: str):  # type: ignore[override]
        if message.startswith("unrecognized arguments"):
            message += ("\n(an engine's own options go inside its quoted command line, "
                        "e.g. \"./pbrain-x --fast\")")
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    """The ``referee`` option parser (the subcommands have their own)."""
    p = _Parser(
        prog="referee",
        description=_wrap(
            "Play a match between two Gomocup engines, or an engine and you, on any board size "
            "and win length; or Reversi between NBoard engines (--game reversi, 8x8 by default). The referee keeps its own board and clock, gives every game a "
            "verdict, and ends with wins/draws/losses, Elo, LOS and (optionally) an SPRT. Also: "
            "'referee check ENGINE' (protocol conformance checks), 'referee script FILE "
            "ENGINE' (replay a scripted session), 'referee report DIR' (the match report page) and "
            "'referee summary DIR...' (matches recorded in several folders, summarised as one)."),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"referee {package_version()}",
                   help="show the version and exit")
    p.add_argument("engines", nargs="*", metavar="ENGINE",
                   help="an engine's command line as one quoted string (e.g. \"./pbrain-x --fast\"), its "
                        "settings (\"cmd=./rapfi name=rapfi-3k nodes=3000\": cmd, name, dir, turn_ms, match_ms, "
                        "send_delay_ms, nodes, depth, threads, info.KEY), a name from --engines FILE, "
                        "'human' (or human:NAME) to play yourself, or 'random' for random legal moves; a "
                        "missing ENGINE is this project's engine: pbrain-mcts, or nboard-mcts for "
                        "--game reversi; three or more engines play a tournament (see --gauntlet)")
    p.add_argument("--engines", dest="engines_file", metavar="FILE",
                   help="a JSON or TOML file of engines by name, each with its settings (see ENGINE)")
    p.add_argument("--each", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting for every engine that does not set it itself (repeatable), e.g. nodes=10000")
    g = p.add_argument_group("game")
    g.add_argument("--game", choices=GAME_TYPES, default="mnk",
                   help="mnk: K in a row on a WxH board, Gomocup engines (the default); reversi: "
                        "Reversi (Othello), NBoard engines (a missing ENGINE is nboard-mcts; "
                        "--win-length and --rule do not apply)")
    g.add_argument("--size", type=board_size, default=None, metavar="N|WxH",
                   help="board size (default 15; Reversi: an even N from 4 to 16, default 8 - "
                        "most NBoard engines play 8 only)")
    g.add_argument("--win-length", type=positive_int, default=None, metavar="K",
                   help="stones in a row to win (default 5)")
    g.add_argument("--rule", default=None,
                   help="freestyle (K or more in a row wins; the default), exact (exactly K: longer "
                        "lines do not win), caro (K or more, but not exactly K blocked at both ends), "
                        "renju (K = 5; black wins with exactly five and loses on a forbidden point: "
                        "an overline, a double four or a double three), or a Gomocup rule bitmask (0, 1, 4, 8)")
    g.add_argument("--games", type=positive_int, default=2, metavar="N",
                   help="number of games (default 2; an even number plays every opening with both colours)")
    g.add_argument("--draw-after", type=nonneg_int, default=0, metavar="N",
                   help="declare a draw once the board holds N stones, opening included (m,n,k; default 0 = never)")
    g.add_argument("--max-moves", type=nonneg_int, default=0, metavar="N",
                   help="declare a draw once a game reaches N moves, opening and passes included (default 0 = "
                        "no limit)")
    g.add_argument("--first", type=int, choices=(1, 2), default=1,
                   help="which ENGINE plays X, the first move, in game 1; colours alternate (default 1)")
    g.add_argument("--rounds", type=positive_int, default=1, metavar="R",
                   help="play the whole schedule R times (default 1): each pairing plays N x R games")
    g.add_argument("--gauntlet", action="store_true",
                   help="with three engines or more: the first plays each of the others (default: every "
                        "two engines play, a round-robin)")
    g.add_argument("--standings-every", type=positive_int, default=None, metavar="N",
                   help="with three engines or more: print the standings every N games (default: after a "
                        "pair of games of every pairing)")
    t = p.add_argument_group("time")
    t.add_argument("--turn-ms", type=nonneg_int, default=None, metavar="MS",
                   help="time per move (default 1000; Reversi: 60000, as NBoard engines set their own "
                        "time; 0 = no limit per move, needs --match-ms)")
    t.add_argument("--match-ms", type=nonneg_int, default=0, metavar="MS",
                   help="time per game for each side (default 0 = none)")
    t.add_argument("--tolerance-ms", type=nonneg_int, default=1000, metavar="MS",
                   help="extra time before a move counts as late, like Piskvork's tolerance (default 1000)")
    t.add_argument("--start-ms", type=positive_int, default=5000, metavar="MS",
                   help="how long an engine may take to start and answer START (default 5000; not on "
                        "its clock)")
    t.add_argument("--send-delay-ms", type=nonneg_ms, default=0, metavar="MS",
                   help="wait at least MS after an engine's last output before sending it the next "
                        "command (default 0; Rapfi drops commands sent too soon and needs about 30)")
    o = p.add_argument_group("openings", _wrap(
        "Games are played in pairs that start from the same opening with colours swapped. "
        "Without any of these options an engine match starts each pair from 2-4 random stones "
        "near the centre (2 when fewer than five in a row win), so two deterministic engines do "
        "not repeat one game, and a match with a human starts on the empty board. Reversi: 4-6 random "
        "legal plies from the start.", width=77))
    o.add_argument("--openings", metavar="FILE",
                   help="opening file, one opening per line, as c-gomoku-cli reads them: offset lines "
                        "('0,0, 1,-1': x,y from the centre) or pos lines ('h8i9j7': letter = column "
                        "from a, number = row from 1); for Reversi, move sequences from the start "
                        "('f5d6c3d3c4')")
    o.add_argument("--random-opening", type=plies_range, default=None, metavar="N|LO-HI",
                   help="start each pair from N random stones near the centre (LO-HI: a count drawn "
                        "for each pair); 0 = the empty board. Reversi: N random legal plies from the start "
                        "(default 4-6)")
    o.add_argument("--empty-board", action="store_true", help="start every game on the empty board "
                                                              "(the same as --random-opening 0)")
    o.add_argument("--seed", type=any_int, default=None,
                   help="seed of the random openings and of the built-in random mover's moves (default: "
                        "drawn at random and printed; give it back to replay the same openings)")
    o.add_argument("--transform", action="store_true",
                   help="also play each opening in its symmetric images: the 8 of a square m,n,k board (4 "
                        "of a rectangle), the 4 that keep the Reversi start; both games of a pair share one")
    o.add_argument("--openings-order", choices=ORDERS, default="sequential",
                   help="take the --openings FILE's openings in file order (the default) or in a random "
                        "order drawn from the seed")
    o.add_argument("--openings-start", type=positive_int, default=1, metavar="K",
                   help="the first opening used, 1-based, in that order (default 1)")
    r = p.add_argument_group("running and output")
    r.add_argument("--concurrency", type=positive_int, default=1, metavar="N",
                   help="games played at once (default 1; a human plays one at a time)")
    r.add_argument("--cluster", type=cluster_address, default=None, metavar="ADDRESS",
                   help="play the games on a Dask cluster (needs the 'cluster' extra): local:N starts N "
                        "worker processes here, tcp://HOST:PORT uses a running scheduler's workers, "
                        "which must run the engine commands as given (same paths); records are written "
                        "here; --concurrency is not used (each worker thread plays one game at a time)")
    r.add_argument("--out", metavar="DIR",
                   help="record each game as it ends: DIR/game-NNNN.psq (Piskvork) and .sgf (Reversi: "
                        ".ggf), and a line in DIR/results.jsonl; at the end, every game in one file, "
                        "DIR/match.sgf (Reversi: match.ggf); and DIR/report.html, a page with the summary, "
                        "plots and every game replayable, rewritten as games end ('referee report DIR' "
                        "writes it again)")
    r.add_argument("--pgn", metavar="FILE",
                   help="also append each finished game to FILE as a PGN record (tags only: White = the side "
                        "that moved first, Result, Termination...), which BayesElo and Ordo read")
    r.add_argument("--restart", choices=("auto", "always"), default="auto",
                   help="auto (the default): an engine process plays game after game (Gomocup: START again; "
                        "NBoard: set game) and is restarted only after a crash, a timeout, bad output, an "
                        "illegal move or a refused new game; always: a new process for every game (also with "
                        "--log-io and on a cluster)")
    r.add_argument("--resume", action="store_true",
                   help="continue the match recorded in --out DIR (finished games are not replayed)")
    r.add_argument("--log-io", action="store_true",
                   help="also write each game's protocol exchange and the engines' stderr into --out DIR")
    r.add_argument("--display", choices=display.DISPLAYS, default=None,
                   help="what to print as games go: 'board' = the board after every move (the default "
                        "with a human), 'moves' = one line per move and the final board (the default "
                        "otherwise), 'games' = each game's final board and verdict, 'none' = only the "
                        "summary. Final boards show the winning line in lower case")
    r.add_argument("--quiet", action="store_true", help="print only the final summary (= --display none)")
    r.add_argument("--sprt", nargs=2, type=number, metavar=("ELO0", "ELO1"),
                   help="stop early once a sequential probability ratio test decides between engine1 "
                        "being ELO0 and ELO1 Elo stronger than engine2 (e.g. --sprt 0 10)")
    r.add_argument("--sprt-model", choices=SPRT_MODELS, default="logistic",
                   help="the Elo of --sprt's bounds: logistic (the default) or normalized (nElo, as fishtest "
                        "and fastchess define it); the test runs on colour-swapped pairs (pentanomial), "
                        "on single games only when a person plays")
    r.add_argument("--alpha", type=number, default=0.05, help="SPRT false-positive rate (default 0.05)")
    r.add_argument("--beta", type=number, default=0.05, help="SPRT false-negative rate (default 0.05)")
    return p


def _settings(args: argparse.Namespace, p: argparse.ArgumentParser, human: bool = False) -> MatchSettings:
    """The match settings of the parsed options (``p.error`` on a bad combination)."""
    config = _game_config(args, p)
    if (args.resume or args.log_io) and not args.out:
        p.error("--resume and --log-io need --out DIR")
    if args.openings and (args.random_opening is not None or args.empty_board):
        p.error("use one of --openings, --random-opening and --empty-board")
    if args.empty_board and args.random_opening is not None and args.random_opening[1]:
        p.error("use one of --openings, --random-opening and --empty-board")
    turn_ms = args.turn_ms if args.turn_ms is not None else DEFAULT_TURN_MS[args.game]
    if args.draw_after and args.game == "reversi":
        p.error("--draw-after counts stones on an m,n,k board: for Reversi use --max-moves")
    if turn_ms == 0 and args.match_ms == 0:
        p.error("--turn-ms 0 needs --match-ms: without any clock a silent engine would never lose")
    if args.send_delay_ms < 0:
        p.error("--send-delay-ms must be >= 0")
    openings: tuple = ()
    if args.openings:
        try:
            text = read_text_file(args.openings).splitlines()
            openings = tuple(tuple(o) for o in load_openings(text, config, args.openings))
        except ValueError as exc:
            p.error(f"--openings {exc}")
    if (args.openings_order != "sequential" or args.openings_start != 1) and not args.openings:
        p.error("--openings-order and --openings-start choose among the openings of --openings FILE")
    if args.openings_start > max(1, len(openings)):
        p.error(f"--openings-start {args.openings_start}: the file has {len(openings)} openings")
    if args.random_opening is not None:
        plies = args.random_opening
    elif args.empty_board or args.openings or human:
        plies = (0, 0)  # a person expects the empty board, as in Piskvork; --random-opening overrides
    else:
        plies = default_random_plies(config)
    if plies[1]:
        try:
            random_opening(config, plies[1], random.Random(0))  # fits the board?
        except ValueError as exc:
            p.error(f"--random-opening: {exc}")
    shown = args.display or ("board" if human else "games" if args.cluster else "moves")
    if shown == "board" and args.concurrency > 1 and not human and not args.quiet:
        p.error("--display board shows one game at a time: use --concurrency 1, or --display moves")
    if args.cluster and (human or shown in ("board", "moves")):
        p.error("a human plays here, not on a cluster: leave out --cluster" if human else
                f"--display {shown} shows moves as they are played, but a cluster sends back whole "
                "games: use --display games or none")
    sprt = None
    if args.sprt:
        try:
            sprt = Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta, args.sprt_model)
        except ValueError as exc:
            p.error(f"--sprt: {exc}")
    return MatchSettings(
        config=config,
        tc=TimeControl(turn_ms, args.match_ms, args.tolerance_ms, args.start_ms),
        games=args.games * args.rounds, first=args.first, openings=openings, random_plies=plies,
        seed=args.seed, concurrency=args.concurrency, out_dir=args.out, resume=args.resume,
        log_io=args.log_io, quiet=args.quiet, sprt=sprt, display=shown, cluster=args.cluster,
        adjudication=Adjudication(args.draw_after, args.max_moves), pgn=args.pgn, restart=args.restart,
        transform=args.transform, openings_order=args.openings_order, openings_start=args.openings_start,
        gauntlet=args.gauntlet, standings_every=args.standings_every or 0,
    )


def _game_config(args: argparse.Namespace, p: argparse.ArgumentParser):
    """The game of the parsed options (``p.error`` on options the game does not take)."""
    if args.game == "reversi":
        given = [o for o, v in (("--win-length", args.win_length), ("--rule", args.rule)) if v is not None]
        if given:
            p.error(f"{', '.join(given)}: not a Reversi option (most discs wins)")
        if args.size is None:
            return ReversiConfig(8)
        w, h = args.size
        if w != h:
            p.error(f"--size {w}x{h}: a Reversi board is square (--size N)")
        try:
            return ReversiConfig(w)
        except GameError as exc:
            p.error(f"--size: {exc}")
    try:
        rule = Rule.parse(args.rule if args.rule is not None else "freestyle")
        w, h = args.size if args.size is not None else (15, 15)
        return GameConfig(w, h, args.win_length if args.win_length is not None else 5, rule)
    except ValueError as exc:
        p.error(str(exc))


def main(argv: Sequence[str] | None = None) -> int:
    """The ``referee`` match command (:func:`referee.cli.main.main` sends the subcommands elsewhere)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    p = build_parser()
    args = p.parse_intermixed_args(argv)
    try:
        known = load_engines_file(args.engines_file) if args.engines_file else {}
        specs = engine_specs(args.engines, known=known, each=parse_each(args.each),
                             send_delay_ms=args.send_delay_ms, game=args.game)
    except OSError as exc:
        p.error(f"--engines {args.engines_file}: {exc.strerror or exc}")
    except ValueError as exc:
        p.error(str(exc))
    while len(specs) < 2:
        # nboard-mcts plays at --turn-ms when it is given, else at its own pace (1 s a move)
        specs.append(default_engine(args.send_delay_ms, args.game, args.turn_ms or 0))
    if len(specs) > 2 and (args.sprt or any(s.is_human for s in specs)):
        p.error("a tournament (three engines or more) has no person playing and no --sprt")
    settings = dataclasses.replace(_settings(args, p, human=any(s.is_human for s in specs)),
                                   command=shlex.join(["referee", *argv]))

    def on_term(signum, frame):  # SIGTERM ends the match like Ctrl-C: engines killed, games kept
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        outcome = run_tournament(specs, settings)
    except MatchError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C during clean-up
        return 130
    except BrokenPipeError:  # our reader went away (e.g. '| head'): the engines are reaped already
        return _stdout_gone()
    finally:
        signal.signal(signal.SIGTERM, old)
    try:
        return _report(outcome, settings)
    except BrokenPipeError:
        return _stdout_gone()


def _stdout_gone() -> int:
    # Point stdout at /dev/null so the interpreter's final flush does not fail a second time.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 1


if __name__ == "__main__":
    sys.exit(main())
