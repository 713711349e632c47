"""Parallel search: one :class:`engine.api.Engine` here plus helper processes.

:class:`ParallelEngine` has the interface of :class:`engine.api.Engine`.  Each
search runs the local engine in the calling thread and, at the same time,
``workers`` helper processes (:mod:`engine.mnk.helperproc`).  In guided mode the
first helper is a :class:`engine.mnk.tactician.RootTactician` (deep threat checks
of the root moves, see ``EngineOptions.helpers``); the others run the same
search with their own engine, tree and seed.  Then the root statistics are
merged:

- a proven win found by any searcher is played at once (the others are told
  to stop as soon as it arrives);
- otherwise playouts (``n``) and scores (``w``) of each root move are summed
  over all searchers and the move with the most playouts is played (ties:
  the higher mean); a move that any searcher proved to lose is never chosen
  unless every move is (then a searcher's own choice not proven lost is
  played, if there is one); a proven draw replaces a best move scoring below a
  draw, as in :meth:`engine.mnk.mcts.Searcher.best_index`.

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
lower priority (:data:`engine.mnk.helperproc.HELPER_NICE`) so that on a busy machine the calling
process keeps its deadline.

As with any "spawn" user, a script that creates a ``ParallelEngine`` must
keep its top-level code under ``if __name__ == "__main__":`` (the helpers
import the caller's main module); the ``pbrain-mcts`` entry points do.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
import weakref
from dataclasses import replace
from multiprocessing.connection import wait as wait_connections
from typing import Any, Callable

import numpy as np

from ..api import Engine, require_playable
from .helperproc import Helper, HelperFailure, helper_main, shutdown, wants_tactician
from ..search.limits import Limits, SearchInfo, SearchResult
from .options import EngineOptions
from .rules import Board, GameConfig
from ..timecontrol import BASE_MEMORY_BYTES, MIN_TREE_NODES, NODE_BYTES

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
#: How often the collector looks at ``stop`` while waiting for replies.
POLL_S = 0.002
#: A helper (once started) that has not answered a search this long after it should have is
#: dropped; a search without a deadline waits at most this long (or twice the local search's
#: time) for the helpers once the local search is over.
UNRESPONSIVE_S = 2.0


def _derive_seeds(seed: int | np.random.Generator | None, count: int) -> list[Any]:
    """Independent seeds for the helpers, derived from the main seed (``None``: fresh entropy)."""
    if seed is None:
        return [None] * count
    if isinstance(seed, np.random.Generator):
        return [int(v) for v in seed.integers(0, 2**63 - 1, size=count)]
    return [int(np.random.SeedSequence(int(seed), spawn_key=(i + 1,)).generate_state(1, np.uint64)[0])
            for i in range(count)]


class _Collector(threading.Thread):
    """Reads the helpers' replies while the local search runs.

    Also forwards the caller's ``stop`` to the local search and the helpers,
    and stops everything early when a helper reports a proven win.
    """

    def __init__(self, engine: "ParallelEngine", helpers: list[Helper], sid: int, limits: Limits,
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
                except HelperFailure as exc:
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
        self._helpers: list[Helper] = [Helper(i, self.lost_reasons) for i in range(self.workers)]
        self._sid = 0
        self._busy = threading.Lock()
        self._closed = False
        self._finalizer = weakref.finalize(self, shutdown, self._helpers)
        self._start()

    # ------------------------------------------------------------------ lifecycle
    def _start(self) -> None:
        ctx = multiprocessing.get_context(START_METHOD)
        for h, seed in zip(self._helpers, self._helper_seeds):
            try:
                parent, child = ctx.Pipe(duplex=True)
                h.conn = parent
                role = "tactics" if h.index == 0 and wants_tactician(self.options) else "search"
                proc = ctx.Process(target=helper_main, args=(child, self.options, seed, role),
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
    def _lose(h: Helper, why: str) -> None:
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
        require_playable(board, self.config)
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

    def _ready_helpers(self) -> list[Helper]:
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
            except HelperFailure as exc:
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
                    except HelperFailure as exc:
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
        # Moves a helper proved lost (e.g. the tactician's VCT checks): shown in the reason.
        local_lost = {m for m, _, _, proven in local_stats if proven == "loss"}
        refuted = {m for _, stats in replies for m, _, _, proven in stats if proven == "loss"} - local_lost
        if refuted:
            tag += f", {len(refuted)} refuted by helpers"
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
            # Every move with statistics is proven lost (or there are none): a searcher's
            # own choice not proven lost (e.g. the tactician's best unrefuted candidate)
            # beats the local choice; else the local choice stands.
            spare = next((r.move for r in results if board.is_empty(r.move)
                          and not (r.move in total and total[r.move][2])), None)
            if spare is not None and spare != local.move:
                return final(local, move=spare, value=0.5, visits=0, pv=[spare])
            return final(local)

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


