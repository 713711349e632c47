"""Two toy games through the game interface, and an exact solver for them (test helpers).

Small enough to solve by brute force, so the search's proofs and moves can be checked
exactly: tic-tac-toe, and Nim (take 1..3 from one heap; whoever takes the last object wins).
"""

from __future__ import annotations

from engine.game import GameError

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class TicTacToe:
    """Tic-tac-toe: cells 0..8 row by row, player 1 (X) first."""

    def __init__(self, cells=None, history=None) -> None:
        self.cells = list(cells) if cells is not None else [0] * 9
        self._history = list(history) if history is not None else []

    @property
    def to_move(self) -> int:
        return 1 if sum(1 for c in self.cells if c) % 2 == 0 else 2

    @property
    def history(self):
        return self._history

    def winner(self) -> int:
        for a, b, c in LINES:
            if self.cells[a] and self.cells[a] == self.cells[b] == self.cells[c]:
                return self.cells[a]
        return 0

    def is_terminal(self) -> bool:
        return self.winner() != 0 or all(self.cells)

    def legal_moves(self) -> list[int]:
        return [] if self.is_terminal() else [m for m in range(9) if not self.cells[m]]

    def apply(self, move: int) -> None:
        if self.is_terminal():
            raise GameError("the game is over")
        if not (isinstance(move, int) and 0 <= move < 9) or self.cells[move]:
            raise GameError(f"illegal move {move!r}")
        self.cells[move] = self.to_move
        self._history.append(move)

    push = apply

    def undo(self) -> None:
        if not self._history:
            raise GameError("nothing to undo")
        self.cells[self._history.pop()] = 0

    def returns(self) -> tuple[float, float]:
        w = self.winner()
        if w == 0:
            return (0.5, 0.5)
        return (1.0, 0.0) if w == 1 else (0.0, 1.0)

    def key(self):
        return tuple(self.cells)

    def clone(self) -> "TicTacToe":
        return TicTacToe(self.cells, self._history)

    def move_to_text(self, move: int) -> str:
        return str(move)

    def text_to_move(self, text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise GameError(f"bad move text {text!r}") from None


class Nim:
    """Nim with heaps, taking 1..3 from one heap; taking the last object wins.
    A move is ``heap * 4 + take``."""

    def __init__(self, heaps, mover: int = 1) -> None:
        self.heaps = list(heaps)
        self._mover = mover
        self._history: list[int] = []

    @property
    def to_move(self) -> int:
        return self._mover

    @property
    def history(self):
        return self._history

    def is_terminal(self) -> bool:
        return sum(self.heaps) == 0

    def legal_moves(self) -> list[int]:
        return [h * 4 + t for h, size in enumerate(self.heaps) for t in range(1, min(3, size) + 1)]

    def apply(self, move: int) -> None:
        h, t = divmod(move, 4)
        if not (0 <= h < len(self.heaps)) or not 1 <= t <= min(3, self.heaps[h]):
            raise GameError(f"illegal move {move}")
        self.heaps[h] -= t
        self._history.append(move)
        self._mover = 3 - self._mover

    push = apply

    def undo(self) -> None:
        if not self._history:
            raise GameError("nothing to undo")
        h, t = divmod(self._history.pop(), 4)
        self.heaps[h] += t
        self._mover = 3 - self._mover

    def returns(self) -> tuple[float, float]:
        # The player who took the last object (the one not to move now) won.
        return (0.0, 1.0) if self._mover == 1 else (1.0, 0.0)

    def key(self):
        return tuple(self.heaps), self._mover

    def clone(self) -> "Nim":
        n = Nim(self.heaps, self._mover)
        n._history = list(self._history)
        return n

    def move_to_text(self, move: int) -> str:
        return f"{move // 4}:{move % 4}"

    def text_to_move(self, text: str) -> int:
        h, _, t = text.partition(":")
        return int(h) * 4 + int(t)


_VALUES: dict = {}


def solve(state) -> float:
    """The exact value of ``state`` for its side to move (1 win, 0.5 draw, 0 loss), by
    minimax (memoised by ``type(state)`` and ``state.key()``)."""
    key = (type(state), state.key())
    if key not in _VALUES:
        if state.is_terminal():
            best = state.returns()[state.to_move - 1]
        else:
            best = 0.0
            for m in state.legal_moves():
                state.apply(m)
                best = max(best, 1.0 - solve(state))
                state.undo()
        _VALUES[key] = best
    return _VALUES[key]


def winning_moves(state) -> set[int]:
    """The moves that keep the best result for the side to move."""
    target = solve(state)
    good = set()
    for m in state.legal_moves():
        state.apply(m)
        v = 1.0 - (state.returns()[state.to_move - 1] if state.is_terminal() else solve(state))
        state.undo()
        if v == target:
            good.add(m)
    return good
