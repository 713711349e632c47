"""The game interface: everything the search knows about a game.

A game plugs into the search (:class:`engine.search.mcts.MCTS`) through three small pieces, in the
spirit of OpenSpiel's state API:

- a :class:`GameState`: whose turn, the legal moves, apply / undo, terminal, the
  result, a hashable key, moves as text;
- an :class:`Evaluator`: the moves worth trying at a position, best first, with
  priors, and batched leaf values (random playouts, a static evaluation, ...);
- optionally an :class:`Oracle`: exact knowledge of a position (an immediate win, a
  threat solver, an endgame solver) that the search treats as a proof.

**Conventions, written once.**  Players are the ints ``1`` (moves first) and ``2``.
Moves are ints (a game that has a pass gives it a number of its own and lists it as a
legal move when it is the only one).  Every value is *for the side to move at the
position it describes*, in ``[0, 1]``: 1 a win, 0.5 a draw, 0 a loss.  An
:class:`Outcome` is likewise the proven result for the side to move.

Bad input through the interface (an illegal move, a move after the end, a malformed
position) raises :class:`GameError` with a message that says what was wrong, and
changes nothing.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Hashable, NamedTuple, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:  # numpy is not imported with the interface: the rules of a game need none
    import numpy as np


class GameError(ValueError):
    """Bad input through the game interface: an illegal move, a move after the end,
    an undo with nothing to undo, a malformed position or move text."""


class Outcome(enum.IntEnum):
    """A position's proven result for its side to move (``UNKNOWN``: not proven)."""

    UNKNOWN = 0
    WIN = 1
    LOSS = 2
    DRAW = 3

    @property
    def score(self) -> float:
        """The score of the outcome for the side to move (``UNKNOWN``: 0.5)."""
        return _OUTCOME_SCORE[self]

    @property
    def flipped(self) -> "Outcome":
        """The same result seen by the other player."""
        return _FLIP[self]

    @property
    def label(self) -> str | None:
        """``"win"``, ``"loss"``, ``"draw"``, or ``None`` when unknown."""
        return _LABEL[self]


_OUTCOME_SCORE = {Outcome.UNKNOWN: 0.5, Outcome.WIN: 1.0, Outcome.LOSS: 0.0, Outcome.DRAW: 0.5}
_FLIP = {Outcome.UNKNOWN: Outcome.UNKNOWN, Outcome.WIN: Outcome.LOSS, Outcome.LOSS: Outcome.WIN,
         Outcome.DRAW: Outcome.DRAW}
_LABEL = {Outcome.UNKNOWN: None, Outcome.WIN: "win", Outcome.LOSS: "loss", Outcome.DRAW: "draw"}


@runtime_checkable
class GameState(Protocol):
    """One position of a two-player, zero-sum, perfect-information game, mutable in place.

    The search plays moves with :meth:`apply` and takes them back with :meth:`undo` on
    its own :meth:`clone` of the position it is given; it never hands a state back.
    """

    @property
    def to_move(self) -> int:
        """The player to move, 1 or 2 (at a terminal position: who would move next)."""
        ...

    @property
    def history(self) -> Sequence[int]:
        """The moves played since the game's initial position, oldest first (the search
        reuses its tree when a new position's history extends the old root's)."""
        ...

    def legal_moves(self) -> list[int]:
        """Every legal move (empty once the game is over)."""
        ...

    def apply(self, move: int) -> None:
        """Play ``move`` for the side to move; :class:`GameError` if it is not legal
        (then nothing changes)."""
        ...

    def push(self, move: int) -> None:
        """:meth:`apply` for a move the caller knows to be legal, in a game it knows is not
        over: it may skip the checks and leave the move's result to the oracle (the search's
        hot path, as python-chess's ``push``).  Games with no faster way make it ``apply``."""
        ...

    def undo(self) -> None:
        """Take back the last move applied; :class:`GameError` when there is none."""
        ...

    def is_terminal(self) -> bool:
        """Is the game over?"""
        ...

    def returns(self) -> tuple[float, float]:
        """At a terminal position, the scores of players 1 and 2 (1 win, 0.5 draw, 0 loss)."""
        ...

    def key(self) -> Hashable:
        """A hashable value equal for equal positions (same stones, same side to move)."""
        ...

    def clone(self) -> "GameState":
        """An independent copy."""
        ...

    def move_to_text(self, move: int) -> str:
        """The move in the game's usual notation."""
        ...

    def text_to_move(self, text: str) -> int:
        """A move from the game's usual notation; :class:`GameError` when malformed."""
        ...


