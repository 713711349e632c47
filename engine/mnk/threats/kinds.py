"""What a move makes on an m,n,k board: wins, fours, double threats and threes.

Vocabulary (for the side ``p``; K = win length):

- *completing cell*: an empty cell where ``p`` would complete a winning line
  now (checked with :func:`engine.mnk.board.rules.run_wins`, so exact/caro are exact).
- *four*: a move after which ``p`` has a completing cell (the K-analogue of a
  gomoku four; for K=3 it is a "two", for K=2 any move next to room).
- *double threat*: a move after which ``p`` has completing cells that no single
  opponent stone can all remove (two or more for freestyle/exact; under caro a
  stone beyond the end of a run can also spoil a completing cell, and this is
  taken into account).
- *three*: a move after which ``p`` has a double-threat move (the K-analogue of
  an open three: it threatens to win in three plies).
- *VCF* / *VCT*: victory by continuous fours / threats (:mod:`engine.mnk.threats.solver`).

The threat modules: this one (recognition), :mod:`engine.mnk.threats.solver` (VCF/VCT),
:mod:`engine.mnk.threats.defence` (answers to threats, the tactical move) and
:mod:`engine.mnk.threats.roottactics` (the root threat search).  Moves are compact indices
``y * width + x``; boards are used in place and restored.
"""

from __future__ import annotations

from typing import Callable, Sequence

from ..board.rules import Board
from ..knowledge.patterns import LineState
from .solver import _compact, _side

def _recognised(board: Board, player: int, cells_of: Callable[[LineState, int], Sequence[int]]) -> list[int]:
    """Compact moves, in index order, that ``cells_of(state, player)`` names (none once the game is won)."""
    p = _side(player)
    if board.winner is not None:
        return []
    return sorted(_compact(board, cells_of(LineState(board.config, board.cells), p)))


def winning_moves(board: Board, player: int) -> list[int]:
    """Moves where ``player`` completes a line now, in index order."""
    return _recognised(board, player, LineState.completing)


def four_moves(board: Board, player: int) -> list[int]:
    """Moves after which ``player`` has a completing cell (immediate wins excluded)."""
    return _recognised(board, player, LineState.fours)


def double_threat_moves(board: Board, player: int) -> list[int]:
    """Moves after which ``player`` has completing cells that one opponent stone cannot all stop."""
    return _recognised(board, player, LineState.double_moves)


def three_moves(board: Board, player: int) -> list[int]:
    """Moves (no win, no four) after which ``player`` has a double-threat move.

    The K-analogue of making an open three: unless answered it wins in three
    more plies of the mover.  Meant for a ``player`` that has no completion
    and no double-threat move yet (otherwise it is already threatening).
    Candidates are the empty cells of live windows holding ``K-3`` stones of
    ``player``; for K=3, where almost any move with room qualifies, only cells
    within distance 2 of a stone are reported; none for K=2.
    """
    return _recognised(board, player, lambda st, p: [c for c, _ in st.threes(p)])
