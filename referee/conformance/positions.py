"""Tactical test positions for ``referee check``, built for any board size and win length.

Every position is validated with :mod:`engine.mnk.board.rules` before use, so a check
never asks for a move that is not the unique answer.  Stones are
``(x, y, f)`` with ``f`` 1 = the engine's own stone, 2 = the opponent's, as in
a ``BOARD`` block; the engine is always the side to move with equal stone
counts (it plays first).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.mnk.board.rules import Board, GameConfig, Player

__all__ = ["Position", "move_order", "win_in_one", "block_four", "win_length_probe"]

Stone = tuple[int, int, int]


@dataclass(frozen=True)
class Position:
    """Stones of a BOARD block and the cells a correct engine must choose from."""

    stones: tuple[Stone, ...]
    answers: tuple[tuple[int, int], ...]
    why: str

    def block(self) -> list[str]:
        """The ``BOARD`` ... ``DONE`` lines, stones in a possible move order (see :func:`move_order`)."""
        return ["BOARD", *(f"{x},{y},{f}" for x, y, f in move_order(self.stones)), "DONE"]


def move_order(stones) -> list[Stone]:
    """The stones alternating between the sides, the side with more stones (else the engine's) first,
    so the last one is the opponent's.

    Any order is valid under gomoku rules, but some engines (Wine) ignore the
    colour field and assume move order; the tactics checks should test
    tactics, and ``board-any-order`` tests the ordering on its own.
    """
    own = [s for s in stones if s[2] == 1]
    opp = [s for s in stones if s[2] != 1]
    first, second = (own, opp) if len(own) >= len(opp) else (opp, own)
    out: list[Stone] = []
    for i in range(max(len(first), len(second))):
        out.extend(first[i:i + 1] + second[i:i + 1])
    return out


def _board(cfg: GameConfig, stones) -> Board:
    # The engine's stones are 1; with equal counts it is the first player, to move.
    return Board.from_stones(cfg, [(x, y, Player.FIRST if f == 1 else Player.SECOND) for x, y, f in stones])


def _wins(board: Board, who: int) -> set[tuple[int, int]]:
    cfg = board.config
    return {cfg.xy(m) for m in board.winning_cells(Player.FIRST if who == 1 else Player.SECOND)}


def _scatter(cfg: GameConfig, taken: set[tuple[int, int]], n: int, keep_away: set[tuple[int, int]]):
    """``n`` cells far (Chebyshev distance >= 3) from each other and from ``keep_away``, scanning from the top."""
    out: list[tuple[int, int]] = []
    for y in range(cfg.height):
        for x in range(cfg.width):
            if len(out) == n:
                return out
            if (x, y) in taken:
                continue
            if any(max(abs(x - a), abs(y - b)) < 3 for a, b in (*out, *keep_away)):
                continue
            out.append((x, y))
    if len(out) < n:
        raise ValueError(f"a {cfg.width}x{cfg.height} board has no room for this position")
    return out


def _line(start: tuple[int, int], step: tuple[int, int], n: int) -> list[tuple[int, int]]:
    return [(start[0] + i * step[0], start[1] + i * step[1]) for i in range(n)]


def _four_with_one_end(cfg: GameConfig, who: int, step: tuple[int, int]) -> tuple[list[Stone], tuple[int, int]]:
    """``win_length - 1`` stones of ``who`` in a line through the centre, blocked at one end by the
    other side; returns the stones and the single completing cell."""
    k = cfg.win_length
    dx, dy = step
    # Centre the run of k cells (k-1 stones + the completing cell) on the board.
    sx = (cfg.width - (k if dx else 1)) // 2  # steps used: (1, 0) and (1, 1)
    sy = (cfg.height - (k if dy else 1)) // 2
    run = _line((sx, sy), step, k)
    blocker = (sx - dx, sy - dy)
    cells = [*run, blocker]
    if not all(cfg.on_board(x, y) for x, y in cells):
        raise ValueError(f"a {cfg.width}x{cfg.height} board is too small for a {k}-line")
    other = 3 - who
    return [(x, y, who) for x, y in run[:-1]] + [(blocker[0], blocker[1], other)], run[-1]


def _balanced(cfg: GameConfig, stones: list[Stone], keep_away: set[tuple[int, int]]) -> list[Stone]:
    """Add scattered stones so both sides have as many (the engine, side 1, moves first)."""
    own = sum(1 for s in stones if s[2] == 1)
    opp = len(stones) - own
    taken = {(x, y) for x, y, _ in stones}
    need_side = 1 if own < opp else 2
    extra = _scatter(cfg, taken, abs(own - opp), keep_away | taken)
    return stones + [(x, y, need_side) for x, y in extra]


def win_in_one(cfg: GameConfig) -> Position:
    """The engine has ``K-1`` in a row (one end blocked) and exactly one winning cell; no threats against it."""
    stones, win = _four_with_one_end(cfg, 1, (1, 0))
    stones = _balanced(cfg, stones, {win})
    b = _board(cfg, stones)
    if _wins(b, 1) != {win} or _wins(b, 2):
        raise ValueError("could not build a clean win-in-one position on this board")
    return Position(tuple(stones), (win,), f"the only winning cell is {win[0]},{win[1]}")


def block_four(cfg: GameConfig) -> Position:
    """The opponent has ``K-1`` on a diagonal with one winning cell; the engine has no win: block it."""
    stones, threat = _four_with_one_end(cfg, 2, (1, 1))
    stones = _balanced(cfg, stones, {threat})
    b = _board(cfg, stones)
    if _wins(b, 2) != {threat} or _wins(b, 1):
        raise ValueError("could not build a clean blocking position on this board")
    return Position(tuple(stones), (threat,), f"the opponent's only winning cell is {threat[0]},{threat[1]}")


@dataclass(frozen=True)
class Probe:
    """Detection position for the ``win_length`` extension.

    Under ``win_length = k`` the engine wins at :attr:`win` (its only win);
    under the default 5 it has no win and must block the opponent's broken
    five at :attr:`block` (the opponent's only win).  So the reply tells
    which rule the engine plays by.
    """

    position: Position
    win: tuple[int, int]
    block: tuple[int, int]


def win_length_probe(width: int, height: int, k: int) -> Probe:
    """A :class:`Probe` for ``k`` in 3..4 on a ``width`` x ``height`` board (ValueError if impossible)."""
    if k not in (3, 4):
        raise ValueError("the win_length probe works for win lengths 3 and 4 only")
    ck = GameConfig(width, height, k)
    c5 = GameConfig(width, height, 5)
    # Own k-1 stones in a column, blocked on top; opponent XX_XX in a row below them.
    x0 = width // 2
    y0 = max(1, height // 2 - k)
    own = _line((x0, y0), (0, 1), k - 1)
    win = (x0, y0 + k - 1)
    blocker = (x0, y0 - 1)
    yb = y0 + k + 1
    a = max(0, x0 - 2)
    opp_row = [(a, yb), (a + 1, yb), (a + 3, yb), (a + 4, yb)]
    block = (a + 2, yb)
    cells = [*own, win, blocker, *opp_row, block]
    if not all(ck.on_board(x, y) for x, y in cells) or len(set(cells)) != len(cells):
        raise ValueError(f"a {width}x{height} board is too small for the win_length probe")
    stones: list[Stone] = [(x, y, 1) for x, y in own] + [(*blocker, 2)] + [(x, y, 2) for x, y in opp_row]
    stones = _balanced(ck, stones, {win, block})
    bk, b5 = _board(ck, stones), _board(c5, stones)
    if _wins(bk, 1) != {win} or _wins(b5, 1) or _wins(b5, 2) != {block}:
        raise ValueError("could not build a clean win_length probe on this board")
    pos = Position(tuple(stones), (win,), f"with win_length {k} the only win is {win[0]},{win[1]}; "
                                         f"with 5 the only defence is {block[0]},{block[1]}")
    return Probe(pos, win, block)
