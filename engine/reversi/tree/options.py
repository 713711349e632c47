"""The Reversi engine's options: one frozen dataclass, settable by key from text.

Defaults measured by self-play and ``python -m engine.reversi bench`` (docs/RESULTS.md):
with random playouts, 16 a leaf played level with 32 and with 8; corner-first ordering,
a prior bias and an exploration constant of 1.2 were within the noise of 40-game
matches, 0.5 worse (with plain averages).  The tree explores with ``c = 0.4`` and backs up an
implicit minimax share of 0.4 (:data:`TREE`), measured on 8x8 with the pattern leaves against
Egaroucid Light level 10 (docs/RESULTS.md, "Reversi (8x8)"): at 1 s a move 78.8 % on the
tuning seed and 75.0 % on a fresh one, where ``c = 0.8`` with the minimax scored 65.0 % and plain
averages 36.2 %; at 100 ms 55.0 % and 51.2 % against 21.2-33.8 %.  Other board sizes, with
random playouts, use the same settings (10x10 self-play at 100 ms: 61.2 % against ``c = 0.8``
with plain averages).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import options as keyed
from ...search.mcts import TreeSettings

#: How leaves can be valued (``ReversiOptions.leaves``).
LEAVES = ("auto", "patterns", "playouts")
#: The tree's settings: the generic defaults with exploration 0.4 and an implicit minimax share of 0.4.
TREE = TreeSettings(exploration=0.4, minimax=0.4)
#: The one preset's name (the search is UCT with random playouts and the endgame oracle).
MODES = ("uct",)


@dataclass(frozen=True)
class ReversiOptions:
    """How the Reversi engine searches.

    - ``playouts_per_leaf``: random games per leaf (the evaluator's weight; ``None``: 16
      with the C kernel, 4 with the Python one, about 200 times slower at playouts);
    - ``order``: corners-first move order with priors (else square order);
    - ``solver``: use the endgame oracle; ``tree_empties`` / ``root_empties``: from how
      many empty squares it solves inside the tree / at the root, ``root_wld_empties`` from
      how many the root is solved win/draw/loss first (a won or drawn root is played at
      once; 0 or at most ``root_empties``: never), ``tree_nodes`` /
      ``root_nodes`` its node budgets (``None``: :class:`~engine.reversi.endgame.oracle.ReversiOracle`'s
      defaults for the kernel in use);
    - ``tree``: the tree's :class:`~engine.search.mcts.TreeSettings`;
    - ``native``: on 8x8 with the pattern leaves and the C kernel, search with the tree in C
      (:mod:`engine.reversi.tree.native`, the same algorithm one leaf at a time, many times
      faster) instead of the generic tree.

    Set by key from text with :meth:`with_values` (``tree.exploration`` or ``exploration``).
    """

    leaves: str = "auto"
    eval_depth: int | None = None
    weights: str = ""
    playouts_per_leaf: int | None = None
    order: bool = True
    solver: bool = True
    tree_empties: int | None = None
    root_empties: int | None = None
    root_wld_empties: int | None = None
    tree_nodes: int | None = None
    root_nodes: int | None = None
    tree: TreeSettings = TREE
    native: bool = True

    def __post_init__(self) -> None:
        for name in ("playouts_per_leaf", "tree_empties", "root_empties", "root_wld_empties", "tree_nodes",
                     "root_nodes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} must be a non-negative integer or None, got {value!r}")
        if self.leaves not in LEAVES:
            raise ValueError(f"leaves must be one of {', '.join(LEAVES)}, got {self.leaves!r}")
        depth = self.eval_depth
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= 8):
            raise ValueError(f"eval_depth must be an integer from 0 to 8 or None, got {depth!r}")
        if self.playouts_per_leaf == 0:
            raise ValueError("playouts_per_leaf must be >= 1")

    @classmethod
    def preset(cls, mode: str = "uct") -> "ReversiOptions":
        """The preset of a mode name (only ``uct``)."""
        if str(mode).strip().lower() not in MODES:
            raise ValueError(f"unknown mode {mode!r}: use {' or '.join(MODES)}")
        return cls()

    def with_values(self, values: dict[str, Any]) -> "ReversiOptions":
        """A copy with ``values`` set by key (text converted to the field's type);
        ``ValueError`` names a bad key or value and lists the keys."""
        return keyed.with_values(self, values)
