"""The renju checks of ``referee check --renju`` (Gomocup ``INFO rule 4``), in their own registry
:data:`RENJU_GROUPS`: engines that play only gomoku are not judged by them unless asked.

Each position is checked with :mod:`engine.mnk.board.rules` before use: the forbidden point is
forbidden, the five is allowed and the only win, white's four leaves black only a forbidden
block.  The engine's answer is judged by the same rules.
"""

from __future__ import annotations

from engine.game import GameError
from engine.mnk.board.rules import Board, GameConfig, Player, Rule
from referee.conformance.context import Ctx, Fail, Group, Skip, cell_text, check
from referee.conformance.positions import Position
from referee.conformance.session import Cells

__all__ = ["RENJU_GROUPS", "avoid_forbidden", "five_over_double_four", "force_onto_forbidden", "renju_forbidden"]

RENJU_GROUPS: list[Group] = []
RENJU = GameConfig(15, 15, 5, Rule.RENJU)

Stone = tuple[int, int, int]


def _board(stones: list[Stone], engine: Player) -> Board:
    """The position with the engine's stones (field 1) of colour ``engine``, the engine to move."""
    other = engine.other
    return Board.from_stones(RENJU, [(x, y, engine if f == 1 else other) for x, y, f in stones], engine)


def _renju_order(stones: list[Stone], engine: Player) -> tuple[Stone, ...]:
    """Black's and white's stones alternating, black first: renju positions come in move order."""
    black = [s for s in stones if (s[2] == 1) == (engine is Player.FIRST)]
    white = [s for s in stones if s not in black]
    out: list[Stone] = []
    for i in range(len(black)):
        out.extend(black[i:i + 1] + white[i:i + 1])
    return tuple(out)


def avoid_forbidden() -> tuple[Position, tuple[int, int]]:
    """GomocupJudge's renju test (h8 h9 i7 i9 h10 i6 i11 i12), the engine black to move:
    g9 = 6,8 makes two open threes on the diagonals.  Any move but the forbidden ones is
    right; returns the position (its answers: every allowed empty cell) and the point."""
    moves = [(7, 7), (7, 8), (8, 6), (8, 8), (7, 9), (8, 5), (8, 10), (8, 11)]
    stones = [(x, y, 1 if i % 2 == 0 else 2) for i, (x, y) in enumerate(moves)]
    board = _board(stones, Player.FIRST)
    point = (6, 8)
    assert board.forbidden(RENJU.move(*point)) == "double three"
    answers = tuple(RENJU.xy(m) for m in board.legal_moves())
    return Position(tuple(stones), answers, "6,8 is a double three, forbidden for black"), point


def five_over_double_four() -> Position:
    """The engine black: 7,7 makes five on row 7 and fours on column 7 and the diagonal (a
    double four, were it not for the five, which comes first).  The only win in one."""
    black = [(3, 7), (4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6), (4, 4), (5, 5), (6, 6)]
    white = [(2, 7), (0, 0), (14, 0), (0, 14), (14, 14), (0, 2), (2, 0), (12, 0), (0, 12), (14, 12)]
    stones = [(x, y, 1) for x, y in black] + [(x, y, 2) for x, y in white]
    board = _board(stones, Player.FIRST)
    wins = [RENJU.xy(m) for m in board.winning_cells(Player.FIRST)]
    assert wins == [(7, 7)] and board.forbidden(RENJU.move(7, 7)) is None
    # Without the row's first stone there is no five, and 7,7 is a double four.
    short = _board([s for s in stones if s[:2] != (3, 7)], Player.FIRST)
    assert short.forbidden(RENJU.move(7, 7)) == "double four"
    return Position(_renju_order(stones, Player.FIRST), ((7, 7),),
                    "7,7 makes five (and a double four, which the five overrides)")


