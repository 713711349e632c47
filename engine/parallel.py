"""Root-parallel MCTS: one :class:`engine.api.Engine` here plus helper processes.

:class:`ParallelEngine` has the interface of :class:`engine.api.Engine`.  Each
search runs the local engine in the calling thread and, at the same time, the
same search in ``workers`` helper processes, each with its own engine, tree
and seed; then the root statistics are merged:

- a proven win found by any searcher is played at once (the others are told
  to stop as soon as it arrives);
- otherwise playouts (``n``) and scores (``w``) of each root move are summed
  over all searchers and the move with the most playouts is played (ties:
  the higher mean); a move that any searcher proved to lose is never chosen
  unless every move is; a proven draw replaces a best move scoring below a
  draw, as in :meth:`engine.mcts.Searcher.best_index`.

Processes (``multiprocessing`` "spawn" context: the brain has threads, so
never fork) are started once, at construction, and serve every search and
every game until :meth:`ParallelEngine.close` (also called at interpreter
exit; a helper also exits by itself when its pipe to this process closes, so
none outlives a crashed or ``os._exit``-ed parent).  Helpers never write to
stdout or stderr (both go to ``/dev/null``): stdout is the protocol channel.

Limits sent to a helper:

- the deadline as the seconds left when the message is sent (monotonic
  clocks are not compared across processes); the helper also subtracts the
  message's transit time, measured on the wall clock and clipped to
  ``[0, seconds left]``, and stops ``HELPER_EARLY_S`` early so that its
  reply is here by the deadline;
- node and playout limits as they are: every searcher does the full budget,
  so with a node or playout limit the search takes as long as one searcher
  would and the merged result is reproducible for a given seed;
- ``max_tree_nodes`` (a memory cap) is shared: each searcher gets its part
  after the interpreter and numpy of every extra process are paid for.

A search with under ``MIN_HELPER_S`` left is made by the local engine
alone.  A helper whose reply is late is skipped for that search (and told to
stop); it simply gets the next search, which supersedes the old one.  A
helper that dies, raises or stops answering never breaks a search: its reply
is skipped, the merge uses the others (at worst the local result) and the
helper is not used again (``lost_workers`` counts them).  Helpers run at a
lower priority (``HELPER_NICE``) so that on a busy machine the calling
process keeps its deadline.

As with any "spawn" user, a script that creates a ``ParallelEngine`` must
keep its top-level code under ``if __name__ == "__main__":`` (the helpers
import the caller's main module); the ``pbrain-mcts`` entry points do.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import time
import weakref
from dataclasses import replace
from multiprocessing.connection import wait as wait_connections
from typing import Any, Callable

import numpy as np

from .api import Engine
from .limits import Limits, SearchInfo, SearchResult
from .options import EngineOptions
from .rules import Board, GameConfig
from .timecontrol import BASE_MEMORY_BYTES, MIN_TREE_NODES, NODE_BYTES

__all__ = ["ParallelEngine", "START_METHOD"]

#: multiprocessing start method ("fork" would copy the caller's threads' locks mid-use).
START_METHOD = "spawn"
#: Helpers stop this much before the caller's deadline, so their replies arrive in time
#: (one guided-mode leaf can take several milliseconds, so the stop itself can be late).
HELPER_EARLY_S = 0.015
#: After the deadline, replies still missing are waited for this long, then skipped.
#: Measured at load 3 on 2 cores, 250 ms searches: replies came from 3 ms early to 8 ms
#: late, rarely up to 27 ms late (those are skipped).
REPLY_GRACE_S = 0.008
#: After ``stop`` (or a proven win), replies are waited for this long, then skipped.
STOP_GRACE_S = 0.015
#: A search with less time than this left is made by the local engine alone (a helper's
#: answer could not arrive in time to matter).
MIN_HELPER_S = 0.02
#: Helpers run at this lower priority (``os.nice``): on a busy machine the calling process,
#: which must answer on time, gets the CPU first; on idle cores it changes nothing.
HELPER_NICE = 5
#: How often the collector looks at ``stop`` while waiting for replies.
POLL_S = 0.002
#: A helper (once started) that has not answered a search this long after it should have is
#: dropped; a search without a deadline waits at most this long (or twice the local search's
#: time) for the helpers once the local search is over.
UNRESPONSIVE_S = 2.0
#: Longest wait for helpers to exit in :meth:`ParallelEngine.close` before they are killed.
CLOSE_WAIT_S = 0.5


def _derive_seeds(seed: int | np.random.Generator | None, count: int) -> list[Any]:
    """Independent seeds for the helpers, derived from the main seed (``None``: fresh entropy)."""
    if seed is None:
        return [None] * count
    if isinstance(seed, np.random.Generator):
        return [int(v) for v in seed.integers(0, 2**63 - 1, size=count)]
    return [int(np.random.SeedSequence(int(seed), spawn_key=(i + 1,)).generate_state(1, np.uint64)[0])
            for i in range(count)]


class _HelperFailure(Exception):
    """A helper died or misbehaved (the message says how)."""


class _Helper:
    """The parent's handle on one helper process."""

    def __init__(self, index: int, lost: list[str]) -> None:
        self.index = index
        self._lost = lost  # the engine's list of lost helpers (shared)
        self.process: Any = None
        self.conn: Any = None
        self.dead = False
        self.why = ""
        #: A search (id) whose reply has not been read yet, and when that reply was due
        #: (``None``: no time limit, or not known yet).
        self.pending: int | None = None
        self.due: float | None = None
        #: The next search must start a new game (tree) in the helper.
        self.fresh = True
        #: The helper has finished starting (its engine built) at least once.
        self.ready = False

    def read(self) -> tuple | None:
        """Read one message; return ``(result, stats)`` when it answers ``pending``.

        ``ready`` notices and replies to older searches are consumed here.
        Raises ``_HelperFailure`` on EOF, garbage or an error reply.
        """
        try:
            message = self.conn.recv()
        except (EOFError, OSError) as exc:
            raise _HelperFailure(f"died ({type(exc).__name__})") from None
        except Exception as exc:  # noqa: BLE001 - an undecodable reply: the helper is broken
            raise _HelperFailure(f"bad reply ({type(exc).__name__}: {exc})") from None
        if not isinstance(message, tuple) or not message:
            raise _HelperFailure("bad reply")
        if message[0] == "ready":
            self.ready = True
            return None
        if len(message) < 3 or message[1] != self.pending:
            return None  # a reply to an older search
        self.pending = None
        self.due = None
        self.ready = True
        if message[0] == "error":
            raise _HelperFailure(f"error: {message[2]}")
        result = message[2]
        if message[0] != "result" or len(message) != 4 or not isinstance(result, SearchResult):
            raise _HelperFailure("bad reply")
        return result, list(message[3])

    def send(self, message: tuple) -> bool:
        """Send a message; a failure marks the helper dead."""
        if self.dead:
            return False
        try:
            self.conn.send(message)
            return True
        except (OSError, ValueError, EOFError) as exc:
            self.mark_dead(f"send failed: {type(exc).__name__}")
            return False

    def mark_dead(self, why: str) -> None:
        """Stop using this helper (recorded once as lost) and end its process."""
        if not self.dead:
            self.dead = True
            self.why = why
            self.pending = None
            self._lost.append(f"helper {self.index}: {why}")
            _stop_process(self, 0.05)


