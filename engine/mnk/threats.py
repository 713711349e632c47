"""Threats and a threat-space solver for any K, board size and rule.

Vocabulary (for the side ``p``; K = win length):

- *completing cell*: an empty cell where ``p`` would complete a winning line
  now (checked with :func:`engine.mnk.rules.run_wins`, so exact/caro are exact).
- *four*: a move after which ``p`` has a completing cell (the K-analogue of a
  gomoku four; for K=3 it is a "two", for K=2 any move next to room).
- *double threat*: a move after which ``p`` has completing cells that no single
  opponent stone can all remove (two or more for freestyle/exact; under caro a
  stone beyond the end of a run can also spoil a completing cell, and this is
  taken into account).
- *three*: a move after which ``p`` has a double-threat move (the K-analogue of
  an open three: it threatens to win in three plies).
- *VCF*: victory by continuous fours: every attacking move is a four, every
  defence is forced, and it ends in a double threat or a completed line.

Public API (moves are compact indices ``y * width + x``):

- recognition: :func:`winning_moves`, :func:`four_moves`,
  :func:`double_threat_moves`, :func:`three_moves`;
- solvers: :func:`find_vcf`, :func:`find_vct`;
- decisions: :func:`tactical_move` (win / block / VCF / defend),
  :func:`defence_set`, :func:`candidate_moves` (pattern priors);
- :class:`ThreatKnowledge`: all of it behind the search's
  :class:`engine.mnk.knowledge.MoveKnowledge` hook.

Public functions take a :class:`~engine.mnk.rules.Board`.  They never copy it:
they set and clear cells of ``board.cells`` directly and always restore it
exactly (also when an exception escapes), so a board must not be shared with
another thread while one of them runs.  :class:`ThreatKnowledge` works on a
private copy of the cells it is given.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from typing import Callable, Sequence

from .options import FAST_SOLVER_BUDGETS, PRIOR_KINDS, PYTHON_SOLVER_BUDGETS
from .patterns import LineState, cell_scores, geometry
from .shapes import shape_scores
from .rules import EMPTY, Board, GameConfig, Rule

#: Default budget of solver nodes for :func:`find_vcf`.
DEFAULT_VCF_NODES = 20000
#: Deepest attack considered (attacker moves), keeping recursion well inside Python's limit.
MAX_VCF_DEPTH = 120

try:  # the same solver in C (engine/mnk/_threatcore.c), built at install when a compiler is at hand
    from . import _threatcore
except ImportError:  # pragma: no cover - depends on the build
    _threatcore = None

#: Run freestyle solves (K >= 4) in the C solver when it was built.  It returns exactly what
#: the Python solver returns for the same budget; ``MNK_PURE_PYTHON=1`` turns it off, to
#: measure the difference or to rule it out.
USE_NATIVE = _threatcore is not None and not os.environ.get("MNK_PURE_PYTHON")


class _Abort(Exception):
    """Raised inside the solver when its node budget or deadline is exhausted."""


class _Budget:
    """Node and time budget of one solver run."""

    __slots__ = ("nodes", "max_nodes", "deadline", "failed", "failed_vct")

    def __init__(self, max_nodes: int, deadline: float | None) -> None:
        self.nodes = 0
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.failed: set[int] = set()  # position hashes without a VCF
        self.failed_vct: set[tuple[int, int]] = set()  # (hash, threes allowed) without a VCT

    def tick(self) -> None:
        """Count one solver node; raise :class:`_Abort` once the budget is spent."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _Abort
        if self.deadline is not None and (self.nodes & 31) == 1 and time.monotonic() > self.deadline:
            raise _Abort


