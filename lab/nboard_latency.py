"""An NBoard engine's response times as a GUI sees them: ``python -m lab.nboard_latency``.

    python -m lab.nboard_latency --budget-ms 1000 -- .venv/bin/nboard-mcts --move-ms 1000
    python -m lab.nboard_latency --spawns 10 --positions 0 -- /path/to/edax-nboard 8

Spawns the engine (any NBoard engine: the command after ``--``) and measures, from
writing a command to reading its answer line:

- start-up: spawn to the first ``pong`` (``nboard 2`` and ``ping 1`` written at once),
  over ``--spawns`` fresh processes;
- moves: ``go`` to ``===`` on ``--positions`` fixed midgame positions (random games from
  the start, seeded, 20..50 empty squares), and how many came later than
  ``--budget-ms`` plus ``--tolerance-ms``;
- ``ping`` sent during a search: ``===`` to ``pong`` (it must come after the move);
- ``quit`` and end of stdin during a search: to the process's exit.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from engine.reversi.board.rules import ReversiState
from lab.latency import Brain, summary


class NBoardEngine(Brain):
    """An NBoard engine child process with time-stamped lines; :meth:`close` closes stdin."""

    def answer(self, prefix: str, timeout: float = 60.0) -> float:
        """When the next line starting with ``prefix`` (lower case compared) was read."""
        t, _ = self.reply(timeout, want=lambda line: line.lower().startswith(prefix))
        return t

    def close(self) -> int:
        """Close stdin (the engine exits) and reap it; its exit code."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - a hung engine is killed
            self.proc.kill()
            return self.proc.wait()


def positions(count: int, seed: int) -> list[ReversiState]:
    """``count`` positions from seeded random games, 20..50 empty squares, not over."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = ReversiState()
        stop_at = rng.randint(20, 50)
        while state.empties() > stop_at and not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
        if not state.is_terminal() and state.legal_moves() != [state.pass_move]:
            out.append(ReversiState.from_bitboards(*state.snapshot()))
    return out


def ggf(state: ReversiState) -> str:
    """The position as a GGF record's start."""
    squares, side = state.to_text().split()
    return f"(;GM[Othello]PC[lab]TY[8]BO[8 {squares.replace('X', '*')} {'*' if side == 'X' else 'O'}];)"


def main(argv: list[str] | None = None) -> int:
    """Print one line a measurement; exit status 1 if any move was late."""
    p = argparse.ArgumentParser(prog="python -m lab.nboard_latency", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spawns", type=int, default=10, help="fresh processes for the start-up time (default 10)")
    p.add_argument("--positions", type=int, default=20, help="midgame positions for go (default 20; 0: skip)")
    p.add_argument("--budget-ms", type=float, default=1000.0, help="the engine's time a move (for 'late')")
    p.add_argument("--tolerance-ms", type=float, default=50.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("engine", nargs=argparse.REMAINDER, help="-- ENGINE [ARGS...]")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    cmd = args.engine[1:] if args.engine[:1] == ["--"] else args.engine
    if not cmd:
        p.error("no engine: give it after --")
    load = os.getloadavg()
    print(f"engine: {' '.join(cmd)}; load: {load[0]:.2f} {load[1]:.2f}")

    starts = []
    for _ in range(args.spawns):
        e = NBoardEngine(cmd)
        e.send("nboard 2", "ping 1")
        starts.append((e.answer("pong 1", 30.0) - e.spawned) * 1000)
        e.close()
    if starts:
        print(f"first pong after spawn: {summary(starts)}")

    late = 0
    if args.positions:
        e = NBoardEngine(cmd)
        e.send("nboard 2", "ping 0")
        e.answer("pong 0", 30.0)
        moves, pongs = [], []
        for i, state in enumerate(positions(args.positions, args.seed), 1):
            e.send(f"set game {ggf(state)}", f"ping s{i}")
            e.answer(f"pong s{i}")
            t0 = e.send("go", f"ping g{i}")  # the ping waits for the move
            moved = e.answer("===", args.budget_ms / 1000 + 60)
            moves.append((moved - t0) * 1000)
            pongs.append((e.answer(f"pong g{i}") - moved) * 1000)
        e.close()
        late = sum(ms > args.budget_ms + args.tolerance_ms for ms in moves)
        print(f"go to ===: {summary(moves)}; later than {args.budget_ms:.0f}+{args.tolerance_ms:.0f} ms: {late}")
        print(f"=== to the pong of a ping sent with go: {summary(pongs)}")

    for how in ("quit", "eof"):
        e = NBoardEngine(cmd)
        e.send("nboard 2", "set depth 30", "go")  # a long search (unless the command line fixes the time)
        time.sleep(0.5)
        t0 = time.monotonic()
        if how == "quit":
            e.send("quit")
        code = e.close()
        print(f"{how} during a search: exit {code} after {(time.monotonic() - t0) * 1000:.1f} ms")
    return 1 if late else 0


if __name__ == "__main__":
    sys.exit(main())