def force_onto_forbidden() -> Position:
    """The engine white: black has a double-three point at 7,7 and white's diagonal through it
    is closed by black at 6,6 and 12,12; white's 11,11 makes a four whose only block is 7,7,
    forbidden for black, so it wins."""
    black = [(5, 7), (6, 7), (7, 5), (7, 6), (6, 6), (12, 12)]
    white = [(8, 8), (9, 9), (10, 10), (0, 0), (14, 0)]
    stones = [(x, y, 2) for x, y in black] + [(x, y, 1) for x, y in white]
    board = _board(stones, Player.SECOND)
    assert board.forbidden(RENJU.move(7, 7)) == "double three"
    board.apply(RENJU.move(11, 11))
    assert board.winning_cells(Player.SECOND) == [RENJU.move(7, 7)]
    return Position(_renju_order(stones, Player.SECOND), ((11, 11),),
                    "11,11 makes a four that black can only block on its forbidden 7,7")


def renju_forbidden(cells: Cells, mv: tuple[int, int], mover: int) -> str | None:
    """Why the move ``mv`` of the side whose stones ``cells`` values ``mover`` (1 the engine, 2
    its opponent; 3 marks a blocked cell) is a forbidden point under renju, or ``None``.  The
    mover is black when it has as many stones as the other side (black moves first)."""
    stones = cells.stones
    if not cells.on_board(*mv) or mv in stones:
        return None
    if sum(1 for v in stones.values() if v == mover) != sum(1 for v in stones.values() if v == 3 - mover):
        return None
    try:
        board = Board(GameConfig(cells.width, cells.height, 5, Rule.RENJU))
    except GameError:
        return None  # no renju on this board: the engine should have refused it
    cfg = board.config
    for (x, y), v in stones.items():
        if cfg.on_board(x, y):
            if v == 3:
                board.block(cfg.move(x, y))
            else:
                board.place(cfg.move(x, y), 1 if v == mover else 2)  # the mover is black
    return board.forbidden(cfg.move(*mv))


def _needs_board(ctx: Ctx) -> None:
    if (ctx.o.width, ctx.o.height) != (15, 15) or ctx.o.win_length != 5:
        raise Skip("the renju checks use 15x15 with five in a row")


def _renju_game(ctx: Ctx) -> None:
    ctx.new_game(extra_info=("INFO rule 4",))


def _answer(ctx: Ctx, pos: Position, expected: str) -> tuple[int, int]:
    """Send ``pos`` under renju; the reply must be one of its answers (ERROR: renju unsupported)."""
    ctx.cells.reset()
    for x, y, f in pos.stones:
        ctx.cells.stones[(x, y)] = f
    ctx.send("BOARD", *(f"{x},{y},{f}" for x, y, f in pos.stones), "DONE")
    line = ctx.reply(ctx.o.move_timeout_s, "a legal move")
    if line.startswith("ERROR"):
        raise Fail(repr(line), f"{expected} (the engine refused renju)")
    mv, why = ctx.cells.judge(line)
    if mv is None:
        raise Fail(f"{line!r}: {why}", "a legal move")
    if mv not in pos.answers:
        raise Fail(cell_text(mv), f"{expected}: {pos.why}")
    return mv


@check("renju", "renju-avoid-forbidden",
       "INFO rule 4, GomocupJudge's renju position (black to move): any legal move, never the forbidden 6,8",
       RENJU_GROUPS)
def c_avoid(ctx: Ctx) -> str:
    _needs_board(ctx)
    pos, point = avoid_forbidden()
    _renju_game(ctx)
    mv = _answer(ctx, pos, f"a legal move, not {cell_text(point)}")
    ctx.facts["renju"] = True
    return f"{cell_text(mv)} (not the forbidden {cell_text(point)})"


@check("renju", "renju-five-first", "as black: a five that also makes a double four is played (it wins)",
       RENJU_GROUPS)
def c_five(ctx: Ctx) -> str:
    _needs_board(ctx)
    _renju_game(ctx)
    return f"{cell_text(_answer(ctx, five_over_double_four(), 'the five'))} (wins)"


@check("renju", "renju-forced-forbidden",
       "as white: the four whose only block is black's forbidden point is played (it wins)", RENJU_GROUPS)
def c_force(ctx: Ctx) -> str:
    _needs_board(ctx)
    _renju_game(ctx)
    return f"{cell_text(_answer(ctx, force_onto_forbidden(), 'the winning four'))} (wins)"
