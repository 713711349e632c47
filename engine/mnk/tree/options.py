"""How the m,n,k engine searches: typed option groups and the two named presets.

:meth:`MnkOptions.uct` is plain UCT (random playouts, the cheap exact knowledge of
:mod:`engine.mnk.playouts.oracle`); :meth:`MnkOptions.guided` adds the threat knowledge, pattern
priors, the static evaluation and the root threat search, with the tree in C where it
can run (freestyle with K >= 4, or renju; the extension built).  The brain plays the guided preset;
the library's default is plain UCT.  The defaults of each preset were measured in
matches (see docs/RESULTS.md).

Options are set by dotted keys (``tree.exploration``) or, where a field name is unique,
by that name alone (``exploration``): :meth:`MnkOptions.with_values`; :func:`engine.options.option_keys`
lists them all.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ... import options as keyed
from ...search.mcts import TreeSettings


class Mode(str, enum.Enum):
    """The two ways the m,n,k engine searches (see the module doc)."""

    UCT = "uct"
    GUIDED = "guided"


class ThreatBudgets(NamedTuple):
    """Budgets of guided mode's root threat search and tree VCT, by the solver at hand."""

    root_share: float  # share of the time left for the root threat search
    root_threes: int  # threes the side to move's own VCT may play
    reply_nodes: int  # solver nodes of each root move's check for an opponent VCT
    vct_nodes: int  # solver nodes of the VCT tried at each tree node
    threat_threes: int  # threes of the null-move probe of the opponent's VCT (0: no probe)


#: With the C solver (about 25 times faster), more threat search measured better.
FAST_SOLVER_BUDGETS = ThreatBudgets(root_share=0.4, root_threes=6, reply_nodes=3000, vct_nodes=2000, threat_threes=6)
PYTHON_SOLVER_BUDGETS = ThreatBudgets(root_share=0.15, root_threes=2, reply_nodes=300, vct_nodes=0, threat_threes=0)


@dataclass(frozen=True)
class Leaves:
    """How leaves are valued.

    - ``playouts``: random playouts a leaf stands for (0: 16 on boards over 100 cells,
      else 8); with the static evaluation alone, the weight of a leaf in the tree;
    - ``eval_weight``: share of the static line evaluation in a leaf's value (0: playouts
      only, 1: the evaluation only; guided mode).
    """

    playouts: int = 0
    eval_weight: float = 0.0

    def __post_init__(self) -> None:
        if self.playouts < 0:
            raise ValueError(f"playouts must be >= 0, got {self.playouts!r}")
        if not 0.0 <= self.eval_weight <= 1.0:
            raise ValueError(f"eval_weight must be in [0, 1], got {self.eval_weight!r}")


