"""Openings: moves placed by the referee before the engines play.

Each game's rules parse and draw them (:class:`referee.games.base.GameRules`); for
Reversi a file line is a move sequence from the start (``f5d6c3d3c4``).  m,n,k file formats (as c-gomoku-cli reads them), one opening per line; blank lines and
lines starting with ``#`` are ignored:

- ``offset``: ``0,0, 1,-1, 2,1`` -- pairs ``dx,dy`` relative to the centre
  ``(width // 2, height // 2)``;
- ``pos``: ``h8i9j7`` -- a letter for x (``a`` = 0) followed by a number for y
  (``1`` = 0), repeated.

Stones alternate colours starting with X (the first player).  An opening that
is off the board, repeats a cell, or already contains a winning line is
rejected with ``ValueError`` naming the line.

Transforms (``--transform``): the symmetries of the board that keep the game's start
position -- the 8 of a square m,n,k board (4 on a rectangle: the reflections and the
half turn), the 4 of the Reversi start (identity, both diagonal reflections, the half
turn) -- turn one opening into several distinct ones that are equally legal and play
alike.  A file of N openings then gives N times that many; the two games of a pair keep
one transformed opening.  File openings are taken in order from a start index, or in a
random order drawn from the match's seed.
"""

from __future__ import annotations

import functools
import random
from typing import Any, Iterable

from engine.mnk.board.rules import GameConfig
from referee.games import rules_for

__all__ = ["parse_opening", "load_openings", "random_opening", "opening_for_game", "default_random_plies",
           "plies_bounds", "describe_openings", "symmetries", "transform_opening", "ORDERS"]

#: How file openings are taken: in file order from a start index, or in an order drawn from the seed.
ORDERS = ("sequential", "random")


def parse_opening(text: str, config: Any) -> list[int]:
    """The moves of one opening line of the game ``config`` (``ValueError`` if invalid)."""
    return rules_for(config).parse_opening(text)


def load_openings(lines: Iterable[str], config: Any, source: str = "openings") -> list[list[int]]:
    """Parse every opening of a file's lines; ``ValueError`` gives ``source:line`` of the first bad one."""
    rules = rules_for(config)
    out = []
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        try:
            out.append(rules.parse_opening(s))
        except ValueError as exc:
            raise ValueError(f"{source}:{no}: {exc}") from None
    if not out:
        raise ValueError(f"{source}: no opening found")
    return out


def random_opening(config: Any, plies: int, rng: random.Random) -> list[int]:
    """``plies`` random moves that leave the game open (m,n,k: stones in a central square,
    no line completed; Reversi: random legal moves from the start)."""
    return rules_for(config).random_opening(plies, rng)


