"""The Yixin-Board checks of ``referee check --yixin`` (the Yixin protocol, the Gomocup
extension that Yixin-Board sends and Rapfi answers), in their own registry
:data:`YIXIN_GROUPS`: plain Gomocup engines are not judged by them unless asked.

Each check sends what the GUI sends for one of its actions, in its own lower case, and
judges the answer as the GUI needs it: the commands it sends in normal use get no
``ERROR``/``UNKNOWN``, an analysis command ends with a move (the GUI stays "thinking"
until one comes), ``YXBOARD`` then ``TURN`` is a move of the position's side to move,
``INFO rule 2`` is renju and ``YXSHOWFORBID`` lists black's forbidden points.
"""

from __future__ import annotations

from referee.conformance.context import Ctx, Fail, Group, Skip, cell_text, check
from referee.conformance.gomocup_renju_checks import avoid_forbidden
from referee.engines.gomocup_wire import parse_move

__all__ = ["YIXIN_GROUPS"]

YIXIN_GROUPS: list[Group] = []


def _needs_15(ctx: Ctx) -> None:
    if (ctx.o.width, ctx.o.height) != (15, 15) or ctx.o.win_length != 5:
        raise Skip("the Yixin-Board checks use 15x15 with five in a row, as the GUI does")


def _position(ctx: Ctx, stones: list[tuple[int, int, int]]) -> None:
    """``start`` and ``yxboard`` as the GUI sends them (field 1: the side to move); no answer."""
    ctx.ok("start 15")
    ctx.cells.reset()
    for x, y, f in stones:
        ctx.cells.stones[(x, y)] = f
    ctx.silent("yxboard", *(f"{x},{y},{f}" for x, y, f in stones), "done")


def _moves(ctx: Ctx, line: str, count: int) -> list[tuple[int, int]]:
    """The ``count`` legal moves of a reply line (``x,y`` or ``x,y x,y``), in order."""
    cells = [parse_move(w) for w in line.split()[:count]]
    if len(cells) != count or any(c is None for c in cells):
        raise Fail(repr(line), f"{count} move{'s' if count > 1 else ''} (x,y)")
    for mv in cells:
        if mv in ctx.cells.stones or not ctx.cells.on_board(*mv):
            raise Fail(f"{line!r}: {cell_text(mv)} is not an empty cell", "legal moves")
        ctx.cells.stones[mv] = 1
    return cells  # type: ignore[return-value]


def _think(ctx: Ctx, command: str, count: int = 1) -> list[tuple[int, int]]:
    ctx.send(command)
    line = ctx.reply(ctx.o.move_timeout_s, "a move (the GUI waits for one)")
    if line.startswith(("ERROR", "UNKNOWN")):
        raise Fail(repr(line), "a move (the GUI waits for one)")
    return _moves(ctx, line, count)


def _game(ctx: Ctx) -> None:
    _needs_15(ctx)
    ctx.new_game()


@check("yixin", "yixin-showinfo", "yxshowinfo: MESSAGE INFO MAX_THREAD_NUM n (the GUI's threads setting)",
       YIXIN_GROUPS)
def c_showinfo(ctx: Ctx) -> str:
    _game(ctx)
    ctx.send("yxshowinfo")
    w = ctx.s.reply(ctx.o.start_ms / 1000.0, lambda line: line.upper().startswith("MESSAGE INFO MAX_THREAD_NUM"))
    if w.line is None or not w.line.upper().startswith("MESSAGE"):
        raise Fail(w.describe(), "MESSAGE INFO MAX_THREAD_NUM n")
    return w.line.strip()


@check("yixin", "yixin-quiet",
       "the GUI's settings, hash and database lines (info caution_factor, yxhashclear, yxquerydatabaseallt "
       "... done, yxhashdump with its path): no reply but MESSAGE", YIXIN_GROUPS)
def c_quiet(ctx: Ctx) -> str:
    _game(ctx)
    lines = ["INFO caution_factor 1", "INFO hash_size 262144", "INFO pondering 0", "INFO vcthread 0",
             "info usedatabase 1", "info nbestsym 0", "INFO time_increment 0", "info start_depth 2",
             "yxhashclear", "yxquerydatabaseallt", "7,7", "8,8", "done", "yxhashdump", "/nonexistent/hash.dat",
             "yxblockreset"]
    ctx.silent(*lines)
    return f"{len(lines)} lines, no reply"


