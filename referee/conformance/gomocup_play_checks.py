"""The Gomocup checks of play: tactics, the ``win_length`` extension, the match clock, END and
EOF (registered on import)."""

from __future__ import annotations

import time

from engine.mnk.board.rules import GameConfig
from referee.conformance.context import Ctx, Fail, Options, Skip, cell_text, check, exits_on_eof
from referee.conformance.positions import block_four, win_in_one, win_length_probe


# Tactics -----------------------------------------------------------------------------------
def _needs_k(ctx: Ctx) -> None:
    k = ctx.o.win_length
    if k == 5:
        return
    if k not in (3, 4):
        raise Skip(f"win length {k}: no sound way to tell whether the engine follows INFO win_length")
    if not ctx.facts.get("follows_k"):
        raise Skip(f"the engine does not follow INFO win_length {k} (see win-length-detect)")


@check("tactics", "win-in-one", "a position (BOARD) with one winning cell: the engine takes the win")
def c_win_in_one(ctx: Ctx) -> str:
    _needs_k(ctx)
    try:
        pos = win_in_one(GameConfig(ctx.o.width, ctx.o.height, ctx.o.win_length))
    except ValueError as exc:
        raise Skip(str(exc)) from None
    ctx.new_game()
    return f"{cell_text(ctx.position(pos, 'the win'))} (wins)"


@check("tactics", "block-four", "a position where the opponent's only win is one cell: the engine blocks it")
def c_block(ctx: Ctx) -> str:
    _needs_k(ctx)
    try:
        pos = block_four(GameConfig(ctx.o.width, ctx.o.height, ctx.o.win_length))
    except ValueError as exc:
        raise Skip(str(exc)) from None
    ctx.new_game()
    return f"{cell_text(ctx.position(pos, 'the block'))} (blocks)"


# The win_length extension ---------------------------------------------------------------------
def _ext_k(o: Options) -> int | None:
    if o.win_length == 5:
        return 4
    return o.win_length if o.win_length in (3, 4) else None


@check("win-length", "win-length-detect",
       "INFO win_length k, then a BOARD where k wins at W but 5 must block at B: W = follows, B = ignores (skip)")
def c_wl_detect(ctx: Ctx) -> str:
    k = _ext_k(ctx.o)
    if k is None:
        raise Skip(f"win length {ctx.o.win_length}: no sound detection position")
    try:
        probe = win_length_probe(ctx.o.width, ctx.o.height, k)
    except ValueError as exc:
        raise Skip(str(exc)) from None
    ctx.new_game(win_length=5)
    ctx.key = f"INFO win_length {k}, BOARD ... DONE"
    ctx.send(f"INFO win_length {k}")
    ctx.s.replies_within(ctx.o.quiet_ms / 1000.0)  # a complaint about the key is judged by info-unknown
    ctx.cells.reset()
    for x, y, f in probe.position.stones:
        ctx.cells.stones[(x, y)] = f
    ctx.send(*probe.position.block())
    line = ctx.reply(ctx.o.move_timeout_s, "a move")
    if line.startswith("ERROR"):
        raise Skip(f"the engine refused the position under win_length {k}: {line!r}")
    mv, why = ctx.cells.judge(line)
    if mv == probe.win:
        ctx.facts["follows_k"] = True
        return f"{cell_text(mv)}: follows win_length {k}"
    if mv == probe.block:
        raise Skip(f"{cell_text(mv)} is the 5-in-a-row block: the engine ignores win_length")
    raise Fail(f"{line!r} {why}".strip(),
               f"{cell_text(probe.win)} (win with k={k}) or {cell_text(probe.block)} (block with k=5)")


def _needs_ext(ctx: Ctx) -> int:
    k = _ext_k(ctx.o)
    if k is None or not ctx.facts.get("follows_k"):
        raise Skip("the engine does not follow INFO win_length (see win-length-detect)")
    return k


