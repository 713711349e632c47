"""The two sides of a game as the referee sees them: an engine process or a human at the terminal.

A seat speaks the protocol and reports misbehaviour by raising :class:`Fault`;
it never decides who won (that is :mod:`referee.game`'s job).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import threading
import time
from dataclasses import dataclass
from typing import IO, Callable, Sequence

from engine.mnk.rules import Board, GameConfig, render
from referee.process import EngineError, EngineExited, EngineProcess, EngineStartError, EngineTimeout
from referee.termination import Termination
from referee.wire import looks_like_about, parse_about, parse_move, start_command

__all__ = ["Fault", "UndoRequest", "EngineSpec", "TimeControl", "EngineSeat", "HumanSeat", "ProcessRegistry",
           "name_from_argv", "parse_human_move", "HUMAN_HELP"]

HUMAN = "human"
# How often a long wait re-checks the stop event (Ctrl-C responsiveness).
_POLL_S = 0.25
# Informational lines kept per engine and game (each cut to this many characters).
MAX_KEPT_MESSAGES = 200
MAX_MESSAGE_CHARS = 300



def win_length_lines(config: GameConfig) -> list[str]:
    """``INFO win_length K`` (this project's extension) when K is not the protocol's default 5.

    Five in a row needs no extension, and some engines (Rapfi) read an unknown
    INFO key's value as a command, so it is only sent when it matters.
    """
    return [] if config.win_length == 5 else [f"INFO win_length {config.win_length}"]

class Fault(Exception):
    """A seat broke the rules (or resigned): it loses with this ``termination`` and ``reason``."""

    def __init__(self, termination: Termination, reason: str) -> None:
        super().__init__(reason)
        self.termination = termination
        self.reason = reason


class UndoRequest(Exception):
    """Raised by a human seat's ``ask``: take back its last move and the replies since.

    The game answers by calling the seat's ``taken_back(done)`` and asking again.
    """


@dataclass(frozen=True)
class TimeControl:
    """Clock settings of a game, in milliseconds.

    - ``turn_ms``: time per move (0 = no per-move limit; then ``INFO timeout_turn``
      carries ``match_ms``, or 0 when there is no clock at all).
    - ``match_ms``: time per game and side (0 = none).
    - ``tolerance_ms``: extra time granted before a move counts as late, like
      Piskvork's "tolerance" (default 1000 ms there): it absorbs process start-up,
      pipe latency and machine load, so the engine is told ``turn_ms`` but lost
      only after ``turn_ms + tolerance_ms``.
    - ``start_ms``: how long an engine may take to answer ``START`` with ``OK``
      (includes its start-up; not charged to its clock).
    - ``about_ms``: how long to wait for an ``ABOUT`` answer before naming the
      engine after its command.
    """

    turn_ms: int = 1000
    match_ms: int = 0
    tolerance_ms: int = 1000
    start_ms: int = 5000
    about_ms: int = 1500

    def info_lines(self) -> list[str]:
        """The ``INFO`` time settings sent to engines at the start of a game."""
        turn = self.turn_ms if self.turn_ms > 0 else self.match_ms
        return [f"INFO timeout_turn {turn}", f"INFO timeout_match {self.match_ms}"]


@dataclass(frozen=True)
class EngineSpec:
    """How to run one side: a command line (``argv``) or a human (``argv`` empty)."""

    argv: tuple[str, ...]
    label: str
    send_delay_ms: float = 0
    cwd: str | None = None

    @classmethod
    def parse(cls, text: str, *, send_delay_ms: float = 0) -> "EngineSpec":
        """``human`` (or ``human:NAME``) or one command line (shlex-split, run without a shell)."""
        head, sep, name = text.strip().partition(":")
        if head.lower() == HUMAN:
            name = " ".join(name.split())
            if sep and not name:
                raise ValueError("human:NAME needs a name")
            return cls((), name[:40] if sep else HUMAN, 0)
        # A shell would expand a leading ~ in each word, but the engine string is quoted.
        argv = tuple(os.path.expanduser(w) if w.startswith("~") else w for w in shlex.split(text))
        if not argv:
            raise ValueError("empty engine command")
        return cls(argv, name_from_argv(argv), send_delay_ms)

    @property
    def is_human(self) -> bool:
        return not self.argv


def name_from_argv(argv: Sequence[str]) -> str:
    """A readable fallback name: the program's base name without ``pbrain-`` and extension;
    for ``python script.py`` / ``python -m module`` the script or module."""
    prog = os.path.basename(argv[0])
    if prog.startswith("python") and len(argv) > 1:
        rest = list(argv[1:])
        if rest[0] == "-m" and len(rest) > 1:
            return rest[1]
        for a in rest:
            if not a.startswith("-"):
                prog = os.path.basename(a)
                break
    stem, ext = os.path.splitext(prog)
    if ext.lower() in (".exe", ".py", ".sh", ".bat"):
        prog = stem
    if prog.lower().startswith("pbrain-") and len(prog) > 7:
        prog = prog[7:]
    return prog or "engine"


class ProcessRegistry:
    """Every live engine process of a match, so an interrupt can kill them all.

    One instance per match (no module-level state).  Thread-safe; ``kill_all``
    may be called from the main thread while workers run games.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._procs: set[EngineProcess] = set()

    def add(self, proc: EngineProcess) -> None:
        with self._lock:
            self._procs.add(proc)

    def discard(self, proc: EngineProcess) -> None:
        with self._lock:
            self._procs.discard(proc)

    def __len__(self) -> int:
        with self._lock:
            return len(self._procs)

    def kill_all(self) -> None:
        """Kill and reap every registered process (their whole process groups)."""
        with self._lock:
            procs = list(self._procs)
            self._procs.clear()
        for p in procs:
            p.kill()


class EngineSeat:
    """An engine process playing one side of one game.

    ``tag`` names the process in the I/O log (e.g. ``engine1``); ``stop`` is
    polled during long waits so an interrupted match ends promptly;
    ``about_wait=False`` sends ``ABOUT`` without waiting for the answer (for an
    engine already known not to answer it, so each game does not lose ``about_ms``).
    """

    is_human = False

    def __init__(
        self,
        spec: EngineSpec,
        *,
        log: IO[str] | None = None,
        stderr_path: str | None = None,
        registry: ProcessRegistry | None = None,
        stop: threading.Event | None = None,
        tag: str | None = None,
        log_t0: float | None = None,
        about_wait: bool = True,
    ) -> None:
        self.spec = spec
        self.name = spec.label
        self.about: dict[str, str] = {}
        self.messages: list[str] = []
        self.proc = EngineProcess(
            spec.argv, name=tag or spec.label, cwd=spec.cwd, send_delay_ms=spec.send_delay_ms,
            log=log, stderr_path=stderr_path, log_t0=log_t0,
        )
        self._registry = registry
        self._stop = stop
        self._about_pending = False
        self._about_wait = about_wait
        #: True once the engine answered ``ABOUT`` with a name.
        self.about_answered = False
        #: ``time.monotonic()`` when the last command was fully written (start of the engine's clock).
        self.sent_at = 0.0

    # Start-up -----------------------------------------------------------------------
    def launch(self, config: GameConfig, tc: TimeControl) -> None:
        """Spawn the engine and send the ``START``/``RECTSTART`` command (answer read by :meth:`finish_start`)."""
        try:
            self.proc.start()
        except EngineStartError as exc:
            raise Fault(Termination.START_FAILED, str(exc)) from exc
        if self._registry is not None:
            self._registry.add(self.proc)
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
            raise Fault(Termination.START_FAILED, f"{self.name} refused START: {_clip(reply)!r}")
        self._send([
            *tc.info_lines(),
            "INFO max_memory 0",
            "INFO game_type 1",
            f"INFO rule {config.rule.gomocup_bits}",
            *win_length_lines(config),
            "ABOUT",
        ], Termination.CRASH)
        wait_s = tc.about_ms / 1000 if self._about_wait else 0.0
        reply = self._read(time.monotonic() + wait_s, Termination.CRASH)
        if reply is None:
            self._about_pending = True  # a late answer must not be taken for a move
            return
        about = parse_about(reply)
        if about.get("name"):
            self.about_answered = True
            self.about = about
            self.name = about["name"].strip()[:60] or self.name

    # Moves --------------------------------------------------------------------------
    def ask(self, lines: Sequence[str], budget_s: float, board: Board) -> tuple[tuple[int, int], float]:
        """Send ``lines`` (ending with BEGIN/TURN/BOARD…DONE), return ``((x, y), seconds used)``.

        ``budget_s`` is the time allowed including tolerance.  Raises
        :class:`Fault` on timeout, crash or a reply that is not a move.
        """
        for line in self.proc.drain():  # stray output between turns is kept, not taken as a move
            self._keep(line)
        self._send(lines, Termination.CRASH)
        deadline = self.sent_at + budget_s
        while True:
            reply = self._read(deadline, Termination.CRASH)
            if reply is None:
                raise Fault(Termination.TIMEOUT, f"{self.name} did not move within {budget_s * 1000:.0f} ms")
            if self._about_pending and looks_like_about(reply):
                self._about_pending = False
                self._keep(reply)
                continue
            break
        elapsed = max(0.0, self.proc.last_line_time - self.sent_at)
        move = parse_move(reply)
        if move is None:
            raise Fault(Termination.BAD_OUTPUT, f"{self.name} answered {_clip(reply)!r} instead of a move")
        return move, elapsed

    def close(self, grace_s: float = 0.3) -> None:
        """End the process (END, grace period, kill the group, reap)."""
        self.proc.close(grace_s)
        if self._registry is not None:
            self._registry.discard(self.proc)

    # Internals ----------------------------------------------------------------------
    def _send(self, lines: Sequence[str], on_exit: Termination) -> None:
        try:
            self.proc.send_many(list(lines))
        except EngineExited as exc:
            raise Fault(on_exit if on_exit is Termination.START_FAILED else Termination.CRASH,
                        f"{self.name} exited{_status(exc.returncode)}") from exc
        except EngineTimeout as exc:
            raise Fault(Termination.TIMEOUT, f"{self.name} stopped reading its input") from exc
        self.sent_at = time.monotonic()

    def _read(self, deadline: float, on_exit: Termination) -> str | None:
        """Next reply line before ``deadline`` (informational lines kept), polling the stop event."""
        while True:
            now = time.monotonic()
            if self._stop is not None and self._stop.is_set():
                raise Fault(Termination.INTERRUPTED, "the match was interrupted")
            step = min(deadline, now + _POLL_S) if self._stop is not None else deadline
            try:
                reply, skipped = self.proc.read_reply(step)
            except EngineExited as exc:
                for line in getattr(exc, "skipped", []):
                    self._keep(line)
                raise Fault(on_exit, f"{self.name} exited{_status(exc.returncode)}") from exc
            except EngineError as exc:
                raise Fault(on_exit, f"{self.name}: {exc}") from exc
            for line in skipped:
                self._keep(line)
            if reply is not None:
                return reply
            if step >= deadline:
                return None

    def _keep(self, line: str) -> None:
        if line.strip() and len(self.messages) < MAX_KEPT_MESSAGES:
            self.messages.append(_clip(line, MAX_MESSAGE_CHARS))


#: What a person may type at the move prompt (printed by ``help``).
HUMAN_HELP = """\
  Type a move as two numbers, the column (x, across) then the row (y, down), as on the
  board's edges: "7,7" or "7 7" (0-based, like the Gomocup protocol). Commands:
    help     this text
    undo     take back your last move and the engine's reply
    resign   give up this game (the match goes on)
    quit     give up this game and end the match (end of input, Ctrl-D, does the same)"""

_HUMAN_MOVE_RE = re.compile(r"^\(?\s*(-?\d{1,6})\s*(?:,\s*|\s+)(-?\d{1,6})\s*\)?$")
_LETTER_MOVE_RE = re.compile(r"^[a-zA-Z]\s*\d{1,3}$")


def parse_human_move(text: str) -> tuple[int, int] | None:
    """``(x, y)`` from ``7,7``, ``7 7``, ``7, 7`` or ``(7,7)``; ``None`` for anything else.

    Letter forms such as ``h8`` are refused on purpose: renju notation counts
    rows from the bottom and from 1, c-gomoku-cli's ``pos`` lines from the top,
    so the same text would name different cells; the board shows numbers.
    """
    m = _HUMAN_MOVE_RE.match(text.strip())
    return None if m is None else (int(m.group(1)), int(m.group(2)))


class HumanSeat:
    """A person playing at the terminal: prompted for a move, re-prompted on bad input.

    Accepts the moves of :func:`parse_human_move` and the commands of
    :data:`HUMAN_HELP`: ``undo`` raises :class:`UndoRequest`; ``resign``
    loses the game (termination ``resign``); ``quit`` and the end of input
    (Ctrl-D) lose it too and set :attr:`quit_requested`, which ends the match.
    Humans have no clock (their thinking time is recorded, never enforced).
    The board is printed before each prompt when ``show_board`` is set, and
    always before the first one and after a take-back.
    """

    is_human = True

    def __init__(self, *, name: str = HUMAN, input_fn: Callable[[str], str] = input,
                 output: IO[str] | None = None, show_board: bool = False) -> None:
        self.name = name
        self.show_board = show_board
        self.messages: list[str] = []
        #: Set by ``quit`` or the end of input: the match should start no further game.
        self.quit_requested = False
        self._input = input_fn
        self._out = output if output is not None else sys.stdout
        self._board_due = True  # the first prompt of a game always shows the board
        self.sent_at = 0.0

    def launch(self, config: GameConfig, tc: TimeControl) -> None:
        """Nothing to start."""

    def finish_start(self, config: GameConfig, tc: TimeControl) -> None:
        """Nothing to wait for."""

    def ask(self, lines: Sequence[str], budget_s: float, board: Board) -> tuple[tuple[int, int], float]:
        """Prompt until the person types a legal move (0-based ``x,y``) or a command."""
        cfg = board.config
        mark = "X" if board.stone_count % 2 == 0 else "O"
        if self.show_board or self._board_due:
            self._board_due = False
            last = board.history[-1] if board.history else None
            print(render(board, last), file=self._out, flush=True)
        self.sent_at = time.monotonic()
        while True:
            try:
                text = self._input(f"{self.name} ({mark}) move, or 'help': ")
            except EOFError:
                print(f"\n  end of input: {self.name} resigns this game and the match ends", file=self._out)
                self.quit_requested = True
                raise Fault(Termination.RESIGN, f"{self.name} resigned (end of input) and ended the match") from None
            word = text.strip().lower()
            if word in ("help", "?", "h"):
                print(HUMAN_HELP, file=self._out)
                continue
            if word == "undo":
                raise UndoRequest()
            if word == "resign":
                raise Fault(Termination.RESIGN, f"{self.name} resigned")
            if word in ("quit", "exit"):
                self.quit_requested = True
                raise Fault(Termination.RESIGN, f"{self.name} resigned (quit) and ended the match")
            move = parse_human_move(text)
            if move is None:
                if _LETTER_MOVE_RE.match(word):
                    print("  letters are not used here: type the column and row numbers shown on the "
                          "board, like 7,7 or 7 7", file=self._out)
                else:
                    print("  please type two numbers, column then row, like 7,7 or 7 7 ('help' for more)",
                          file=self._out)
                continue
            x, y = move
            if not cfg.on_board(x, y):
                print(f"  {x},{y} is off the {cfg.width}x{cfg.height} board (0..{cfg.width - 1}, "
                      f"0..{cfg.height - 1})", file=self._out)
                continue
            if not board.is_empty(cfg.move(x, y)):
                print(f"  {x},{y} is occupied", file=self._out)
                continue
            return move, time.monotonic() - self.sent_at

    def taken_back(self, done: bool) -> None:
        """Told by the game after ``undo``: ``done`` says whether any move was taken back."""
        if done:
            self._board_due = True
            print("  taken back", file=self._out)
        else:
            print("  nothing to take back: you have not moved yet in this game", file=self._out)

    def close(self, grace_s: float = 0.0) -> None:
        """Nothing to end."""


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "…"


def _status(code: int | None) -> str:
    if code is None:
        return ""
    if code < 0:
        return f" (killed by signal {-code})"
    return f" (exit status {code})"
