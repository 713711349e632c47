"""The search's Oracle for Reversi (exact endgame results): it decides finished games and,
from few enough empty squares, solves the position (win/draw/loss in the tree, the exact margin
or win/draw/loss at the root, in C when built) within a node budget; a bounded cache keeps the
verdicts of positions met again (transpositions, the next move's tree)."""

from __future__ import annotations

from ...game import Outcome, Verdict
from .. import kernel
from ..board.rules import BLACK, ReversiState
from .solver import solve

#: Default empties from which the oracle solves: inside the tree (win/draw/loss), and at
#: the root of a search (exact margin).  A win/draw/loss solve costs a median 0.1 ms at 12
#: empties (about one tree node's work with 16 playouts a leaf) and 0.7 ms at 14 (mean 2
#: ms), yet proving nodes at 14 empties pays: from 18 empties, searches of 1 s proved 11 of
#: 12 positions (median 0.28 s) against 4 of 12 solving from 12.
TREE_EMPTIES = 14
ROOT_EMPTIES = 16
#: From this many empties (down to ``ROOT_EMPTIES + 1``) the root is first solved win/draw/loss:
#: a won or drawn root is played at once.  Such a solve costs a median 46 ms at 20 empties
#: and 0.1 s at 22, the exact margin 1.7 s and 15 s (``python -m engine.reversi bench``).
ROOT_WLD_EMPTIES = 22
#: Node budgets: past them the position stays unknown to the oracle (the search goes on).
TREE_NODES = 100_000
ROOT_NODES = 20_000_000
#: The same for the Python fallback solver (about 100,000 nodes a second, some 300 times slower).
PY_TREE_EMPTIES, PY_ROOT_EMPTIES, PY_TREE_NODES, PY_ROOT_NODES = 8, 12, 5_000, 1_000_000
PY_ROOT_WLD_EMPTIES = 0


class ReversiOracle:
    """Exact knowledge for the search: the result of a finished game, and of every
    position with at most ``tree_empties`` empty squares, solved win/draw/loss within
    ``tree_nodes`` solver nodes, with the winning (or drawing) move first.

    At the root of a search (``parent`` and ``move`` both ``None``, or :meth:`solve_root`)
    it solves the exact margin from ``root_empties`` (so a lost position is played to lose
    least), and above that, from ``root_wld_empties``, win/draw/loss: a won or drawn root
    gets its verdict and move, a lost one stays unknown (the tree, not a null-window solve,
    picks the move that keeps the most chances), both within ``root_nodes`` and an optional
    deadline.  Verdicts are cached (bounded),
    so a position met again -- a transposition, the root of the next search -- costs a
    dict lookup.

    Every ``None`` takes the default for the kernel in use (``TREE_EMPTIES``... with the
    C kernel, ``PY_TREE_EMPTIES``... with the far slower Python solver).  ``plies`` of a
    proof is the number of empty squares (the game's length with best play, passes
    aside).
    """

    #: Once the tree has proved a root's result, its exact margin is sought with the time
    #: left up to this many empty squares (the solver's median at 24 is some seconds).
    max_margin_empties = 24

    def __init__(self, tree_empties: int | None = None, root_empties: int | None = None,
                 tree_nodes: int | None = None, root_nodes: int | None = None,
                 cache_size: int = 200_000, root_wld_empties: int | None = None) -> None:
        if kernel.native() is not None:
            defaults = (TREE_EMPTIES, ROOT_EMPTIES, TREE_NODES, ROOT_NODES, ROOT_WLD_EMPTIES)
        else:
            defaults = (PY_TREE_EMPTIES, PY_ROOT_EMPTIES, PY_TREE_NODES, PY_ROOT_NODES, PY_ROOT_WLD_EMPTIES)
        given = (tree_empties, root_empties, tree_nodes, root_nodes, root_wld_empties)
        self.tree_empties, self.root_empties, self.tree_nodes, self.root_nodes, self.root_wld_empties = (
            d if g is None else g for g, d in zip(given, defaults))
        self.cache_size = cache_size
        # key -> (verdict, tried at the root): an unknown tree verdict is retried at the root
        self._cache: dict[tuple[int, int, int], tuple[Verdict, bool]] = {}
        #: counters for measurements: solves run, of which complete, and solver nodes
        self.solves = 0
        self.solved = 0
        self.solver_nodes = 0

    def verdict(self, state: ReversiState, parent: Verdict | None, move: int | None) -> Verdict:
        """The verdict on ``state`` (see the class docstring)."""
        if parent is None and move is None:
            return self.solve_root(state)
        if not state.move_mask() and state.is_terminal():
            return _final(state)
        if state.empties() > self.tree_empties:
            return Verdict()
        key = state.key()
        cached = self._cache.get(key)
        if cached is not None:
            return cached[0]
        return self._solve(state, key, False, self.tree_nodes, None, False)

    def solve_root(self, state: ReversiState, deadline: float | None = None) -> Verdict:
        """The verdict on ``state`` as the root of a search: exact from ``root_empties``,
        win or draw from ``root_wld_empties``, stopped at ``root_nodes`` or ``deadline`` (a
        :func:`time.monotonic` time)."""
        if not state.move_mask() and state.is_terminal():
            return _final(state)
        empties = state.empties()
        exact = empties <= self.root_empties
        if not exact and empties > self.root_wld_empties:
            return Verdict()
        key = state.key()
        cached = self._cache.get(key)
        if cached is not None and (cached[0].outcome or cached[1]):
            return cached[0]
        # The exact margin is worth its cost here: in a lost position it picks the move
        # that loses least, in a won one the biggest win.  Further from the end it costs
        # some 40 times a win/draw/loss solve, which still finds a move that keeps the result.
        return self._solve(state, key, True, self.root_nodes, deadline, exact)

    def _solve(self, state: ReversiState, key, root: bool, nodes: int, deadline: float | None,
               exact: bool) -> Verdict:
        sol = solve(state, exact=exact, max_nodes=nodes, deadline=deadline)
        self.solves += 1
        self.solver_nodes += sol.nodes
        self.solved += sol.complete
        if not sol.complete or (root and not exact and sol.value < 0):
            verdict = Verdict()  # a lost root past the exact range is left to the tree
        else:
            verdict = Verdict(sol.outcome, state.empties(), [sol.move] if sol.move is not None else None,
                              facts=sol.value if exact else None)
        if len(self._cache) >= self.cache_size:
            self._cache.clear()  # a cheap bound; the search rebuilds what it needs
        self._cache[key] = (verdict, root)
        return verdict


def _final(state: ReversiState) -> Verdict:
    """The verdict on a finished game."""
    d = state.disc_differential()
    if state.to_move != BLACK:
        d = -d
    return Verdict(Outcome.WIN if d > 0 else Outcome.LOSS if d < 0 else Outcome.DRAW, 0, facts=d)
