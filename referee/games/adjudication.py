"""When the referee ends a game itself: a draw once the board holds N stones (``--draw-after``,
as c-gomoku-cli's ``-drawafter``), or once a game reaches a maximum length (``--max-moves``)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.games.verdicts import Termination

__all__ = ["Adjudication"]


@dataclass(frozen=True)
class Adjudication:
    """``draw_after``: stones on the board, opening included, that make a draw (m,n,k; 0 = never);
    ``max_moves``: moves in all, opening and passes included, that make a draw (0 = no limit)."""

    draw_after: int = 0
    max_moves: int = 0

    def verdict(self, moves: int) -> tuple[Termination, str] | None:
        """The draw the referee declares after ``moves`` moves of a game still open, or ``None``."""
        if self.draw_after and moves >= self.draw_after:
            return Termination.DRAW_AFTER, f"drawn by adjudication: {moves} stones on the board (--draw-after)"
        if self.max_moves and moves >= self.max_moves:
            return Termination.MAX_LENGTH, f"drawn by adjudication: the game reached {moves} moves (--max-moves)"
        return None
