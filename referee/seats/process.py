"""An engine process as one side of a game: what every wire adapter shares.

:class:`ProcessSeat` starts the engine, writes command lines, reads reply lines
with a deadline while polling the match's stop event, keeps the engine's chatter
(at most :data:`MAX_KEPT_MESSAGES` lines a game) and ends the process.  It talks to
the engine through a :class:`~referee.engines.transport.Transport`: an
:class:`~referee.engines.process.EngineProcess` in a match, an in-memory one in the
tests, so every verdict can be tried without processes.  Every
failure is raised as a :class:`~referee.games.verdicts.Fault` with the termination
the game records; the wire adapters (:mod:`referee.seats.gomocup`,
:mod:`referee.seats.nboard`) add what their protocol says.
"""

from __future__ import annotations

import threading
import time
from typing import IO, Callable, Sequence

from referee.engines.gomocup_wire import is_chatter as gomocup_chatter
from referee.engines.process import EngineProcess
from referee.engines.registry import ProcessRegistry
from referee.engines.transport import MAX_LINE_BYTES, OverlongLine, Transport
from referee.errors import EngineError, EngineExited, EngineStartError, EngineTimeout
from referee.games.clock import TimeControl
from referee.seats.spec import EngineSpec
from referee.games.verdicts import Termination
from referee.seats.base import Fault

__all__ = ["ProcessSeat", "MAX_KEPT_MESSAGES", "MAX_MESSAGE_CHARS", "clip", "exit_status"]

# How often a long wait re-checks the stop event (Ctrl-C responsiveness).
_POLL_S = 0.25
#: Informational lines kept per engine and game (each cut to this many characters).
MAX_KEPT_MESSAGES = 200
MAX_MESSAGE_CHARS = 300


