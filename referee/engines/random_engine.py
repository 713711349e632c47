"""Minimal, well-behaved engines that play uniformly random legal moves, as processes.

Shipped for testing referees and measuring their overhead (they answer at
once): ``python -m referee.engines.random_engine [--seed N] [--name NAME]`` is a
Gomocup brain; with ``--nboard`` an NBoard-protocol Reversi engine.  They never
misbehave; for misbehaving engines see ``tests/support``.  (The referee's
``random`` side needs no process: :mod:`referee.seats.random_seat`.)
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import IO

from engine.game import GameError
from engine.reversi.board.ggf import parse_ggf, parse_move
from engine.reversi.board.rules import ReversiState


class RandomBrain:
    """Protocol state of the random mover: board size and occupied cells."""

    def __init__(self, rng: random.Random, name: str = "random", seed: int | None = None) -> None:
        self.rng = rng
        self.name = name
        self.seed = seed  # with a seed, each game is played as a fresh process would play it
        self.width = self.height = 15
        self.taken: set[tuple[int, int]] = set()
        self._board_lines: list[str] | None = None

    def handle(self, line: str) -> tuple[list[str], bool]:
        """Replies to one command line, and whether to exit."""
        if self._board_lines is not None:
            if line.strip().upper() == "DONE":
                self.taken = set()
                for item in self._board_lines:
                    parts = item.split(",")
                    if len(parts) >= 2 and all(p.strip().lstrip("-").isdigit() for p in parts[:2]):
                        self.taken.add((int(parts[0]), int(parts[1])))
                self._board_lines = None
                return [self._move()], False
            self._board_lines.append(line)
            return [], False
        words = line.strip().split(None, 1)
        if not words:
            return [], False
        cmd, arg = words[0].upper(), (words[1] if len(words) > 1 else "")
        if cmd == "END":
            return [], True
        if cmd == "ABOUT":
            return [f'name="{self.name}", version="1.0", author="mnk-mcts", country="-"'], False
        if cmd in ("START", "RECTSTART"):
            try:
                nums = [int(v) for v in arg.replace(",", " ").split()]
                w, h = (nums[0], nums[0]) if cmd == "START" else (nums[0], nums[1])
            except (ValueError, IndexError):
                return ["ERROR bad size"], False
            if not (1 <= w <= 128 and 1 <= h <= 128):
                return ["ERROR unsupported size"], False
            self.width, self.height, self.taken = w, h, set()
            self._new_game()
            return ["OK"], False
        if cmd == "RESTART":
            self.taken = set()
            self._new_game()
            return ["OK"], False
        if cmd == "BEGIN":
            return [self._move()], False
        if cmd == "TURN":
            try:
                x, y = (int(v) for v in arg.split(",")[:2])
            except ValueError:
                return ["ERROR bad coordinates"], False
            self.taken.add((x, y))
            return [self._move()], False
        if cmd == "TAKEBACK":
            try:
                x, y = (int(v) for v in arg.split(",")[:2])
            except ValueError:
                return ["ERROR bad coordinates"], False
            self.taken.discard((x, y))
            return ["OK"], False
        if cmd == "BOARD":
            self._board_lines = []
            return [], False
        if cmd == "INFO":
            return [], False
        return [f"UNKNOWN {cmd}"], False

    def _new_game(self) -> None:
        if self.seed is not None:
            self.rng = random.Random(self.seed)

    def _move(self) -> str:
        free = self.width * self.height - len(self.taken)
        if free <= 0:
            return "ERROR no empty cell"
        # Rejection sampling: fast while the board is not nearly full.
        for _ in range(64):
            x, y = self.rng.randrange(self.width), self.rng.randrange(self.height)
            if (x, y) not in self.taken:
                break
        else:
            x, y = self.rng.choice([(x, y) for y in range(self.height) for x in range(self.width)
                                    if (x, y) not in self.taken])
        self.taken.add((x, y))
        return f"{x},{y}"


class RandomNboard:
    """Protocol state of the NBoard random mover: the position the GUI set and its moves."""

    def __init__(self, rng: random.Random, name: str = "random", seed: int | None = None) -> None:
        self.rng = rng
        self.name = name
        self.seed = seed  # with a seed, each game is played as a fresh process would play it
        self.state = ReversiState()

    def handle(self, line: str) -> tuple[list[str], bool]:
        """Replies to one command line, and whether to exit."""
        words = line.strip().split(None, 2)
        if not words:
            return [], False
        cmd = words[0].lower()
        try:
            if cmd == "quit":
                return [], True
            if cmd == "ping":
                return [f"pong {words[1] if len(words) > 1 else ''}".rstrip()], False
            if cmd == "set" and len(words) == 3 and words[1] == "game":
                self.state = parse_ggf(words[2]).position()
                if self.seed is not None:
                    self.rng = random.Random(self.seed)
            elif cmd == "set" and len(words) >= 2 and words[1] == "myname":
                return [f"set myname {self.name}"], False
            elif cmd == "move" and len(words) > 1:
                move = parse_move(words[1], self.state)[0]
                if move not in self.state.legal_moves():
                    return [f"status illegal move {words[1]}"], False
                self.state.apply(move)
            elif cmd == "go":
                moves = self.state.legal_moves()
                if not moves:
                    return ["status the game is over"], False
                return ["=== " + self.state.move_to_text(self.rng.choice(moves)).upper()], False
        except (GameError, ValueError) as exc:
            return [f"status {exc}"], False
        return [], False  # nboard, set depth, hint, unknown lines: nothing to say


def main(argv: list[str] | None = None, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m referee.engines.random_engine", description=__doc__)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--name", default="random")
    ap.add_argument("--nboard", action="store_true", help="speak the NBoard protocol (Reversi), not Gomocup")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    brain = RandomNboard(rng, args.name, args.seed) if args.nboard else RandomBrain(rng, args.name, args.seed)
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    for raw in inp:
        replies, done = brain.handle(raw.rstrip("\r\n"))
        if replies:
            out.write("".join(r + "\n" for r in replies))
            out.flush()
        if done:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
