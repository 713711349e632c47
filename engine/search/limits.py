"""Values handed between the protocol layer and the search: limits in, results out."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """When a search must stop.  ``None`` means "no limit of this kind".

    - ``playouts``: random playouts (rollouts) summed over the search; a leaf
      valued by the static evaluation instead (guided mode) counts as the
      playouts it stands for (``rollouts_per_leaf``), so the limit works alike.
    - ``nodes``: tree nodes created in this search (once the tree is at its memory cap,
      each leaf valued without a node counts as one, so the limit still ends the search).
    - ``deadline``: an absolute ``time.monotonic()`` instant; the search returns
      within a few milliseconds of it.
    - ``max_tree_nodes``: cap on nodes held in the tree (memory); when reached the
      search stops growing the tree and keeps refining what it has.

    With no limit at all, a search runs until its ``stop`` event is set.
    """

    playouts: int | None = None
    nodes: int | None = None
    deadline: float | None = None
    max_tree_nodes: int | None = None

    @classmethod
    def movetime(cls, ms: float, **kw) -> "Limits":
        """Limits with a deadline ``ms`` milliseconds from now."""
        return cls(deadline=time.monotonic() + ms / 1000.0, **kw)


@dataclass
class SearchInfo:
    """A progress report from a running search (sent to an ``on_info`` callback).

    ``ranked`` is filled by searches that rank several root moves (multi-PV reports):
    the best moves so far, best first, each with its own line.
    """

    playouts: int
    nodes: int
    depth: int
    value: float
    pv: list[int]
    elapsed: float
    ranked: list["RootMove"] = field(default_factory=list)


@dataclass
class SearchResult:
    """What a search found.

    ``move`` is a compact index (``y * width + x``).  ``value`` is the expected
    score of ``move`` for the side to move, in [0, 1] (1 = win, 0.5 = draw).
    ``proven`` is ``"win"``, ``"loss"`` or ``"draw"`` when the solver proved the
    root result, else ``None``.  ``pv`` starts with ``move``.
    """

    move: int
    visits: int = 0
    value: float = 0.5
    pv: list[int] = field(default_factory=list)
    playouts: int = 0
    nodes: int = 0
    depth: int = 0
    elapsed: float = 0.0
    proven: str | None = None
    reason: str = ""


@dataclass
class RootMove:
    """One move of a searched position as the search saw it (for reports such as NBoard's
    hints), for the side to move there.

    ``value`` in [0, 1] (exact when ``proven``); ``visits`` the playouts through the move;
    ``proven`` ``"win"``, ``"loss"`` or ``"draw"`` when the solver proved the move's result;
    ``exact`` the game's exact final score for the side to move with best play after the
    move when it was solved (Reversi: the final disc differential), else ``None``; ``pv``
    starts with ``move``; ``depth`` how deep the search looked (plies).
    """

    move: int
    value: float = 0.5
    visits: float = 0.0
    proven: str | None = None
    exact: int | None = None
    pv: list[int] = field(default_factory=list)
    depth: int = 0
