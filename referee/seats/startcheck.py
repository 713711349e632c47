"""The start check: every engine of a match started once, as a game would, before any game.

Kept apart from :mod:`referee.match.run` so that what a cluster worker runs
(:mod:`referee.cluster.worker`) needs no match loop.
"""

from __future__ import annotations

import os
import shlex
import tempfile
import threading

from typing import Any

from referee.engines.registry import close_many
from referee.errors import EngineStartError, MatchError
from referee.seats.process import ProcessSeat
from referee.engines.registry import ProcessRegistry
from referee.games.clock import TimeControl
from referee.seats.base import Fault
from referee.seats.factory import engine_seat_class
from referee.seats.spec import EngineSpec

__all__ = ["check_engines"]


#: How much of an engine's stderr a failed start check quotes.
_STDERR_TAIL_CHARS = 300


def check_engines(
    specs: dict[str, EngineSpec],
    config: Any,
    tc: TimeControl,
    *,
    registry: ProcessRegistry | None = None,
    stop: threading.Event | None = None,
) -> dict[str, ProcessSeat]:
    """Start every engine of ``specs`` (tag -> spec; built-in seats skipped) once, as a game would, then end it.

    The seat is the game's (``config``: Gomocup for m,n,k, NBoard for Reversi); after
    it has started, its ``probe`` runs (NBoard: a move on a board other than 8x8).

    Engines are started side by side; a command given for both sides is started
    once.  Returns the checked seats by tag (closed; their ``name`` and
    ``about_answered`` tell what ``ABOUT`` said).  Raises :class:`MatchError`
    naming every engine that cannot start, with why (and the end of its
    stderr, where it said something).  Returns early, without error, when
    ``stop`` is set meanwhile.
    """
    unique: dict[EngineSpec, list[str]] = {}
    for tag, spec in specs.items():
        if spec.is_process:
            unique.setdefault(spec, []).append(tag)
    if not unique:
        return {}
    problems: dict[EngineSpec, str] = {}
    checked: dict[str, ProcessSeat] = {}
    seat_class = engine_seat_class(config)
    with tempfile.TemporaryDirectory(prefix="referee-check-") as tmp:
        seats: dict[EngineSpec, ProcessSeat] = {}
        errs: dict[EngineSpec, str] = {}
        for i, (spec, tags) in enumerate(unique.items()):
            errs[spec] = os.path.join(tmp, f"{i}.stderr")
            seats[spec] = seat_class(spec, registry=registry, stop=stop, tag=tags[0], stderr_path=errs[spec])
        try:
            for spec, seat in seats.items():  # spawn all, then wait for all: as a game starts
                try:
                    seat.launch(config, tc)
                except Fault as f:
                    cause = f.__cause__
                    problems[spec] = (f"cannot be started: {cause.why}" if isinstance(cause, EngineStartError)
                                      else f"failed to start: {f.reason}")
            for spec, seat in seats.items():
                if spec in problems:
                    continue
                try:
                    seat.finish_start(config, tc)
                    seat.probe(config, tc)
                except Fault as f:
                    problems[spec] = f"failed to start: {f.reason}"
        finally:
            close_many([s.proc for s in seats.values()], 0.3)
            for seat in seats.values():
                seat.close(0.0)
        if stop is not None and stop.is_set():
            return {}
        if problems:
            parts = []
            for spec, why in problems.items():
                said = _tail(errs[spec])
                cmd = shlex.join(spec.argv)
                parts.append(f"{' and '.join(unique[spec])} ({cmd}) {why}"
                             + (f"; its stderr ends: {said!r}" if said else ""))
            raise MatchError("; ".join(parts) + "; no game was played")
    for spec, tags in unique.items():
        for tag in tags:
            checked[tag] = seats[spec]
    return checked


def _tail(path: str) -> str:
    """The last non-blank line of a file (cut to a readable length), or ``""``."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    lines = [ln.strip() for ln in lines if ln.strip()]
    if not lines:
        return ""
    last = lines[-1]
    return last if len(last) <= _STDERR_TAIL_CHARS else last[:_STDERR_TAIL_CHARS] + "…"
