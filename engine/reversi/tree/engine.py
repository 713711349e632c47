"""The Reversi engine: the generic MCTS with the Reversi evaluator and oracle (on 8x8 with
the pattern leaves, the same search in C: :mod:`engine.reversi.tree.native`), its tree kept
from move to move, behind the searcher contract of :mod:`engine.search.searcher`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Callable

import numpy as np

from ...game import GameError, Outcome, Verdict
from ...search.choice import mean, rank
from ...search.limits import Limits, RootMove, SearchInfo, SearchResult
from ...search.mcts import MCTS
from .. import kernel
from ..board.rules import ReversiConfig, ReversiState
from ..endgame.oracle import ReversiOracle
from ..endgame.solver import move_values, solve
from ..evaluation import patterns
from ..evaluation.patternleaves import PatternLeaves
from ..evaluation.playoutleaves import ReversiEvaluator
from . import native
from .options import ReversiOptions


def _evaluator(n: int, options: ReversiOptions):
    """The leaves' evaluator the options ask for: the pattern evaluation on 8x8 (where
    its weights are shipped), random playouts elsewhere or when asked."""
    if options.leaves != "playouts":
        ev = None
        if n == patterns.SIDE:
            ev = patterns.load(options.weights) if options.weights else patterns.default()
        if ev is not None:
            depth = options.eval_depth
            if depth is None:
                depth = 2 if kernel.native() is not None else 0
            return PatternLeaves(ev, depth)
        if options.leaves == "patterns":
            raise GameError(f"no pattern evaluation for {n}x{n} (only {patterns.SIDE}x{patterns.SIDE})")
    per_leaf = options.playouts_per_leaf
    if per_leaf is None:
        per_leaf = 16 if kernel.native() is not None else 4
    return ReversiEvaluator(n, per_leaf, options.order)


class ReversiEngine:
    """Plays Reversi on one board size, one game at a time, reusing its tree when the
    next position continues the last one's history.  ``game``: a
    :class:`~engine.reversi.board.rules.ReversiConfig` or the board side.

    From ``root_empties`` empty squares it first solves the position exactly (within
    half the remaining time under a deadline) and, when that succeeds, answers with the
    best move at once; :attr:`last_margin` then holds the final disc differential for
    the side to move with best play (else ``None``).  From ``root_wld_empties`` it solves
    win/draw/loss the same way and answers a won or drawn position's move at once
    (:attr:`root_solved` says that a solve, not the tree, chose the last move).

    ``seed``: an int or a ``numpy.random.Generator`` (``None``: fresh entropy); a seed and
    a node or playout limit reproduce a search exactly.
    """

    def __init__(self, game: ReversiConfig | int = 8, options: ReversiOptions | None = None,
                 seed: int | np.random.Generator | None = None) -> None:
        config = game if isinstance(game, ReversiConfig) else ReversiConfig(game)
        options = options if options is not None else ReversiOptions()
        n = config.size
        self.config = config
        self.n = n
        self.options = options
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.evaluator = _evaluator(n, options)
        self.oracle = (ReversiOracle(options.tree_empties, options.root_empties, options.tree_nodes,
                                     options.root_nodes, root_wld_empties=options.root_wld_empties)
                       if options.solver else None)
        if native.available(n, options.native, self.evaluator):
            self.tree: MCTS | native.NativeTree = native.NativeTree(self.evaluator, self.oracle, options.tree)
        else:
            self.tree = MCTS(self.evaluator, self.oracle, options.tree, rng)
        self.last_margin: int | None = None
        self.root_solved = False

    def new_game(self) -> None:
        """Forget the tree."""
        self.tree.reset()

    def close(self) -> None:
        """Nothing to release (no threads or processes); the tree goes with the engine."""
        self.tree.reset()

    def search(self, state: ReversiState, limits: Limits, stop: threading.Event | None = None,
               on_info: Callable[[SearchInfo], None] | None = None,
               started: float | None = None) -> SearchResult:
        """The move to play at ``state`` (not modified); :class:`GameError` when the game
        is over or the board is of another size."""
        if state.n != self.n:
            raise GameError(f"this engine plays {self.n}x{self.n}, the position is {state.n}x{state.n}")
        t0 = time.monotonic() if started is None else started
        self.last_margin = None
        self.root_solved = False
        if self.oracle is not None and not state.is_terminal():
            deadline = None
            if limits.deadline is not None:
                now = time.monotonic()
                deadline = now + 0.5 * max(0.0, limits.deadline - now)
            # (the tree's own root verdict, when it builds a new root, is this one, cached)
            verdict = self.oracle.solve_root(state, deadline)
            if verdict.outcome and verdict.moves:
                return self._proven(verdict, t0, on_info)
        self.tree.set_root(state)
        result = self.tree.search(limits, stop, on_info, started)
        if result.proven and self.oracle is not None and limits.deadline is not None:
            return self._margin_after_proof(state, result, limits.deadline)
        return result

    def _margin_after_proof(self, state: ReversiState, result: SearchResult, deadline: float) -> SearchResult:
        """The tree proved the result early (win/draw/loss): the time left goes to the exact
        margin, so that the move wins by most (or loses by least) and the eval is exact."""
        if time.monotonic() >= deadline or state.empties() > self.oracle.max_margin_empties:
            return result
        sol = solve(state, exact=True, max_nodes=self.oracle.root_nodes, deadline=deadline)
        if not sol.complete or sol.move is None:
            return result
        self.last_margin = sol.value
        pv = result.pv if sol.move == result.move else [sol.move]
        return replace(result, move=sol.move, pv=pv, elapsed=result.elapsed)

    def rank_moves(self, state: ReversiState, limits: Limits, count: int | None = None,
                   stop: threading.Event | None = None) -> list[RootMove]:
        """The best ``count`` moves of ``state`` (every move with ``None``), best first,
        with what the search knows of each: what a GUI shows as hints.

        With the endgame oracle and at most ``root_empties`` empty squares, every move is
        first solved exactly (within ``root_nodes`` solver nodes and half the time to the
        deadline): each then has its final disc differential (``exact``).  A root the
        win/draw/loss solve of :meth:`search` decides gives its one proven move.  Otherwise the
        tree searches within ``limits`` and its root's statistics rank the moves
        (:func:`engine.search.choice.rank`, the move :meth:`search` plays first); a move
        the tree proved has its win/draw/loss but no margin.  :class:`GameError` when the
        game is over or the board is of another size.
        """
        if state.n != self.n:
            raise GameError(f"this engine plays {self.n}x{self.n}, the position is {state.n}x{state.n}")
        if state.is_terminal():
            raise GameError("the game is over: no move to rank")
        t0 = time.monotonic()
        if self.oracle is not None and state.empties() <= self.oracle.root_empties:
            solved = self._solve_moves(state, limits)
            if solved is not None:
                return solved[:count]
        result = self.search(state, limits, stop, started=t0)
        if self.root_solved:  # no tree was searched
            return [RootMove(result.move, result.value, 0.0, result.proven, self.last_margin, result.pv,
                             result.depth)]
        children = self.tree.root_children()
        order = rank(children)
        first = next(j for j, i in enumerate(order) if children[i].move == result.move)
        order.insert(0, order.pop(first))
        out = []
        for i in order[:count]:
            c = children[i]
            pv = result.pv if c.move == result.move else [c.move]
            out.append(RootMove(c.move, mean(c), float(c.n), c.outcome.label, None, pv, result.depth))
        return out

    def _solve_moves(self, state: ReversiState, limits: Limits) -> list[RootMove] | None:
        """Every move of ``state`` solved exactly, best first; ``None`` when the budget ran out."""
        deadline = None
        if limits.deadline is not None:
            now = time.monotonic()
            deadline = now + 0.5 * max(0.0, limits.deadline - now)
        values = move_values(state, exact=True, max_nodes=self.oracle.root_nodes, deadline=deadline)
        if values is None:
            return None
        plies = state.empties()
        out = []
        for move, margin in sorted(values.items(), key=lambda mv: -mv[1]):
            outcome = Outcome.WIN if margin > 0 else Outcome.LOSS if margin < 0 else Outcome.DRAW
            out.append(RootMove(move, outcome.score, 0.0, outcome.label, margin, [move], plies))
        return out

    def _proven(self, verdict: Verdict, t0: float, on_info: Callable[[SearchInfo], None] | None) -> SearchResult:
        """The result of a root the solver decided."""
        self.last_margin = verdict.facts
        self.root_solved = True
        move = verdict.moves[0]
        value = Outcome(verdict.outcome).score
        elapsed = time.monotonic() - t0
        if on_info is not None:
            on_info(SearchInfo(playouts=0, nodes=0, depth=verdict.plies, value=value, pv=[move], elapsed=elapsed))
        return SearchResult(move=move, value=value, pv=[move], depth=verdict.plies, elapsed=elapsed,
                            proven=Outcome(verdict.outcome).label, reason="proven")
