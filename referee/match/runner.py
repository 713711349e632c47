"""Where a match's games are played: here (:class:`LocalRunner`) or on a Dask cluster
(:class:`referee.cluster.farm.ClusterFarm`), behind one interface.

A runner checks that the engines start (``check_engines``), plays games from their
jobs and hands each finished game to the match's ``finish`` callback on the calling
thread, in the order games end (``play``: ``finish`` returns True to start no
further game), reports its rate (``progress``) and ends whatever it started
(``close``).  Both play a game the same way: :func:`referee.play.job.play_job`; here the
engine processes are kept from game to game (:mod:`referee.play.pool`).
"""

from __future__ import annotations

import concurrent.futures as cf
import gc
import sys
import threading
from typing import Any, Callable, Iterable, Protocol

from referee.errors import MatchError
from referee.play.job import GameHooks, GameJob, PlayedGame, play_job
from referee.play.pool import EnginePool
from referee.engines.registry import ProcessRegistry
from referee.seats.spec import EngineSpec
from referee.seats.startcheck import check_engines

__all__ = ["Runner", "LocalRunner", "open_runner"]

#: How often the waiting coordinator wakes (to notice Ctrl-C promptly).
_WAKE_S = 0.5


class Runner(Protocol):
    """What a match asks of the place its games are played (see the module docstring)."""

    def check_engines(self, specs: dict[str, EngineSpec], config: Any, tc: Any, *,
                      stop: threading.Event) -> dict[str, Any]:
        """Start each engine once; the started seats (``name``, ``about_answered``) by tag."""

    def play(self, games: Iterable[int], job_of: Callable[[int], GameJob],
             finish: Callable[[PlayedGame], bool], *, stop: threading.Event, out_dir: str | None = None) -> None:
        """Play ``games`` and call ``finish`` as each ends."""

    def progress(self) -> dict[str, Any]:
        """Extra figures for the progress line (a cluster's ``rate`` and ``workers``)."""

    def close(self) -> None:
        """End everything the runner started."""


class LocalRunner:
    """Games played on this machine, ``concurrency`` at a time on threads (their work is
    waiting on pipes); with one at a time on the calling thread, where a person is asked
    for moves and Ctrl-C arrives.  ``hooks_of(job)`` gives a game what only a local game
    has (the terminal, the display's callbacks, the log folder)."""

    def __init__(self, concurrency: int, registry: ProcessRegistry,
                 hooks_of: Callable[[GameJob], GameHooks], keep_engines: bool = True) -> None:
        self.concurrency = max(1, concurrency)
        self.registry = registry
        self.hooks_of = hooks_of
        #: The engines kept between games (``None``: every game starts its own, ``--restart always``).
        self.pool = EnginePool() if keep_engines else None

    def check_engines(self, specs: dict[str, EngineSpec], config: Any, tc: Any, *,
                      stop: threading.Event) -> dict[str, Any]:
        """:func:`referee.seats.startcheck.check_engines` here."""
        return check_engines(specs, config, tc, registry=self.registry, stop=stop)

    def play(self, games: Iterable[int], job_of: Callable[[int], GameJob],
             finish: Callable[[PlayedGame], bool], *, stop: threading.Event, out_dir: str | None = None) -> None:
        """Play ``games`` (``out_dir``: the hooks write the logs there as games go)."""
        # A full garbage collection stops every game thread at once while it scans every object:
        # with quick turns that is charged to the engines' clocks.  What exists now (modules,
        # settings, the engines' seats) lives to the end: it is taken out of the collector's scans.
        gc.collect()
        gc.freeze()
        if self.concurrency == 1:
            for g in games:
                if stop.is_set() or finish(self._play(job_of(g), stop)):
                    return
            return
        with cf.ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="game") as pool:
            pending: set[cf.Future] = set()
            queue = list(games)
            halt = False
            try:
                while (queue and not halt) or pending:
                    while queue and not halt and len(pending) < self.concurrency:
                        pending.add(pool.submit(self._play, job_of(queue.pop(0)), stop))
                    done, pending = cf.wait(pending, timeout=_WAKE_S, return_when=cf.FIRST_COMPLETED)
                    for fut in done:
                        if finish(fut.result()):
                            halt = True
            finally:
                if stop.is_set() or sys.exc_info()[0] is not None:
                    stop.set()  # the games still being played end now, as interrupted
                    self.registry.kill_all()

    def progress(self) -> dict[str, Any]:
        """Nothing beyond the games themselves."""
        return {}

    def close(self) -> None:
        """End the engines kept between games, then kill and reap any engine still running."""
        if self.pool is not None:
            self.pool.close()
        self.registry.kill_all()

    def _play(self, job: GameJob, stop: threading.Event) -> PlayedGame:
        hooks = self.hooks_of(job)
        hooks.pool = self.pool
        return play_job(job, stop=stop, hooks=hooks)


def open_runner(cluster: str | None, concurrency: int, registry: ProcessRegistry,
                hooks_of: Callable[[GameJob], GameHooks], keep_engines: bool = True) -> Runner:
    """The cluster at ``cluster`` (opened; Dask is imported here, and only here), else a
    :class:`LocalRunner` (``keep_engines``: engine processes play game after game).  A
    cluster's games start their own engines."""
    if cluster is None:
        return LocalRunner(concurrency, registry, hooks_of, keep_engines)
    try:
        from referee.cluster.farm import ClusterFarm
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("dask", "distributed"):
            raise
        raise MatchError("--cluster needs Dask: pip install 'mnk-mcts[cluster]'") from None
    farm = ClusterFarm(cluster)
    farm.open()
    return farm
