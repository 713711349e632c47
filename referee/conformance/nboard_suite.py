"""The checks of ``referee check --game reversi``: an NBoard engine's conformance suite.

The same machinery as the Gomocup suite (:mod:`referee.conformance.context`: the context,
the verdicts, the registry; :func:`referee.cli.check.run_checks` runs the groups), with
its own registry, :data:`NBOARD_GROUPS`.  Each session opens with ``nboard 2`` and
``set depth 1`` (the checks want quick moves); every ``go`` answer is judged by
the referee's Reversi rules (:class:`referee.games.reversi.ReversiRules`), and
the positions are sent as the referee sends them in a match (``set game`` GGF,
``move`` lines).
"""

from __future__ import annotations

import functools
import random
import time

from engine.reversi.board.rules import ReversiConfig, ReversiState
from referee.conformance.context import Ctx, Fail, Group, check, exits_on_eof
from referee.games.base import Illegal
from referee.games.reversi import ReversiRules
from referee.engines.nboard_wire import game_text, is_chatter, move_command, parse_go_reply, pong_of

__all__ = ["NBOARD_GROUPS", "SESSION_OPTIONS"]

#: The NBoard suite's groups (each starts on a fresh engine process).
NBOARD_GROUPS: list[Group] = []

#: How :func:`referee.cli.check.run_checks` opens an NBoard session: ``quit`` ends it, and
#: every line but ``===`` and ``pong`` is chatter.
SESSION_OPTIONS = {"end_line": "quit", "is_chatter": is_chatter}

_RULES = ReversiRules(ReversiConfig(8))


def _check(group: str, name: str, expected: str):
    return check(group, name, expected, registry=NBOARD_GROUPS)


def _hello(ctx: Ctx) -> None:
    """``nboard 2`` and ``set depth 1``, once per engine process."""
    if not getattr(ctx.s, "nboard_said", False):
        ctx.send("nboard 2", "set depth 1")
        ctx.s.nboard_said = True


def _ping(ctx: Ctx, n: int, timeout_s: float | None = None) -> str:
    """``ping n`` must be answered ``pong n`` (chatter skipped, and the ``search`` lines that
    answer a ``hint`` sent before it)."""
    ctx.send(f"ping {n}")
    end = time.monotonic() + (timeout_s if timeout_s is not None else ctx.o.start_ms / 1000.0)
    while True:
        line = ctx.reply(max(0.0, end - time.monotonic()), f"pong {n}")
        if not line.lstrip().lower().startswith("search"):
            break
    if pong_of(line) != str(n):
        raise Fail(repr(line), f"pong {n}")
    return line.strip()


def _go(ctx: Ctx, state: ReversiState, *lines: str) -> str:
    """Send ``lines`` then ``go``; the ``===`` answer must be a legal move in ``state``."""
    ctx.send(*lines, "go")
    ctx.key = ctx.key or "go"  # the report names the command answered, not the set-up before it
    return _judged(ctx.reply(ctx.o.move_timeout_s, "=== MOVE"), state)


def _judged(line: str, state: ReversiState) -> str:
    """``line`` (stripped) when it is ``=== MOVE`` with a legal move in ``state``; else :class:`Fail`."""
    answer = parse_go_reply(line)
    if answer is None:
        raise Fail(repr(line), "=== MOVE")
    try:
        _RULES.judge(state, answer[0])
    except Illegal as exc:
        raise Fail(f"{line.strip()!r}: {exc}", "a legal move") from None
    return line.strip()


def _set_game(state: ReversiState) -> str:
    return f"set game {game_text(state, [0] * len(state.history))}"


@functools.lru_cache(maxsize=1)
def _forced_pass_game() -> tuple[int, ...]:
    """The moves of a game (random legal moves, fixed seed) up to a side that must pass while
    the other can move."""
    for seed in range(10_000):
        rng = random.Random(seed)
        state = ReversiState(8)
        while not state.is_terminal():
            moves = state.legal_moves()
            if moves == [state.pass_move]:
                return tuple(state.history)
            state.apply(rng.choice(moves))
    raise RuntimeError("no forced pass found")  # pragma: no cover - thousands of games hold one


def _replay(moves) -> ReversiState:
    state = ReversiState(8)
    for m in moves:
        state.apply(m)
    return state


# Start-up ------------------------------------------------------------------------------
@_check("start", "nboard-ping", "nboard 2, set depth 1, ping 1: answered pong 1")
def c_ping(ctx: Ctx) -> str:
    _hello(ctx)
    return _ping(ctx, 1)


@_check("start", "ping-after-set-game", "set game (the start), ping 2: pong 2 once the game is set")
def c_ping_after_set_game(ctx: Ctx) -> str:
    _hello(ctx)
    ctx.send(_set_game(ReversiState(8)))
    return _ping(ctx, 2)


# Moves ---------------------------------------------------------------------------------
@_check("moves", "go-start", "set game (the start), go: === a legal move")
def c_go_start(ctx: Ctx) -> str:
    _hello(ctx)
    state = ReversiState(8)
    return _go(ctx, state, _set_game(state))


@_check("moves", "go-after-move-lines", "set game, move F5, move D6, go: === a legal move there")
def c_go_after_moves(ctx: Ctx) -> str:
    _hello(ctx)
    start = ReversiState(8)
    state = start.clone()
    lines = [_set_game(start)]
    for word in ("f5", "d6"):
        move = state.text_to_move(word)
        lines.append(move_command(state, move, 0.5))
        state.apply(move)
    return _go(ctx, state, *lines)


