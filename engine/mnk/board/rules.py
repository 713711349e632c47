"""Rules of the m,n,k game family: board geometry, variants, win detection.

Coordinates: ``x`` is the column (0 = left), ``y`` the row (0 = top), as in the
Gomocup protocol.  Publicly a move is a plain ``int``, ``y * width + x``
("compact index"); :class:`GameConfig` converts between the two.

Internally the board is a flat list with a one-cell sentinel border
(:data:`BORDER`), so walking along a line from the last move stops at the edge
without any bounds test.  The padded stride is ``width + 1``: the single extra
column on the right of each row is also the left neighbour of the next row.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ...game import GameError
from .renju import allowed_cells, forbidden_reason

EMPTY = 0
BORDER = 3

MIN_SIDE = 3
MAX_SIDE = 64
MIN_WIN_LENGTH = 2
#: Renju is five in a row and nothing else.
RENJU_WIN_LENGTH = 5


class Player(enum.IntEnum):
    """The two sides.  ``FIRST`` made the first move of the game."""

    FIRST = 1
    SECOND = 2

    @property
    def other(self) -> "Player":
        return Player(3 - self)


class Rule(enum.Enum):
    """Winning-line variants.

    - ``FREESTYLE``: K or more in a row wins.
    - ``EXACT``: exactly K in a row wins; a longer run (an overline) does not.
    - ``CARO``: like freestyle, except that a run of exactly K whose cells
      just beyond both ends hold opponent stones does not win.  The board edge
      is not a block.
    - ``RENJU``: five in a row only (K = 5).  The first player (black) wins with
      exactly five and may not play a forbidden point (an overline, a double four
      or a double three: :mod:`engine.mnk.board.renju`) unless the move makes a five; the
      second player (white) wins with five or more and has no restriction.
    """

    FREESTYLE = "freestyle"
    EXACT = "exact"
    CARO = "caro"
    RENJU = "renju"

    @property
    def gomocup_bits(self) -> int:
        """The Gomocup ``INFO rule`` bitmask for this variant."""
        return {Rule.FREESTYLE: 0, Rule.EXACT: 1, Rule.CARO: 8, Rule.RENJU: 4}[self]

    @classmethod
    def from_gomocup_bits(cls, bits: int) -> "Rule":
        """Map a Gomocup ``INFO rule`` bitmask to a variant.

        Bit 2 (continuous game) does not change the winning condition and is
        ignored -- except that the value 2 alone is renju: the Yixin protocol (Yixin-Board,
        Yixin, Rapfi) dropped continuous games and sends ``INFO rule 2`` for renju.  Bit 4
        is renju, which already holds black to exactly five, so bit 1 beside it changes
        nothing; renju with caro (bit 8) is refused with ``GameError`` (a ``ValueError``),
        never played silently as another rule.
        """
        if bits < 0:
            raise GameError(f"rule bitmask must be >= 0, got {bits}")
        if bits == 2:
            return cls.RENJU
        exact, caro = bool(bits & 1), bool(bits & 8)
        if bits & 4:
            if caro:
                raise GameError("rule bits 4 (renju) and 8 (caro) together are not supported")
            return cls.RENJU
        if exact and caro:
            raise GameError("rule bits 1 (exact) and 8 (caro) together are not supported")
        if caro:
            return cls.CARO
        return cls.EXACT if exact else cls.FREESTYLE

    @classmethod
    def parse(cls, text: str) -> "Rule":
        """Accept a name (``freestyle``/``exact``/``caro``/``renju``) or a Gomocup bitmask."""
        t = text.strip().lower()
        if t.lstrip("-").isdigit():
            return cls.from_gomocup_bits(int(t))
        for rule in cls:
            if rule.value == t:
                return rule
        raise GameError(f"unknown rule {text!r}: use freestyle, exact, caro, renju or a Gomocup bitmask")


@dataclass(frozen=True)
class GameConfig:
    """Board size, win length and rule variant of one game.

    Raises ``GameError`` (a ``ValueError``) naming the allowed range when a value is outside it.
    """

    width: int = 15
    height: int = 15
    win_length: int = 5
    rule: Rule = Rule.FREESTYLE
    # Derived geometry, filled in __post_init__.
    stride: int = field(init=False, repr=False, compare=False)
    directions: tuple[int, int, int, int] = field(init=False, repr=False, compare=False)
    #: The padded index of every compact move (``pad[m] == padded(m)``).
    pad: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, side in (("width", self.width), ("height", self.height)):
            if not isinstance(side, int) or not MIN_SIDE <= side <= MAX_SIDE:
                raise GameError(f"board {name} must be in {MIN_SIDE}..{MAX_SIDE}, got {side!r}")
        longest = max(self.width, self.height)
        if not isinstance(self.win_length, int) or not MIN_WIN_LENGTH <= self.win_length <= longest:
            raise GameError(
                f"win length must be in {MIN_WIN_LENGTH}..{longest} for a "
                f"{self.width}x{self.height} board, got {self.win_length!r}"
            )
        if not isinstance(self.rule, Rule):
            raise GameError(f"rule must be a Rule, got {self.rule!r}")
        if self.rule is Rule.RENJU:
            # The forbidden shapes (fours, threes, overlines) are defined for five in a row.
            if self.win_length != RENJU_WIN_LENGTH:
                raise GameError(f"renju is played with five in a row: win length must be "
                                f"{RENJU_WIN_LENGTH}, got {self.win_length}")
            if min(self.width, self.height) < RENJU_WIN_LENGTH:
                raise GameError(f"renju needs a board of at least {RENJU_WIN_LENGTH}x{RENJU_WIN_LENGTH}, "
                                f"got {self.width}x{self.height}")
        stride = self.width + 1
        object.__setattr__(self, "stride", stride)
        object.__setattr__(self, "directions", (1, stride, stride + 1, stride - 1))
        object.__setattr__(self, "pad", tuple((m // self.width + 1) * stride + m % self.width
                                              for m in range(self.width * self.height)))

    @classmethod
    def square(cls, size: int, win_length: int = 5, rule: Rule = Rule.FREESTYLE) -> "GameConfig":
        return cls(size, size, win_length, rule)

    @property
    def area(self) -> int:
        return self.width * self.height

    @property
    def label(self) -> str:
        """Short name such as ``15x15k5`` (``-exact``/``-caro``/``-renju`` appended for variants)."""
        base = f"{self.width}x{self.height}k{self.win_length}"
        return base if self.rule is Rule.FREESTYLE else f"{base}-{self.rule.value}"

    # Coordinate conversions -------------------------------------------------
    def move(self, x: int, y: int) -> int:
        """Compact move index of (x, y); ``GameError`` (a ``ValueError``) when off the board."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise GameError(f"{x},{y} is off the {self.width}x{self.height} board")
        return y * self.width + x

    def xy(self, move: int) -> tuple[int, int]:
        """(x, y) of a compact move index."""
        return move % self.width, move // self.width

    def on_board(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def padded(self, move: int) -> int:
        """Padded (sentinel-bordered) index of a compact move."""
        y, x = divmod(move, self.width)
        return (y + 1) * self.stride + x

    def unpadded(self, cell: int) -> int:
        """Compact move of a padded index (which must be an on-board cell)."""
        row, x = divmod(cell, self.stride)
        return (row - 1) * self.width + x

    @property
    def padded_size(self) -> int:
        return (self.height + 2) * self.stride + 1


def run_through(cells: Sequence[int], cell: int, player: int, d: int) -> tuple[int, int, int]:
    """``(run, lo, hi)``: the length of ``player``'s run through the padded ``cell`` along
    direction ``d`` (``cell`` counted as ``player``'s whatever it holds), and the padded
    cells just beyond its two ends."""
    lo = cell - d
    while cells[lo] == player:
        lo -= d
    hi = cell + d
    while cells[hi] == player:
        hi += d
    return (hi - lo) // d - 1, lo, hi


def line_wins(config: GameConfig, run: int, before: int, after: int, player: int) -> bool:
    """The winning-line rule, in one place: does a maximal run of ``run`` stones of
    ``player`` win, the cells just beyond its ends holding ``before`` and ``after``?

    Freestyle: K or more.  Exact: exactly K.  Caro: K or more, except a run of exactly K
    with opponent stones just beyond both ends (the board edge is not a block).  Renju:
    exactly K for the first player (black), K or more for the second (white).
    """
    k = config.win_length
    if run < k:
        return False
    rule = config.rule
    if rule is Rule.FREESTYLE:
        return True
    if rule is Rule.EXACT:
        return run == k
    if rule is Rule.RENJU:
        return run == k or player == 2
    opponent = 3 - player
    return run > k or not (before == opponent and after == opponent)


def run_wins(config: GameConfig, cells: Sequence[int], cell: int, player: int) -> bool:
    """True when the stone of ``player`` at padded ``cell`` is part of a winning line.

    ``cells`` is the padded board (a stone of ``player`` must already be at
    ``cell``).  Only the four lines through ``cell`` are examined, so this is
    the win test for the last move.
    """
    k = config.win_length
    for d in config.directions:
        lo = cell - d
        while cells[lo] == player:
            lo -= d
        hi = cell + d
        while cells[hi] == player:
            hi += d
        run = (hi - lo) // d - 1  # inlined run_through: this is the hot path of every move
        if run >= k and line_wins(config, run, cells[lo], cells[hi], player):
            return True
    return False


def winning_line(board: "Board", move: int) -> list[int]:
    """The stones of every winning line through the stone at ``move``, as sorted compact moves.

    Empty when that stone is part of no winning line (or the cell is empty).
    Under the freestyle rule an overline is returned whole; a move that
    completes two lines at once gives the stones of both.  Meant for showing
    the end of a game, e.g. ``winning_line(board, board.history[-1])``.
    """
    cfg = board.config
    cells = board.cells
    cell = cfg.padded(move)
    player = cells[cell]
    if player not in (1, 2):
        return []
    out: set[int] = set()
    for d in cfg.directions:
        run, lo, hi = run_through(cells, cell, player, d)
        if line_wins(cfg, run, cells[lo], cells[hi], player):
            out.update(cfg.unpadded(c) for c in range(lo + d, hi, d))
    return sorted(out)


_OTHER = (None, Player.SECOND, Player.FIRST)  # indexed by the int of the player who just moved
_PLAYER = (None, Player.FIRST, Player.SECOND)


class Board:
    """A mutable m,n,k position: stones, side to move, move history and result.

    It is the m,n,k game's state for the search (the interface of
    :class:`engine.game.GameState`: ``apply``/``undo``/``legal_moves``/...) as well as
    the referee's and the protocol's board.  ``apply``/``undo`` are O(1) apart from the
    win test through the last move.  ``winner`` is set when the last move completed a
    line; ``is_over`` is true after a win or when the board is full (a draw).  Cells
    hold plain ints (0 empty, 1 and 2 the players, :data:`BORDER` off the board or
    blocked).
    """

    __slots__ = ("config", "cells", "to_move", "history", "winner", "_empty_count")

    def __init__(self, config: GameConfig, to_move: Player = Player.FIRST) -> None:
        self.config = config
        cells = [BORDER] * config.padded_size
        for y in range(config.height):
            base = (y + 1) * config.stride
            for x in range(config.width):
                cells[base + x] = EMPTY
        self.cells: list[int] = cells
        self.to_move: Player = Player(to_move)
        self.history: list[int] = []
        self.winner: Player | None = None
        self._empty_count = config.area

    # Queries ------------------------------------------------------------------
    def __getitem__(self, move: int) -> int:
        """Stone at a compact move index: 0 empty, 1 or 2 a player."""
        return self.cells[self.config.padded(move)]

    def at(self, x: int, y: int) -> int:
        return self.cells[self.config.padded(self.config.move(x, y))]

    def is_empty(self, move: int) -> bool:
        return 0 <= move < self.config.area and self.cells[self.config.padded(move)] == EMPTY

    @property
    def empty_count(self) -> int:
        return self._empty_count

    @property
    def stone_count(self) -> int:
        return self.config.area - self._empty_count

    @property
    def is_full(self) -> bool:
        return self._empty_count == 0

    @property
    def is_over(self) -> bool:
        return self.winner is not None or self._empty_count == 0

    def legal_moves(self) -> list[int]:
        """All empty cells as compact indices, in index order (none once the game is over);
        under renju, black's forbidden points are left out."""
        if self.is_over:
            return []
        cfg = self.config
        cells = self.cells
        pad = cfg.pad
        moves = [m for m in range(cfg.area) if cells[pad[m]] == EMPTY]
        if cfg.rule is Rule.RENJU and self.to_move is Player.FIRST:
            ok = set(allowed_cells(cells, [pad[m] for m in moves], cfg.directions))
            moves = [m for m in moves if pad[m] in ok]
        return moves

    def forbidden(self, move: int) -> str | None:
        """Why the first player (black) may not play the empty cell ``move`` under renju:
        ``"overline"``, ``"double four"`` or ``"double three"``; ``None`` when it may (always
        under the other rules, and for a move that makes a five)."""
        cfg = self.config
        if cfg.rule is not Rule.RENJU or not self.is_empty(move):
            return None
        return forbidden_reason(self.cells, cfg.pad[move], cfg.directions)

    def forbidden_moves(self) -> list[int]:
        """Every empty cell that is a forbidden point for black (renju), in index order,
        whoever is to move."""
        cfg = self.config
        if cfg.rule is not Rule.RENJU:
            return []
        cells, pad = self.cells, cfg.pad
        empty = [m for m in range(cfg.area) if cells[pad[m]] == EMPTY]
        ok = set(allowed_cells(cells, [pad[m] for m in empty], cfg.directions))
        return [m for m in empty if pad[m] not in ok]

    def stones(self) -> list[tuple[int, int, Player]]:
        """(x, y, player) of every stone, in index order."""
        cfg = self.config
        out = []
        for m in range(cfg.area):
            v = self.cells[cfg.padded(m)]
            if v in (1, 2):
                x, y = cfg.xy(m)
                out.append((x, y, Player(v)))
        return out

    def to_array(self):
        """The stones as a ``numpy`` int8 array of shape (height, width)."""
        import numpy as np

        cfg = self.config
        a = np.asarray(self.cells[cfg.stride : cfg.stride * (cfg.height + 1)], dtype=np.int8)
        return a.reshape(cfg.height, cfg.stride)[:, : cfg.width].copy()

    # Moves ----------------------------------------------------------------------
    def apply(self, move: int) -> None:
        """Play ``move`` for the side to move (the game interface's ``apply``).

        Raises :class:`GameError` for an off-board, occupied or blocked cell, for black's
        forbidden point under renju (the message names the reason) and after the game is
        won; then nothing changes.  The win test runs through ``move`` only.
        """
        # The search calls this on every step of every descent: kept lean on purpose.
        if self.winner is not None:
            raise GameError("the game is already won")
        cfg = self.config
        pad = cfg.pad
        if move < 0 or move >= len(pad):
            raise GameError(f"move {move!r} is off the {cfg.width}x{cfg.height} board")
        cell = pad[move]
        cells = self.cells
        if cells[cell] != EMPTY:
            x, y = cfg.xy(move)
            raise GameError(f"{x},{y} is {'occupied' if cells[cell] != BORDER else 'blocked'}")
        player = self.to_move
        p = 1 if player is Player.FIRST else 2
        if p == 1 and cfg.rule is Rule.RENJU:
            why = forbidden_reason(cells, cell, cfg.directions)
            if why is not None:
                x, y = cfg.xy(move)
                raise GameError(f"{x},{y} is forbidden for black: {why}")
        cells[cell] = p
        self.history.append(move)
        self._empty_count -= 1
        self.to_move = _OTHER[p]
        if run_wins(cfg, cells, cell, p):
            self.winner = player

    def push(self, move: int) -> None:
        """Play a move known to be legal, in a game known not to be over, without the checks
        and without the win test (``winner`` is not updated): the search's hot path, where
        the oracle judges each new position (:mod:`engine.mnk.playouts.oracle`).  Undone by :meth:`undo`."""
        p = 1 if self.to_move is Player.FIRST else 2
        self.cells[self.config.pad[move]] = p
        self.history.append(move)
        self._empty_count -= 1
        self.to_move = _OTHER[p]

    def play(self, move: int) -> Player | None:
        """:meth:`apply`, returning the winner if this move won."""
        self.apply(move)
        return self.winner

    def undo(self) -> int:
        """Take back the last move; return it."""
        if not self.history:
            raise GameError("no move to take back")
        move = self.history.pop()
        cell = self.config.pad[move]
        self.to_move = _PLAYER[self.cells[cell]]
        self.cells[cell] = EMPTY
        self._empty_count += 1
        self.winner = None
        return move

    def remove(self, move: int) -> None:
        """Remove any stone (TAKEBACK of a move that is not the last one in history).

        The side to move becomes the owner of the removed stone.
        """
        cfg = self.config
        if not 0 <= move < cfg.area or self.cells[cfg.padded(move)] not in (1, 2):
            raise GameError("no stone there")
        if self.history and self.history[-1] == move:
            self.undo()
            return
        cell = cfg.padded(move)
        self.to_move = Player(self.cells[cell])
        self.cells[cell] = EMPTY
        if move in self.history:
            self.history.remove(move)
        self._empty_count += 1
        self.winner = None

    def place(self, move: int, player: int) -> None:
        """Put a stone of ``player`` on an empty cell, with no win test and no change of turn.

        For setting up positions (``from_stones``, protocol BOARD blocks); the move is
        appended to ``history`` so it can be taken back.
        """
        cfg = self.config
        if player not in (1, 2):
            raise GameError(f"player must be 1 or 2, got {player!r}")
        cell = cfg.padded(move)
        if not 0 <= move < cfg.area or self.cells[cell] != EMPTY:
            raise GameError("a stone can only be placed on an empty on-board cell")
        self.cells[cell] = int(player)
        self.history.append(move)
        self._empty_count -= 1

    def block(self, move: int) -> None:
        """Make an empty cell unplayable and line-breaking, like the board edge.

        Used for BOARD field 3 (a stone of an already-finished line in continuous games).
        """
        cfg = self.config
        if not 0 <= move < cfg.area or self.cells[cfg.padded(move)] != EMPTY:
            raise GameError("only an empty on-board cell can be blocked")
        self.cells[cfg.padded(move)] = BORDER
        self._empty_count -= 1

    def copy(self) -> "Board":
        b = Board.__new__(Board)
        b.config = self.config
        b.cells = self.cells.copy()
        b.to_move = self.to_move
        b.history = self.history.copy()
        b.winner = self.winner
        b._empty_count = self._empty_count
        return b

    # The rest of the game interface (engine.game.GameState) ---------------------------
    def clone(self) -> "Board":
        """An independent copy (:meth:`copy`)."""
        return self.copy()

    def is_terminal(self) -> bool:
        """Is the game over (a line completed, or the board full)?"""
        return self.winner is not None or self._empty_count == 0

    def returns(self) -> tuple[float, float]:
        """Scores of the first and second player: 1 a win, 0.5 a draw (also unfinished), 0 a loss."""
        if self.winner is None:
            return (0.5, 0.5)
        return (1.0, 0.0) if self.winner == Player.FIRST else (0.0, 1.0)

    def key(self) -> tuple[bytes, int]:
        """The stones (blocked cells included) and the side to move."""
        return bytes(self.cells), int(self.to_move)

    def move_to_text(self, move: int) -> str:
        """``x,y`` as the Gomocup protocol writes it."""
        x, y = self.config.xy(move)
        return f"{x},{y}"

    def text_to_move(self, text: str) -> int:
        """A move from ``x,y`` (or ``x y``); :class:`GameError` when malformed or off the board."""
        parts = text.replace(",", " ").split()
        if len(parts) != 2 or not all(p.lstrip("-").isdigit() for p in parts):
            raise GameError(f"want x,y, got {text!r}")
        return self.config.move(int(parts[0]), int(parts[1]))

    def wins_if_played(self, move: int, player: Player) -> bool:
        """Would ``player`` complete a line by playing the empty cell ``move``?"""
        cell = self.config.padded(move)
        cells = self.cells
        cells[cell] = player
        try:
            return run_wins(self.config, cells, cell, player)
        finally:
            cells[cell] = EMPTY

    def winning_cells(self, player: Player) -> list[int]:
        """Every empty cell where ``player`` would complete a line now."""
        if self.winner is not None:
            return []
        cfg = self.config
        return [m for m in range(cfg.area) if self.cells[cfg.padded(m)] == EMPTY and self.wins_if_played(m, player)]

    def scan_winner(self) -> Player | None:
        """Winner found by testing every stone (slow; for validating positions)."""
        cfg = self.config
        for m in range(cfg.area):
            cell = cfg.padded(m)
            v = self.cells[cell]
            if v in (1, 2) and run_wins(cfg, self.cells, cell, v):
                return Player(v)
        return None

    # Construction -----------------------------------------------------------------
    @classmethod
    def from_stones(
        cls,
        config: GameConfig,
        stones: Iterable[tuple[int, int, int]],
        to_move: Player | None = None,
    ) -> "Board":
        """Build a position from ``(x, y, player)`` stones given in any order.

        The side to move is inferred when not given: with equal counts the first
        player moves, with one more first-player stone the second player does.
        Raises ``GameError`` (a ``ValueError``) for off-board or doubled cells, impossible stone
        counts, or a position where somebody has already won.
        """
        board = cls(config)
        counts = {Player.FIRST: 0, Player.SECOND: 0}
        for x, y, p in stones:
            if p not in (1, 2):
                raise GameError(f"stone at {x},{y}: player must be 1 or 2, got {p!r}")
            move = config.move(x, y)
            if board.cells[config.padded(move)] != EMPTY:
                raise GameError(f"two stones on {x},{y}")
            board.place(move, p)
            counts[Player(p)] += 1
        a, b = counts[Player.FIRST], counts[Player.SECOND]
        if to_move is None:
            if a == b:
                to_move = Player.FIRST
            elif a == b + 1:
                to_move = Player.SECOND
            else:
                raise GameError(f"impossible stone counts: {a} first-player, {b} second-player stones")
        else:
            to_move = Player(to_move)
            mover, waiter = counts[to_move], counts[to_move.other]
            if not (mover == waiter or mover + 1 == waiter):
                raise GameError(
                    f"impossible stone counts for {to_move.name} to move: {mover} against {waiter}"
                )
        board.to_move = to_move
        winner = board.scan_winner()
        if winner is not None:
            raise GameError(f"the game is already over: {winner.name} has a line")
        return board

    def __str__(self) -> str:
        return render(self)


def render(board: Board, last: int | None = None, marked: Iterable[int] = ()) -> str:
    """Text diagram: column numbers on top, row numbers on the left (0-based x, y);
    X is the first player, O the second, the ``last`` move and the ``marked``
    stones (e.g. a winning line) in lower case."""
    cfg = board.config
    marks = {EMPTY: ".", 1: "X", 2: "O"}
    low = set(marked)
    if last is not None:
        low.add(last)
    width = len(str(cfg.width - 1))
    head = " " * 3 + " ".join(f"{x:>{width}}" for x in range(cfg.width))
    lines = [head]
    for y in range(cfg.height):
        row = []
        for x in range(cfg.width):
            m = y * cfg.width + x
            ch = marks.get(board.cells[cfg.padded(m)], "#")
            if m in low:
                ch = ch.lower()
            row.append(f"{ch:>{width}}")
        lines.append(f"{y:>2} " + " ".join(row))
    return "\n".join(lines)
