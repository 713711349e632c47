"""Tuning options of the searcher (re-exported by :mod:`engine.api`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .knowledge import MoveKnowledge

MODES = ("uct", "guided")
#: What the helper processes of a parallel search do (see ``EngineOptions.helpers``).
HELPER_ROLES = ("tactics", "search")
#: Move priors of guided mode's threat knowledge (see ``EngineOptions.priors``).
PRIOR_KINDS = ("windows", "shapes")
#: Defaults of ``widening`` and ``prior_bias`` in guided mode (plain UCT: both 0).
GUIDED_WIDENING = 0.7
GUIDED_PRIOR_BIAS = 3.0
#: Default of ``eval_weight`` in guided mode (plain UCT: 0).
GUIDED_EVAL_WEIGHT = 1.0
#: Defaults of ``exploration``: plain UCT's, and guided mode's (lower: its priors and
#: evaluation already say where to look, and at the C tree's 100,000+ playouts a second a
#: wide search spreads the turn over moves the evaluation cannot tell apart; README, Strength).
UCT_EXPLORATION = 0.8
GUIDED_EXPLORATION = 0.3
class ThreatBudgets(NamedTuple):
    """Threat-search budgets of guided mode (see the fields of :class:`EngineOptions`)."""

    root_share: float
    root_threes: int
    reply_nodes: int
    vct_nodes: int
    threat_threes: int


#: Threat-search budgets of guided mode, by the solver that runs them: the C solver
#: (freestyle, K >= 4, extension built) is about 25 times faster than the Python one, and
#: spending that on more threat search measured better (README, Strength).
FAST_SOLVER_BUDGETS = ThreatBudgets(root_share=0.4, root_threes=6, reply_nodes=3000, vct_nodes=2000, threat_threes=6)
PYTHON_SOLVER_BUDGETS = ThreatBudgets(root_share=0.15, root_threes=2, reply_nodes=300, vct_nodes=0, threat_threes=0)


@dataclass(frozen=True)
class EngineOptions:
    """How the engine searches.

    - ``mode``: ``"uct"`` is the plain searcher (UCT + MCTS-Solver + the cheap
      built-in knowledge: immediate win, forced block, moves near stones);
      ``"guided"`` additionally consults ``knowledge`` whenever a node's
      moves are listed (its first expansion); without an explicit
      ``knowledge`` it uses :class:`engine.mnk.threats.ThreatKnowledge`.
    - ``exploration`` (default: :data:`UCT_EXPLORATION` in uct mode,
      :data:`GUIDED_EXPLORATION` in guided mode): the UCT constant ``c`` in
      ``q + c * sqrt(ln N / n)`` (values are in [0, 1]; ``n`` counts playouts).
    - ``widening`` (default: 0 in uct mode, :data:`GUIDED_WIDENING` in guided
      mode): ``0`` is plain UCT (every move is tried once before any is
      tried twice); ``w > 0`` is progressive widening: a node visited ``v``
      times (in leaves) offers only its first ``w * sqrt(v)`` moves, in
      candidate order.
    - ``rollouts_per_leaf`` / ``leaves_per_batch``: one vectorised rollout
      batch holds ``leaves_per_batch`` leaves (selected with virtual loss)
      times ``rollouts_per_leaf`` playouts each.  ``0`` picks a default from
      the board size.
    - ``candidate_radius``: on boards larger than ``full_width_area`` cells,
      only empty cells within this Chebyshev distance of a stone are children.
    - ``max_tree_nodes``: default memory cap when ``Limits.max_tree_nodes`` is
      not given (a node takes about 0.5 KB on 15x15, so 300,000 nodes is
      about 150 MB).
    - ``reuse_tree``: keep the tree from one search to the next of a game.
    - ``root_threats``: in guided mode with the default threat knowledge,
      search threats at the root before the tree search (an own VCF/VCT is
      played at once; moves after which the opponent has a VCT are dropped;
      see :mod:`engine.mnk.roottactics`).  ``root_share`` is the fraction of the
      time left that this may take; ``root_threes`` the threes the own VCT
      may play; ``reply_threes`` / ``reply_nodes`` bound the opponent's VCT
      looked for after each root move (threes, solver nodes);
      ``threat_threes`` > 0 first probes the opponent's VCT as if it moved
      next, with up to that many threes, and when it finds one checks every
      move against it instead.  ``None`` (the default of ``root_share``,
      ``root_threes``, ``reply_nodes``, ``vct_nodes`` and ``threat_threes``)
      takes :data:`FAST_SOLVER_BUDGETS` where the C solver handles the
      board, else :data:`PYTHON_SOLVER_BUDGETS`
      (see :meth:`threat_budgets`).
    - ``knowledge_depth``: consult ``knowledge`` only at nodes at most this
      many plies below the root (``0``: everywhere).
    - ``prior_bias`` (default: 0 in uct mode, :data:`GUIDED_PRIOR_BIAS` in
      guided mode): progressive bias of the knowledge's priors: a move's UCT
      score gets ``prior_bias * p * R / (n + R)``, ``p`` its prior relative to
      the best one's, ``R`` playouts per leaf (``0``: priors only order moves).
    - ``eval_weight`` (default: 0 in uct mode, :data:`GUIDED_EVAL_WEIGHT` in
      guided mode): a leaf's value is ``(1 - eval_weight)`` times its
      playouts' score plus ``eval_weight`` times the static line evaluation
      of :mod:`engine.mnk.evaluation` (guided mode only).
    - ``helpers`` (with :class:`engine.mnk.parallel.ParallelEngine`, i.e. more
      than one thread): ``"tactics"`` (default) makes the first helper
      process a :class:`engine.mnk.tactician.RootTactician` (deep threat checks
      of the root) and any others searchers; ``"search"`` makes them all
      searchers (plain root-parallel MCTS).
    - ``vcf_nodes`` / ``defence_nodes`` / ``vct_nodes``: solver budgets of the
      default :class:`engine.mnk.threats.ThreatKnowledge` of guided mode
      (``vct_nodes`` 0: no VCT at tree nodes).
    - ``priors``: the move priors of that knowledge: ``"windows"`` (default,
      :func:`engine.mnk.patterns.cell_scores`) or ``"shapes"`` (the fitted shape
      priors of :mod:`engine.mnk.shapes`: they rank a strong engine's move higher
      but cost half the nodes a second, and played weaker; see README).
    - ``native_tree``: run guided mode's tree in C (:mod:`engine.mnk.nativesearch`) where it
      can (freestyle, K >= 4, the extension built, the default knowledge with window
      priors and ``eval_weight`` 1); ``native_vct_visits``: there, the tree's VCT runs
      once a node has this many visits (0: when its moves are listed, as in Python);
      ``native_edge_cap``: moves listed per node below the root.
    - ``root_thread``: run the root threat search (:mod:`engine.mnk.roottactics`) on a second
      thread while the tree searches, instead of before it: the tree gets the whole turn
      and the threat search a larger share of it (:data:`engine.mnk.roottactics.THREAD_SHARE`),
      and the moves it proves lost leave the root when it is done.  Only with the C tree
      and a deadline, which release the interpreter lock (otherwise the threat search runs
      first, as without this); it uses a second core.  The protocol's ``--threads 2`` /
      ``INFO thread_num 2`` turns it on.
    """

    mode: str = "uct"
    exploration: float | None = None
    widening: float | None = None
    rollouts_per_leaf: int = 0
    leaves_per_batch: int = 0
    candidate_radius: int = 2
    full_width_area: int = 64
    max_tree_nodes: int = 300_000
    reuse_tree: bool = True
    knowledge: MoveKnowledge | None = None
    root_threats: bool = True
    knowledge_depth: int = 0
    prior_bias: float | None = None
    vcf_nodes: int = 500
    defence_nodes: int = 200
    vct_nodes: int | None = None
    root_share: float | None = None
    root_threes: int | None = None
    reply_threes: int = 2
    reply_nodes: int | None = None
    threat_threes: int | None = None
    eval_weight: float | None = None
    helpers: str = "tactics"
    priors: str = "windows"
    native_tree: bool = True
    native_vct_visits: int = 16
    native_edge_cap: int = 40
    root_thread: bool = False

    def threat_budgets(self, fast_solver: bool) -> ThreatBudgets:
        """The :class:`ThreatBudgets` fields set here, and for those left ``None`` the
        defaults for the solver at hand (``fast_solver``: the C one)."""
        defaults = FAST_SOLVER_BUDGETS if fast_solver else PYTHON_SOLVER_BUDGETS
        return ThreatBudgets(*(d if getattr(self, f) is None else getattr(self, f)
                               for f, d in zip(ThreatBudgets._fields, defaults)))

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.priors not in PRIOR_KINDS:
            raise ValueError(f"priors must be one of {', '.join(PRIOR_KINDS)}, got {self.priors!r}")
        if self.mode == "guided" and self.knowledge is None:
            # The threat module is the default knowledge of guided mode; imported here so
            # plain "uct" searches never pay for it.
            from .threats import ThreatKnowledge

            object.__setattr__(
                self,
                "knowledge",
                ThreatKnowledge(
                    vcf_nodes=self.vcf_nodes, defence_nodes=self.defence_nodes, priors=self.priors,
                    vct_nodes=self.vct_nodes,
                ),
            )
        if self.exploration is None:
            object.__setattr__(self, "exploration", GUIDED_EXPLORATION if self.mode == "guided" else UCT_EXPLORATION)
        if not self.exploration >= 0:
            raise ValueError(f"exploration must be >= 0, got {self.exploration!r}")
        # Mode defaults, measured guided vs uct on 15x15 k5 at 1 s a move (20 games per
        # figure, random 3-stone openings): bias 0/widening 0 60 %, bias 2/widening 1
        # 70 % and 75 %, bias 3/widening 0.7 85 % and 85 %.
        if self.widening is None:
            object.__setattr__(self, "widening", GUIDED_WIDENING if self.mode == "guided" else 0.0)
        if self.prior_bias is None:
            object.__setattr__(self, "prior_bias", GUIDED_PRIOR_BIAS if self.mode == "guided" else 0.0)
        if self.eval_weight is None:
            object.__setattr__(self, "eval_weight", GUIDED_EVAL_WEIGHT if self.mode == "guided" else 0.0)
        if not 0.0 <= self.eval_weight <= 1.0:
            raise ValueError(f"eval_weight must be in [0, 1], got {self.eval_weight!r}")
        if self.helpers not in HELPER_ROLES:
            raise ValueError(f"helpers must be one of {', '.join(HELPER_ROLES)}, got {self.helpers!r}")
        if not self.prior_bias >= 0:
            raise ValueError(f"prior_bias must be >= 0, got {self.prior_bias!r}")
        if not self.widening >= 0:
            raise ValueError(f"widening must be >= 0, got {self.widening!r}")
        for name in ("native_vct_visits", "knowledge_depth", "rollouts_per_leaf", "leaves_per_batch", "candidate_radius", "full_width_area"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if self.root_share is not None and not 0.0 <= self.root_share <= 1.0:
            raise ValueError(f"root_share must be in [0, 1], got {self.root_share!r}")
        for name in ("root_threes", "reply_threes", "reply_nodes", "vct_nodes", "threat_threes"):
            if getattr(self, name) is not None and getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if self.native_edge_cap < 1:
            raise ValueError("native_edge_cap must be >= 1")
        if self.max_tree_nodes < 1:
            raise ValueError("max_tree_nodes must be >= 1")
