"""A match: a series of games between two engines, with colours alternating.

Scheduling: game ``g`` (1-based) is played with engine1 as X when ``g`` is odd
(``first=2`` flips this); games ``2j-1`` and ``2j`` share one opening with
colours swapped; random openings are drawn from the match's seed and the
game number alone, so a seed repeats a match and a resumed match keeps its
openings (an unset seed is drawn at random, or taken from the resumed match's
records, where every game keeps it).  Up to ``concurrency`` games run at once
on worker threads (the work is waiting on pipes); results are handled on the
calling thread in the order games finish: records written, ``results.jsonl``
appended and flushed, the tally and the SPRT updated.  Every game uses fresh
engine processes.  A human who types ``quit`` (or ends the input) resigns the
game being played, which is recorded; no further game starts.

Start check: before the first game each engine command is started once, as a
game starts it (Gomocup: spawn, ``START`` with the match's board answered ``OK`` within
``start_ms``, ``ABOUT``; NBoard: ``nboard 2``, ``set game``, ``ping`` answered ``pong``),
then ended.  One that cannot start fails the whole
match with a :class:`MatchError` naming it, before any game is played: a
missing program or a refused board size would otherwise lose every game by
``start_failed`` and still print an Elo.  An engine that passes the check but
fails later gets per-game verdicts as usual.

Cluster: with ``cluster`` set, :mod:`referee.cluster` runs the start check
on every Dask worker and plays each game there as one task
(:class:`referee.gamejob.GameJob`); the records are still written here, as
games come back.

Interruption: on ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM turned into one by
the CLI) the stop event is set, every engine process group is killed and
reaped, running games end as ``interrupted`` and are not recorded, so
``--resume`` replays exactly them.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable

from engine.mnk.rules import GameConfig
from referee import display
from referee.game import GameResult, MoveEvent, play_game
from referee.gamejob import GameJob
from referee.games import rules_for
from referee.openings import describe_openings, opening_for_game, plies_bounds
from referee.records import (
    append_result,
    read_results,
    result_from_json,
    write_game_files,
    write_match_file,
)
from referee.seats import EngineSpec, ProcessRegistry, TimeControl, open_seat
from referee.startcheck import MatchError, check_engines
from referee.stats import Sprt, Tally
from referee.termination import Termination

__all__ = ["MatchSettings", "MatchOutcome", "MatchError", "run_match", "check_engines", "RESULTS_FILE"]

RESULTS_FILE = "results.jsonl"


@dataclass(frozen=True)
class MatchSettings:
    """Everything that defines a match apart from the two engines."""

    #: The game: an m,n,k ``GameConfig`` or a ``ReversiConfig``.
    config: Any = GameConfig()
    tc: TimeControl = TimeControl()
    games: int = 2
    first: int = 1
    openings: tuple[tuple[int, ...], ...] = ()
    random_plies: int | tuple[int, int] = 0  # a count, or (lo, hi): a count per pair
    #: Seed of the random openings; ``None``: :func:`run_match` takes the one recorded in a
    #: resumed match, or draws one (printed and recorded, so that ``seed=`` repeats the match).
    seed: int | None = None
    concurrency: int = 1
    out_dir: str | None = None
    resume: bool = False
    log_io: bool = False
    quiet: bool = False  # the same as display="none"
    sprt: Sprt | None = None
    #: What is printed as games go: one of :data:`referee.display.DISPLAYS`.
    display: str = "moves"
    #: ``local:N`` or a Dask scheduler's address: the games are played there (see
    #: :mod:`referee.cluster`); ``None``: here, ``concurrency`` at a time.
    cluster: str | None = None

    @property
    def shown(self) -> str:
        """The display in effect (``quiet`` wins)."""
        return "none" if self.quiet else self.display

    def first_of(self, game: int) -> int:
        """Which engine (1 or 2) plays X in game number ``game``."""
        engine1_x = (game % 2 == 1) == (self.first == 1)
        return 1 if engine1_x else 2

    @property
    def random_openings(self) -> bool:
        """True when games start from random stones (so the seed matters)."""
        return not self.openings and plies_bounds(self.random_plies)[1] > 0

    def opening_of(self, game: int) -> list[int]:
        """The opening stones of game number ``game`` (a seed of ``None`` counts as 0 here)."""
        return opening_for_game(game, [list(o) for o in self.openings] or None,
                                self.random_plies, self.config, self.seed or 0)

    def openings_text(self) -> str:
        """How the games of this match start, in one line (the seed included)."""
        return describe_openings(len(self.openings), self.random_plies, self.seed,
                                 rules_for(self.config).opening_unit)


@dataclass
class MatchOutcome:
    """The results of a match (resumed games included) and why it stopped."""

    tally: Tally
    results: list[GameResult] = field(default_factory=list)
    name1: str = "engine1"
    name2: str = "engine2"
    interrupted: bool = False
    sprt_decision: str | None = None
    #: The settings the match ran with (the seed resolved).
    settings: MatchSettings | None = None
    #: How engine1 and engine2 are called in text: ``engine1``/``engine2``, or a human's name.
    labels: tuple[str, str] = ("engine1", "engine2")
    #: The name of the human who ended the match (``quit`` or end of input), if one did.
    ended_by: str | None = None


def _prior_results(settings: MatchSettings) -> dict[int, GameResult]:
    if not settings.out_dir:
        return {}
    path = Path(settings.out_dir) / RESULTS_FILE
    prior = read_results(path)
    if prior and not settings.resume:
        raise MatchError(f"{path} already holds {len(prior)} games: use --resume, or another --out")
    rules = rules_for(settings.config)
    out = {}
    for obj in prior:
        if rules.record_key(obj) != rules.current_key():
            raise MatchError(f"{path}: game {obj['game']} was played with other game or board settings")
        if obj.get("termination") not in (Termination.INTERRUPTED.value, Termination.ABANDONED.value):
            out[obj["game"]] = result_from_json(obj)
    return out


def _resolve_seed(settings: MatchSettings, prior: dict[int, GameResult]) -> MatchSettings:
    """Fix the random openings' seed: the given one, a resumed match's, or a new random one."""
    if not settings.random_openings:
        return settings
    recorded = {r.seed for r in prior.values() if r.seed is not None}
    if settings.seed is not None:
        if recorded and recorded != {settings.seed}:
            raise MatchError(f"the games in {settings.out_dir} were played with --seed {min(recorded)}: "
                             f"resume with that seed, or without --seed")
        return settings
    if len(recorded) > 1:
        raise MatchError(f"the games in {settings.out_dir} were played with several seeds: give --seed")
    # A short seed is easy to type back; a million openings sequences are plenty.
    seed = recorded.pop() if recorded else random.SystemRandom().randrange(1, 1_000_000)
    return dataclasses.replace(settings, seed=seed)


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
    rules = rules_for(cfg)
    prior = _prior_results(settings)
    settings = _resolve_seed(settings, prior)
    made_out_dir = bool(settings.out_dir) and not Path(settings.out_dir).exists()
    if settings.out_dir:
        Path(settings.out_dir).mkdir(parents=True, exist_ok=True)
    outcome = MatchOutcome(Tally(), name1=spec1.label, name2=spec2.label, settings=settings)
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
    mode = settings.shown
    if mode == "board" and workers > 1:
        mode = "moves"  # boards of simultaneous games would interleave line by line
    if settings.cluster and mode in ("board", "moves"):
        mode = "games"  # a cluster's workers play the moves: whole games come back
    per_move = mode in ("board", "moves")
    labels = tuple(spec.label if spec.is_human else tag for spec, tag in ((spec1, "engine1"), (spec2, "engine2")))
    outcome.labels = labels
    t0 = time.monotonic()
    lock = threading.Lock()  # serialises the per-move display (worker threads may print it)

    def say(text: str) -> None:
        if mode != "none":
            with lock:
                print(text, file=out, flush=True)

    no_about: set[str] = set()  # tags of engines that did not answer ABOUT: later games do not wait

    def make_seat(spec: EngineSpec, tag: str, log, stderr_path, log_t0: float, g: int):
        # the person needs the board before each move unless every move's board is shown anyway;
        # the random mover repeats its moves for a given seed, game and side
        # (as a cluster game's job has it: the seed only when the openings are random)
        seed = f"{settings.seed}/{g}/{tag}" if settings.random_openings and settings.seed is not None else None
        return open_seat(spec, cfg, log=log, stderr_path=stderr_path, registry=registry, stop=stop,
                         tag=tag, log_t0=log_t0, about_wait=tag not in no_about, input_fn=input_fn,
                         output=out, show_board=mode != "board", seed=seed)

    def on_move(ev: MoveEvent, human_colours: frozenset = frozenset()) -> None:
        with lock:
            print(display.move_line(ev), file=out, flush=mode != "board")
            if mode == "board":
                over = rules.outcome(ev.board, {1: "", 2: ""}) is not None
                # a person to move next sees the legal moves marked (the seat prints no board itself)
                text = rules.final_board_text(ev.board) if over else \
                    rules.board_text(ev.board, legal=int(ev.board.to_move) in human_colours)
                print(text, file=out, flush=True)

    legend_due = [rules.board_legend] if rules.board_legend else []  # what the marks mean, once

    def legend_once() -> str:
        try:
            return "\n" + legend_due.pop()  # one atomic pop: two games' threads never both show it
        except IndexError:
            return ""

    def header(g: int, names: tuple[str, str], first: int) -> str:
        x, o = (0, 1) if first == 1 else (1, 0)
        opening = settings.opening_of(g)
        if isinstance(cfg, GameConfig):
            opening = [cfg.xy(m) for m in opening]
        text = display.game_header(g, settings.games, display.who(names[x], labels[x]),
                                   display.who(names[o], labels[o]), cfg, opening)
        # every move's board follows the header: the legend goes above the first one
        return text + legend_once() if mode == "board" else text

    def one_game(g: int) -> GameResult:
        log = None
        err1 = err2 = None
        if settings.log_io and settings.out_dir:
            log = open(Path(settings.out_dir) / f"game-{g:04d}.log", "w", encoding="utf-8", buffering=1)
            err1 = str(Path(settings.out_dir) / f"game-{g:04d}.engine1.stderr")
            err2 = str(Path(settings.out_dir) / f"game-{g:04d}.engine2.stderr")
        try:
            now = time.monotonic()
            seats = [make_seat(spec1, "engine1", log, err1, now, g), make_seat(spec2, "engine2", log, err2, now, g)]
            first = settings.first_of(g)

            def on_start(x_name: str, o_name: str) -> None:
                say(header(g, (seats[0].name, seats[1].name), first))

            humans = frozenset(c for c, spec in zip((1, 2), (spec1, spec2) if first == 1 else (spec2, spec1))
                               if spec.is_human)
            r = play_game(seats, game=g, first=first, config=cfg, tc=settings.tc,
                          opening=settings.opening_of(g), stop=stop,
                          on_move=(lambda ev: on_move(ev, humans)) if per_move else None,
                          on_start=on_start if per_move else None)
            r.seed = settings.seed if settings.random_openings else None
            for s in seats:
                if getattr(s, "quit_requested", False):
                    outcome.ended_by = s.name  # this game is recorded; no other starts
            for tag, s in zip(("engine1", "engine2"), seats):
                proc = getattr(s, "proc", None)
                if proc is not None and proc.pid is not None and r.termination != "start_failed" \
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
        if mode != "none":
            if not per_move:
                say(header(r.game, (r.engine1, r.engine2), r.first))
            if mode != "board" and r.moves:  # (board mode has just shown it)
                say(rules.final_board_text(rules.replay(r.moves)) + legend_once())
            say(display.verdict_text(r, labels))
            say(display.progress_line(outcome.tally, settings.games, time.monotonic() - t0, labels[0],
                                      **(farm.progress() if farm is not None else {})))
        if settings.sprt is not None:
            t = outcome.tally
            outcome.sprt_decision = settings.sprt.state(t.wins, t.draws, t.losses).decision
            return outcome.sprt_decision is not None
        return False

    farm = None  # the cluster that plays the games, when there is one
    try:
        if todo and settings.cluster:
            if human:
                raise MatchError("a human plays at this terminal, not on a cluster: leave out --cluster")
            farm = _cluster_farm(settings.cluster)
        if todo:
            checked = (farm.check_engines if farm is not None else check_engines)(
                {"engine1": spec1, "engine2": spec2}, cfg, settings.tc, registry=registry, stop=stop)
            for tag, seat in checked.items():
                if not seat.about_answered:
                    no_about.add(tag)  # the check waited for ABOUT already: the games need not
            names = [spec1.label, spec2.label]
            for i, tag in enumerate(("engine1", "engine2")):
                if tag in checked:
                    names[i] = checked[tag].name  # what ABOUT said
            say(display.match_banner((names[0], names[1]), labels, settings.games, cfg,
                                     display.clock_text(settings.tc)))
            say(f"openings: {settings.openings_text()}")
        if farm is not None:
            about = tuple(tag not in no_about for tag in ("engine1", "engine2"))
            farm.play(todo, lambda g: _job(settings, (spec1, spec2), g, about), finish, stop=stop,
                      out_dir=settings.out_dir)
        elif workers == 1:
            for g in todo:
                if stop.is_set() or finish(one_game(g)) or outcome.ended_by is not None:
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
        if farm is not None:
            farm.close()
        if settings.out_dir:  # interrupted too: the games played so far, in one file
            write_match_file(settings.out_dir, rules.game_type, RESULTS_FILE)
            if made_out_dir and not any(Path(settings.out_dir).iterdir()):
                Path(settings.out_dir).rmdir()  # a match that failed to start leaves no empty folder
    outcome.interrupted = outcome.interrupted or stop.is_set()
    return outcome


def _job(settings: MatchSettings, specs: tuple[EngineSpec, EngineSpec], game: int,
         about_wait: tuple[bool, bool]) -> GameJob:
    """Game ``game`` of the match ``settings`` (its seed already resolved) as a cluster task plays it."""
    return GameJob(game=game, specs=specs, first=settings.first_of(game), config=settings.config,
                   tc=settings.tc, opening=tuple(settings.opening_of(game)),
                   seed=settings.seed if settings.random_openings else None,
                   about_wait=about_wait, log_io=settings.log_io and settings.out_dir is not None)


def _count(outcome: MatchOutcome, r: GameResult) -> None:
    if not outcome.results:
        outcome.name1, outcome.name2 = r.engine1, r.engine2
    outcome.results.append(r)
    if r.termination != Termination.ABANDONED.value:  # no one played it: no score
        outcome.tally.add(r.score1, r.first == 1)


def _cluster_farm(address: str):
    """The open :class:`referee.cluster.ClusterFarm` at ``address`` (Dask is imported here, and only here)."""
    try:
        from referee.cluster import ClusterFarm
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("dask", "distributed"):
            raise
        raise MatchError("--cluster needs Dask: pip install 'mnk-mcts[cluster]'") from None
    farm = ClusterFarm(address)
    farm.open()
    return farm
