"""One game between two seats: the referee's own board, its own clock, its own verdict.

Engines are never trusted: every reply is parsed and checked here, every move
is replayed on an :class:`engine.mnk.rules.Board`, every think time is measured by
the referee on a monotonic clock.  A fresh process is used for each game (the
caller creates new seats per game): it costs a process start per game but no
state, crash or memory growth can leak from one game into the next.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

from engine.mnk.rules import Board, GameConfig, Player
from referee.process import close_many
from referee.seats import Fault, TimeControl, UndoRequest
from referee.termination import Termination
from referee.wire import board_block

__all__ = ["GameResult", "MoveEvent", "play_game"]

#: ``INFO time_left`` value meaning "no match clock" (the protocol's convention).
UNLIMITED_MS = 2147483647


@dataclass
class GameResult:
    """Everything known about one finished game (``to_json`` gives the ``results.jsonl`` object).

    ``first`` is 1 when engine1 played the first stone (X/black), 2 otherwise;
    ``winner`` is ``"engine1"``, ``"engine2"`` or ``None`` (draw / interrupted);
    ``moves`` lists every stone, opening included (``opening`` = how many of them
    were placed by the referee); ``times_ms`` gives the think time of each
    (0 for opening stones); ``seed`` is the match's random-opening seed
    (``None`` when the openings were not random).
    """

    game: int
    engine1: str
    engine2: str
    first: int
    winner: str | None
    termination: str
    reason: str
    moves: list[list[int]]
    times_ms: list[int]
    opening: int = 0
    width: int = 15
    height: int = 15
    win_length: int = 5
    rule: str = "freestyle"
    started: str = ""
    duration_s: float = 0.0
    messages: dict[str, list[str]] = field(default_factory=dict)
    seed: int | None = None
    #: Per-move referee overhead in seconds (reply received → next command sent); not serialised.
    overhead_s: list[float] = field(default_factory=list, repr=False)

    @property
    def score1(self) -> float:
        """Engine1's score: 1 win, 0.5 draw, 0 loss."""
        return 1.0 if self.winner == "engine1" else 0.0 if self.winner == "engine2" else 0.5

    def to_json(self) -> dict:
        d = asdict(self)
        d.pop("overhead_s")
        return d


@dataclass(frozen=True)
class MoveEvent:
    """Passed to the ``on_move`` callback after each accepted move."""

    game: int
    board: Board
    x: int
    y: int
    player: Player
    seat_name: str
    ms: int


def play_game(
    seats: Sequence,
    *,
    game: int,
    first: int,
    config: GameConfig,
    tc: TimeControl,
    opening: Sequence[int] = (),
    stop: threading.Event | None = None,
    on_move: Callable[[MoveEvent], None] | None = None,
    on_start: Callable[[str, str], None] | None = None,
    close_grace_s: float = 0.3,
) -> GameResult:
    """Play one game between ``seats[0]`` (engine1) and ``seats[1]`` (engine2) and close both.

    ``first`` (1 or 2) says which of them plays X, the first colour; ``opening``
    holds compact moves placed beforehand, alternating from X.  Returns a
    result with termination ``interrupted`` when ``stop`` is set meanwhile.
    ``on_start(x_name, o_name)`` is called once both engines have started;
    ``on_move`` after every accepted move.
    """
    if first not in (1, 2):
        raise ValueError("first must be 1 or 2")
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    t0 = time.monotonic()
    board = Board(config)
    moves: list[list[int]] = []
    times: list[int] = []
    for m in opening:
        board.play(m)  # openings are validated by the caller; a bad one is a caller bug
        moves.append(list(config.xy(m)))
        times.append(0)
    if board.is_over:
        raise ValueError("the opening already ends the game")
    x_seat = 0 if first == 1 else 1  # index of the seat playing X (Player.FIRST)
    overhead: list[float] = []
    termination, reason, winner_idx = Termination.INTERRUPTED, "the match was interrupted", None
    try:
        termination, reason, winner_idx = _run(
            seats, board, x_seat, config, tc, moves, times, overhead, game, stop, on_move, on_start, len(opening)
        )
    finally:
        _close_all(seats, close_grace_s)
    if stop is not None and stop.is_set() and termination in (Termination.CRASH, Termination.TIMEOUT):
        # the referee killed the processes itself: not the engine's fault
        termination, reason, winner_idx = Termination.INTERRUPTED, "the match was interrupted", None
    return GameResult(
        game=game,
        engine1=seats[0].name,
        engine2=seats[1].name,
        first=first,
        winner=None if winner_idx is None else f"engine{winner_idx + 1}",
        termination=termination.value,
        reason=reason,
        moves=moves,
        times_ms=times,
        opening=len(opening),
        width=config.width,
        height=config.height,
        win_length=config.win_length,
        rule=config.rule.value,
        started=started,
        duration_s=round(time.monotonic() - t0, 3),
        messages={"engine1": list(seats[0].messages), "engine2": list(seats[1].messages)},
        overhead_s=overhead,
    )


