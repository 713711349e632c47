"""The deadline tool: its pause clock and a tiny run (the measurement itself is run by hand)."""

from __future__ import annotations

import gc
import re

from lab.deadline import PauseClock, main


def test_the_pause_clock_counts_only_while_on():
    clock = PauseClock()
    gc.callbacks.append(clock)
    try:
        gc.collect()
        assert clock.pauses == []
        clock.on = True
        gc.collect()
        gc.collect()
        assert len(clock.pauses) == 2 and all(p >= 0.0 for p in clock.pauses)
    finally:
        gc.callbacks.remove(clock)


def test_a_tiny_run_reports_every_search(capsys):
    assert main(["--searches", "4", "--turn-ms", "20,10", "--heap", "1000"]) == 0
    out = capsys.readouterr().out
    assert "searches of [20, 10] ms, extra heap 1000" in out
    assert re.search(r"overrun past the deadline: n=4 ", out)
    assert re.search(r"garbage collector inside the searches: \d+ pauses, longest \d+\.\d ms", out)
    assert PauseClock not in [type(c) for c in gc.callbacks]  # the tool removed its clock