class ProcessSeat:
    """An engine process playing one side of a game, or of game after game when it is kept
    (each ``launch`` after the first one starts a new game on the running process).

    ``tag`` names the process in the I/O log (e.g. ``engine1``); ``stop`` is
    polled during long waits so an interrupted match ends promptly; ``transport``
    replaces the engine process the seat would start from ``spec`` (the tests'
    in-memory engines).  A line longer than
    :data:`~referee.engines.transport.MAX_LINE_BYTES` is bad output (at the start:
    a failed start).
    Subclasses set :attr:`end_line` (how the protocol asks an engine to exit)
    and implement ``launch``, ``finish_start`` and ``ask``.
    """

    is_human = False
    quit_requested = False  # only a person ends a match
    end_line = "END"

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
        transport: Transport | None = None,
    ) -> None:
        self.spec = spec
        self.name = spec.label
        self.messages: list[str] = []
        self.proc: Transport = transport if transport is not None else EngineProcess(
            spec.argv, name=tag or spec.label, cwd=spec.cwd, send_delay_ms=spec.send_delay_ms,
            # the engine's own stderr file when the referee keeps none (no --log-io)
            log=log, stderr_path=stderr_path or spec.stderr_file, log_t0=log_t0, end_line=self.end_line,
        )
        self._registry = registry
        self._stop = stop
        #: True once the engine said its name (later games need not wait for it).
        self.about_answered = False
        #: ``time.monotonic()`` when the last command was fully written (start of the engine's clock).
        self.sent_at = 0.0
        #: Games this process was started for (more than one when it is kept between games).
        self.games = 0

    def probe(self, config, tc) -> None:
        """An extra check of a started engine before a match (the start check); nothing by default."""

    def time_control(self, tc: TimeControl) -> TimeControl:
        """The game's clock with this engine's own times, if it has any (time odds)."""
        return self.spec.time_control(tc)

    @property
    def replied_at(self) -> float:
        """When the last line was read off the engine's pipe."""
        return self.proc.last_line_time

    @property
    def send_delay_s(self) -> float:
        """The engine's send delay (``--send-delay-ms``), in seconds."""
        return self.proc.send_delay_s

    def taken_back(self, done: bool) -> None:
        """An engine never takes back; nothing to do."""

    def send_end(self) -> None:
        """Write the protocol's end line if the engine still runs; never raises, never waits."""
        if self.proc.is_alive():
            try:
                self.proc.send(self.end_line)
            except (EngineError, OSError, RuntimeError):
                pass

    def is_running(self) -> bool:
        """The engine process has not exited."""
        return self.proc.is_alive()

    def close(self, grace_s: float = 0.3) -> None:
        """End the process (its end line, grace period, kill the group, reap)."""
        self.proc.close(grace_s)
        if self._registry is not None:
            self._registry.discard(self.proc)

    @property
    def kept(self) -> bool:
        """The process plays on from an earlier game (it was started before this one)."""
        return self.games > 1

    # For the wire adapters -------------------------------------------------------------
    def _spawn(self) -> None:
        """Start the process for a new game, or keep the one that played the last game;
        :class:`Fault` ``start_failed`` when it cannot be run."""
        self.games += 1
        self.messages = []  # what the engine says is recorded game by game
        if self.games > 1:
            return
        try:
            self.proc.start()
        except EngineStartError as exc:
            raise Fault(Termination.START_FAILED, str(exc)) from exc
        if self._registry is not None:
            self._registry.add(self.proc)

    def _send(self, lines: Sequence[str], on_exit: Termination) -> None:
        """Write ``lines`` in one go and start the engine's clock; an engine that has gone
        is ``on_exit`` (``start_failed`` while starting, else a crash)."""
        try:
            self.proc.send_many(list(lines))
        except EngineExited as exc:
            raise Fault(on_exit if on_exit is Termination.START_FAILED else Termination.CRASH,
                        f"{self.name} exited{exit_status(exc.returncode)}") from exc
        except EngineTimeout as exc:
            raise Fault(Termination.TIMEOUT, f"{self.name} stopped reading its input") from exc
        self.sent_at = time.monotonic()

    def _read(self, deadline: float, on_exit: Termination,
              is_chatter: Callable[[str], bool] = gomocup_chatter) -> str | None:
        """Next reply line before ``deadline`` (chatter kept as messages), polling the stop event."""
        while True:
            now = time.monotonic()
            if self._stop is not None and self._stop.is_set():
                raise Fault(Termination.INTERRUPTED, "the match was interrupted")
            step = min(deadline, now + _POLL_S) if self._stop is not None else deadline
            try:
                reply, skipped = self.proc.read_reply(step, is_chatter)
            except EngineExited as exc:
                for line in getattr(exc, "skipped", []):
                    self._keep(line)
                raise Fault(on_exit, f"{self.name} exited{exit_status(exc.returncode)}") from exc
            except EngineError as exc:
                raise Fault(on_exit, f"{self.name}: {exc}") from exc
            for line in skipped:
                self._keep(line)
            if isinstance(reply, OverlongLine):
                raise self._overlong(on_exit)
            if reply is not None:
                return reply
            if step >= deadline:
                return None

    def _drain(self) -> None:
        """Keep the output that arrived between turns (it is never taken as a move)."""
        for line in self.proc.drain():
            if isinstance(line, OverlongLine):
                raise self._overlong(Termination.BAD_OUTPUT)
            self._keep(line)

    def _overlong(self, on_exit: Termination) -> Fault:
        """The fault of a line over the cap: a failed start while starting, else bad output."""
        kind = Termination.START_FAILED if on_exit is Termination.START_FAILED else Termination.BAD_OUTPUT
        return Fault(kind, f"{self.name} sent a line of more than {MAX_LINE_BYTES // 1024} kB")

    def _elapsed(self) -> float:
        """Seconds from the last command written to the reply just read (the referee's measure)."""
        return max(0.0, self.proc.last_line_time - self.sent_at)

    def _keep(self, line: str) -> None:
        if line.strip() and len(self.messages) < MAX_KEPT_MESSAGES:
            self.messages.append(clip(line, MAX_MESSAGE_CHARS))


def clip(text: str, n: int = 80) -> str:
    """``text`` cut to ``n`` characters (an ellipsis says so)."""
    return text if len(text) <= n else text[:n] + "…"


def exit_status(code: int | None) -> str:
    """`` (exit status 3)``, `` (killed by signal 9)`` or nothing."""
    if code is None:
        return ""
    if code < 0:
        return f" (killed by signal {-code})"
    return f" (exit status {code})"
