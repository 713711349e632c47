"""Keep freed memory in the process heap while the engine's batched numpy work runs.

The batched playouts and the static evaluation allocate and free megabytes of temporary
arrays per batch, hundreds of times a second.  glibc hands heap memory back to the system
whenever more than a threshold (128 KB by default, adjusted as the program goes) lies free at
the top of the heap, and takes it back on the next batch, one page fault per 4 KB page.
Depending on what the process allocated before, that cycle can cost a quarter of a search's
time (measured: 100,000 page faults and 0.25 s of system time in a 1 s search of the empty
15x15 board, against 1,200 faults when the threshold is high).  :func:`keep_heap` raises the
trim and mmap thresholds to a fixed 64 MB, once per process, where glibc is the C library;
elsewhere it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

#: glibc's mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: Freed memory kept at the top of the heap, and the size from which blocks get their own mapping.
KEEP_BYTES = 64 << 20

_done = False


def keep_heap() -> bool:
    """Raise glibc's trim and mmap thresholds (once); True when they are set."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    _done = bool(mallopt(_M_TRIM_THRESHOLD, KEEP_BYTES)) and bool(mallopt(_M_MMAP_THRESHOLD, KEEP_BYTES))
    return _done
