"""The NBoard engine's state machine: protocol lines in, reply lines out, no I/O.

:meth:`Session.feed` takes one input line and its arrival time and returns a
:class:`Step`: lines to print, and possibly a job (:class:`GoJob` for ``go``,
:class:`HintJob` for ``hint``).  The caller runs the job (on a thread, so that it sees
the next commands meanwhile) and hands the outcome to :meth:`Session.finish`, which
returns the answer lines.  While a job is out the caller must not feed other lines (the
loop keeps them until the answer is printed, which is what makes ``pong N`` come after
every earlier command's answer); :meth:`Session.feed_now` runs a job in place, for tests
and scripts.

Semantics worth knowing:

- the position before any ``set game`` is the 8x8 start; ``set game`` takes any board
  of an even size 4..16 (the engine switches size); bad text, an illegal ``move`` or a
  board the rules refuse gets a ``status`` line saying what was wrong, and the previous
  position stays;
- ``go`` answers ``=== MOVE/EVAL/TIME`` and does not play the move (the GUI sends
  ``move``); a forced pass is ``=== PA`` at once; a finished game gets a ``status``;
- time a move: ``--move-ms`` when given, else the ``set depth`` level's
  (:func:`engine.timecontrol.level_turn_ms`), else one second; the game clock (``TI``
  less the side to move's move times) caps it, split over half the empty squares
  (:func:`engine.timecontrol.plan_move`); hints use the same time without the clock;
- ``set contempt`` is stored (:attr:`Session.contempt`): the search counts a draw as half
  a win whatever its value;
- evals are in discs for the side to move (:mod:`protocol.nboard.discs`).
"""

from __future__ import annotations

import operator
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from engine.game import GameError
from engine.reversi.board.rules import ReversiConfig, ReversiState
from engine.search.limits import Limits, RootMove, SearchResult
from engine.timecontrol import TimeSettings, level_turn_ms, plan_move

from protocol.nboard import wire
from protocol.nboard.discs import eval_discs
from protocol.nboard.game import NBoardGame, quick_move

#: The name announced at start-up (``set myname``).
NAME = "nboard-mcts"
#: The time a move without ``--move-ms`` or ``set depth``.
DEFAULT_MOVE_MS = 1000.0
#: Longest principal variation quoted in a status line.
PV_SHOWN = 8


@dataclass(frozen=True)
class SessionOptions:
    """Command-line settings.  ``move_ms``: a fixed time a move (``None``: from ``set
    depth``, else ``default_move_ms``); ``nodes``: tree nodes a search (a seed and a node
    limit reproduce a move)."""

    move_ms: float | None = None
    default_move_ms: float = DEFAULT_MOVE_MS
    nodes: int | None = None


#: Builds the engine of one board size (:class:`protocol.engines.LazyEngine` fits: it has
#: ``engine(limits, stop) -> (engine | None, why)`` and ``quick(state, why)``).
ThinkerFactory = Callable[[ReversiConfig], Any]


@dataclass
class GoJob:
    """A ``go`` the caller must run: the move for ``state`` (a private copy) within ``limits``."""

    state: ReversiState
    limits: Limits
    thinker: Any
    arrival: float
    reason: str
    #: A new position or request does not stop a move search (the GUI waits for the move).
    interruptible = False

    def run(self, stop: threading.Event | None = None) -> tuple[SearchResult, int | None]:
        """The search's result and the exact margin when the solver proved it (any thread)."""
        engine, why = self.thinker.engine(self.limits, stop)
        if engine is None:
            return self.thinker.quick(self.state, why), None
        result = engine.search(self.state, self.limits, stop)
        return result, getattr(engine, "last_margin", None)


@dataclass
class HintJob:
    """A ``hint`` the caller must run: the ``count`` best moves of ``state`` within ``limits``."""

    state: ReversiState
    limits: Limits
    thinker: Any
    arrival: float
    count: int
    #: A new position or request stops a hint search early (its hints are stale then).
    interruptible = True

    def run(self, stop: threading.Event | None = None) -> list[RootMove]:
        """The ranked moves, best first (any thread)."""
        engine, why = self.thinker.engine(self.limits, stop)
        if engine is None:
            result = self.thinker.quick(self.state, why)
            return [RootMove(result.move, pv=[result.move])]
        return engine.rank_moves(self.state, self.limits, self.count, stop)


Job = GoJob | HintJob


@dataclass
class Step:
    """What one input line produced."""

    lines: list[str] = field(default_factory=list)
    job: Job | None = None
    quit: bool = False


