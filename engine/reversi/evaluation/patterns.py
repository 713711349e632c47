"""The 8x8 pattern evaluation: the final disc differential predicted from pattern weights.

In the Logistello / Edax tradition: a position is read through a fixed set of square
patterns (edges with their X-squares, corner 3x3 and 2x5 blocks, rows, diagonals); each
pattern shape has one table of weights, indexed by the base-3 configuration of its
squares (0 empty, 1 the side to move's disc, 2 the opponent's), shared by every one of the
shape's placements under the board's eight symmetries.  Each game phase (four empty
squares wide) has its own tables, plus weights for the side to move's and the opponent's
mobility and a constant.  The sum, in :data:`SCALE`-ths of a disc, predicts the final disc
differential for the side to move.

Everything is integer arithmetic, so the C kernel (``_reversicore.evaluate``) and
:func:`evaluate_python` give exactly the same numbers (``tests/engine/test_reversi_patterns.py``).
The C kernel receives the placements from :func:`instances` when the weights are loaded,
so the pattern set is written only here.

The weights are fitted by ``lab/reversi_train.py`` from this project's own games and
solver; the shipped file is ``engine/reversi/evaluation/data/eval8.npz`` (its ``meta`` holds the
version and the command that produced it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .. import kernel
from ..board.bitboard import final_differential, geometry

#: The evaluation's board side (other sizes use random playouts).
SIDE = 8
#: Units of the evaluation: 1/SCALE of a disc.
SCALE = 128
#: Empty squares a phase spans; phase = (empties - 1) // PHASE_WIDTH (0 for a full board).
PHASE_WIDTH = 4
PHASES = (SIDE * SIDE - 4 + PHASE_WIDTH - 1) // PHASE_WIDTH
#: Extra weights after the pattern tables: own mobility, opponent mobility, constant.
EXTRAS = 3
#: The shipped weights.
DEFAULT_PATH = Path(__file__).with_name("data") / "eval8.npz"

#: The pattern shapes: (name, squares as (row, col) of one placement).
SHAPES: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
    ("edge_x", tuple((0, c) for c in range(8)) + ((1, 1), (1, 6))),
    ("corner3x3", tuple((r, c) for r in range(3) for c in range(3))),
    ("corner2x5", tuple((r, c) for r in range(2) for c in range(5))),
    ("row2", tuple((1, c) for c in range(8))),
    ("row3", tuple((2, c) for c in range(8))),
    ("row4", tuple((3, c) for c in range(8))),
    ("diag8", tuple((i, i) for i in range(8))),
    ("diag7", tuple((i, i + 1) for i in range(7))),
    ("diag6", tuple((i, i + 2) for i in range(6))),
    ("diag5", tuple((i, i + 3) for i in range(5))),
    ("diag4", tuple((i, i + 4) for i in range(4))),
)

_SYMMETRIES = (
    lambda r, c: (r, c), lambda r, c: (c, r), lambda r, c: (7 - r, c), lambda r, c: (r, 7 - c),
    lambda r, c: (7 - r, 7 - c), lambda r, c: (c, 7 - r), lambda r, c: (7 - c, r), lambda r, c: (7 - c, 7 - r),
)


@lru_cache(maxsize=1)
def instances() -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every placement of every shape: ``(table offset, squares)``, squares as bit
    indices ``row * 8 + col`` in the order of the shape's base-3 digits (most
    significant first).  A symmetry that maps a shape onto squares it already covers adds
    nothing (so an edge counts once, not once each way)."""
    out = []
    offset = 0
    for _, squares in SHAPES:
        seen: set[frozenset[int]] = set()
        for sym in _SYMMETRIES:
            placed = tuple(r * 8 + c for r, c in (sym(r, c) for r, c in squares))
            if frozenset(placed) in seen:
                continue
            seen.add(frozenset(placed))
            out.append((offset, placed))
        offset += 3 ** len(squares)
    return tuple(out)


