"""How far timed searches of the library overrun their deadline: ``python -m lab.deadline``.

Plays seeded random games on 15×15 (five in a row) and searches each position with
``Limits.movetime`` through :class:`engine.mnk.tree.engine.MnkEngine` in this process, the tree
kept from move to move as a GUI's library user would.  Reports the overrun past the
deadline (median, p99, max) and the garbage collector's pauses inside the searches: a full
collection that walks a large heap in the middle of a search is charged to its deadline.
"""

from __future__ import annotations

import argparse
import gc
import os
import time

import numpy as np

from engine.mnk.tree.engine import MnkEngine
from engine.mnk.tree.options import MnkOptions
from engine.mnk.board.rules import Board, GameConfig
from engine.search.limits import Limits

from .latency import opponent_move, summary


class PauseClock:
    """The garbage collector's pauses while ``on`` is set, in milliseconds."""

    def __init__(self) -> None:
        self.on = False
        self.pauses: list[float] = []
        self._began = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        elif self.on:
            self.pauses.append((time.perf_counter() - self._began) * 1000)


def main(argv: list[str] | None = None) -> int:
    """Run the searches and print the overruns and the pauses."""
    p = argparse.ArgumentParser(prog="python -m lab.deadline", description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=("uct", "guided"), default="uct", help="the engine's preset (default uct)")
    p.add_argument("--turn-ms", default="50,300,100", help="comma-separated search times, used in turn")
    p.add_argument("--searches", type=int, default=150)
    p.add_argument("--heap", type=int, default=0, help="extra long-lived objects, as a large host process holds")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    config = GameConfig.square(15, 5)
    rng = np.random.default_rng(args.seed)
    engine = MnkEngine(config, MnkOptions.preset(args.mode), seed=args.seed)
    heap = [[i] for i in range(args.heap)]  # noqa: F841 - alive to the end: the host's data
    clock = PauseClock()
    times = [int(x) for x in args.turn_ms.split(",") if x.strip()]
    over: list[float] = []
    board = Board(config)
    print(f"mode {args.mode}, searches of {times} ms, extra heap {args.heap}; load {os.getloadavg()[0]:.2f}")
    gc.callbacks.append(clock)
    try:
        while len(over) < args.searches:
            if board.is_over or len(board.history) >= 40:
                board = Board(config)
                engine.new_game()
            ms = times[len(over) % len(times)]
            clock.on = True
            start = time.monotonic()
            result = engine.search(board, Limits.movetime(ms))
            over.append((time.monotonic() - start) * 1000 - ms)
            clock.on = False
            # Half the moves the engine's, half a weak random opponent's: varied positions.
            move = result.move if rng.random() < 0.5 else opponent_move(board, rng)
            board.play(move)
    finally:
        gc.callbacks.remove(clock)
    print(f"overrun past the deadline: {summary(over)}")
    pauses = clock.pauses or [0.0]
    print(f"garbage collector inside the searches: {len(clock.pauses)} pauses, longest {max(pauses):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