class Session:
    """One engine process's protocol state (see the module docstring).

    ``thinkers`` builds the engine of a board size (``None``: instant moves only).
    """

    def __init__(self, options: SessionOptions = SessionOptions(), thinkers: ThinkerFactory | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.options = options
        self._factory = thinkers
        self._now = clock
        self.game = NBoardGame.standard()
        #: The last ``set depth`` level (``None``: never sent).
        self.depth: int | None = None
        #: The last ``set contempt`` (centidiscs; stored, not used by the search).
        self.contempt = 0
        self._thinker: Any = None
        self._thinker_size: int | None = None
        self._job: Job | None = None
        self._notes: list[str] = []

    # Main entry points ------------------------------------------------------------
    def feed(self, line: str, arrival: float | None = None) -> Step:
        """Handle one input line (surrounding blanks ignored)."""
        if arrival is None:
            arrival = self._now()
        if not line.strip():
            return Step()
        try:
            return self._dispatch(wire.parse_command(line), arrival)
        except wire.WireError as exc:
            return Step([exc.reply])

    def finish(self, job: Job, outcome: Any, failure: str | None = None) -> list[str]:
        """The answer lines of a finished job (``outcome`` what its ``run`` returned, or
        ``None`` with ``failure`` saying why it failed: an instant move is answered then)."""
        if job is not self._job:
            return []
        self._job = None
        if isinstance(job, GoJob):
            answer = self._finish_go(job, outcome, failure)
        else:
            answer = self._finish_hint(job, outcome, failure)
        lines = [wire.status(n) for n in self._notes]
        self._notes.clear()
        return lines + answer

    def feed_now(self, line: str, arrival: float | None = None, stop: threading.Event | None = None) -> list[str]:
        """``feed`` and, if a job is asked for, run it here; return all lines."""
        step = self.feed(line, arrival)
        lines = list(step.lines)
        if step.job is not None:
            try:
                outcome, failure = step.job.run(stop), None
            except Exception as exc:  # noqa: BLE001 - the answer falls back to an instant move
                outcome, failure = None, f"{type(exc).__name__}: {exc}"
            lines += self.finish(step.job, outcome, failure)
        return lines

    @property
    def busy(self) -> bool:
        """Is a job out (its answer not yet given)?"""
        return self._job is not None

    # Dispatch ---------------------------------------------------------------------
    def _dispatch(self, cmd: wire.Command, arrival: float) -> Step:
        if isinstance(cmd, wire.Ping):
            return Step([wire.pong(cmd.token)])
        if isinstance(cmd, wire.Hello):
            self._get_thinker()  # start building the engine while the GUI sets up
            if cmd.version.strip() != "2":
                return Step([wire.status(f"{NAME} speaks NBoard protocol version 2")])
            return Step()
        if isinstance(cmd, wire.SetDepth):
            self.depth = cmd.depth
            return Step()
        if isinstance(cmd, wire.SetContempt):
            self.contempt = cmd.contempt
            return Step()
        if isinstance(cmd, wire.SetGame):
            return self._set_game(cmd.ggf)
        if isinstance(cmd, wire.Move):
            return self._move(cmd.text)
        if isinstance(cmd, wire.Go):
            return self._go(arrival)
        if isinstance(cmd, wire.Hint):
            return self._hint(cmd.count, arrival)
        if isinstance(cmd, wire.Quit):
            return Step(quit=True)
        return Step()  # ignored: the protocol's rule for what an engine does not know

    # The game -----------------------------------------------------------------------
    def _set_game(self, ggf: str) -> Step:
        try:
            game = NBoardGame.from_ggf(ggf)
        except GameError as exc:
            raise wire.WireError(f"set game refused: {exc}; position unchanged") from None
        if game.start.key() != self.game.start.key():
            self._thinker = None  # another game: a fresh engine (its tree is of no use)
        self.game = game
        self._get_thinker()
        return Step()

    def _move(self, text: str) -> Step:
        try:
            self.game.play(text)
        except GameError as exc:
            raise wire.WireError(f"move {wire.quote(text)} refused: {exc}; position unchanged") from None
        return Step()

    # Searches -------------------------------------------------------------------------
    def _turn_ms(self) -> float:
        if self.options.move_ms is not None:
            return self.options.move_ms
        if self.depth is not None:
            return level_turn_ms(self.depth)
        return self.options.default_move_ms

    def _limits(self, arrival: float, clock: bool) -> tuple[Limits, str]:
        state = self.game.state
        left = self.game.clock_left_ms() if clock else None
        plan = plan_move(TimeSettings(turn_ms=int(self._turn_ms())), arrival=arrival, time_left_ms=left,
                         empty_cells=state.empties(), nodes=self.options.nodes, default_turn_ms=None)
        return plan.limits, plan.reason

    def _go(self, arrival: float) -> Step:
        state = self.game.state
        moves = state.legal_moves()
        if not moves:
            return Step([wire.status("the game is over: no move to play")])
        if moves == [state.pass_move]:
            return Step([wire.move_reply("PA")])
        limits, reason = self._limits(arrival, clock=True)
        job = GoJob(state.clone(), limits, self._get_thinker(), arrival, reason)
        self._job = job
        return Step([wire.status("thinking")], job=job)

    def _hint(self, count: int, arrival: float) -> Step:
        state = self.game.state
        if state.is_terminal():
            return Step([wire.status("the game is over: no move to hint")])
        limits, _ = self._limits(arrival, clock=False)
        job = HintJob(state.clone(), limits, self._get_thinker(), arrival, count)
        self._job = job
        return Step([wire.status("thinking")], job=job)

    def _get_thinker(self) -> Any:
        size = self.game.size
        if self._thinker is None or self._thinker_size != size:
            thinker = None
            if self._factory is not None:
                try:
                    thinker = self._factory(ReversiConfig(size))
                except Exception as exc:  # noqa: BLE001 - no engine: still answer, and say why
                    self._notes.append(f"engine unavailable ({type(exc).__name__}: {exc}); instant moves only")
                    self._factory = None  # it would fail the same way again
            self._thinker = thinker if thinker is not None else InstantThinker()
            self._thinker_size = size
        return self._thinker

    # Answers ----------------------------------------------------------------------------
    def _finish_go(self, job: GoJob, outcome: Any, failure: str | None) -> list[str]:
        state = job.state
        result, margin = outcome if outcome is not None else (None, None)
        move = result.move if result is not None else None
        try:
            move = operator.index(move)  # numpy integers are fine, anything else is not
        except TypeError:
            pass
        if failure is None and (not isinstance(move, int) or move not in state.legal_moves()):
            failure = f"the search returned an illegal move {move!r}"
        if failure is not None:
            move = quick_move(state)
            result, margin = SearchResult(move=move, pv=[move], reason=f"search failed ({failure}); instant move"), None
        seconds = max(0.0, self._now() - job.arrival)
        discs = eval_discs(result.value, result.proven, margin, state.area)
        text = _move_text(state, move)
        return [wire.nodestats(result.nodes, seconds),
                wire.move_reply(text, discs, seconds),
                wire.status(self._summary(state, result, margin, discs, seconds, job.reason))]

    def _finish_hint(self, job: HintJob, outcome: Any, failure: str | None) -> list[str]:
        state = job.state
        legal = state.legal_moves()
        ranked = [r for r in (outcome or []) if _is_move(r.move, legal)][: job.count]
        if failure is not None or not ranked:
            move = quick_move(state)
            ranked = [RootMove(move, pv=[move])]
            self._notes.append(f"hint failed ({failure or 'no move ranked'}); instant move shown")
        lines = []
        for r in ranked:
            pv = [_move_text(state, m) for m in _legal_prefix(state, r.pv or [r.move])]
            discs = eval_discs(r.value, r.proven, r.exact, state.area)
            lines.append(wire.search_line(pv, discs, wire.hint_depth(r.depth, r.proven, r.exact)))
        seconds = max(0.0, self._now() - job.arrival)
        lines.append(wire.status(f"{len(ranked)} hint{'s' if len(ranked) != 1 else ''} in {seconds:.2f} s"))
        return lines

    @staticmethod
    def _summary(state: ReversiState, result: SearchResult, margin: int | None, discs: float, seconds: float,
                 reason: str) -> str:
        pv = " ".join(_move_text(state, m) for m in _legal_prefix(state, result.pv)[:PV_SHOWN])
        if margin is not None:
            judged = f"solved: {result.proven} by {abs(margin)}" if margin else "solved: draw"
        elif result.proven:
            judged = f"proven {result.proven}"
        else:
            judged = f"win rate {100.0 * result.value:.1f}%"
        parts = [f"{_move_text(state, result.move)} {wire.eval_text(discs)} ({judged})",
                 f"depth {result.depth}", f"playouts {result.playouts}", f"nodes {result.nodes}",
                 f"time {seconds:.2f} s ({reason})"]
        if pv:
            parts.append(f"pv {pv}")
        if result.reason and result.reason not in ("deadline", "proven"):
            parts.append(f"[{result.reason}]")
        return ", ".join(parts)


class InstantThinker:
    """No engine: every answer is :func:`~protocol.nboard.game.quick_move`."""

    def engine(self, limits: Limits, stop: threading.Event | None = None) -> tuple[None, str]:
        """Never an engine."""
        return None, "no engine: instant move"

    def quick(self, state: ReversiState, reason: str) -> SearchResult:
        """The instant move as a zero-playout result."""
        move = quick_move(state)
        return SearchResult(move=move, pv=[move], reason=reason)


def _is_move(move: Any, legal: list[int]) -> bool:
    try:
        return operator.index(move) in legal
    except TypeError:
        return False


def _legal_prefix(state: ReversiState, pv: list[int]) -> list[int]:
    """The longest prefix of ``pv`` that is a legal line from ``state``."""
    work = state.clone()
    out = []
    for m in pv:
        try:
            work.apply(int(m))
        except (GameError, TypeError, ValueError):
            break
        out.append(int(m))
    return out


def _move_text(state: ReversiState, move: int) -> str:
    """A move as NBoard writes it: ``F5``, ``PA``."""
    return "PA" if move == state.pass_move else state.move_to_text(move).upper()
