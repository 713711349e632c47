"""A configurable fake NBoard (Reversi) engine for testing the referee (starts fast).

It keeps the game the GUI sends (``set game``, ``move``) with the project's own rules
and, without options, answers ``go`` with a random legal move as ``=== F5/0.00/0.01``.
Options make it misbehave in one specific way, at its own N-th ``go`` (1-based):

  --illegal-at N      answer an occupied square
  --noflip-at N       answer an empty square that flips nothing (when there is one)
  --pass-at N         answer PA although it has a legal move
  --offboard-at N     answer a square off the 8x8 board (j9)
  --garbage-at N      answer "=== @@" (a reply line without a square)
  --binary-at N       print a line of binary garbage instead of any answer
  --sleep-at N --sleep-ms MS   sleep MS before answering
  --crash-at N        exit with status 3 instead of answering
  --hang-at N         stop answering; ignore quit and SIGTERM (must be killed)
  --flood-at N        instead of answering, print --flood-text lines without end
  --flood-after N     answer, then print --flood-text lines without end
  --flood-text TEXT   the flood's line (default "status flood")
  --flood-no-newline  the flood is one endless line
  --flood-on-start    print the flood instead of answering "nboard"
  --no-pong           never answer ping
  --move-ms MS        sleep MS before every move (slow but well behaved)
  --ignore-clock-ms MS sleep MS before every move of a game sent with a clock (TI)
  --edax-style        answer in lower case with spaces, like Edax: "=== f5 0.00 0.0"
  --chatter           print status / nodestats lines before each answer
  --name NAME         announce "set myname NAME" on "nboard"
  --pidfile PATH      append our pid to PATH
  --seed N            random seed
"""

import argparse
import os
import random
import signal
import sys
import time

from engine.game import GameError
from engine.reversi.board.ggf import parse_ggf
from engine.reversi.board.rules import ReversiState

from flooding import flood  # this folder: the fakes run as scripts from it


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def pick(state: ReversiState, go: int, opt, rng: random.Random) -> str | None:
    """The word to answer the ``go``-th go with (``None``: answer nothing)."""
    legal = state.legal_moves()
    occupied = [s for s in range(state.n * state.n) if (state.black | state.white) >> s & 1]
    if go == opt.illegal_at:
        return state.move_to_text(occupied[0]).upper()
    if go == opt.noflip_at:
        empty = [s for s in range(state.n * state.n) if s not in occupied and s not in legal]
        if empty:
            return state.move_to_text(empty[0]).upper()
    if go == opt.pass_at and legal != [state.pass_move]:
        return "PA"
    if go == opt.offboard_at:
        return "J9"
    if go == opt.garbage_at:
        return "@@"
    move = rng.choice(legal)
    return "PA" if move == state.pass_move else state.move_to_text(move).upper()


def main() -> None:
    ap = argparse.ArgumentParser()
    for name in ("--illegal-at", "--noflip-at", "--pass-at", "--offboard-at", "--garbage-at", "--binary-at",
                 "--sleep-at", "--crash-at", "--hang-at", "--flood-at", "--flood-after"):
        ap.add_argument(name, type=int, default=0)
    ap.add_argument("--sleep-ms", type=int, default=0)
    # plays by its level whatever the game clock (TI) says, as Edax does: this long a go under a clock
    ap.add_argument("--ignore-clock-ms", type=int, default=0)
    ap.add_argument("--move-ms", type=int, default=0)
    ap.add_argument("--no-pong", action="store_true")
    ap.add_argument("--flood-text", default="status flood")
    ap.add_argument("--flood-no-newline", action="store_true")
    ap.add_argument("--flood-on-start", action="store_true")
    ap.add_argument("--edax-style", action="store_true")
    ap.add_argument("--chatter", action="store_true")
    ap.add_argument("--name", default="")
    ap.add_argument("--pidfile", default="")
    ap.add_argument("--seed", type=int, default=None)
    opt = ap.parse_args()
    if opt.pidfile:
        with open(opt.pidfile, "a") as f:
            f.write(f"{os.getpid()}\n")
    rng = random.Random(opt.seed)
    state = ReversiState(8)
    clocked = False  # the last set game carried a game clock
    go = 0
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd = words[0].lower()
        if cmd == "quit":
            return
        if cmd == "nboard":
            if opt.flood_on_start:
                flood(opt.flood_text, not opt.flood_no_newline)
            if opt.name:
                say(f"set myname {opt.name}")
        elif cmd == "set" and len(words) > 2 and words[1] == "game":
            try:
                state = parse_ggf(raw.split(None, 2)[2]).position()
                clocked = "TI[" in raw
                rng = random.Random(opt.seed)  # a kept process plays each game as a fresh one would
            except GameError as exc:  # a well-behaved engine says so and keeps its position
                say(f"status {exc}")
        elif cmd == "move" and len(words) > 1:
            state.apply(state.text_to_move(words[1].split("/")[0]))
        elif cmd == "ping" and not opt.no_pong:
            say(f"pong {words[1] if len(words) > 1 else ''}".strip())
        elif cmd == "hint":
            say("status thinking")
            say("search F5 0.0 0 0.0")
        elif cmd == "go":
            go += 1
            if go == opt.crash_at:
                sys.exit(3)
            if go == opt.hang_at:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                while True:
                    time.sleep(1)
            if go == opt.flood_at:
                flood(opt.flood_text, not opt.flood_no_newline)
            if go == opt.binary_at:
                sys.stdout.buffer.write(b"\x00\xff\xfe garbage \x01\n")
                sys.stdout.flush()
                continue
            if opt.chatter:
                say("status thinking hard")
                say("nodestats 1000 0.01")
            if go == opt.sleep_at:
                time.sleep(opt.sleep_ms / 1000)
            if clocked and opt.ignore_clock_ms:
                time.sleep(opt.ignore_clock_ms / 1000)
            if opt.move_ms:
                time.sleep(opt.move_ms / 1000)
            word = pick(state, go, opt, rng)
            if opt.edax_style:
                say(f"=== {word.lower()} 0.00 0.0")
            else:
                say(f"=== {word}/0.00/0.01")
            if go == opt.flood_after:
                flood(opt.flood_text, not opt.flood_no_newline)


if __name__ == "__main__":
    main()
