"""Time and memory control: margins, match-clock budgeting, anchoring, tree caps."""

from __future__ import annotations

import pytest

from engine import timecontrol as tc
from engine.timecontrol import MatchClock, TimeSettings, match_budget_ms, plan_move, tree_cap, turn_budget_ms


def test_turn_budget_keeps_a_margin_and_is_never_negative():
    assert turn_budget_ms(0) == 0.0
    assert turn_budget_ms(10) == 0.0
    assert 50 <= turn_budget_ms(100) < 100
    assert 900 <= turn_budget_ms(1000) < 1000
    # long turns: margin capped, so a 300 s turn loses at most TURN_MARGIN_MAX_MS
    assert turn_budget_ms(300_000) == 300_000 - tc.TURN_MARGIN_MAX_MS
    budgets = [turn_budget_ms(ms) for ms in range(0, 20_000, 37)]
    assert budgets == sorted(budgets), "more turn time never means less search time"


def test_deadline_is_anchored_to_arrival_not_to_now():
    plan = plan_move(TimeSettings(turn_ms=1000), arrival=500.0, time_left_ms=None, empty_cells=200)
    assert plan.limits.deadline == pytest.approx(500.0 + turn_budget_ms(1000) / 1000)


def test_zero_turn_time_means_at_once():
    plan = plan_move(TimeSettings(turn_ms=0), arrival=10.0, time_left_ms=None, empty_cells=200)
    assert plan.limits.deadline == 10.0
    assert "at once" in plan.reason


def test_match_clock_budget_is_a_fraction_and_capped():
    # open board: divided by the horizon
    assert match_budget_ms(120_000, 225) == pytest.approx(
        ((1 - tc.MATCH_SAFETY_FRACTION) * 120_000 - tc.MATCH_RESERVE_PER_MOVE_MS * tc.MOVES_TO_GO_HORIZON)
        / tc.MOVES_TO_GO_HORIZON
    )
    # nearly full board: few moves to go, but never more than the max fraction
    assert match_budget_ms(10_000, 1) == pytest.approx(tc.MATCH_MAX_FRACTION * 10_000)
    assert match_budget_ms(0, 100) == 0.0
    assert match_budget_ms(-50, 100) == 0.0
    # too little left for the latency reserve of the remaining moves: answer at once
    assert match_budget_ms(tc.MATCH_RESERVE_PER_MOVE_MS * 10, 225) == 0.0


def test_turn_and_match_limits_take_the_smaller():
    s = TimeSettings(turn_ms=5000, match_ms=120_000)
    plan = plan_move(s, arrival=0.0, time_left_ms=3000, empty_cells=225)
    assert plan.budget_ms == pytest.approx(match_budget_ms(3000, 225))
    plan = plan_move(s, arrival=0.0, time_left_ms=10_000_000, empty_cells=225)
    assert plan.budget_ms == pytest.approx(turn_budget_ms(5000))


def test_unlimited_time_left_is_ignored_and_default_turn_applies_only_without_limits():
    plan = plan_move(TimeSettings(), arrival=0.0, time_left_ms=tc.UNLIMITED_MS, empty_cells=225)
    assert plan.budget_ms == pytest.approx(turn_budget_ms(tc.DEFAULT_TURN_MS))
    plan = plan_move(TimeSettings(), arrival=0.0, time_left_ms=None, empty_cells=225, playouts=1000)
    assert plan.limits.deadline is None and plan.limits.playouts == 1000
    plan = plan_move(TimeSettings(), arrival=0.0, time_left_ms=None, empty_cells=225, default_turn_ms=None)
    assert plan.limits.deadline is None


def test_clock_never_runs_out_over_a_long_game():
    """Simulate a game where every move overshoots its budget by a fixed latency."""
    clock = MatchClock()
    clock.start(20_000)
    latency = 45.0  # ms outside the search per move, below the documented reserve
    empty = 15 * 15
    for _ in range(110):  # 110 own moves: more than a 15x15 game can have
        plan = plan_move(TimeSettings(match_ms=20_000), arrival=0.0, time_left_ms=clock.left_ms, empty_cells=empty)
        assert plan.budget_ms is not None
        clock.charge(plan.budget_ms + latency)
        assert clock.left_ms > 0
        empty = max(1, empty - 2)


def test_match_clock_accounting():
    clock = MatchClock()
    clock.start(0)
    assert clock.left_ms is None  # 0 = no match limit
    clock.start(10_000)
    clock.charge(1500)
    assert clock.left_ms == 8500
    clock.set_left(4000)
    assert clock.left_ms == 4000
    clock.set_left(tc.UNLIMITED_MS)
    assert clock.left_ms is None


def test_tree_cap_from_memory():
    assert tree_cap(None) is None and tree_cap(0) is None
    assert tree_cap(1) == tc.MIN_TREE_NODES
    small, big = tree_cap(200 * 2**20), tree_cap(350 * 2**20)
    assert tc.MIN_TREE_NODES < small < big <= tc.MAX_TREE_NODES
    # the estimate stays inside the limit
    assert tc.BASE_MEMORY_BYTES + big * tc.NODE_BYTES <= 350 * 2**20


def test_hard_deadline_is_the_turn_limit_itself_and_after_the_search_deadline():
    plan = plan_move(TimeSettings(turn_ms=1000), arrival=100.0, time_left_ms=None, empty_cells=200)
    assert plan.hard_deadline == pytest.approx(101.0) and plan.limits.deadline < plan.hard_deadline
    plan = plan_move(TimeSettings(turn_ms=0), arrival=100.0, time_left_ms=None, empty_cells=200)
    assert plan.hard_deadline == pytest.approx(100.0 + tc.INSTANT_HARD_MS / 1000)
    plan = plan_move(TimeSettings(), arrival=100.0, time_left_ms=10_000, empty_cells=200)
    assert plan.limits.deadline < plan.hard_deadline <= 100.0 + 5.0  # never more than half the clock
    plan = plan_move(TimeSettings(), arrival=100.0, time_left_ms=None, empty_cells=200, playouts=50)
    assert plan.hard_deadline is None


def test_nboard_levels_double_the_move_time_every_three_levels_within_bounds():
    assert tc.level_turn_ms(10) == 1000.0
    assert tc.level_turn_ms(13) == 2000.0 and tc.level_turn_ms(7) == 500.0
    times = [tc.level_turn_ms(level) for level in range(-5, 200)]
    assert times == sorted(times) and times[0] == tc.LEVEL_MIN_MS and times[-1] == tc.LEVEL_MAX_MS
    assert tc.level_turn_ms(10**12) == tc.LEVEL_MAX_MS  # no overflow


def test_a_reversi_game_clock_is_split_over_half_the_empty_squares():
    # 60 empties: 30 own moves to go; 10 empties: 5.
    plan = plan_move(TimeSettings(turn_ms=60_000), arrival=0.0, time_left_ms=300_000, empty_cells=60)
    assert 0.03 * 300_000 < plan.budget_ms < 300_000 / 30
    late = plan_move(TimeSettings(turn_ms=60_000), arrival=0.0, time_left_ms=10_000, empty_cells=10)
    assert 10_000 / 6 < late.budget_ms < 10_000 / 5
