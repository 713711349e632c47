"""A match: a series of games between two engines, with colours alternating.

Scheduling: game ``g`` (1-based) is played with engine1 as X when ``g`` is odd
(``first=2`` flips this); games ``2j-1`` and ``2j`` share one opening with
colours swapped.  Up to ``concurrency`` games run at once on worker threads
(the work is waiting on pipes); results are handled on the calling thread in
the order games finish: records written, ``results.jsonl`` appended and
flushed, the tally and the SPRT updated.  Every game uses fresh engine
processes.

Interruption: on ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM turned into one by
the CLI) the stop event is set, every engine process group is killed and
reaped, running games end as ``interrupted`` and are not recorded, so
``--resume`` replays exactly them.
"""

from __future__ import annotations

import concurrent.futures as cf
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable

from engine.mnk.rules import Board, GameConfig
from referee import display
from referee.game import GameResult, MoveEvent, play_game
from referee.openings import opening_for_game
from referee.records import append_result, read_results, result_from_json, write_game_files
from referee.seats import EngineSeat, EngineSpec, HumanSeat, ProcessRegistry, TimeControl
from referee.stats import Sprt, Tally
from referee.termination import Termination

__all__ = ["MatchSettings", "MatchOutcome", "run_match", "RESULTS_FILE"]

RESULTS_FILE = "results.jsonl"


@dataclass(frozen=True)
class MatchSettings:
    """Everything that defines a match apart from the two engines."""

    config: GameConfig = GameConfig()
    tc: TimeControl = TimeControl()
    games: int = 2
    first: int = 1
    openings: tuple[tuple[int, ...], ...] = ()
    random_plies: int | tuple[int, int] = 0  # a count, or (lo, hi): a count per pair
    seed: int = 0
    concurrency: int = 1
    out_dir: str | None = None
    resume: bool = False
    log_io: bool = False
    quiet: bool = False
    sprt: Sprt | None = None

    def first_of(self, game: int) -> int:
        """Which engine (1 or 2) plays X in game number ``game``."""
        engine1_x = (game % 2 == 1) == (self.first == 1)
        return 1 if engine1_x else 2

    def opening_of(self, game: int) -> list[int]:
        return opening_for_game(game, [list(o) for o in self.openings] or None,
                                self.random_plies, self.config, self.seed)


@dataclass
class MatchOutcome:
    """The results of a match (resumed games included) and why it stopped."""

    tally: Tally
    results: list[GameResult] = field(default_factory=list)
    name1: str = "engine1"
    name2: str = "engine2"
    interrupted: bool = False
    sprt_decision: str | None = None


class MatchError(Exception):
    """A match cannot start (e.g. a results file from another match without ``--resume``)."""


def _prior_results(settings: MatchSettings) -> dict[int, GameResult]:
    if not settings.out_dir:
        return {}
    path = Path(settings.out_dir) / RESULTS_FILE
    prior = read_results(path)
    if prior and not settings.resume:
        raise MatchError(f"{path} already holds {len(prior)} games: use --resume, or another --out")
    cfg = settings.config
    out = {}
    for obj in prior:
        if (obj.get("width"), obj.get("height"), obj.get("win_length"), obj.get("rule")) != (
                cfg.width, cfg.height, cfg.win_length, cfg.rule.value):
            raise MatchError(f"{path}: game {obj['game']} was played with other board settings")
        if obj.get("termination") != Termination.INTERRUPTED.value:
            out[obj["game"]] = result_from_json(obj)
    return out


