"""``referee check ENGINE``: a protocol conformance suite for any Gomocup engine
(``referee check --game reversi ENGINE``: for an NBoard engine, :mod:`referee.conformance.nboard_suite`).

Runs the checks of :mod:`referee.conformance.gomocup_suite` (ABOUT, START/RECTSTART/RESTART,
INFO, BEGIN/TURN/BOARD, ERROR/UNKNOWN on bad input, CR LF, TAKEBACK, tactics,
the ``win_length`` extension, the match clock, END/EOF; with ``--yixin`` also Yixin-Board's
extensions (:mod:`referee.conformance.gomocup_yixin_checks`); with ``--renju`` also
:mod:`referee.conformance.gomocup_renju_checks`) and prints one line
per check plus a closing ``N passed, M failed[, S skipped]`` line.  Exit
status 0 only when no check failed; 2 for bad arguments or an engine that
cannot be started at all.

Each group of checks starts a fresh engine process; after a failed check the
next one gets a fresh process too, so a hang or crash costs one check, not
the rest of the suite.  Every wait has its own deadline.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Callable, Sequence, TextIO

from referee.cli.argtypes import board_size, engine_command, nonneg_int, nonneg_ms, positive_int
from referee.conformance.session import Session, silence_stdout
from referee.conformance.context import Group
from referee.conformance.nboard_suite import NBOARD_GROUPS, SESSION_OPTIONS
from referee.conformance.gomocup_suite import GROUPS, Ctx, Fail, Options, Skip  # importing registers the checks
from referee.conformance.gomocup_renju_checks import RENJU_GROUPS
from referee.conformance.gomocup_yixin_checks import YIXIN_GROUPS
from referee.errors import EngineStartError

__all__ = ["CheckResult", "run_checks", "format_result", "summary", "main"]

#: After this many failed checks in a row without a single line from the engine, the rest are not run.
MUTE_LIMIT = 3


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: ``status`` is ``"pass"``, ``"fail"`` or ``"skip"``."""

    name: str
    status: str
    sent: str
    got: str
    expected: str
    context: tuple[str, ...] = ()


def _clip(text: str, n: int = 110) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= n else text[: n - 3] + "..."


def format_result(r: CheckResult) -> str:
    """One report line: status, name, what was sent, what came back, what was expected."""
    head = f"{r.status.upper():4}  {r.name:<19}"
    if r.status == "skip":
        return f"{head} {_clip(r.got, 160)}"
    parts = [f"sent {_clip(r.sent, 60)!s}" if r.sent else "", f"got {_clip(r.got)}"]
    if r.status == "fail":
        parts.append(f"expected {_clip(r.expected)}")
    return f"{head} " + " | ".join(p for p in parts if p)


def run_checks(opts: Options, *, only: Sequence[str] = (),
               on_result: Callable[[CheckResult], None] | None = None,
               groups: Sequence[Group] | None = None, session_options: dict | None = None) -> list[CheckResult]:
    """Run the suite (or the checks whose names start with one of ``only``); results in order.

    ``groups`` is the suite (default: the Gomocup one, :data:`GROUPS`); ``session_options``
    go to each :class:`Session` (the NBoard suite's end line and chatter).
    Raises :class:`referee.engines.process.EngineStartError` when the engine cannot be started at all.
    """
    results: list[CheckResult] = []
    shared: dict[str, object] = {}
    first_start = True
    mute = 0  # consecutive failed checks in which the engine printed nothing at all
    for group in (GROUPS if groups is None else groups):
        checks = [c for c in group.checks if not only or any(c.name.startswith(p) for p in only)]
        sess: Session | None = None
        try:
            for chk in checks:
                if mute >= MUTE_LIMIT:
                    # A dead-silent engine would cost every remaining check its full deadline.
                    res = CheckResult(chk.name, "fail", "", f"not run: the engine printed nothing in "
                                      f"{MUTE_LIMIT} checks in a row", chk.expected)
                    results.append(res)
                    if on_result is not None:
                        on_result(res)
                    continue
                if sess is None or sess.broken or not sess.is_alive():
                    if sess is not None:
                        sess.close()
                    sess = Session(opts.argv, send_delay_ms=opts.send_delay_ms, cwd=opts.cwd,
                                   **(session_options or {}))
                    try:
                        sess.start()
                    except EngineStartError:
                        if first_start:
                            raise
                        sess = None
                        results.append(CheckResult(chk.name, "fail", "", "the engine could not be started",
                                                   chk.expected))
                        continue
                    first_start = False
                ctx = Ctx(opts, sess, shared)
                try:
                    got = chk.run(ctx)
                    res = CheckResult(chk.name, "pass", ctx.key or (ctx.sent[-1] if ctx.sent else ""), got,
                                      chk.expected)
                except Skip as exc:
                    res = CheckResult(chk.name, "skip", "", f"skipped: {exc}", chk.expected)
                except Fail as exc:
                    sess.broken = True  # a failed check leaves the engine in an unknown state
                    res = CheckResult(chk.name, "fail", ctx.sent[-1] if ctx.sent else "", exc.got,
                                      exc.expected or chk.expected, tuple(sess.context()))
                except Exception as exc:  # noqa: BLE001 - bad engine output must never crash the suite
                    sess.broken = True
                    res = CheckResult(chk.name, "fail", ctx.sent[-1] if ctx.sent else "",
                                      f"the check could not judge the output ({type(exc).__name__}: {exc})",
                                      chk.expected, tuple(sess.context()))
                mute = mute + 1 if res.status == "fail" and sess.received == 0 else 0
                results.append(res)
                if on_result is not None:
                    on_result(res)
        finally:
            if sess is not None:
                sess.close()
    return results


