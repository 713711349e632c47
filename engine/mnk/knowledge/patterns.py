"""Line geometry, incremental window counts and the move priors of candidate cells (m,n,k).

A *window* is a run of ``K`` consecutive on-board cells along one of the four
directions (K = win length).  Every line of ``K`` that can ever win lies in a
window, so counting each side's stones per window describes every line
pattern: a window with ``c`` own stones and no opponent stone is a live
``c``-of-``K``.  The tables (:class:`Geometry`) depend only on the
:class:`~engine.mnk.board.rules.GameConfig` and are cached per config.

Everything here works on the padded ``Board.cells`` list (see
:mod:`engine.mnk.board.rules`); cells are padded indices unless a name says "move".
Window counts are exact for the freestyle rule; for the exact and caro rules
they over-approximate (a full window may be an overline or a blocked caro
five), so callers that need the truth confirm with :func:`engine.mnk.board.rules.run_wins`.

- :class:`Geometry` / :func:`geometry`: the window tables of a config.
- :func:`cell_scores`: the move priors of candidate cells (learned shapes, :mod:`engine.mnk.knowledge.shapes`).
- :class:`LineState`: window counts kept up to date while a solver sets and
  clears stones; it answers "where does ``p`` complete / make a four / make a
  double threat" exactly, for every rule (the vocabulary is defined in
  :mod:`engine.mnk.threats.kinds`).
"""

from __future__ import annotations

import functools
import random
from typing import Collection, Sequence

import numpy as np

from ..board.renju import allowed_cells
from ..board.rules import EMPTY, GameConfig, Rule, run_wins
from .shapes import shape_board

# Direction vectors (dx, dy) in the same order as GameConfig.directions.
_DIRS = ((1, 0), (0, 1), (1, 1), (-1, 1))


class Geometry:
    """Precomputed window tables of one :class:`GameConfig` (get it with :func:`geometry`).

    Attributes:
        config: the config.
        windows: tuple of windows, each a tuple of ``K`` padded cells in line order.
        window_dir: padded direction step of each window.
        cell_windows: for every padded index, the ids of the windows through it
            (empty for border cells).
        board_cells: padded index of every on-board cell, in move order.
        near: for every padded cell, the on-board padded cells within Chebyshev
            distance 2 (the usual candidate neighbourhood), excluding itself.
        zobrist: two random 64-bit keys per padded cell (index ``player - 1``),
            from a fixed seed so hashes are reproducible.
    """

    __slots__ = ("config", "windows", "window_dir", "cell_windows", "board_cells", "near", "zobrist")

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        k = config.win_length
        w, h = config.width, config.height
        windows: list[tuple[int, ...]] = []
        wdir: list[int] = []
        for (dx, dy), step in zip(_DIRS, config.directions):
            for y in range(h):
                for x in range(w):
                    ex, ey = x + dx * (k - 1), y + dy * (k - 1)
                    if not (0 <= ex < w and 0 <= ey < h):
                        continue
                    start = config.padded(y * w + x)
                    windows.append(tuple(start + i * step for i in range(k)))
                    wdir.append(step)
        self.windows = tuple(windows)
        self.window_dir = tuple(wdir)
        per_cell: list[list[int]] = [[] for _ in range(config.padded_size)]
        for wid, win in enumerate(windows):
            for c in win:
                per_cell[c].append(wid)
        self.cell_windows = tuple(tuple(ws) for ws in per_cell)
        self.board_cells = tuple(config.padded(m) for m in range(config.area))
        near: list[tuple[int, ...]] = [()] * config.padded_size
        for m in range(config.area):
            x, y = config.xy(m)
            near[config.padded(m)] = tuple(
                config.padded(config.move(x + ddx, y + ddy))
                for ddy in range(-2, 3)
                for ddx in range(-2, 3)
                if (ddx or ddy) and config.on_board(x + ddx, y + ddy)
            )
        self.near = tuple(near)
        rng = random.Random(0x5EED ^ (w << 16) ^ (h << 8) ^ k)
        self.zobrist = tuple((rng.getrandbits(64), rng.getrandbits(64)) for _ in range(config.padded_size))


@functools.lru_cache(maxsize=32)
def geometry(config: GameConfig) -> Geometry:
    """The (cached) :class:`Geometry` of ``config``."""
    return Geometry(config)


