"""The pluggable move-knowledge hook of the searcher.

The built-in knowledge of :mod:`engine.mnk.mcts` is cheap and exact: play an
immediate win, block the opponent's only immediate win, give up on a node
where the opponent has two, and consider only cells near existing stones on
large boards.  Anything smarter (threat-space search, pattern priors; see
``engine/mnk/threats.py``) plugs in here by implementing :class:`MoveKnowledge`
and passing it as ``EngineOptions(mode="guided", knowledge=...)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from .rules import GameConfig


@dataclass(frozen=True)
class Suggestion:
    """What a knowledge module says about one position.

    - ``forced``: a move that must be played; with ``proven_win`` the node is
      marked as a proven win for the side to move (e.g. a VCF was found) and
      ``forced`` becomes its only child.  Without it, ``forced`` becomes the
      only child but the node stays unproven.
    - ``moves``: replaces the candidate moves (each must be an empty cell);
      ``None`` keeps the searcher's own candidates.
    - ``priors``: one number per move of ``moves`` (or of the searcher's
      candidates when ``moves`` is ``None``); higher means "try earlier".
    """

    forced: int | None = None
    proven_win: bool = False
    moves: Sequence[int] | None = None
    priors: Sequence[float] | None = None


class MoveKnowledge(Protocol):
    """Interface of a move-knowledge module.

    ``suggest`` is called once per tree node, when its moves are first listed,
    unless its side to move has an immediate win or faces an immediate threat
    (those cases are handled by the searcher itself).  Exceptions it raises
    are counted and ignored (the searcher's defaults are used).  ``cells`` is the padded board (the layout of
    :class:`engine.mnk.rules.Board` ``.cells``); it must not be modified.
    ``candidates`` are the searcher's own candidate moves (compact indices).
    Return ``None`` to keep the searcher's defaults.
    """

    def suggest(
        self,
        config: GameConfig,
        cells: Sequence[int],
        to_move: int,
        candidates: Sequence[int],
    ) -> Suggestion | None: ...
