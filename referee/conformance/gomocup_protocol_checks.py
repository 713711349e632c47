"""The Gomocup checks of the protocol itself: ABOUT, START/RECTSTART/RESTART, INFO, BEGIN/TURN/BOARD,
ERROR/UNKNOWN on bad input, CR LF line ends and TAKEBACK (registered on import)."""

from __future__ import annotations

import time

from engine.mnk.board.rules import GameConfig
from referee.conformance.context import FLOOD_LINES, Ctx, Fail, Options, Skip, cell_text, check
from referee.conformance.positions import Position, win_in_one
from referee.engines.gomocup_wire import parse_about


# ABOUT ---------------------------------------------------------------------------
def _about(ctx: Ctx) -> dict[str, str]:
    ctx.send("ABOUT")
    line = ctx.reply(ctx.o.start_ms / 1000.0, 'one line of key="value" pairs')
    pairs = parse_about(line, strict=True)
    if not pairs:
        raise Fail(repr(line), 'one line of key="value" pairs')
    ctx.facts["about"] = pairs
    return pairs


@check("about", "about-first", 'ABOUT as the first command: one line of key="value" pairs')
def c_about_first(ctx: Ctx) -> str:
    pairs = _about(ctx)
    return ", ".join(f"{k}={v!r}" for k, v in pairs.items())


@check("about", "about-name", 'the ABOUT line has a non-empty name="..."')
def c_about_name(ctx: Ctx) -> str:
    pairs = ctx.facts.get("about") or _about(ctx)
    if not pairs.get("name"):
        raise Fail("keys " + ", ".join(pairs), 'name="..." among the keys')
    return f"name={pairs['name']!r}"


@check("about", "about-after-start", 'START then ABOUT: OK, then one line of key="value" pairs')
def c_about_after_start(ctx: Ctx) -> str:
    ctx.new_game()
    pairs = _about(ctx)
    return f"OK, then {len(pairs)} pairs"


# START / RECTSTART / RESTART -------------------------------------------------------
@check("start", "start", "START <size> answered OK")
def c_start(ctx: Ctx) -> str:
    t0 = time.monotonic()
    ctx.new_game()
    ctx.key = ctx.sent[0]
    return f"OK in {(time.monotonic() - t0) * 1000:.0f} ms"


def _start_answer(ctx: Ctx, cmd: str, allowed: tuple[str, ...]) -> str:
    ctx.send(cmd)
    line = ctx.reply(ctx.o.start_ms / 1000.0, " or ".join(allowed))
    word = line.split()[0] if line.split() else ""
    if word not in allowed:
        raise Fail(f"{cmd} -> {line!r}", " or ".join(allowed))
    extra, _ = ctx.s.replies_within(ctx.o.quiet_ms / 1000.0)
    if len(extra) >= FLOOD_LINES:
        ctx.s.broken = True
        raise Fail(f"{cmd} -> {line!r}, then a flood of {len(extra)}+ lines", "one answer line")
    return word


@check("start", "start-other-sizes", "START 5/10/20/22/30: OK or ERROR each, then START <size> and a move still work")
def c_start_sizes(ctx: Ctx) -> str:
    seen = []
    ctx.key = "START 5|10|20|22|30"
    for n in (5, 10, 20, 22, 30):
        seen.append(f"{n}:{_start_answer(ctx, f'START {n}', ('OK', 'ERROR'))}")
    ctx.new_game()
    mv = ctx.move("BEGIN")
    return " ".join(seen) + f"; then OK and BEGIN -> {cell_text(mv)}"


@check("start", "start-bad-sizes", "START 0, START -3: ERROR each (never OK), then START <size> works")
def c_start_bad(ctx: Ctx) -> str:
    seen = []
    ctx.key = "START 0|-3"
    for cmd in ("START 0", "START -3"):
        seen.append(f"{cmd!r}:{_start_answer(ctx, cmd, ('ERROR',))}")
    ctx.new_game()
    mv = ctx.move("BEGIN")
    return " ".join(seen) + f"; then BEGIN -> {cell_text(mv)}"


