"""The NBoard wire adapter: a Reversi engine process as one side of a game.

Start: ``nboard 2``, ``set game`` with the game's start position (and ``TI`` when
there is a match clock), ``ping 1``; the engine has started once it answers
``pong 1`` (within ``start_ms``, not on its clock).  Each move: the lines that
bring the engine's game to the referee's position (``move MOVE//SECONDS`` for
each new move while the engine's game is a start of the referee's, else the
whole game as ``set game``), then ``go``; the answer is the next ``=== MOVE``
line.  An NBoard engine does not play the move it answers: it is sent back with
the others before the next ``go``, as a GUI does.  ``set myname NAME`` names the
seat whenever it comes; other chatter is kept as messages.

NBoard has no way to refuse a board size, so :meth:`NboardSeat.probe` (run by the
match's start check) asks an engine for a move on the start position of any board
other than 8x8 and fails the start when the answer is not legal there.
"""

from __future__ import annotations

import time

from engine.reversi.board.rules import ReversiConfig, ReversiState
from referee.games.clock import TimeControl, Turn
from referee.games.base import Illegal, Position
from referee.games.reversi import ReversiRules
from referee.seats.process import ProcessSeat, clip
from referee.games.verdicts import Termination
from referee.seats.base import Fault
from referee.engines.nboard_wire import (game_text, is_chatter, looks_like_square, myname, parse_go_reply, pong_of,
                                 position_lines)

__all__ = ["NboardSeat", "PROTOCOL_VERSION"]

#: The NBoard protocol version the referee speaks (Edax complains that it expects 1, and carries on).
PROTOCOL_VERSION = 2


class NboardSeat(ProcessSeat):
    """An NBoard engine playing one side of one game."""

    end_line = "quit"

    def __init__(self, spec, **kwargs) -> None:
        kwargs.pop("about_wait", None)  # NBoard engines name themselves; there is nothing to wait for
        super().__init__(spec, **kwargs)
        self.about_answered = True
        self._known: list[int] | None = None  # the moves the engine's game holds from the start
        self._pings = 0
        self._clock_ms = 0
        self._size = 8

    # Start-up -----------------------------------------------------------------------
    def launch(self, config: ReversiConfig, tc: TimeControl) -> None:
        """Spawn the engine, set the start position and ping it (the pong is read by :meth:`finish_start`)."""
        self._spawn()
        self._clock_ms = tc.match_ms
        self._size = config.size
        start = ReversiState(config.size)
        self._pings += 1
        # a kept engine is told the new game only: the protocol and its settings stand
        depth = [] if self.spec.nboard_depth is None else [f"set depth {self.spec.nboard_depth}"]
        hello = [] if self.kept else [f"nboard {PROTOCOL_VERSION}", *depth, *self.spec.init]
        self._send([*hello, f"set game {game_text(start, [], 0, tc.match_ms)}", f"ping {self._pings}"],
                   Termination.START_FAILED)
        self._known = []

    def finish_start(self, config: ReversiConfig, tc: TimeControl) -> None:
        """Wait for the ``pong`` to the start's ``ping``."""
        deadline = time.monotonic() + tc.start_ms / 1000
        while True:
            try:
                reply = self._read(deadline, Termination.START_FAILED, is_chatter)
            except Fault as f:
                raise Fault(f.termination, f.reason + self._size_note()) from f
            if reply is None:
                raise Fault(Termination.START_FAILED,
                            f"{self.name} did not answer ping {self._pings} within {tc.start_ms} ms"
                            + self._size_note())
            if pong_of(reply) == str(self._pings):
                return
            self._keep(reply)  # an unasked move or an old pong: noted, not an answer

    def probe(self, config: ReversiConfig, tc: TimeControl) -> None:
        """On a board other than 8x8, ask for a move on the start position: an engine that
        plays only 8x8 (and ignores another ``set game``) answers a square that is not legal."""
        if config.size == 8:
            return
        state = ReversiState(config.size)
        pos = Position(ReversiRules(config), state, [])
        limit = tc.turn_ms if tc.turn_ms > 0 else tc.match_ms
        budget = (limit + tc.tolerance_ms + tc.start_ms) / 1000
        word, _ = self._go(pos, budget)
        try:
            pos.rules.judge(state, word)
        except Illegal as exc:
            n = config.size
            raise Fault(Termination.START_FAILED,
                        f"{self.name} {exc} on the {n}x{n} start position: it does not seem to play "
                        f"{n}x{n} boards (NBoard has no way to refuse a board size)") from None

    # Moves --------------------------------------------------------------------------
    def ask(self, pos: Position, turn: Turn) -> tuple[str, float]:
        """Bring the engine to ``pos``, send ``go``: ``(the move's word, seconds used)``.

        Raises :class:`Fault` on timeout, crash or a ``===`` line without a square.
        """
        return self._go(pos, turn.budget_s)

    def _go(self, pos: Position, budget_s: float) -> tuple[str, float]:
        self._drain()
        state = pos.state
        lines = position_lines(self._known, state, pos.times_ms, pos.opening, self._clock_ms)
        self._send([*lines, "go"], Termination.CRASH)
        self._known = list(state.history)  # the engine does not play the move it answers
        deadline = self.sent_at + budget_s
        while True:
            reply = self._read(deadline, Termination.CRASH, is_chatter)
            if reply is None:
                raise Fault(Termination.TIMEOUT, f"{self.name} did not move within {budget_s * 1000:.0f} ms")
            answer = parse_go_reply(reply)
            if answer is not None:
                break
            self._keep(reply)  # a stale pong
        elapsed = self._elapsed()
        word, _ = answer
        if not looks_like_square(word):
            raise Fault(Termination.BAD_OUTPUT, f"{self.name} answered {clip(reply)!r} instead of a move")
        return word, elapsed

    def _keep(self, line: str) -> None:
        name = myname(line)
        if name and not self.spec.named:  # a name the user gave wins
            self.name = name[:60]
        super()._keep(line)

    def _size_note(self) -> str:
        n = self._size
        return "" if n == 8 else f" (after a set game of a {n}x{n} board: does it play only 8x8?)"