def cell_scores(
    config: GameConfig,
    cells: Sequence[int],
    player: int,
    cells_to_score: Sequence[int] | None = None,
) -> dict[int, float]:
    """Prior score of every empty padded cell near stones (or of ``cells_to_score``) for ``player``.

    ``cells`` is a padded board (``Board.cells`` layout).  The score is the learned shape
    prior of :mod:`engine.mnk.knowledge.shapes` (what ``player`` makes there and what the opponent
    would), as ``exp(logit)`` relative to the best cell's (which scores 1).  On an empty
    board the cells of the central region are scored by closeness to the centre instead.
    """
    cfg = config
    geom = geometry(cfg)
    if cells_to_score is None:
        cells_to_score = neighbourhood(geom, cells)
        if not cells_to_score:
            if not any(cells[c] in (1, 2) for c in geom.board_cells):
                return centre_scores(cfg)
            # Every cell near a stone is taken: any empty cell is a candidate.
            cells_to_score = [c for c in geom.board_cells if cells[c] == EMPTY]
    todo = [c for c in cells_to_score if cells[c] == EMPTY]
    if not todo:
        return {}
    sb = shape_board(cfg)
    board = np.asarray(cells)[sb.pad][None, :]
    logits = sb.prior_logits(board, player, [cfg.unpadded(c) for c in todo])[0]
    return dict(zip(todo, np.exp(logits - logits.max()).tolist()))


def neighbourhood(geom: Geometry, cells: Sequence[int]) -> list[int]:
    """Empty padded cells within Chebyshev distance 2 of a stone, in board order."""
    seen = set()
    near = geom.near
    for c in geom.board_cells:
        if cells[c] in (1, 2):
            for n in near[c]:
                if cells[n] == EMPTY:
                    seen.add(n)
    return sorted(seen)


def centre_scores(config: GameConfig) -> dict[int, float]:
    """Scores for the central region of an empty board: the middle cells, highest at the centre."""
    cx, cy = (config.width - 1) / 2.0, (config.height - 1) / 2.0
    radius = max(1.0, min(config.width, config.height) / 6.0)
    out: dict[int, float] = {}
    for m in range(config.area):
        x, y = config.xy(m)
        d = max(abs(x - cx), abs(y - cy))
        if d <= radius:
            out[config.padded(m)] = 1.0 / (1.0 + d)
    return out