@check("start", "start-malformed", "START abc: one ERROR line (no loop, no crash), then START <size> works")
def c_start_malformed(ctx: Ctx) -> str:
    ctx.key = "START abc"
    word = _start_answer(ctx, "START abc", ("ERROR",))
    ctx.new_game()
    mv = ctx.move("BEGIN")
    return f"{word}; then BEGIN -> {cell_text(mv)}"


def _rect_size(o: Options) -> tuple[int, int]:
    w = o.width + 5 if o.width + 5 <= 30 else o.width - 3
    return w, max(5, min(o.height, w) - 5)


@check("start", "rectstart", "RECTSTART w,h: OK or ERROR (refusing is allowed)")
def c_rectstart(ctx: Ctx) -> str:
    w, h = _rect_size(ctx.o)
    word = _start_answer(ctx, f"RECTSTART {w},{h}", ("OK", "ERROR"))
    ctx.facts["rect"] = word == "OK"
    return f"RECTSTART {w},{h} -> {word}"


@check("start", "rectstart-move", "after RECTSTART w,h (w = columns), TURN in the wide part gets a move inside w x h")
def c_rectstart_move(ctx: Ctx) -> str:
    if not ctx.facts.get("rect", False):
        raise Skip("RECTSTART was refused (or not tested)")
    w, h = _rect_size(ctx.o)
    ctx.ok(f"RECTSTART {w},{h}")
    ctx.send(f"INFO timeout_turn {ctx.o.turn_ms}")
    ctx.cells.reset(w, h)
    x, y = w - 2, 1  # only on the board when x counts columns
    ctx.cells.stones[(x, y)] = 2
    mv = ctx.move(f"TURN {x},{y}")
    mv2 = ctx.move(f"TURN {w - 1},{h - 1}") if ctx.cells.empty(w - 1, h - 1) else mv
    ctx.cells.reset(ctx.o.width, ctx.o.height)
    return f"TURN {x},{y} -> {cell_text(mv)}, TURN {w - 1},{h - 1} -> {cell_text(mv2)}"


@check("start", "restart", "RESTART answers OK and clears the board: the engine's old cell is accepted as a TURN")
def c_restart(ctx: Ctx) -> str:
    ctx.new_game()
    mv = ctx.move("BEGIN")
    ctx.ok("RESTART")
    ctx.key = "RESTART"
    ctx.cells.reset()
    ctx.cells.stones[mv] = 2
    mv2 = ctx.move(f"TURN {cell_text(mv)}")
    return f"BEGIN -> {cell_text(mv)}; RESTART -> OK; TURN {cell_text(mv)} -> {cell_text(mv2)}"


# INFO --------------------------------------------------------------------------------
@check("info", "info-silent", "standard INFO lines get no reply")
def c_info_silent(ctx: Ctx) -> str:
    ctx.new_game()
    lines = [f"INFO timeout_turn {ctx.o.turn_ms}", "INFO timeout_match 0", "INFO max_memory 0",
             "INFO game_type 1", "INFO rule 0", "INFO time_left 2147483647", "INFO folder /tmp"]
    ctx.silent(*lines)
    return f"nothing after {len(lines)} INFO lines"


@check("info", "info-unknown", "INFO with an unknown key gets no reply (ignored)")
def c_info_unknown(ctx: Ctx) -> str:
    ctx.silent("INFO foo_bar_unknown 42")
    return "nothing"


@check("info", "info-then-move", "after all those INFO lines, BEGIN still gets a legal move")
def c_info_then_move(ctx: Ctx) -> str:
    ctx.new_game(extra_info=("INFO foo_bar_unknown 42",))
    mv = ctx.move("BEGIN")
    ctx.key = "INFO foo_bar_unknown 42, BEGIN"
    return cell_text(mv)


