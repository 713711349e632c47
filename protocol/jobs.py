"""A search job run on its own thread, so that the loop keeps reading commands meanwhile.

Both protocol loops hand a session's job to :func:`start_job`; the outcome comes back to
the loop's event queue as ``("result", (job, (result, failure)), t)``: the job's return
value and ``None``, or ``None`` and what went wrong (``"TypeError: ..."``): a failing
engine is reported by the session, never a traceback on stdout.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any


def start_job(job: Any, stop: threading.Event, events: "queue.Queue[tuple]") -> threading.Thread:
    """Run ``job.run(stop)`` on a daemon thread named ``search`` and post its outcome."""

    def work() -> None:
        try:
            outcome = (job.run(stop), None)
        except BaseException as exc:  # noqa: BLE001 - reported by the session, which falls back
            outcome = (None, f"{type(exc).__name__}: {exc}")
        events.put(("result", (job, outcome), time.monotonic()))

    thread = threading.Thread(target=work, name="search", daemon=True)
    thread.start()
    return thread
