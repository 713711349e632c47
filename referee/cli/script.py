"""``referee script FILE ENGINE``: replay a protocol transcript (:mod:`referee.conformance.script`)
against any Gomocup engine (``--game reversi``: any NBoard engine).

Exit status: 0 when every expectation held, 1 at the first mismatch (printed with the
last lines sent and received), 2 for a bad script, bad arguments, a transcript of the
other protocol or an engine that cannot be started.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from referee.cli.argtypes import engine_command, nonneg_ms
from referee.conformance.script import DEFAULT_TIMEOUT_MS, Expect, Step, parse_script, run_script, transcript_game
from referee.conformance.session import silence_stdout
from referee.errors import EngineStartError, ScriptError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="referee script",
        description="Replay a protocol transcript against a Gomocup engine (--game reversi: an NBoard "
                    "engine): '> line' is sent, "
                    "'< expectation' is checked (e.g. '< OK', '< move', '< nothing 300ms', '< exit'); "
                    "the full format is in the project's docs/SCRIPTS.md.")
    p.add_argument("file", help="transcript file")
    p.add_argument("engine", type=engine_command,
                   help="engine command line as one string (split like a shell, run without one)")
    p.add_argument("--game", choices=("mnk", "reversi"), default="mnk",
                   help="mnk: a Gomocup engine (the default); reversi: an NBoard engine")
    p.add_argument("--send-delay-ms", type=nonneg_ms, default=0, metavar="MS",
                   help="wait at least MS after the engine's last output before the next line "
                        "(default 0; Rapfi needs about 30)")
    p.add_argument("--timeout-ms", type=nonneg_ms, default=DEFAULT_TIMEOUT_MS, metavar="MS",
                   help=f"default wait per expectation (default {DEFAULT_TIMEOUT_MS:g})")
    p.add_argument("-v", "--verbose", action="store_true", help="print each step as it runs")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``referee script``."""
    p = _parser()
    args = p.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.send_delay_ms < 0 or args.timeout_ms <= 0:
        p.error("--send-delay-ms must be >= 0 and --timeout-ms > 0")
    engine_argv = args.engine
    try:
        with open(args.file, encoding="utf-8", errors="replace") as f:
            steps = parse_script(f.read(), args.file)
    except OSError as exc:
        print(f"referee script: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    except ScriptError as exc:
        print(f"referee script: {exc}", file=sys.stderr)
        return 2
    written_for = transcript_game(steps)
    if written_for is not None and written_for != args.game:
        need = "--game reversi" if written_for == "reversi" else "no --game reversi (Gomocup is the default)"
        print(f"referee script: {args.file} is a{'n NBoard' if written_for == 'reversi' else ' Gomocup'} "
              f"session: replay it with {need}", file=sys.stderr)
        return 2
    try:
        return _replay(args, steps, engine_argv)
    except BrokenPipeError:  # e.g. "| head": the engine is closed already; stop quietly
        silence_stdout()
        return 1


def _replay(args: argparse.Namespace, steps: list[Step], engine_argv: list[str]) -> int:
    """Run the transcript and print the verdict; the exit status of `referee script`."""
    try:
        res = run_script(steps, engine_argv, send_delay_ms=args.send_delay_ms,
                         default_timeout_ms=args.timeout_ms, echo=sys.stdout if args.verbose else None,
                         game=args.game)
    except EngineStartError as exc:
        print(f"referee script: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the engine was closed by run_script's finally
        print("referee script: interrupted", file=sys.stderr)
        return 130
    expectations = sum(isinstance(s, Expect) for s in steps)
    if res.ok:
        print(f"{args.file}: all {expectations} expectations held")
        return 0
    print(f"{args.file}:{res.failure}")
    print("last lines (> sent, < received):")
    for ln in res.context:
        print(f"  {ln}")
    print(f"{args.file}: {res.held} of {expectations} expectations held before the mismatch")
    return 1


if __name__ == "__main__":
    sys.exit(main())