# Moves ---------------------------------------------------------------------------------
@check("moves", "begin", "BEGIN: a legal move within timeout_turn + tolerance")
def c_begin(ctx: Ctx) -> str:
    ctx.new_game()
    mv = ctx.move("BEGIN")
    return f"{cell_text(mv)} in {ctx.last_move_s * 1000:.0f} ms"


@check("moves", "turns", "up to 6 TURNs (until the game ends): each a legal move on an empty cell within timeout_turn + tolerance")
def c_turns(ctx: Ctx) -> str:
    if ctx.game is None or not ctx.game.history:  # begin failed: this is a fresh process
        ctx.new_game()
        ctx.move("BEGIN")
    slowest = 0.0
    n = 0
    for _ in range(6):
        assert ctx.game is not None
        if ctx.game.is_over:
            break
        mv = ctx.opponent_move()
        ctx.move(f"TURN {cell_text(mv)}")
        slowest = max(slowest, ctx.last_move_s)
        n += 1
    return f"{n} legal moves, slowest {slowest * 1000:.0f} ms"


@check("moves", "board-empty", "BOARD with no stones, DONE (as GomocupJudge starts): a legal move")
def c_board_empty(ctx: Ctx) -> str:
    ctx.new_game()
    mv = ctx.move("BOARD", "DONE")
    return cell_text(mv)


def _board_stones(o: Options) -> list[tuple[int, int, int]]:
    cx, cy = o.width // 2, o.height // 2
    return [(cx, cy, 1), (cx + 1, cy, 2), (cx - 1, cy + 1, 1), (cx, cy + 1, 2), (cx + 1, cy - 1, 1),
            (cx - 1, cy - 1, 2)]


@check("moves", "board-position", "BOARD with stones of both sides in move order, DONE: a legal move")
def c_board_position(ctx: Ctx) -> str:
    ctx.new_game()
    stones = _board_stones(ctx.o)
    ctx.cells.reset()
    ctx.cells.stones.update({(x, y): f for x, y, f in stones})
    mv = ctx.move("BOARD", *(f"{x},{y},{f}" for x, y, f in stones), "DONE", engine_moves=False)
    return cell_text(mv)


@check("moves", "board-any-order",
       "BOARD with the same stones grouped by side (own stones last): a legal move (any order is valid)")
def c_board_any_order(ctx: Ctx) -> str:
    ctx.new_game()
    stones = sorted(_board_stones(ctx.o), key=lambda s: -s[2])
    ctx.cells.reset()
    ctx.cells.stones.update({(x, y): f for x, y, f in stones})
    mv = ctx.move("BOARD", *(f"{x},{y},{f}" for x, y, f in stones), "DONE", engine_moves=False)
    return cell_text(mv)


@check("tactics", "board-resets", "a second BOARD replaces the first position (it must not add to it)")
def c_board_resets(ctx: Ctx) -> str:
    cfg = GameConfig(ctx.o.width, ctx.o.height, ctx.o.win_length)
    try:
        pos = win_in_one(cfg)
    except ValueError as exc:
        raise Skip(str(exc)) from None
    if ctx.o.win_length != 5 and not ctx.facts.get("follows_k"):
        raise Skip("needs the win_length extension for this win length")
    ctx.new_game()
    w = pos.answers[0]
    far = ctx.cells.first_empty_near(0, 0, [(x, y) for x, y, _ in pos.stones])
    first = Position(((w[0], w[1], 2), (far[0], far[1], 1)), (), "")
    ctx.cells.reset()
    ctx.cells.stones.update({w: 2, far: 1})
    ctx.move(*first.block(), engine_moves=False)
    mv = ctx.position(pos, "the winning cell, empty in the second BOARD")
    return f"second BOARD -> {cell_text(mv)} (wins)"


# Bad input -------------------------------------------------------------------------------
def _midgame(ctx: Ctx) -> tuple[int, int]:
    ctx.new_game()
    mv = ctx.move("BEGIN")
    theirs = ctx.opponent_move()
    ctx.move(f"TURN {cell_text(theirs)}")
    return mv


