"""A small Gomocup brain written into a folder by the tests, with switchable faults (for the check
suite and scripted sessions): :func:`write_fake` gives the path to run."""

from __future__ import annotations

from pathlib import Path

FAKE_SOURCE = r'''
import os, sys, time
faults = set(sys.argv[1:])
for a in sys.argv[1:]:
    if a.startswith("PIDFILE="):
        with open(a[8:], "a") as f:
            f.write(f"{os.getpid()}\n")
W = H = 15
K = 5
turn_ms = 0
stones = {}

def out(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()

def count(x, y, dx, dy, p):
    n = 0
    x, y = x + dx, y + dy
    while (x, y) in stones and stones[(x, y)] == p:
        n, x, y = n + 1, x + dx, y + dy
    return n

def wins(p):
    res = []
    for y in range(H):
        for x in range(W):
            if (x, y) in stones:
                continue
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                if 1 + count(x, y, dx, dy, p) + count(x, y, -dx, -dy, p) >= K:
                    res.append((x, y))
                    break
    return res

def play():
    if "ignore-time-left" in faults:
        time.sleep(0.9 * turn_ms / 1000)
    w = wins(1) or wins(2)
    if w:
        mv = w[0]
    else:
        free = [(max(abs(x - W // 2), abs(y - H // 2)), y, x) for y in range(H) for x in range(W)
                if (x, y) not in stones]
        _, y, x = min(free)
        mv = (x, y)
    stones[mv] = 1
    if "chatty" in faults:
        out("MESSAGE depth 3 eval 12 pv h8 i9")
        out("DEBUG 7,7 is a coordinate in a debug line")
        out("")
        out(f"{mv[0]},{mv[1]}\tValue: 0.5")
    else:
        out(f"{mv[0]},{mv[1]}")

def coords(text):
    try:
        x, y = (int(v) for v in text.split(","))
        return x, y
    except ValueError:
        return None

block = None
for raw in iter(sys.stdin.buffer.readline, b""):
    if "require-crlf" in faults and not raw.endswith(b"\r\n"):
        out("ERROR lines must end with CR LF")
        continue
    line = raw.decode().strip()
    if block is not None:
        if line.upper() == "DONE":
            stones = {(x, y): f for x, y, f in block}
            block = None
            play()
        else:
            try:
                x, y, f = (int(v) for v in line.split(","))
                block.append((x, y, f))
            except ValueError:
                out("ERROR bad BOARD line")
        continue
    if not line:
        continue
    cmd, _, arg = line.partition(" ")
    cmd, arg = cmd.upper(), arg.strip()
    if "hang-" + cmd in faults:
        while True:
            time.sleep(1)
    if cmd == "ABOUT":
        out('name="fake", version="1.0", author="tests", country="none"')
    elif cmd in ("START", "RECTSTART"):
        if cmd == "START" and arg == "abc" and "flood-abc" in faults:
            while True:
                out("ERROR")
        try:
            w, h = (int(arg), int(arg)) if cmd == "START" else (int(v) for v in arg.split(","))
        except ValueError:
            out("ERROR bad size")
            continue
        if 5 <= w <= 30 and 5 <= h <= 30:
            W, H, stones = w, h, {}
            out("OK")
        else:
            out("ERROR unsupported size")
    elif cmd == "RESTART":
        stones = {}
        out("OK")
    elif cmd == "INFO":
        key, _, val = arg.partition(" ")
        if key.lower() == "win_length" and "ignore-win-length" not in faults:
            K = int(val)
        elif key.lower() == "timeout_turn":
            turn_ms = int(val)
    elif cmd == "BEGIN":
        play()
    elif cmd == "TURN":
        c = coords(arg)
        if c is None or not (0 <= c[0] < W and 0 <= c[1] < H) or c in stones:
            out("ERROR bad move")
        else:
            stones[c] = 2
            play()
    elif cmd == "BOARD":
        block = []
    elif cmd == "TAKEBACK":
        c = coords(arg)
        if c in stones:
            del stones[c]
            out("OK")
        else:
            out("ERROR no stone there")
    elif cmd == "END":
        if "ignore-end" not in faults:
            sys.exit(0)
    else:
        out("UNKNOWN command")
if "no-exit-on-eof" in faults:
    while True:
        time.sleep(1)
'''


def write_fake(directory: Path) -> Path:
    """Write the fake brain into ``directory``; returns its path."""
    path = directory / "fake_gomocup_brain.py"
    path.write_text(FAKE_SOURCE)
    return path