@check("yixin", "yixin-board-turn",
       "start 15, yxboard with 2 stones, done (no reply), then turn x,y: a move of the side to move, then "
       "the engine's legal move", YIXIN_GROUPS)
def c_board_turn(ctx: Ctx) -> str:
    _game(ctx)
    _position(ctx, [(7, 7, 1), (8, 8, 2)])
    ctx.cells.stones[(6, 6)] = 2
    mv = _moves(ctx, _send_for_move(ctx, "turn 6,6"), 1)[0]
    return cell_text(mv)


def _send_for_move(ctx: Ctx, command: str) -> str:
    ctx.send(command)
    return ctx.reply(ctx.o.move_timeout_s, "a legal move")


@check("yixin", "yixin-nbest", "yxnbest 3 on a yxboard position: a legal move within the turn", YIXIN_GROUPS)
def c_nbest(ctx: Ctx) -> str:
    _game(ctx)
    _position(ctx, [(7, 7, 2), (8, 8, 1), (8, 7, 2)])
    return cell_text(_think(ctx, "yxnbest 3")[0])


@check("yixin", "yixin-detail",
       "info show_detail 3, then yxnbest 2: INFO NUMPV 2 and INFO PV DONE streamed before the move",
       YIXIN_GROUPS)
def c_detail(ctx: Ctx) -> str:
    _game(ctx)
    ctx.send("info show_detail 3")
    _position(ctx, [(7, 7, 2)])
    ctx.key = "yxnbest 2"
    ctx.send("yxnbest 2")
    w = ctx.s.reply(ctx.o.move_timeout_s, lambda line: line.strip().upper() == "INFO NUMPV 2")
    if w.line is None or w.line.strip().upper() != "INFO NUMPV 2":
        raise Fail(w.describe(), "INFO NUMPV 2 before the move")
    w = ctx.s.reply(ctx.o.move_timeout_s, lambda line: line.strip().upper() == "INFO PV DONE")
    if w.line is None or w.line.strip().upper() != "INFO PV DONE":
        raise Fail(w.describe(), "INFO PV DONE before the move")
    line = ctx.reply(ctx.o.move_timeout_s, "a legal move")
    ctx.send("info show_detail 0")
    return f"INFO stream, then {cell_text(_moves(ctx, line, 1)[0])}"


@check("yixin", "yixin-defend", "yxsearchdefend against an open three (black 7..9,7): a block at 6,7 or 10,7",
       YIXIN_GROUPS)
def c_defend(ctx: Ctx) -> str:
    _game(ctx)
    _position(ctx, [(7, 7, 2), (7, 8, 1), (8, 7, 2), (8, 8, 1), (9, 7, 2)])
    mv = _think(ctx, "yxsearchdefend")[0]
    if mv not in ((6, 7), (10, 7)):
        raise Fail(cell_text(mv), "6,7 or 10,7 (the open three's ends)")
    return cell_text(mv)


@check("yixin", "yixin-balance", "yxbalanceone 0: one legal move; yxbalancetwo 0: two on one line",
       YIXIN_GROUPS)
def c_balance(ctx: Ctx) -> str:
    _game(ctx)
    _position(ctx, [(7, 7, 2)])
    one = _think(ctx, "yxbalanceone 0")
    _position(ctx, [(7, 7, 2)])
    two = _think(ctx, "yxbalancetwo 0", 2)
    return f"{cell_text(one[0])}; {cell_text(two[0])} {cell_text(two[1])}"


@check("yixin", "yixin-renju-forbid",
       "info rule 2 (renju), GomocupJudge's renju position: yxshowforbid answers FORBID 0608.", YIXIN_GROUPS)
def c_forbid(ctx: Ctx) -> str:
    _game(ctx)
    pos, point = avoid_forbidden()
    ctx.send("INFO rule 2")
    _position(ctx, list(pos.stones))
    ctx.key = "yxshowforbid"
    ctx.send("yxshowforbid")
    line = ctx.reply(ctx.o.start_ms / 1000.0, "FORBID ...")
    want = "FORBID %02d%02d." % point
    ctx.send("INFO rule 0")
    if line.strip().upper() != want:
        raise Fail(repr(line), want)
    return line.strip()
