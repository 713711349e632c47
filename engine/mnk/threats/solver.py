"""The threat-space solver: victory by continuous fours (VCF) and by threats (VCT).

Python for every rule and win length, and the same search in C (``_solver.h`` and, for the
best-first VCT, ``_pns.h``, part of the optional extension) for freestyle with K >= 4 and for
renju: the same candidate order, node counting and transposition sets, so for a given node
budget both return exactly the same line
(``tests/engine/test_threatcore.py``).  :func:`_solve` is the one entry point that picks between
them; ``MNK_PURE_PYTHON=1`` keeps everything in Python.  Vocabulary: :mod:`engine.mnk.threats.kinds`.

Public functions take a :class:`~engine.mnk.board.rules.Board` and use its cells in place,
restoring them exactly (also when an exception escapes), so a board must not be shared
with another thread while one of them runs.
"""

from __future__ import annotations

import functools
import os
import time
from typing import Callable, Sequence

from ..board.rules import EMPTY, Board, GameConfig, Rule
from ..knowledge.patterns import LineState, geometry

#: Default budget of solver nodes for :func:`find_vcf`.
DEFAULT_VCF_NODES = 20000
#: Deepest attack considered (attacker moves), keeping recursion well inside Python's limit.
MAX_VCF_DEPTH = 120

try:  # the same solver in C (engine/mnk/_threatcore.c), built at install when a compiler is at hand
    from .. import _threatcore
except ImportError:  # pragma: no cover - depends on the build
    _threatcore = None

#: Run freestyle (K >= 4) and renju solves in the C solver when it was built.  It returns exactly what
#: the Python solver returns for the same budget; ``MNK_PURE_PYTHON=1`` turns it off, to
#: measure the difference or to rule it out.
USE_NATIVE = _threatcore is not None and not os.environ.get("MNK_PURE_PYTHON")


class _Abort(Exception):
    """Raised inside the solver when its node budget or deadline is exhausted."""


