"""Python's cyclic garbage collector kept off the objects that exist before a search.

A full collection walks every object of the process -- a reused tree's nodes, the caller's
own data -- and stalls the thread that triggered it for as long: tens of milliseconds in a
large process.  Inside a timed search that is an overrun of the deadline.  While a search
runs, the objects older than it are frozen (:func:`gc.freeze`), so collections walk only
what the search itself made; they are unfrozen when it ends.  A process that froze objects
of its own is left as it is.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0  # searches running now, in any thread
_froze = False  # did the first of them freeze the heap?


@contextmanager
def older_objects_frozen() -> Iterator[None]:
    """Freeze the objects that exist now until this block and every such block running in
    another thread have ended (nothing is done when some objects were already frozen)."""
    global _holders, _froze
    with _lock:
        if _holders == 0:
            _froze = gc.get_freeze_count() == 0
            if _froze:
                gc.freeze()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _froze:
                gc.unfreeze()
