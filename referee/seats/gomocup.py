"""The Gomocup wire adapter: an m,n,k engine process as one side of a game.

It starts the engine (``START``/``RECTSTART``, the ``INFO`` settings, ``ABOUT``),
keeps track of what the engine's own board holds, and asks for each move with the
fewest lines that bring that board to the referee's position: ``BEGIN`` on the
empty board, ``TURN x,y`` after one new stone, else the whole position as
``BOARD`` (an opening, a take-back).  ``INFO time_left`` goes before every move.
"""

from __future__ import annotations

import time
from typing import Sequence

from engine.mnk.board.rules import GameConfig
from referee.games.clock import TimeControl, Turn
from referee.games.base import Position
from referee.seats.process import ProcessSeat, clip
from referee.games.verdicts import Termination
from referee.seats.base import Fault
from referee.engines.gomocup_wire import board_block, looks_like_about, parse_about, parse_move, start_command

__all__ = ["GomocupSeat", "position_lines", "time_info_lines", "win_length_lines", "UNLIMITED_MS"]

#: ``INFO time_left`` value meaning "no match clock" (the protocol's convention).
UNLIMITED_MS = 2147483647


def win_length_lines(config: GameConfig) -> list[str]:
    """``INFO win_length K`` (this project's extension) when K is not the protocol's default 5.

    Five in a row needs no extension, and some engines (Rapfi) read an unknown
    INFO key's value as a command, so it is only sent when it matters.
    """
    return [] if config.win_length == 5 else [f"INFO win_length {config.win_length}"]


def time_info_lines(tc: TimeControl) -> list[str]:
    """The ``INFO`` time settings sent at the start of a game (without a per-move limit,
    ``timeout_turn`` carries the match time, or 0 when there is no clock at all)."""
    turn = tc.turn_ms if tc.turn_ms > 0 else tc.match_ms
    return [f"INFO timeout_turn {turn}", f"INFO timeout_match {tc.match_ms}"]


def position_lines(known: Sequence[int], pos: Position) -> list[str]:
    """The lines that take an engine whose board holds ``known`` (moves in order) to the
    position ``pos``: ``BEGIN``, ``TURN x,y`` or a ``BOARD`` block from the side to move's view."""
    board = pos.state
    cfg = board.config
    hist = list(board.history)
    if not hist and not known:
        return ["BEGIN"]
    if len(hist) == len(known) + 1 and hist[:-1] == list(known) and len(hist) > pos.opening:
        x, y = cfg.xy(hist[-1])
        return [f"TURN {x},{y}"]
    me = board.to_move
    stones = []
    for m in hist:
        x, y = cfg.xy(m)
        stones.append((x, y, 1 if board[m] == me else 2))
    return board_block(stones)


class GomocupSeat(ProcessSeat):
    """A Gomocup brain playing one side of one game.

    ``about_wait=False`` sends ``ABOUT`` without waiting for the answer (for an
    engine already known not to answer it, so each game does not lose ``about_ms``).
    """

    end_line = "END"

    def __init__(self, spec, *, about_wait: bool = True, **kwargs) -> None:
        super().__init__(spec, **kwargs)
        self.about: dict[str, str] = {}
        self._about_pending = False
        self._about_wait = about_wait
        self._known: list[int] = []  # the stones the engine's board holds, in order

    # Start-up -----------------------------------------------------------------------
    def launch(self, config: GameConfig, tc: TimeControl) -> None:
        """Spawn the engine and send the ``START``/``RECTSTART`` command (answer read by :meth:`finish_start`)."""
        self._spawn()
        self._known = []
        self._about_pending = False
        # START again on a kept engine begins a new game, as c-gomoku-cli does it.
        # Win length and rule go before START as well, so a brain that checks the
        # board size against the win length accepts small boards.
        self._send([
            *win_length_lines(config),
            f"INFO rule {config.rule.gomocup_bits}",
            start_command(config.width, config.height),
        ], Termination.START_FAILED)

    def finish_start(self, config: GameConfig, tc: TimeControl) -> None:
        """Wait for ``OK`` to START, send the ``INFO`` settings, ask ``ABOUT``."""
        reply = self._read(time.monotonic() + tc.start_ms / 1000, Termination.START_FAILED)
        if reply is None:
            raise Fault(Termination.START_FAILED, f"{self.name} did not answer START within {tc.start_ms} ms")
        if reply.strip().upper() != "OK":
            raise Fault(Termination.START_FAILED, f"{self.name} refused START: {clip(reply)!r}")
        self._send([
            *time_info_lines(tc),
            "INFO max_memory 0",
            "INFO game_type 1",
            f"INFO rule {config.rule.gomocup_bits}",
            *win_length_lines(config),
            *(f"INFO {key} {value}" for key, value in self.spec.info),  # the engine's own settings
            *self.spec.init,  # its init lines (an engines file's initStrings)
            *([] if self.kept and self.about_answered else ["ABOUT"]),  # a kept engine said its name
        ], Termination.CRASH)
        if self.kept and self.about_answered:
            return
        wait_s = tc.about_ms / 1000 if self._about_wait else 0.0
        reply = self._read(time.monotonic() + wait_s, Termination.CRASH)
        if reply is None:
            self._about_pending = True  # a late answer must not be taken for a move
            return
        about = parse_about(reply)
        if about.get("name"):
            self.about_answered = True
            self.about = about
            if not self.spec.named:  # a name the user gave wins
                self.name = about["name"].strip()[:60] or self.name

    # Moves --------------------------------------------------------------------------
    def ask(self, pos: Position, turn: Turn) -> tuple[tuple[int, int], float]:
        """Bring the engine to ``pos`` and ask for a move: ``((x, y), seconds used)``.

        Raises :class:`Fault` on timeout, crash or a reply that is not a move.
        """
        self._drain()
        left = UNLIMITED_MS if turn.left_ms is None else int(turn.left_ms)
        lines = [f"INFO time_left {left}", *position_lines(self._known, pos)]
        self._send(lines, Termination.CRASH)
        deadline = self.sent_at + turn.budget_s
        while True:
            reply = self._read(deadline, Termination.CRASH)
            if reply is None:
                raise Fault(Termination.TIMEOUT, f"{self.name} did not move within {turn.budget_s * 1000:.0f} ms")
            if self._about_pending and looks_like_about(reply):
                self._about_pending = False
                self._keep(reply)
                continue
            break
        elapsed = self._elapsed()
        move = parse_move(reply)
        if move is None:
            raise Fault(Termination.BAD_OUTPUT, f"{self.name} answered {clip(reply)!r} instead of a move")
        cfg = pos.state.config
        # A Gomocup engine plays its own move on its board (an illegal one ends the game).
        self._known = list(pos.state.history) + ([cfg.move(*move)] if cfg.on_board(*move) else [])
        return move, elapsed