def opening_for_game(game: int, openings: list[list[int]] | None, random_plies: int | tuple[int, int],
                     config: Any, seed: int, *, transform: bool = False, order: str = "sequential",
                     start: int = 1) -> list[int]:
    """The opening of game number ``game`` (1-based): games 2j-1 and 2j share one (colours swapped).

    ``random_plies`` is a stone count or a range ``(lo, hi)``, from which each
    pair draws its count.  Deterministic in ``seed`` and the game number alone,
    so a resumed match replays the same openings.  ``transform``: each opening is
    also played in its symmetric images (:func:`symmetries`); file openings go
    through every opening untransformed first, then every opening in the next image,
    and so on.  ``order`` and ``start`` (1-based) say which file opening a pair takes.
    """
    pair = (game - 1) // 2
    images = symmetries(config) if transform else 1
    if openings:
        total = len(openings) * images
        slot = (start - 1 + pair) % total
        if order == "random":
            slot = _shuffled(total, seed)[slot]
        return transform_opening(config, openings[slot % len(openings)], slot // len(openings))
    lo, hi = (random_plies, random_plies) if isinstance(random_plies, int) else random_plies
    rng = random.Random(seed * 1_000_003 + pair)
    plies = lo if lo == hi else rng.randint(lo, hi)
    if plies <= 0:
        return []
    moves = rules_for(config).random_opening(plies, rng)
    # drawn after the opening, so that without --transform the openings are those of earlier versions
    return transform_opening(config, moves, rng.randrange(images)) if transform else moves


@functools.lru_cache(maxsize=4)
def _shuffled(total: int, seed: int) -> tuple[int, ...]:
    """The random order of ``total`` openings for ``seed`` (made once a match, not once a game)."""
    order = list(range(total))
    random.Random(seed * 1_000_003 - 1).shuffle(order)
    return tuple(order)


def _images(config: Any) -> tuple[int, ...]:
    """The symmetries of ``config``'s board that keep its start, as codes: bit 4 swaps x and y
    (first), bit 1 mirrors x, bit 2 mirrors y; the identity first."""
    if isinstance(config, GameConfig):
        return tuple(range(8)) if config.width == config.height else (0, 1, 2, 3)
    return (0, 4, 7, 3)  # Reversi: the diagonal reflections and the half turn keep the four centre discs


def symmetries(config: Any) -> int:
    """How many symmetric images an opening of ``config`` has (itself included)."""
    return len(_images(config))


def transform_opening(config: Any, moves: Iterable[int], image: int) -> list[int]:
    """``moves`` mapped by symmetry number ``image`` (0 = identity, below :func:`symmetries`).

    The symmetries keep the start position, the rules and the win, so the image of a legal
    opening is a legal opening that plays alike.
    """
    code = _images(config)[image]
    if isinstance(config, GameConfig):
        w, h = config.width, config.height
    else:
        w = h = config.size
    out = []
    for m in moves:
        if m >= w * h:  # Reversi's pass
            out.append(m)
            continue
        x, y = m % w, m // w
        if code & 4:
            x, y = y, x
        if code & 1:
            x = w - 1 - x
        if code & 2:
            y = h - 1 - y
        out.append(y * w + x)
    return out


def default_random_plies(config: Any) -> tuple[int, int]:
    """The random opening of a match when none is asked for (the game's rules say: a few
    stones near the centre for m,n,k, 4 to 6 legal plies for Reversi)."""
    return rules_for(config).default_random_plies()


def plies_bounds(random_plies: int | tuple[int, int]) -> tuple[int, int]:
    """``(lo, hi)`` of a stone count given as one number or as a range."""
    return (random_plies, random_plies) if isinstance(random_plies, int) else tuple(random_plies)


def describe_openings(file_openings: int, random_plies: int | tuple[int, int], seed: int | None,
                      unit: str = "stones near the centre", *, transform: int = 1, order: str = "sequential",
                      start: int = 1) -> str:
    """One line saying how games start, e.g. ``random, 2-4 stones near the centre (seed 17)``
    (``unit``: what the game's random plies are, :attr:`GameRules.opening_unit`; ``transform``:
    the number of symmetric images each opening is played in, 1 when not transformed)."""
    images = f", each in {transform} symmetric images" if transform > 1 else ""
    if file_openings:
        text = f"from the opening file ({file_openings} openings{images}, one per pair of games, colours swapped)"
        if order == "random":
            text += f"; in random order from the {_ordinal(start)}, seed {seed} (--seed {seed} repeats them)"
        elif start != 1:
            text += f"; from the {_ordinal(start)}"
        return text
    lo, hi = plies_bounds(random_plies)
    if hi <= 0:
        return "none (every game starts from the start position)" if unit != "stones near the centre" \
            else "none (every game starts on the empty board)"
    count = f"{lo}" if lo == hi else f"{lo}-{hi}"
    images = ", in a random symmetric image" if transform > 1 else ""
    return (f"random, {count} {unit}{images}, one per pair of games, colours swapped; "
            f"seed {seed} (--seed {seed} repeats them)")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
