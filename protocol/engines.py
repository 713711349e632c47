"""The engine each protocol program plays with, built through the facade without making
start-up wait for numpy.

:class:`EngineFactory` holds the command line's choices (preset, options by key, seed,
threads) for one game family and imports the engine on a background thread at start-up;
:class:`LazyEngine` is the engine of one game, built in the background, with an instant
fallback move while it is not ready.  ``engine.api`` is imported only inside methods,
so importing this module costs nothing.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable

from engine.search.limits import Limits, SearchInfo, SearchResult

#: The instant move of a position (for a search that cannot wait for the engine).
QuickMove = Callable[[Any], int]


class EngineFactory:
    """Makes the engine for each game of one family with the command line's settings.

    ``game``: a configuration of the family (``GameConfig()``, ``ReversiConfig()``), for
    the import and the option check; ``quick``: the instant move used while an engine is
    not ready; ``mode``: the engine's preset; ``values``: its options by key
    (``{"exploration": "0.3"}``); :meth:`check` raises ``ValueError`` naming a bad key or
    value (and listing the valid keys) so a program can refuse them at start-up.
    ``threads`` (at most the CPUs this process may use) goes to
    :func:`engine.api.open_engine`, which uses a second thread where the engine has work
    for one.
    """

    def __init__(self, game: Any, quick: QuickMove, mode: str = "uct", values: dict[str, Any] | None = None,
                 seed: int | None = None, threads: int = 1) -> None:
        self.game = game
        self.quick = quick
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
        """Start importing the engine (numpy included) on a background thread, so that
        the import overlaps the wait for the first command."""

        def load() -> None:
            try:
                from engine.api import preload

                preload(self.game)
            except Exception:  # noqa: BLE001 - reported when the engine is first built
                pass
            finally:
                self._loaded.set()

        threading.Thread(target=load, name="engine-import", daemon=True).start()

    def is_loaded(self) -> bool:
        """True once :meth:`preload` has finished (building an engine cannot block then)."""
        return self._loaded.is_set()

    def options(self, config: Any) -> Any:
        """The engine options for ``config`` (imports the engine); ``ValueError`` when bad."""
        from engine.api import options_for

        return options_for(config, self.mode, self.values)

    def check(self) -> None:
        """Raise ``ValueError`` when the mode or options are not acceptable to the engine."""
        self.options(self.game)

    def build(self, config: Any) -> Any:
        """The engine for one game of ``config`` (imports the engine)."""
        from engine.api import open_engine

        return open_engine(config, self.options(config), seed=self.seed, threads=self.threads)

    def close(self) -> None:
        """Nothing to stop: engines hold no process between games."""

    def __call__(self, config: Any) -> "LazyEngine":
        """A :class:`LazyEngine` for one game: built in the background, used when ready."""
        return LazyEngine(self, config, self.quick)


class LazyEngine:
    """An engine that is built on a background thread, so no command waits for numpy.

    A search that starts before the engine is ready waits for it until
    ``LOAD_RESERVE_S`` before its deadline; if the engine is still not there (only
    possible on the first move after start-up with a very short time), the move is
    ``quick(state)``, and the result says so.
    """

    #: Time kept back, when waiting for the engine, to make the quick move and reply.
    LOAD_RESERVE_S = 0.010

    def __init__(self, factory: Any, config: Any, quick: QuickMove) -> None:
        self._factory = factory
        self._config = config
        self._quick_move = quick
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

    def engine(self, limits: Limits, stop: threading.Event | None = None) -> tuple[Any, str]:
        """``(engine, "")`` once it is built, waiting for it within ``limits``' deadline
        (less ``LOAD_RESERVE_S``) or until ``stop``; else ``(None, why)``."""
        while not self._ready.is_set():
            if stop is not None and stop.is_set():
                break
            if limits.deadline is not None and time.monotonic() >= limits.deadline - self.LOAD_RESERVE_S:
                break
            self._ready.wait(0.002)
        if not self._ready.is_set():
            return None, "engine still loading: quick move"
        if self._error is not None:
            return None, f"engine unavailable ({self._error}): quick move"
        return self._engine, ""

    def search(self, state: Any, limits: Limits, stop: threading.Event | None = None,
               on_info: Callable[[SearchInfo], None] | None = None) -> SearchResult:
        """The engine's search once it is built (``on_info`` gets its progress reports); a
        quick move if it is not ready in time."""
        engine, why = self.engine(limits, stop)
        if engine is None:
            return self.quick(state, why)
        if on_info is None:
            return engine.search(state, limits, stop)
        return engine.search(state, limits, stop, on_info=on_info)

    def quick(self, state: Any, reason: str) -> SearchResult:
        """The instant move of ``state`` as a zero-playout result that says ``reason``."""
        t0 = time.monotonic()
        move = self._quick_move(state)
        return SearchResult(move=move, pv=[move], elapsed=time.monotonic() - t0, reason=reason)
