"""Searchers the session can ask for a move: the real engine, or an instant fallback.

``engine.api`` (and so numpy) is imported only when the first engine is built,
which keeps the brain's start-up fast.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Callable, Protocol

from engine.search.limits import Limits, SearchResult
from engine.mnk.rules import Board, GameConfig

from protocol.gomocup.position import quick_move


class Thinker(Protocol):
    """Anything that finds a move for the side to move (``engine.api.Engine`` fits)."""

    def search(self, board: Board, limits: Limits, stop: threading.Event | None = None) -> SearchResult:
        """Return a legal move for ``board`` within ``limits`` (or soon after ``stop``)."""
        ...


#: Builds the searcher for one game.
ThinkerFactory = Callable[[GameConfig], Thinker]


class QuickThinker:
    """No search: :func:`protocol.gomocup.position.quick_move` (win, block, else near the centre)."""

    def search(self, board: Board, limits: Limits, stop: threading.Event | None = None) -> SearchResult:
        """The quick move, reported as a zero-playout search."""
        t0 = time.monotonic()
        move = quick_move(board)
        return SearchResult(move=move, pv=[move], elapsed=time.monotonic() - t0, reason="quick move (no search)")


class EngineFactory:
    """Makes the engine for each game with the command line's mode, options, seed and threads.

    ``mode`` is the engine's preset (``guided`` or ``uct``), ``values`` its options by key
    (``{"exploration": "0.3"}``); :meth:`check` raises ``ValueError`` naming a bad key or
    value (and listing the valid keys) so the brain can refuse them at start-up.
    ``threads`` (``--threads``, then ``INFO thread_num`` through :meth:`set_threads``; at
    most the CPUs this process may use) goes to :func:`engine.api.open_engine`, which uses
    a second thread where the engine has work for one.
    """

    def __init__(self, mode: str = "uct", values: dict[str, Any] | None = None, seed: int | None = None,
                 threads: int = 1) -> None:
        self.mode = mode
        self.values = dict(values or {})
        self.seed = seed
        self.threads = self.clamp_threads(threads)
        self._loaded = threading.Event()

    @staticmethod
    def clamp_threads(threads: int) -> int:
        """``threads`` limited to ``[1, CPUs this process may use]``."""
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cpus = os.cpu_count() or 1
        return max(1, min(int(threads), cpus))

    def set_threads(self, threads: int) -> bool:
        """Use ``threads`` searching threads from the next engine built; True when that changed."""
        new = self.clamp_threads(threads)
        changed = new != self.threads
        self.threads = new
        return changed

    def preload(self) -> None:
        """Start importing the engine (numpy included) on a background thread.

        Called at start-up so that the import overlaps the wait for START;
        the loop then answers START once the engine is ready or a bounded
        time after spawn, whichever is first (see ``protocol.gomocup.loop``).
        """

        def load() -> None:
            try:
                from engine.api import preload

                preload(GameConfig())
            except Exception:  # noqa: BLE001 - reported when the engine is first built
                pass
            finally:
                self._loaded.set()

        threading.Thread(target=load, name="engine-import", daemon=True).start()

    def is_loaded(self) -> bool:
        """True when the engine is completely imported (building one cannot block)."""
        if self._loaded.is_set():
            return True
        module = sys.modules.get("engine.mnk.engine")  # the last module engine.api.preload imports
        # A module being imported by another thread is already in sys.modules, half done.
        return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)

    def options(self, config: GameConfig) -> Any:
        """The engine options for ``config`` (imports the engine); ``ValueError`` when bad."""
        from engine.api import options_for

        return options_for(config, self.mode, self.values)

    def check(self) -> None:
        """Raise ``ValueError`` when the mode or options are not acceptable to the engine."""
        self.options(GameConfig())

    def build(self, config: GameConfig) -> Any:
        """The engine for one game of ``config`` (imports the engine)."""
        from engine.api import open_engine

        return open_engine(config, self.options(config), seed=self.seed, threads=self.threads)

    def close(self) -> None:
        """Nothing to stop: engines hold no process between games."""

    def __call__(self, config: GameConfig) -> Thinker:
        """A :class:`LazyEngine` for one game: built in the background, used when ready."""
        return LazyEngine(self, config)


class LazyEngine:
    """An engine that is built on a background thread, so no command waits for numpy.

    A search that starts before the engine is ready waits for it until
    ``LOAD_RESERVE_S`` before its deadline; if the engine is still not there
    (only possible on the first move after start-up with a very short turn
    time), the move is a :func:`quick_move`, and the result says so.
    """

    #: Time kept back, when waiting for the engine, to make the quick move and reply.
    LOAD_RESERVE_S = 0.010

    def __init__(self, factory: EngineFactory, config: GameConfig) -> None:
        self._factory = factory
        self._config = config
        self._ready = threading.Event()
        self._engine: Any = None
        self._error: str | None = None
        if factory.is_loaded():
            self._build()  # already imported: building takes a few ms, do it now
        else:
            threading.Thread(target=self._build, name="engine-build", daemon=True).start()

    def _build(self) -> None:
        try:
            self._engine = self._factory.build(self._config)
        except Exception as exc:  # noqa: BLE001 - reported with every move made without it
            self._error = f"{type(exc).__name__}: {exc}"
        finally:
            self._ready.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the build has finished (successfully or not)."""
        return self._ready.wait(timeout)

    def search(self, board: Board, limits: Limits, stop: threading.Event | None = None) -> SearchResult:
        """The engine's search once it is built; a quick move if it is not ready in time."""
        while not self._ready.is_set():
            if stop is not None and stop.is_set():
                break
            if limits.deadline is not None and time.monotonic() >= limits.deadline - self.LOAD_RESERVE_S:
                break
            self._ready.wait(0.002)
        if not self._ready.is_set():
            return self._quick(board, "engine still loading: quick move")
        if self._error is not None:
            return self._quick(board, f"engine unavailable ({self._error}): quick move")
        return self._engine.search(board, limits, stop)

    @staticmethod
    def _quick(board: Board, reason: str) -> SearchResult:
        result = QuickThinker().search(board, Limits())
        result.reason = reason
        return result