class LineState:
    """Per-window stone counts of a position, updated incrementally as stones are set and cleared.

    Works on the given padded ``cells`` list (usually ``Board.cells``):
    :meth:`place` and :meth:`take` mutate it and the caller must undo every
    ``place`` with a ``take``.
    ``hot[p]`` holds the windows with no opponent stone and at least ``K-2``
    stones of ``p``: the only windows where fours and completions live.
    """

    __slots__ = ("config", "geom", "cells", "k", "cnt", "hot", "hash", "freestyle", "renju")

    def __init__(self, config: GameConfig, cells: list[int]) -> None:
        cfg = config
        self.config = cfg
        self.geom: Geometry = geometry(cfg)
        self.cells = cells
        self.k = cfg.win_length
        self.freestyle = cfg.rule is Rule.FREESTYLE
        #: Under renju black's forbidden points are no moves: not fours, threes or
        #: double threats of black's, and no defence against white's (see :meth:`allowed`).
        self.renju = cfg.rule is Rule.RENJU
        geom = self.geom
        n = len(geom.windows)
        c1 = [0] * n
        c2 = [0] * n
        cw = geom.cell_windows
        zob = geom.zobrist
        touched: set[int] = set()
        h = 0
        # One pass over the stones: counts, hash, and the windows that hold any stone.
        for c in geom.board_cells:
            v = cells[c]
            if v == 1:
                h ^= zob[c][0]
                for w in cw[c]:
                    c1[w] += 1
                touched.update(cw[c])
            elif v == 2:
                h ^= zob[c][1]
                for w in cw[c]:
                    c2[w] += 1
                touched.update(cw[c])
        self.cnt = (None, c1, c2)
        self.hash = h
        lo = self.k - 2
        scan = range(n) if lo <= 0 else touched  # with K=2 even empty windows are hot
        self.hot = (
            None,
            {w for w in scan if c2[w] == 0 and c1[w] >= lo},
            {w for w in scan if c1[w] == 0 and c2[w] >= lo},
        )

    # Mutation ------------------------------------------------------------------
    def place(self, cell: int, p: int) -> None:
        """Put a stone of ``p`` on the empty padded ``cell``."""
        self.cells[cell] = p
        self.hash ^= self.geom.zobrist[cell][p - 1]
        mine, theirs = self.cnt[p], self.cnt[3 - p]
        hot_mine, hot_theirs = self.hot[p], self.hot[3 - p]
        lo = self.k - 2
        # Only transitions matter: a window turns hot for p when it reaches K-2 stones
        # (hot windows with lo = 0 are hot from the start), and stops being hot for the
        # other side at p's first stone in it.
        for w in self.geom.cell_windows[cell]:
            n = mine[w] + 1
            mine[w] = n
            if n == 1:
                hot_theirs.discard(w)
            if n == lo and theirs[w] == 0:
                hot_mine.add(w)

    def take(self, cell: int) -> None:
        """Remove the stone on padded ``cell`` (placed earlier with :meth:`place`)."""
        p = self.cells[cell]
        self.cells[cell] = EMPTY
        self.hash ^= self.geom.zobrist[cell][p - 1]
        mine, theirs = self.cnt[p], self.cnt[3 - p]
        hot_mine, hot_theirs = self.hot[p], self.hot[3 - p]
        lo = self.k - 2
        below = lo - 1
        for w in self.geom.cell_windows[cell]:
            n = mine[w] - 1
            mine[w] = n
            if n == below:
                hot_mine.discard(w)
            if n == 0 and theirs[w] >= lo:
                hot_theirs.add(w)

    # Queries -------------------------------------------------------------------
    def allowed(self, p: int, cells: Sequence[int]) -> list[int]:
        """The padded empty ``cells`` that ``p`` may play now: all of them, except black's
        forbidden points under renju (a five is never forbidden, so completing cells stay)."""
        if not self.renju or p != 1:
            return list(cells)
        return allowed_cells(self.cells, list(cells), self.config.directions)

    def wins_at(self, cell: int, p: int) -> bool:
        """Would ``p`` complete a line on the empty padded ``cell``?"""
        cells = self.cells
        cells[cell] = p
        try:
            return run_wins(self.config, cells, cell, p)
        finally:
            cells[cell] = EMPTY

    def _empty_of(self, w: int) -> list[int]:
        cells = self.cells
        return [c for c in self.geom.windows[w] if cells[c] == EMPTY]

    def _empties_of_windows_with(self, p: int, count: int) -> set[int]:
        """Empty cells of the windows (holding only ``p``'s stones) where ``p`` has ``count`` stones."""
        mine = self.cnt[p]
        found: set[int] = set()
        for w in self.hot[p]:
            if mine[w] == count:
                found.update(self._empty_of(w))
        return found

    def completing(self, p: int) -> list[int]:
        """Padded cells where ``p`` completes a line now, sorted."""
        found = self._empties_of_windows_with(p, self.k - 1)
        if self.freestyle:
            return sorted(found)
        return sorted(c for c in found if self.wins_at(c, p))

    def new_completions(self, cell: int, p: int) -> list[int]:
        """Completing cells of ``p`` in the windows through ``cell`` (where ``p`` just played).

        When ``p`` had no completing cell before that stone, these are all of
        them: a stone only changes the windows through it, and under exact and
        caro it cannot turn an invalid completion elsewhere into a valid one
        (it would have to join a run bounded by opponent stones or lengthen it).
        """
        target = self.k - 1
        mine, theirs = self.cnt[p], self.cnt[3 - p]
        cells = self.cells
        windows = self.geom.windows
        found = []
        for w in self.geom.cell_windows[cell]:
            if mine[w] == target and theirs[w] == 0:
                for c in windows[w]:
                    if cells[c] == EMPTY:
                        if c not in found:
                            found.append(c)
                        break
        if not self.freestyle:
            found = [c for c in found if self.wins_at(c, p)]
        found.sort()
        return found

    def four_replies(self, cell: int, p: int) -> tuple[list[int], list[int]]:
        """``(completions, stopping replies)`` if ``p``, having no completing cell now, played ``cell``.

        An empty ``completions`` means ``cell`` is no four; empty ``replies``
        with completions means a double threat.
        """
        self.place(cell, p)
        try:
            w = self.new_completions(cell, p)
            return w, self.killers(p, w)  # black's forbidden replies are left out there
        finally:
            self.take(cell)

    def four_options(self, p: int) -> list[tuple[int, list[int], list[int]]]:
        """``(cell, completions, stopping replies)`` for every four of ``p``, who has no completing
        cell now, in cell order (what :meth:`four_replies` says of each :meth:`four_candidates` cell
        with completions; empty replies mean a double threat).

        Under freestyle it is read off the hot windows in one pass: a window holding ``K-2`` of
        ``p``'s stones and no other has two empty cells, and a stone on either makes the other
        a completing cell.  The solvers ask this at every node, so asking each candidate's
        twenty-odd windows separately was their largest cost.
        """
        if not self.freestyle:
            out = []
            for c in self.allowed(p, self.four_candidates(p)):
                w, replies = self.four_replies(c, p)
                if w:
                    out.append((c, w, replies))
            return out
        target = self.k - 2
        mine = self.cnt[p]
        cells = self.cells
        windows = self.geom.windows
        pairs: dict[int, set[int]] = {}
        for w in self.hot[p]:
            if mine[w] == target:
                e = [c for c in windows[w] if cells[c] == EMPTY]
                if len(e) == 2:
                    a, b = e
                    pairs.setdefault(a, set()).add(b)
                    pairs.setdefault(b, set()).add(a)
        out = []
        for c in sorted(pairs):
            w = sorted(pairs[c])
            out.append((c, w, w if len(w) == 1 else []))
        return out

    def four_candidates(self, p: int) -> list[int]:
        """Empty padded cells that may make a four for ``p`` (a superset; confirm with :meth:`completing`)."""
        return sorted(self._empties_of_windows_with(p, self.k - 2))

    def fours(self, p: int) -> list[int]:
        """Padded cells after which ``p`` has a completing cell (immediate wins excluded)."""
        now = self.completing(p)
        if not now:
            return [c for c, _, _ in self.four_options(p)]
        out = []
        for c in self.allowed(p, self.four_candidates(p)):
            if c in now:
                continue
            self.place(c, p)
            try:
                if self.completing(p):
                    out.append(c)
            finally:
                self.take(c)
        return out

    def killers(self, p: int, wins: Sequence[int]) -> list[int]:
        """Opponent replies after which ``p`` has none of the completing cells ``wins`` left.

        Only an occupied completing cell stops it under freestyle and exact;
        under caro a stone just beyond a run of exactly K also does, so those
        cells are tried too.  The opponent's stones never create new completing
        cells for ``p``, so checking ``wins`` is enough.
        """
        if not wins:
            return []
        if self.config.rule is not Rule.CARO:
            # Under renju a forbidden point is no defence for black: the completion stands.
            return self.allowed(3 - p, wins) if len(wins) == 1 else []
        cands = set(wins)
        cells = self.cells
        for w in wins:
            cells[w] = p
            for d in self.config.directions:
                lo = w - d
                while cells[lo] == p:
                    lo -= d
                hi = w + d
                while cells[hi] == p:
                    hi += d
                if cells[lo] == EMPTY:
                    cands.add(lo)
                if cells[hi] == EMPTY:
                    cands.add(hi)
            cells[w] = EMPTY
        q = 3 - p
        out = []
        for r in sorted(cands):
            cells[r] = q
            try:
                if not any(w != r and self.wins_at(w, p) for w in wins):
                    out.append(r)
            finally:
                cells[r] = EMPTY
        return out

    def double_moves(self, p: int) -> list[int]:
        """Padded cells where ``p`` makes a double threat (not counting immediate wins)."""
        now = self.completing(p)
        if not now:
            return [c for c, _, replies in self.four_options(p) if not replies]
        out = []
        for c in self.allowed(p, self.four_candidates(p)):
            if c in now:
                continue
            self.place(c, p)
            try:
                w = self.completing(p)
                if w and not self.killers(p, w):
                    out.append(c)
            finally:
                self.take(c)
        return out


    def three_candidates(self, p: int, related: Collection[int] = ()) -> list[int]:
        """Empty padded cells in live windows holding ``K-3`` stones of ``p`` (where threes are made).

        With ``related`` cells (stones of ``p``) and K >= 4, only windows holding one of them count.
        """
        k = self.k
        if k < 3:
            return []
        target = k - 3
        mine, theirs = self.cnt[p], self.cnt[3 - p]
        cells = self.cells
        geom = self.geom
        windows, cw = geom.windows, geom.cell_windows
        near = None
        if related and target > 0:
            sources = related
        elif target == 0:
            # Every empty window qualifies for K=3: only cells next to stones matter.
            near = set(neighbourhood(geom, cells))
            sources = near
        else:
            sources = [c for c in geom.board_cells if cells[c] == p]
        seen: set[int] = set()
        found = set()
        for c in sources:
            for w in cw[c]:
                if w in seen:
                    continue
                seen.add(w)
                if mine[w] == target and theirs[w] == 0:
                    for x in windows[w]:
                        if cells[x] == EMPTY:
                            found.add(x)
        if near is not None:
            found &= near
        return sorted(found)

    def threes(self, p: int, related: Collection[int] = ()) -> list[tuple[int, list[int]]]:
        """``(cell, double-threat moves after it)`` for every three of ``p``: a move that is no
        four but gives ``p`` a double-threat move (only those :meth:`three_candidates` gives
        for ``related``)."""
        out = []
        had = bool(self.completing(p))
        for c in self.allowed(p, self.three_candidates(p, related)):
            self.place(c, p)
            try:
                if not (self.completing(p) if had else self.new_completions(c, p)):
                    dm = self.double_moves(p)
                    if dm:
                        out.append((c, dm))
            finally:
                self.take(c)
        return out
