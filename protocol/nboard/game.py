"""The game a GUI set: its GGF record, the position at its end and the side to move's
clock; and the instant move played while the engine is not ready.

Any board the project's rules take is accepted (even sizes 4..16; NBoard itself plays
8x8): a ``set game`` whose ``BO`` has another size switches the engine to that size.
Every change is all-or-nothing: bad text or an illegal move raises
:class:`~engine.game.GameError` and leaves the game as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.game import GameError
from engine.reversi.board.ggf import GgfMove, parse_clock, parse_ggf, parse_move
from engine.reversi.board.rules import ReversiState


@dataclass
class NBoardGame:
    """A game: the initial position, the moves as the record and the GUI gave them (with
    their evals and seconds; a forced pass may be missing), the record's other tags
    (``TI``: the clock), and ``state``, the position after the moves (its history holds
    every move, passes included, so the engine can reuse its tree from move to move)."""

    start: ReversiState
    state: ReversiState
    moves: list[GgfMove] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)

    @classmethod
    def standard(cls, n: int = 8) -> "NBoardGame":
        """The start position of an n x n board, no clock."""
        start = ReversiState(n)
        return cls(start, start.clone())

    @classmethod
    def from_ggf(cls, text: str) -> "NBoardGame":
        """The game of a GGF record (forced passes the record leaves out put back);
        :class:`GameError` saying what is wrong with it."""
        record = parse_ggf(text)
        state = record.position()  # checks every move (and puts the left-out passes back)
        if "TI" in record.tags:
            record.clock_seconds()  # a bad clock is refused now, not at the next go
        return cls(record.start, state, list(record.moves), dict(record.tags))

    @property
    def size(self) -> int:
        """The board side."""
        return self.state.n

    def play(self, text: str) -> None:
        """Play ``MOVE[/EVAL[/TIME]]`` for the side to move; a square of the other side
        when the side to move must pass is read as the pass and that move (a GUI may leave
        a forced pass out).  :class:`GameError` when malformed or illegal."""
        state = self.state
        move, ev, seconds = parse_move(text, state)
        added: list[GgfMove] = []
        try:
            if move != state.pass_move and state.legal_moves() == [state.pass_move]:
                state.apply(state.pass_move)
                added.append(GgfMove(3 - state.to_move, state.pass_move))
            player = state.to_move
            state.apply(move)
            added.append(GgfMove(player, move, ev, seconds))
        except GameError:
            for _ in added:
                state.undo()
            raise
        self.moves += added

    def clock_left_ms(self) -> float | None:
        """The side to move's time left on the record's clock (``TI`` less the seconds its
        moves took), in ms; ``None`` when the record has no clock."""
        clock = self.tags.get("TI")
        if clock is None:
            return None
        player = self.state.to_move
        used = sum(m.seconds or 0.0 for m in self.moves if m.player == player)
        return (parse_clock(clock) - used) * 1000.0


def quick_move(state: ReversiState) -> int:
    """An instant move: a corner when there is one, else the first legal move (the pass
    when it is the only one)."""
    moves = state.legal_moves()
    if not moves:
        raise GameError("the game is over: no move")
    last = state.n - 1
    corners = {0, last, last * state.n, state.n * state.n - 1}
    return next((m for m in moves if m in corners), moves[0])
