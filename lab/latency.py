"""Measure the brain's response times as a manager sees them: ``python -m lab.latency``.

Spawns the installed ``pbrain-mcts`` (or ``--cmd``), plays games against a
seeded random opponent that moves near the stones, and records the time from
writing each command to reading the reply line.  Reports, per setting, the
count, median, 90th/99th percentile and maximum, and how many moves came later
than ``timeout_turn + tolerance``; for a match clock with no turn limit, the
time used per game against the match time; and START, YXSTOP and END latency.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time

from engine.mnk.board.rules import Board, GameConfig

MOVE = re.compile(r"^(-?\d+),(-?\d+)")


def default_command() -> list[str]:
    """The ``pbrain-mcts`` installed next to this Python, else ``python -m protocol.gomocup``."""
    exe = os.path.join(os.path.dirname(sys.executable), "pbrain-mcts")
    return [exe] if os.path.exists(exe) else [sys.executable, "-m", "protocol.gomocup"]


class Brain:
    """A brain child process with time-stamped reply lines."""

    def __init__(self, cmd: list[str]) -> None:
        self.spawned = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.lines: "queue.Queue[tuple[float, str | None]]" = queue.Queue()
        self.last_message = ""
        self.quick_moves = 0  # moves made without the search (engine loading, watchdog)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\r\n")))
        self.lines.put((time.monotonic(), None))

    def send(self, *lines: str) -> float:
        """Write lines in one go; return the time just before writing."""
        t = time.monotonic()
        self.proc.stdin.write(("\n".join(lines) + "\n").encode())
        self.proc.stdin.flush()
        return t

    def reply(self, timeout: float, want=lambda s: not s.startswith(("MESSAGE", "DEBUG"))) -> tuple[float, str]:
        """The next reply line accepted by ``want`` (time read, text); raises on timeout/EOF."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply")
            t, line = self.lines.get(timeout=left)
            if line is None:
                raise EOFError("brain exited")
            if line.startswith("MESSAGE"):
                self.last_message = line
            if want(line):
                return t, line

    def close(self) -> int:
        """Send END and reap the process (killed if it does not exit); return its exit code."""
        try:
            self.send("END")
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def opponent_move(board: Board, rng) -> int:
    """Win if possible, else block an immediate win, else a random empty cell next to a
    stone: weak, but it makes games last long enough to exercise the match clock."""
    cfg = board.config
    for player in (board.to_move, board.to_move.other):
        cells = board.winning_cells(player)
        if cells:
            return int(cells[0])
    near = []
    for m in board.legal_moves():
        x, y = cfg.xy(m)
        if any(cfg.on_board(x + dx, y + dy) and board.at(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)):
            near.append(m)
    pool = near or board.legal_moves()
    return int(pool[int(rng.integers(len(pool)))])


def summary(values_ms: list[float]) -> str:
    """n, median, p90, p99, max of a list of milliseconds."""
    v = sorted(values_ms)

    def pct(q: float) -> float:
        return v[min(len(v) - 1, int(q * len(v)))]

    return (f"n={len(v)} median={statistics.median(v):.1f} p90={pct(0.9):.1f} "
            f"p99={pct(0.99):.1f} max={v[-1]:.1f} ms")


def play_game(brain: Brain, size: int, rng, setup: list[str], before_move, reply_timeout: float,
              max_moves: int | None = None) -> list[float]:
    """One game against the random opponent (the brain starts half the time).

    ``before_move(used_ms)`` gives INFO lines to send before each move.
    Returns the brain's latency per move (ms), from writing the command to
    reading the move.
    """
    brain.send(*setup, f"START {size}")
    brain.reply(10.0)
    k = 5
    for line in setup:
        if line.startswith("INFO win_length "):
            k = int(line.split()[2])
    board = Board(GameConfig.square(size, k))
    lat: list[float] = []
    first = True
    while not board.is_over and (max_moves is None or len(lat) < max_moves):
        if first and rng.integers(2):
            cmd = "BEGIN"
        else:
            m = opponent_move(board, rng)
            board.play(m)
            if board.is_over:
                break
            cmd = "TURN {},{}".format(*board.config.xy(m))
        first = False
        extra = before_move(sum(lat))
        if extra:
            brain.send(*extra)
        t0 = brain.send(cmd)
        t1, line = brain.reply(reply_timeout)
        mm = MOVE.match(line)
        if not mm:
            raise RuntimeError(f"bad reply to {cmd}: {line!r}")
        board.play(board.config.move(int(mm[1]), int(mm[2])))
        lat.append((t1 - t0) * 1000)
        if "quick move" in brain.last_message:
            brain.quick_moves += 1
    return lat


