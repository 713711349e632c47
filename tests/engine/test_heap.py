"""The engine keeps freed memory in the heap (engine.heap): a search's batches do not turn
into page faults.  Counted in a fresh process, where the allocator's state is its own."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import resource
from engine.api import open_engine
from engine.mnk.board.rules import Board, GameConfig
from engine.search.limits import Limits
cfg = GameConfig.square(15, 5)
open_engine(cfg, seed=1).search(Board(cfg), Limits(nodes=300))
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
open_engine(cfg, seed=1).search(Board(cfg), Limits(nodes=4000))
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator only")
def test_a_search_does_not_page_fault_its_batches():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    # Without engine.heap.keep_heap this search makes some 40,000 faults (160 MB touched anew).
    assert int(out.stdout.strip()) < 8000


def test_keep_heap_is_idempotent():
    from engine.heap import keep_heap

    first = keep_heap()
    assert keep_heap() == first
