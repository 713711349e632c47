"""Searchers behind the session: the lazily built engine and its fallbacks."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from engine.search.limits import Limits, SearchResult
from engine.mnk.board.rules import Board, GameConfig
from protocol.gomocup.thinker import EngineFactory, LazyEngine


class SlowFactory:
    """Builds a fake engine after ``delay`` s, or fails."""

    def __init__(self, delay: float = 0.0, fail: bool = False, loaded: bool = False) -> None:
        self.delay, self.fail, self.loaded = delay, fail, loaded
        self.release = threading.Event()

    def is_loaded(self) -> bool:
        return self.loaded

    def build(self, config):
        self.release.wait(self.delay)
        if self.fail:
            raise ImportError("no numpy here")

        class Fake:
            def search(self, board, limits, stop=None):
                return SearchResult(move=0, reason="real")

        return Fake()


def test_lazy_engine_answers_quickly_while_still_loading_then_uses_the_engine():
    factory = SlowFactory(delay=30)
    lazy = LazyEngine(factory, GameConfig.square(9, 4))
    board = Board(GameConfig.square(9, 4))
    t0 = time.monotonic()
    res = lazy.search(board, Limits(deadline=time.monotonic() + 0.05))
    assert "still loading" in res.reason and res.move == 4 * 9 + 4
    assert time.monotonic() - t0 < 1.0
    stop = threading.Event()
    stop.set()
    assert "still loading" in lazy.search(board, Limits(), stop).reason  # stop ends the wait too
    factory.release.set()
    assert lazy.wait(5)
    assert lazy.search(board, Limits(deadline=time.monotonic() + 0.05)).reason == "real"


def test_lazy_engine_reports_a_failed_build_on_every_move():
    lazy = LazyEngine(SlowFactory(fail=True, loaded=True), GameConfig.square(9, 4))
    assert lazy.wait(0)  # built synchronously: the engine was "already imported"
    res = lazy.search(Board(GameConfig.square(9, 4)), Limits(deadline=time.monotonic()))
    assert "engine unavailable" in res.reason and "no numpy here" in res.reason


@pytest.mark.slow
def test_engine_factory_knows_when_the_import_is_complete():
    code = (
        "import time\n"
        "from protocol.gomocup.thinker import EngineFactory\n"
        "f = EngineFactory()\n"
        "print(f.is_loaded())\n"
        "f.preload()\n"
        "end = time.monotonic() + 30\n"
        "while not f.is_loaded() and time.monotonic() < end: time.sleep(0.01)\n"
        "import sys; print(f.is_loaded(), hasattr(sys.modules['engine.mnk.tree.engine'], 'MnkEngine'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "True", "True"], out.stderr


def test_engine_factory_options_and_real_engine():
    factory = EngineFactory("uct", seed=5)
    factory.check()
    cfg = GameConfig.square(7, 4)
    lazy = factory(cfg)
    assert lazy.wait(30)
    res = lazy.search(Board(cfg), Limits(nodes=50))
    assert 0 <= res.move < 49
    for values, words in (({"no_such_option": "1"}, ["no_such_option", "valid keys", "tree.exploration"]),
                          ({"exploration": "abc"}, ["exploration", "want a number"])):
        try:
            EngineFactory("guided", values).check()
        except ValueError as exc:
            assert all(w in str(exc) for w in words), exc
        else:
            raise AssertionError(f"bad engine option {values} was accepted")
