"""The record of one game: what ``results.jsonl`` holds a line of, made in one place."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from referee.games.base import End, GameRules

__all__ = ["GameResult"]

#: Result fields that only some games have: left out of ``results.jsonl`` when unset.
_OPTIONAL_FIELDS = ("discs", "disc_diff", "foul")


@dataclass
class GameResult:
    """Everything known about one finished game (``to_json`` gives the ``results.jsonl`` object).

    ``first`` is 1 when engine1 played the first colour (X / black), 2 otherwise;
    ``winner`` is ``"engine1"``, ``"engine2"`` or ``None`` (draw / interrupted);
    ``moves`` lists every move as the game records it (``[x, y]`` for m,n,k, ``"f5"``
    or ``"pass"`` for Reversi), opening included (``opening`` = how many of them were
    placed by the referee); ``times_ms`` gives the think time of each (0 for the
    opening and forced passes); ``seed`` is the match's random-opening seed (``None``
    when the openings were not random).  ``game_type`` says which game it was;
    Reversi games add ``discs`` (black, white on the final board) and ``disc_diff``
    (black's score as GGF's ``RE`` gives it).  ``foul`` is true when the last of ``moves`` is
    the foul that lost the game (renju: black's stone on a forbidden point), which is not
    on the board: a replay stops before it.
    """

    game: int
    engine1: str
    engine2: str
    first: int
    winner: str | None
    termination: str
    reason: str
    moves: list
    times_ms: list[int]
    opening: int = 0
    width: int = 15
    height: int = 15
    win_length: int | None = 5
    rule: str | None = "freestyle"
    started: str = ""
    duration_s: float = 0.0
    messages: dict[str, list[str]] = field(default_factory=dict)
    seed: int | None = None
    game_type: str = "mnk"
    discs: list[int] | None = None
    disc_diff: int | None = None
    foul: bool | None = None
    #: Per-move referee overhead in seconds (reply received → next command sent); not serialised.
    overhead_s: list[float] = field(default_factory=list, repr=False)

    @property
    def score1(self) -> float:
        """Engine1's score: 1 win, 0.5 draw, 0 loss."""
        return 1.0 if self.winner == "engine1" else 0.0 if self.winner == "engine2" else 0.5

    def to_json(self) -> dict:
        d = asdict(self)
        d.pop("overhead_s")
        for key in _OPTIONAL_FIELDS:
            if d[key] is None:
                del d[key]
        return d

    @classmethod
    def of_game(cls, rules: GameRules, state: Any, end: End | None, *, game: int, engines: tuple[str, str],
                first: int, winner: str | None, termination: str, reason: str, times_ms: list[int],
                opening: int, started: str, **extra: Any) -> "GameResult":
        """The record of a game that ended in ``state`` (``end``: the rules' result, if any):
        its moves and the game's own fields (board, rule; Reversi's discs) from the rules."""
        fields = rules.result_fields(state, end)
        return cls(game=game, engine1=engines[0], engine2=engines[1], first=first, winner=winner,
                   termination=termination, reason=reason, moves=rules.records(state.history),
                   times_ms=times_ms, opening=opening, width=fields["width"], height=fields["height"],
                   win_length=fields["win_length"], rule=fields["rule"], game_type=fields["game_type"],
                   discs=fields.get("discs"), disc_diff=fields.get("disc_diff"), started=started, **extra)

    @classmethod
    def from_json(cls, obj: dict) -> "GameResult":
        """Rebuild a record from its ``results.jsonl`` object (unknown keys ignored)."""
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in obj.items() if k in known and k != "overhead_s"})