def _wins_against_every_reply(
    st: LineState, a: int, d: int, m: int, replies: Sequence[int], search: Callable[[], list[int] | None]
) -> list[int] | None:
    """The AND step of a threat search: ``a`` plays ``m``; the line holds only if ``search``
    (run after each of the defender ``d``'s ``replies``) still wins after every one of them.

    Returns ``[m, first reply] + its continuation``, or ``None``; the board is restored.
    """
    st.place(m, a)
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
        line = _wins_against_every_reply(st, a, d, m, replies, lambda: _vcf(st, a, budget, depth + 1))
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
    key = (st.hash, threes_left)
    if key in budget.failed_vct:
        return None
    wd = st.completing(d)
    if wd and not st.killers(d, wd):
        budget.failed_vct.add(key)
        return None
    # Branches: (attacker move, defender replies, threes used); fours first, they cost nothing.
    branches: list[tuple[int, list[int], int]] = []
    stoppers = set(st.killers(d, wd)) if wd else None
    for m, _, replies in st.four_options(a):
        if stoppers is None or m in stoppers:
            branches.append((m, replies, 0))
    for m, dm in st.threes(a):
        if stoppers is not None and m not in stoppers:
            continue
        replies = _threat_replies(st, a, m, dm)
        if not replies:
            return [m]
        branches.append((m, replies, 1))
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
                return [m]
            branches.append((m, replies, 0))
    for m, replies, cost in branches:
        found = _wins_against_every_reply(
            st, a, d, m, replies, lambda: _vct(st, a, budget, depth + 1, threes_left - cost)
        )
        if found is not None:
            return found
    budget.failed_vct.add(key)
    return None


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
    """Do this configuration's solver runs go to the C solver (freestyle, K >= 4, built, on)?"""
    return USE_NATIVE and config.rule is Rule.FREESTYLE and config.win_length >= 4


@functools.lru_cache(maxsize=32)
def _native_geometry(config: GameConfig):
    """The C solver's copy of the window tables and Zobrist keys of ``config``."""
    geom = geometry(config)
    return _threatcore.Geometry(config.padded_size, config.win_length, geom.windows, geom.zobrist)


def _solve(
    st: LineState, a: int, max_nodes: int, deadline: float | None, threes: int = -1, deepen: bool = False
) -> list[int] | None:
    """One solver run for ``a`` (to move) on a fresh budget: the padded winning line, or ``None``.

    ``threes < 0``: a VCF (:func:`_vcf`); otherwise a VCT (:func:`_vct`) with ``threes`` threes,
    or, with ``deepen``, with 1, 2, ... ``threes`` of them on one budget (see :func:`find_vct`).
    Raises :class:`_Abort` when the budget runs out.  Freestyle with K >= 4 runs in the C
    solver when it is available (the same line for the same budget, 20-40 times faster);
    ``st`` is left as it was either way.
    """
    if fast_solver(st.config):
        left = None if deadline is None else deadline - time.monotonic()
        nodes = min(max(int(max_nodes), 0), 2**62)
        status, line = _threatcore.solve(_native_geometry(st.config), st.cells, a, nodes, left, threes, deepen)
        if status < 0:
            raise _Abort
        return None if line is None else list(line)
    budget = _Budget(max_nodes, deadline)
    if threes < 0:
        return _vcf(st, a, budget, 0)
    if not deepen:
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


# Public API ------------------------------------------------------------------------


def _recognised(board: Board, player: int, cells_of: Callable[[LineState, int], Sequence[int]]) -> list[int]:
    """Compact moves, in index order, that ``cells_of(state, player)`` names (none once the game is won)."""
    p = _side(player)
    if board.winner is not None:
        return []
    return sorted(_compact(board, cells_of(LineState(board.config, board.cells), p)))


def winning_moves(board: Board, player: int) -> list[int]:
    """Moves where ``player`` completes a line now, in index order."""
    return _recognised(board, player, LineState.completing)


def four_moves(board: Board, player: int) -> list[int]:
    """Moves after which ``player`` has a completing cell (immediate wins excluded)."""
    return _recognised(board, player, LineState.fours)


def double_threat_moves(board: Board, player: int) -> list[int]:
    """Moves after which ``player`` has completing cells that one opponent stone cannot all stop."""
    return _recognised(board, player, LineState.double_moves)