@_check("moves", "go-midgame", "set game with 20 moves and their times, go: === a legal move there")
def c_go_midgame(ctx: Ctx) -> str:
    _hello(ctx)
    rng = random.Random(20)
    state = ReversiState(8)
    while len(state.history) < 20:
        state.apply(rng.choice(state.legal_moves()))
    return _go(ctx, state, _set_game(state))


@_check("moves", "move-eval-time", "set game, move F5/1.50/2.25 (the eval/time form), go: === a legal move for white")
def c_move_eval_time(ctx: Ctx) -> str:
    _hello(ctx)
    start = ReversiState(8)
    state = start.clone()
    state.apply(state.text_to_move("f5"))
    return _go(ctx, state, _set_game(start), "move F5/1.50/2.25")


@_check("moves", "forced-pass", "set game where the side to move has no move, go: === PA")
def c_forced_pass(ctx: Ctx) -> str:
    _hello(ctx)
    state = _replay(_forced_pass_game())
    return _go(ctx, state, _set_game(state))


@_check("moves", "after-a-pass", "set game holding a pass (PA), go: === a legal move for the other side")
def c_after_pass(ctx: Ctx) -> str:
    _hello(ctx)
    state = _replay(_forced_pass_game())
    state.apply(state.pass_move)
    return _go(ctx, state, _set_game(state))


@_check("moves", "hint", "hint 2, then ping 3: pong 3 (search/status lines meanwhile), then go still moves")
def c_hint(ctx: Ctx) -> str:
    _hello(ctx)
    state = ReversiState(8)
    ctx.send(_set_game(state), "hint 2")
    pong = _ping(ctx, 3, timeout_s=2 * ctx.o.move_timeout_s + ctx.o.start_ms / 1000.0)
    return f"{pong}, then {_go(ctx, state)}"


# The clock ------------------------------------------------------------------------------
#: The clock check's game: 20 moves, each side has used all but this of a 10 s clock.
_CLOCK_MS, _LEFT_MS = 10_000, 1_000


@_check("clock", "clock-honoured", "set depth 20, set game with TI[0:10] and 9 s used by each side, go: "
        "=== within the 1 s left (+ --tolerance-ms)")
def c_clock(ctx: Ctx) -> str:
    _hello(ctx)
    rng = random.Random(21)
    state = ReversiState(8)
    while len(state.history) < 20:
        state.apply(rng.choice(state.legal_moves()))
    per_move = (_CLOCK_MS - _LEFT_MS) // 10  # each side made 10 of the 20 moves
    ctx.send("set depth 20", f"set game {game_text(state, [per_move] * 20, 0, _CLOCK_MS)}", "go")
    ctx.key = "go"
    t0 = time.monotonic()
    limit_s = (_LEFT_MS + ctx.o.tolerance_ms) / 1000.0
    line = ctx.reply(limit_s, "=== MOVE within the clock")
    took = time.monotonic() - t0
    ctx.send("set depth 1")  # quick moves again for any later check on this process
    return f"{_judged(line, state)} after {took * 1000:.0f} ms"


# Bad input -----------------------------------------------------------------------------
@_check("robust", "unknown-command", "an unknown command and a junk line, then ping 4: still pong 4")
def c_unknown(ctx: Ctx) -> str:
    _hello(ctx)
    ctx.send("frobnicate 1 2 3", "\x01\x02 ?? junk")
    return _ping(ctx, 4)


@_check("robust", "moves-after-junk", "after the junk, set game and go: === a legal move")
def c_moves_after_junk(ctx: Ctx) -> str:
    _hello(ctx)
    ctx.send("frobnicate", "set")
    state = ReversiState(8)
    return _go(ctx, state, _set_game(state))


@_check("robust", "binary-line", "a line of binary bytes (NUL, 0xff), then ping 5: still pong 5")
def c_binary(ctx: Ctx) -> str:
    _hello(ctx)
    ctx.send("\x00\xff\xfe\x7f go \x1b[2J")
    return _ping(ctx, 5)


@_check("robust", "malformed-set-game", "set game with a broken GGF, ping 6: pong 6; then set game and go: "
        "=== a legal move")
def c_malformed_set_game(ctx: Ctx) -> str:
    _hello(ctx)
    ctx.send("set game (;GM[Othello]TY[8]BO[8 nonsense *]B[Z9];)")
    pong = _ping(ctx, 6)
    state = ReversiState(8)
    state.apply(state.text_to_move("f5"))
    return f"{pong}, then {_go(ctx, state, _set_game(state))}"


@_check("end", "eof", "EOF on stdin (GUI gone): the engine exits (within --exit-ms)")
def c_eof(ctx: Ctx) -> str:
    _hello(ctx)
    return exits_on_eof(ctx)


@_check("end", "quit", "quit: the engine exits (within --exit-ms)")
def c_quit(ctx: Ctx) -> str:
    _hello(ctx)
    ctx.send("quit")
    exited, _ = ctx.s.wait_exit(ctx.o.exit_ms / 1000.0)
    if not exited:
        raise Fail(f"still running after {ctx.o.exit_ms} ms", "the engine exits")
    ctx.s.broken = True  # the next check needs a fresh process
    return "exited"
