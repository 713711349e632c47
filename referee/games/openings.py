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
"""

from __future__ import annotations

import random
from typing import Any, Iterable

from referee.games import rules_for

__all__ = ["parse_opening", "load_openings", "random_opening", "opening_for_game", "default_random_plies",
           "plies_bounds", "describe_openings"]


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
                     config: Any, seed: int) -> list[int]:
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
        return rules_for(config).random_opening(plies, rng)
    return []


def default_random_plies(config: Any) -> tuple[int, int]:
    """The random opening of a match when none is asked for (the game's rules say: a few
    stones near the centre for m,n,k, 4 to 6 legal plies for Reversi)."""
    return rules_for(config).default_random_plies()


def plies_bounds(random_plies: int | tuple[int, int]) -> tuple[int, int]:
    """``(lo, hi)`` of a stone count given as one number or as a range."""
    return (random_plies, random_plies) if isinstance(random_plies, int) else tuple(random_plies)


def describe_openings(file_openings: int, random_plies: int | tuple[int, int], seed: int | None,
                      unit: str = "stones near the centre") -> str:
    """One line saying how games start, e.g. ``random, 2-4 stones near the centre (seed 17)``
    (``unit``: what the game's random plies are, :attr:`GameRules.opening_unit`)."""
    if file_openings:
        return f"from the opening file ({file_openings} openings, one per pair of games, colours swapped)"
    lo, hi = plies_bounds(random_plies)
    if hi <= 0:
        return "none (every game starts from the start position)" if unit != "stones near the centre" \
            else "none (every game starts on the empty board)"
    count = f"{lo}" if lo == hi else f"{lo}-{hi}"
    return (f"random, {count} {unit}, one per pair of games, colours swapped; "
            f"seed {seed} (--seed {seed} repeats them)")