def three_moves(board: Board, player: int) -> list[int]:
    """Moves (no win, no four) after which ``player`` has a double-threat move.

    The K-analogue of making an open three: unless answered it wins in three
    more plies of the mover.  Meant for a ``player`` that has no completion
    and no double-threat move yet (otherwise it is already threatening).
    Candidates are the empty cells of live windows holding ``K-3`` stones of
    ``player``; for K=3, where almost any move with room qualifies, only cells
    within distance 2 of a stone are reported; none for K=2.
    """
    return _recognised(board, player, lambda st, p: [c for c, _ in st.threes(p)])


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

    The search deepens one three at a time (1, 2, ... ``max_threes``, one
    budget for all): a depth-first search allowed many threes at once can
    spend its whole budget in one hopeless branch while a line with fewer
    threes elsewhere goes unseen (measured on positions from games against
    pela: a two-three win found in 0.3 s by deepening was missed in 3 s when
    three threes were allowed from the start).
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
        line = _solve(st, p, max_nodes, deadline, threes=max(0, max_threes), deepen=True)
    except _Abort:
        return None, False
    return (None if line is None else _compact(board, line)), True


def _near_lines(st: LineState, cell: int, reach: int) -> list[int]:
    """Empty cells on the four lines through ``cell`` within ``reach`` steps (and ``cell`` if empty)."""
    cells = st.cells
    out = [cell] if cells[cell] == EMPTY else []
    for d in st.config.directions:
        for sign in (d, -d):
            c = cell
            for _ in range(reach):
                c += sign
                v = cells[c]
                if v == 3:
                    break
                if v == EMPTY:
                    out.append(c)
    return out


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
    for m in sorted(cand or ()):
        st.place(m, s)
        try:
            if not st.completing(o) and not st.double_moves(o):
                out.add(m)
        finally:
            st.take(m)
    return out


def _refutes(st: LineState, m: int, s: int, deadline: float | None, max_nodes: int) -> bool:
    """Does ``s`` playing ``m`` leave the opponent without completion and without a VCF?

    A solver run cut short by the budget counts as a refutation: the move is
    kept, so defence sets err on the side of too many moves, never too few.
    """
    o = 3 - s
    st.place(m, s)
    try:
        if st.completing(o):
            return False
        try:
            return _solve(st, o, max_nodes, deadline) is None
        except _Abort:
            return True
    finally:
        st.take(m)


def _vcf_candidates(st: LineState, s: int, line: list[int]) -> set[int]:
    """Moves of ``s`` that may refute the opponent's VCF ``line`` (padded cells).

    The cells near the attacker's moves (on their lines), the forced replies,
    and the cells that would let a forced reply of ``s`` become a four of its
    own (a counter-threat in the middle of the attack).
    """
    cells = st.cells
    mine, theirs = st.cnt[s], st.cnt[3 - s]
    windows = st.geom.windows
    cand: set[int] = set()
    for i, c in enumerate(line):
        if i % 2 == 0:
            # The attacker's four lies in a live window through c: any empty cell of one spoils it.
            cand.update(_near_lines(st, c, 2))
            for w in st.geom.cell_windows[c]:
                if mine[w] == 0 and theirs[w] >= st.k - 3:
                    cand.update(x for x in windows[w] if cells[x] == EMPTY)
            continue
        cand.add(c)
        for w in st.geom.cell_windows[c]:
            if theirs[w] == 0 and mine[w] >= st.k - 3:
                cand.update(x for x in windows[w] if cells[x] == EMPTY)
    return cand


