"""A match's games farmed out to a Dask cluster, seen from the coordinator: one game is one task.

Only imported for ``referee --cluster ADDRESS`` (it imports Dask); what runs
on the workers is :mod:`referee.cluster.worker`.  :class:`ClusterFarm` starts
a local cluster (``local:N``: N single-threaded worker processes, shut down
at the end) or connects to a running scheduler (its workers are left
running), then:

- checks, on every connected worker, that both engine commands start there
  (:func:`referee.seats.startcheck.check_engines`, run as a task pinned to each worker):
  a worker that cannot start one fails the match with one message (a worker
  that joins later is checked by its first game, with the same outcome);
- plays each game as one task (:func:`referee.play.job.play_job`, the same
  adjudication as a local game) and hands each finished record to the
  match's ``finish`` callback on the calling thread, in the order games end,
  so the coordinator stays the only writer of results and records;
- keeps at most two games per worker thread submitted (one playing, one
  ready to start), so a game not yet submitted is simply never started;
- stops early through the match's switch on every worker: ``drain`` (an SPRT
  decision: games not yet started return at once, unplayed; those being
  played finish and are recorded) and ``stop`` (Ctrl-C: the games being
  played end as ``interrupted``, their engines are closed, the workers are
  idle again).

Faults: a worker that dies mid-game loses nothing: Dask runs the task again
from the start on another worker (up to the scheduler's ``allowed-failures``),
and only one result per game is ever recorded.  The engines the dead worker
had started see their stdin close and must exit by themselves (a Gomocup
brain does).  A game that fails every time (its workers all died, or the
referee raised there ``1 + _RETRIES`` times) is recorded as ``abandoned``
with the reason.
"""

from __future__ import annotations

import collections
import logging
import queue
import sys
import threading
import time
import uuid
from typing import Any, Callable, Iterable

from distributed import Client, KilledWorker, LocalCluster
from distributed import wait as dask_wait

from referee.cluster.address import ClusterAddress
from referee.cluster.worker import MatchSwitch, Unfit, check_task, flip, game_task
from referee.play.job import GameJob, PlayedGame, abandoned_result
from referee.games.clock import TimeControl
from referee.seats.spec import EngineSpec
from referee.errors import MatchError

__all__ = ["ClusterFarm", "CheckedEngine"]

#: How long connecting to a scheduler may take.
CONNECT_TIMEOUT_S = 10.0
#: How long to wait for a first worker (a scheduler without workers plays nothing).
WORKERS_TIMEOUT_S = 60.0
#: Times Dask runs a game task again after it raised (a worker that died is Dask's ``allowed-failures``).
_RETRIES = 2
#: Games submitted per worker thread: one playing and one ready, so no thread waits for the coordinator.
_PER_THREAD = 2
#: How often the coordinator asks the scheduler about its workers (and wakes to look at ``stop``).
_REFRESH_S = 1.0
#: How long Ctrl-C waits for the games being played to end before leaving them.
_ABORT_WAIT_S = 5.0


class CheckedEngine:
    """What the start check learnt of one engine (as :func:`check_engines`'s seats tell it)."""

    def __init__(self, name: str, about_answered: bool) -> None:
        self.name = name
        self.about_answered = about_answered


