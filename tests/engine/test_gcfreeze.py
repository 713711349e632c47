"""The garbage collector leaves the objects older than a search alone while it runs."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from engine.mnk.tree.engine import MnkEngine
from engine.mnk.tree.options import MnkOptions
from engine.mnk.board.rules import Board, GameConfig
from engine.search.gcfreeze import older_objects_frozen
from engine.search.limits import Limits
from engine.search.mcts import MCTS, TreeSettings
from engine.search.playouts import RandomPlayouts
from support.toygames import TicTacToe


def collectable(obj) -> bool:
    """Would a full collection now walk ``obj``?"""
    return any(o is obj for o in gc.get_objects())


@pytest.fixture
def unfrozen():
    """A heap with nothing frozen, as a process starts."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_an_mcts_search_freezes_the_older_objects_and_unfreezes_them(unfrozen):
    older = [[i] for i in range(100)]
    seen = []
    tree = MCTS(RandomPlayouts(4), None, TreeSettings(), np.random.default_rng(0))
    tree.set_root(TicTacToe())
    tree.search(Limits(nodes=300), on_info=lambda info: seen.append(collectable(older)))
    assert seen and not any(seen)
    assert gc.get_freeze_count() == 0 and collectable(older)


def test_a_guided_mnk_search_runs_frozen(unfrozen):
    cfg = GameConfig.square(15, 5)
    board = Board(cfg)
    for x, y in [(7, 7), (8, 8), (8, 6)]:
        board.play(cfg.move(x, y))
    older = [[i] for i in range(100)]
    seen = []
    MnkEngine(cfg, MnkOptions.guided(), seed=0).search(
        board, Limits.movetime(400), on_info=lambda info: seen.append(collectable(older)))
    assert seen and not any(seen)
    assert gc.get_freeze_count() == 0


def test_overlapping_searches_unfreeze_when_the_last_ends(unfrozen):
    older = [[i] for i in range(100)]
    with older_objects_frozen():
        with older_objects_frozen():
            assert not collectable(older)
        assert not collectable(older)  # another search still runs
    assert collectable(older) and gc.get_freeze_count() == 0


def test_a_process_that_froze_objects_keeps_them_frozen(unfrozen):
    mine = [[i] for i in range(100)]
    gc.freeze()
    tree = MCTS(RandomPlayouts(4), None, TreeSettings(), np.random.default_rng(0))
    tree.set_root(TicTacToe())
    tree.search(Limits(nodes=300))
    assert not collectable(mine)


def test_the_heap_is_unfrozen_when_a_search_raises(unfrozen):
    older = [[i] for i in range(100)]

    def fail(info):
        raise RuntimeError("from the caller's callback")

    tree = MCTS(RandomPlayouts(4), None, TreeSettings(), np.random.default_rng(0))
    tree.set_root(TicTacToe())
    with pytest.raises(RuntimeError):
        tree.search(Limits(nodes=300), on_info=fail)
    assert collectable(older) and gc.get_freeze_count() == 0