def _k_answer(ctx: Ctx, make, what: str) -> tuple[int, str]:
    """Set up the position ``make(config with k)`` in a k-line game; return (k, the answer as x,y)."""
    k = _needs_ext(ctx)
    try:
        pos = make(GameConfig(ctx.o.width, ctx.o.height, k))
    except ValueError as exc:
        raise Skip(str(exc)) from None
    ctx.new_game(win_length=k)
    return k, cell_text(ctx.position(pos, what))


@check("win-length", "win-length-win", "with INFO win_length k: a k-line win in one is taken")
def c_wl_win(ctx: Ctx) -> str:
    k, answer = _k_answer(ctx, win_in_one, "the win")
    return f"{answer} (wins with k={k})"


@check("win-length", "win-length-block", "with INFO win_length k: the opponent's k-line threat is blocked")
def c_wl_block(ctx: Ctx) -> str:
    k, answer = _k_answer(ctx, block_four, "the block")
    return f"{answer} (blocks with k={k})"


@check("win-length", "win-length-restart", "win_length lasts across RESTART (the probe is won again)")
def c_wl_restart(ctx: Ctx) -> str:
    k = _needs_ext(ctx)
    probe = win_length_probe(ctx.o.width, ctx.o.height, k)
    ctx.new_game(win_length=k)
    ctx.ok("RESTART")
    return f"RESTART -> OK; {cell_text(ctx.position(probe.position, f'the win with k={k}'))} (wins)"


# Clock --------------------------------------------------------------------------------------------
@check("clock", "match-clock",
       "timeout_match M with time_left before each of 8 moves: the engine never runs out of match time")
def c_match_clock(ctx: Ctx) -> str:
    o = ctx.o
    match_ms = max(2000, 4 * o.turn_ms)
    ctx.new_game(extra_info=(f"INFO timeout_match {match_ms}",))
    used = 0.0
    n = 0
    cmd = "BEGIN"
    ctx.key = f"INFO timeout_match {match_ms}, INFO time_left before each move"
    for _ in range(8):
        left = match_ms - used * 1000
        ctx.send(f"INFO time_left {int(left)}")
        limit = min(o.turn_ms, max(left, 0)) + o.tolerance_ms
        ctx.move(cmd, timeout_s=limit / 1000.0)
        used += ctx.last_move_s
        n += 1
        assert ctx.game is not None
        if used * 1000 > match_ms + o.tolerance_ms:
            raise Fail(f"{used * 1000:.0f} ms used after {n} moves",
                       f"at most {match_ms} ms (+{o.tolerance_ms} tolerance) in all")
        if ctx.game.is_over:
            break
        cmd = f"TURN {cell_text(ctx.opponent_move())}"
        if ctx.game.is_over:
            break
    return f"{n} moves in {used * 1000:.0f} ms of {match_ms} ms (timeout_turn {o.turn_ms})"


# END / EOF -----------------------------------------------------------------------------------------
@check("end", "end", "END: the process exits promptly (within --exit-ms) and prints nothing more")
def c_end(ctx: Ctx) -> str:
    ctx.new_game()
    ctx.move("BEGIN")
    t0 = time.monotonic()
    ctx.send("END")
    exited, printed = ctx.s.wait_exit(ctx.o.exit_ms / 1000.0)
    ctx.s.broken = True  # whatever happened, the next check needs a new process
    if printed:
        raise Fail(f"printed {printed[0]!r}", "nothing after END")
    if not exited:
        raise Fail(f"still running after {ctx.o.exit_ms} ms", f"exit within {ctx.o.exit_ms} ms")
    return f"exited in {(time.monotonic() - t0) * 1000:.0f} ms"


@check("end", "eof", "EOF on stdin (manager gone): the process exits within --exit-ms")
def c_eof(ctx: Ctx) -> str:
    ctx.new_game()
    return exits_on_eof(ctx)
