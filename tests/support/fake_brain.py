"""A configurable fake Gomocup brain for testing the referee (stdlib only, starts fast).

Without options it is a well-behaved random mover.  Options make it misbehave
in one specific way, at its own N-th move (1-based, counting the moves it is
asked for):

  --crash-at N        exit with status 3 instead of answering
  --hang-at N         stop answering; ignore END and SIGTERM (must be killed)
  --sleep-at N --sleep-ms MS   sleep MS before answering
  --move-ms MS        sleep MS before every move (a slow but well-behaved engine)
  --occupied-at N     answer an occupied cell
  --offboard-at N     answer a cell off the board
  --garbage-at N      answer binary garbage instead of a move
  --start-error       answer ERROR to START / RECTSTART
  --no-start-reply    never answer START
  --no-about          never answer ABOUT
  --trailing          append "<TAB>Value: 0.42" to every move
  --messages N        print N MESSAGE/DEBUG lines (one holding a coordinate) before each move
  --eval-mate-from N  print "MESSAGE ... Eval <v>" before each move, like Rapfi: "+M1" (the side
                      to move wins) once the board holds N stones or more, else the stone count
  --big-message       print a 60 kB MESSAGE line before each move (just under the referee's 64 kB cap)
  --drop-ms MS        like Rapfi: a command arriving within MS of our last move is
                      dropped (answered "ERROR Unknown command") and forgotten
  --flood-at N        instead of answering, print --flood-text lines without end
  --flood-after N     answer, then print --flood-text lines without end
  --flood-text TEXT   the flood's line (default "MESSAGE flood")
  --flood-no-newline  the flood is one endless line
  --kill-parent-at N  kill our parent process (the referee, or its Dask worker) with SIGKILL
  --spawn-child       start a sleeping grandchild process (its pid goes to --pidfile too)
  --pidfile PATH      append our pid (and the child's) to PATH, one per line
  --name NAME         name reported by ABOUT
  --script X,Y;X,Y... its first moves, each played where the cell is empty (a renju foul on
                      purpose, say); random moves after them
  --seed N            random seed
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import time

from flooding import flood  # this folder: the fakes run as scripts from it


def main() -> None:
    ap = argparse.ArgumentParser()
    for opt in ("--crash-at", "--hang-at", "--kill-parent-at", "--sleep-at", "--occupied-at", "--offboard-at",
                "--garbage-at", "--flood-at", "--flood-after"):
        ap.add_argument(opt, type=int, default=0)
    ap.add_argument("--sleep-ms", type=int, default=0)
    ap.add_argument("--move-ms", type=int, default=0)
    ap.add_argument("--start-error", action="store_true")
    ap.add_argument("--no-start-reply", action="store_true")
    ap.add_argument("--no-about", action="store_true")
    ap.add_argument("--trailing", action="store_true")
    ap.add_argument("--messages", type=int, default=0)
    ap.add_argument("--eval-mate-from", type=int, default=0)
    ap.add_argument("--big-message", action="store_true")
    ap.add_argument("--drop-ms", type=float, default=0)
    ap.add_argument("--flood-text", default="MESSAGE flood")
    ap.add_argument("--flood-no-newline", action="store_true")
    ap.add_argument("--spawn-child", action="store_true")
    ap.add_argument("--pidfile", default=None)
    ap.add_argument("--name", default="fake")
    ap.add_argument("--script", default="")
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()

    rng = random.Random(a.seed)
    script = [tuple(int(v) for v in cell.split(",")) for cell in a.script.split(";") if cell.strip()]
    pids = [os.getpid()]
    if a.spawn_child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        pids.append(child.pid)
    if a.pidfile:
        with open(a.pidfile, "a") as f:
            f.write("".join(f"{p}\n" for p in pids))

    out = sys.stdout
    inp = sys.stdin.buffer
    width = height = 15
    stones: dict[tuple[int, int], int] = {}
    my_moves = 0
    last_move_time = -1e9

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    def new_game() -> None:
        # a kept process plays each game as a fresh one would: the same moves for a seed, the
        # faults counted from the game's first move
        nonlocal rng, my_moves
        stones.clear()
        rng = random.Random(a.seed)
        my_moves = 0

    def move() -> None:
        nonlocal my_moves, last_move_time
        my_moves += 1
        n = my_moves
        for i in range(a.messages):
            say(f"MESSAGE thinking {i} best 7,7" if i % 2 == 0 else f"DEBUG depth {i}")
        if a.big_message:
            say("MESSAGE " + "z" * 60_000)
        if a.eval_mate_from:
            say(f"MESSAGE depth 3 Eval {'+M1' if len(stones) >= a.eval_mate_from else len(stones)}")
        if n == a.crash_at:
            sys.exit(3)
        if n == a.kill_parent_at:
            os.kill(os.getppid(), signal.SIGKILL)
        if n == a.hang_at:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                time.sleep(1)
        if n == a.flood_at:
            flood(a.flood_text, not a.flood_no_newline)
        if n == a.sleep_at:
            time.sleep(a.sleep_ms / 1000)
        if a.move_ms:
            time.sleep(a.move_ms / 1000)
        if n == a.garbage_at:
            out.flush()
            sys.stdout.buffer.write(b"\xff\xfe garbage \x00 here\n")
            sys.stdout.buffer.flush()
            last_move_time = time.monotonic()
            return
        if n == a.occupied_at and stones:
            x, y = next(iter(stones))
        elif n == a.offboard_at:
            x, y = width, 0
        else:
            empty = [(x, y) for y in range(height) for x in range(width) if (x, y) not in stones]
            if not empty:
                say("ERROR board is full")
                return
            planned = script[n - 1] if n <= len(script) else None
            x, y = planned if planned is not None and planned not in stones else rng.choice(empty)
            stones[(x, y)] = 1
        say(f"{x},{y}\tValue: 0.42" if a.trailing else f"{x},{y}")
        last_move_time = time.monotonic()
        if n == a.flood_after:
            flood(a.flood_text, not a.flood_no_newline)

    in_board = False
    while True:
        raw = inp.readline()
        if not raw:
            return
        line = raw.decode("utf-8", "replace").strip()
        if a.drop_ms and (time.monotonic() - last_move_time) * 1000 < a.drop_ms:
            say(f"ERROR Unknown command: {line}")
            continue
        words = line.replace(",", " ").split()
        if not words:
            continue
        cmd = words[0].upper()
        if in_board:
            if cmd == "DONE":
                in_board = False
                move()
            else:
                try:
                    x, y, f = (int(w) for w in words[:3])
                    stones[(x, y)] = f
                except ValueError:
                    pass
            continue
        if cmd == "END":
            if a.hang_at and my_moves >= a.hang_at:
                continue
            return
        if cmd == "ABOUT":
            if not a.no_about:
                say(f'name="{a.name}", version="1.0", author="tests", country="CZ"')
        elif cmd in ("START", "RECTSTART"):
            if a.no_start_reply:
                continue
            if a.start_error:
                say("ERROR unsupported size")
                continue
            if cmd == "START":
                width = height = int(words[1])
            else:
                width, height = int(words[1]), int(words[2])
            new_game()
            say("OK")
        elif cmd == "RESTART":
            new_game()
            say("OK")
        elif cmd == "BEGIN":
            move()
        elif cmd == "TURN":
            stones[(int(words[1]), int(words[2]))] = 2
            move()
        elif cmd == "BOARD":
            stones.clear()
            in_board = True
        elif cmd == "INFO":
            pass
        else:
            say(f"UNKNOWN {line}")


if __name__ == "__main__":
    main()
