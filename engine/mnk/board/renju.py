"""Renju's forbidden points for black, written from the rules' definitions.

Black (player 1, who moves first) may not make an overline, a double four or a double
three; a move that makes a five (exactly five in a row) is never forbidden, whatever
else it makes.  White has no restriction.  The definitions used, all for black and all
along one of the four lines through the move ``m``:

- *five*: exactly five black stones in a row through ``m``; *overline*: six or more.
- *four*: an empty cell on the line that, played by black, makes a five containing ``m``
  (a completion).  Each completion is one four, except that the two completions of a
  straight four (``.XXXX.``, the completions five cells apart) are one four; so
  ``XXX.X.XXX`` filled in the middle is two fours on one line.
- *straight four*: four in a row whose cells just beyond both ends are empty and each
  makes a five (so neither end is followed by another black stone).
- *three*: a line where one more black stone, on a cell that is itself not forbidden
  (with ``m`` played), makes a straight four containing ``m``.  The recursion ends
  because every level adds a stone.  A line counts as at most one three, and a line
  that already holds a four is not a three.

All functions work on the padded cell list of :mod:`engine.mnk.board.rules` (``BORDER`` off
the board) in place and restore it.  The board must use five in a row
(:class:`engine.mnk.board.rules.GameConfig` refuses renju with another win length).

The same check is in C (``_renju.h`` in the ``_threatcore`` extension), used when the
extension is built and ``MNK_PURE_PYTHON`` is not set; this module's Python version is the
reference (:func:`python_reason`), and ``tests/engine/test_renju_native.py`` keeps the two equal.
"""

from __future__ import annotations

import os
from typing import Sequence

try:  # the C version (engine/mnk/board/_renju.h), built with the m,n,k extension when a compiler is at hand
    from .. import _threatcore
except ImportError:  # pragma: no cover - exercised by installs without a compiler
    _threatcore = None

EMPTY = 0  # the same values as engine.mnk.board.rules (not imported: rules imports this module)
BLACK = 1

OVERLINE = "overline"
DOUBLE_FOUR = "double four"
DOUBLE_THREE = "double three"
#: Every reason :func:`forbidden_reason` can give.
REASONS = (OVERLINE, DOUBLE_FOUR, DOUBLE_THREE)
#: The C code's reason codes (0 allowed), in the order of :data:`REASONS`.
_BY_CODE = (None,) + REASONS

#: Is the C version in use?
USE_NATIVE = (_threatcore is not None and hasattr(_threatcore, "forbidden")
              and not os.environ.get("MNK_PURE_PYTHON"))


def _run(cells: list[int], c: int, d: int) -> tuple[int, int, int]:
    """``(length, lo, hi)`` of black's run through the black stone at ``c`` along ``d``,
    ``lo``/``hi`` the cells just beyond its ends."""
    lo = c - d
    while cells[lo] == BLACK:
        lo -= d
    hi = c + d
    while cells[hi] == BLACK:
        hi += d
    return (hi - lo) // d - 1, lo, hi


def _makes_five(cells: list[int], c: int, d: int) -> bool:
    """Does black's stone at ``c`` (already placed) lie in exactly five along ``d``?"""
    return _run(cells, c, d)[0] == 5


def _completions(cells: list[int], m: int, d: int) -> list[int]:
    """The empty cells along ``d`` where black makes a five that contains the black ``m``."""
    out = []
    for sign in (-1, 1):
        step = sign * d
        c = m + step
        # Walk past black stones to the first empty cell: only it can join m's run.
        while cells[c] == BLACK:
            c += step
        if cells[c] != EMPTY:
            continue
        cells[c] = BLACK
        if _makes_five(cells, c, d):
            out.append(c)
        cells[c] = EMPTY
        # A second gap further on cannot hold a five containing m: the stones between
        # would have to be all black, and they are not (the first empty cell is between).
    return out


def _fours_on_line(cells: list[int], m: int, d: int) -> int:
    """How many fours black's stone ``m`` is part of along ``d``."""
    comp = _completions(cells, m, d)
    if len(comp) == 2 and abs(comp[1] - comp[0]) == 5 * d:
        return 1  # a straight four: both completions extend the same four stones
    return len(comp)


