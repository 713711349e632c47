"""The Reversi engine's options: one frozen dataclass, settable by key from text.

Defaults measured by self-play and ``python -m engine.reversi bench`` (NOTES-reversi.md):
16 playouts a leaf played level with 32 and with 8; corner-first ordering, a prior bias
and an exploration constant of 1.2 were within the noise of 40-game matches, 0.5 worse.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from ..search.mcts import TreeSettings

#: The one preset's name (the search is UCT with random playouts and the endgame oracle).
MODES = ("uct",)


@dataclass(frozen=True)
class ReversiOptions:
    """How the Reversi engine searches.

    - ``playouts_per_leaf``: random games per leaf (the evaluator's weight; ``None``: 16
      with the C kernel, 4 with the Python one, some 500 times slower);
    - ``order``: corners-first move order with priors (else square order);
    - ``solver``: use the endgame oracle; ``tree_empties`` / ``root_empties``: from how
      many empty squares it solves inside the tree / at the root, ``tree_nodes`` /
      ``root_nodes`` its node budgets (``None``: :class:`~engine.reversi.evaluate.ReversiOracle`'s
      defaults for the kernel in use);
    - the rest is the tree's :class:`~engine.search.mcts.TreeSettings`.
    """

    playouts_per_leaf: int | None = None
    order: bool = True
    solver: bool = True
    tree_empties: int | None = None
    root_empties: int | None = None
    tree_nodes: int | None = None
    root_nodes: int | None = None
    exploration: float = 0.8
    prior_bias: float = 0.0
    widening: float = 0.0
    leaves_per_batch: int = 16
    max_tree_nodes: int = 300_000
    reuse_tree: bool = True

    def __post_init__(self) -> None:
        for name in ("playouts_per_leaf", "tree_empties", "root_empties", "tree_nodes", "root_nodes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} must be a non-negative integer or None, got {value!r}")
        if self.playouts_per_leaf == 0:
            raise ValueError("playouts_per_leaf must be >= 1")
        self.tree_settings()  # checks the tree's own fields

    @classmethod
    def preset(cls, mode: str = "uct") -> "ReversiOptions":
        """The preset of a mode name (only ``uct``)."""
        if str(mode).strip().lower() not in MODES:
            raise ValueError(f"unknown mode {mode!r}: use {' or '.join(MODES)}")
        return cls()

    def tree_settings(self) -> TreeSettings:
        """The generic tree's settings."""
        return TreeSettings(exploration=self.exploration, widening=self.widening, prior_bias=self.prior_bias,
                            leaves_per_batch=self.leaves_per_batch, max_tree_nodes=self.max_tree_nodes,
                            reuse_tree=self.reuse_tree)

    def with_values(self, values: dict[str, Any]) -> "ReversiOptions":
        """A copy with ``values`` set by key (text converted to the field's type);
        ``ValueError`` names a bad key or value and lists the keys."""
        kinds = {name: kind for name, kind, _ in option_keys()}
        changes = {}
        for key, raw in values.items():
            name = str(key).strip().replace("-", "_")
            if name not in kinds:
                raise ValueError(f"unknown option {key!r}; valid keys: {', '.join(sorted(kinds))}")
            changes[name] = _convert(name, raw, kinds[name])
        try:
            return replace(self, **changes)
        except (TypeError, ValueError) as exc:
            raise ValueError(str(exc)) from None


def option_keys() -> list[tuple[str, str, Any]]:
    """Every settable key as ``(key, type name, default)``."""
    defaults = ReversiOptions()
    out = []
    for f in fields(ReversiOptions):
        value = getattr(defaults, f.name)
        kind = "int|none" if value is None else type(value).__name__
        out.append((f.name, kind, value))
    return out


def _convert(key: str, raw: Any, kind: str) -> Any:
    """``raw`` (text or a value) as ``kind``; ``ValueError`` says what was expected."""
    if not isinstance(raw, str):
        if kind == "float" and isinstance(raw, int) and not isinstance(raw, bool):
            return float(raw)
        return raw
    text = raw.strip().lower()
    try:
        if kind == "bool":
            if text in ("true", "1", "yes", "on"):
                return True
            if text in ("false", "0", "no", "off"):
                return False
            raise ValueError
        if kind in ("int", "int|none"):
            return None if kind == "int|none" and text == "none" else int(text)
        if kind == "float":
            return float(text)
    except ValueError:
        pass
    want = {"bool": "true or false", "int": "an integer", "int|none": "an integer or none", "float": "a number"}
    raise ValueError(f"{key}: want {want.get(kind, kind)}, got {raw!r}")
