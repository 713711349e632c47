"""Sets of cells as Python ints, in centre-first order, and the cells near stones.

Bit ``b`` of a set stands for the cell of *centre rank* ``b`` (cells sorted by distance to
the centre, then by index), so reading a set's bits in order lists its cells centre-first.
That is the order in which the search tries moves that nothing else ranks.
"""

from __future__ import annotations

import numpy as np

from .rules import GameConfig


class CellSets:
    """Bitset tables of one configuration (built once per engine)."""

    def __init__(self, config: GameConfig, radius: int) -> None:
        self.config = config
        w, h = config.width, config.height
        area = config.area
        cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
        order = sorted(range(area), key=lambda m: ((m % w - cx) ** 2 + (m // w - cy) ** 2, m))
        self.cell_of_rank = np.array(order, dtype=np.intp)
        rank = [0] * area
        for r, m in enumerate(order):
            rank[m] = r
        #: the bit of each compact move
        self.bit = [1 << rank[m] for m in range(area)]
        #: every cell
        self.full = (1 << area) - 1
        self.nbytes = (area + 7) // 8
        #: cells within distance 1 of each cell, and within ``radius``
        self.near1 = [self._disc(m, 1) for m in range(area)]
        self.near2 = [self._disc(m, max(radius, 1)) for m in range(area)]

    def _disc(self, m: int, radius: int) -> int:
        cfg = self.config
        x0, y0 = cfg.xy(m)
        mask = 0
        for y in range(max(0, y0 - radius), min(cfg.height, y0 + radius + 1)):
            for x in range(max(0, x0 - radius), min(cfg.width, x0 + radius + 1)):
                mask |= self.bit[y * cfg.width + x]
        return mask

    def moves_of(self, mask: int) -> list[int]:
        """The cells of a set as compact moves, centre-first."""
        if not mask:
            return []
        raw = np.frombuffer(mask.to_bytes(self.nbytes, "little"), dtype=np.uint8)
        return self.cell_of_rank[np.flatnonzero(np.unpackbits(raw, bitorder="little"))].tolist()

    def mask_of(self, moves) -> int:
        """The set of some compact moves."""
        bit = self.bit
        mask = 0
        for m in moves:
            mask |= bit[m]
        return mask
