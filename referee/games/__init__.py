"""The games the referee adjudicates, each behind :class:`referee.games.base.GameRules`.

``mnk`` (Gomoku and its family, Gomocup engines) and ``reversi`` (NBoard engines);
:func:`rules_for` gives a configuration's rules.
"""

from __future__ import annotations

from typing import Any

from engine.mnk.board.rules import GameConfig
from engine.reversi.board.rules import ReversiConfig
from referee.games.base import End, GameRules, HumanInput, Illegal
from referee.games.mnk import MnkRules
from referee.games.reversi import ReversiRules

__all__ = ["rules_for", "GameRules", "Illegal", "HumanInput", "End", "GAME_TYPES"]

#: What ``referee --game`` offers.
GAME_TYPES = ("mnk", "reversi")


def rules_for(config: Any) -> GameRules:
    """The referee's rules of a game configuration (an m,n,k ``GameConfig`` or a ``ReversiConfig``)."""
    if isinstance(config, GameConfig):
        return MnkRules(config)
    if isinstance(config, ReversiConfig):
        return ReversiRules(config)
    raise TypeError(f"the referee knows no game {type(config).__name__}")
