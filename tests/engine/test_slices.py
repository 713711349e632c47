"""The sliced run of the C trees (engine.search.slices): what ends it, and in what order."""

import threading
import time

from engine.search.limits import SearchInfo
from engine.search.slices import INFO_PERIOD, SLICE, run_sliced


class Runs:
    """A stand-in C tree: records the seconds it was given, ends after ``until`` runs."""

    def __init__(self, until: int | None = None, then: str = "nodes", stop: threading.Event | None = None,
                 stop_after: int | None = None, takes: float = 0.0) -> None:
        self.seconds: list[float | None] = []
        self.until, self.then, self.stop, self.stop_after, self.takes = until, then, stop, stop_after, takes

    def __call__(self, seconds):
        self.seconds.append(seconds)
        time.sleep(self.takes)
        if self.stop is not None and len(self.seconds) == self.stop_after:
            self.stop.set()
        return self.then if self.until is not None and len(self.seconds) >= self.until else None


def test_a_run_with_nothing_to_serve_gets_the_whole_time_left():
    runs = Runs(until=1)
    assert run_sliced(runs, time.monotonic(), None) == "nodes"
    assert runs.seconds == [None]
    runs = Runs(until=2)
    assert run_sliced(runs, time.monotonic(), time.monotonic() + 30) == "nodes"
    assert len(runs.seconds) == 2 and all(SLICE < s <= 30 for s in runs.seconds)


def test_a_stop_is_seen_between_slices_and_ends_the_search():
    stop = threading.Event()
    runs = Runs(stop=stop, stop_after=3)
    assert run_sliced(runs, time.monotonic(), None, stop=stop) == "stop"
    assert runs.seconds == [SLICE] * 3


def test_a_passed_deadline_ends_it_before_another_run():
    runs = Runs()
    assert run_sliced(runs, time.monotonic(), time.monotonic() - 0.001) == "deadline"
    assert runs.seconds == []
    runs = Runs(takes=0.01)
    started = time.monotonic()
    assert run_sliced(runs, started, started + 0.05) == "deadline"
    # each run is given what is left of the time (less each time), and sleeps take at least 10 ms
    assert 1 <= len(runs.seconds) <= 6 and runs.seconds[0] <= 0.05
    assert all(a > b for a, b in zip(runs.seconds, runs.seconds[1:]))


def test_finished_comes_first_and_between_may_stop_the_search():
    stop = threading.Event()
    stop.set()
    assert run_sliced(Runs(), time.monotonic(), None, stop=stop, finished=lambda: "proven") == "proven"
    calls = []

    def between(last):
        calls.append(last)
        return len(calls) == 4

    runs = Runs()
    assert run_sliced(runs, time.monotonic(), None, between=between) == "stop"
    assert calls == [False] * 4 and runs.seconds == [SLICE] * 3


def test_progress_is_reported_once_a_period_from_the_start():
    reports = []
    info = lambda elapsed: SearchInfo(0, 0, 0, 0.5, [], elapsed)  # noqa: E731
    started = time.monotonic() - 2 * INFO_PERIOD  # a report is due at once
    runs = Runs(until=3)
    assert run_sliced(runs, started, None, on_info=reports.append, info=info) == "nodes"
    assert len(reports) == 1 and reports[0].elapsed >= 2 * INFO_PERIOD
    assert runs.seconds == [SLICE] * 3
