"""Tuning options of the searcher (re-exported by :mod:`engine.api`)."""

from __future__ import annotations

from dataclasses import dataclass

from .knowledge import MoveKnowledge

MODES = ("uct", "guided")


@dataclass(frozen=True)
class EngineOptions:
    """How the engine searches.

    - ``mode``: ``"uct"`` is the plain searcher (UCT + MCTS-Solver + the cheap
      built-in knowledge: immediate win, forced block, moves near stones);
      ``"guided"`` additionally consults ``knowledge`` whenever a node's
      moves are listed (its first expansion); without an explicit
      ``knowledge`` it uses :class:`engine.threats.ThreatKnowledge`.
    - ``exploration``: the UCT constant ``c`` in ``q + c * sqrt(ln N / n)``
      (values are in [0, 1]; ``n`` counts playouts).
    - ``widening``: ``0`` is plain UCT (every move is tried once before any is
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
    """

    mode: str = "uct"
    exploration: float = 0.8
    widening: float = 0.0
    rollouts_per_leaf: int = 0
    leaves_per_batch: int = 0
    candidate_radius: int = 2
    full_width_area: int = 64
    max_tree_nodes: int = 300_000
    reuse_tree: bool = True
    knowledge: MoveKnowledge | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.mode == "guided" and self.knowledge is None:
            # The threat module is the default knowledge of guided mode; imported here so
            # plain "uct" searches never pay for it.
            from .threats import ThreatKnowledge

            object.__setattr__(self, "knowledge", ThreatKnowledge())
        if not self.exploration >= 0:
            raise ValueError(f"exploration must be >= 0, got {self.exploration!r}")
        if not self.widening >= 0:
            raise ValueError(f"widening must be >= 0, got {self.widening!r}")
        for name in ("rollouts_per_leaf", "leaves_per_batch", "candidate_radius", "full_width_area"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if self.max_tree_nodes < 1:
            raise ValueError("max_tree_nodes must be >= 1")