def summary(results: Sequence[CheckResult]) -> str:
    """``N passed, M failed`` (``, S skipped`` when any)."""
    p = sum(r.status == "pass" for r in results)
    f = sum(r.status == "fail" for r in results)
    s = sum(r.status == "skip" for r in results)
    return f"{p} passed, {f} failed" + (f", {s} skipped" if s else "")




def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="referee check",
        description="Protocol conformance checks for a Gomocup engine (--game reversi: an NBoard "
                    "engine): one line per check, exit status 0 only when none failed.")
    p.add_argument("--game", choices=("mnk", "reversi"), default="mnk",
                   help="mnk: a Gomocup engine (the default); reversi: an NBoard engine (8x8; "
                        "--size and --win-length do not apply)")
    p.add_argument("engine", type=engine_command,
                   help="engine command line as one string (split like a shell, run without one)")
    p.add_argument("--size", type=board_size, default=(15, 15), metavar="N|WxH", help="board size (default 15)")
    p.add_argument("--win-length", type=positive_int, default=5, metavar="K",
                   help="stones in a row to win in the tactics checks (default 5; other values are "
                        "told as 'INFO win_length K', this project's extension, and the checks are "
                        "skipped for an engine that ignores it)")
    p.add_argument("--turn-ms", type=positive_int, default=500, metavar="MS",
                   help="time per move the engine is given (INFO timeout_turn; default 500)")
    p.add_argument("--tolerance-ms", type=nonneg_int, default=1000, metavar="MS",
                   help="extra time before a move counts as late (default 1000, like Piskvork)")
    p.add_argument("--start-ms", type=positive_int, default=5000, metavar="MS",
                   help="how long to wait for the answers to START and ABOUT (default 5000)")
    p.add_argument("--quiet-ms", type=positive_int, default=300, metavar="MS",
                   help="how long the engine is watched for a (wrong) reply to INFO lines (default 300)")
    p.add_argument("--exit-ms", type=positive_int, default=1000, metavar="MS",
                   help="the engine must exit within MS of END or of the end of its input (default 1000)")
    p.add_argument("--send-delay-ms", type=nonneg_ms, default=0, metavar="MS",
                   help="wait at least MS after the engine's last output before the next command "
                        "(default 0; Rapfi needs about 30)")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help="run only checks whose name starts with NAME (repeatable)")
    p.add_argument("--renju", action="store_true",
                   help="also run the renju checks (INFO rule 4, 15x15: a forbidden point avoided, a five "
                        "that is also a double four played, a win by a four black can only block on a "
                        "forbidden point)")
    p.add_argument("--yixin", action="store_true",
                   help="also run the Yixin-Board checks (15x15: the commands that GUI sends answered "
                        "without ERROR/UNKNOWN, yxnbest/yxsearchdefend/yxbalance* ending with moves, "
                        "yxboard then turn, show_detail's INFO stream, rule 2 as renju with yxshowforbid)")
    p.add_argument("--list", action="store_true", help="list the checks and what each expects, then exit")
    p.add_argument("-v", "--verbose", action="store_true", help="print the last lines exchanged under each failure")
    return p


def _groups(args: argparse.Namespace) -> list:
    """The Gomocup check groups asked for: the suite, and the optional sections."""
    return GROUPS + (RENJU_GROUPS if args.renju else []) + (YIXIN_GROUPS if args.yixin else [])


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Entry point of ``referee check``."""
    out = out or sys.stdout
    p = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--list" in argv:
        game, _ = p.parse_known_args([a for a in argv if a != "--list"] + ["-"])
        listed = _groups(game)
        for g in (NBOARD_GROUPS if game.game == "reversi" else listed):
            for c in g.checks:
                out.write(f"{c.name:<19} [{g.name}] {c.expected}\n")
        return 0
    args = p.parse_args(argv)
    if args.tolerance_ms < 0 or args.send_delay_ms < 0:
        p.error("--tolerance-ms and --send-delay-ms must be >= 0")
    w, h = args.size
    if not (5 <= w <= 64 and 5 <= h <= 64):
        p.error("--size must be within 5..64")
    if args.win_length < 2 or args.win_length > max(w, h):
        p.error(f"--win-length must be within 2..{max(w, h)}")
    engine_argv = args.engine
    opts = Options(argv=engine_argv, width=w, height=h, win_length=args.win_length, turn_ms=args.turn_ms,
                   tolerance_ms=args.tolerance_ms, start_ms=args.start_ms, quiet_ms=args.quiet_ms,
                   exit_ms=args.exit_ms, send_delay_ms=args.send_delay_ms)

    def show(r: CheckResult) -> None:
        out.write(format_result(r) + "\n")
        if args.verbose and r.status == "fail":
            for ln in r.context[-10:]:
                out.write(f"        {_clip(ln, 150)}\n")
        out.flush()

    try:
        if args.game == "reversi":
            results = run_checks(opts, only=args.only, on_result=show, groups=NBOARD_GROUPS,
                                 session_options=SESSION_OPTIONS)
        else:
            results = run_checks(opts, only=args.only, on_result=show,
                                 groups=_groups(args))
        out.write(summary(results) + "\n")
        out.flush()
    except EngineStartError as exc:
        print(f"referee check: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("referee check: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. "| head": the engines are closed already; stop quietly
        silence_stdout()
        return 1
    return 0 if results and all(r.status != "fail" for r in results) else 1



if __name__ == "__main__":
    sys.exit(main())
