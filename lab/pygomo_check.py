"""Drive ``pbrain-mcts`` through pygomo-lib, a Python client of the Gomocup/Yixin protocol
that reads Rapfi's output forms: ``python -m lab.pygomo_check``.

Outside the test suite, because pygomo-lib is not a dependency of the project (install
it with ``pip install pygomo-lib``) and now and then drops a reply from Rapfi too.  Each try
starts the brain, sets the turn time, then: ``begin`` and ``turn`` with a search-info
callback (it must receive the search's report), ``takeback``, and ``nbest(3)`` (a move
within the turn).  The check passes when one of ``--tries`` tries passes; it prints one line
per step and exits 0 then, else 1 (2 when pygomo-lib is missing).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from typing import Callable


def _brief(got: object) -> str:
    """A client's answer in a few words: the move and the search info it carries."""
    move = getattr(got, "move", None)
    if move is None:
        return repr(got)
    info = getattr(got, "search_info", None)
    return f"{move} ({info})" if info is not None else str(move)


def _one_try(brain: str, turn_ms: int, say: Callable[[str], None]) -> bool:
    from pygomo import EngineClient  # type: ignore[import-not-found]

    infos: list = []
    ok = True
    limit_s = turn_ms / 1000.0 + 1.0  # the turn plus a second for the pipe and the client
    with EngineClient(brain) as engine:
        engine.start(15)
        engine.configure(timeout_turn=turn_ms, timeout_match=0)

        def step(name: str, run: Callable[[], object], good: Callable[[object, float], bool]) -> object:
            nonlocal ok
            t0 = time.monotonic()
            got = run()
            took = time.monotonic() - t0
            passed = good(got, took)
            ok = ok and passed
            say(f"  {'ok  ' if passed else 'FAIL'} {name}: {_brief(got)} in {took * 1000:.0f} ms")
            return got

        first = step("begin, with the info callback", lambda: engine.begin(on_info=infos.append),
                     lambda r, t: r is not None and bool(infos))
        say(f"       the callback got {len(infos)} report(s), the last: {infos[-1] if infos else None}")
        infos.clear()
        step("turn 8,8 (i9), with the info callback", lambda: engine.turn("8,8", on_info=infos.append),
             lambda r, t: r is not None and bool(infos))
        say(f"       the callback got {len(infos)} report(s), the last: {infos[-1] if infos else None}")
        step("takeback 8,8", lambda: engine.takeback("8,8"), lambda r, t: r is True)
        step("nbest(3) within the turn", lambda: engine.nbest(3, timeout=limit_s),
             lambda r, t: r is not None and t <= limit_s)
        del first
    return ok


def main(argv: list[str] | None = None) -> int:
    """Entry point; see the module docstring."""
    p = argparse.ArgumentParser(prog="python -m lab.pygomo_check", description=__doc__.split("\n\n")[0])
    p.add_argument("--brain", default=shutil.which("pbrain-mcts") or "pbrain-mcts",
                   help="the engine's path (default: pbrain-mcts on PATH)")
    p.add_argument("--turn-ms", type=int, default=1000, help="INFO timeout_turn (default 1000)")
    p.add_argument("--tries", type=int, default=3, help="tries, the check passes if one does (default 3)")
    args = p.parse_args(argv)
    try:
        import pygomo  # noqa: F401  # type: ignore[import-not-found]
    except ImportError:
        print("pygomo-lib is not installed: pip install pygomo-lib", file=sys.stderr)
        return 2
    for i in range(1, args.tries + 1):
        print(f"try {i} of {args.tries}: {args.brain}, {args.turn_ms} ms a move")
        try:
            if _one_try(args.brain, args.turn_ms, print):
                print("pass")
                return 0
        except Exception as exc:  # noqa: BLE001 - a client failure is a failed try, said in one line
            print(f"  FAIL the client raised {type(exc).__name__}: {exc}")
    print("fail")
    return 1


if __name__ == "__main__":
    sys.exit(main())
