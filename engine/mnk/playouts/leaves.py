"""Plain UCT's evaluator for the generic search: which moves to try, and random-playout leaf values.

:class:`PlayoutLeaves` lists the empty cells near stones, adjacent first, then centre-first
(every cell on small boards), and values leaves by batched random playouts
(:mod:`engine.mnk.playouts.rollout`).  Guided mode's evaluator builds on it
(:class:`engine.mnk.tree.guided.GuidedLeaves`).

It reads the node facts of :class:`engine.mnk.playouts.oracle.LineOracle` (wins, threats, cells
near stones), so it is used with that oracle.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...game import Expansion, Verdict
from ..board.cellsets import CellSets
from ..board.renju import allowed_cells
from ..board.rules import Board, GameConfig, Rule
from .rollout import RolloutKernel


class PlayoutLeaves:
    """Plain UCT's evaluator: candidate cells near stones, random-playout leaf values."""

    def __init__(self, config: GameConfig, sets: CellSets, weight: int, full_width: bool) -> None:
        self.config = config
        self.sets = sets
        self.weight = weight
        self.full_width = full_width
        self.kernel = RolloutKernel(config)
        self._pad = np.array(config.pad, dtype=np.intp)
        self._caro = config.rule is Rule.CARO
        self._renju = config.rule is Rule.RENJU

    def expand(self, state: Board, verdict: Verdict | None, everything: bool = False) -> Expansion:
        """The candidates of ``state`` (facts from ``verdict``), or every empty cell; under
        renju never black's forbidden points."""
        ex = self._candidates(state, verdict, everything)
        if not (self._renju and int(state.to_move) == 1):
            return ex
        kept = self._allowed(state, ex.moves)
        if kept:
            return Expansion(kept, complete=ex.complete)
        if not ex.complete:  # every candidate forbidden: look at every empty cell
            ex = self._candidates(state, verdict, True)
            kept = self._allowed(state, ex.moves)
        # Black with no legal move at all is left its forbidden points: too rare to model.
        return Expansion(kept or list(ex.moves), complete=True)

    def _allowed(self, state: Board, moves) -> list[int]:
        """``moves`` without black's forbidden points (renju)."""
        cfg = self.config
        pad = cfg.pad
        ok = set(allowed_cells(state.cells, [pad[m] for m in moves], cfg.directions))
        return [m for m in moves if pad[m] in ok]

    def _candidates(self, state: Board, verdict: Verdict | None, everything: bool) -> Expansion:
        """The candidate cells before renju's filter (see :meth:`expand`)."""
        sets = self.sets
        _, threats, near1, near, occ = verdict.facts
        free = sets.full & ~occ
        if everything or self.full_width:
            return Expansion(sets.moves_of(free), complete=True)
        first = near1 & free
        second = near & free & ~near1
        if second:
            moves = sets.moves_of(first) + sets.moves_of(second)
        elif first:
            moves = sets.moves_of(first)
        else:
            moves = sets.moves_of(free)[:1]  # no stone near any empty cell (the empty board): the centre
        if self._caro and threats:
            # Caro leaves threats unforced (see the oracle); they come first.
            moves = sorted(threats) + [m for m in moves if m not in threats]
        return Expansion(moves, complete=len(moves) == free.bit_count())

    def begin(self, root: Board, deadline: float | None = None) -> None:
        """Keep the root's cells and mover: a leaf is then only the moves played since."""
        self._root = np.array(root.cells, dtype=np.int8)[self._pad]
        self._base = len(root.history)
        p = int(root.to_move)
        self._players = [p, 3 - p] * (self.config.area // 2 + 1)  # who plays each move from the root

    def leaf(self, state: Board) -> list[int]:
        """The moves from the root to the leaf (the search's working position holds them)."""
        return state.history[self._base:]

    def boards(self, leaves: Sequence[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The leaves as a ``(leaves, area)`` int8 array of compact cells and their movers:
        the root's cells with each leaf's moves written in, one fancy assignment for all."""
        players = self._players
        rows: list[int] = []
        cols: list[int] = []
        vals: list[int] = []
        movers = []
        for i, moves in enumerate(leaves):
            d = len(moves)
            rows.extend([i] * d)
            cols.extend(moves)
            vals.extend(players[:d])
            movers.append(players[d])
        boards = np.repeat(self._root[None, :], len(leaves), axis=0)
        boards[rows, cols] = vals
        return boards, np.array(movers, dtype=np.int8)

    def playout_scores(self, boards: np.ndarray, movers: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Mean score of ``weight`` random playouts of each board for its side to move."""
        winners = self.kernel.run_boards(boards, movers, self.weight, rng)
        wins = np.count_nonzero(winners == movers[:, None], axis=1)
        draws = np.count_nonzero(winners == 0, axis=1)
        return (wins + 0.5 * draws) / self.weight

    def values(self, leaves: Sequence[list[int]], rng: np.random.Generator) -> np.ndarray:
        """Each leaf's playout score for its side to move."""
        boards, movers = self.boards(leaves)
        return self.playout_scores(boards, movers, rng)