def _goes_on(ctx: Ctx) -> str:
    mv = ctx.opponent_move()
    reply = ctx.move(f"TURN {cell_text(mv)}")
    return f"then TURN {cell_text(mv)} -> {cell_text(reply)}"


@check("errors", "error-occupied", "TURN on an occupied cell: ERROR, no move; the next valid TURN gets a legal move")
def c_err_occupied(ctx: Ctx) -> str:
    mv = _midgame(ctx)
    ctx.key = f"TURN {cell_text(mv)}"
    got = ctx.refused("ERROR", f"TURN {cell_text(mv)}")
    return f"TURN {cell_text(mv)} -> {got}; {_goes_on(ctx)}"


@check("errors", "error-off-board", "TURN off the board (x = width, then -1,0): ERROR each; the game goes on")
def c_err_off_board(ctx: Ctx) -> str:
    _midgame(ctx)
    ctx.key = f"TURN {ctx.o.width},1; TURN -1,0"
    a = ctx.refused("ERROR", f"TURN {ctx.o.width},1")
    b = ctx.refused("ERROR", "TURN -1,0")
    return f"{a}; {b}; {_goes_on(ctx)}"


@check("errors", "error-malformed", "malformed TURN ('TURN 7', 'TURN abc'): ERROR each; the game goes on")
def c_err_malformed(ctx: Ctx) -> str:
    _midgame(ctx)
    ctx.key = "TURN 7; TURN abc"
    a = ctx.refused("ERROR", "TURN 7")
    b = ctx.refused("ERROR", "TURN abc")
    return f"{a}; {b}; {_goes_on(ctx)}"


@check("errors", "unknown-command", "an unknown command: UNKNOWN; the game goes on")
def c_unknown(ctx: Ctx) -> str:
    _midgame(ctx)
    ctx.key = "FOOBARBAZ"
    got = ctx.refused("UNKNOWN", "FOOBARBAZ")
    return f"{got}; {_goes_on(ctx)}"


# Line ends ---------------------------------------------------------------------------------
@check("crlf", "crlf", "with CR LF line ends: ABOUT, START OK, INFO silent, BEGIN and TURN legal moves")
def c_crlf(ctx: Ctx) -> str:
    ctx.s.crlf = True
    ctx.key = "(CR LF) ABOUT, START, INFO, BEGIN, TURN"
    _about(ctx)
    ctx.new_game()
    ctx.silent("INFO max_memory 0")
    mv = ctx.move("BEGIN")
    theirs = ctx.opponent_move()
    mv2 = ctx.move(f"TURN {cell_text(theirs)}")
    return f"about, OK, BEGIN -> {cell_text(mv)}, TURN {cell_text(theirs)} -> {cell_text(mv2)}"


# TAKEBACK -------------------------------------------------------------------------------------
@check("takeback", "takeback", "TAKEBACK (optional command): OK for each stone; the freed cell is then playable")
def c_takeback(ctx: Ctx) -> str:
    ctx.new_game()
    ctx.move("BEGIN")
    theirs = ctx.opponent_move()
    mine = ctx.move(f"TURN {cell_text(theirs)}")
    ctx.send(f"TAKEBACK {cell_text(mine)}")
    line = ctx.reply(ctx.o.move_timeout_s, "OK")
    if line.startswith("UNKNOWN"):
        raise Skip(f"TAKEBACK answered {line!r} (the command is optional)")
    if line.strip() != "OK":
        raise Fail(f"TAKEBACK {cell_text(mine)} -> {line!r}", "OK")
    ctx.ok(f"TAKEBACK {cell_text(theirs)}", timeout_s=ctx.o.move_timeout_s)
    del ctx.cells.stones[mine]
    del ctx.cells.stones[theirs]
    ctx.cells.stones[mine] = 2  # now we play where the engine's stone was
    ctx.key = f"TAKEBACK {cell_text(mine)}; TAKEBACK {cell_text(theirs)}"
    again = ctx.move(f"TURN {cell_text(mine)}")
    return f"OK, OK; TURN {cell_text(mine)} (freed) -> {cell_text(again)}"
