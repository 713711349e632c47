#!/usr/bin/env python3
"""Replay referee games through a strong brain and show where each one was decided.

    python -m lab.judge_games --engine /path/to/pbrain-rapfi --nodes 30000 \\
        matches/x/results.jsonl [--player engine2]

Every position of every game, from the end of the opening to the last move,
is sent to the judging brain (``BOARD ... DONE`` with ``INFO max_node``) and
its last ``Eval <v>`` MESSAGE is read from
the point of view of ``--player``.  One line per game: the player's colour
and result, the judge's verdict on the opening, the plies at which the player
held a forced win by the judge (``+M`` with the player to move), and the
player's worst move (the largest fall of the judge's score across it).  Then
a summary: how often the openings favoured each side, and how the games in
which the player held a forced win ended.  The brain is not part of this
project (docs/TUNING.md says how to build Rapfi).

With ``--prove NODES``, each game the player lost is also asked of this
project's threat solver: after the player's worst move, does it prove the
opponent's VCT (``--prove-threes`` threes, default 6, and NODES solver nodes),
and in how much CPU time?  That tells a loss the root's checks could have seen
from one beyond the solver.

With ``--save-lost FILE``, those positions (after the worst move of each lost
game, the opponent to move) are written to FILE as a JSON list in the format of
``lab.solver_bench``, which then measures the solver on them:

    python -m lab.judge_games --engine ... results.jsonl --save-lost lost.json
    python -m lab.solver_bench lost.json --nodes 200000 --threes 6
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from engine.mnk.board.rules import Board, GameConfig, GameError, Rule
from engine.mnk.threats.solver import find_vct

#: Pause before each BOARD: some brains drop a command that arrives just as they print a move.
SEND_DELAY_S = 0.03
#: Score standing for a forced win (a mate), in the judge's units.
MATE = 20000
#: Scores beyond this (either way) count as an opening favouring one side.
CLEAR_EDGE = 100


class Brain:
    """A brain process answering BOARD requests with a node limit."""

    def __init__(self, command: list[str], nodes: int, width: int, height: int) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.size = (width, height)
        self._send(f"START {width}" if width == height else f"RECTSTART {width},{height}")
        self._read_until(lambda line: line == "OK" or line.startswith("ERROR"))
        for info in (f"INFO max_node {nodes}", "INFO timeout_turn 0", "INFO timeout_match 0"):
            self._send(info)

    def _send(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def _read_until(self, done) -> list[str]:
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the brain exited")
            line = line.strip()
            lines.append(line)
            if done(line):
                return lines

    def label(self, moves):
        """The judge's (best move [x, y] or None, last Eval text or None) for the side to move after ``moves``."""
        time.sleep(SEND_DELAY_S)
        mover = len(moves) % 2
        self._send("BOARD")
        for i, (x, y) in enumerate(moves):
            self._send(f"{x},{y},{1 if i % 2 == mover else 2}")
        self._send("DONE")
        lines = self._read_until(lambda s: s.startswith("ERROR") or re.fullmatch(r"\d+,\d+", s) is not None)
        evals = [m.group(1) for m in (re.search(r"\bEval (\S+)", s) for s in lines) if m]
        if lines[-1].startswith("ERROR"):
            return None, None
        return [int(v) for v in lines[-1].split(",")], (evals[-1] if evals else None)

    def close(self) -> None:
        try:
            self._send("END")
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


def score(text: str | None) -> int | None:
    """The judge's ``Eval`` text as a number for the side to move (mates are +-MATE)."""
    if text is None:
        return None
    t = text.strip()
    if re.fullmatch(r"[+-]?M\d+", t):
        return -MATE if t.startswith("-") else MATE
    try:
        return int(float(t))
    except ValueError:
        return None


