"""One game between two seats: the referee's own position, its own clock, its own verdict.

The loop is the same for every game the referee knows; what differs is asked of the
game's :class:`~referee.games.base.GameRules` (:func:`referee.games.rules_for`).
Engines are never trusted: every reply is judged by the rules here and replayed on the
referee's own position, every think time is measured by the referee on a monotonic
clock (:class:`referee.games.clock.GameClock`).  A side with no move but a pass (Reversi) is
passed by the referee itself, without asking the seat, with no time charged: an
engine that answers ``PA`` while it has a legal move plays an illegal move.  A fresh
process is used for each game (the caller creates new seats per game): it costs a
process start per game but no state, crash or memory growth can leak from one game
into the next.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from referee.games.clock import GameClock, TimeControl
from referee.games import GameRules, Illegal, rules_for
from referee.games.adjudication import Adjudication
from referee.games.base import End, Position
from referee.games.verdicts import Termination
from referee.play.result import GameResult
from referee.seats.base import Fault, Seat, UndoRequest

__all__ = ["MoveEvent", "play_game", "close_seats"]

@dataclass(frozen=True)
class MoveEvent:
    """Passed to the ``on_move`` callback after each accepted move (forced passes included).

    ``board`` is the referee's position after the move (do not change it), ``move``
    the game's move int, ``text`` the move as people read it, ``player`` the colour
    that moved (1 moves first), ``ms`` its think time (0 for a forced pass).
    """

    game: int
    board: Any
    move: int
    player: int
    seat_name: str
    ms: int
    rules: GameRules
    text: str
    forced: bool = False

    @property
    def ply(self) -> int:
        """How many moves the game holds now (this one included)."""
        return len(self.board.history)

    @property
    def x(self) -> int:
        """The move's column (m,n,k)."""
        return self.rules.reply_for(self.board, self.move)[0]

    @property
    def y(self) -> int:
        """The move's row (m,n,k)."""
        return self.rules.reply_for(self.board, self.move)[1]


def play_game(
    seats: Sequence[Seat],
    *,
    game: int,
    first: int,
    config: Any,
    tc: TimeControl,
    opening: Sequence[int] = (),
    stop: threading.Event | None = None,
    on_move: Callable[[MoveEvent], None] | None = None,
    on_start: Callable[[], None] | None = None,
    close_grace_s: float = 0.3,
    adjudication: Adjudication = Adjudication(),
    close: bool = True,
) -> GameResult:
    """Play one game between ``seats[0]`` (engine1) and ``seats[1]`` (engine2) and close both.

    ``config`` is the game (an m,n,k ``GameConfig`` or a ``ReversiConfig``); ``first``
    (1 or 2) says which seat plays the first colour; ``opening`` holds the game's move
    ints placed beforehand (validated by the caller).  Returns a result with
    termination ``interrupted`` when ``stop`` is set meanwhile.  ``on_start()`` is called
    once both seats have started (their names are known then); ``on_move`` after every
    accepted move.  ``adjudication`` says when the referee declares a draw itself.  With
    ``close=False`` the seats are left running for the caller to keep or close (an
    exception still closes them).
    """
    if first not in (1, 2):
        raise ValueError("first must be 1 or 2")
    rules = rules_for(config)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    t0 = time.monotonic()
    game_ = _Game(rules, seats, 0 if first == 1 else 1, tc, game, stop, on_move)
    game_.adjudication = adjudication
    for m in opening:
        game_.state.apply(m)  # openings are validated by the caller; a bad one is a caller bug
        game_.times.append(0)
    game_.opening = len(opening)
    if rules.outcome(game_.state, {1: "", 2: ""}) is not None:
        raise ValueError("the opening already ends the game")
    termination, reason, winner_idx = Termination.INTERRUPTED, "the match was interrupted", None
    try:
        termination, reason, winner_idx = game_.run(on_start)
    except BaseException:
        close_seats(seats, close_grace_s)
        raise
    if close:
        close_seats(seats, close_grace_s)
    if stop is not None and stop.is_set() and termination in (Termination.CRASH, Termination.TIMEOUT):
        # the referee killed the processes itself: not the engine's fault
        termination, reason, winner_idx = Termination.INTERRUPTED, "the match was interrupted", None
    state = game_.state
    end = None  # the rules' End (the winner as a colour) when the game has a result
    if winner_idx is not None or termination in (Termination.FULL_BOARD, Termination.DISCS):
        end = End(termination, reason, None if winner_idx is None else (1 if winner_idx == game_.first_seat else 2))
    result = GameResult.of_game(
        rules, state, end, game=game, engines=(seats[0].name, seats[1].name), first=first,
        winner=None if winner_idx is None else f"engine{winner_idx + 1}", termination=termination.value,
        reason=reason, times_ms=list(game_.times), opening=len(opening), started=started,
        duration_s=round(time.monotonic() - t0, 3),
        messages={"engine1": list(seats[0].messages), "engine2": list(seats[1].messages)},
        overhead_s=game_.overhead,
    )
    if game_.foul is not None and termination is not Termination.INTERRUPTED:
        move, ms = game_.foul  # the move that lost the game: viewers and rating tools show it
        result.moves.append(rules.record_of(state, move))
        result.times_ms.append(ms)
        result.foul = True
    return result