def _stop_process(helper: _Helper, wait: float) -> None:
    """Make sure the helper's process is gone (terminate, then kill) and reaped."""
    proc = helper.process
    if proc is None:
        return
    try:
        if proc.is_alive():
            proc.terminate()
            proc.join(wait)
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)
        else:
            proc.join(0)
    except (OSError, ValueError, AssertionError):
        pass
    try:
        helper.conn.close()
    except (OSError, AttributeError):
        pass


def _shutdown(helpers: list[_Helper]) -> None:
    """Close every helper: ask them to exit, wait a little, then kill the rest.

    A module-level function (not a method) so that ``weakref.finalize`` can
    run it at interpreter exit without keeping the engine alive.
    """
    for h in helpers:
        if h.dead or h.conn is None:
            continue
        if not h.ready and h.process is not None:
            # Still starting (importing numpy): it would read "close" only when done.
            try:
                h.process.terminate()
            except (OSError, ValueError, AttributeError):
                pass
            continue
        try:
            h.conn.send(("close",))
        except (OSError, ValueError):
            pass
    end = time.monotonic() + CLOSE_WAIT_S
    for h in helpers:
        h.why = h.why or "closed"
        h.dead = True  # before its pipe closes: a search still running must not count it as lost
        if h.process is None:
            continue
        try:
            h.process.join(max(0.0, end - time.monotonic()))
        except (OSError, ValueError, AssertionError):
            pass
        _stop_process(h, 0.1)