@dataclass
class Verdict:
    """What the judge made of one game, for the player."""

    game: int
    colour: str  # "X" (moved first) or "O"
    result: str  # "won", "drew", "lost"
    opening: int | None  # the judge's score after the opening
    forced_wins: list[int] = field(default_factory=list)  # plies where the player to move held one
    worst: tuple[int, int] | None = None  # (ply, fall of the score) of the player's worst move

    def line(self) -> str:
        """One human-readable line."""
        held = f"forced win held at plies {', '.join(map(str, self.forced_wins))}" if self.forced_wins else "no forced win"
        worst = f"worst move ply {self.worst[0]} (-{self.worst[1]})" if self.worst else "worst move n/a"
        opening = "?" if self.opening is None else f"{self.opening:+d}"
        return f"game {self.game:3d}  {self.colour}  {self.result:4s}  opening {opening:>6s}  {held}  {worst}"


def judge_game(record: dict, player: str, ask) -> Verdict:
    """The :class:`Verdict` of one referee record; ``ask(moves)`` returns the judge's Eval text."""
    moves = record["moves"]
    first = record.get("first", 1) == 1
    mine = 0 if first == (player == "engine1") else 1  # parity of the plies the player moves at
    winner = record.get("winner")
    result = "won" if winner == player else "drew" if winner in (None, "draw") else "lost"
    start = int(record.get("opening", 0))
    scores: dict[int, int] = {}
    for ply in range(start, len(moves)):
        s = score(ask(moves[:ply]))
        if s is not None:
            scores[ply] = s if ply % 2 == mine else -s  # the player's point of view
    verdict = Verdict(int(record.get("game", 0)), "X" if mine == 0 else "O", result, scores.get(start))
    for ply in sorted(scores):
        if ply % 2 != mine:
            continue
        if scores[ply] >= MATE:
            verdict.forced_wins.append(ply)
        if ply + 1 in scores:
            fall = scores[ply] - scores[ply + 1]
            if fall > 0 and (verdict.worst is None or fall > verdict.worst[1]):
                verdict.worst = (ply, fall)
    return verdict


def after_worst(record: dict, verdict: Verdict) -> Board | None:
    """The board after the player's worst move of a game it lost (the opponent to move), or
    ``None``: a game not lost, without a worst move, over at once, or one this project's
    rules cannot replay."""
    if verdict.result != "lost" or verdict.worst is None:
        return None
    try:
        board = replay(config_of(record), record["moves"][:verdict.worst[0] + 1])
    except (GameError, KeyError, TypeError, ValueError):
        return None
    return None if board.is_over else board


def lost_position(record: dict, verdict: Verdict, source: str) -> dict | None:
    """:func:`after_worst` as a ``lab.solver_bench`` position (``source`` names the records),
    or ``None``."""
    board = after_worst(record, verdict)
    if board is None:
        return None
    config = board.config
    return {"source": source, "game": verdict.game, "ply": verdict.worst[0], "width": config.width,
            "height": config.height, "win_length": config.win_length, "rule": config.rule.value,
            "moves": [list(m) for m in record["moves"][:verdict.worst[0] + 1]]}


def prove_after_worst(record: dict, verdict: Verdict, nodes: int, threes: int) -> tuple[list[int] | None, float] | None:
    """The opponent's VCT after the player's worst move of a game it lost, by this project's
    solver: ``(line or None, CPU seconds)``, or ``None`` when there is nothing to ask."""
    board = after_worst(record, verdict)
    if board is None:
        return None
    started = time.process_time()
    line = find_vct(board, int(board.to_move), max_nodes=nodes, max_threes=threes)
    return line, time.process_time() - started


def summary(verdicts: list[Verdict]) -> str:
    """Totals over the games (see the module doc)."""
    n = len(verdicts)
    count = lambda cond: sum(1 for v in verdicts if cond(v))  # noqa: E731
    held = [v for v in verdicts if v.forced_wins]
    lines = [
        f"{n} games: won {count(lambda v: v.result == 'won')}, drew {count(lambda v: v.result == 'drew')}, "
        f"lost {count(lambda v: v.result == 'lost')}",
        f"openings: favoured the player in {count(lambda v: v.opening is not None and v.opening > CLEAR_EDGE)}, "
        f"the opponent in {count(lambda v: v.opening is not None and v.opening < -CLEAR_EDGE)} "
        f"(judge's score beyond +-{CLEAR_EDGE})",
        f"held a forced win in {len(held)} games: won {sum(v.result == 'won' for v in held)}, "
        f"drew {sum(v.result == 'drew' for v in held)}, lost {sum(v.result == 'lost' for v in held)}",
    ]
    return "\n".join(lines)