def _defence_cells(st: LineState, s: int, deadline: float | None, max_nodes: int) -> set[int] | None:
    """Padded defence set for ``s`` to move (see :func:`defence_set`)."""
    o = 3 - s
    if st.completing(s):
        return None
    wo = st.completing(o)
    if wo:
        ks = st.killers(o, wo)
        return set(ks) if ks else set(wo)
    counters = set(st.fours(s))
    threats = st.double_moves(o)
    if threats:
        base = _double_defences(st, s, threats)
        if not base:
            return counters | set(threats)
        # Prefer the defences that also leave no longer VCF, when any do.
        strict = {m for m in sorted(base) if _refutes(st, m, s, deadline, max_nodes // 4)}
        return (strict or base) | counters
    try:
        line = _solve(st, o, max_nodes, deadline)
    except _Abort:
        return None
    if line is None:
        return None
    out = {m for m in sorted(_vcf_candidates(st, s, line)) if _refutes(st, m, s, deadline, max_nodes // 4)}
    out |= counters
    return out or set(line[:1])


def defence_set(
    board: Board, deadline: float | None = None, max_nodes: int = DEFAULT_VCF_NODES
) -> set[int] | None:
    """The moves worth considering when the opponent of the side to move has a threat.

    - ``None``: no restriction: the side to move can complete a line, or the
      opponent has no completing cell, no double-threat move and no VCF found.
    - If the opponent has completing cells: the moves that stop all of them
      (the cells themselves when nothing stops them all: the game is lost).
    - If the opponent has double-threat moves: exactly the moves after which
      it has neither a completing cell nor a double-threat move, narrowed to
      those leaving it no VCF when any such exist; plus the side to move's own
      fours (counter-attacks gain a tempo).  If nothing holds, the threat
      cells and counter-fours are returned.
    - If the opponent has a longer VCF: the moves near its winning line that
      refute it (verified with the solver), plus own fours.

    Never returns an empty set.  Moves are compact indices.
    """
    if board.is_over:
        return None
    st = LineState(board.config, board.cells)
    cells = _defence_cells(st, int(board.to_move), deadline, max_nodes)
    if cells is None:
        return None
    return set(_compact(board, cells))


def tactical_move(
    board: Board,
    deadline: float | None = None,
    max_nodes: int = DEFAULT_VCF_NODES,
    vct: bool = False,
) -> tuple[int, str] | None:
    """A move dictated by tactics for the side to move, with its reason, or ``None``.

    Reasons, in order of priority: ``"win"`` (completes a line), ``"block"``
    (stops the opponent's only completion), ``"lost"`` (the opponent has
    unstoppable completions; one of them is blocked anyway), ``"vcf"`` (first
    move of a victory by continuous fours), ``"vct"`` (only with ``vct=True``:
    first move of a victory by continuous threats, see :func:`find_vct`),
    ``"defend"`` (the opponent threatens a double threat or a VCF; the
    best-scored move of :func:`defence_set`).  ``max_nodes`` bounds each
    solver run; ``deadline`` (monotonic) bounds them all.
    """
    if board.is_over:
        return None
    s = int(board.to_move)
    o = 3 - s
    st = LineState(board.config, board.cells)
    unpad = board.config.unpadded
    ws = st.completing(s)
    if ws:
        return unpad(ws[0]), "win"
    wo = st.completing(o)
    if wo:
        ks = st.killers(o, wo)
        if ks:
            return unpad(_best(board.config, board.cells, s, ks)), "block"
        return unpad(_best(board.config, board.cells, s, wo)), "lost"
    line = _run_vcf(st, s, deadline, max_nodes)
    if line is not None:
        return unpad(line[0]), "vcf"
    if vct:
        try:
            line = _solve(st, s, max_nodes, deadline, threes=2)
        except _Abort:
            line = None
        if line is not None:
            return unpad(line[0]), "vct"
    ds = _defence_cells(st, s, deadline, max_nodes)
    if ds:
        return unpad(_best(board.config, board.cells, s, sorted(ds))), "defend"
    return None


def _best(config: GameConfig, cells: list[int], player: int, choices: Sequence[int]) -> int:
    """The padded cell of ``choices`` with the highest pattern score (first on ties)."""
    if len(choices) == 1:
        return choices[0]
    scores = cell_scores(config, cells, player, choices)
    return max(choices, key=lambda c: scores.get(c, 0.0))


def candidate_moves(board: Board, limit: int | None = None) -> list[tuple[int, float]]:
    """Candidate moves for the side to move with priors summing to 1, best first.

    Candidates are the empty cells within distance 2 of a stone (the central
    region on an empty board), scored by line patterns for both sides (own
    potential and the opponent's, see :func:`engine.mnk.patterns.cell_scores`).
    ``limit`` keeps only the best ones.  Empty when the game is over.
    """
    if board.is_over:
        return []
    scores = cell_scores(board.config, board.cells, int(board.to_move))
    if not scores:
        return []
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    if limit is not None:
        ranked = ranked[: max(1, limit)]
    total = sum(s for _, s in ranked) or 1.0
    unpad = board.config.unpadded
    return [(unpad(c), s / total) for c, s in ranked]


class ThreatKnowledge:
    """Threat knowledge for the tree search: implements :class:`engine.mnk.knowledge.MoveKnowledge`.

    For each new node (side to move ``s``):

    1. ``s`` completes a line, or has a VCF (within ``vcf_nodes`` solver
       nodes), or, with ``vct_nodes``, a VCT of up to ``vct_threes`` threes
       (``None``: the default budget of the solver at hand, see
       :meth:`engine.mnk.options.EngineOptions.threat_budgets`): its first move
       is forced and the node a proven win;
    2. the opponent has a completion: the moves that stop it;
    3. the opponent threatens a double threat or a VCF: only the defence set
       (see :func:`defence_set`, ``defence_nodes`` per solver run), best first;
    4. otherwise the searcher's candidates, with pattern priors: window
       scores (:func:`engine.mnk.patterns.cell_scores`) or, with
       ``priors="shapes"``, the fitted shape priors of :mod:`engine.mnk.shapes`.

    Budgets are counted in solver nodes, not time, so a seeded search stays
    reproducible.  The caller's ``cells`` are copied, never modified.
    """

    def __init__(
        self,
        vcf_nodes: int = 500,
        defence_nodes: int = 200,
        defend: bool = True,
        priors: str = "windows",
        vct_nodes: int | None = 0,
        vct_threes: int = 2,
    ) -> None:
        self.vcf_nodes = max(1, int(vcf_nodes))
        # None: the default for the solver at hand, decided per board (see EngineOptions).
        self.vct_nodes = None if vct_nodes is None else max(0, int(vct_nodes))
        self.vct_threes = max(1, int(vct_threes))
        self.defence_nodes = max(1, int(defence_nodes))
        self.defend = defend
        if priors not in PRIOR_KINDS:
            raise ValueError(f"priors must be one of {', '.join(PRIOR_KINDS)}, got {priors!r}")
        # Both have the signature of cell_scores with explicit cells and counts.
        self._scores = shape_scores if priors == "shapes" else cell_scores

    def suggest(self, config: GameConfig, cells: Sequence[int], to_move: int, candidates: Sequence[int]):
        """A :class:`engine.mnk.knowledge.Suggestion` for this position, or ``None`` to keep the defaults."""
        from .knowledge import Suggestion  # the hook's value type; imported lazily to keep layers loose

        if to_move not in (1, 2) or len(cells) != config.padded_size:
            return None
        # Solvers set and clear stones: work on a private copy (a list of ints is copied as is).
        work = list(cells) if isinstance(cells, list) else [int(v) for v in cells]
        st = LineState(config, work)
        s, o = int(to_move), 3 - int(to_move)
        unpad = config.unpadded
        ws = st.completing(s)
        if ws:
            return Suggestion(forced=unpad(ws[0]), proven_win=True)
        wo = st.completing(o)
        if wo:
            ks = st.killers(o, wo)
            return Suggestion(moves=[unpad(c) for c in ks]) if ks else None
        try:
            line = _solve(st, s, self.vcf_nodes, None)
        except _Abort:
            line = None
        vct_nodes = self.vct_nodes
        if vct_nodes is None:
            vct_nodes = (FAST_SOLVER_BUDGETS if fast_solver(config) else PYTHON_SOLVER_BUDGETS).vct_nodes
        if line is None and vct_nodes:
            try:
                line = _solve(st, s, vct_nodes, None, threes=self.vct_threes, deepen=True)
            except _Abort:
                line = None
        if line is not None:
            return Suggestion(forced=unpad(line[0]), proven_win=True)
        if self.defend:
            ds = _defence_cells(st, s, None, self.defence_nodes)
            if ds:
                scores = self._scores(config, work, s, sorted(ds), counts=(st.cnt[1], st.cnt[2]))
                ranked = sorted(ds, key=lambda c: (-scores.get(c, 0.0), c))
                return Suggestion(moves=[unpad(c) for c in ranked], priors=[scores.get(c, 0.0) for c in ranked])
        board_cells = st.geom.board_cells  # padded index of every compact move
        area = config.area
        pads = [board_cells[m] if 0 <= m < area else -1 for m in map(int, candidates)]
        # The solvers above restored every stone, so the state's window counts are current.
        scores = self._scores(config, work, s, [c for c in pads if c >= 0], counts=(st.cnt[1], st.cnt[2]))
        return Suggestion(priors=[scores.get(c, 0.0) for c in pads])


#: :func:`classify_moves` verdicts.
SAFE, OPEN, LOSING, UNCHECKED = "safe", "open", "losing", "unchecked"


def classify_moves(
    board: Board,
    moves: Sequence[int],
    deadline: float | None = None,
    max_nodes: int = 2000,
    max_threes: int = 2,
    move_seconds: float | None = None,
    deepen: bool = False,
    stop: threading.Event | None = None,
) -> dict[int, str]:
    """Whether the opponent has a forced win after each of ``moves`` of the side to move.

    Maps each move, in the order of ``moves``, to :data:`LOSING` (the opponent
    then completes a line it cannot be stopped from, or has a VCT, see
    :func:`find_vct`, of up to ``max_threes`` threes: a proof), :data:`SAFE`
    (the solver finished and found no such win, or the move wins at once),
    :data:`OPEN` (its budget ran out first: ``max_nodes`` solver nodes, and
    ``move_seconds`` of time if given) or :data:`UNCHECKED` (not reached
    before ``deadline``, monotonic).  ``deepen`` looks for the opponent's VCT
    with 1, 2, ... ``max_threes`` threes (as :func:`find_vct`) instead of all
    of them at once.  Occupied, off-board and repeated entries are dropped.
    Once ``stop`` is set, the moves not checked yet are :data:`UNCHECKED`.
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
            verdicts[m] = SAFE  # it wins at once
            continue
        st.place(c, s)
        try:
            if st.completing(o):
                verdict = LOSING  # the opponent completes a line now
            else:
                limit = deadline
                if move_seconds is not None:
                    mine = time.monotonic() + move_seconds
                    limit = mine if limit is None else min(limit, mine)
                try:
                    won = _solve(st, o, max_nodes, limit, threes=max(0, max_threes), deepen=deepen)
                    verdict = SAFE if won is None else LOSING
                except _Abort:
                    verdict = OPEN
        finally:
            st.take(c)
        verdicts[m] = verdict
    return verdicts


def losing_moves(
    board: Board,
    moves: Sequence[int],
    deadline: float | None = None,
    max_nodes: int = 2000,
    max_threes: int = 2,
    move_seconds: float | None = None,
    deepen: bool = False,
) -> tuple[list[int], list[int], list[int]]:
    """Sort ``moves`` of the side to move by whether the opponent then has a forced win.

    Returns ``(safe, losing, unchecked)``, each in the order of ``moves``, from
    :func:`classify_moves` (same arguments): a budget running out counts as
    safe here, so the split errs towards keeping moves.
    """
    safe: list[int] = []
    losing: list[int] = []
    unchecked: list[int] = []
    verdicts = classify_moves(board, moves, deadline, max_nodes, max_threes, move_seconds, deepen)
    for m, verdict in verdicts.items():
        (losing if verdict == LOSING else unchecked if verdict == UNCHECKED else safe).append(m)
    return safe, losing, unchecked
