"""Deep root tactics for a second core: an engine-shaped threat searcher.

Root-parallel MCTS (two trees, statistics merged) gained nothing measurable
on two cores: the trees agree on the same few moves.  What a second core can
add is depth where the tree is blind: victories by continuous threats (VCT),
of the side to move and of the opponent after each candidate move, with
solver budgets ten times those the main search can afford in its own root
check (:mod:`engine.mnk.roottactics`).

:class:`RootTactician` has the search interface of :class:`engine.api.Engine`
so that :class:`engine.mnk.parallel.ParallelEngine` can run it in a helper
process and merge its answer like any searcher's:

- a VCF or VCT of the side to move is a proven win (played at once);
- otherwise its root statistics list the candidate moves after which the
  opponent was proven to have a VCT, as proven losses (so the merge never
  picks them while another move is left), and no playouts (so it never
  changes how the remaining moves rank).

Candidates are checked best pattern-score first, in passes of growing solver
budgets (:data:`PASSES`; :data:`FAST_PASSES` where the C solver runs), until
the deadline or ``stop``.  Where the C solver runs, a null-move probe of the
opponent's VCT comes first: when it proves the opponent has none, no move
can lose to one and the checks are skipped.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from ..api import require_playable
from ..search.limits import Limits, SearchInfo, SearchResult
from .options import EngineOptions
from .rules import Board, GameConfig
from .threats import candidate_moves, fast_solver, find_vcf, find_vct, losing_moves, probe_vct

#: Share of the time for the side to move's own VCF and VCT.
OWN_SHARE = 0.25
#: Solver nodes for the own VCF and VCT (the time share bounds them first, as a rule).
OWN_NODES = 200_000
#: Threes allowed in the own VCT.
OWN_THREES = 3
#: Candidate moves examined (best pattern score first).
CANDIDATES = 24
#: ``(solver nodes per move, threes allowed)`` of each pass over the candidates still safe.
PASSES = ((1500, 2), (8000, 3))
#: Budgets when the search has node or playout limits but no deadline (reproducible, and
#: about as long as the main search's own root check, so that the merge need not wait).
UNTIMED_OWN_NODES = 20_000
UNTIMED_PASSES = ((1500, 2),)
#: With the C solver (25 times faster): more threes everywhere, and the passes of the
#: candidate checks go ten times deeper.
FAST_OWN_THREES = 6
FAST_OWN_NODES = 2_000_000
FAST_CANDIDATES = 40
FAST_PASSES = ((3000, 6), (30_000, 6), (300_000, 6))
#: The null-move probe of the opponent's VCT (see :mod:`engine.mnk.roottactics`): its threes,
#: solver nodes, and share of the time left after the own search.
PROBE_THREES = 6
PROBE_NODES = 500_000
PROBE_SHARE = 0.25


class RootTactician:
    """Threat search of the root only, answering like an :class:`engine.api.Engine`.

    ``options`` and ``seed`` are accepted for interface compatibility (the
    search is deterministic for a given position and budget).
    """

    def __init__(self, config: GameConfig, options: EngineOptions = EngineOptions(), seed=None) -> None:
        self.config = config
        self.options = options
        self.reused = False
        self._stats: list[tuple[int, float, float, str | None]] = []

    def new_game(self) -> None:
        """Nothing is kept between searches."""
        self._stats = []

    def root_stats(self) -> list[tuple[int, float, float, str | None]]:
        """``(move, 0, 0, "loss")`` for each move proven to lose in the last search."""
        return list(self._stats)

    def search(
        self,
        board: Board,
        limits: Limits,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
    ) -> SearchResult:
        """A proven win of the side to move, else the best candidate not proven to lose.

        Raises ``ValueError`` like :meth:`engine.api.Engine.search` for a
        finished game or another configuration.
        """
        started = time.monotonic()
        require_playable(board, self.config)
        self._stats = []
        work = board.copy()  # the solvers set and clear stones in place
        me = int(work.to_move)
        deadline = limits.deadline
        stopped = (lambda: stop.is_set()) if stop is not None else (lambda: False)

        fast = fast_solver(self.config)
        own_deadline = None
        if deadline is not None:
            own_deadline = started + max(0.0, deadline - started) * OWN_SHARE
        for finder, reason in ((find_vcf, "vcf"), (find_vct, "vct")):
            if stopped():
                break
            kwargs = {"max_threes": FAST_OWN_THREES if fast else OWN_THREES} if finder is find_vct else {}
            budget = UNTIMED_OWN_NODES if deadline is None else FAST_OWN_NODES if fast else OWN_NODES
            line = finder(work, me, deadline=own_deadline, max_nodes=budget, **kwargs)
            if line:
                return SearchResult(move=line[0], value=1.0, pv=list(line), elapsed=time.monotonic() - started,
                                    proven="win", reason=reason)

        if fast and deadline is not None and not stopped():
            probe_deadline = time.monotonic() + max(0.0, deadline - time.monotonic()) * PROBE_SHARE
            threat, finished = probe_vct(work, 3 - me, deadline=probe_deadline, max_nodes=PROBE_NODES,
                                         max_threes=PROBE_THREES)
            if threat is None and finished:
                # No move of ours can allow a win the opponent does not have with a free move.
                move = ([m for m, _ in candidate_moves(work, limit=1)] or work.legal_moves())[0]
                return SearchResult(move=move, value=0.5, pv=[move], elapsed=time.monotonic() - started,
                                    reason="tactics")
        ranked = [m for m, _ in candidate_moves(work, limit=FAST_CANDIDATES if fast else CANDIDATES)]
        safe = list(ranked)
        losing: list[int] = []
        passes = UNTIMED_PASSES if deadline is None else FAST_PASSES if fast else PASSES
        for nodes, threes in passes:
            still = []
            for m in safe:
                if stopped() or (deadline is not None and time.monotonic() >= deadline):
                    still.append(m)
                    continue
                _, lost, _ = losing_moves(work, [m], deadline=deadline, max_nodes=nodes, max_threes=threes,
                                            deepen=fast)
                (losing if lost else still).append(m)
            safe = still
        self._stats = [(m, 0.0, 0.0, "loss") for m in losing]
        move = safe[0] if safe else (ranked[0] if ranked else work.legal_moves()[0])
        return SearchResult(move=move, value=0.5, pv=[move], elapsed=time.monotonic() - started, reason="tactics")