@dataclass(frozen=True)
class Knowledge:
    """Guided mode's threat knowledge at tree nodes (solver nodes per call, so seeded searches
    stay reproducible): ``vcf_nodes`` for the side to move's VCF, ``vct_nodes`` for its VCT
    of up to ``vct_threes`` threes (``None``: by solver, see :data:`FAST_SOLVER_BUDGETS`),
    ``defence_nodes`` per check of the opponent's threats."""

    vcf_nodes: int = 500
    defence_nodes: int = 200
    vct_nodes: int | None = None
    vct_threes: int = 2

    def __post_init__(self) -> None:
        for name in ("vcf_nodes", "defence_nodes", "vct_threes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if self.vct_nodes is not None and self.vct_nodes < 0:
            raise ValueError(f"vct_nodes must be >= 0, got {self.vct_nodes!r}")


@dataclass(frozen=True)
class RootTactics:
    """Guided mode's threat search at the root (:mod:`engine.mnk.threats.roottactics`).

    - ``enabled``: search the side to move's VCF/VCT first (played at once when found) and
      drop the root moves after which the opponent has a VCT;
    - ``budgets``: :class:`ThreatBudgets` (``None``: by solver);
    - ``reply_threes``: threes of the opponent's VCT looked for after each root move;
    - ``thread``: run it on a second thread beside the C tree instead of before the tree
      (both release the interpreter lock, so it uses a second core; the brain's
      ``--threads 2`` turns it on where it applies).
    """

    enabled: bool = True
    budgets: ThreatBudgets | None = None
    reply_threes: int = 2
    thread: bool = False

    def __post_init__(self) -> None:
        if self.reply_threes < 0:
            raise ValueError(f"reply_threes must be >= 0, got {self.reply_threes!r}")
        if self.budgets is not None and not 0.0 <= self.budgets.root_share <= 1.0:
            raise ValueError(f"budgets.root_share must be in [0, 1], got {self.budgets.root_share!r}")


@dataclass(frozen=True)
class NativeTree:
    """Guided mode's tree in C (:mod:`engine.mnk.tree.native`): ``enabled`` where it can run;
    its VCT runs once a node has ``vct_visits`` visits; nodes first listed deeper
    than the root's children hold their best ``edge_cap`` moves by prior."""

    enabled: bool = True
    vct_visits: int = 16
    edge_cap: int = 40

    def __post_init__(self) -> None:
        if self.vct_visits < 0 or self.edge_cap < 1:
            raise ValueError("vct_visits must be >= 0 and edge_cap >= 1")


#: Guided mode's tree settings, measured in matches against plain UCT, pela and Rapfi (docs/RESULTS.md).
GUIDED_TREE = TreeSettings(exploration=0.3, widening=1.0, prior_bias=3.0, minimax=0.5)


@dataclass(frozen=True)
class MnkOptions:
    """Everything that decides how the m,n,k engine searches (see the module doc).

    ``tree.leaves_per_batch`` of the presets is a floor: boards over 100 cells batch 48
    leaves (:meth:`batch_for`).
    """

    mode: Mode = Mode.UCT
    tree: TreeSettings = field(default_factory=TreeSettings)
    leaves: Leaves = field(default_factory=Leaves)
    knowledge: Knowledge = field(default_factory=Knowledge)
    root: RootTactics = field(default_factory=RootTactics)
    native: NativeTree = field(default_factory=NativeTree)

    def __post_init__(self) -> None:
        if not isinstance(self.mode, Mode):
            raise ValueError(f"mode must be a Mode (uct or guided), got {self.mode!r}")

    @classmethod
    def uct(cls) -> "MnkOptions":
        """Plain UCT: random playouts, no threat knowledge."""
        return cls()

    @classmethod
    def guided(cls) -> "MnkOptions":
        """The brain's default: threat knowledge, priors, the static evaluation, root tactics."""
        return cls(mode=Mode.GUIDED, tree=GUIDED_TREE, leaves=Leaves(eval_weight=1.0))

    @classmethod
    def preset(cls, mode: str | Mode) -> "MnkOptions":
        """The preset of a mode name (``uct`` or ``guided``)."""
        try:
            mode = Mode(mode)
        except ValueError:
            raise ValueError(f"unknown mode {mode!r}: use uct or guided") from None
        return cls.guided() if mode is Mode.GUIDED else cls.uct()

    def budgets(self, fast_solver: bool) -> ThreatBudgets:
        """The root and tree threat budgets (:data:`FAST_SOLVER_BUDGETS` with the C solver,
        else :data:`PYTHON_SOLVER_BUDGETS`, unless set)."""
        if self.root.budgets is not None:
            return self.root.budgets
        return FAST_SOLVER_BUDGETS if fast_solver else PYTHON_SOLVER_BUDGETS

    def with_values(self, values: dict[str, Any]) -> "MnkOptions":
        """A copy with ``values`` set by key (see :mod:`engine.options`); text values are
        converted to the field's type.  ``ValueError`` names a bad key or value."""
        return keyed.with_values(self, values)