def _run(seats, board: Board, x_seat: int, config: GameConfig, tc: TimeControl,
         moves, times, overhead, game, stop, on_move, on_start,
         opening_len: int) -> tuple[Termination, str, int | None]:
    """The game loop; returns (termination, reason, index of the winning seat or None)."""
    # Start both engines in parallel: spawn and send START to each, then read the answers.
    for i in (0, 1):
        try:
            seats[i].launch(config, tc)
        except Fault as f:
            return _fault(f, i, seats)
    for i in (0, 1):
        try:
            seats[i].finish_start(config, tc)
        except Fault as f:
            return _fault(f, i, seats)
    if on_start is not None:
        on_start(seats[x_seat].name, seats[1 - x_seat].name)

    used_ms = [0.0, 0.0]
    synced = [False, False]  # has the seat been told the position (BEGIN/BOARD) yet?
    fresh = [True, True]  # is the seat's own board still empty? (not after a take-back)
    last: tuple[int, int] | None = None
    received_at: float | None = None
    while True:
        if stop is not None and stop.is_set():
            return Termination.INTERRUPTED, "the match was interrupted", None
        colour = board.to_move
        i = x_seat if colour is Player.FIRST else 1 - x_seat
        seat = seats[i]
        if not synced[i]:
            synced[i] = True
            if board.stone_count == 0 and fresh[i]:
                lines = ["BEGIN"]
            elif board.stone_count == 1 and last is not None and fresh[i]:
                lines = [f"TURN {last[0]},{last[1]}"]  # no opening: the usual reply to the first move
            else:
                lines = board_block(_stones_for(board, colour))
        else:
            assert last is not None
            lines = [f"TURN {last[0]},{last[1]}"]
        limit_ms = float(tc.turn_ms) if tc.turn_ms > 0 else float("inf")
        if tc.match_ms > 0:
            left = tc.match_ms - used_ms[i]
            lines = [f"INFO time_left {int(left)}", *lines]
            limit_ms = min(limit_ms, left)
        else:
            lines = [f"INFO time_left {UNLIMITED_MS}", *lines]
        if seat.is_human:
            budget_s = float("inf")
        else:
            budget_s = max(0.0, limit_ms + tc.tolerance_ms) / 1000.0
        try:
            (x, y), elapsed = _ask(seat, lines, budget_s, board, overhead, received_at)
        except Fault as f:
            return _fault(f, i, seats)
        except UndoRequest:
            if _take_back(board, moves, times, colour, opening_len):
                # The engines' boards still hold the stones taken back: the next time each
                # one is asked, it gets the whole position as BOARD, which replaces its own.
                for j in (0, 1):
                    synced[j] = fresh[j] = False
                last = tuple(moves[-1]) if moves else None
                seat.taken_back(True)
            else:
                synced[i] = False  # ask again from scratch (a human ignores the lines anyway)
                seat.taken_back(False)
            continue
        # When the reply's bytes were read off the pipe: the referee's overhead runs from here.
        proc = getattr(seat, "proc", None)
        received_at = proc.last_line_time if proc is not None else time.monotonic()
        ms = elapsed * 1000.0
        if not seat.is_human:
            if ms > limit_ms + tc.tolerance_ms:
                return (Termination.TIMEOUT,
                        f"{seat.name} took {ms:.0f} ms, over {_limit_text(tc, limit_ms)}", 1 - i)
        used_ms[i] += ms
        if not config.on_board(x, y):
            return (Termination.ILLEGAL_MOVE,
                    f"{seat.name} played {x},{y}, off the {config.width}x{config.height} board", 1 - i)
        move = config.move(x, y)
        if not board.is_empty(move):
            return Termination.ILLEGAL_MOVE, f"{seat.name} played {x},{y}, which is occupied", 1 - i
        board.play(move)
        moves.append([x, y])
        times.append(int(round(ms)))
        last = (x, y)
        if on_move is not None:
            on_move(MoveEvent(game, board, x, y, colour, seat.name, int(round(ms))))
        if board.winner is not None:
            rule = "" if config.rule.value == "freestyle" else f" ({config.rule.value} rule)"
            return (Termination.LINE,
                    f"{seat.name} completed {config.win_length} in a row{rule} with {x},{y}", i)
        if board.is_full:
            return Termination.FULL_BOARD, "the board is full: a draw", None


