"""The games of a tournament: which engines meet, and one game number for every game.

A match of two engines is the tournament of one pairing.  With more engines every two of
them meet (a round-robin), or the first meets each of the others (``--gauntlet``); each
pairing plays ``settings.games`` games (``--games N`` times ``--rounds R``), numbered
within the pairing 1, 2, ... exactly as a two-engine match numbers its games: the pairing's
first engine plays the first colour in its odd games (``--first 2`` flips this), and games
``2j-1`` and ``2j`` share an opening with the colours swapped.  Every pairing plays the same
openings in the same order.

The tournament numbers its games once, across all pairings (the number that names the
game's files and its line in ``results.jsonl``): the first pair of games of every pairing,
then the second pair of every pairing, and so on, so the standings grow evenly as the
tournament goes.  With one pairing a game's number is its number in the pairing.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Sequence

from referee.match.settings import MatchSettings
from referee.play.job import GameJob
from referee.seats.spec import EngineSpec

__all__ = ["Tournament", "pairings_of"]

#: A side named in a game's texts: a game knows its engines as engine1 and engine2.
_SIDE = re.compile(r"\(engine([12])([,)])")


def pairings_of(engines: int, gauntlet: bool = False) -> tuple[tuple[int, int], ...]:
    """The pairings of ``engines`` engines (0-based indexes, the first-named engine first):
    every two of them, or with ``gauntlet`` the first against each of the others."""
    if engines < 2:
        raise ValueError("a match needs two engines")
    if gauntlet:
        return tuple((0, j) for j in range(1, engines))
    return tuple(combinations(range(engines), 2))


class Tournament:
    """The games between ``specs`` under ``settings`` (see the module docstring).

    A game's number ``g`` (1-based, below or at :attr:`total`) maps to its pairing ``k``
    (an index into :attr:`pairings`) and its number ``h`` within the pairing
    (:meth:`locate`); :meth:`job` gives the game as a job between the pairing's two engines.
    """

    def __init__(self, specs: Sequence[EngineSpec], settings: MatchSettings) -> None:
        self.specs = tuple(specs)
        self.settings = settings
        self.pairings = pairings_of(len(self.specs), settings.gauntlet)
        #: Games a pairing plays.
        self.per_pairing = settings.games
        self.total = len(self.pairings) * self.per_pairing

    @property
    def is_match(self) -> bool:
        """Two engines: a plain match, recorded and shown as matches always were."""
        return len(self.specs) == 2

    def locate(self, game: int) -> tuple[int, int]:
        """``(k, h)``: the pairing index and the number within the pairing of game ``game``."""
        if not 1 <= game <= self.total:
            raise ValueError(f"game {game} is not one of the {self.total} games")
        n, per = len(self.pairings), self.per_pairing
        block, rest = divmod(game - 1, 2 * n)
        if 2 * block + 1 == per:  # the last block of an odd count: one game a pairing
            return rest, 2 * block + 1
        k, second = divmod(rest, 2)
        return k, 2 * block + second + 1

    def game_of(self, k: int, h: int) -> int:
        """The tournament's number of game ``h`` of pairing ``k`` (the inverse of :meth:`locate`)."""
        block, second = divmod(h - 1, 2)
        size = min(2, self.per_pairing - 2 * block)  # games of this block a pairing plays
        return 2 * block * len(self.pairings) + k * size + second + 1

    def engines_of(self, game: int) -> tuple[int, int]:
        """The indexes of the two engines of game ``game``: its engine1, its engine2."""
        return self.pairings[self.locate(game)[0]]

    def partner(self, game: int) -> int | None:
        """The other game of ``game``'s colour-swapped pair (same pairing, same opening), if any."""
        k, h = self.locate(game)
        other = h + 1 if h % 2 else h - 1
        return self.game_of(k, other) if other <= self.per_pairing else None

    def first_of(self, game: int) -> int:
        """Which side of game ``game`` (1: its engine1) plays the first colour."""
        return self.settings.first_of(self.locate(game)[1])

    def opening_of(self, game: int) -> list[int]:
        """The opening of game ``game``: its pairing plays the tournament's openings in order."""
        return self.settings.opening_of(self.locate(game)[1])

    def record_fields(self, game: int) -> dict:
        """What a tournament adds to a game's ``results.jsonl`` line (nothing in a plain match):
        ``pairing`` (1-based), ``engine_numbers`` (engine1's and engine2's places on the command
        line, 1-based) and ``pairing_game`` (the game's number within its pairing)."""
        if self.is_match:
            return {}
        k, h = self.locate(game)
        i, j = self.pairings[k]
        return {"pairing": k + 1, "engine_numbers": [i + 1, j + 1], "pairing_game": h}

    def retag(self, game: int, text: str) -> str:
        """``text`` of game ``game`` (a verdict's reason, a move's side) with its sides called by their
        places in the tournament: ``(engine2)`` becomes ``(engine3)`` where engine 3 is its engine2."""
        if self.is_match:
            return text
        engines = self.engines_of(game)
        return _SIDE.sub(lambda m: f"(engine{engines[int(m.group(1)) - 1] + 1}{m.group(2)}", text)

    def job(self, game: int, about_wait: Sequence[bool]) -> GameJob:
        """Game ``game`` as a job (``about_wait[e]``: wait for engine ``e``'s name after its start)."""
        s = self.settings
        i, j = self.engines_of(game)
        return GameJob(game=game, specs=(self.specs[i], self.specs[j]), first=self.first_of(game), config=s.config,
                       tc=s.tc, opening=tuple(self.opening_of(game)), seed=s.seed if s.seeded else None,
                       about_wait=(about_wait[i], about_wait[j]), log_io=s.log_io and s.out_dir is not None,
                       adjudication=s.adjudication, mover_seed=s.seed)