class ClusterFarm:
    """The games of one match on the Dask cluster at ``address`` (see the module docstring).

    Use: :meth:`open`, :meth:`check_engines`, :meth:`play`, and always :meth:`close`.
    """

    def __init__(self, address: str) -> None:
        self.address = ClusterAddress.parse(address)
        self._cluster: LocalCluster | None = None
        self._client: Client | None = None
        self._switch = f"referee-match-{uuid.uuid4().hex[:12]}"
        self._names = ("engine1", "engine2")
        self._workers = 0
        self._threads = 0
        self._info_at = float("-inf")
        self._started_at: float | None = None
        self._played = 0
        self._registered = False  # the switch is on the workers
        self._left_running = False  # Ctrl-C left games on the workers: their switch must stay
        self._out_dir: str | None = None
        self._log_levels: dict[str, int] = {}  # Dask's own log levels here, while we silence them

    # Connection -------------------------------------------------------------------
    def open(self) -> None:
        """Start the local cluster or connect to the scheduler, and wait for a worker.

        Raises :class:`MatchError` with one clear sentence when it cannot (and
        leaves nothing running then).
        """
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        # The referee says in one line what went wrong; Dask's tracebacks (a lost scheduler, a worker
        # closing) would bury it.  (A local cluster does the same to its own loggers.)
        self._log_levels = _quiet_dask_logs()
        where = self._where()
        try:
            if self.address.local_workers is not None:
                n = self.address.local_workers
                self._cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                             dashboard_address=None, silence_logs=logging.CRITICAL)
                self._client = Client(self._cluster, set_as_default=False)
                self._client.wait_for_workers(n, timeout=WORKERS_TIMEOUT_S)
            else:
                self._client = Client(self.address.scheduler, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise MatchError(f"cannot {where}: {_why(exc)}") from None
        if self._cluster is None:
            try:
                self._client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
            except (OSError, TimeoutError):
                raise MatchError(f"no Dask worker is connected to {self.address.scheduler} (waited "
                                 f"{WORKERS_TIMEOUT_S:.0f} s; start one with: dask worker "
                                 f"{self.address.scheduler})") from None
        self._refresh(force=True)

    def close(self) -> None:
        """Let go of the cluster: a local one is shut down, a remote one's workers stay up."""
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        try:
            if client is not None:
                try:
                    if cluster is None and self._registered and not self._left_running:
                        client.unregister_worker_plugin(self._switch)
                    client.close()
                except Exception:  # noqa: BLE001 - a lost scheduler must not mask how the match ended
                    pass
        finally:
            if cluster is not None:
                cluster.close()
            for name, level in self._log_levels.items():
                logging.getLogger(name).setLevel(level)
            self._log_levels = {}

    # Start check ------------------------------------------------------------------
    def check_engines(self, specs: dict[str, EngineSpec], config: Any, tc: TimeControl,
                      **_local) -> dict[str, CheckedEngine]:
        """:func:`check_engines` on every connected worker; :class:`MatchError` naming a worker that fails it.

        Returns the engines' names and whether they answered ``ABOUT`` (as
        the first worker saw them).  A worker that leaves the cluster during
        the check is left out.  (``registry`` and ``stop`` of the local check
        do not apply: the check runs on the workers.)
        """
        client = self._require()
        # local:N workers share this terminal: Ctrl-C is the coordinator's to handle, not theirs.
        try:
            client.register_plugin(MatchSwitch(specs, config, tc, ignore_interrupts=self._cluster is not None),
                                   name=self._switch)
        except Exception as exc:  # noqa: BLE001 - whatever a worker answered, it cannot play this match
            raise MatchError(f"the Dask workers of {self.address} cannot take this match (do they run this same "
                             f"install, at the same path?): {_why(exc)}") from None
        self._registered = True
        futures = {addr: client.submit(check_task, self._switch, workers=[addr], allow_other_workers=False,
                                       pure=False, key=f"referee-check-{uuid.uuid4().hex[:12]}")
                   for addr in sorted(client.scheduler_info()["workers"])}
        submitted = list(futures.values())
        limit = (tc.start_ms + tc.about_ms) / 1000 + 30.0
        end = time.monotonic() + limit
        try:
            while time.monotonic() < end and not self._wait(futures.values(), _REFRESH_S):
                alive = client.scheduler_info()["workers"]
                for addr in [a for a, f in futures.items() if a not in alive and not f.done()]:
                    del futures[addr]  # a worker that left is no longer part of the match
            seen, failed = _check_results(futures, limit)
        finally:
            client.cancel(submitted)
        if not futures:
            failed = [f"every Dask worker left {self.address} during the start check"]
        if failed:
            more = f" (the check failed on {len(failed)} of {len(futures)} workers)" if len(failed) > 1 else ""
            raise MatchError(failed[0] + more)
        self._names = tuple(seen[t][0] if t in seen else specs[t].label for t in ("engine1", "engine2"))
        return {tag: CheckedEngine(name, answered) for tag, (name, answered) in seen.items()}

    # Games ------------------------------------------------------------------------
    def play(self, games: Iterable[int], job_of: Callable[[int], GameJob],
             finish: Callable[[PlayedGame], bool], *, stop: threading.Event,
             out_dir: str | None = None) -> None:
        """Play ``games`` (``job_of(g)`` makes each one's job) and call ``finish`` as each ends.

        ``finish`` returns True to start no further game (an SPRT decision,
        an interrupted game): the games being played still end and are
        handed over.  Setting ``stop`` (or Ctrl-C) ends the games being played
        as ``interrupted`` and returns (or re-raises).  With ``out_dir``, the
        I/O logs that come back are written there before ``finish``.
        """
        client = self._require()
        todo = collections.deque(games)
        pending: dict = {}  # future -> job
        done: queue.Queue = queue.Queue()
        halt = False
        self._started_at = time.monotonic()
        self._out_dir = out_dir
        try:
            while (todo and not halt) or pending:
                if stop.is_set():
                    self._abort(pending)
                    return
                self._refresh()
                while todo and not halt and len(pending) < _PER_THREAD * max(1, self._threads):
                    job = job_of(todo.popleft())
                    fut = client.submit(game_task, job, self._switch, pure=False, retries=_RETRIES,
                                        key=f"referee-game-{job.game}-{self._switch[-12:]}")
                    fut.add_done_callback(done.put)
                    pending[fut] = job
                try:
                    fut = done.get(timeout=_REFRESH_S)
                except queue.Empty:
                    continue
                job = pending.pop(fut, None)
                if job is None:
                    continue
                played = self._collect(fut, job)
                if played is None:
                    continue  # not started: the match wanted no more games
                self._played += 1
                if out_dir is not None:
                    played.write_logs(out_dir)
                if finish(played) and not halt:
                    halt = True
                    self._flip("drain")
        except BaseException:
            self._abort(pending)
            raise

    def progress(self) -> dict:
        """``rate`` (games a second played here) and ``workers`` connected, for the progress line."""
        self._refresh()
        elapsed = time.monotonic() - self._started_at if self._started_at is not None else 0.0
        return {"rate": self._played / elapsed if elapsed > 0 else 0.0, "workers": self._workers}

    # Internals --------------------------------------------------------------------
    def _where(self) -> str:
        if self.address.local_workers is not None:
            return f"start a local Dask cluster of {self.address.local_workers} workers"
        return f"reach the Dask scheduler at {self.address.scheduler}"

    def _require(self) -> Client:
        if self._client is None:
            raise RuntimeError("the cluster is not open")
        return self._client

    def _refresh(self, force: bool = False) -> None:
        """Count the workers and their threads (at most once per :data:`_REFRESH_S`)."""
        now = time.monotonic()
        if not force and now - self._info_at < _REFRESH_S:
            return
        self._info_at = now
        try:
            workers = self._require().scheduler_info()["workers"]
        except (OSError, TimeoutError) as exc:
            raise self._lost(_why(exc)) from None
        if not workers and self._workers:
            print(f"referee: no Dask worker is connected to {self.address}: the games wait for one "
                  "(Ctrl-C stops the match)", file=sys.stderr, flush=True)
        self._workers = len(workers)
        self._threads = sum(int(w.get("nthreads", 1)) for w in workers.values())

    def _collect(self, fut, job: GameJob) -> PlayedGame | None:
        """The finished game of a done future: played, abandoned, or ``None`` when it never started."""
        if fut.status == "finished":
            played = fut.result()
            if isinstance(played, Unfit):
                raise MatchError(f"on the Dask worker {played.worker}: {played.why}")
            return played
        if fut.status == "error":
            exc = fut.exception()
            if isinstance(exc, KilledWorker):
                why = "every Dask worker that played it died during the game"
            else:
                why = f"the referee failed on a Dask worker {1 + _RETRIES} times: {type(exc).__name__}: {exc}"
            return PlayedGame(abandoned_result(job, self._names, why))
        raise self._lost(f"it {fut.status} game {job.game}; was it stopped or restarted?")

    def _lost(self, detail: str) -> MatchError:
        kept = "; the games that ended are recorded: --resume continues" if self._out_dir else ""
        return MatchError(f"lost the Dask scheduler at {self.address} ({detail}){kept}")

    def _wait(self, futures: Iterable, timeout_s: float) -> bool:
        """Wait until every future is done, at most ``timeout_s``; True if they all are."""
        with self._require().as_current():  # (our client is nobody's default: Dask's wait needs it named)
            try:
                dask_wait(list(futures), timeout=timeout_s)
            except TimeoutError:
                return False
        return True

    def _flip(self, what: str) -> None:
        """Set the match's ``drain`` or ``stop`` switch on every worker."""
        self._require().run(flip, self._switch, what, on_error="ignore")

    def _abort(self, pending: dict) -> None:
        """Stop the games being played (they end ``interrupted``), cancel the rest.

        Never raises but ``KeyboardInterrupt``: it runs while another error
        (a lost scheduler, say) is on its way out.
        """
        if not pending:
            return
        self._left_running = True
        try:
            self._flip("stop")
            self._left_running = not self._wait(pending, _ABORT_WAIT_S)
            self._require().cancel(list(pending))
        except Exception:  # noqa: BLE001 - the cluster is unreachable: nothing more to stop there
            pass
        pending.clear()


def _check_results(futures: dict, limit: float) -> tuple[dict[str, tuple[str, bool]], list[str]]:
    """What the start checks (worker address -> future) found: one worker's answer, and every failure."""
    seen: dict[str, tuple[str, bool]] = {}
    failed: list[str] = []
    for addr, fut in futures.items():
        if fut.status == "finished":
            seen = seen or fut.result()
        elif fut.status == "error":
            exc = fut.exception()
            why = str(exc) if isinstance(exc, MatchError) else f"{type(exc).__name__}: {exc}"
            failed.append(f"on the Dask worker {addr}: {why}")
        else:
            failed.append(f"on the Dask worker {addr}: the start check did not finish within {limit:.0f} s")
    return seen, failed


def _quiet_dask_logs() -> dict[str, int]:
    """Let Dask's loggers in this process say only what is critical; return their levels before."""
    names = ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]
    levels = {}
    for name in names:
        log = logging.getLogger(name)
        levels[name] = log.level
        log.setLevel(logging.CRITICAL)
    return levels


def _why(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