class _Game:
    """The state of one game in progress: the referee's position, the clock, the seats."""

    def __init__(self, rules: GameRules, seats: Sequence[Seat], first_seat: int, tc: TimeControl, game: int,
                 stop: threading.Event | None, on_move) -> None:
        self.rules = rules
        self.seats = seats
        self.first_seat = first_seat  # index of the seat playing colour 1
        self.tc = tc
        # each side's own clock: an engine given its own times (time odds) plays by them
        self.tcs = (seats[0].time_control(tc), seats[1].time_control(tc))
        self.clock = GameClock(tc, self.tcs)
        self.game = game
        self.stop = stop
        self.on_move = on_move
        self.state = rules.new_state()
        self.times: list[int] = []
        self.opening = 0
        self.overhead: list[float] = []
        self.adjudication = Adjudication()
        #: The foul that ended the game, with its think time (``None``: none).
        self.foul: tuple[int, int] | None = None

    def seat_of(self, colour: int) -> int:
        """The index of the seat playing ``colour``."""
        return self.first_seat if colour == 1 else 1 - self.first_seat

    def names(self) -> dict[int, str]:
        """Each colour's side as the game's lines name it (see ``called``)."""
        return {c: self.called(self.seat_of(c)) for c in (1, 2)}

    def called(self, i: int) -> str:
        """Seat ``i`` as verdicts and move lines name it: its name, with ``(engine1)`` or
        ``(engine2)`` added when both sides have the same name (an engine against itself)."""
        name = self.seats[i].name
        return name if name != self.seats[1 - i].name else f"{name} (engine{i + 1})"

    def fault(self, f: Fault, i: int) -> tuple[Termination, str, int | None]:
        """The game's end for seat ``i``'s fault, its reason naming the seat as ``called`` does."""
        name, reason = self.seats[i].name, f.reason
        if reason.startswith(name) and self.called(i) != name:
            reason = self.called(i) + reason[len(name):]
        return _fault(Fault(f.termination, reason), i)

    def run(self, on_start) -> tuple[Termination, str, int | None]:
        """The game loop; returns (termination, reason, index of the winning seat or None)."""
        seats, rules = self.seats, self.rules
        config = rules.config
        # Start both seats in parallel: spawn and send the start to each, then read the answers.
        for i in (0, 1):
            try:
                seats[i].launch(config, self.tcs[i])
            except Fault as f:
                return self.fault(f, i)
        for i in (0, 1):
            try:
                seats[i].finish_start(config, self.tcs[i])
            except Fault as f:
                return self.fault(f, i)
        if on_start is not None:
            on_start()
        received_at: float | None = None
        state = self.state
        while True:
            if self.stop is not None and self.stop.is_set():
                return Termination.INTERRUPTED, "the match was interrupted", None
            colour = int(state.to_move)
            i = self.seat_of(colour)
            seat = seats[i]
            forced = rules.forced_pass(state)
            if forced is not None:
                # No move but a pass: the referee plays it (asking would only add a way to fail).
                end = self._play(forced, colour, self.called(i), 0.0, forced=True)
                if end is not None:
                    return end
                continue
            turn = self.clock.turn(i, timed=not seat.is_human)
            pos = Position(rules, state.clone(), list(self.times), self.opening)
            try:
                reply, elapsed = seat.ask(pos, turn)
            except Fault as f:
                return self.fault(f, i)
            except UndoRequest:
                done = self._take_back(colour)
                seat.taken_back(done)
                continue
            if received_at is not None and not seat.is_human:
                # the deliberate send delay is the engine's accommodation, not referee overhead
                self.overhead.append(max(0.0, seat.sent_at - received_at - seat.send_delay_s))
            received_at = seat.replied_at  # the referee's overhead runs from here
            ms = elapsed * 1000.0
            if not seat.is_human:
                late = self.clock.late(turn, ms, i)
                if late is not None:
                    return Termination.TIMEOUT, f"{self.called(i)} {late}", 1 - i
            self.clock.charge(i, ms)
            try:
                move = rules.judge(state, reply)
            except Illegal as exc:
                if exc.foul is not None:  # recorded as the last move, marked as the foul
                    self.foul = (exc.foul, int(round(ms)))
                return exc.termination, f"{self.called(i)} {exc}", 1 - i
            end = self._play(move, colour, self.called(i), ms)
            if end is not None:
                return end

    def _play(self, move: int, colour: int, name: str, ms: float,
              forced: bool = False) -> tuple[Termination, str, int | None] | None:
        """Apply a judged move; the game's end if it ended."""
        rules, state = self.rules, self.state
        text = rules.move_text(state, move)
        state.apply(move)
        self.times.append(int(round(ms)))
        if self.on_move is not None:
            self.on_move(MoveEvent(self.game, state, move, colour, name, int(round(ms)), rules, text, forced))
        end = rules.outcome(state, self.names())
        if end is None:
            drawn = self.adjudication.verdict(len(state.history))
            return None if drawn is None else (drawn[0], drawn[1], None)
        return end.termination, end.reason, None if end.winner is None else self.seat_of(end.winner)

    def _take_back(self, colour: int) -> bool:
        """Take back the moves down to and including the last one ``colour`` chose (a forced
        pass is no choice), keeping the opening; False when there is none to take."""
        state, rules = self.state, self.rules
        replay = rules.new_state()
        movers = []
        for m in state.history:
            movers.append((int(replay.to_move), rules.forced_pass(replay) is not None))
            replay.apply(m)
        for idx in range(len(movers) - 1, self.opening - 1, -1):
            who, was_forced = movers[idx]
            if who == colour and not was_forced:
                break
        else:
            return False
        for _ in range(len(movers) - idx):
            state.undo()
            self.times.pop()
        return True


def _fault(f: Fault, i: int) -> tuple[Termination, str, int | None]:
    if f.termination is Termination.INTERRUPTED:
        return f.termination, f.reason, None
    return f.termination, f.reason, 1 - i


def close_seats(seats: Sequence[Seat], grace_s: float) -> None:
    """End seats together (the end line to all, one shared grace period), never raising."""
    for s in seats:
        s.send_end()
    end = time.monotonic() + max(0.0, grace_s)
    while time.monotonic() < end and any(s.is_running() for s in seats):
        time.sleep(0.005)
    for s in seats:
        try:
            s.close(0.0)
        except Exception:  # noqa: BLE001 - closing must never mask the game's result
            pass
