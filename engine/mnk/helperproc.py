"""The helper processes of :class:`engine.mnk.parallel.ParallelEngine`: both ends of their pipe.

Parent side: :class:`Helper` is the parent's handle on one process (its
pipe, whether it is dead and why, the search it owes a reply to);
:func:`shutdown` closes a set of them.  Child side: :func:`helper_main` is
the body of a helper process.  It serves ``prepare`` / ``search`` /
``stop`` / ``close`` messages with an :class:`engine.api.Engine` (role
``"search"``) or an :class:`engine.mnk.tactician.RootTactician` (role
``"tactics"``), and replies ``("ready",)``, ``("result", sid, SearchResult,
root_stats)`` or ``("error", sid, text)``.

A helper never writes to stdout or stderr (both go to ``/dev/null``: stdout
is the brain's protocol channel), runs at a lower priority
(:data:`HELPER_NICE`), ignores Ctrl-C (the parent decides) and exits by
itself when its pipe to the parent closes, so none outlives a crashed parent.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from typing import Any, Callable

import numpy as np

from ..api import Engine
from ..search.limits import Limits, SearchResult
from .options import EngineOptions
from .rules import Board, GameConfig

#: Helpers run at this lower priority (``os.nice``): on a busy machine the calling process,
#: which must answer on time, gets the CPU first; on idle cores it changes nothing.
HELPER_NICE = 5
#: Longest wait for helpers to exit in :meth:`ParallelEngine.close` before they are killed.
CLOSE_WAIT_S = 0.5


class HelperFailure(Exception):
    """A helper died or misbehaved (the message says how)."""


class Helper:
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
        Raises ``HelperFailure`` on EOF, garbage or an error reply.
        """
        try:
            message = self.conn.recv()
        except (EOFError, OSError) as exc:
            raise HelperFailure(f"died ({type(exc).__name__})") from None
        except Exception as exc:  # noqa: BLE001 - an undecodable reply: the helper is broken
            raise HelperFailure(f"bad reply ({type(exc).__name__}: {exc})") from None
        if not isinstance(message, tuple) or not message:
            raise HelperFailure("bad reply")
        if message[0] == "ready":
            self.ready = True
            return None
        if len(message) < 3 or message[1] != self.pending:
            return None  # a reply to an older search
        self.pending = None
        self.due = None
        self.ready = True
        if message[0] == "error":
            raise HelperFailure(f"error: {message[2]}")
        result = message[2]
        if message[0] != "result" or len(message) != 4 or not isinstance(result, SearchResult):
            raise HelperFailure("bad reply")
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


def _stop_process(helper: Helper, wait: float) -> None:
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


def shutdown(helpers: list[Helper]) -> None:
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


def helper_main(conn: Any, options: EngineOptions, seed: int | None, role: str = "search") -> None:
    """Body of a helper process: serve searches from ``conn`` until told to close or orphaned.

    ``role`` ``"search"`` runs an :class:`engine.api.Engine`, ``"tactics"`` a
    :class:`engine.mnk.tactician.RootTactician`.

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
    make = _engine_maker(role)
    engine: Any = None
    while True:
        message, event = inbox.get()
        if message[0] == "prepare":
            try:
                engine = _warm_engine(engine, message[1], options, rng, make)
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
                engine = make(board.config, options, seed=rng)
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


def wants_tactician(options: EngineOptions) -> bool:
    """Does a parallel search with ``options`` give its first helper to root tactics?

    Only guided mode with the default threat knowledge: plain UCT stays the
    baseline of the core issue, and a custom knowledge hook decides alone
    (as for the root threat search of :class:`engine.api.Engine`).
    """
    from .threats import ThreatKnowledge

    return options.helpers == "tactics" and options.mode == "guided" and isinstance(options.knowledge, ThreatKnowledge)


def _engine_maker(role: str) -> Callable[..., Any]:
    """The searcher class a helper of ``role`` runs (both take ``(config, options, seed=)``)."""
    if role == "tactics":
        from .tactician import RootTactician

        return RootTactician
    return Engine


def _warm_engine(engine: Any, config: GameConfig, options: EngineOptions, rng, make: Callable[..., Any] = Engine) -> Any:
    """The helper's engine for a new game of ``config``: built if needed, its caches warmed
    by a tiny search of the empty board, its tree then forgotten."""
    if engine is None or engine.config != config:
        engine = make(config, options, seed=rng)
        engine.search(Board(config), Limits(nodes=2))
    engine.new_game()
    return engine
