"""The referee's errors, one tree: what stops a command, as opposed to a game's verdict.

A misbehaving engine in a game is no error: its seat raises
:class:`referee.seats.base.Fault` and the game records a verdict.  These are the
failures of the referee's own work: an engine that cannot be run at all, a match
that cannot start, a transcript that cannot be read.
"""

from __future__ import annotations

__all__ = ["RefereeError", "EngineError", "EngineStartError", "EngineExited", "EngineTimeout",
           "MatchError", "ScriptError"]


class RefereeError(Exception):
    """The root of the referee's own errors."""


class EngineError(RefereeError):
    """An engine process failed (raised by :class:`referee.engines.process.EngineProcess`)."""


class EngineStartError(EngineError):
    """The engine program could not be spawned (missing file, not executable, ...).

    ``why`` says it without the engine's name and command
    (see :func:`referee.engines.process.spawn_failure_text`).
    """

    def __init__(self, message: str, why: str = "") -> None:
        super().__init__(message)
        self.why = why or message


class EngineExited(EngineError):
    """The engine closed its stdout or exited (a crash, unless we asked it to end).

    ``returncode`` is the exit status when already known (negative = killed by
    that signal), else ``None``.
    """

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode = returncode


class EngineTimeout(EngineError):
    """Writing to the engine could not complete in time (it stopped reading stdin)."""


class MatchError(RefereeError):
    """A match cannot start (an engine that cannot start, a results file from another match
    without ``--resume``, ...)."""


class ScriptError(RefereeError, ValueError):
    """A transcript line that cannot be understood (``line_no`` is 1-based)."""

    def __init__(self, message: str, line_no: int = 0, source: str = "") -> None:
        super().__init__(f"{source}:{line_no}: {message}" if line_no else message)
        self.line_no = line_no