class Expansion(NamedTuple):
    """The moves the search tries at a position, best first (a tuple: one is made for every
    node the search expands).

    ``priors``, when given, has one non-negative number per move (only their ratios to
    the largest matter): the search adds a progressive bias that fades as a move gets
    visits.  ``complete`` says whether ``moves`` are all the legal moves; when they are
    not, and every one of them is proven lost, the search asks again with
    ``everything=True`` before it calls the position lost, so pruning never makes a
    false proof.  ``win_plies`` > 0 says that ``moves[0]`` wins by force within that many
    plies (knowledge that proves while it orders, such as a threat solver): the search
    records the proof.  A ``moves`` list becomes the search's own (do not keep it).
    """

    moves: Sequence[int]
    priors: Sequence[float] | None = None
    complete: bool = True
    win_plies: int = 0


class Verdict:
    """What an :class:`Oracle` knows of one position.

    - ``outcome``: the proven result for the side to move (``Outcome.UNKNOWN``: none);
    - ``plies``: with a proven win or loss, the plies to the end with best play;
    - ``moves``: the only moves worth searching, best first (a proven win lists the
      winning move first; a forced defence lists the defences); ``None``: the
      evaluator's expansion;
    - ``facts``: the game's own data about the position, handed back to the oracle for
      the children (games whose knowledge is incremental keep it here).
    """

    __slots__ = ("outcome", "plies", "moves", "facts")

    def __init__(self, outcome: Outcome = Outcome.UNKNOWN, plies: int = 0,
                 moves: Sequence[int] | None = None, facts: Any = None) -> None:
        self.outcome = outcome
        self.plies = plies
        self.moves = moves
        self.facts = facts

    def __repr__(self) -> str:
        return f"Verdict({self.outcome.name}, plies={self.plies}, moves={self.moves!r})"


class Evaluator(Protocol):
    """Leaf values and move ordering of a game, kept apart from the search.

    ``weight`` is how many playouts one leaf value stands for (the tree counts visits
    in playouts, so limits and the exploration constant mean the same whatever values
    the leaves).
    """

    weight: int

    def begin(self, root: GameState, deadline: float | None = None) -> None:
        """A search starts from ``root`` (an evaluator that snapshots leaves relative to the
        root keeps what it needs of it; most do nothing) and must end by ``deadline``
        (monotonic seconds, ``None``: no clock): an evaluator whose expansions can take
        milliseconds cuts their work short there, so that the search keeps its deadline."""
        ...

    def expand(self, state: GameState, verdict: Verdict | None, everything: bool = False) -> Expansion:
        """The moves to try at ``state`` (not terminal), best first; ``verdict`` is the
        oracle's for this position (or ``None``); ``everything``: all legal moves."""
        ...

    def leaf(self, state: GameState) -> Any:
        """What the evaluator needs of a leaf, taken now (the search then moves on)."""
        ...

    def values(self, leaves: Sequence[Any], rng: "np.random.Generator") -> Sequence[float]:
        """The value of each leaf for its side to move, in ``[0, 1]``."""
        ...


class Oracle(Protocol):
    """Exact knowledge a game may give the search (optional).

    When a game gives one, the oracle also decides terminal positions: its verdict on a
    finished game must be the game's result (the search then skips ``is_terminal`` and plays
    its moves with ``push``).
    """

    def verdict(self, state: GameState, parent: Verdict | None, move: int | None) -> Verdict:
        """The verdict on ``state``, reached by ``move`` from a position whose verdict was
        ``parent`` (both ``None`` at the root of a search)."""
        ...