def main(argv: list[str] | None = None) -> int:
    """Run every measurement and print one line each; exit status 1 if any move was late."""
    p = argparse.ArgumentParser(prog="python -m lab.latency", description=__doc__.splitlines()[0])
    p.add_argument("--cmd", default=None, help="brain command line (default: the installed pbrain-mcts)")
    p.add_argument("--turn-ms", default="100,1000", help="comma-separated timeout_turn values")
    p.add_argument("--moves", type=int, default=100, help="brain moves per turn setting")
    p.add_argument("--tolerance-ms", type=float, default=20.0)
    p.add_argument("--match-ms", type=int, default=10_000, help="match clock for the no-turn-limit test (0: skip)")
    p.add_argument("--match-games", type=int, default=2)
    p.add_argument("--size", type=int, default=15)
    p.add_argument("--win-length", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--starts", type=int, default=5, help="spawns for the START latency test")
    args = p.parse_args(argv)
    import numpy as np

    cmd = shlex.split(args.cmd) if args.cmd else default_command()
    rng = np.random.default_rng(args.seed)
    print(f"brain: {' '.join(cmd)}; load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    failures = 0

    starts = []
    for _ in range(args.starts):
        b = Brain(cmd)
        b.send("START 15")
        t, line = b.reply(10.0)
        starts.append((t - b.spawned) * 1000)
        b.close()
    if starts:
        print(f"START answered after spawn: {summary(starts)}")

    for turn in [int(x) for x in args.turn_ms.split(",") if x.strip()]:
        b = Brain(cmd)
        lat: list[float] = []
        while len(lat) < args.moves:
            setup = [f"INFO win_length {args.win_length}", f"INFO timeout_turn {turn}"]
            lat += play_game(b, args.size, rng, setup, lambda used: [], turn / 1000 + 10, args.moves - len(lat))
        b.close()
        late = sum(1 for v in lat if v > turn + args.tolerance_ms)
        failures += late
        print(f"timeout_turn {turn}: {summary(lat)}; later than {turn}+{args.tolerance_ms:.0f} ms: {late}; "
              f"quick moves (no search): {b.quick_moves}")

    if args.match_ms:
        # No turn limit: a manager omits timeout_turn (0 would mean "answer at once").
        setup = [f"INFO win_length {args.win_length}", f"INFO timeout_match {args.match_ms}"]
        for label, sends_left in (("time_left sent", True), ("no time_left", False)):
            b = Brain(cmd)
            games = []
            for _ in range(args.match_games):
                lat = play_game(
                    b, args.size, rng, setup,
                    (lambda used: [f"INFO time_left {int(args.match_ms - used)}"]) if sends_left else (lambda used: []),
                    args.match_ms / 1000 + 10,
                )
                games.append((sum(lat), len(lat), max(lat)))
            b.close()
            over = sum(1 for used, _, _ in games if used > args.match_ms)
            failures += over
            detail = "; ".join(f"{used:.0f} ms in {n} moves (longest {mx:.0f})" for used, n, mx in games)
            print(f"match {args.match_ms} ms, no turn limit, {label}: {detail}; over the clock: {over}")

    b = Brain(cmd)
    b.send("INFO timeout_turn 60000", "START 15")
    b.reply(10.0)
    b.send("BEGIN")
    time.sleep(0.5)
    t0 = b.send("YXSTOP")
    t1, line = b.reply(10.0)
    print(f"YXSTOP during a 60 s search: move {line} after {(t1 - t0) * 1000:.1f} ms")
    b.send("TURN 0,0")
    time.sleep(0.5)
    t0 = b.send("END")
    b.proc.wait(timeout=10)
    print(f"END during a 60 s search: exit code {b.proc.returncode} after {(time.monotonic() - t0) * 1000:.1f} ms")
    print(f"load: {os.getloadavg()[0]:.2f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
