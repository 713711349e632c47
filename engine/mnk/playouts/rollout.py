"""Batched, vectorised random playouts (numpy).

A uniformly random playout to the end of the game is a uniformly random
permutation of the empty cells, played alternately by the two sides.  So many
playouts are computed at once, without playing a single move:

1. every empty cell gets a random *fill time* ``1..e`` (a random permutation);
   the side to move owns the cells of odd time, the other side the even ones;
   stones already on the board have time ``0``;
2. for each player ``P`` an array ``T_P[cell]`` holds the fill time of the
   cells ``P`` owns and ``INF`` elsewhere (also on the sentinel border); both
   are produced by one gather from per-playout value tables (times fit in
   ``uint8`` up to 254 cells, else ``uint16``);
3. the time at which a length-``K`` window becomes a complete line of ``P``
   is the maximum of ``T_P`` over the window (``INF`` if some cell is not
   ``P``'s); it is a running maximum of ``K`` shifted slices of a flat,
   border-padded array, so all windows of one direction cost ``K - 1``
   element-wise ``maximum`` calls;
4. the game ends at the earliest window completion over both players; that
   window's owner wins, no completion at all is a draw.

Arrays are laid out ``(cell, leaf, player, playout)`` -- cells first, the
batch last -- so every shifted slice is a contiguous block of rows.

Rules beyond freestyle are exact, still vectorised, using the two cells just
outside each window (``left``/``right``):

- ``EXACT``: the window completes a win at time ``M`` only if neither outside
  cell is ``P``'s with time ``<= M`` (else the run is longer than ``K``);
- ``CARO``: it does, unless both outside cells are the opponent's with time
  ``<= M`` (a run of exactly ``K`` blocked at both ends); a run longer than
  ``K`` always wins, and every such run contains a window with an own stone
  outside it, which is not blocked;
- ``RENJU``: the first player's windows as under ``EXACT``, the second player's as
  under freestyle.  Black's forbidden points are not known to the playouts: a random
  playout may put black on one (the playouts value positions; the tree's moves obey
  the rule).

Fill times come from one stable radix ``argsort`` of 8-bit random keys per
playout (much faster than sorting floats): its first ``e`` entries are a
random permutation of ``0..e-1``, used directly as the fill times of a
leaf's ``e`` empty cells.  Ties between equal keys are broken by position,
and the empty cells are numbered along a random order of the cells first, so
every single playout is an exactly uniform random permutation (the playouts
of one batch share that order, which only makes them slightly correlated).
Playouts of many different leaves share one batch: every step is vectorised
over the whole batch, with no Python loop per leaf.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...heap import keep_heap
from ..board.rules import GameConfig, Rule


class RolloutKernel:
    """Runs batches of uniformly random playouts for one :class:`GameConfig`.

    The kernel holds only tables derived from the configuration (no state
    between calls), so one instance can be shared by every search of a game.
    """

    def __init__(self, config: GameConfig) -> None:
        keep_heap()  # the batches' temporaries would otherwise cost page faults (engine.heap)
        self.config = config
        stride = config.stride
        k = config.win_length
        dmax = stride + 1
        area = config.area
        # Fill times are 0..area; INF (never) is the largest value of the dtype.
        self.dtype = np.uint8 if area + 1 < 255 else np.uint16
        self.inf = np.iinfo(self.dtype).max
        # Playouts per vectorised chunk: the working arrays (about 16 bytes per
        # cell and playout) should stay within a typical L2 cache.
        self.chunk = max(16, min(1024, 57_600 // area))
        # Layout row of padded index p is p + front; the front margin lets the
        # cell just before a window (start - d) be read for every start.
        front = dmax
        self.start = front + stride  # row of cell (0, 0)
        self.span = config.height * stride  # window starts: every row from (0,0) to the last cell
        self.rows = self.start + self.span + k * dmax + 1
        padded = np.array([config.padded(m) for m in range(area)], dtype=np.intp)
        #: layout row of each compact move
        self.row_of = padded + front

    # ------------------------------------------------------------------
    def run(
        self,
        leaves: Sequence[tuple[np.ndarray, int]],
        per_leaf: int,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Play ``per_leaf`` random playouts from each leaf; return the winners.

        ``leaves`` holds ``(cells, to_move)`` pairs: ``cells`` an int8 array of
        the ``area`` compact cells (0 empty, 1/2 a stone), ``to_move`` 1 or 2.
        The positions must not already be won.  Returns an int8 array of shape
        ``(len(leaves), per_leaf)``: 0 for a draw, else the winning player.
        """
        if not len(leaves):
            return np.zeros((0, max(per_leaf, 0)), dtype=np.int8)
        boards = np.stack([np.asarray(c, dtype=np.int8) for c, _ in leaves])
        to_move = np.array([tm for _, tm in leaves], dtype=np.int8)
        return self.run_boards(boards, to_move, per_leaf, rng)

    def run_boards(
        self,
        boards: np.ndarray,
        to_move: np.ndarray,
        per_leaf: int,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Like :meth:`run`, with the leaves as one ``(leaves, area)`` int8 array
        and their sides to move as an array of 1/2."""
        n_leaves = boards.shape[0]
        if n_leaves == 0 or per_leaf <= 0:
            return np.zeros((n_leaves, max(per_leaf, 0)), dtype=np.int8)
        # Work in chunks of about CHUNK playouts: beyond that the arrays leave
        # the CPU cache and each playout costs ~1.5x more (measured on 15x15).
        step = max(1, self.chunk // per_leaf)
        if n_leaves > step:
            return np.concatenate([
                self._run_chunk(boards[i : i + step], to_move[i : i + step], per_leaf, rng)
                for i in range(0, n_leaves, step)
            ])
        return self._run_chunk(boards, to_move, per_leaf, rng)

    def _run_chunk(
        self,
        boards: np.ndarray,
        to_move: np.ndarray,
        per_leaf: int,
        rng: np.random.Generator,
    ) -> np.ndarray:
        n_leaves = boards.shape[0]
        r = per_leaf
        batch = n_leaves * r
        area = self.config.area
        dt = self.dtype
        inf = dt(self.inf)
        empty = boards == 0
        counts = np.count_nonzero(empty, axis=1)
        emax = int(counts.max())
        # Each leaf's empty cells get "slots" 0..e-1, numbered along one random
        # order of the cells per batch (the relabelling that makes tie-breaking
        # of equal keys uniformly random); stones point at the stone rows of
        # the value table (emax + player - 1).
        sigma = rng.permutation(area)
        walked = empty[:, sigma]
        slots = np.cumsum(walked, axis=1)
        slots -= 1
        slot_of = np.empty((n_leaves, area), dtype=np.intp)
        slot_of[:, sigma] = slots
        np.copyto(slot_of, boards.astype(np.intp) + (emax - 1), where=~empty)
        table = np.full((self.rows, n_leaves), emax + 2, dtype=np.intp)  # off the board by default
        table[self.row_of] = slot_of.T
        # One row of 8-bit keys per playout; padding slots (>= e) get 255 and
        # sort after real keys of equal value because the sort is stable.
        # (Many keys tie; ties go by the random slot order, so each playout
        # stays an exactly uniform random permutation.)
        keys = np.frombuffer(rng.bytes(batch * emax), dtype=np.uint8).reshape(n_leaves, r, emax)
        if counts.min() < emax:
            pad = (np.arange(emax)[None, :] >= counts[:, None]).astype(np.uint8) * np.uint8(255)
            keys = keys | pad[:, None, :]
        # order[b, j] for j < e is a uniformly random permutation of 0..e-1:
        # the fill time (minus one) of the cell in slot j.
        order = np.argsort(keys.reshape(batch, emax), axis=1, kind="stable").astype(dt)
        order = order.reshape(n_leaves, r, emax).transpose(2, 0, 1)  # (slot, leaf, playout)
        # Value table (slot, leaf, player, playout): the fill time where that
        # player owns the slot, INF where the other does.  The side to move
        # fills the odd times.  Bit masks, not np.where: a random mask makes
        # np.where slow.
        t = order + dt(1)
        first_owns = (t & dt(1)) ^ (to_move == 2).astype(dt)[None, :, None]  # 1 or 0
        mask = first_owns - dt(1)  # all bits clear where the first player owns, all set elsewhere
        values = np.empty((emax + 3, n_leaves, 2, r), dtype=dt)
        np.bitwise_or(t, mask, out=values[:emax, :, 0, :])
        np.bitwise_or(t, ~mask, out=values[:emax, :, 1, :])
        values[emax:] = inf
        values[emax, :, 0, :] = 0  # a first-player stone: filled from the start
        values[emax + 1, :, 1, :] = 0
        # Gather the layout rows of every leaf: (row, leaf, player, playout).
        rows = table * n_leaves + np.arange(n_leaves)[None, :]
        times = np.take(values.reshape(-1, 2 * r), rows.ravel(), axis=0).reshape(self.rows, n_leaves, 2, r)
        best = self._first_completion(times)  # (leaf, player, playout)
        t1 = best[:, 0, :]
        t2 = best[:, 1, :]
        return np.where(t1 < t2, 1, np.where(t2 < t1, 2, 0)).astype(np.int8)

    def _first_completion(self, times: np.ndarray) -> np.ndarray:
        """Earliest winning-window completion time of each player in each
        playout (``INF`` if none); ``times`` is ``(layout row, leaf, player,
        playout)`` and so is the result, without the row axis."""
        cfg = self.config
        k = cfg.win_length
        s0 = self.start
        n = self.span
        rule = cfg.rule
        inf = self.inf
        shape = times.shape
        flat = times.reshape(shape[0], -1)
        best = np.full(flat.shape[1], inf, dtype=times.dtype)
        buf = np.empty((n, flat.shape[1]), dtype=times.dtype)
        # The other player's times in the same column (for caro's blocked ends).
        opp = times[:, :, ::-1, :].reshape(shape[0], -1) if rule is Rule.CARO else None
        # Renju: only the first player's overlines do not win (columns of player index 0).
        black_only = None
        if rule is Rule.RENJU:
            black_only = np.zeros(shape[1:], dtype=bool)
            black_only[:, 0, :] = True
            black_only = black_only.reshape(1, -1)
        for d in cfg.directions:
            np.maximum(flat[s0 : s0 + n], flat[s0 + d : s0 + d + n], out=buf)
            for j in range(2, k):
                o = s0 + j * d
                np.maximum(buf, flat[o : o + n], out=buf)
            if rule is Rule.EXACT or rule is Rule.RENJU:
                lo = s0 - d
                hi = s0 + k * d
                blocked = flat[lo : lo + n] <= buf
                blocked |= flat[hi : hi + n] <= buf
                if black_only is not None:
                    blocked &= black_only
                np.maximum(buf, blocked.view(np.uint8).astype(times.dtype) * times.dtype.type(inf), out=buf)
            elif rule is Rule.CARO:
                lo = s0 - d
                hi = s0 + k * d
                blocked = opp[lo : lo + n] <= buf
                blocked &= opp[hi : hi + n] <= buf
                np.maximum(buf, blocked.view(np.uint8).astype(times.dtype) * times.dtype.type(inf), out=buf)
            np.minimum(best, buf.min(axis=0), out=best)
        return best.reshape(shape[1:])
