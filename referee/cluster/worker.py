"""What a cluster match runs on each Dask worker: its switch (a worker plugin) and its two tasks.

:class:`MatchSwitch` is one match's state on one worker process: the answer
of the start check there (made once, by the first task that needs it, so a
worker that joins or is restarted mid-match is checked before it plays), and
two switches the coordinator flips with :func:`flip`: ``drain`` (start no
game) and ``stop`` (end the games being played, as ``interrupted``).

:func:`check_task` is the start check; :func:`game_task` plays one game, or
answers ``None`` (its match wants no more games) or :class:`Unfit` (this
worker cannot start the engines: the coordinator ends the match saying so).
"""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass
from typing import Any

from distributed import WorkerPlugin, get_worker

from referee.play.job import GameJob, PlayedGame, play_job
from referee.games.clock import TimeControl
from referee.seats.spec import EngineSpec
from referee.errors import MatchError
from referee.seats.startcheck import check_engines

__all__ = ["MatchSwitch", "Unfit", "flip", "check_task", "game_task"]


class MatchSwitch(WorkerPlugin):
    """One match on one worker: the start check of ``specs`` (tag -> spec), once; ``drain`` and ``stop``.

    ``ignore_interrupts``: the worker shares the coordinator's terminal (a
    local cluster), so a Ctrl-C there is the coordinator's to handle.
    """

    def __init__(self, specs: dict[str, EngineSpec], config: Any, tc: TimeControl,
                 ignore_interrupts: bool = False) -> None:
        self.specs, self.config, self.tc = specs, config, tc
        self.ignore_interrupts = ignore_interrupts
        self.drain = threading.Event()
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._checked: dict[str, tuple[str, bool]] | str | None = None  # the answer, or why not

    def __getstate__(self) -> dict:
        # What travels to the workers; the events and the lock are made anew where it lands.
        return {"specs": self.specs, "config": self.config, "tc": self.tc,
                "ignore_interrupts": self.ignore_interrupts}

    def __setstate__(self, state: dict) -> None:
        self.__init__(**state)

    def setup(self, worker) -> None:
        if self.ignore_interrupts and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    def check(self) -> dict[str, tuple[str, bool]]:
        """Each engine's name and whether it answered ``ABOUT``, by the start check on this worker.

        Run once; raises :class:`MatchError` (each time) when an engine cannot start here.
        """
        with self._lock:
            if self._checked is None:
                try:
                    seats = check_engines(self.specs, self.config, self.tc, stop=self.stop)
                    self._checked = {tag: (seat.name, seat.about_answered) for tag, seat in seats.items()}
                except MatchError as exc:
                    self._checked = str(exc)
            checked = self._checked
        if isinstance(checked, str):
            raise MatchError(checked)
        return checked


@dataclass(frozen=True)
class Unfit:
    """A game task's answer where the engines cannot start: the ``worker``'s address and ``why``."""

    worker: str
    why: str


def switch_of(name: str) -> MatchSwitch | None:
    """The switch of the match ``name`` on this worker (``None`` outside a worker, or before it arrived)."""
    try:
        switch = get_worker().plugins.get(name)
    except ValueError:  # not on a worker
        return None
    return switch if isinstance(switch, MatchSwitch) else None


def flip(name: str, what: str, dask_worker=None) -> None:
    """On a worker (through ``Client.run``): set the switch ``what`` (``drain`` or ``stop``) of the match ``name``."""
    switch = dask_worker.plugins.get(name) if dask_worker is not None else None
    if isinstance(switch, MatchSwitch):
        getattr(switch, what).set()


def check_task(name: str) -> dict[str, tuple[str, bool]]:
    """The start check on this worker (see :meth:`MatchSwitch.check`)."""
    switch = switch_of(name)
    if switch is None:
        raise MatchError("the match's switch did not reach this worker")
    return switch.check()


def game_task(job: GameJob, name: str) -> PlayedGame | Unfit | None:
    """Play one game here: its finished record, ``None`` once the match wants no more, or :class:`Unfit`."""
    switch = switch_of(name)
    if switch is None:
        return play_job(job)  # nothing can stop it but its end
    if switch.drain.is_set() or switch.stop.is_set():
        return None
    try:
        switch.check()
    except MatchError as exc:
        return Unfit(get_worker().address, str(exc))
    return play_job(job, stop=switch.stop)
