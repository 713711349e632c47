"""Deep root tactics for a helper process (engine.mnk.tactician) and its use by ParallelEngine."""

from __future__ import annotations

import threading
import time

import pytest

from engine.api import EngineOptions
from engine.search.limits import Limits
from engine.mnk.helperproc import wants_tactician
from engine.mnk.parallel import ParallelEngine
from engine.mnk.rules import Board, GameConfig
from engine.mnk.tactician import RootTactician
from engine.mnk.threats import find_vct

CFG = GameConfig.square(15, 5)


def board_of(first: list[tuple[int, int]], second: list[tuple[int, int]]) -> Board:
    """A position with the given stones, first player to move when the counts are equal."""
    b = Board(CFG)
    for i in range(max(len(first), len(second))):
        if i < len(first):
            b.play(CFG.move(*first[i]))
        if i < len(second):
            b.play(CFG.move(*second[i]))
    return b


def test_own_threat_win_is_a_proven_win():
    # First player: an open three on row 7, to move: the open four wins by fours.
    b = board_of([(6, 7), (7, 7), (8, 7)], [(2, 2), (12, 12), (2, 12)])
    res = RootTactician(CFG).search(b, Limits(nodes=1))
    assert res.proven == "win" and res.reason in ("vcf", "vct")
    assert res.move in (CFG.move(5, 7), CFG.move(9, 7)) and res.pv[0] == res.move


def test_moves_that_ignore_an_open_three_are_proven_lost():
    # Second player to move faces the first player's open three (5..7, 7).
    b = board_of([(5, 7), (6, 7), (7, 7), (12, 2)], [(2, 2), (12, 12), (2, 12)])
    tac = RootTactician(CFG)
    res = tac.search(b, Limits.movetime(2000))
    lost = {m for m, n, w, proven in tac.root_stats() if proven == "loss"}
    assert lost, "some candidate ignores the three"
    # Only the cells next to the three hold (a block one further leaves room for an open four).
    blocks = {CFG.move(4, 7), CFG.move(8, 7)}
    assert not (lost & blocks)
    assert {CFG.move(3, 7), CFG.move(9, 7)} & lost
    assert res.move not in lost and res.proven is None
    # Every move reported lost really leaves the opponent a forced win.
    for m in list(lost)[:5]:
        after = b.copy()
        after.play(m)
        assert after.winning_cells(after.to_move) or find_vct(after, int(after.to_move), max_nodes=20000)


def test_no_checks_when_the_probe_proves_the_opponent_has_no_vct():
    from engine.mnk.threats import fast_solver, probe_vct

    if not fast_solver(CFG):
        pytest.skip("the probe runs with the C solver only")
    # Scattered stones: the opponent has no VCT even with a free move, and the probe proves it.
    b = board_of([(7, 7), (2, 12)], [(12, 2), (3, 3)])
    assert probe_vct(b, 2, max_nodes=500_000, max_threes=6) == (None, True)
    tac = RootTactician(CFG)
    t = time.monotonic()
    res = tac.search(b, Limits.movetime(3000))
    assert time.monotonic() - t < 1.0 and tac.root_stats() == [] and b.is_empty(res.move)


def test_stop_and_deadline_end_the_search_early():
    b = board_of([(7, 7), (8, 8), (6, 6)], [(8, 7), (6, 8), (9, 9)])
    stop = threading.Event()
    stop.set()
    t = time.monotonic()
    res = RootTactician(CFG).search(b, Limits.movetime(5000), stop=stop)
    assert time.monotonic() - t < 0.5 and b.is_empty(res.move)
    t = time.monotonic()
    RootTactician(CFG).search(b, Limits.movetime(300))
    assert time.monotonic() - t < 0.6


def test_interface_errors_like_the_engine():
    tac = RootTactician(CFG)
    with pytest.raises(ValueError):
        tac.search(Board(GameConfig.square(9, 5)), Limits(nodes=1))
    done = Board(CFG)
    for x in range(5):
        done.play(CFG.move(x, 0))
        if x < 4:
            done.play(CFG.move(x, 5))
    with pytest.raises(ValueError):
        tac.search(done, Limits(nodes=1))
    tac.new_game()
    assert tac.root_stats() == []


def test_only_guided_mode_with_threat_knowledge_gets_a_tactician():
    assert wants_tactician(EngineOptions(mode="guided"))
    assert not wants_tactician(EngineOptions(mode="guided", helpers="search"))
    assert not wants_tactician(EngineOptions(mode="uct"))
    with pytest.raises(ValueError):
        EngineOptions(helpers="many")


def test_parallel_engine_with_a_tactician_avoids_the_proven_losses():
    b = board_of([(5, 7), (6, 7), (7, 7), (12, 2)], [(2, 2), (12, 12), (2, 12)])
    eng = ParallelEngine(CFG, EngineOptions(mode="guided"), seed=4, workers=1)
    try:
        assert eng.wait_ready(10)
        res = eng.search(b, Limits.movetime(800))
        assert "2 of 2 searchers" in res.reason or "1 of 2" in res.reason
        assert res.move in {CFG.move(4, 7), CFG.move(8, 7)}
    finally:
        eng.close()
    assert eng.live_workers == 0