class _Collector(threading.Thread):
    """Reads the helpers' replies while the local search runs.

    Also forwards the caller's ``stop`` to the local search and the helpers,
    and stops everything early when a helper reports a proven win.
    """

    def __init__(self, engine: "ParallelEngine", helpers: list[_Helper], sid: int, limits: Limits,
                 stop: threading.Event | None, local_stop: threading.Event) -> None:
        super().__init__(name="parallel-collector", daemon=True)
        self.engine = engine
        self.helpers = helpers
        self.sid = sid
        self.limits = limits
        self.stop = stop
        self.local_stop = local_stop
        self.local_done = threading.Event()
        self.local_proven = False  # set by the caller before local_done: replies no longer needed
        self.replies: list[tuple[SearchResult, list]] = []
        self.win: SearchResult | None = None
        self.started = time.monotonic()

    def run(self) -> None:
        try:
            self._collect()
        except Exception as exc:  # noqa: BLE001 - the collector must never break the search
            for h in self.helpers:
                if h.pending == self.sid:
                    h.pending = None
                    self.engine._lose(h, f"collector failed: {type(exc).__name__}: {exc}")
        finally:
            self.local_stop.set()  # never leave the local search without a way to stop

    def _collect(self) -> None:
        stop_sent_at: float | None = None
        deadline = self.limits.deadline
        local_done_at: float | None = None
        while True:
            now = time.monotonic()
            stopping = self.win is not None or (self.stop is not None and self.stop.is_set())
            if stopping:
                self.local_stop.set()
            pending = [h for h in self.helpers if h.pending == self.sid and not h.dead]
            if self.local_done.is_set() and local_done_at is None:
                local_done_at = now
                if self.local_proven:
                    stopping = True
            if stopping and stop_sent_at is None:
                stop_sent_at = now
                for h in pending:
                    h.send(("stop", self.sid))
                    h.due = now
            if local_done_at is not None:
                if not pending or self.win is not None or self.local_proven:
                    return
                if stop_sent_at is not None:
                    give_up = stop_sent_at + STOP_GRACE_S
                elif deadline is not None:
                    # A late local search has given the helpers (which stop early) time enough.
                    give_up = max(deadline + REPLY_GRACE_S, local_done_at + POLL_S)
                else:  # node or playout limits: the helpers take about as long as we did
                    give_up = local_done_at + max(UNRESPONSIVE_S, 2.0 * (local_done_at - self.started))
                if now >= give_up:
                    for h in pending:
                        if stop_sent_at is None:
                            h.send(("stop", self.sid))  # late: free it for the next search
                        h.due = now
                    return
            if not pending:
                self.local_done.wait(POLL_S)
                continue
            try:
                ready = wait_connections([h.conn for h in pending], timeout=POLL_S)
            except (OSError, ValueError):
                ready = []
                for h in pending:
                    if h.conn is None or h.conn.closed:
                        self.engine._lose(h, "connection closed")
            by_conn = {id(h.conn): h for h in pending}
            for conn in ready:
                h = by_conn.get(id(conn))
                if h is None:
                    continue
                try:
                    reply = h.read()
                except _HelperFailure as exc:
                    self.engine._lose(h, str(exc))
                    continue
                if reply is not None:
                    self.replies.append(reply)
                    if reply[0].proven == "win" and self.win is None:
                        self.win = reply[0]


