"""Threat-space search at the root, before the tree search of guided mode.

The tree consults the threat knowledge (:class:`engine.mnk.tree.guided.GuidedLeaves`) at every node with
small solver budgets, which is right for the many nodes of the tree but
misses what matters most in a real game: a longer forced win of the side to
move, and the opponent's victories by continuous threats (VCT) that one
careless move allows.  Games between searchers of this kind are decided by
exactly that, so the root -- one position a move -- gets a larger budget:

1. a VCF, then a VCT, of the side to move: when found, its first move is
   played at once (a proof, no tree search needed);
2. with ``threat_threes``, a null-move probe: the opponent's VCT as if it
   moved next (:func:`engine.mnk.threats.solver.probe_vct`, deeper than the per-move
   checks can afford).  A stone of ours never helps the opponent, so when
   the probe proves there is no such win, no move of ours can allow one and
   the per-move checks are skipped.  When it finds one, every move must deal
   with it: the per-move checks below use the probe's threes and a time
   budget a few times what the probe took, may use more of the turn, and
   check the moves whose budget ran out again with growing budgets; the
   moves they did not reach are dropped with the losing ones (most moves do
   nothing against a threat), and so are those still open once some move is
   proven safe (not under renju, where keeping them measured stronger:
   docs/RESULTS.md);
3. every root move is checked for a VCT of the opponent after it
   (:func:`classify_moves`); the moves proven to lose are removed
   from the root as long as at least one other move remains.

The checks leave some moves open (their budget ran out), and under a threat
those are the moves a game is lost with: the opponent's VCT after them
exists but takes longer to find than a check's share of the turn.  Where no
move is proven safe (or under renju) they stay, and during
the tree search :class:`BestMoveCheck` checks again, with the rest of the
turn, the one open move that matters -- the one the tree is about to play --
and drops it when it loses.

With a deadline, all of it takes a fixed share of the time left, and with the
probe steps 2 and 3 run only when :data:`CHECKS_MIN_S` is left after step 1 (in
a shorter turn the tree does better with the time); without one
(node or playout limits) only solver-node budgets bound it, so a seeded
search stays reproducible.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from typing import Callable, Sequence

from ...search.choice import choose
from ..board.rules import EMPTY, Board, Rule
from ..knowledge.patterns import LineState
from .solver import BEST_FIRST, DEPTH_FIRST, _Abort, _solve, find_vcf, find_vct, probe_vct

#: Solver nodes for the side to move's own VCF and VCT.
OWN_VCF_NODES = 20000
OWN_VCT_NODES = 20000
#: The own VCT's node cap when a deadline bounds it (time is the real limit then).
TIMED_VCT_NODES = 50_000_000
#: Solver nodes per root move for the opponent's VCT after it.
REPLY_VCT_NODES = 300
#: Time of a per-move check against a threat the probe found, in multiples of the probe's
#: time (a move that does nothing about it lets the solver find the same line as fast),
#: and its floor in seconds.
THREAT_CHECK_FACTOR = 3.0
THREAT_CHECK_MIN_S = 0.003
#: Under a threat, the moves whose check ran out of budget are checked again, each pass
#: with this many times the previous pass's time and nodes, while the checks' time lasts.
SURVIVOR_FACTOR = 4
#: Under a threat, the checks may use this share of the time left, counted when they begin
#: (at least the root's own share); the moves they leave open get a second look from
#: :class:`BestMoveCheck` if the tree settles on them.
THREAT_SHARE = 0.4
#: Under a threat, the tree's best move is checked again (:class:`BestMoveCheck`) once this
#: share of the tree's time has passed: early enough to leave the check time, late
#: enough that the tree's choice has settled.
RECHECK_AFTER = 0.5
#: Seconds of the first pass of that check (each further pass has SURVIVOR_FACTOR times more).
BEST_CHECK_FIRST_S = 0.05
#: Seconds that must be left after the side to move's own VCF and VCT for the rest of a
#: plan with the null-move probe (the probe and the checks) to run; with less, the
#: opponent's threats are left to the tree, whose nodes run their own VCT where the probe
#: runs (the C solver's budgets).  Against Rapfi the tree alone scored better in turns of
#: 100 ms, and about the same in turns of 200 and 300 ms (docs/RESULTS.md).
CHECKS_MIN_S = 0.15
#: The share of the time left (threatened or not) when the threat search runs on its own
#: thread beside the tree (``MnkOptions.root.thread``): it no longer takes time from
#: the tree, and the rest of the turn lets the tree use the moves it drops.
THREAD_SHARE = 0.9


@dataclass
class RootPlan:
    """What the root threat search decided.

    ``move`` is a move to play at once (a proven win, ``reason`` ``"vcf"`` or
    ``"vct"``, ``line`` the winning line); otherwise ``losing`` lists the root
    moves to drop (those proven to lose, and under a threat those left unchecked,
    or left open once another move is proven safe, except under renju), ``checked``
    how many were examined, ``threat`` the opponent's win the null-move probe found
    (if any), ``open`` the moves whose check ran out of budget while that threat
    stands and are not dropped.
    """

    move: int | None = None
    reason: str = ""
    line: list[int] = field(default_factory=list)
    losing: list[int] = field(default_factory=list)
    checked: int = 0
    threat: list[int] = field(default_factory=list)
    open: list[int] = field(default_factory=list)


def plan_root(
    board: Board,
    moves: list[int],
    deadline: float | None,
    share: float,
    threes: int = 2,
    reply_threes: int = 2,
    reply_nodes: int = REPLY_VCT_NODES,
    threat_threes: int = 0,
    threat_nodes: int = 200_000,
    threat_share: float = THREAT_SHARE,
    stop: threading.Event | None = None,
    on_losing: Callable[[list[int]], None] | None = None,
) -> RootPlan:
    """Run the root threat search on ``board`` (side to move to play one of ``moves``).

    ``deadline`` is the search's monotonic deadline (``None``: node budgets
    only); ``share`` is the fraction of the time left that this may use: the
    own-win searches get the first third of it, the move checks the rest.
    ``moves`` should be best first, since the checks stop at the time limit.
    ``threat_threes`` > 0 runs the null-move probe (step 2 of the module doc)
    with ``threat_nodes`` solver nodes in the second third of the share; when
    it finds a threat, the checks may run until ``threat_share`` of the time
    left (if more than ``share``), and the moves whose check ran out of budget
    are checked again with growing budgets while that time lasts.
    ``stop``, once set, ends it early (between solver calls; a plan cut short
    drops nothing).  ``on_losing``, if given, is told the moves proven to lose as
    the checks prove them, once some other move has been found safe or left open
    (so that a tree searching beside the plan can drop them at once, and never
    every move); the plan's ``losing`` still lists them all.
    ``threes`` bounds the own VCT; ``reply_threes`` and ``reply_nodes`` the
    opponent's VCT looked for after each move.  With a deadline the own VCT
    is bounded by time alone; without one by :data:`OWN_VCT_NODES`.
    With a deadline and ``threat_threes`` > 0, the probe and the checks run only when
    :data:`CHECKS_MIN_S` is left once the own VCF and VCT are done.  The board is used
    in place and restored.
    """
    plan = RootPlan()
    if board.is_over:
        return plan
    me = int(board.to_move)
    own_deadline = check_deadline = None
    if deadline is not None:
        left = max(0.0, deadline - time.monotonic())
        own_deadline = time.monotonic() + left * share / 3
        check_deadline = time.monotonic() + left * share
    line = find_vcf(board, me, deadline=own_deadline, max_nodes=OWN_VCF_NODES)
    if line:
        plan.move, plan.reason, plan.line = line[0], "vcf", line
        return plan
    own_nodes = OWN_VCT_NODES if deadline is None else TIMED_VCT_NODES
    line = find_vct(board, me, deadline=own_deadline, max_nodes=own_nodes, max_threes=threes)
    if line:
        plan.move, plan.reason, plan.line = line[0], "vct", line
        return plan
    if len(moves) < 2 or _stopped(stop):
        return plan
    if threat_threes > 0 and deadline is not None and deadline - time.monotonic() < CHECKS_MIN_S:
        return plan
    checks = dict(max_nodes=reply_nodes, max_threes=reply_threes)
    threatened = False
    if threat_threes > 0:
        probe_deadline = None
        if deadline is not None:
            probe_deadline = time.monotonic() + max(0.0, deadline - time.monotonic()) * share / 3
        begun = time.monotonic()
        threat, finished = probe_vct(board, 3 - me, deadline=probe_deadline, max_nodes=threat_nodes,
                                     max_threes=threat_threes)
        plan.threat = threat or []
        if threat is None and finished:
            return plan  # nothing to defend against, whatever we play
        if _stopped(stop):
            return plan
        if threat is not None:
            threatened = True
            took = time.monotonic() - begun
            checks = dict(max_nodes=threat_nodes, max_threes=threat_threes, best_first=True)
            if deadline is not None:
                checks["move_seconds"] = max(THREAT_CHECK_MIN_S, THREAT_CHECK_FACTOR * took)
                left = max(0.0, deadline - time.monotonic())
                check_deadline = max(check_deadline, time.monotonic() + left * threat_share)
            else:
                checks["max_nodes"] = max(reply_nodes, threat_nodes // 4)
    if on_losing is not None:
        checks["on_verdict"] = _LosingNews(on_losing)
    verdicts = classify_moves(board, moves, deadline=check_deadline, stop=stop, **checks)
    if threatened and deadline is not None:
        _recheck_open(board, verdicts, check_deadline, checks, stop)
    if _stopped(stop):
        return plan  # the moves not reached are unchecked for want of time, not ignored
    plan.checked = sum(v in (SAFE, OPEN, LOSING) for v in verdicts.values())
    losing = [m for m, v in verdicts.items() if v == LOSING]
    kept = any(v in (SAFE, OPEN) for v in verdicts.values())
    if threatened and kept:
        # Under a threat, a move nobody checked most likely ignores it; and once a move is
        # proven to leave the opponent no VCT, a move whose check ran out of budget is a risk
        # not worth taking (the opponent's win after it may just be long).  Under renju
        # dropping them measured weaker, so there they stay open.
        drop_open = board.config.rule is not Rule.RENJU and any(v == SAFE for v in verdicts.values())
        losing += [m for m, v in verdicts.items() if v == UNCHECKED or (drop_open and v == OPEN)]
    if kept or any(v == UNCHECKED for v in verdicts.values()):
        # Keep every move when all lose: the tree then looks for the longest resistance.
        plan.losing = losing
    if threatened:
        plan.open = [m for m, v in verdicts.items() if v == OPEN and m not in plan.losing]
    return plan


class BestMoveCheck:
    """Checks the tree's best root move for the opponent's VCT before it is played.

    A search's ``between`` callback (:meth:`engine.search.mcts.MCTS.search`): from
    ``begin`` (monotonic) on, while the move the tree would play (``tree.root_children``,
    :func:`engine.search.choice.choose`) is one of ``moves`` (the plan's open ones), it is
    checked as :func:`classify_moves` does under a threat, with ``threes`` threes, in
    passes of growing length until ``deadline``; a move proven to lose is dropped from the root
    (``tree.drop_root_moves``, which keeps the last move) and the next best checked.
    Each move is checked once, and none once ``stop`` is set.  ``board`` is used in place
    and restored.
    """

    def __init__(self, board: Board, tree, moves: Sequence[int], begin: float, deadline: float,
                 threes: int, stop: threading.Event | None = None) -> None:
        self.board = board
        self.tree = tree
        self.pending = set(moves)
        self.begin = begin
        self.deadline = deadline
        self.threes = threes
        self.stop = stop
        #: The moves checked, each with its verdict (open: no pass settled it), in order.
        self.verdicts: dict[int, str] = {}

    def __call__(self, last: bool) -> bool:
        """Check the best move if it is due; never ends the search (returns False)."""
        while self.pending and not last and not _stopped(self.stop) and time.monotonic() >= self.begin:
            children = self.tree.root_children()
            best = choose(children)
            if best is None or children[best].move not in self.pending:
                break
            move = children[best].move
            self.pending.discard(move)
            # Passes of growing length (as the plan's rechecks), so that a stop is seen
            # between them: a solver run cannot be stopped but by its own time limit.
            verdicts = {move: OPEN}
            checks = dict(max_nodes=2**62, max_threes=self.threes, best_first=True,
                          move_seconds=BEST_CHECK_FIRST_S / SURVIVOR_FACTOR)
            _recheck_open(self.board, verdicts, self.deadline, checks, self.stop)
            self.verdicts[move] = verdicts[move]
            if verdicts[move] != LOSING or not self.tree.drop_root_moves([move]):
                break
        return False


def _stopped(stop: threading.Event | None) -> bool:
    return stop is not None and stop.is_set()


class _LosingNews:
    """A :func:`classify_moves` ``on_verdict`` that passes the moves proven to lose on to
    ``tell`` while some other move stands (found safe, or left open and not proven lost
    since), holding them back until one does."""

    def __init__(self, tell: Callable[[list[int]], None]) -> None:
        self.tell = tell
        self.held: list[int] = []
        self.standing: set[int] = set()

    def __call__(self, move: int, verdict: str) -> None:
        if verdict == LOSING:
            self.standing.discard(move)  # an open move a later pass proved lost
            self.held.append(move)
        elif verdict in (SAFE, OPEN):
            self.standing.add(move)
        if self.standing and self.held:
            news, self.held = self.held, []
            self.tell(news)


def _recheck_open(board: Board, verdicts: dict[int, str], deadline: float, checks: dict,
                  stop: threading.Event | None = None) -> None:
    """Check the moves left open (budget spent) again with growing budgets until ``deadline``.

    Each pass gives every open move :data:`SURVIVOR_FACTOR` times the time and
    nodes of the pass before, best move first; a move a pass does not reach
    stays open.  ``verdicts`` is updated in place.
    """
    checks = dict(checks)
    while time.monotonic() < deadline and not _stopped(stop):
        still_open = [m for m, v in verdicts.items() if v == OPEN]
        if not still_open:
            return
        checks["move_seconds"] *= SURVIVOR_FACTOR
        checks["max_nodes"] *= SURVIVOR_FACTOR
        for m, verdict in classify_moves(board, still_open, deadline=deadline, stop=stop, **checks).items():
            if verdict != UNCHECKED:
                verdicts[m] = verdict


#: :func:`classify_moves` verdicts.
SAFE, OPEN, LOSING, UNCHECKED = "safe", "open", "losing", "unchecked"


def classify_moves(
    board: Board,
    moves: Sequence[int],
    deadline: float | None = None,
    max_nodes: int = 2000,
    max_threes: int = 2,
    move_seconds: float | None = None,
    best_first: bool = False,
    stop: threading.Event | None = None,
    on_verdict: Callable[[int, str], None] | None = None,
) -> dict[int, str]:
    """Whether the opponent has a forced win after each of ``moves`` of the side to move.

    Maps each move, in the order of ``moves``, to :data:`LOSING` (the opponent
    then completes a line it cannot be stopped from, or has a VCT, see
    :func:`find_vct`, of up to ``max_threes`` threes: a proof), :data:`SAFE`
    (the solver finished and found no such win, or the move wins at once),
    :data:`OPEN` (its budget ran out first: ``max_nodes`` solver nodes, and
    ``move_seconds`` of time if given) or :data:`UNCHECKED` (not reached
    before ``deadline``, monotonic).  ``best_first`` looks for the opponent's VCT
    by proof numbers (as :func:`find_vct`) instead of depth first.  Occupied,
    off-board and repeated entries are dropped.
    Once ``stop`` is set, the moves not checked yet are :data:`UNCHECKED`.
    ``on_verdict(move, verdict)``, if given, hears each checked move's verdict as it is
    reached (not the :data:`UNCHECKED` ones).
    """
    verdicts: dict[int, str] = {}
    if board.is_over:
        return verdicts
    cfg = board.config
    s = int(board.to_move)
    o = 3 - s
    st = LineState(cfg, board.cells)
    todo = [int(m) for m in moves if 0 <= int(m) < cfg.area and board.cells[cfg.padded(int(m))] == EMPTY]
    for m in todo:
        if m in verdicts:
            continue
        if (deadline is not None and time.monotonic() >= deadline) or (stop is not None and stop.is_set()):
            verdicts[m] = UNCHECKED
            continue
        c = cfg.padded(m)
        if st.wins_at(c, s):
            verdict = SAFE  # it wins at once
        else:
            verdict = _check(st, c, s, o, deadline, max_nodes, max_threes, move_seconds, best_first)
        verdicts[m] = verdict
        if on_verdict is not None:
            on_verdict(m, verdict)
    return verdicts


def _check(st: LineState, c: int, s: int, o: int, deadline: float | None, max_nodes: int, max_threes: int,
           move_seconds: float | None, best_first: bool) -> str:
    """:func:`classify_moves`' verdict on side ``s`` playing the padded cell ``c`` of ``st``
    (which it does not win with at once); ``st`` is restored."""
    st.place(c, s)
    try:
        if st.completing(o):
            return LOSING  # the opponent completes a line now
        limit = deadline
        if move_seconds is not None:
            mine = time.monotonic() + move_seconds
            limit = mine if limit is None else min(limit, mine)
        try:
            search = BEST_FIRST if best_first else DEPTH_FIRST
            won = _solve(st, o, max_nodes, limit, threes=max(0, max_threes), search=search)
        except _Abort:
            return OPEN
        return SAFE if won is None else LOSING
    finally:
        st.take(c)


def losing_moves(
    board: Board,
    moves: Sequence[int],
    deadline: float | None = None,
    max_nodes: int = 2000,
    max_threes: int = 2,
    move_seconds: float | None = None,
    best_first: bool = False,
) -> tuple[list[int], list[int], list[int]]:
    """Sort ``moves`` of the side to move by whether the opponent then has a forced win.

    Returns ``(safe, losing, unchecked)``, each in the order of ``moves``, from
    :func:`classify_moves` (same arguments): a budget running out counts as
    safe here, so the split errs towards keeping moves.
    """
    safe: list[int] = []
    losing: list[int] = []
    unchecked: list[int] = []
    verdicts = classify_moves(board, moves, deadline, max_nodes, max_threes, move_seconds, best_first)
    for m, verdict in verdicts.items():
        (losing if verdict == LOSING else unchecked if verdict == UNCHECKED else safe).append(m)
    return safe, losing, unchecked