def _take_back(board: Board, moves: list, times: list, colour: Player, floor: int) -> int:
    """Take back the moves down to and including the last one ``colour`` played, keeping the
    first ``floor`` stones (the opening); return how many were taken back (0: none to take)."""
    for idx in range(len(moves) - 1, floor - 1, -1):
        if (Player.FIRST if idx % 2 == 0 else Player.SECOND) is colour:
            break
    else:
        return 0
    n = len(moves) - idx
    for _ in range(n):
        board.undo()
        moves.pop()
        times.pop()
    return n


def _ask(seat, lines, budget_s, board, overhead, received_at):
    """Ask a seat for a move and note the referee's own overhead since the previous reply."""
    result = seat.ask(lines, budget_s, board)
    if received_at is not None and not seat.is_human:
        overhead.append(max(0.0, seat.sent_at - received_at - _delay_of(seat)))
    return result


def _delay_of(seat) -> float:
    """The deliberate send delay is the engine's accommodation, not referee overhead."""
    proc = getattr(seat, "proc", None)
    return proc.send_delay_s if proc is not None else 0.0


def _fault(f: Fault, i: int, seats) -> tuple[Termination, str, int | None]:
    if f.termination is Termination.INTERRUPTED:
        return f.termination, f.reason, None
    return f.termination, f.reason, 1 - i


def _limit_text(tc: TimeControl, limit_ms: float) -> str:
    if tc.match_ms > 0 and (tc.turn_ms <= 0 or limit_ms < tc.turn_ms):
        return f"its remaining match time {limit_ms:.0f} ms + {tc.tolerance_ms} ms tolerance"
    return f"the {tc.turn_ms} ms turn time + {tc.tolerance_ms} ms tolerance"


def _stones_for(board: Board, colour: Player) -> list[tuple[int, int, int]]:
    """Stones in move order as ``(x, y, f)`` for the side ``colour``: f 1 = its own, 2 = the opponent's."""
    cfg = board.config
    out = []
    for idx, m in enumerate(board.history):
        owner = Player.FIRST if idx % 2 == 0 else Player.SECOND
        x, y = cfg.xy(m)
        out.append((x, y, 1 if owner is colour else 2))
    return out


def _close_all(seats, grace_s: float) -> None:
    """End both seats together (END to both, one shared grace period), never raising."""
    procs = [getattr(s, "proc", None) for s in seats]
    close_many([p for p in procs if p is not None], grace_s)
    for s in seats:
        try:
            s.close(0.0)
        except Exception:  # noqa: BLE001 - closing must never mask the game's result
            pass