class ParallelEngine:
    """Root-parallel search: the local engine plus ``workers`` helper processes.

    Same interface as :class:`engine.api.Engine` (see the module docstring for
    how limits are shared and results merged).  The local engine uses
    ``seed``; helper ``i`` a seed derived from it.  Helpers are started at
    construction; call :meth:`close` when done (it is also called at
    interpreter exit and when the engine is garbage collected).  One search at
    a time; ``new_game`` resets every searcher's tree.
    """

    def __init__(
        self,
        config: GameConfig,
        options: EngineOptions = EngineOptions(),
        seed: int | np.random.Generator | None = None,
        workers: int = 1,
    ) -> None:
        if not isinstance(config, GameConfig):
            raise TypeError("config must be a GameConfig")
        if int(workers) < 1:
            raise ValueError(f"workers must be >= 1, got {workers!r}")
        self.config = config
        self.options = options
        self.workers = int(workers)
        self._rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self._helper_seeds = _derive_seeds(seed, self.workers)
        self._local = Engine(config, options, seed=self._rng)
        #: True when the last search continued the local engine's previous tree.
        self.reused = False
        #: Why each helper that died, failed or stopped answering was dropped (never used again).
        self.lost_reasons: list[str] = []
        self._helpers: list[_Helper] = [_Helper(i, self.lost_reasons) for i in range(self.workers)]
        self._sid = 0
        self._busy = threading.Lock()
        self._closed = False
        self._finalizer = weakref.finalize(self, _shutdown, self._helpers)
        self._start()

    # ------------------------------------------------------------------ lifecycle
    def _start(self) -> None:
        ctx = multiprocessing.get_context(START_METHOD)
        for h, seed in zip(self._helpers, self._helper_seeds):
            try:
                parent, child = ctx.Pipe(duplex=True)
                h.conn = parent
                proc = ctx.Process(target=_helper_main, args=(child, self.options, seed),
                                   name=f"mcts-helper-{h.index}", daemon=True)
                proc.start()
                h.process = proc
                child.close()  # only the helper holds its end: its death is seen as EOF here
            except Exception as exc:  # noqa: BLE001 - e.g. options that cannot be pickled
                self._lose(h, f"could not start: {type(exc).__name__}: {exc}")
        self._prepare()

    def _prepare(self) -> None:
        """Let the helpers build (and warm up) their engine for ``config`` before the first search.

        Their start-up (an interpreter, numpy, the engine) takes a few tenths
        of a second; done while the caller waits for the first move, it is
        not taken from a search.
        """
        for h in self._helpers:
            if not h.dead and h.send(("prepare", self.config)):
                h.fresh = False

    def close(self) -> None:
        """Stop and reap every helper process (idempotent; later searches are local only)."""
        self._closed = True
        self._finalizer()

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._closed

    @property
    def busy(self) -> bool:
        """True while a search is running."""
        return self._busy.locked()

    @property
    def live_workers(self) -> int:
        """Helpers still in use."""
        return sum(1 for h in self._helpers if not h.dead)

    def worker_pids(self) -> list[int]:
        """Process ids of the helpers still in use."""
        return [h.process.pid for h in self._helpers if not h.dead and h.process is not None]

    def new_game(self, config: GameConfig | None = None) -> None:
        """Forget every searcher's tree; with ``config``, also switch to that game configuration."""
        if config is not None and config != self.config:
            if not isinstance(config, GameConfig):
                raise TypeError("config must be a GameConfig")
            self.config = config
            self._local = Engine(config, self.options, seed=self._rng)
        else:
            self._local.new_game()
        self.reused = False
        for h in self._helpers:
            h.fresh = True  # a helper's next search starts a new tree
        if not self._closed:
            self._prepare()

    def root_stats(self) -> list[tuple[int, float, float, str | None]]:
        """The local engine's root statistics (see :meth:`engine.api.Engine.root_stats`)."""
        return self._local.root_stats()

    @property
    def lost_workers(self) -> int:
        """Helpers that died, failed or stopped answering (closed ones are not counted)."""
        return len(self.lost_reasons)

    @staticmethod
    def _lose(h: _Helper, why: str) -> None:
        """Stop using a helper (counted once)."""
        h.mark_dead(why)

    # ------------------------------------------------------------------ search
    def search(
        self,
        board: Board,
        limits: Limits,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
    ) -> SearchResult:
        """Best move for the side to move on ``board`` within ``limits``, searched by every process.

        Same contract as :meth:`engine.api.Engine.search` (``on_info`` reports
        the local search only); the result's ``playouts`` and ``nodes`` are
        summed over the searchers that answered, ``visits`` is the merged
        playout count of the move.
        """
        started = time.monotonic()
        if board.config != self.config:
            raise ValueError(f"board is {board.config.label}, engine is {self.config.label}")
        if board.is_over:
            raise ValueError("the game is over: no legal move")
        if not self._busy.acquire(blocking=False):
            raise RuntimeError("ParallelEngine: one search at a time")
        try:
            return self._search(board, limits, stop, on_info, started)
        finally:
            self._busy.release()

    def _search(self, board: Board, limits: Limits, stop, on_info, started: float) -> SearchResult:
        self._sid += 1
        sid = self._sid
        remaining = None if limits.deadline is None else max(0.0, limits.deadline - time.monotonic() - HELPER_EARLY_S)
        instant = remaining is not None and remaining < MIN_HELPER_S
        helpers = [] if self._closed or instant else self._ready_helpers()
        local_limits = replace(limits, max_tree_nodes=self._tree_share(limits.max_tree_nodes, 1 + len(helpers)))
        wire_limits = {
            "playouts": limits.playouts, "nodes": limits.nodes, "max_tree_nodes": local_limits.max_tree_nodes,
            "remaining": remaining, "sent": time.time(),
        }
        position = board.copy()
        active = []
        for h in helpers:
            if h.send(("search", sid, position, wire_limits, h.fresh)):
                h.fresh = False
                h.pending = sid
                h.due = limits.deadline  # None: set when the search ends or is stopped
                active.append(h)
        local_stop = threading.Event()
        collector = _Collector(self, active, sid, limits, stop, local_stop)
        collector.start()
        local: SearchResult | None = None
        try:
            local = self._local.search(board, limits if not active else local_limits, stop=local_stop, on_info=on_info)
        finally:
            # A proof (or a failed local search) needs no helper replies: stop them now.
            collector.local_proven = local is None or local.proven is not None
            collector.local_done.set()
            collector.join()
        self.reused = self._local.reused
        return self._merge(board, local, self._local.root_stats(), collector.replies, len(active), started)

    def _ready_helpers(self) -> list[_Helper]:
        """Helpers that can take a search now.

        Messages already waiting (late replies, ``ready`` notices) are read
        first.  A helper still busy with an older search gets the new one
        all the same: it drops the old one (told to stop) and starts this one.
        One that has not answered for ``UNRESPONSIVE_S`` past its due time,
        once started, is dropped.
        """
        ready = []
        now = time.monotonic()
        for h in self._helpers:
            if h.dead:
                continue
            if h.process is not None and not h.process.is_alive():
                self._lose(h, f"exited (code {h.process.exitcode})")
                continue
            try:
                while h.conn.poll(0):
                    h.read()
            except _HelperFailure as exc:
                self._lose(h, str(exc))
                continue
            except (OSError, ValueError, EOFError) as exc:
                self._lose(h, f"died ({type(exc).__name__})")
                continue
            if h.pending is not None and h.ready and h.due is not None and now - h.due > UNRESPONSIVE_S:
                self._lose(h, "not answering")
                continue
            ready.append(h)
        return ready

    def wait_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s until every live helper has started; True when they all have.

        Not needed before a search (a helper still starting gets the search
        and answers if it can in time); useful before timing measurements.
        """
        end = time.monotonic() + timeout
        while True:
            waiting = [h for h in self._helpers if not h.dead and not h.ready]
            left = end - time.monotonic()
            if not waiting or left <= 0:
                return not waiting
            try:
                for conn in wait_connections([h.conn for h in waiting], timeout=left):
                    h = next(x for x in waiting if x.conn is conn)
                    try:
                        h.read()
                    except _HelperFailure as exc:
                        self._lose(h, str(exc))
            except (OSError, ValueError):
                for h in waiting:
                    if h.conn.closed:
                        self._lose(h, "connection closed")

    @staticmethod
    def _tree_share(cap: int | None, searchers: int) -> int | None:
        """Each searcher's part of a memory cap in nodes (each extra process has its own base memory)."""
        if cap is None or searchers <= 1:
            return cap
        base_nodes = BASE_MEMORY_BYTES // NODE_BYTES
        return max(MIN_TREE_NODES, (cap - (searchers - 1) * base_nodes) // searchers)

    # ------------------------------------------------------------------ merge
    @staticmethod
    def _merge(board: Board, local: SearchResult, local_stats: list, replies: list[tuple[SearchResult, list]],
               asked: int, started: float) -> SearchResult:
        """The merged result of the local search and the helpers' ``replies`` (``asked`` helpers searched)."""
        results = [local] + [r for r, _ in replies]
        playouts = sum(r.playouts for r in results)
        nodes = sum(r.nodes for r in results)
        depth = max(r.depth for r in results)
        searchers = 1 + len(replies)
        tag = f"{searchers} of {1 + asked} searchers" if asked else "local only"
        elapsed = time.monotonic() - started

        def final(r: SearchResult, **kw) -> SearchResult:
            reason = f"{r.reason}; {tag}" if r.reason else tag
            return replace(r, playouts=playouts, nodes=nodes, depth=depth, elapsed=elapsed, reason=reason, **kw)

        if local.proven is not None:
            return final(local)  # a proof is a fact: nothing to merge
        won = next((r for r in results if r.proven == "win" and board.is_empty(r.move)), None)
        if won is not None:
            return final(won)
        lost = next((r for r in results if r.proven == "loss" and board.is_empty(r.move)), None)
        if lost is not None:
            return final(lost)  # every move loses: the prover knows which resists longest
        total: dict[int, list] = {}
        for stats in [local_stats] + [s for _, s in replies]:
            for move, n, w, proven in stats:
                entry = total.setdefault(int(move), [0.0, 0.0, False, False, False])
                entry[0] += float(n)
                entry[1] += float(w)
                if proven == "loss":
                    entry[2] = True
                elif proven == "draw":
                    entry[3] = True
                elif proven == "win":
                    entry[4] = True
        for move, entry in total.items():
            if entry[4] and not entry[2] and board.is_empty(move):
                return final(local, move=move, value=1.0, visits=int(entry[0]), pv=ParallelEngine._pv(move, results),
                             proven="win")
        ok = [m for m, e in total.items() if not e[2] and board.is_empty(m)]
        if not ok:
            return final(local)  # no statistics, or every move proven lost: the local choice stands

        def mean(m: int) -> float:
            n, w = total[m][0], total[m][1]
            return w / n if n > 0 else 0.5

        best = max(ok, key=lambda m: (total[m][0], mean(m)))
        draws = [m for m in ok if total[m][3]]
        if draws and best not in draws and mean(best) < 0.5:
            best = max(draws, key=lambda m: total[m][0])
        value = 0.5 if total[best][3] else min(1.0, max(0.0, mean(best)))
        return final(local, move=best, value=value, visits=int(total[best][0]), pv=ParallelEngine._pv(best, results))

    @staticmethod
    def _pv(move: int, results: list[SearchResult]) -> list[int]:
        """The first searcher's principal variation that starts with ``move`` (else just ``move``)."""
        for r in results:
            if r.pv[:1] == [move]:
                return list(r.pv)
        return [move]


# ---------------------------------------------------------------------- helper process
def _silence() -> None:
    """Point the helper's stdout and stderr (fds 1 and 2 and the Python objects) at /dev/null."""
    import sys

    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (1, 2):
        try:
            os.dup2(devnull, fd)
        except OSError:
            pass
    os.close(devnull)
    sink = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    sys.stdout = sys.stderr = sink


def _helper_main(conn: Any, options: EngineOptions, seed: int | None) -> None:
    """Body of a helper process: serve searches from ``conn`` until told to close or orphaned.

    A listener thread reads the pipe so that a ``stop`` reaches the running
    search at once; EOF (the parent closed or died) ends the process.
    """
    _silence()
    import signal

    try:
        os.nice(HELPER_NICE)
    except (OSError, AttributeError):
        pass

    # Ctrl-C in a terminal reaches the whole process group: the parent decides, then closes us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    inbox: "queue.Queue[tuple]" = queue.Queue()
    stops: dict[int, threading.Event] = {}
    lock = threading.Lock()

    def listen() -> None:
        while True:
            try:
                message = conn.recv()
            except BaseException:  # noqa: BLE001 - EOF, a broken pipe or garbage: the parent is gone
                os._exit(0)
            kind = message[0] if isinstance(message, tuple) and message else None
            if kind == "close":
                os._exit(0)
            if kind == "prepare":
                inbox.put((message, None))
            elif kind == "search":
                event = threading.Event()
                with lock:
                    for old in stops.values():
                        old.set()  # a newer search supersedes any older one
                    stops.clear()
                    stops[message[1]] = event
                inbox.put((message, event))
            elif kind == "stop":
                with lock:
                    event = stops.get(message[1])
                if event is not None:
                    event.set()

    threading.Thread(target=listen, name="helper-listener", daemon=True).start()
    rng = np.random.default_rng(seed)
    engine: Engine | None = None
    while True:
        message, event = inbox.get()
        if message[0] == "prepare":
            try:
                engine = _warm_engine(engine, message[1], options, rng)
            except Exception:  # noqa: BLE001 - a real search will report the problem
                engine = None
            try:
                conn.send(("ready",))
            except BaseException:  # noqa: BLE001 - the parent is gone
                os._exit(0)
            continue
        _, sid, board, wl, fresh = message
        if event.is_set() and not inbox.empty():
            continue  # superseded before it started: the parent no longer waits for it
        try:
            if engine is None or engine.config != board.config:
                engine = Engine(board.config, options, seed=rng)
            elif fresh:
                engine.new_game()
            deadline = None
            if wl["remaining"] is not None:
                left = float(wl["remaining"])
                transit = min(max(0.0, time.time() - float(wl["sent"])), left)
                deadline = time.monotonic() + left - transit
            limits = Limits(playouts=wl["playouts"], nodes=wl["nodes"], deadline=deadline,
                            max_tree_nodes=wl["max_tree_nodes"])
            result = engine.search(board, limits, stop=event)
            reply: tuple = ("result", sid, result, engine.root_stats())
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which stops using us
            reply = ("error", sid, f"{type(exc).__name__}: {exc}")
        with lock:
            stops.pop(sid, None)
        try:
            conn.send(reply)
        except BaseException:  # noqa: BLE001 - the parent is gone
            os._exit(0)


def _warm_engine(engine: Engine | None, config: GameConfig, options: EngineOptions, rng) -> Engine:
    """The helper's engine for a new game of ``config``: built if needed, its caches warmed
    by a tiny search of the empty board, its tree then forgotten."""
    if engine is None or engine.config != config:
        engine = Engine(config, options, seed=rng)
        engine.search(Board(config), Limits(nodes=2))
    engine.new_game()
    return engine
