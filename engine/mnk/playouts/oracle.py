"""The exact, cheap knowledge of every m,n,k tree node: immediate wins and threats.

For each node it keeps, as the verdict's ``facts``, the cells where the side to move
completes a line now (``wins``), those where the opponent would (``threats``), and the
sets of cells near stones and occupied (see :mod:`engine.mnk.board.cellsets`), all derived from
the parent's facts and the last move only:

- the side to move had no win at the parent (the parent would be a proven win and never
  searched on), so its new wins are the parent's threats the last move did not fill;
- every new threat of the player who just moved goes through its move: per direction,
  only the first empty cell past each end of its run can be one; the same walk tells
  whether the move completed a line (the search plays its moves with ``Board.push``,
  which leaves the win test to the oracle).

Verdicts: a node with a win is a proven win; a full board a draw; two threats (freestyle,
exact, renju) a proven loss, since one stone cannot fill two cells; one threat forces the
block (under caro a stone beyond a line's end can also spoil it, so caro lists threats first
instead of forcing them).  Under renju black's wins are exactly five (never forbidden) and
white's five or more; a block on a point forbidden for black is no block, so black facing
one threat there has lost, and a lost black lists only the blocks it may play.
"""

from __future__ import annotations

from ...game import Outcome, Verdict
from ..board.cellsets import CellSets
from ..board.renju import forbidden_reason
from ..board.rules import EMPTY, Board, GameConfig, Rule, line_wins, run_through

_WIN, _LOSS, _DRAW = Outcome.WIN, Outcome.LOSS, Outcome.DRAW


def cell_wins(config: GameConfig, cells: list[int], c: int, p: int) -> bool:
    """Would ``p`` playing the empty padded cell ``c`` complete a line?"""
    for d in config.directions:
        run, lo, hi = run_through(cells, c, p, d)
        if line_wins(config, run, cells[lo], cells[hi], p):
            return True
    return False


class LineOracle:
    """Immediate wins and threats of each node (the oracle of m,n,k's trees).

    ``facts`` of a verdict: ``(wins, threats, near1, near, occupied)``: compact cells
    where the side to move wins now, where the opponent would, and three sets of
    :class:`~engine.mnk.board.cellsets.CellSets` (cells within 1 and within the candidate
    radius of a stone, occupied or blocked cells).
    """

    def __init__(self, config: GameConfig, sets: CellSets) -> None:
        self.config = config
        self.sets = sets
        self._caro = config.rule is Rule.CARO
        self._plain = config.rule is Rule.FREESTYLE
        self._renju = config.rule is Rule.RENJU
        self._compact = [-1] * config.padded_size  # compact move of each padded cell
        for m, c in enumerate(config.pad):
            self._compact[c] = m

    def verdict(self, state: Board, parent: Verdict | None, move: int | None) -> Verdict:
        """The verdict on ``state`` (a :class:`Board`), from its parent's facts after ``move``."""
        if parent is None or move is None or parent.facts is None:
            return self._root(state)
        cfg = self.config
        sets = self.sets
        cells = state.cells
        p = int(state.to_move)
        mover = 3 - p
        cm = cfg.pad[move]
        k = cfg.win_length
        plain = self._plain
        unpad = self._compact
        threats = []
        for d in cfg.directions:
            hi = cm + d
            while cells[hi] == mover:
                hi += d
            lo = cm - d
            while cells[lo] == mover:
                lo -= d
            base = (hi - lo) // d  # the run through the move, plus the cell filled at one end
            if base > k and (plain or line_wins(cfg, base - 1, cells[lo], cells[hi], mover)):
                # The move completed a line (the search plays moves unchecked: this is the
                # win test; only a parent that had a win of its own can get here).
                return Verdict(_LOSS, 0)
            if cells[hi] == EMPTY:
                e = hi + d
                while cells[e] == mover:
                    e += d
                run = base + (e - hi) // d - 1
                if run >= k and (plain or line_wins(cfg, run, cells[e], cells[lo], mover)):
                    threats.append(unpad[hi])
            if cells[lo] == EMPTY:
                e = lo - d
                while cells[e] == mover:
                    e -= d
                run = base + (lo - e) // d - 1
                if run >= k and (plain or line_wins(cfg, run, cells[e], cells[hi], mover)):
                    threats.append(unpad[lo])
        _, parent_threats, near1, near, occ = parent.facts
        wins = [w for w in parent_threats if w != move]
        if wins and self._caro:
            pad = cfg.pad
            wins = [w for w in wins if cell_wins(cfg, cells, pad[w], p)]
        facts = (wins, threats, near1 | sets.near1[move], near | sets.near2[move], occ | sets.bit[move])
        return self._judge(facts, state)

    def _root(self, board: Board) -> Verdict:
        sets = self.sets
        cfg = self.config
        wins = board.winning_cells(board.to_move)
        threats = board.winning_cells(board.to_move.other)
        near1 = near = occ = 0
        cells = board.cells
        for m in range(cfg.area):
            v = cells[cfg.pad[m]]
            if v != EMPTY:
                occ |= sets.bit[m]
                if v in (1, 2):
                    near1 |= sets.near1[m]
                    near |= sets.near2[m]
        return self._judge((wins, threats, near1, near, occ), board)

    def _judge(self, facts: tuple, state: Board) -> Verdict:
        wins, threats = facts[0], facts[1]
        if wins:
            return Verdict(_WIN, 1, sorted(wins), facts)
        if state.empty_count == 0:
            return Verdict(_DRAW, 0, None, facts)
        if threats and not self._caro:
            if self._renju and int(state.to_move) == 1:
                # Black may not block on a forbidden point: such a block is no move at all.
                cfg = self.config
                blocks = [t for t in threats if forbidden_reason(state.cells, cfg.pad[t], cfg.directions) is None]
                if not blocks:
                    return Verdict(_LOSS, 2, None, facts)  # every block is forbidden: any legal move
                if len(threats) >= 2:
                    return Verdict(_LOSS, 2, sorted(blocks), facts)
                return Verdict(Outcome.UNKNOWN, 0, blocks, facts)  # the only move not lost at once
            if len(threats) >= 2:
                return Verdict(_LOSS, 2, sorted(threats), facts)
            return Verdict(Outcome.UNKNOWN, 0, list(threats), facts)  # the only move not lost at once
        return Verdict(Outcome.UNKNOWN, 0, None, facts)