def config_of(record: dict) -> GameConfig:
    """The game of a referee record or a ``lab.solver_bench`` position (``win_length`` 5 and
    freestyle when absent)."""
    return GameConfig(record["width"], record["height"], record.get("win_length", 5),
                      Rule.parse(record.get("rule", "freestyle")))


def replay(config: GameConfig, moves) -> Board:
    """The board after ``moves`` ([x, y] pairs, first player first)."""
    board = Board(config)
    for x, y in moves:
        board.play(config.move(x, y))
    return board


def read_records(paths):
    """The game records of referee ``results.jsonl`` files, in order (blank lines skipped)."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for text in f:
                if text.strip():
                    yield json.loads(text)


class Judge:
    """The judging brain, one process per board size: ``judge(moves, (width, height))`` is its
    Eval text, ``judge.label(moves, (width, height))`` its move and Eval text."""

    def __init__(self, command: str, nodes: int) -> None:
        self.command = command.split()
        self.nodes = nodes
        self.brains: dict[tuple[int, int], Brain] = {}

    def __call__(self, moves, size: tuple[int, int]) -> str | None:
        return self.label(moves, size)[1]

    def label(self, moves, size: tuple[int, int]):
        """The brain's (best move [x, y] or None, last Eval text or None) after ``moves`` (:meth:`Brain.label`)."""
        if size not in self.brains:
            self.brains[size] = Brain(self.command, self.nodes, *size)
        return self.brains[size].label(moves)

    def close(self) -> None:
        for brain in self.brains.values():
            brain.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records", nargs="+", help="referee results.jsonl files")
    ap.add_argument("--engine", required=True, help="judging brain command (split on spaces)")
    ap.add_argument("--nodes", type=int, default=30_000, help="INFO max_node for every position")
    ap.add_argument("--player", choices=("engine1", "engine2"), default="engine1")
    ap.add_argument("--prove", type=int, metavar="NODES",
                    help="also ask our threat solver for the opponent's VCT after the worst move of each lost game")
    ap.add_argument("--prove-threes", type=int, default=6, help="threes of that VCT (default 6)")
    ap.add_argument("--save-lost", metavar="FILE",
                    help="write the position after the worst move of each lost game (lab.solver_bench's format)")
    args = ap.parse_args(argv)
    if args.prove is not None and (args.prove < 1 or args.prove_threes < 0):
        ap.error("--prove must be positive and --prove-threes at least 0")
    judge = Judge(args.engine, args.nodes)
    verdicts = []
    lost = []
    try:
        for path, rec in ((p, r) for p in args.records for r in read_records([p])):
            size = (rec["width"], rec["height"])
            verdict = judge_game(rec, args.player, lambda moves: judge(moves, size))
            verdicts.append(verdict)
            position = lost_position(rec, verdict, Path(path).parent.name) if args.save_lost else None
            if position is not None:
                lost.append(position)
            proof = None if args.prove is None else prove_after_worst(rec, verdict, args.prove, args.prove_threes)
            tail = ""
            if proof is not None:
                line, seconds = proof
                tail = (f"  our solver: the opponent's VCT after it in {seconds:.2f} s ({len(line)} plies)" if line
                        else f"  our solver: no VCT of the opponent's after it ({seconds:.2f} s)")
            print(verdict.line() + tail, flush=True)
    finally:
        judge.close()
    print(summary(verdicts))
    if args.save_lost:
        Path(args.save_lost).write_text(json.dumps(lost) + "\n", encoding="utf-8")
        print(f"{len(lost)} positions written to {args.save_lost}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
