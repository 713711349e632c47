"""Answers to threats: the defence set, the tactical move, candidate moves with priors.

The opponent's completion, double threat or VCF leaves only a few moves worth playing;
:func:`defence_set` finds them (with the solver checking that each really refutes a VCF),
and :func:`tactical_move` names the move tactics alone dictate.  Vocabulary:
:mod:`engine.mnk.threats.kinds`.
"""

from __future__ import annotations

from typing import Sequence

from ..board.rules import EMPTY, Board, GameConfig
from ..knowledge.patterns import LineState, cell_scores
from .solver import DEFAULT_VCF_NODES, _Abort, _compact, _double_defences, _run_vcf, _solve

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
    """Padded defence set for ``s`` to move (see :func:`defence_set`); under renju black's
    forbidden points are left out (a forbidden defence is no defence), so it may be empty."""
    found = _any_defence_cells(st, s, deadline, max_nodes)
    if found is None or not st.renju or s != 1:
        return found
    return set(st.allowed(s, sorted(found)))


def _any_defence_cells(st: LineState, s: int, deadline: float | None, max_nodes: int) -> set[int] | None:
    """:func:`_defence_cells` before black's forbidden points are left out."""
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

    Never returns an empty set, except under renju for black when every defence is a
    forbidden point (the game is lost).  Moves are compact indices.
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
    best-scored move of :func:`defence_set`).  Never a forbidden point of black's under
    renju (``None`` when black's only answers are forbidden).  ``max_nodes`` bounds each
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
        lost = st.allowed(s, wo)  # under renju black may not even block on a forbidden point
        if not lost:
            return None
        return unpad(_best(board.config, board.cells, s, lost)), "lost"
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
    potential and the opponent's, see :func:`engine.mnk.knowledge.patterns.cell_scores`).
    ``limit`` keeps only the best ones.  Empty when the game is over.
    """
    if board.is_over:
        return []
    scores = cell_scores(board.config, board.cells, int(board.to_move))
    if not scores:
        return []
    st = LineState(board.config, board.cells)
    allowed = set(st.allowed(int(board.to_move), list(scores)))  # renju: not black's forbidden points
    ranked = sorted(((c, v) for c, v in scores.items() if c in allowed), key=lambda kv: (-kv[1], kv[0]))
    if limit is not None:
        ranked = ranked[: max(1, limit)]
    total = sum(s for _, s in ranked) or 1.0
    unpad = board.config.unpadded
    return [(unpad(c), s / total) for c, s in ranked]
