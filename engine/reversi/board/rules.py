"""The Reversi game state: the rules as played, coordinates and board text.

Standard Reversi on an even n x n board (4 <= n <= 16, 8 by default): the four centre
discs to start (on 8x8, d4 and e5 white, d5 and e4 black), black (player 1) moves
first, a move must flip at least one line of opponent discs in one of the 8
directions, a side with no move passes, and the game ends when neither side can move.
More discs wins; the *final disc differential* gives the empty squares to the winner
(the convention of Edax and the world federation).

Moves are ints ``row * n + col`` (row 0 is the top row, "1"); the pass is ``n * n``.
In text a square is its column letter and row number (``a1`` top-left, ``h8``
bottom-right on 8x8, up to ``p16``), a pass is ``pass`` (``PA`` accepted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from ...game import GameError
from .bitboard import MAX_SIZE, MIN_SIZE, final_differential, geometry, squares

BLACK = 1
WHITE = 2
#: The pass on the standard 8x8 board (on n x n it is ``n * n``).
PASS = 64

_BLACK_CHARS = frozenset("Xx*")
_WHITE_CHARS = frozenset("Oo")
_EMPTY_CHARS = frozenset("-._")
_SIDE = {"x": BLACK, "*": BLACK, "b": BLACK, "black": BLACK,
         "o": WHITE, "w": WHITE, "white": WHITE}
_PASS_TEXTS = frozenset(("pass", "pa", "ps", "--"))


@dataclass(frozen=True)
class ReversiConfig:
    """A Reversi game: the board side (even, 4..16).  :func:`engine.api.open_engine`
    opens the Reversi engine for one."""

    size: int = 8

    def __post_init__(self) -> None:
        check_size(self.size)

    @property
    def label(self) -> str:
        """``reversi 8x8``."""
        return f"reversi {self.size}x{self.size}"

    def new_state(self) -> "ReversiState":
        """The start position."""
        return ReversiState(self.size)


def check_size(n: object) -> int:
    """``n`` as a board side; :class:`GameError` unless an even int in 4..16."""
    if isinstance(n, bool) or not isinstance(n, int) or n % 2 or not MIN_SIZE <= n <= MAX_SIZE:
        raise GameError(f"board size must be an even number from {MIN_SIZE} to {MAX_SIZE}, not {n!r}")
    return n


def start_bitboards(n: int = 8) -> tuple[int, int]:
    """The (black, white) bitboards of the start position of an n x n board."""
    check_size(n)
    h = n // 2
    # upper-left and lower-right centre squares white (d4, e5 on 8x8), the others black
    white = (1 << ((h - 1) * n + h - 1)) | (1 << (h * n + h))
    black = (1 << ((h - 1) * n + h)) | (1 << (h * n + h - 1))
    return black, white


def square_to_text(move: int, n: int = 8) -> str:
    """A move as text: ``a1``..``p16``, or ``pass``."""
    if move == n * n:
        return "pass"
    if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < n * n:
        raise GameError(f"not a move on a {n}x{n} board: {move!r}")
    row, col = divmod(move, n)
    return f"{chr(ord('a') + col)}{row + 1}"


def text_to_square(text: str, n: int = 8) -> int:
    """A move from text (``f5``, ``F5``, ``pass``, ``PA``); :class:`GameError` if malformed
    or off the board."""
    if not isinstance(text, str):
        raise GameError(f"a move must be text, not {text!r}")
    t = text.strip().lower()
    if t in _PASS_TEXTS:
        return n * n
    if len(t) < 2 or not ("a" <= t[0] <= "z") or not t[1:].isdigit() or not t[1:].isascii():
        raise GameError(f"not a move: {text!r} (a column letter and a row number, like f5, or pass)")
    col = ord(t[0]) - ord("a")
    row = int(t[1:]) - 1
    if col >= n or not 0 <= row < n or t[1] == "0":
        raise GameError(f"{text!r} is off the {n}x{n} board")
    return row * n + col


def parse_board(text: str, to_move: int | str | None = None) -> tuple[int, int, int, int]:
    """``(n, black, white, to_move)`` from board text.

    The text holds the n*n squares row by row (``X`` or ``*`` black, ``O`` white, ``-``
    or ``.`` empty; spaces and newlines ignored) and, unless ``to_move`` is given, the
    side to move after them (``X``/``*``/``B`` black, ``O``/``W`` white), as in
    ``"---...-- X"``.  :class:`GameError` when malformed.
    """
    if not isinstance(text, str):
        raise GameError(f"a board must be text, not {text!r}")
    tokens = text.split()
    side: int | None = None
    if to_move is not None:
        side = _parse_side(to_move)
    elif len(tokens) >= 2 and tokens[-1].lower() in _SIDE:
        side = _SIDE[tokens[-1].lower()]
        tokens = tokens[:-1]
    body = "".join(tokens)
    if side is None:
        # A side glued to the board: one character beyond a square number of squares.
        if len(body) >= 2 and _is_square_size(len(body) - 1) and body[-1].lower() in _SIDE:
            side = _SIDE[body[-1].lower()]
            body = body[:-1]
        else:
            raise GameError("the board text does not say whose move it is (X or O after the squares)")
    size = len(body)
    n = int(round(size ** 0.5))
    if n * n != size:
        raise GameError(f"a board needs n*n squares; this one has {size}")
    check_size(n)
    black = white = 0
    for i, ch in enumerate(body):
        if ch in _BLACK_CHARS:
            black |= 1 << i
        elif ch in _WHITE_CHARS:
            white |= 1 << i
        elif ch not in _EMPTY_CHARS:
            raise GameError(f"unexpected character {ch!r} in the board (X, O or - expected)")
    return n, black, white, side


def _is_square_size(k: int) -> bool:
    n = int(round(k ** 0.5))
    return n * n == k


def _parse_side(value: int | str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value in (BLACK, WHITE):
        return value
    if isinstance(value, str) and value.strip().lower() in _SIDE:
        return _SIDE[value.strip().lower()]
    raise GameError(f"the side to move must be 1/2 or X/O, not {value!r}")


class ReversiState:
    """A Reversi position with its history, mutable in place (the GameState protocol of
    :mod:`engine.game`).

    The board is two bitboards (``black``, ``white``); :meth:`apply` pushes the previous
    ``(black, white, to_move)`` on a stack and :meth:`undo` pops it, so both are cheap.
    """

    __slots__ = ("n", "area", "pass_move", "_geo", "_black", "_white", "_to_move",
                 "_stack", "_history", "_mob")

    def __init__(self, n: int = 8) -> None:
        check_size(n)
        black, white = start_bitboards(n)
        self._init(n, black, white, BLACK)

    def _init(self, n: int, black: int, white: int, to_move: int) -> None:
        self.n = n
        self.area = n * n
        self.pass_move = n * n
        self._geo = geometry(n)
        self._black = black
        self._white = white
        self._to_move = to_move
        self._stack: list[tuple[int, int, int]] = []
        self._history: list[int] = []
        self._mob: int | None = None  # cached legal-move bitboard of the side to move

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_bitboards(cls, black: int, white: int, to_move: int = BLACK, n: int = 8) -> "ReversiState":
        """A position from its bitboards (bit ``row * n + col``); :class:`GameError` when
        they overlap or leave the board."""
        check_size(n)
        for bb in (black, white):
            if isinstance(bb, bool) or not isinstance(bb, int) or bb < 0 or bb >> (n * n):
                raise GameError(f"not a bitboard of a {n}x{n} board: {bb!r}")
        if black & white:
            raise GameError("black and white discs on the same square")
        self = cls.__new__(cls)
        self._init(n, black, white, _parse_side(to_move))
        return self

    @classmethod
    def from_text(cls, text: str, to_move: int | str | None = None) -> "ReversiState":
        """A position from board text (see :func:`parse_board`), e.g. the 64 squares of
        the positions file followed by ``X`` or ``O``."""
        n, black, white, side = parse_board(text, to_move)
        return cls.from_bitboards(black, white, side, n)

    # ------------------------------------------------------------------ GameState
    @property
    def config(self) -> ReversiConfig:
        """The game (board size) this position belongs to."""
        return ReversiConfig(self.n)

    @property
    def to_move(self) -> int:
        """The player to move, 1 (black) or 2 (white)."""
        return self._to_move

    @property
    def history(self) -> Sequence[int]:
        """The moves played since this state was created, oldest first."""
        return tuple(self._history)

    @property
    def black(self) -> int:
        """The bitboard of black discs."""
        return self._black

    @property
    def white(self) -> int:
        """The bitboard of white discs."""
        return self._white

    def _own(self) -> tuple[int, int]:
        if self._to_move == BLACK:
            return self._black, self._white
        return self._white, self._black

    def move_mask(self) -> int:
        """The bitboard of the legal (non-pass) moves of the side to move."""
        mob = self._mob
        if mob is None:
            p, o = self._own()
            mob = self._mob = self._geo.moves(p, o)
        return mob

    def legal_moves(self) -> list[int]:
        """The legal moves, ascending; ``[pass]`` when the side to move must pass;
        ``[]`` when the game is over."""
        mob = self.move_mask()
        if mob:
            return squares(mob)
        p, o = self._own()
        return [self.pass_move] if self._geo.moves(o, p) else []

    def is_terminal(self) -> bool:
        """Is the game over (neither side can move)?"""
        if self.move_mask():
            return False
        p, o = self._own()
        return not self._geo.moves(o, p)

    def apply(self, move: int) -> None:
        """Play ``move`` (a square or the pass); :class:`GameError` if illegal."""
        if isinstance(move, bool) or not isinstance(move, int):
            raise GameError(f"a move must be an int, not {move!r}")
        p, o = self._own()
        if move == self.pass_move:
            if self.move_mask():
                raise GameError("cannot pass: the side to move has a legal move")
            if not self._geo.moves(o, p):
                raise GameError("the game is over")
            new_p, new_o = p, o
        else:
            if not 0 <= move < self.area:
                raise GameError(f"not a square of the {self.n}x{self.n} board: {move}")
            x = 1 << move
            f = self._geo.flips(p, o, move) if not (x & (p | o)) else 0
            if not f:
                if self.is_terminal():
                    raise GameError("the game is over")
                what = "occupied" if x & (p | o) else "flips nothing"
                raise GameError(f"illegal move {self.move_to_text(move)}: {what}")
            new_p, new_o = p | f | x, o ^ f
        self._stack.append((self._black, self._white, self._to_move))
        self._history.append(move)
        if self._to_move == BLACK:
            self._black, self._white, self._to_move = new_p, new_o, WHITE
        else:
            self._white, self._black, self._to_move = new_p, new_o, BLACK
        self._mob = None

    def push(self, move: int) -> None:
        """:meth:`apply` (its checks cost little beside the flips)."""
        self.apply(move)

    def undo(self) -> None:
        """Take back the last move; :class:`GameError` when there is none."""
        if not self._stack:
            raise GameError("nothing to undo")
        self._black, self._white, self._to_move = self._stack.pop()
        self._history.pop()
        self._mob = None

    def returns(self) -> tuple[float, float]:
        """At the end, the scores of black and white (1 win, 0.5 draw, 0 loss)."""
        if not self.is_terminal():
            raise GameError("the game is not over")
        d = self._black.bit_count() - self._white.bit_count()
        return (1.0, 0.0) if d > 0 else (0.0, 1.0) if d < 0 else (0.5, 0.5)

    def key(self) -> tuple[int, int, int]:
        """``(black, white, to_move)``: equal for equal positions."""
        return (self._black, self._white, self._to_move)

    def clone(self) -> "ReversiState":
        """An independent copy (with the history and the undo stack)."""
        c = ReversiState.__new__(ReversiState)
        c._init(self.n, self._black, self._white, self._to_move)
        c._stack = list(self._stack)
        c._history = list(self._history)
        c._mob = self._mob
        return c

    def move_to_text(self, move: int) -> str:
        """``a1``..``p16`` or ``pass``."""
        return square_to_text(move, self.n)

    def text_to_move(self, text: str) -> int:
        """A move from text; :class:`GameError` when malformed or off the board (legality
        is :meth:`apply`'s business)."""
        return text_to_square(text, self.n)

    # ------------------------------------------------------------------ for users
    def snapshot(self) -> tuple[int, int, int]:
        """``(black, white, to_move)`` -- what a playout or a solve needs."""
        return (self._black, self._white, self._to_move)

    def discs(self) -> tuple[int, int]:
        """The numbers of black and white discs."""
        return self._black.bit_count(), self._white.bit_count()

    def empties(self) -> int:
        """The number of empty squares."""
        return self.area - (self._black | self._white).bit_count()

    def disc_differential(self) -> int:
        """Black's discs minus white's, the empty squares counted for whoever leads
        (at the end of the game: the final disc differential)."""
        return final_differential(self._black, self._white, self.area)

    def winner(self) -> int | None:
        """At the end, the winner (1 or 2) or ``None`` for a draw; :class:`GameError`
        before the end."""
        r = self.returns()
        return BLACK if r[0] == 1.0 else WHITE if r[1] == 1.0 else None

    def flips(self, move: int) -> list[int]:
        """The squares ``move`` would flip for the side to move (``[]`` if illegal or a
        pass)."""
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < self.area:
            return []
        p, o = self._own()
        if (1 << move) & (p | o):
            return []
        return squares(self._geo.flips(p, o, move))

    def to_text(self) -> str:
        """The board as one line of n*n squares (``X``, ``O``, ``-``) and the side to move."""
        cells = []
        for i in range(self.area):
            bit = 1 << i
            cells.append("X" if self._black & bit else "O" if self._white & bit else "-")
        return "".join(cells) + (" X" if self._to_move == BLACK else " O")

    def render(self, marks: bool = True, last: int | None = None, flipped: Iterable[int] = ()) -> str:
        """The board as a grid with coordinates (``*`` marks the legal moves when
        ``marks``), then who is to move and the disc counts.  The square ``last`` is
        shown in brackets and the discs in ``flipped`` in lower case (a referee's view of
        the last move)."""
        n = self.n
        mob = self.move_mask() if marks else 0
        low = set(flipped)
        lines = ["   " + " ".join(chr(ord("a") + c) for c in range(n))]
        for r in range(n):
            # one separator before each square and one after the row: the last move's two
            # become brackets, so the columns stay aligned
            seps = [" "] * (n + 1)
            if last is not None and 0 <= last < self.area and last // n == r:
                seps[last % n], seps[last % n + 1] = "[", "]"
            row = []
            for c in range(n):
                sq = r * n + c
                bit = 1 << sq
                ch = ("X" if self._black & bit else "O" if self._white & bit
                      else "*" if mob & bit else "-")
                row.append(seps[c] + (ch.lower() if sq in low else ch))
            lines.append(f"{r + 1:>2}" + "".join(row) + seps[n].rstrip())
        b, w = self.discs()
        if self.is_terminal():
            d = self.disc_differential()
            result = "draw" if d == 0 else f"{'X' if d > 0 else 'O'} wins by {abs(d)}"
            lines.append(f"game over: {result} (X {b}, O {w})")
        else:
            side = "X (black)" if self._to_move == BLACK else "O (white)"
            lines.append(f"{side} to move (X {b}, O {w})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"ReversiState.from_text({self.to_text()!r})"
