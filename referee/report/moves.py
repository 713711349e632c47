"""A game's moves as the report's page keeps them: two characters a move, the winning line, the foul.

A move is its column and row, each one character of :data:`ALPHABET` (boards are at most
64 wide); a pass is :data:`PASS`.  So a 2,000-game match's moves take a few hundred
kilobytes, and the page's script decodes them with one string lookup.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from engine.mnk.board.rules import BORDER, EMPTY, Rule, line_wins
from referee.games.verdicts import Termination
from referee.play.result import GameResult

__all__ = ["ALPHABET", "PASS", "move_codes", "codes_of", "decode_cells", "winning_line_codes", "foul_code"]

#: A board coordinate (0..63) as one character.
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"
#: A pass, where a move's two characters go.
PASS = ".."
#: Every cell's two characters, by column then row.
_CODES = [[a + b for b in ALPHABET] for a in ALPHABET]
#: The cell a foul names in its reason: ``played 7,7`` (m,n,k), ``played f5`` (Reversi).
_FOUL_MNK = re.compile(r"played (-?\d+),(-?\d+)")
_FOUL_REVERSI = re.compile(r"played ([a-z])(\d{1,2})\b")
#: The ends where a cell is at fault (marked on the board).
_FOULS = (Termination.FORBIDDEN.value, Termination.ILLEGAL_MOVE.value)


def _code(x: int, y: int) -> str:
    return _CODES[x][y]


def move_codes(obj: dict) -> str:
    """A recorded game's moves (``results.jsonl``'s ``moves``), two characters each."""
    return codes_of(obj.get("game_type", "mnk"), obj["moves"])


def codes_of(game_type: str, moves: Sequence[Any]) -> str:
    """``moves`` as a game of ``game_type`` records them (``[x, y]``; Reversi's ``f5``, ``pass``), coded."""
    if game_type == "reversi":
        out = []
        for word in moves:
            w = str(word).lower()
            out.append(PASS if w in ("pass", "pa") else _code(ord(w[0]) - ord("a"), int(w[1:]) - 1))
        return "".join(out)
    return "".join([_CODES[x][y] for x, y in moves])


def decode_cells(codes: str) -> list[tuple[int, int] | None]:
    """The cells of a :func:`move_codes` string (``None`` for a pass)."""
    return [None if codes[i:i + 2] == PASS else (ALPHABET.index(codes[i]), ALPHABET.index(codes[i + 1]))
            for i in range(0, len(codes), 2)]


def winning_line_codes(config: Any, r: GameResult) -> str:
    """The stones of the line that won an m,n,k game ``r`` under ``config``, coded (``""``: none):
    the runs through the last stone that the rules' :func:`engine.mnk.board.rules.line_wins` says win,
    as the final board shows them."""
    if r.game_type == "reversi" or r.termination != Termination.LINE.value or not r.moves:
        return ""
    w, h = config.width, config.height
    player = 1 + (len(r.moves) - 1) % 2  # the last stone's colour: the first colour's on even plies
    mine = {x * 64 + y for x, y in r.moves[player - 1::2]}
    # only caro's rule looks beyond a run's ends at the other side's stones
    theirs = {x * 64 + y for x, y in r.moves[2 - player::2]} if config.rule is Rule.CARO else set()

    def held(x: int, y: int) -> int:
        if not (0 <= x < w and 0 <= y < h):
            return BORDER
        key = x * 64 + y
        return player if key in mine else 3 - player if key in theirs else EMPTY

    lx, ly = r.moves[-1]
    out: set[tuple[int, int]] = set()
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        lo = 1
        while held(lx - lo * dx, ly - lo * dy) == player:
            lo += 1
        hi = 1
        while held(lx + hi * dx, ly + hi * dy) == player:
            hi += 1
        if line_wins(config, lo + hi - 1, held(lx - lo * dx, ly - lo * dy), held(lx + hi * dx, ly + hi * dy), player):
            out.update((ly + i * dy, lx + i * dx) for i in range(1 - lo, hi))
    return "".join([_CODES[x][y] for y, x in sorted(out)])  # row by row, as the rules list them


def foul_code(r: GameResult) -> str:
    """The cell of the foul that ended game ``r``, coded, when it is on the board: the last move
    when the record keeps the foul (``"foul": true``), else the cell its reason names."""
    if getattr(r, "foul", None) is True and r.moves:
        return codes_of(r.game_type, r.moves[-1:])
    if r.termination not in _FOULS:
        return ""
    if r.game_type == "reversi":
        m = _FOUL_REVERSI.search(r.reason)
        if m is None:
            return ""
        x, y = ord(m.group(1)) - ord("a"), int(m.group(2)) - 1
    else:
        m = _FOUL_MNK.search(r.reason)
        if m is None:
            return ""
        x, y = int(m.group(1)), int(m.group(2))
    return _code(x, y) if 0 <= x < r.width and 0 <= y < r.height else ""
