"""Time and memory control: the manager's limits in, a per-move :class:`Limits` out.

Everything that turns Gomocup's ``timeout_turn``, ``timeout_match``,
``time_left`` and ``max_memory`` into a deadline and a tree cap lives here, so
the margins are written down once; and so does NBoard's: its ``set depth`` level
becomes a time a move (:func:`level_turn_ms`), the game clock of a GGF record
(``TI`` less the side's move times) is a match clock split over the moves to go
(half the empty squares, as on an m,n,k board), both through :func:`plan_move`.  The functions are pure: the caller passes
the arrival time of the command (``time.monotonic()`` seconds) and gets back an
absolute deadline anchored to it, so time spent parsing, waiting for an import
or queueing a command is charged against the move, as the manager's clock does.

Margins (all documented constants below):

- ``TURN_MARGIN_MS`` + ``TURN_MARGIN_FRACTION`` of the turn limit are kept
  back from ``timeout_turn`` for what happens after the search: the search's
  own overshoot past its deadline, formatting, the pipe and the manager's
  scheduling.
- From the match clock a move gets at most ``1 / moves_to_go`` of what is
  left after ``MATCH_SAFETY_FRACTION`` of it and ``MATCH_RESERVE_PER_MOVE_MS``
  per future move are set aside for latency, and never more than
  ``MATCH_MAX_FRACTION`` of it; so the clock decays geometrically and never
  runs out while any time is left.
- Below ``INSTANT_BUDGET_MS`` the move is made "at once": the deadline is the
  arrival time itself and the search returns whatever it has.
- Each plan also has a *hard* deadline, when the move becomes late
  (``timeout_turn`` itself, at least ``INSTANT_HARD_MS``; under a match clock
  alone, ``MATCH_OVERRUN_MS`` past the budget but never more than half the time
  left).  The protocol's watchdog plays an instant move if the search has not
  returned by then.
- Memory: ``max_memory`` minus ``BASE_MEMORY_BYTES``, divided by the measured
  ``NODE_BYTES``, caps the tree (``Limits.max_tree_nodes``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from engine.search.limits import Limits

#: Kept back from ``timeout_turn`` for search overshoot and I/O latency.
TURN_MARGIN_MS = 30.0
#: Extra share of ``timeout_turn`` kept back (scheduling noise grows with long searches).
TURN_MARGIN_FRACTION = 0.03
#: Upper bound of the turn margin (long turns need no more than this).
TURN_MARGIN_MAX_MS = 400.0
#: Per future move, the match clock keeps this much for latency outside the search.
MATCH_RESERVE_PER_MOVE_MS = 50.0
#: Share of the match time left that is never planned for (a cushion against a
#: loaded machine making every move's overhead larger than the reserve).
MATCH_SAFETY_FRACTION = 0.05
#: Most of the remaining match time one move may use.
MATCH_MAX_FRACTION = 0.25
#: Own moves assumed still to come at most (the clock is divided by this on an open board).
MOVES_TO_GO_HORIZON = 30
#: A budget below this is answered at once.
INSTANT_BUDGET_MS = 5.0
#: "At once" still has this long before the move is late (the hard deadline of timeout_turn 0).
INSTANT_HARD_MS = 45.0
#: Under a match clock only, a search may overrun its budget by this much before it is abandoned.
MATCH_OVERRUN_MS = 500.0
#: Turn time used when the manager sent no time limit and no playout/node limit is set.
DEFAULT_TURN_MS = 5000
#: NBoard's ``set depth`` level whose move takes ``LEVEL_BASE_MS`` (the default move time).
LEVEL_BASE = 10
LEVEL_BASE_MS = 1000.0
#: Every this many levels the time a move doubles.
LEVEL_DOUBLING = 3
#: The time a move of the lowest level (1) and the cap of the highest.
LEVEL_MIN_MS = 100.0
LEVEL_MAX_MS = 60_000.0
#: ``time_left`` at or above this means "unlimited" (Gomocup sends 2^31 - 1).
UNLIMITED_MS = 2_147_483_647
#: Memory assumed used before the tree grows: interpreter, numpy, rollout buffers
#: (33 MB measured after a first search; doubled for safety).
BASE_MEMORY_BYTES = 64 * 1024 * 1024
#: Bytes per tree node: about 2.8 kB measured (RSS growth over a 20 000-node search on
#: 7x7, 15x15 and 20x20: each node holds four numpy arrays and a child list); rounded up.
NODE_BYTES = 3072
#: Largest tree cap handed out from a memory limit.
MAX_TREE_NODES = 2_000_000
#: The smallest tree cap handed out, however small ``max_memory`` is.
MIN_TREE_NODES = 1_000


@dataclass(frozen=True)
class TimeSettings:
    """What the manager told us about time and memory (``None`` = never sent).

    ``turn_ms``: ``INFO timeout_turn`` (0 = answer at once).  ``match_ms``:
    ``INFO timeout_match`` (0 = no match limit).  ``memory_bytes``:
    ``INFO max_memory`` (0 = no limit).
    """

    turn_ms: int | None = None
    match_ms: int | None = None
    memory_bytes: int | None = None


@dataclass(frozen=True)
class MovePlan:
    """The limits for one move and how they were chosen (for log messages).

    ``hard_deadline`` (monotonic seconds, or ``None``) is the instant after
    which the move counts as late: the protocol layer gives up on a search
    that has not returned by then and plays an instant move instead.
    """

    limits: Limits
    budget_ms: float | None
    reason: str
    hard_deadline: float | None = None


def turn_budget_ms(turn_ms: float) -> float:
    """Search time for a ``timeout_turn`` of ``turn_ms``, margins taken off (>= 0)."""
    if turn_ms <= 0:
        return 0.0
    margin = min(TURN_MARGIN_MAX_MS, TURN_MARGIN_MS + TURN_MARGIN_FRACTION * turn_ms)
    return max(0.0, turn_ms - margin)


def level_turn_ms(level: int) -> float:
    """The time a move of an NBoard ``set depth`` level: one second at level 10, doubled
    every 3 levels (level 4: 250 ms, 7: 500 ms, 13: 2 s, 16: 4 s, 19: 8 s, 22: 16 s),
    at least 100 ms and at most a minute.  An MCTS has no search depth; this makes a GUI's
    level slider mean "stronger and slower" as it does for an alpha-beta engine, whose
    time grows about geometrically with depth."""
    level = max(0, min(int(level), 100))  # beyond these the bounds hold anyway (and 2**huge overflows)
    ms = LEVEL_BASE_MS * 2.0 ** ((level - LEVEL_BASE) / LEVEL_DOUBLING)
    return max(LEVEL_MIN_MS, min(LEVEL_MAX_MS, ms))


def moves_to_go(empty_cells: int) -> int:
    """Own moves still expected: half the empty cells, capped by the horizon (>= 1)."""
    return max(1, min(MOVES_TO_GO_HORIZON, math.ceil(max(0, empty_cells) / 2)))


def match_budget_ms(time_left_ms: float, empty_cells: int) -> float:
    """Search time for this move from ``time_left_ms`` on the match clock (>= 0)."""
    if time_left_ms <= 0:
        return 0.0
    to_go = moves_to_go(empty_cells)
    usable = (1.0 - MATCH_SAFETY_FRACTION) * time_left_ms - MATCH_RESERVE_PER_MOVE_MS * to_go
    if usable <= 0:
        return 0.0
    return min(usable / to_go, MATCH_MAX_FRACTION * time_left_ms)


def tree_cap(memory_bytes: int | None) -> int | None:
    """Tree-node cap for a ``max_memory`` value (``None``/0: no cap from here, the
    engine's own default ``TreeSettings.max_tree_nodes`` applies)."""
    if not memory_bytes or memory_bytes <= 0:
        return None
    nodes = (memory_bytes - BASE_MEMORY_BYTES) // NODE_BYTES
    return int(max(MIN_TREE_NODES, min(MAX_TREE_NODES, nodes)))


def plan_move(
    settings: TimeSettings,
    *,
    arrival: float,
    time_left_ms: float | None,
    empty_cells: int,
    playouts: int | None = None,
    nodes: int | None = None,
    default_turn_ms: float | None = DEFAULT_TURN_MS,
) -> MovePlan:
    """Limits for one move.

    ``arrival`` is the ``time.monotonic()`` instant the command arrived;
    ``time_left_ms`` the match time left (``None`` when unknown or no match
    limit; values >= :data:`UNLIMITED_MS` mean unlimited).  ``playouts`` and
    ``nodes`` are fixed search limits (command line, ``INFO max_node``).
    ``default_turn_ms`` applies only when no time limit of any kind and no
    playout/node limit is given, so the brain never thinks forever.
    """
    budgets: list[tuple[float, str]] = []
    hard: list[float] = []
    if settings.turn_ms is not None and settings.turn_ms >= 0:
        budgets.append((turn_budget_ms(settings.turn_ms), f"turn {settings.turn_ms} ms"))
        hard.append(max(float(settings.turn_ms), INSTANT_HARD_MS))
    if time_left_ms is not None and time_left_ms < UNLIMITED_MS:
        budget = match_budget_ms(time_left_ms, empty_cells)
        budgets.append((budget, f"clock {int(time_left_ms)} ms"))
        hard.append(max(INSTANT_HARD_MS, min(budget + MATCH_OVERRUN_MS, time_left_ms / 2)))
    if not budgets and playouts is None and nodes is None and default_turn_ms is not None:
        budgets.append((turn_budget_ms(default_turn_ms), f"default turn {int(default_turn_ms)} ms"))
        hard.append(max(float(default_turn_ms), INSTANT_HARD_MS))

    limits = Limits(playouts=playouts, nodes=nodes, max_tree_nodes=tree_cap(settings.memory_bytes))
    if not budgets:
        return MovePlan(limits, None, "no time limit")
    budget, reason = min(budgets)
    if budget < INSTANT_BUDGET_MS:
        budget = 0.0
        reason += ", at once"
    hard_deadline = arrival + min(hard) / 1000.0
    return MovePlan(replace(limits, deadline=arrival + budget / 1000.0), budget, reason, hard_deadline)


class MatchClock:
    """Our own account of the match clock, for managers that do not send ``time_left``.

    ``start(match_ms)`` at a new game; ``charge(ms)`` after each of our moves;
    ``set_left(ms)`` whenever the manager reports ``time_left`` (its figure wins).
    ``left_ms`` is ``None`` when there is no match limit.
    """

    __slots__ = ("left_ms",)

    def __init__(self) -> None:
        self.left_ms: float | None = None

    def start(self, match_ms: int | None) -> None:
        """A new game: the full match time (``None``/0 = unlimited)."""
        self.left_ms = float(match_ms) if match_ms and match_ms > 0 else None

    def set_left(self, ms: float) -> None:
        """The manager's own figure (``>= UNLIMITED_MS`` = unlimited)."""
        self.left_ms = None if ms >= UNLIMITED_MS else float(ms)

    def charge(self, ms: float) -> None:
        """Deduct the time one of our moves took (arrival to reply)."""
        if self.left_ms is not None:
            self.left_ms -= max(0.0, ms)