class _Budget:
    """Node and time budget of one solver run."""

    __slots__ = ("nodes", "max_nodes", "deadline", "failed", "failed_vct", "line", "line_key")

    def __init__(self, max_nodes: int, deadline: float | None) -> None:
        self.nodes = 0
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.failed: set[int] = set()  # position hashes without a VCF
        self.failed_vct: set[tuple[int, int]] = set()  # (key, threes allowed) without a VCT
        self.line: list[int] = []  # the attacker's stones of the line being searched
        self.line_key = 0  # their cells' keys (of the defender's colour), see vct_key

    def tick(self) -> None:
        """Count one solver node; raise :class:`_Abort` once the budget is spent."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _Abort
        if self.deadline is not None and (self.nodes & 31) == 1 and time.monotonic() > self.deadline:
            raise _Abort

    def vct_key(self, st: LineState) -> int:
        """The VCT failure set's key of the current position: its hash with the line's stones
        folded in, since which threes are searched depends on them (see :func:`_vct`)."""
        k = self.line_key
        return st.hash ^ (((k << 1) | (k >> 63)) & _MASK64)


_MASK64 = (1 << 64) - 1


def _wins_against_every_reply(
    st: LineState, a: int, d: int, m: int, replies: Sequence[int], search: Callable[[], list[int] | None],
    budget: _Budget,
) -> list[int] | None:
    """The AND step of a threat search: ``a`` plays ``m``; the line holds only if ``search``
    (run after each of the defender ``d``'s ``replies``) still wins after every one of them.

    Returns ``[m, first reply] + its continuation``, or ``None``; the board and the
    budget's line are restored.
    """
    st.place(m, a)
    key = st.geom.zobrist[m][d - 1]
    budget.line.append(m)
    budget.line_key ^= key
    try:
        line: list[int] | None = None
        for r in replies:
            st.place(r, d)
            try:
                sub = search()
            finally:
                st.take(r)
            if sub is None:
                return None
            if line is None:
                line = [m, r] + sub
        return line
    finally:
        budget.line_key ^= key
        budget.line.pop()
        st.take(m)


def _vcf(st: LineState, a: int, budget: _Budget, depth: int) -> list[int] | None:
    """VCF for ``a`` (to move) from the current state: a padded move line, or ``None``.

    The line alternates attacker moves and the defender's (first) forced reply
    and ends with the move that wins or makes a double threat.
    """
    budget.tick()
    d = 3 - a
    wa = st.completing(a)
    if wa:
        return [wa[0]]
    if depth >= MAX_VCF_DEPTH:
        return None
    key = st.hash
    if key in budget.failed:
        return None
    wd = st.completing(d)
    if wd and not st.killers(d, wd):
        budget.failed.add(key)
        return None  # the defender has an unstoppable completion; fours cannot outrun it
    stoppers = set(st.killers(d, wd)) if wd else None
    deeper: list[tuple[int, list[int]]] = []
    # First pass: a four that also stops the defender and leaves an unstoppable threat wins at once.
    for m, _, replies in st.four_options(a):
        if stoppers is not None and m not in stoppers:
            continue  # the defender would just complete its own line
        if not replies:
            return [m]
        deeper.append((m, replies))
    for m, replies in deeper:
        line = _wins_against_every_reply(st, a, d, m, replies, lambda: _vcf(st, a, budget, depth + 1), budget)
        if line is not None:
            return line
    budget.failed.add(key)
    return None


def _vct(st: LineState, a: int, budget: _Budget, depth: int, threes_left: int) -> list[int] | None:
    """Victory by continuous threats for ``a`` (to move), at most ``threes_left`` threes in a line.

    A four forces its completing cell (or, under caro, the cells that spoil
    it); a three (see :meth:`LineState.threes`) lets the defender choose among
    every move after which the attacker has neither a completion nor a
    double-threat move, plus every defender four (a counter-attack the
    attacker must then stop with a threat of its own).  Any other defence
    loses to the double threat, so a line found is a proof.

    After the line's first move, a three must lie in a window holding one of
    the attacker's stones of the line (``budget.line``): a three elsewhere
    could have been played first, and searching every such order is what
    made deep VCTs too dear.  Fours stay free.  It proves about twice as many
    lost games' wins within the root probe's budget (docs/RESULTS.md), at
    the price of the lines whose later threes do not touch the line's stones,
    which the best-first search (:func:`_pns`) does not restrict.
    """
    budget.tick()
    d = 3 - a
    wa = st.completing(a)
    if wa:
        return [wa[0]]
    if depth >= MAX_VCF_DEPTH:
        return None
    line = _vcf(st, a, budget, depth)
    if line is not None or threes_left <= 0:
        return line
    key = (budget.vct_key(st), threes_left)
    if key in budget.failed_vct:
        return None
    wd = st.completing(d)
    if wd and not st.killers(d, wd):
        budget.failed_vct.add(key)
        return None
    stoppers = set(st.killers(d, wd)) if wd else None
    win, branches = _branches(st, a, stoppers, budget.line, free_block=False)
    if win is not None:
        return [win]
    for m, replies, cost in branches:
        found = _wins_against_every_reply(
            st, a, d, m, replies, lambda: _vct(st, a, budget, depth + 1, threes_left - cost), budget
        )
        if found is not None:
            return found
    budget.failed_vct.add(key)
    return None


#: Proof numbers of a settled node (``_solve``'s best-first search; ``_pns.h``'s PN_INF).
_PN_INF = 0x3FFFFFFF
#: Most nodes the best-first tree may hold (``_pns.h``'s PN_MAX_NODES): the run stops there
#: as when its budget is spent.
_PN_MAX_NODES = 1 << 21
#: ``_PNTree.win`` of an attacker node a VCF proved (its line is found again at the end).
_PN_BY_VCF = -2


class _PNTree:
    """The AND/OR tree of one proof-number search, as parallel lists indexed by node.

    Node 0 is the root (the attacker to move).  An attacker node's children are defender
    nodes, one for each four or three, holding the defender's ``replies``; a defender
    node's children, attacker nodes one a reply, are made when it is first selected.
    Children of a node are consecutive (``child`` is the first of ``nchild``).
    """

    __slots__ = ("move", "parent", "child", "nchild", "pn", "dn", "win", "replies", "threes", "is_and")

    def __init__(self, threes: int) -> None:
        self.move, self.parent, self.child, self.nchild = [-1], [-1], [-1], [0]
        self.pn, self.dn, self.win = [1], [1], [-1]
        self.replies: list[list[int]] = [[]]
        self.threes, self.is_and = [threes], [False]

    def add(self, move: int, parent: int, threes: int, is_and: bool, replies: list[int]) -> None:
        """Append one unexpanded node (``pn`` and ``dn`` 1: the caller sets a defender node's)."""
        if len(self.move) >= _PN_MAX_NODES:
            raise _Abort
        self.move.append(move)
        self.parent.append(parent)
        self.child.append(-1)
        self.nchild.append(0)
        self.pn.append(1)
        self.dn.append(1)
        self.win.append(-1)
        self.replies.append(replies)
        self.threes.append(threes)
        self.is_and.append(is_and)


def _pn_expand_attacker(st: LineState, a: int, budget: _Budget, t: _PNTree, disproved: set, x: int,
                        depth: int) -> None:
    """Settle the attacker node ``x`` (its path's stones on the board) or give it its
    defender children: :func:`_vct`'s moves, searched by :func:`_pns`."""
    budget.tick()
    d = 3 - a
    threes = t.threes[x]

    def settle(win: int | None) -> None:
        if win is None:
            t.pn[x], t.dn[x] = _PN_INF, 0
        else:
            t.win[x], t.pn[x], t.dn[x] = win, 0, _PN_INF

    wa = st.completing(a)
    if wa:
        return settle(wa[0])
    if depth >= MAX_VCF_DEPTH or (st.hash, threes) in disproved:
        return settle(None)
    if _vcf(st, a, budget, depth) is not None:
        return settle(_PN_BY_VCF)
    if threes <= 0:
        return settle(None)
    wd = st.completing(d)
    if wd and not st.killers(d, wd):
        return settle(None)
    stoppers = set(st.killers(d, wd)) if wd else None
    # A three that blocks the defender's four is forced: it costs no three, as a quiet block.
    win, branches = _branches(st, a, stoppers, (), free_block=True)
    if win is not None:
        return settle(win)
    if not branches:
        return settle(None)
    t.child[x], t.nchild[x] = len(t.move), len(branches)
    for m, replies, cost in branches:
        t.add(m, x, threes - cost, True, replies)
        t.pn[-1] = len(replies)  # every reply must be refuted
    t.pn[x] = min(len(replies) for _, replies, _ in branches)
    t.dn[x] = min(len(branches), _PN_INF)


def _pn_update(t: _PNTree, x: int) -> None:
    """Recompute ``x``'s proof and disproof numbers from its children."""
    kids = range(t.child[x], t.child[x] + t.nchild[x])
    if t.is_and[x]:
        t.dn[x] = min(t.dn[c] for c in kids)
        t.pn[x] = min(sum(t.pn[c] for c in kids), _PN_INF)
    else:
        t.pn[x] = min(t.pn[c] for c in kids)
        t.dn[x] = min(sum(t.dn[c] for c in kids), _PN_INF)


def _pn_line(st: LineState, a: int, budget: _Budget, t: _PNTree, x: int, depth: int) -> list[int]:
    """The winning line below the proved attacker node ``x``: the first proved branch and the
    first reply of each defender node, as :func:`_vct` gives it."""
    if t.win[x] >= 0:
        return [t.win[x]]
    if t.win[x] == _PN_BY_VCF:
        limits = budget.max_nodes, budget.deadline
        budget.max_nodes, budget.deadline = float("inf"), None
        try:
            return _vcf(st, a, budget, depth)
        finally:
            budget.max_nodes, budget.deadline = limits
    c = next(c for c in range(t.child[x], t.child[x] + t.nchild[x]) if t.pn[c] == 0)
    m, r = t.move[c], t.move[t.child[c]]
    st.place(m, a)
    st.place(r, 3 - a)
    try:
        return [m, r] + _pn_line(st, a, budget, t, t.child[c], depth + 2)
    finally:
        st.take(r)
        st.take(m)


def _pns(st: LineState, a: int, budget: _Budget, threes: int) -> list[int] | None:
    """VCT for ``a`` (to move) of up to ``threes`` threes, by proof numbers: a padded line
    as :func:`_vct` gives it, or ``None`` when every line is refuted.

    The same moves as :func:`_vct` with every three allowed, searched best first: each step
    walks from the root to the most-proving leaf -- at attacker nodes the child with the
    smallest proof number, at defender nodes the one with the smallest disproof number --
    expands it and backs the numbers up (Allis 1994).  A depth-first search deepened by
    threes repeats its shallow lines and spends its budget in the first wide branch; the
    numbers go where a proof is cheapest, and a finished search also proves that there is
    no VCT (docs/RESULTS.md).  Disproved attacker positions are remembered by hash and
    threes left.  ``_pns.h`` is the same search in C.
    """
    t = _PNTree(threes)
    disproved: set[tuple[int, int]] = set()
    while t.pn[0] and t.dn[0]:
        x, path = 0, []
        try:
            while t.child[x] >= 0 or t.is_and[x]:
                if t.child[x] < 0:  # a defender node first selected: its replies' nodes
                    t.child[x], t.nchild[x] = len(t.move), len(t.replies[x])
                    for r in t.replies[x]:
                        t.add(r, x, t.threes[x], False, [])
                    t.pn[x], t.dn[x] = len(t.replies[x]), 1
                kids = range(t.child[x], t.child[x] + t.nchild[x])
                best = min(kids, key=t.dn.__getitem__) if t.is_and[x] else min(kids, key=t.pn.__getitem__)
                st.place(t.move[best], 3 - a if t.is_and[x] else a)
                path.append(best)
                x = best
            _pn_expand_attacker(st, a, budget, t, disproved, x, len(path))
        except BaseException:  # the budget is spent: leave the board as it was
            for c in reversed(path):
                st.take(t.move[c])
            raise
        for c in reversed(path):  # back up the numbers, taking the stones back
            if not t.is_and[c] and not t.dn[c]:
                disproved.add((st.hash, t.threes[c]))
            st.take(t.move[c])
            _pn_update(t, t.parent[c])
    return _pn_line(st, a, budget, t, 0, 0) if not t.pn[0] else None


def _branches(st: LineState, a: int, stoppers: set[int] | None, related: Sequence[int],
              free_block: bool) -> tuple[int | None, list[tuple[int, list[int], int]]]:
    """The attacker ``a``'s moves at a VCT node (:func:`_vct`, :func:`_pns`): ``(move, [])``
    when a move wins at once (a four no reply stops, a threat with no defence), else
    ``(None, branches)``, each branch (move, the defender's replies, threes it costs).

    Fours come first (they cost no three), then threes (of :meth:`LineState.threes` with the
    line's stones ``related``), then quiet blocks of the defender's four that keep a double
    threat; with ``stoppers`` (the cells that stop the defender's four) every move must be
    one of them.  A three costs one three, or none when it is such a forced block and
    ``free_block`` is set.
    """
    branches: list[tuple[int, list[int], int]] = []
    for m, _, replies in st.four_options(a):
        if stoppers is None or m in stoppers:
            if not replies:
                return m, []
            branches.append((m, replies, 0))
    for m, dm in st.threes(a, related):
        if stoppers is not None and m not in stoppers:
            continue
        replies = _threat_replies(st, a, m, dm)
        if not replies:
            return m, []
        branches.append((m, replies, int(not (free_block and stoppers))))
    if stoppers:
        # The defender answered a three with a four of its own: a quiet block keeps the
        # attack going when the three still stands (the defender must then answer it, or
        # counter again), which is how most real VCTs end.
        tried = {m for m, _, _ in branches}
        for m in sorted(stoppers - tried):
            replies = _threat_replies(st, a, m, None)
            if replies is None:
                continue
            if not replies:
                return m, []
            branches.append((m, replies, 0))
    return None, branches


def _threat_replies(st: LineState, a: int, m: int, threats: list[int] | None) -> list[int] | None:
    """The defender's real answers once ``a`` has played ``m`` (the board is restored).

    ``threats`` are ``a``'s double-threat moves after ``m`` (``None``: find them;
    then ``None`` is returned when there are none).  The answers are the moves
    after which ``a`` has no completion and no double-threat move left, plus the
    defender's fours; an empty list means none holds: ``m`` wins.
    """
    d = 3 - a
    st.place(m, a)
    try:
        if threats is None:
            threats = st.double_moves(a)
            if not threats:
                return None
        return sorted(_double_defences(st, d, threats) | set(st.fours(d)))
    finally:
        st.take(m)


def _side(player: int) -> int:
    """``player`` as the int 1 or 2; ``ValueError`` for anything else."""
    if isinstance(player, bool) or player not in (1, 2):
        raise ValueError(f"player must be 1 or 2, got {player!r}")
    return int(player)


def _compact(board: Board, padded_cells: Sequence[int]) -> list[int]:
    unpad = board.config.unpadded
    return [unpad(c) for c in padded_cells]


def fast_solver(config: GameConfig) -> bool:
    """Do this configuration's solver runs go to the C solver (freestyle with K >= 4, or renju;
    built and on)?"""
    if not USE_NATIVE:
        return False
    return config.rule is Rule.RENJU or (config.rule is Rule.FREESTYLE and config.win_length >= 4)


@functools.lru_cache(maxsize=32)
def _native_geometry(config: GameConfig):
    """The C solver's copy of the window tables and Zobrist keys of ``config`` (and, under
    renju, the padded steps its line walks take)."""
    geom = geometry(config)
    return _threatcore.Geometry(
        config.padded_size, config.win_length, geom.windows, geom.zobrist,
        renju=config.rule is Rule.RENJU, directions=config.directions,
    )


#: How a VCT run searches (:func:`_solve`; ``_solver.h``'s SEARCH_*): depth first with the
#: threes given, depth first with 1, 2, ... of them on one budget, or by proof numbers.
DEPTH_FIRST, DEEPENING, BEST_FIRST = 0, 1, 2


def _solve(
    st: LineState, a: int, max_nodes: int, deadline: float | None, threes: int = -1, search: int = DEPTH_FIRST
) -> list[int] | None:
    """One solver run for ``a`` (to move) on a fresh budget: the padded winning line, or ``None``.

    ``threes < 0``: a VCF (:func:`_vcf`); otherwise a VCT of up to ``threes`` threes, searched
    as ``search`` says: :data:`DEPTH_FIRST` (:func:`_vct`), :data:`DEEPENING` (:func:`_vct` with
    1, 2, ... ``threes`` threes, on one budget: the tree's cheap runs) or :data:`BEST_FIRST`
    (:func:`_pns`, every three: the root's searches, see :func:`find_vct`).  Raises
    :class:`_Abort` when the budget runs out.  Freestyle with K >= 4 and renju run in the C
    solver when it is available (the same line for the same budget, 20-40 times faster);
    ``st`` is left as it was either way.
    """
    if fast_solver(st.config):
        left = None if deadline is None else deadline - time.monotonic()
        nodes = min(max(int(max_nodes), 0), 2**62)
        status, line = _threatcore.solve(_native_geometry(st.config), st.cells, a, nodes, left, threes, search)
        if status < 0:
            raise _Abort
        return None if line is None else list(line)
    budget = _Budget(max_nodes, deadline)
    if threes < 0:
        return _vcf(st, a, budget, 0)
    if search == BEST_FIRST:
        return _pns(st, a, budget, threes)
    if search == DEPTH_FIRST:
        return _vct(st, a, budget, 0, threes)
    for t in range(1, threes + 1) if threes > 0 else (0,):
        line = _vct(st, a, budget, 0, t)
        if line is not None:
            return line
    return None


def _run_vcf(st: LineState, player: int, deadline: float | None, max_nodes: int) -> list[int] | None:
    try:
        return _solve(st, player, max_nodes, deadline)
    except _Abort:
        return None


def find_vcf(
    board: Board, player: int, deadline: float | None = None, max_nodes: int = DEFAULT_VCF_NODES
) -> list[int] | None:
    """Victory by continuous fours for ``player``, who is assumed to move next.

    Returns the line as compact moves: attacker move, the defender's forced
    reply, attacker move, ..., ending with the attacker move that completes a
    line or makes a double threat.  The first element is the move to play.
    Returns ``None`` when there is no VCF, when the budget (``max_nodes``
    solver nodes, or the monotonic ``deadline``) ran out first, or when the
    game is over.  Defender replies that make their own fours are handled: the
    attacker must then stop that threat with a four, or the line is refused.
    """
    p = _side(player)
    if board.winner is not None or board.is_full:
        return None
    st = LineState(board.config, board.cells)
    line = _run_vcf(st, p, deadline, max_nodes)
    return None if line is None else _compact(board, line)


def find_vct(
    board: Board,
    player: int,
    deadline: float | None = None,
    max_nodes: int = DEFAULT_VCF_NODES,
    max_threes: int = 2,
) -> list[int] | None:
    """Victory by continuous threats (fours and threes) for ``player``, who moves next.

    Like :func:`find_vcf` (same line format, ``None`` for no win found or
    budget exhausted) but the attacker may also play up to ``max_threes``
    threes along a line; each three lets the defender pick any real defence,
    all of which are refuted.  Much more expensive than a VCF: give a deadline.

    The search is best first (:func:`_pns`, proof numbers): a depth-first
    search allowed many threes at once can spend its whole budget in one
    hopeless branch while a line with fewer threes elsewhere goes unseen, and
    one deepened a three at a time repeats its shallow lines.
    """
    return probe_vct(board, player, deadline, max_nodes, max_threes)[0]


def probe_vct(
    board: Board,
    player: int,
    deadline: float | None = None,
    max_nodes: int = DEFAULT_VCF_NODES,
    max_threes: int = 2,
) -> tuple[list[int] | None, bool]:
    """:func:`find_vct`, plus whether the search finished within its budget.

    ``(line, True)``: a win found; ``(None, True)``: none exists within
    ``max_threes`` threes (every line of fours and threes was refuted);
    ``(None, False)``: the budget ran out first, so nothing is known.
    ``player`` need not be the side to move: asked for the opponent, it is a
    null-move probe (what the opponent threatens if given the next move).
    """
    p = _side(player)
    if board.winner is not None or board.is_full:
        return None, True
    st = LineState(board.config, board.cells)
    try:
        line = _solve(st, p, max_nodes, deadline, threes=max(0, max_threes), search=BEST_FIRST)
    except _Abort:
        return None, False
    return (None if line is None else _compact(board, line)), True


def _double_defences(st: LineState, s: int, threats: list[int]) -> set[int]:
    """Moves of ``s`` after which the opponent has no double-threat move left."""
    o = 3 - s
    caro = st.config.rule is Rule.CARO
    cells = st.cells
    windows, wdir = st.geom.windows, st.geom.window_dir
    mine, theirs = st.cnt[o], st.cnt[s]
    cand: set[int] | None = None
    for t in threats:
        # After t the new completing cells lie in windows through t holding K-2 of o's stones;
        # only t or those windows' empty cells can be occupied to spoil it, and under caro
        # also the cells just beyond such a window (a longer run wins whatever its ends).
        spoil = {t}
        for w in st.geom.cell_windows[t]:
            if theirs[w] == 0 and mine[w] == st.k - 2:
                spoil.update(st._empty_of(w))
                if caro:
                    win, step = windows[w], wdir[w]
                    for c in (win[0] - step, win[-1] + step):
                        if cells[c] == EMPTY:
                            spoil.add(c)
        cand = spoil if cand is None else cand & spoil
        if not cand:
            return set()
    out = set()
    for m in st.allowed(s, sorted(cand or ())):  # black's forbidden points defend nothing
        st.place(m, s)
        try:
            if not st.completing(o) and not st.double_moves(o):
                out.add(m)
        finally:
            st.take(m)
    return out
