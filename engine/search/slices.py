"""Runs a tree kept in C in short slices, serving a stop, progress reports and the deadline between them.

A C search cannot see a Python ``threading.Event`` or call back for progress while it runs, so
the games' C trees (:mod:`engine.mnk.tree.native`, :mod:`engine.reversi.tree.native`) run in
slices of :data:`SLICE` seconds whenever a stop event, an ``on_info`` callback or a
``between`` hook must be served, and in one run up to the deadline otherwise.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from .limits import SearchInfo

#: Seconds between ``on_info`` reports (the generic tree reports as often).
INFO_PERIOD = 0.25
#: Seconds of one C run while something must be served between runs.
SLICE = 0.02


def run_sliced(
    run: Callable[[float | None], str | None],
    started: float,
    deadline: float | None,
    stop: threading.Event | None = None,
    on_info: Callable[[SearchInfo], None] | None = None,
    info: Callable[[float], SearchInfo] | None = None,
    between: Callable[[bool], bool] | None = None,
    finished: Callable[[], str | None] | None = None,
) -> str:
    """Call ``run(seconds)`` until something ends the search, and say what did.

    Each round, in this order: ``finished()`` may name a reason to end before running (a
    node budget spent, a proven root); a set ``stop``, or ``between(False)`` returning True,
    ends it with ``"stop"``; a passed ``deadline`` (monotonic) with ``"deadline"``;
    ``on_info(info(elapsed))`` is called every :data:`INFO_PERIOD` seconds from ``started``;
    then ``run`` gets the seconds it may take (``None``: no time bound; at most
    :data:`SLICE` when a stop, ``on_info`` or ``between`` is to be served) and returns the
    reason to end, or ``None`` to go on.
    """
    sliced = stop is not None or on_info is not None or between is not None
    next_info = started + INFO_PERIOD
    while True:
        if finished is not None:
            reason = finished()
            if reason is not None:
                return reason
        if (stop is not None and stop.is_set()) or (between is not None and between(False)):
            return "stop"
        now = time.monotonic()
        seconds = None if deadline is None else deadline - now
        if seconds is not None and seconds <= 0:
            return "deadline"
        if on_info is not None and info is not None and now >= next_info:
            next_info = now + INFO_PERIOD
            on_info(info(now - started))
        if sliced:
            seconds = SLICE if seconds is None else min(seconds, SLICE)
        reason = run(seconds)
        if reason is not None:
            return reason