def _straight_four(cells: list[int], m: int, d: int) -> bool:
    """Is black's stone ``m`` part of a straight four along ``d``?"""
    length, lo, hi = _run(cells, m, d)
    return (length == 4 and cells[lo] == EMPTY and cells[hi] == EMPTY
            and cells[lo - d] != BLACK and cells[hi + d] != BLACK)


def may_be_forbidden(cells: list[int], m: int, directions: Sequence[int]) -> bool:
    """A cheap necessary condition for :func:`forbidden_reason` to name the empty ``m``.

    Every forbidden shape needs black stones near ``m`` on its lines: an overline or two
    fours on one line at least four within five cells of ``m`` on one line, two fours or
    two threes at least two stones within four cells on each of two lines.  Cells that
    fail this are allowed, and most cells of a game fail it, which keeps the legal-move
    list cheap.
    """
    lines = 0
    for d in directions:
        near = 0
        for sign in (-d, d):
            c = m
            for _ in range(5):
                c += sign
                v = cells[c]
                if v == BLACK:
                    near += 1
                elif v != EMPTY:
                    break
        if near >= 4:
            return True
        if near >= 2:
            lines += 1
            if lines >= 2:
                return True
    return False


def forbidden_reason(cells: list[int], m: int, directions: Sequence[int]) -> str | None:
    """Why black may not play the empty padded cell ``m``: ``"overline"``, ``"double four"``,
    ``"double three"``, or ``None`` when the move is allowed (a five always is).

    ``cells`` is the padded board (changed during the call and restored), ``directions``
    the four padded steps of its :class:`~engine.mnk.board.rules.GameConfig`.
    """
    if not may_be_forbidden(cells, m, directions):
        return None  # most cells: no need to cross into C
    if USE_NATIVE:
        return _BY_CODE[_threatcore.forbidden(bytes(cells), (m,), tuple(directions))[0]]
    return _reason(cells, m, tuple(directions))


def allowed_cells(cells: list[int], targets: Sequence[int], directions: Sequence[int]) -> list[int]:
    """The padded empty ``targets`` that black may play (:func:`forbidden_reason` is ``None``),
    in their order: one call into C for all of them when the C version is in use."""
    if not targets:
        return []
    if USE_NATIVE:
        codes = _threatcore.forbidden(bytes(cells), targets, tuple(directions))
        return [t for t, code in zip(targets, codes) if not code]
    dirs = tuple(directions)
    return [t for t in targets if not may_be_forbidden(cells, t, dirs) or _reason(cells, t, dirs) is None]


def python_reason(cells: list[int], m: int, directions: Sequence[int]) -> str | None:
    """:func:`forbidden_reason` in Python whatever :data:`USE_NATIVE` says (the reference)."""
    if cells[m] != EMPTY or not may_be_forbidden(cells, m, directions):
        return None
    return _reason(cells, m, tuple(directions))


def _reason(cells: list[int], m: int, directions: tuple[int, ...]) -> str | None:
    cells[m] = BLACK
    try:
        runs = [_run(cells, m, d)[0] for d in directions]
        if 5 in runs:
            return None  # the five comes first
        if max(runs) > 5:
            return OVERLINE
        fours = 0
        four_dirs = []
        for d in directions:
            n = _fours_on_line(cells, m, d)
            if n:
                fours += n
                four_dirs.append(d)
        if fours >= 2:
            return DOUBLE_FOUR
        threes = 0
        for d in directions:
            if d in four_dirs:
                continue
            if _three_on_line_at(cells, m, d, directions):
                threes += 1
                if threes >= 2:
                    return DOUBLE_THREE
        return None
    finally:
        cells[m] = EMPTY


def _three_on_line_at(cells: list[int], m: int, d: int, directions: tuple[int, ...]) -> bool:
    """Is there a three through black's ``m`` along ``d``: one more stone that is not forbidden
    (with ``m`` on the board) and makes a straight four containing ``m``?

    A straight four is four in a row, so the added stone joins ``m``'s run: it can only be
    the first cell past the run's end on either side.
    """
    _, lo, hi = _run(cells, m, d)
    for c in (lo, hi):
        if cells[c] != EMPTY:
            continue
        cells[c] = BLACK
        straight = _straight_four(cells, m, d)
        cells[c] = EMPTY
        if straight and _reason(cells, c, directions) is None:
            return True
    return False
