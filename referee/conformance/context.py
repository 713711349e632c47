"""What the checks of ``referee check`` are built from: options, verdicts, the check context, the registry.

A check is a function ``check(ctx) -> str`` that talks to the engine through
:class:`Ctx` and returns a short description of what came back; it raises
:class:`Fail` or :class:`Skip` instead.  :func:`check` registers it in a
:class:`Group` of :data:`GROUPS`; the checks themselves are in
:mod:`referee.conformance.gomocup_suite`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from engine.mnk.board.rules import Board, GameConfig
from referee.conformance.positions import Position
from referee.conformance.session import Cells, Session
from referee.engines.gomocup_wire import parse_move

__all__ = ["Options", "Fail", "Skip", "Ctx", "Check", "Group", "GROUPS", "check", "FLOOD_LINES", "cell_text"]

#: More reply lines than this in one quiet window is a flood (an engine looping on bad input).
FLOOD_LINES = 50


@dataclass
class Options:
    """Settings of one ``referee check`` run (times in ms)."""

    argv: Sequence[str]
    width: int = 15
    height: int = 15
    win_length: int = 5
    turn_ms: int = 500
    tolerance_ms: int = 1000
    start_ms: int = 5000
    quiet_ms: int = 300
    exit_ms: int = 1000
    send_delay_ms: float = 0
    cwd: str | None = None

    @property
    def move_timeout_s(self) -> float:
        return (self.turn_ms + self.tolerance_ms) / 1000.0


class Fail(Exception):
    """The check failed: ``got`` is what came back, ``expected`` what should have."""

    def __init__(self, got: str, expected: str = "") -> None:
        super().__init__(got)
        self.got = got
        self.expected = expected


class Skip(Exception):
    """The check does not apply to this engine (the reason is the message)."""


def cell_text(mv: tuple[int, int]) -> str:
    """A cell as the protocol writes it: ``x,y``."""
    return f"{mv[0]},{mv[1]}"


class Ctx:
    """What a check works with: the session, the options, a model of the current game."""

    def __init__(self, opts: Options, sess: Session, shared: dict[str, object] | None = None) -> None:
        self.o = opts
        self.s = sess
        self.cells = Cells(opts.width, opts.height)
        self.game: Board | None = None
        self.sent: list[str] = []
        #: Facts learnt by earlier checks of the run (the ABOUT pairs, RECTSTART support, win_length support).
        self.facts: dict[str, object] = {} if shared is None else shared
        self.last_move_s = 0.0
        #: The command a pass line names as "sent" (default: the last line sent).
        self.key: str | None = None

    # Sending --------------------------------------------------------------------
    def send(self, *lines: str) -> None:
        """Send lines (one write); :class:`Fail` when the engine is gone."""
        self.sent.append(lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]} ({len(lines)} lines)")
        if not self.s.send_many(list(lines)):
            raise Fail("the engine is gone (write failed)")

    # Receiving ------------------------------------------------------------------
    def reply(self, timeout_s: float, expected: str) -> str:
        """The next reply line, or :class:`Fail` naming ``expected`` when none comes in time."""
        w = self.s.reply(timeout_s)
        if w.line is None:
            if w.timed_out:
                self.s.broken = True  # an engine that did not answer may answer later: start afresh
            raise Fail(w.describe(), expected)
        return w.line

    def ok(self, *lines: str, timeout_s: float | None = None) -> None:
        """Send and expect exactly ``OK``."""
        self.send(*lines)
        line = self.reply(timeout_s or self.o.start_ms / 1000.0, "OK")
        if line.strip() != "OK":
            raise Fail(repr(line), "OK")

    def silent(self, *lines: str) -> None:
        """Send lines that must get no reply at all (within the quiet window)."""
        self.send(*lines)
        got, exited = self.s.replies_within(self.o.quiet_ms / 1000.0)
        if got:
            raise Fail(repr(got[0]) + (f" (+{len(got) - 1} more)" if len(got) > 1 else ""),
                       f"no reply within {self.o.quiet_ms} ms")
        if exited:
            raise Fail("the engine exited", "no reply, engine still running")

    def move(self, *lines: str, timeout_s: float | None = None, engine_moves: bool = True) -> tuple[int, int]:
        """Send a BEGIN/TURN/BOARD and expect a legal move in time; the move is recorded."""
        self.send(*lines)
        t = timeout_s if timeout_s is not None else self.o.move_timeout_s
        t0 = time.monotonic()
        line = self.reply(t, "a legal move")
        self.last_move_s = time.monotonic() - t0
        mv, why = self.cells.judge(line)
        if mv is None:
            raise Fail(why if "not a move" in why else f"{line!r}: {why}", "a legal move")
        self.cells.stones[mv] = 1
        if self.game is not None and engine_moves:
            self.game.play(self.game.config.move(*mv))
        return mv

    def refused(self, prefix: str, *lines: str) -> str:
        """Send a bad command: expect a line starting with ``prefix`` (ERROR/UNKNOWN) and no move after it."""
        self.send(*lines)
        line = self.reply(self.o.move_timeout_s, f"{prefix} ...")
        if not line.startswith(prefix):
            if parse_move(line) is not None:
                raise Fail(f"{line!r} (a move)", f"{prefix} ...")
            raise Fail(repr(line), f"{prefix} ...")
        # Wait about one move time: an engine that answers ERROR and then moves anyway would
        # otherwise have its move taken as the answer to our next command.
        extra, exited = self.s.replies_within((self.o.turn_ms + 200) / 1000.0)
        if exited:
            raise Fail(f"{line!r}, then the engine exited", f"{prefix} ..., engine still running")
        if len(extra) >= FLOOD_LINES:
            self.s.broken = True
            raise Fail(f"{line!r}, then a flood of {len(extra)}+ lines such as {extra[-1]!r}", f"one {prefix} line")
        moves = [e for e in extra if parse_move(e) is not None]
        if moves:
            raise Fail(f"{line!r}, then the move {moves[0]!r}", f"{prefix} and no move")
        return repr(line) + (f" (+{len(extra)} more lines)" if extra else "")

    # Game set-up ----------------------------------------------------------------
    def new_game(self, *, turn_ms: int | None = None, win_length: int | None = None,
                 extra_info: Sequence[str] = ()) -> None:
        """START the configured board, send the time limits; the engine moves first in :attr:`game`."""
        o = self.o
        cmd = f"START {o.width}" if o.width == o.height else f"RECTSTART {o.width},{o.height}"
        self.ok(cmd)
        k = win_length if win_length is not None else o.win_length
        info = [f"INFO timeout_turn {o.turn_ms if turn_ms is None else turn_ms}", "INFO timeout_match 0"]
        if k != 5:
            info.append(f"INFO win_length {k}")
        self.send(*info, *extra_info)
        # Engines that dislike an INFO line may complain; that is judged by the info checks, not here.
        self.s.replies_within(0.05)
        self.cells.reset(o.width, o.height)
        self.game = Board(GameConfig(o.width, o.height, k))

    def opponent_move(self) -> tuple[int, int]:
        """Our move in :attr:`game`: block the engine's win if it has one, else near the centre; never a win."""
        g = self.game
        assert g is not None
        cfg = g.config
        threats = g.winning_cells(g.to_move.other)
        own_wins = set(g.winning_cells(g.to_move))
        if threats:
            mv = cfg.xy(threats[0])
        else:
            avoid = [cfg.xy(m) for m in own_wins]
            mv = self.cells.first_empty_near(cfg.width // 2 + 1, cfg.height // 2 + 2, avoid)
        g.play(cfg.move(*mv))
        self.cells.stones[mv] = 2
        return mv

    def position(self, pos: Position, expected: str) -> tuple[int, int]:
        """Send ``pos`` as a BOARD block; the reply must be one of its answers."""
        self.cells.reset()
        for x, y, f in pos.stones:
            self.cells.stones[(x, y)] = f
        mv = self.move(*pos.block(), engine_moves=False)
        if mv not in pos.answers:
            raise Fail(f"{mv[0]},{mv[1]}", f"{expected}: {pos.why}")
        return mv


@dataclass(frozen=True)
class Check:
    """One named check: ``run(ctx)`` returns what came back (or raises Fail/Skip)."""

    name: str
    expected: str
    run: Callable[[Ctx], str]


@dataclass
class Group:
    """Checks that share one engine process while they pass."""

    name: str
    checks: list[Check] = field(default_factory=list)


GROUPS: list[Group] = []


def exits_on_eof(ctx: Ctx) -> str:
    """Close the engine's stdin (its manager or GUI gone): it must exit within ``--exit-ms``."""
    ctx.sent.append("<close stdin>")
    t0 = time.monotonic()
    if not ctx.s.close_stdin():
        raise Skip("could not close the engine's stdin")
    exited, _ = ctx.s.wait_exit(ctx.o.exit_ms / 1000.0)
    ctx.s.broken = True  # the next check needs a fresh process
    if not exited:
        raise Fail(f"still running after {ctx.o.exit_ms} ms", f"exit within {ctx.o.exit_ms} ms")
    return f"exited in {(time.monotonic() - t0) * 1000:.0f} ms"


def check(group: str, name: str, expected: str, registry: list[Group] | None = None):
    """Register the decorated function as a check of ``group`` in ``registry`` (default
    :data:`GROUPS`, the Gomocup suite; the NBoard suite has its own)."""
    groups = GROUPS if registry is None else registry

    def deco(fn: Callable[[Ctx], str]) -> Callable[[Ctx], str]:
        for g in groups:
            if g.name == group:
                break
        else:
            g = Group(group)
            groups.append(g)
        g.checks.append(Check(name, expected, fn))
        return fn
    return deco