@lru_cache(maxsize=1)
def tie_map() -> np.ndarray:
    """For every pattern weight, the index of the weight it equals: a shape that a
    symmetry maps onto itself (an edge read from either end, a corner block across its
    diagonal) sees the same configuration through both readings, so the pipeline fits
    one weight for both and the evaluation is exactly symmetric."""
    size = table_size() - EXTRAS
    canon = np.arange(size, dtype=np.int64)
    offset = 0
    for _, squares in SHAPES:
        placed = [r * 8 + c for r, c in squares]
        n = len(placed)
        codes = np.arange(3 ** n, dtype=np.int64)
        digits = [(codes // 3 ** (n - 1 - j)) % 3 for j in range(n)]  # most significant first
        best = codes.copy()
        for sym in _SYMMETRIES:
            image = [r * 8 + c for r, c in (sym(r, c) for r, c in squares)]
            if set(image) != set(placed):
                continue
            # digit j of the image reading is the digit of the square image[j] in the base reading
            perm = [placed.index(sq) for sq in image]
            other = np.zeros_like(codes)
            for j in range(n):
                other = 3 * other + digits[perm[j]]
            best = np.minimum(best, other)
        canon[offset:offset + 3 ** n] = offset + best
        offset += 3 ** n
    return canon


def table_size() -> int:
    """Weights of one phase: every shape's table, then the :data:`EXTRAS`."""
    return sum(3 ** len(s) for _, s in SHAPES) + EXTRAS


def phase_of(empties: int) -> int:
    """The phase of a position with ``empties`` empty squares."""
    return min(PHASES - 1, max(0, (empties - 1) // PHASE_WIDTH))


def indices(p: int, o: int) -> list[int]:
    """The weight index of every placement for ``p`` to move against ``o`` (one phase's
    table; the extras not included)."""
    out = []
    for offset, squares in instances():
        k = 0
        for sq in squares:
            k = 3 * k + ((p >> sq) & 1) + 2 * ((o >> sq) & 1)
        out.append(offset + k)
    return out


def indices_batch(p: np.ndarray, o: np.ndarray) -> np.ndarray:
    """:func:`indices` of many positions at once (uint64 arrays in, ``(N, placements)``
    int32 out): the training pipeline's feature matrix."""
    p = np.asarray(p, dtype=np.uint64)
    o = np.asarray(o, dtype=np.uint64)
    inst = instances()
    out = np.empty((len(p), len(inst)), dtype=np.int32)
    one = np.uint64(1)
    for j, (offset, squares) in enumerate(inst):
        k = np.zeros(len(p), dtype=np.int64)
        for sq in squares:
            s = np.uint64(sq)
            k = 3 * k + ((p >> s) & one).astype(np.int64) + 2 * ((o >> s) & one).astype(np.int64)
        out[:, j] = offset + k
    return out


@dataclass(frozen=True)
class Weights:
    """The evaluation's weights: ``table`` int16 ``(PHASES, table_size())``, and what
    produced them (``meta``: version, command, data)."""

    table: np.ndarray
    meta: dict

    @property
    def version(self) -> str:
        return str(self.meta.get("version", "?"))

    def save(self, path: Path | str) -> None:
        """Write the weights (compressed numpy archive; unused entries are zeros)."""
        np.savez_compressed(path, table=self.table.astype(np.int16), meta=np.array(json.dumps(self.meta)))

    @classmethod
    def load(cls, path: Path | str) -> "Weights":
        """Read weights written by :meth:`save`; ``ValueError`` when they do not fit the
        pattern set."""
        with np.load(path) as data:
            table = np.array(data["table"], dtype=np.int16)
            meta = json.loads(str(data["meta"]))
        if table.shape != (PHASES, table_size()):
            raise ValueError(f"{path}: weights of shape {table.shape}, the patterns need {(PHASES, table_size())}")
        return cls(table, meta)

    @classmethod
    def zeros(cls, meta: dict | None = None) -> "Weights":
        """All-zero weights (the pipeline's start)."""
        return cls(np.zeros((PHASES, table_size()), dtype=np.int16), dict(meta or {}))


def evaluate_python(weights: Weights, p: int, o: int) -> int:
    """The evaluation of ``p`` to move against ``o`` in 1/:data:`SCALE` discs; a finished
    game is its exact result (the C kernel's ``evaluate`` computes the same integer)."""
    geo = geometry(SIDE)
    mp, mo = geo.moves(p, o).bit_count(), geo.moves(o, p).bit_count()
    if mp == 0 and mo == 0:
        return SCALE * final_differential(p, o, 64)
    w = weights.table[phase_of(64 - (p | o).bit_count())]
    total = sum(int(w[i]) for i in indices(p, o))
    d = len(w)
    return total + int(w[d - 3]) * mp + int(w[d - 2]) * mo + int(w[d - 1])


def search_python(weights: Weights, p: int, o: int, depth: int) -> tuple[int, int]:
    """Negamax to ``depth`` plies (a pass is not a ply) with the evaluation at the leaves:
    ``(value for p in 1/SCALE discs, best move)`` -- the best move 64 for a pass, -1 when
    the game is over or ``depth`` is 0.  The C kernel's ``eval_search`` finds the same
    value (alpha-beta changes the work, not the value)."""
    geo = geometry(SIDE)
    if depth <= 0:
        return evaluate_python(weights, p, o), -1
    m = geo.moves(p, o)
    if not m:
        if not geo.moves(o, p):
            return SCALE * final_differential(p, o, 64), -1
        return -search_python(weights, o, p, depth)[0], 64
    best, best_move = None, -1
    while m:
        x = m & -m
        m ^= x
        sq = x.bit_length() - 1
        f = geo.flips(p, o, sq)
        v = -search_python(weights, o ^ f, p | f | x, depth - 1)[0]
        if best is None or v > best:
            best, best_move = v, sq
    return best, best_move


class PatternEval:
    """The loaded evaluation, in C when the kernel is built, else in Python (the same
    values).  One per process is enough: :func:`default` keeps the shipped one."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self._core = kernel.native()
        #: the kernel's copy of the weights (``None`` in Python)
        self.handle = None
        if self._core is not None:
            self.handle = self._core.eval_load(weights.table.astype(np.int16).tobytes(), PHASES, table_size(),
                                               PHASE_WIDTH, list(instances()))

    def evaluate(self, p: int, o: int) -> int:
        """One position, ``p`` to move, in 1/:data:`SCALE` discs."""
        if self._core is not None:
            return self._core.evaluate(self.handle, p, o)
        return evaluate_python(self.weights, p, o)

    def search(self, p: int, o: int, depth: int) -> int:
        """The value for ``p`` of a ``depth``-ply search on the evaluation."""
        if self._core is not None:
            return self._core.eval_search(self.handle, p, o, depth)[0]
        return search_python(self.weights, p, o, depth)[0]

    def leaves(self, leaves, depth: int = 0) -> list[int]:
        """The values of ``(black, white, to_move)`` leaves, each for its side to move,
        searched ``depth`` plies (0: the evaluation)."""
        if self._core is not None:
            return self._core.eval_leaves(self.handle, leaves, depth)
        return [search_python(self.weights, *((b, w) if t == 1 else (w, b)), depth)[0] for b, w, t in leaves]

    def moves(self, p: int, o: int, depth: int = 1) -> list[tuple[int, int]]:
        """``(move, value for p)`` of every legal move of ``p``, in square order, each
        child searched ``depth - 1`` plies."""
        if self._core is not None:
            return self._core.eval_moves(self.handle, p, o, depth)
        geo = geometry(SIDE)
        out = []
        m = geo.moves(p, o)
        while m:
            x = m & -m
            m ^= x
            sq = x.bit_length() - 1
            f = geo.flips(p, o, sq)
            out.append((sq, -search_python(self.weights, o ^ f, p | f | x, depth - 1)[0]))
        return out


@lru_cache(maxsize=1)
def default() -> PatternEval | None:
    """The shipped evaluation, loaded once (``None`` when the file is missing)."""
    if not DEFAULT_PATH.exists():
        return None
    return load(DEFAULT_PATH)


@lru_cache(maxsize=4)
def load(path: Path | str) -> PatternEval:
    """The evaluation of a weights file, loaded once per path."""
    return PatternEval(Weights.load(path))
