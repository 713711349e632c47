"""The manager's side of the Gomocup wire format: parse engine replies, format commands.

Pure functions, no I/O.  Coordinates are ``x,y`` (x = column), 0-based.
"""

from __future__ import annotations

import re

__all__ = ["parse_move", "parse_about", "looks_like_about", "is_chatter", "start_command", "board_block"]

# Two integers, then the end of the line or a character that cannot continue a
# coordinate (so "9,11\tValue: 0.5" and "9,11 xyz" are moves, "9,11,3" and "9,1x" are not).
_MOVE_RE = re.compile(r"^\s*(-?\d{1,9})\s*,\s*(-?\d{1,9})(?=$|[\s;:|/\\])")
_ABOUT_RE = re.compile(r'(\w+)\s*=\s*"([^"]*)"')
# One pair and the comma after it, anchored where the last one ended (the strict form).
_ABOUT_PAIR_RE = re.compile(r'\s*(\w+)\s*=\s*"([^"]*)"\s*,?')
# Output lines that answer no command (kept as messages, never parsed as a reply): INFO is
# the search report Rapfi-style engines stream under Yixin-Board's ``INFO show_detail``.
_CHATTER_PREFIXES = ("MESSAGE", "DEBUG", "SUGGEST", "INFO")


def parse_move(line: str) -> tuple[int, int] | None:
    """``(x, y)`` if ``line`` is a move reply (trailing text after whitespace allowed), else ``None``.

    Off-board values are returned as they are: deciding legality is the game's job.
    """
    m = _MOVE_RE.match(line)
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2))


def parse_about(line: str, *, strict: bool = False) -> dict[str, str]:
    """The ``key="value"`` pairs of an ``ABOUT`` reply (keys lower-cased); empty if none.

    A match takes the pairs wherever they are in the line; ``strict`` (the conformance
    check) takes them only when the whole line is made of them (commas between
    allowed), else returns an empty dict.
    """
    if not strict:
        return {k.lower(): v for k, v in _ABOUT_RE.findall(line)}
    pos, pairs = 0, {}
    while pos < len(line):
        m = _ABOUT_PAIR_RE.match(line, pos)
        if m is None or m.end() == pos:
            return {} if line[pos:].strip() else pairs
        pairs[m.group(1).lower()] = m.group(2)
        pos = m.end()
    return pairs


def is_chatter(line: str) -> bool:
    """True for ``MESSAGE``/``DEBUG``/``SUGGEST``/``INFO`` lines and blank lines: output that answers no command."""
    s = line.lstrip()
    if not s:
        return True
    return s.split(None, 1)[0].upper() in _CHATTER_PREFIXES


def looks_like_about(line: str) -> bool:
    """True for a line that carries ``key="value"`` pairs (a late ``ABOUT`` answer)."""
    return bool(_ABOUT_RE.search(line))


def start_command(width: int, height: int) -> str:
    """``START n`` for a square board, ``RECTSTART w,h`` otherwise."""
    return f"START {width}" if width == height else f"RECTSTART {width},{height}"


def board_block(stones: list[tuple[int, int, int]]) -> list[str]:
    """``BOARD`` / ``x,y,f`` lines / ``DONE`` for stones given as ``(x, y, f)``, f 1 = own, 2 = opponent's."""
    return ["BOARD", *(f"{x},{y},{f}" for x, y, f in stones), "DONE"]
