"""Line shapes: the m,n,k engine's learned knowledge of a position (value and move priors).

For every cell, direction and player the **line code** is the content of the eight cells
around the cell along the line (four each side), each one empty, the player's own stone, or
blocked (an opponent stone or off the board): a number below ``3 ** 8``.  A table made from
the rules (:func:`line_classes`) names the **shape** the player would make there by playing the
cell, one of :data:`CLASS_NAMES`: a five; a four with two completions (``F4``) or one
(``B4``); a three that can become either (``F3``/``B3``); and so on down to a line with no
room for K (``dead``).  A cell's four shapes for a player combine into its **combination**
(the best two shapes, which is what tells a four-three or a double three from a single
threat).

Each empty cell then has, for each player, a **feature vector** (:data:`FEATURES` entries):
a one-hot of its combination and the counts of its four shapes.  From them, with weights
that :mod:`lab.mnk_fit` learns from the project's own games and searches:

- the **move prior** of a cell for the side to move is ``exp`` of a logit, the attack
  weights on the mover's features plus the defence weights on the opponent's (what the
  opponent would make there), plus a learned weight per line code and direction, again
  for both (a pattern table over the :data:`LINE_CODES` codes that differ up to
  mirroring, which tells shapes of one class apart);
- the **value** for the side to move is ``sigmoid`` of a logit, the tempo plus, over every
  empty cell, the "mine" weights on the mover's features and the "theirs" weights on the
  opponent's.

Both are sums of table lookups, so the C tree keeps them up to date as stones are placed and
taken (engine/mnk/tree/_tree_knowledge.h); this module is the Python side and the reference
they are tested against (tests/engine/test_shapes.py).  Which weights a board uses is
:func:`weights_for`'s choice: the ones trained for its size, K and rule when they ship,
else the general ones (docs/TUNING.md lists them).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Sequence

import numpy as np

from ..board.rules import GameConfig, Rule

#: Cells seen each side of a cell along a line.
RADIUS = 4
#: Line codes: each of the 2 * RADIUS cells is empty (0), own (1) or blocked (2).
CODES = 3 ** (2 * RADIUS)
#: The shapes a move can make in one line, weakest first.
CLASS_NAMES = ("dead", "B1", "F1", "B2", "F2", "B3", "F3", "B4", "F4", "five")
CLASSES = len(CLASS_NAMES)
FIVE = CLASSES - 1
#: A cell's combination: best shape * CLASSES + second best.
COMBOS = CLASSES * CLASSES
#: Features of a cell for one player: the combination one-hot, then the shape counts.
FEATURES = COMBOS + CLASSES
#: The line offsets of a code's digits (digit i is worth 3 ** i).
OFFSETS = tuple(range(-RADIUS, 0)) + tuple(range(1, RADIUS + 1))
_STEPS = ((1, 0), (0, 1), (1, 1), (-1, 1))  # the directions of GameConfig.directions, as (dx, dy)
#: Line codes up to mirroring (the priors' pattern tables have one weight each).
LINE_CODES = 3321


# ---------------------------------------------------------------------------- shapes
@functools.lru_cache(maxsize=1)
def line_code_index() -> np.ndarray:
    """Index of every line code among the codes that differ up to mirroring (a code and its
    mirror image share one): intp, one per code, below :data:`LINE_CODES`."""
    digits = np.array([[(c // 3 ** i) % 3 for i in range(2 * RADIUS)] for c in range(CODES)])
    mirror = (digits[:, ::-1] * 3 ** np.arange(2 * RADIUS)).sum(axis=1)
    _, index = np.unique(np.minimum(np.arange(CODES), mirror), return_inverse=True)
    return index.astype(np.intp)


@functools.lru_cache(maxsize=8)
def line_classes(k: int, exact: bool) -> np.ndarray:
    """Shape of every line code for a player who plays the centre cell (uint8, one per code).

    A five is a run of K or more own stones through the centre (``exact``: exactly K, as far
    as the eight cells show).  Short of that the shape is set by the empty cells that would
    complete one: two or more make ``F4``, one ``B4``.  Short of a four, a shape is the best
    one a further own stone on the line makes, one step weaker: an ``F4`` within reach is an
    ``F3``, a ``B4`` a ``B3``, and so on to ``F1``/``B1``; a line with no room for K is dead.
    Nothing here is tuned: the learned weights say what the shapes are worth.
    """
    centre = RADIUS

    def five(line: tuple[int, ...]) -> bool:
        lo = centre
        while lo > 0 and line[lo - 1] == 1:
            lo -= 1
        hi = centre
        while hi < 2 * RADIUS and line[hi + 1] == 1:
            hi += 1
        run = hi - lo + 1
        return run == k if exact else run >= k

    @functools.lru_cache(maxsize=None)
    def shape(line: tuple[int, ...]) -> int:
        if five(line):
            return FIVE
        empties = [i for i, v in enumerate(line) if v == 0]
        completions = sum(five(line[:i] + (1,) + line[i + 1:]) for i in empties)
        if completions:
            return 8 if completions >= 2 else 7
        best = max((shape(line[:i] + (1,) + line[i + 1:]) for i in empties), default=0)
        return best - 2 if best >= 3 else 0

    out = np.zeros(CODES, dtype=np.uint8)
    for code in range(CODES):
        digits = [(code // 3 ** i) % 3 for i in range(2 * RADIUS)]
        out[code] = shape(tuple(digits[:RADIUS]) + (1,) + tuple(digits[RADIUS:]))
    return out


def player_classes(config: GameConfig) -> tuple[np.ndarray, np.ndarray]:
    """The shape tables of black and white: exact fives under the exact rule and for black
    under renju, K or more otherwise (caro's blocked fives are left to the weights)."""
    k = config.win_length
    rule = config.rule
    return line_classes(k, rule in (Rule.EXACT, Rule.RENJU)), line_classes(k, rule is Rule.EXACT)


# ---------------------------------------------------------------------------- weights
@dataclass(frozen=True)
class ShapeWeights:
    """Learned weights (``FEATURES`` long; the ``_lines`` tables ``LINE_CODES`` long, see the
    module doc) and what they were trained for."""

    attack: tuple[float, ...]
    defence: tuple[float, ...]
    attack_lines: tuple[float, ...]
    defence_lines: tuple[float, ...]
    mine: tuple[float, ...]
    theirs: tuple[float, ...]
    tempo: float
    trained_for: str

    def to_json(self, **about) -> str:
        """The weights file's text (``about``: how they were made, kept for the reader)."""
        data = {"trained_for": self.trained_for, **about, "tempo": round(self.tempo, 5)}
        for name in _TABLES:
            data[name] = [round(v, 4) for v in getattr(self, name)]
        return json.dumps(data, indent=0).replace(",\n", ",") + "\n"

    @classmethod
    def from_json(cls, text: str) -> "ShapeWeights":
        """Weights from a weights file's text; ValueError when it is not one."""
        data = json.loads(text)
        missing = [name for name in (*_TABLES, "tempo", "trained_for") if name not in data]
        if missing:
            raise ValueError(f"shape weights: no {', '.join(missing)}")
        parts = {name: tuple(float(v) for v in data[name]) for name in _TABLES}
        for name, part in parts.items():
            if len(part) != (LINE_CODES if name.endswith("_lines") else FEATURES):
                raise ValueError(f"shape weights: {name} has {len(part)} entries")
        return cls(**parts, tempo=float(data["tempo"]), trained_for=str(data["trained_for"]))

    @classmethod
    def zero(cls) -> "ShapeWeights":
        """All weights 0 (every move and position alike): a fit's starting point."""
        return cls(**{name: (0.0,) * (LINE_CODES if name.endswith("_lines") else FEATURES) for name in _TABLES},
                   tempo=0.0, trained_for="")


_TABLES = ("attack", "defence", "attack_lines", "defence_lines", "mine", "theirs")


def weights_name(config: GameConfig) -> str:
    """The name weights trained for ``config`` ship under, e.g. ``15x15-k5-freestyle``."""
    return f"{config.width}x{config.height}-k{config.win_length}-{config.rule.value}"


#: The weights used where none were trained for the board.
GENERAL = "15x15-k5-freestyle"


@functools.lru_cache(maxsize=16)
def _load(name: str) -> ShapeWeights | None:
    try:
        text = resources.files(__package__).joinpath("data", f"shapes-{name}.json").read_text()
    except (FileNotFoundError, OSError):
        return None
    return ShapeWeights.from_json(text)


def weights_for(config: GameConfig) -> ShapeWeights:
    """The weights trained for ``config``'s size, K and rule when they ship, else :data:`GENERAL`."""
    found = _load(weights_name(config))
    if found is None:
        found = _load(GENERAL)
    if found is None:
        raise RuntimeError(f"engine/mnk/knowledge/data/shapes-{GENERAL}.json is missing")
    return found


# ---------------------------------------------------------------------------- features
class ShapeBoard:
    """Line codes, shapes and features of positions of one configuration (no state between calls)."""

    def __init__(self, config: GameConfig, weights: ShapeWeights | None = None) -> None:
        self.config = config
        self.weights = weights if weights is not None else weights_for(config)
        w, h = config.width, config.height
        area = config.area
        # Neighbours along each line, as compact cells, with `area` standing for off the board
        # (the code sees the edge as a wall; a line leaves a rectangle once, so a cell past the
        # edge has every cell beyond it off the board too).
        nbr = np.full((area, 4, 2 * RADIUS), area, dtype=np.intp)
        for m in range(area):
            x, y = m % w, m // w
            for d, (dx, dy) in enumerate(_STEPS):
                for i, off in enumerate(OFFSETS):
                    xx, yy = x + off * dx, y + off * dy
                    if 0 <= xx < w and 0 <= yy < h:
                        nbr[m, d, i] = yy * w + xx
        self.neighbours = nbr
        self.pad = np.array(config.pad, dtype=np.intp)  # compact cell -> padded cell
        self.powers = 3 ** np.arange(2 * RADIUS, dtype=np.int64)
        black, white = player_classes(config)
        self.classes = (None, black, white)
        # Cell value (0 empty, 1, 2, 3 off the board) -> code digit, for each player.
        self.digit = (None, np.array([0, 1, 2, 2], dtype=np.int64), np.array([0, 2, 1, 2], dtype=np.int64))
        ws = self.weights
        self.attack, self.defence = np.array(ws.attack), np.array(ws.defence)
        self.mine, self.theirs = np.array(ws.mine), np.array(ws.theirs)
        # The pattern tables by line code (each code looks up its mirror class's weight).
        lines = line_code_index()
        self.attack_lines = np.array(ws.attack_lines)[lines]
        self.defence_lines = np.array(ws.defence_lines)[lines]

    def _extended(self, boards: np.ndarray) -> np.ndarray:
        """Boards (B, area) with a column of 3 appended for the off-board neighbour."""
        boards = np.asarray(boards)
        return np.concatenate([boards, np.full((boards.shape[0], 1), 3, dtype=boards.dtype)], axis=1)

    def codes(self, boards: np.ndarray, player: int, cells: np.ndarray | None = None) -> np.ndarray:
        """Line codes (B, cells, 4) of ``player`` at ``cells`` (all by default) of compact ``boards``."""
        ext = self._extended(boards)
        nbr = self.neighbours if cells is None else self.neighbours[np.asarray(cells, dtype=np.intp)]
        return (self.digit[player][ext[:, nbr]] * self.powers).sum(axis=3)

    def shapes(self, boards: np.ndarray, player: int, cells: np.ndarray | None = None) -> np.ndarray:
        """Shapes (B, cells, 4) of ``player`` at ``cells`` (all by default) of compact ``boards``."""
        return self.classes[player][self.codes(boards, player, cells)]

    @staticmethod
    def feature_index(shapes: np.ndarray) -> np.ndarray:
        """Feature indices (..., 5) of cells with ``shapes`` (..., 4): the combination, then
        one shape index per direction (each counts once)."""
        s = np.sort(shapes, axis=-1)
        combo = s[..., 3].astype(np.intp) * CLASSES + s[..., 2]
        return np.concatenate([combo[..., None], COMBOS + shapes.astype(np.intp)], axis=-1)

    def prior_logits(self, boards: np.ndarray, mover: int, cells: Sequence[int]) -> np.ndarray:
        """Prior logits (B, len(cells)) of the mover playing each of the compact ``cells``."""
        cells = np.asarray(cells, dtype=np.intp)
        own = self.codes(boards, mover, cells)
        opp = self.codes(boards, 3 - mover, cells)
        return (self.attack[self.feature_index(self.classes[mover][own])].sum(axis=-1)
                + self.defence[self.feature_index(self.classes[3 - mover][opp])].sum(axis=-1)
                + self.attack_lines[own].sum(axis=-1) + self.defence_lines[opp].sum(axis=-1))

    def value_logits(self, boards: np.ndarray, movers: np.ndarray) -> np.ndarray:
        """Value logits for the side to move of each of ``boards`` (B, area)."""
        boards = np.asarray(boards)
        movers = np.asarray(movers)
        empty = boards == 0
        out = np.full(boards.shape[0], self.weights.tempo)
        for p in (1, 2):
            idx = self.feature_index(self.shapes(boards, p))
            mine = np.where(empty, self.mine[idx].sum(axis=-1), 0.0).sum(axis=1)
            theirs = np.where(empty, self.theirs[idx].sum(axis=-1), 0.0).sum(axis=1)
            out += np.where(movers == p, mine, theirs)
        return out

    def values(self, boards: np.ndarray, movers: np.ndarray) -> np.ndarray:
        """Value in (0, 1) of each board for its side to move."""
        return 1.0 / (1.0 + np.exp(-self.value_logits(boards, movers)))

    def features(self, boards: np.ndarray, player: int) -> np.ndarray:
        """Summed features (B, FEATURES) of ``player`` over the empty cells (the value's inputs)."""
        boards = np.asarray(boards)
        idx = self.feature_index(self.shapes(boards, player))
        out = np.zeros((boards.shape[0], FEATURES))
        rows = np.broadcast_to(np.arange(boards.shape[0])[:, None, None], idx.shape)
        np.add.at(out, (rows[boards == 0], idx[boards == 0]), 1.0)
        return out


@functools.lru_cache(maxsize=32)
def shape_board(config: GameConfig) -> ShapeBoard:
    """The shared :class:`ShapeBoard` of ``config`` with its shipped weights."""
    return ShapeBoard(config)