def run_match(
    spec1: EngineSpec,
    spec2: EngineSpec,
    settings: MatchSettings,
    *,
    out: IO[str] | None = None,
    input_fn: Callable[[str], str] = input,
    stop: threading.Event | None = None,
    registry: ProcessRegistry | None = None,
) -> MatchOutcome:
    """Play the match; return its outcome.  Engine processes are always reaped before returning."""
    out = out if out is not None else sys.stdout
    stop = stop if stop is not None else threading.Event()
    registry = registry if registry is not None else ProcessRegistry()
    cfg = settings.config
    prior = _prior_results(settings)
    if settings.out_dir:
        Path(settings.out_dir).mkdir(parents=True, exist_ok=True)
    outcome = MatchOutcome(Tally(), name1=spec1.label, name2=spec2.label)
    for g in sorted(prior):
        if g <= settings.games:
            _count(outcome, prior[g])
    todo = [g for g in range(1, settings.games + 1) if g not in prior]
    if settings.sprt is not None and outcome.tally.games:
        t = outcome.tally
        outcome.sprt_decision = settings.sprt.state(t.wins, t.draws, t.losses).decision
        if outcome.sprt_decision is not None:
            todo = []  # a resumed match whose SPRT had already decided
    human = spec1.is_human or spec2.is_human
    workers = 1 if human else max(1, settings.concurrency)
    show_moves = not settings.quiet and workers == 1
    t0 = time.monotonic()
    lock = threading.Lock()  # serialises the per-move display (worker threads may print it)

    def say(text: str) -> None:
        if not settings.quiet:
            print(text, file=out, flush=True)

    no_about: set[str] = set()  # tags of engines that did not answer ABOUT: later games do not wait

    def make_seat(spec: EngineSpec, tag: str, log, stderr_path, log_t0: float):
        if spec.is_human:
            return HumanSeat(input_fn=input_fn, output=out, show_board=settings.quiet)
        return EngineSeat(spec, log=log, stderr_path=stderr_path, registry=registry, stop=stop,
                          tag=tag, log_t0=log_t0, about_wait=tag not in no_about)

    def on_move(ev: MoveEvent) -> None:
        with lock:
            print(f"game {ev.game} move {ev.board.stone_count}: {ev.seat_name} "
                  f"({'X' if ev.player == 1 else 'O'}) {ev.x},{ev.y}  {ev.ms} ms", file=out)
            print(display.board_text(ev.board, ev.board.history[-1]), file=out, flush=True)

    def one_game(g: int) -> GameResult:
        log = None
        err1 = err2 = None
        if settings.log_io and settings.out_dir:
            log = open(Path(settings.out_dir) / f"game-{g:04d}.log", "w", encoding="utf-8", buffering=1)
            err1 = str(Path(settings.out_dir) / f"game-{g:04d}.engine1.stderr")
            err2 = str(Path(settings.out_dir) / f"game-{g:04d}.engine2.stderr")
        try:
            now = time.monotonic()
            seats = [make_seat(spec1, "engine1", log, err1, now), make_seat(spec2, "engine2", log, err2, now)]
            first = settings.first_of(g)
            r = play_game(seats, game=g, first=first, config=cfg, tc=settings.tc,
                          opening=settings.opening_of(g), stop=stop,
                          on_move=on_move if show_moves else None,
                          on_start=(lambda xn, on: say(display.game_header(g, settings.games, xn, on)))
                          if show_moves else None)
            for tag, s in zip(("engine1", "engine2"), seats):
                if not s.is_human and s.proc.pid is not None and r.termination != "start_failed" \
                        and not s.about_answered:
                    no_about.add(tag)
            return r
        finally:
            if log is not None:
                log.close()

    def finish(r: GameResult) -> bool:
        """Record one finished game; True when the match should stop scheduling games."""
        if r.termination == Termination.INTERRUPTED.value:
            return True
        if settings.out_dir:
            write_game_files(settings.out_dir, r)
            append_result(Path(settings.out_dir) / RESULTS_FILE, r)
        _count(outcome, r)
        if not settings.quiet:
            if not show_moves:
                x_name, o_name = (r.engine1, r.engine2) if r.first == 1 else (r.engine2, r.engine1)
                say(display.game_header(r.game, settings.games, x_name, o_name))
                board = _final_board(cfg, r)
                say(display.board_text(board, board.history[-1] if board.history else None))
            say(display.verdict_text(r))
            say(display.progress_line(outcome.tally, settings.games, time.monotonic() - t0))
        if settings.sprt is not None:
            t = outcome.tally
            outcome.sprt_decision = settings.sprt.state(t.wins, t.draws, t.losses).decision
            return outcome.sprt_decision is not None
        return False

    try:
        if workers == 1:
            for g in todo:
                if stop.is_set() or finish(one_game(g)):
                    break
        else:
            with cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="game") as pool:
                pending: set[cf.Future] = set()
                queue = list(todo)
                halt = False
                try:
                    while (queue and not halt) or pending:
                        while queue and not halt and len(pending) < workers:
                            pending.add(pool.submit(one_game, queue.pop(0)))
                        done, pending = cf.wait(pending, timeout=0.5, return_when=cf.FIRST_COMPLETED)
                        for fut in done:
                            if finish(fut.result()):
                                halt = True
                finally:
                    if stop.is_set() or sys.exc_info()[0] is not None:
                        stop.set()
                        registry.kill_all()
    except KeyboardInterrupt:
        stop.set()
        registry.kill_all()
        outcome.interrupted = True
    except BaseException:
        stop.set()
        registry.kill_all()
        raise
    finally:
        registry.kill_all()
    outcome.interrupted = outcome.interrupted or stop.is_set()
    return outcome


def _count(outcome: MatchOutcome, r: GameResult) -> None:
    if not outcome.results:
        outcome.name1, outcome.name2 = r.engine1, r.engine2
    outcome.results.append(r)
    outcome.tally.add(r.score1, r.first == 1)


def _final_board(cfg: GameConfig, r: GameResult) -> Board:
    board = Board(cfg)
    for x, y in r.moves:
        board.play(cfg.move(x, y))
    return board
