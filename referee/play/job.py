"""One game of a match as picklable settings, and the one call that plays it anywhere.

A :class:`GameJob` holds everything needed to play game ``g`` of a match
between two engine commands (no open file, thread or process), so it can be
sent to another process or machine; :func:`play_job` plays it there with the
referee's own adjudication (:func:`referee.play.game.play_game`, the function a
local game uses) and returns a :class:`PlayedGame`: the finished
:class:`~referee.play.game.GameResult` plus, when asked, the protocol I/O log and
the engines' stderr as text, for the match's coordinator to write.  Every
engine process the game started is ended before it returns, also when it
raises.  A local game is the same call with :class:`GameHooks`: what only a game
played here can have (a person's terminal, the display's callbacks, the match's
process registry, the log folder).

:func:`abandoned_result` is the record of a game that could not be played
(its worker died on every try, or the referee failed there): no winner, no
one at fault, not scored, played again by ``--resume``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable

from referee.play.game import MoveEvent, play_game
from referee.play.pool import EnginePool
from referee.play.result import GameResult
from referee.games import rules_for
from referee.games.adjudication import Adjudication
from referee.engines.registry import ProcessRegistry
from referee.games.clock import TimeControl
from referee.seats.factory import open_seat
from referee.seats.spec import EngineSpec
from referee.games.verdicts import Termination

__all__ = ["GameJob", "GameHooks", "PlayedGame", "play_job", "abandoned_result", "MAX_LOG_BYTES"]

#: How much of one I/O log or stderr a played game carries back (its end: where a crash shows).
MAX_LOG_BYTES = 1 << 20
#: The engines' tags in logs and records, engine1 first.
TAGS = ("engine1", "engine2")


@dataclass(frozen=True)
class GameJob:
    """Game number ``game`` of a match between ``specs[0]`` (engine1) and ``specs[1]`` (engine2).

    ``config`` is the game (an m,n,k ``GameConfig`` or a ``ReversiConfig``: plain
    frozen dataclasses, so the job pickles whatever the game); ``first`` says which
    of them plays the first colour; ``opening`` holds the game's move ints placed
    beforehand; ``seed`` is what the record keeps as the match's
    random-opening seed (``None``: the openings were not random);
    ``mover_seed`` repeats the built-in random mover's moves, with the game and
    the side (``None``: they are not repeatable).
    ``about_wait[i]`` is False for an engine known not to answer ``ABOUT``
    (the game need not wait for it); ``log_io`` asks for the I/O log and the
    engines' stderr; ``adjudication`` when the referee declares a draw.
    """

    game: int
    specs: tuple[EngineSpec, EngineSpec]
    first: int
    config: Any
    tc: TimeControl
    opening: tuple[int, ...] = ()
    seed: int | None = None
    about_wait: tuple[bool, bool] = (True, True)
    log_io: bool = False
    adjudication: Adjudication = Adjudication()
    mover_seed: int | None = None


@dataclass
class GameHooks:
    """What a game played here can have beside its job (none of it pickles).

    ``input_fn``, ``output`` and ``show_board`` are a person's terminal;
    ``on_start(names)`` (engine1's and engine2's names once started) and ``on_move``
    the display's callbacks; ``registry`` the match's live processes (an interrupt
    kills them); ``log_dir`` where the I/O log and stderr files are written as the
    game goes (``game-NNNN.log``, ``game-NNNN.engineN.stderr``) instead of coming
    back as text; ``pool`` the engines kept between games (none: each game starts its
    own processes and ends them).
    """

    input_fn: Callable[[str], str] = input
    output: IO[str] | None = None
    show_board: bool = False
    on_start: Callable[[tuple[str, str]], None] | None = None
    on_move: Callable[[MoveEvent], None] | None = None
    registry: ProcessRegistry | None = None
    log_dir: str | None = None
    pool: EnginePool | None = None


@dataclass
class PlayedGame:
    """A finished game as it comes back to the coordinator.

    ``io_log`` and ``stderr`` (engine1's, engine2's) are ``None`` unless the
    job asked for them; each holds at most the last :data:`MAX_LOG_BYTES` bytes.
    ``host`` names the machine that played it; ``about_answered`` says of each
    engine that it said its name (one that did not is not waited for again);
    ``ended_by`` names the person who ended the match (``quit`` or the end of input).
    """

    result: GameResult
    io_log: str | None = None
    stderr: tuple[str, str] | None = None
    host: str = ""
    about_answered: tuple[bool, bool] = (True, True)
    ended_by: str | None = None

    def write_logs(self, out_dir: str | os.PathLike) -> None:
        """Write the I/O log and stderr as a local game does (``game-NNNN.log`` / ``.engineN.stderr``)."""
        d = Path(out_dir)
        stem = f"game-{self.result.game:04d}"
        if self.io_log is not None:
            (d / f"{stem}.log").write_text(self.io_log, encoding="utf-8")
        for tag, text in zip(TAGS, self.stderr or ()):
            (d / f"{stem}.{tag}.stderr").write_text(text, encoding="utf-8")


def play_job(job: GameJob, *, stop: threading.Event | None = None, hooks: GameHooks | None = None) -> PlayedGame:
    """Play ``job`` here; return the finished game.

    ``stop`` interrupts it (the result's termination is then ``interrupted``);
    ``hooks`` attach what only a local game has.  No engine process outlives the call,
    but those the hooks' pool keeps for the next game.
    """
    hooks = hooks or GameHooks()
    registry = hooks.registry if hooks.registry is not None else ProcessRegistry()
    to_dir = hooks.log_dir is not None and job.log_io
    logs = tempfile.TemporaryDirectory(prefix="referee-game-") if job.log_io and not to_dir \
        else contextlib.nullcontext(hooks.log_dir if to_dir else None)
    with logs as folder:
        stem = f"game-{job.game:04d}." if to_dir else ""
        paths = [os.path.join(folder, f"{stem}{tag}.stderr") for tag in TAGS] if folder else [None, None]
        log = open(os.path.join(folder, f"{stem}log" if to_dir else "io.log"), "w", encoding="utf-8",
                   buffering=1) if folder else None
        pool = hooks.pool if not job.log_io else None  # a game's logs need its own processes
        seats = []
        try:
            now = time.monotonic()
            for spec, path, tag, wait in zip(job.specs, paths, TAGS, job.about_wait):
                kept = pool.take(spec) if pool is not None and spec.is_process else None
                seats.append(kept or open_seat(
                    spec, job.config, log=log, stderr_path=path, registry=registry, stop=stop, tag=tag, log_t0=now,
                    about_wait=wait, input_fn=hooks.input_fn, output=hooks.output, show_board=hooks.show_board,
                    seed=None if job.mover_seed is None else f"{job.mover_seed}/{job.game}/{tag}"))
            on_start = None if hooks.on_start is None else \
                (lambda: hooks.on_start((seats[0].name, seats[1].name)))
            result = play_game(seats, game=job.game, first=job.first, config=job.config, tc=job.tc,
                               opening=job.opening, stop=stop, on_move=hooks.on_move, on_start=on_start,
                               adjudication=job.adjudication, close=pool is None)
            result.seed = job.seed
            if pool is not None:
                pool.give_back((seats[0], seats[1]), job.specs, result)
        finally:
            if hooks.registry is None:
                registry.kill_all()  # play_game closes its seats; this covers a failure before it could
            if log is not None:
                log.close()
        started = result.termination != Termination.START_FAILED.value
        played = PlayedGame(result, host=socket.gethostname(),
                            about_answered=tuple(s.about_answered or not started for s in seats),
                            ended_by=next((s.name for s in seats if s.quit_requested), None))
        if folder and not to_dir:
            played.io_log = _tail(os.path.join(folder, "io.log"))
            played.stderr = (_tail(paths[0]), _tail(paths[1]))
    return played


def abandoned_result(job: GameJob, names: tuple[str, str], reason: str) -> GameResult:
    """The record of ``job`` when it could not be played: no winner, termination ``abandoned``."""
    rules = rules_for(job.config)
    state = rules.new_state()
    for m in job.opening:
        state.apply(m)
    return GameResult.of_game(
        rules, state, None, game=job.game, engines=names, first=job.first, winner=None,
        termination=Termination.ABANDONED.value, reason=reason, times_ms=[0] * len(job.opening),
        opening=len(job.opening), started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), seed=job.seed)


def _tail(path: str | None) -> str:
    """The text of a file, cut to its last :data:`MAX_LOG_BYTES` bytes (``""`` when missing)."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - MAX_LOG_BYTES))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    if size > MAX_LOG_BYTES:
        text = f"[the first {size - MAX_LOG_BYTES} bytes were cut]\n" + text
    return text
