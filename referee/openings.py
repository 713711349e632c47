"""Openings: stones placed by the referee before the engines play.

File formats (as c-gomoku-cli reads them), one opening per line; blank lines and
lines starting with ``#`` are ignored:

- ``offset``: ``0,0, 1,-1, 2,1`` -- pairs ``dx,dy`` relative to the centre
  ``(width // 2, height // 2)``;
- ``pos``: ``h8i9j7`` -- a letter for x (``a`` = 0) followed by a number for y
  (``1`` = 0), repeated.

Stones alternate colours starting with X (the first player).  An opening that
is off the board, repeats a cell, or already contains a winning line is
rejected with ``ValueError`` naming the line.
"""

from __future__ import annotations

import random
import re
from typing import Iterable

from engine.mnk.rules import Board, GameConfig

__all__ = ["parse_opening", "load_openings", "random_opening", "opening_for_game", "default_random_plies",
           "plies_bounds", "describe_openings"]

_POS_RE = re.compile(r"([a-zA-Z])(\d{1,2})")
_INT_RE = re.compile(r"[+-]?\d+")


def parse_opening(text: str, config: GameConfig) -> list[int]:
    """Compact moves of one opening line in either format (``ValueError`` if invalid)."""
    line = text.strip()
    if not line:
        return []
    if any(c.isalpha() for c in line):
        compact = re.sub(r"\s+", "", line)
        pairs = _POS_RE.findall(compact)
        if not pairs or "".join(a + b for a, b in pairs) != compact:
            raise ValueError(f"not a pos opening: {line!r}")
        cells = [(ord(a.lower()) - ord("a"), int(b) - 1) for a, b in pairs]
    else:
        if re.search(r"[^\d\s,+-]", line):
            raise ValueError(f"not an offset opening: {line!r}")
        nums = [int(n) for n in _INT_RE.findall(line)]
        if len(nums) % 2:
            raise ValueError(f"odd number of coordinates in {line!r}")
        cx, cy = config.width // 2, config.height // 2
        cells = [(cx + nums[i], cy + nums[i + 1]) for i in range(0, len(nums), 2)]
    board = Board(config)
    moves = []
    for x, y in cells:
        if not config.on_board(x, y):
            raise ValueError(f"{x},{y} is off the {config.width}x{config.height} board in {line!r}")
        m = config.move(x, y)
        if not board.is_empty(m):
            raise ValueError(f"{x},{y} appears twice in {line!r}")
        board.play(m)
        if board.is_over:
            raise ValueError(f"opening {line!r} already ends the game")
        moves.append(m)
    return moves


def load_openings(lines: Iterable[str], config: GameConfig, source: str = "openings") -> list[list[int]]:
    """Parse every opening of a file's lines; ``ValueError`` gives ``source:line`` of the first bad one."""
    out = []
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        try:
            out.append(parse_opening(s, config))
        except ValueError as exc:
            raise ValueError(f"{source}:{no}: {exc}") from None
    if not out:
        raise ValueError(f"{source}: no opening found")
    return out


def random_opening(config: GameConfig, plies: int, rng: random.Random) -> list[int]:
    """``plies`` random stones in a central square (just large enough), with no line completed."""
    if plies <= 0:
        return []
    if plies >= config.area:
        raise ValueError(f"a {plies}-stone opening does not fit a {config.width}x{config.height} board")
    side = 3
    while side * side < 3 * plies and side < max(config.width, config.height):
        side += 2
    x0 = max(0, (config.width - side) // 2)
    y0 = max(0, (config.height - side) // 2)
    cells = [config.move(x, y)
             for y in range(y0, min(config.height, y0 + side))
             for x in range(x0, min(config.width, x0 + side))]
    if len(cells) <= plies:
        cells = list(range(config.area))
    for _ in range(1000):
        board = Board(config)
        picks = rng.sample(cells, plies)
        ok = True
        for m in picks:
            board.play(m)
            if board.is_over:
                ok = False
                break
        if ok:
            return picks
    raise ValueError(f"could not draw a {plies}-stone opening without a finished line")


def opening_for_game(game: int, openings: list[list[int]] | None, random_plies: int | tuple[int, int],
                     config: GameConfig, seed: int) -> list[int]:
    """The opening of game number ``game`` (1-based): games 2j-1 and 2j share one (colours swapped).

    ``random_plies`` is a stone count or a range ``(lo, hi)``, from which each
    pair draws its count.  Deterministic in ``seed`` and the game number alone,
    so a resumed match replays the same openings.
    """
    pair = (game - 1) // 2
    if openings:
        return list(openings[pair % len(openings)])
    lo, hi = (random_plies, random_plies) if isinstance(random_plies, int) else random_plies
    rng = random.Random(seed * 1_000_003 + pair)
    plies = lo if lo == hi else rng.randint(lo, hi)
    if plies > 0:
        return random_opening(config, plies, rng)
    return []


def default_random_plies(config: GameConfig) -> tuple[int, int]:
    """The random opening of a match when none is asked for: a few stones near the centre.

    Enough for two deterministic engines to play a different game in every
    pair: 2 to 4 stones for five (or more) in a row, only 2 for shorter lines,
    where each extra stone weighs more (on 9x9 with four in a row, two X
    stones placed at random before X moves decide most games).
    """
    return (2, 4) if config.win_length >= 5 else (2, 2)


def plies_bounds(random_plies: int | tuple[int, int]) -> tuple[int, int]:
    """``(lo, hi)`` of a stone count given as one number or as a range."""
    return (random_plies, random_plies) if isinstance(random_plies, int) else tuple(random_plies)


def describe_openings(file_openings: int, random_plies: int | tuple[int, int], seed: int | None) -> str:
    """One line saying how games start, e.g. ``random, 2-4 stones near the centre (seed 17)``."""
    if file_openings:
        return f"from the opening file ({file_openings} openings, one per pair of games, colours swapped)"
    lo, hi = plies_bounds(random_plies)
    if hi <= 0:
        return "none (every game starts on the empty board)"
    count = f"{lo}" if lo == hi else f"{lo}-{hi}"
    return (f"random, {count} stones near the centre, one per pair of games, colours swapped; "
            f"seed {seed} (--seed {seed} repeats them)")
