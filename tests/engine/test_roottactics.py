"""Root threat search of guided mode, progressive bias and the guided defaults."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest

from engine.mnk.tree.engine import MnkEngine
from engine.mnk.tree.options import FAST_SOLVER_BUDGETS, GUIDED_TREE, MnkOptions
from engine.mnk.threats.roottactics import CHECKS_MIN_S, plan_root
from engine.mnk.board.rules import Board, GameConfig, Player, Rule
from engine.mnk.threats.solver import fast_solver
from engine.mnk.threats.roottactics import losing_moves
from engine.search.limits import Limits
from engine.search.mcts import MCTS

X, O = 1, 2
CFG = GameConfig.square(15, 5)
FAR_X = [(0, 0), (14, 14), (14, 0), (0, 14)]


def tree_of(board: Board, options: MnkOptions) -> MCTS:
    """The generic tree of an engine with ``options`` (the C tree off), its root set to ``board``."""
    tree = MnkEngine(CFG, options.with_values({"native.enabled": False}), seed=0).tree
    tree.set_root(board)
    return tree


def board_of(xs, os_, to_move: int = X, config: GameConfig = CFG) -> Board:
    """X stones ``xs``, O stones ``os_`` ((x, y) lists), ``to_move`` to play."""
    b = Board(config)
    for p, pts in ((X, xs), (O, os_)):
        for x, y in pts:
            b.to_move = Player(p)
            assert b.play(config.move(x, y)) is None
    b.to_move = Player(to_move)
    return b


def m(x: int, y: int) -> int:
    return CFG.move(x, y)


#: A game against Rapfi up to a move of X that lost to O's VCT: X to move, O threatening.
THREATENED_GAME = [
    (7, 8), (6, 7), (6, 6), (7, 7), (9, 8), (7, 6), (8, 5), (6, 8), (5, 9), (5, 7), (4, 7), (8, 6), (9, 7),
    (7, 9), (4, 6), (8, 10), (9, 11), (9, 5), (10, 4), (9, 9), (6, 9), (7, 10), (10, 10), (11, 9), (10, 9),
    (10, 8), (11, 7), (4, 8), (7, 4), (5, 10), (6, 10), (3, 8), (2, 8), (6, 11), (4, 9), (10, 7), (3, 9), (2, 9),
]


def fork_position(config: GameConfig = CFG) -> Board:
    """O threatens a double three at (7, 7); it has no four, no open three yet."""
    return board_of(FAR_X, [(5, 7), (6, 7), (7, 5), (7, 6)], config=config)


def test_losing_moves_open_three():
    b = board_of(FAR_X, [(5, 7), (6, 7), (7, 7)])
    before = list(b.cells)
    moves = [m(4, 7), m(8, 7), m(3, 7), m(9, 7), m(10, 2)]
    safe, losing, unchecked = losing_moves(b, moves)
    assert b.cells == before
    assert safe == [m(4, 7), m(8, 7)]
    assert losing == [m(3, 7), m(9, 7), m(10, 2)]
    assert unchecked == []


def test_losing_moves_sees_a_vct_that_is_no_threat_yet():
    b = fork_position()
    safe, losing, _ = losing_moves(b, [m(7, 7), m(10, 2)])
    assert safe == [m(7, 7)] and losing == [m(10, 2)]


def test_losing_moves_past_deadline_checks_nothing():
    b = fork_position()
    safe, losing, unchecked = losing_moves(b, [m(7, 7), m(10, 2)], deadline=0.0)
    assert (safe, losing, unchecked) == ([], [], [m(7, 7), m(10, 2)])


def test_plan_root_plays_own_vcf():
    b = board_of([(5, 7), (6, 7), (7, 7)], [(0, 0), (14, 14), (0, 14)])
    plan = plan_root(b, [m(4, 7), m(8, 7)], None, 0.15)
    assert plan.reason == "vcf" and plan.move in (m(4, 7), m(8, 7)) and plan.line[0] == plan.move


def test_plan_root_lists_losing_moves():
    b = fork_position()
    plan = plan_root(b, [m(7, 7), m(10, 2), m(8, 8)], None, 0.15)
    assert plan.move is None
    assert m(10, 2) in plan.losing and m(7, 7) not in plan.losing


def test_guided_engine_answers_the_fork_and_reports_a_proven_own_win():
    eng = MnkEngine(CFG, MnkOptions.guided(), seed=3)
    res = eng.search(fork_position(), Limits(nodes=300))
    safe, _, _ = losing_moves(fork_position(), [res.move])
    assert safe == [res.move]
    win = board_of([(5, 7), (6, 7), (7, 7)], [(0, 0), (14, 14), (0, 14)])
    res = MnkEngine(CFG, MnkOptions.guided(), seed=3).search(win, Limits(nodes=300))
    assert res.proven == "win" and res.move in (m(4, 7), m(8, 7), m(3, 7), m(9, 7))


def test_drop_root_moves_keeps_statistics():
    s = tree_of(fork_position(), MnkOptions.uct())
    s.search(Limits(nodes=200))
    root = s.root
    stats = {mv: (root.n[i], root.w[i]) for i, mv in enumerate(root.moves)}
    moves = list(root.moves)
    assert s.drop_root_moves(moves) == 0  # never every move
    assert root.moves == moves
    keep = moves[:3] + moves[-2:]
    assert s.drop_root_moves([mv for mv in moves if mv not in keep]) == len(moves) - 5
    assert sorted(root.moves) == sorted(keep) and not root.complete
    for i, mv in enumerate(root.moves):
        assert (root.n[i], root.w[i]) == stats[mv]
    assert root.total == sum(root.n)
    assert all(root.n[i] > 0 for i in range(root.next_new))
    assert all(root.n[i] == 0 for i in range(root.next_new, len(root.moves)))
    res = s.search(Limits(nodes=100))
    assert res.move in keep


def test_mode_defaults():
    plain = MnkOptions.uct()
    assert plain.mode == "uct" and plain.tree.widening == 0.0 and plain.tree.prior_bias == 0.0
    guided = MnkOptions.guided()
    assert guided.tree == GUIDED_TREE and guided.tree.exploration != plain.tree.exploration
    assert guided.with_values({"widening": 0.0, "prior_bias": 0.0}).tree.widening == 0.0
    assert guided.with_values({"exploration": 0.8}).tree.exploration == 0.8


def test_prior_bias_is_stored_per_move_in_guided_mode_only():
    b = board_of([(7, 7), (8, 8)], [(6, 6), (9, 9)])
    guided = tree_of(b, MnkOptions.guided())
    pri = guided.root.prior
    assert pri is not None and len(pri) == len(guided.root.moves)
    assert pri[0] == GUIDED_TREE.prior_bias and np.all(pri <= pri[0]) and pri.min() < pri[0]
    plain = tree_of(b, MnkOptions.uct())
    assert plain.root.prior is None


def test_plan_root_own_vct_obeys_its_threes():
    """O to move in the fork position wins with one three (the double three at (7, 7))."""
    b = fork_position()
    b.to_move = Player(O)
    moves = [m(7, 7), m(8, 8)]
    assert plan_root(b, moves, None, 0.15, threes=0).move is None
    plan = plan_root(b, moves, None, 0.15, threes=1)
    assert (plan.move, plan.reason) == (m(7, 7), "vct")


def test_plan_root_reply_threes_bound_the_opponent_search():
    """Leaving the fork open loses only to a VCT with a three: with no threes allowed
    in the reply check it is not found."""
    b = fork_position()
    moves = [m(7, 7), m(10, 2), m(8, 8)]
    assert m(10, 2) not in plan_root(b, moves, None, 0.15, reply_threes=0).losing
    assert m(10, 2) in plan_root(b, moves, None, 0.15, reply_threes=1).losing


def test_tree_knowledge_proves_a_vct_only_with_a_vct_budget():
    b = fork_position()
    b.to_move = Player(O)
    for vct_nodes, proves in ((0, False), (5000, True)):
        tree = tree_of(b, MnkOptions.guided().with_values({"knowledge.vct_nodes": vct_nodes}))
        assert tree.evaluator.vct_nodes == vct_nodes
        assert bool(tree.root.outcome) == proves
        if proves:
            assert tree.root.win_first and tree.root.moves[0] == m(7, 7)


def test_option_values_are_validated():
    for key in ("reply_threes", "knowledge.vct_nodes", "vcf_nodes", "exploration", "native.edge_cap"):
        with pytest.raises(ValueError):
            MnkOptions.guided().with_values({key: -1})


def test_threat_budgets_follow_the_solver_unless_set():
    from engine.mnk.tree.options import FAST_SOLVER_BUDGETS, PYTHON_SOLVER_BUDGETS
    from engine.mnk.board.rules import Rule
    from engine.mnk.threats.solver import fast_solver

    opts = MnkOptions.guided()
    assert opts.budgets(True) == FAST_SOLVER_BUDGETS
    assert opts.budgets(False) == PYTHON_SOLVER_BUDGETS
    assert FAST_SOLVER_BUDGETS != PYTHON_SOLVER_BUDGETS
    mine = FAST_SOLVER_BUDGETS._replace(root_threes=3, vct_nodes=0, threat_threes=2)
    assert replace(opts, root=replace(opts.root, budgets=mine)).budgets(False) == mine
    # Exact, caro and short lines always run on the Python solver, with its budgets.
    for cfg in (GameConfig.square(15, 5, Rule.EXACT), GameConfig.square(15, 5, Rule.CARO), GameConfig.square(7, 3)):
        assert not fast_solver(cfg)


def test_probe_vct_tells_a_proof_of_no_win_from_a_budget_run_out():
    from engine.mnk.threats.solver import probe_vct

    # O (not to move) threatens the double three at (7, 7): the null-move probe finds it.
    line, finished = probe_vct(fork_position(), O, max_nodes=5000, max_threes=2)
    assert finished and line is not None and line[0] == m(7, 7)
    # Scattered stones: there is no VCT at all, and the search can prove it.
    line, finished = probe_vct(board_of(FAR_X, [(3, 3), (10, 10)]), O, max_nodes=100_000, max_threes=2)
    assert (line, finished) == (None, True)
    # The same question on a budget too small to answer it.
    line, finished = probe_vct(fork_position(), O, max_nodes=1, max_threes=2)
    assert (line, finished) == (None, False)


def test_losing_moves_deepens_and_bounds_each_move_in_time():
    b = fork_position()
    safe, losing, _ = losing_moves(b, [m(7, 7), m(10, 2)], max_threes=2, best_first=True)
    assert safe == [m(7, 7)] and losing == [m(10, 2)]
    # A per-move time of zero aborts every check: aborted checks count as safe.
    safe, losing, _ = losing_moves(b, [m(7, 7), m(10, 2)], max_threes=2, move_seconds=0.0)
    assert safe == [m(7, 7), m(10, 2)] and losing == []


def test_plan_root_threat_probe_skips_checks_when_nothing_threatens():
    b = board_of(FAR_X, [(3, 3), (10, 10)])
    plan = plan_root(b, [m(7, 7), m(10, 2), m(8, 8)], None, 0.4, threat_threes=2, threat_nodes=100_000)
    assert plan.threat == [] and plan.losing == [] and plan.checked == 0


def test_plan_root_threat_probe_keeps_only_the_answers_it_checked():
    b = fork_position()
    moves = [m(7, 7), m(10, 2), m(8, 8), m(4, 7), m(7, 4)]
    plan = plan_root(b, moves, None, 0.4, threat_threes=2, threat_nodes=20_000)
    assert plan.threat and plan.threat[0] == m(7, 7)
    assert m(7, 7) not in plan.losing and m(10, 2) in plan.losing and plan.checked == len(moves)
    # Under a deadline already past, the probe cannot run: the plan drops nothing.
    plan = plan_root(fork_position(), moves, 0.0, 0.4, threat_threes=2, threat_nodes=20_000)
    assert plan.losing == []


def test_a_short_turn_leaves_the_threat_checks_to_the_tree_but_still_plays_own_wins():
    moves = [m(7, 7), m(10, 2), m(8, 8)]
    plan = plan_root(fork_position(), moves, time.monotonic() + CHECKS_MIN_S / 2, 0.4,
                     threat_threes=2, threat_nodes=20_000)
    assert plan.move is None and plan.threat == [] and plan.losing == [] and plan.checked == 0
    plan = plan_root(fork_position(), moves, time.monotonic() + 5.0, 0.4, threat_threes=2, threat_nodes=20_000)
    assert plan.threat and m(10, 2) in plan.losing and plan.checked == len(moves)
    win = board_of([(5, 7), (6, 7), (7, 7)], [(0, 0), (14, 14), (0, 14)])
    plan = plan_root(win, [m(4, 7), m(8, 7)], time.monotonic() + CHECKS_MIN_S / 2, 0.4)
    assert plan.reason == "vcf" and plan.move in (m(4, 7), m(8, 7))


def test_classify_moves_tells_proofs_from_budgets_run_out():
    from engine.mnk.threats.roottactics import LOSING, OPEN, SAFE, UNCHECKED, classify_moves

    b = fork_position()
    moves = [m(7, 7), m(10, 2), m(7, 7), m(5, 7)]  # a repeat and an occupied cell are dropped
    assert classify_moves(b, moves, max_threes=2, best_first=True) == {m(7, 7): SAFE, m(10, 2): LOSING}
    # One solver node settles nothing after the block, but the ignoring move leaves O a
    # completion-free VCT, which also needs more than one node: both stay open.
    assert classify_moves(b, moves, max_nodes=1, max_threes=2) == {m(7, 7): OPEN, m(10, 2): OPEN}
    assert classify_moves(b, moves, deadline=0.0) == {m(7, 7): UNCHECKED, m(10, 2): UNCHECKED}


def test_open_checks_are_settled_by_growing_passes():
    from engine.mnk.threats.roottactics import _recheck_open
    from engine.mnk.threats.roottactics import LOSING, OPEN, SAFE

    import time

    b = fork_position()
    before = list(b.cells)
    verdicts = {m(7, 7): OPEN, m(10, 2): OPEN, m(8, 8): SAFE}
    checks = dict(max_nodes=1, max_threes=2, best_first=True, move_seconds=0.001)
    _recheck_open(b, verdicts, time.monotonic() + 5.0, checks)
    assert verdicts == {m(7, 7): SAFE, m(10, 2): LOSING, m(8, 8): SAFE}
    assert b.cells == before and checks["max_nodes"] == 1  # the caller's budgets are not changed
    # No time left: open moves stay open.
    verdicts = {m(10, 2): OPEN}
    _recheck_open(b, verdicts, 0.0, dict(checks))
    assert verdicts == {m(10, 2): OPEN}


def test_plan_root_under_a_threat_rechecks_what_the_first_pass_left_open():
    import time

    from engine.mnk.threats import roottactics

    b = fork_position()
    moves = [m(7, 7), m(10, 2), m(8, 8), m(4, 7), m(7, 4)]
    # A per-move time so small that the first pass settles nothing, and a whole second for
    # the checks: the growing passes must still prove which moves lose.
    saved = roottactics.THREAT_CHECK_MIN_S, roottactics.THREAT_CHECK_FACTOR
    roottactics.THREAT_CHECK_MIN_S, roottactics.THREAT_CHECK_FACTOR = 1e-6, 0.0
    try:
        plan = plan_root(b, moves, time.monotonic() + 2.0, 0.5, threat_threes=2, threat_nodes=20_000)
    finally:
        roottactics.THREAT_CHECK_MIN_S, roottactics.THREAT_CHECK_FACTOR = saved
    assert plan.threat and m(7, 7) not in plan.losing and m(10, 2) in plan.losing


def test_a_stopped_plan_drops_nothing_and_a_stopped_check_checks_nothing():
    import threading

    from engine.mnk.threats.roottactics import UNCHECKED, classify_moves

    stop = threading.Event()
    stop.set()
    moves = [m(7, 7), m(10, 2), m(8, 8)]
    assert classify_moves(fork_position(), moves, stop=stop) == {mv: UNCHECKED for mv in moves}
    # The same plan unstopped drops m(10, 2) (test_plan_root_lists_losing_moves); stopped,
    # it has checked nothing and so drops nothing, under a threat or not.
    for threat_threes in (0, 2):
        plan = plan_root(fork_position(), moves, None, 0.4, threat_threes=threat_threes, stop=stop)
        assert plan.move is None and plan.losing == [] and plan.checked == 0
    # A stop does not hide a win already found: the own VCF comes first.
    win = board_of([(5, 7), (6, 7), (7, 7)], [(0, 0), (14, 14), (0, 14)])
    assert plan_root(win, [m(4, 7), m(8, 7)], None, 0.15, stop=stop).reason == "vcf"


class _FakeRoot:
    """The root methods :class:`BestMoveCheck` uses, over fixed visit counts."""

    def __init__(self, visits: dict[int, int]) -> None:
        self.visits = dict(visits)
        self.dropped: list[int] = []

    def root_children(self):
        from engine.search.choice import Child

        return [Child(mv, float(n), n / 2.0) for mv, n in self.visits.items()]

    def drop_root_moves(self, drop) -> int:
        gone = [mv for mv in drop if mv in self.visits][: len(self.visits) - 1]
        for mv in gone:
            del self.visits[mv]
        self.dropped += gone
        return len(gone)


def test_the_best_move_check_drops_the_tree_choice_when_it_loses_and_checks_the_next():
    import time

    from engine.mnk.threats.roottactics import LOSING, SAFE, BestMoveCheck

    b = fork_position()
    before = list(b.cells)
    root = _FakeRoot({m(10, 2): 90, m(7, 7): 50, m(8, 8): 10})
    check = BestMoveCheck(b, root, [m(10, 2), m(7, 7)], 0.0, time.monotonic() + 5.0, threes=2)
    assert check(False) is False
    # m(10, 2) ignores O's double-three threat: proven lost and dropped; m(7, 7), the tree's
    # next choice, blocks it: proven safe and kept.
    assert check.verdicts == {m(10, 2): LOSING, m(7, 7): SAFE}
    assert root.dropped == [m(10, 2)] and b.cells == before
    # Each move is checked once, and a best move the plan did not leave open is not checked.
    assert check(False) is False and len(check.verdicts) == 2
    other = BestMoveCheck(b, _FakeRoot({m(8, 8): 90, m(10, 2): 50}), [m(10, 2)], 0.0, time.monotonic() + 5.0, 2)
    other(False)
    assert other.verdicts == {}


def test_the_best_move_check_waits_for_its_time_and_obeys_stop_and_the_last_call():
    import threading
    import time

    from engine.mnk.threats.roottactics import BestMoveCheck

    b = fork_position()
    stop = threading.Event()
    soon = time.monotonic() + 5.0
    for begin, last, stopped in ((soon, False, False), (0.0, True, False), (0.0, False, True)):
        if stopped:
            stop.set()
        root = _FakeRoot({m(10, 2): 90, m(7, 7): 50})
        check = BestMoveCheck(b, root, [m(10, 2)], begin, soon + 5.0, 2, stop)
        check(last)
        assert check.verdicts == {} and root.dropped == []


def test_plan_root_under_a_threat_lists_the_moves_its_checks_left_open(monkeypatch):
    import time

    from engine.mnk.threats import roottactics

    b = fork_position()
    moves = [m(7, 7), m(10, 2), m(8, 8)]
    # Checks whose node budget settles no more than the moves that ignore the threat outright
    # (O then has its double three at once), whose time never binds (so the verdicts do not
    # depend on the machine's speed), and passes that never grow: the block stays open.
    monkeypatch.setattr(roottactics, "THREAT_CHECK_MIN_S", 60.0)
    monkeypatch.setattr(roottactics, "THREAT_CHECK_FACTOR", 0.0)
    monkeypatch.setattr(roottactics, "SURVIVOR_FACTOR", 1)
    plan = plan_root(b, moves, time.monotonic() + 1.0, 0.5, threat_threes=2, threat_nodes=200)
    assert plan.threat and plan.losing == [m(10, 2), m(8, 8)] and plan.open == [m(7, 7)]


def test_under_a_threat_moves_left_open_are_dropped_once_another_is_proven_safe(monkeypatch):
    from engine.mnk.threats import roottactics
    from engine.mnk.threats.roottactics import LOSING, OPEN, SAFE

    moves = [m(7, 7), m(10, 2), m(8, 8), m(4, 7)]

    def plan_with(verdicts, config=CFG):
        # The checks' verdicts are set here, so the rule is tested whatever the solver proves
        # within a budget; the null-move probe still finds O's double three for real.
        monkeypatch.setattr(roottactics, "classify_moves", lambda board, todo, **kw: {mv: verdicts[mv] for mv in todo})
        return plan_root(fork_position(config), moves, None, 0.4, threat_threes=2, threat_nodes=20_000)

    plan = plan_with({m(7, 7): SAFE, m(10, 2): LOSING, m(8, 8): OPEN, m(4, 7): OPEN})
    assert plan.threat and plan.losing == [m(10, 2), m(8, 8), m(4, 7)] and plan.open == []
    # Under renju the open moves stay beside the safe one.
    plan = plan_with({m(7, 7): SAFE, m(10, 2): LOSING, m(8, 8): OPEN, m(4, 7): OPEN}, GameConfig(15, 15, 5, Rule.RENJU))
    assert plan.threat and plan.losing == [m(10, 2)] and plan.open == [m(8, 8), m(4, 7)]
    # No move proven safe: the open ones stay, for the check of the move about to be played.
    plan = plan_with({m(7, 7): OPEN, m(10, 2): LOSING, m(8, 8): OPEN, m(4, 7): LOSING})
    assert plan.losing == [m(10, 2), m(4, 7)] and plan.open == [m(7, 7), m(8, 8)]
    # Not under a threat (no probe), an open move is kept.
    monkeypatch.setattr(roottactics, "classify_moves", lambda board, todo, **kw: {
        mv: {m(7, 7): SAFE, m(10, 2): LOSING}.get(mv, OPEN) for mv in todo})
    plan = plan_root(fork_position(), moves, None, 0.4)
    assert plan.losing == [m(10, 2)] and plan.open == []


@pytest.mark.skipif(not fast_solver(CFG), reason="its time shares are set for the C solver")
def test_the_engine_checks_the_move_it_is_about_to_play_when_the_plan_left_it_open(monkeypatch):
    import time

    from engine.mnk.tree import engine as mnk_engine
    from engine.mnk.threats import roottactics

    made = []

    class Recorded(roottactics.BestMoveCheck):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(mnk_engine, "BestMoveCheck", Recorded)
    # The plan's checks settle only what loses at once; the moves they did not prove lost are
    # left open (a slower solver or a shorter turn leaves them so), for the tree to choose among.
    monkeypatch.setattr(roottactics, "THREAT_CHECK_MIN_S", 1e-6)
    monkeypatch.setattr(roottactics, "THREAT_CHECK_FACTOR", 0.0)
    plan_root = mnk_engine.plan_root

    def leaving_open(*args, **kwargs):
        plan = plan_root(*args, **kwargs)
        plan.open = [m for m in args[1] if m not in plan.losing]
        return plan

    monkeypatch.setattr(mnk_engine, "plan_root", leaving_open)
    guided = MnkOptions.guided()
    options = replace(guided, root=replace(guided.root, budgets=FAST_SOLVER_BUDGETS._replace(root_share=0.05)))
    # X to move, O threatening: a few moves are safe, most lose to O's VCT at once.
    board = Board(CFG)
    for x, y in THREATENED_GAME:
        board.play(CFG.move(x, y))
    result = MnkEngine(CFG, options, seed=0).search(board, Limits(deadline=time.monotonic() + 1.0))
    (check,) = made
    # The tree's choices among the moves left open were checked, and none proven lost was played.
    assert check.verdicts
    assert check.verdicts.get(result.move) != roottactics.LOSING
    # A search without a deadline (reproducible from its seed) checks nothing more.
    made.clear()
    MnkEngine(CFG, options, seed=0).search(board, Limits(nodes=200))
    assert made == []


def test_plan_root_tells_the_moves_it_proves_lost_once_another_move_stands():
    heard: list[list[int]] = []
    plan = plan_root(fork_position(), [m(10, 2), m(7, 7)], None, 0.15, on_losing=heard.append)
    assert heard == [[m(10, 2)]] and plan.losing == [m(10, 2)]
    # O has an open four: every move of X loses, so none is told (and none dropped).
    heard.clear()
    b = board_of(FAR_X, [(5, 7), (6, 7), (7, 7), (8, 7)])
    plan = plan_root(b, [m(10, 2), m(4, 7)], None, 0.15, on_losing=heard.append)
    assert heard == [] and plan.losing == []
