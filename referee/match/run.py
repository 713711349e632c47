"""A match: a series of games between two engines (or a tournament of more), played, recorded and
summed up as they end.

:func:`run_match` puts the pieces together: the :class:`~referee.match.schedule.Schedule`
(which games, openings and colours; ``--resume``), a runner
(:mod:`referee.match.runner`: games on threads here, or on a Dask cluster), the
:class:`~referee.match.view.MatchView` (what is printed) and the records
(:mod:`referee.match.records`).  Finished games are handled on the calling thread in
the order they end: records written, ``results.jsonl`` appended and flushed, the
tally and the SPRT updated.  Every game uses fresh engine processes.  A person who
types ``quit`` (or ends the input) resigns the game being played, which is
recorded; no further game starts.

Start check: before the first game each engine command is started once, as a
game starts it (Gomocup: spawn, ``START`` with the match's board answered ``OK``
within ``start_ms``, ``ABOUT``; NBoard: ``nboard 2``, ``set game``, ``ping``
answered ``pong``), then ended.  One that cannot start fails the whole match with
a :class:`~referee.errors.MatchError` naming it, before any game is played: a
missing program or a refused board size would otherwise lose every game by
``start_failed`` and still print an Elo.  An engine that passes the check but
fails later gets per-game verdicts as usual.  On a cluster the check runs on
every worker.  Engines that would share a name (the same program with other options,
an engine against itself) are then given distinct ones (:mod:`referee.match.names`),
which every record and text of the match uses.

Outputs: every output path is checked before the engines start
(:mod:`referee.match.writable`); a record that cannot be written later stops the
match, the games recorded so far kept (``outcome.write_error`` says what failed).

Interruption: on ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM turned into one by the
CLI) the stop event is set, every engine process group is killed and reaped,
running games end as ``interrupted`` and are not recorded, so ``--resume``
replays exactly them.

A tournament (:func:`run_tournament`, more than two engines) is the same run: its
:class:`~referee.match.tournament.Tournament` says which two engines play each game, the
:class:`~referee.match.standings.Standings` count the games instead of the two-engine
tally, and each game's line in ``results.jsonl`` also names its pairing and engines (by
their places).  No person plays in one, and it has no SPRT.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path
from typing import IO, Callable, Sequence

from referee.errors import MatchError
from referee.games import rules_for
from referee.games.verdicts import Termination
from referee.match.records import append_pgn, append_result, write_game_files, write_match_file
from referee.match.runner import Runner, open_runner
from referee.match.names import unique_names
from referee.match.schedule import Schedule, require_recorded_match
from referee.match.settings import COMMAND_FILE, RESULTS_FILE, MatchOutcome, MatchSettings
from referee.match.standings import Standings
from referee.match.stats import Tally
from referee.match.view import MatchView, display_mode
from referee.match.writable import check_outputs, is_output_error, write_failure_text
from referee.play.job import GameHooks, GameJob, PlayedGame
from referee.report.live import LiveReport
from referee.engines.registry import ProcessRegistry
from referee.seats.spec import EngineSpec

__all__ = ["run_match", "run_tournament"]


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
    return run_tournament((spec1, spec2), settings, out=out, input_fn=input_fn, stop=stop, registry=registry)


def run_tournament(
    specs: Sequence[EngineSpec],
    settings: MatchSettings,
    *,
    out: IO[str] | None = None,
    input_fn: Callable[[str], str] = input,
    stop: threading.Event | None = None,
    registry: ProcessRegistry | None = None,
) -> MatchOutcome:
    """Play a round-robin (or with ``settings.gauntlet`` a gauntlet) of ``specs``; with two
    engines, the match :func:`run_match` plays.  The outcome of more carries the standings."""
    if len(specs) < 2:
        raise MatchError("a match needs two engines")
    if len(specs) > 2 and any(s.is_human for s in specs):
        raise MatchError("a person plays a match of two sides, not a tournament")
    if settings.resume and settings.out_dir:
        require_recorded_match(settings.out_dir)
    # every output path is proved writable before an engine starts: no game is played and then lost
    made_out_dir = check_outputs(settings.out_dir, settings.pgn, files=(RESULTS_FILE, COMMAND_FILE))
    try:
        match = _Match(tuple(specs), settings, out if out is not None else sys.stdout, input_fn,
                       stop if stop is not None else threading.Event(),
                       registry if registry is not None else ProcessRegistry())
    except BaseException:
        if made_out_dir:
            _remove_if_empty(Path(settings.out_dir))
        raise
    match.made_out_dir = made_out_dir
    return match.run()


def _remove_if_empty(d: Path) -> None:
    """Remove the folder ``d`` when it holds nothing (a match that failed to start leaves none)."""
    try:
        if d.is_dir() and not any(d.iterdir()):
            d.rmdir()
    except OSError:
        pass


class _Match:
    """One run of :func:`run_tournament`: its schedule, outcome, view and runner."""

    def __init__(self, specs: tuple[EngineSpec, ...], settings: MatchSettings, out: IO[str],
                 input_fn: Callable[[str], str], stop: threading.Event, registry: ProcessRegistry) -> None:
        self.specs = specs
        self.schedule = Schedule(specs, settings)
        self.tournament = self.schedule.tournament
        self.settings = settings = self.schedule.settings
        self.rules = rules_for(settings.config)
        self.stop = stop
        self.registry = registry
        self.input_fn = input_fn
        self.human = any(s.is_human for s in specs)
        #: How each engine is called in text: ``engineN`` (by its place), or a human's name.
        self.tags = [s.label if s.is_human else f"engine{i + 1}" for i, s in enumerate(specs)]
        labels = (self.tags[0], self.tags[1])
        self.outcome = MatchOutcome(Tally(), name1=specs[0].label, name2=specs[1].label, settings=settings,
                                    labels=labels, paired=not self.human)
        if not self.tournament.is_match:
            self.outcome.standings = Standings(self.tournament, [s.label for s in specs], self.tags)
        self.workers = 1 if self.human else max(1, settings.concurrency)
        self.view = MatchView(out, display_mode(settings, self.workers), self.rules, settings, labels,
                              self.tournament, self.outcome.standings,
                              untimed=tuple(s.label for s in specs if s.is_human))
        #: Per engine: wait for its name after each start (False once it did not give one).
        self.about_wait = [True] * len(specs)
        self.runner: Runner | None = None
        #: ``out_dir`` did not exist before this match (it is removed again if left empty).
        self.made_out_dir = False
        #: ``out_dir/report.html``, rewritten as games are recorded (``None`` without ``--out``).
        self.report = LiveReport.of_match(settings, [s.label for s in specs], self.tags, paired=not self.human)

    def run(self) -> MatchOutcome:
        settings, outcome = self.settings, self.outcome
        out_dir = Path(settings.out_dir) if settings.out_dir else None
        for r in self.schedule.prior.values():
            outcome.count(r)
        todo = [] if self._sprt_decided() else self.schedule.todo  # a resumed match may have decided
        try:
            if todo:
                self._start()
                if out_dir is not None:
                    self._record_command(out_dir)
                self.runner.play(todo, self._job, self._finish, stop=self.stop, out_dir=settings.out_dir)
        except KeyboardInterrupt:
            outcome.interrupted = True
            self.stop.set()
        except OSError as exc:
            if not is_output_error(exc, settings.out_dir, settings.pgn):
                self.stop.set()
                raise
            self._write_failed(exc)  # (a game's I/O log could not be opened)
        except BaseException:
            self.stop.set()  # the games still being played end now
            raise
        finally:
            self.registry.kill_all()
            if self.runner is not None:
                self.runner.close()
            if out_dir is not None:  # interrupted too: the games played so far, in one file
                try:
                    write_match_file(out_dir, self.rules.game_type, RESULTS_FILE)
                except OSError as exc:
                    self._write_failed(exc)
                if self.report is not None:
                    self.report.close(interrupted=self.stop.is_set() or outcome.interrupted)
                if self.made_out_dir:
                    _remove_if_empty(out_dir)
        outcome.interrupted = (outcome.interrupted or self.stop.is_set()) and outcome.write_error is None
        return outcome

    def _record_command(self, out_dir: Path) -> None:
        """Keep the command line that started the match in ``out_dir`` (a resumed match keeps the first)."""
        path = out_dir / COMMAND_FILE
        if self.settings.command and not path.exists():
            path.write_text(self.settings.command + "\n", encoding="utf-8")

    def _write_failed(self, exc: OSError) -> None:
        """A record could not be written: no further game starts and the games being played end
        (a resumed match plays them); the games recorded so far are kept."""
        if self.outcome.write_error is None:
            self.outcome.write_error = write_failure_text(exc)
        self.stop.set()

    def _start(self) -> None:
        """Open the runner, check the engines start, print the banner."""
        if self.settings.cluster and self.human:
            raise MatchError("a human plays at this terminal, not on a cluster: leave out --cluster")
        self.runner = open_runner(self.settings.cluster, self.workers, self.registry, self._hooks,
                                  keep_engines=self.settings.restart == "auto" and not self.settings.log_io)
        # (a tournament's engines by their places: the cluster's first two are still engine1, engine2)
        tags = [f"engine{i + 1}" for i in range(len(self.specs))]
        checked = self.runner.check_engines(dict(zip(tags, self.specs)), self.settings.config, self.settings.tc,
                                            stop=self.stop)
        names = [s.label for s in self.specs]
        for i, tag in enumerate(tags):
            if tag in checked:
                names[i] = checked[tag].name  # what ABOUT said
                # the check waited for ABOUT already: the games need not
                self.about_wait[i] = self.about_wait[i] and checked[tag].about_answered
        names, told = self._unique(names)
        if self.outcome.standings is not None:
            self.outcome.standings.names = list(names)
        self.view.banner(names)
        if told:
            self.view.say(f"names: engines with the same name are told apart (rating tools need unique names): "
                          f"{told}")

    def _unique(self, names: list[str]) -> tuple[list[str], str]:
        """Give engines that would share a name distinct ones (:mod:`referee.match.names`): their
        specs carry the new name (an engine's own name no longer replaces it), so every record and
        text of the match uses it.  The names, and what was renamed in words (``""``: nothing)."""
        unique = unique_names(self.specs, names)
        changed = [i for i, (a, b) in enumerate(zip(names, unique)) if a != b]
        if not changed:
            return names, ""
        specs = list(self.specs)
        for i in changed:
            specs[i] = dataclasses.replace(specs[i], label=unique[i], named=True)
        self.specs = self.schedule.specs = self.tournament.specs = tuple(specs)
        return unique, ", ".join(f"engine{i + 1} is '{unique[i]}'" for i in changed)

    def _job(self, game: int) -> GameJob:
        return self.schedule.job(game, self.about_wait)

    def _hooks(self, job: GameJob) -> GameHooks:
        """What a local game gets: the terminal, the display's callbacks, the registry, the log folder."""
        view = self.view
        specs = job.specs if job.first == 1 else job.specs[::-1]
        humans = frozenset(c for c, spec in zip((1, 2), specs) if spec.is_human)
        return GameHooks(
            input_fn=self.input_fn, output=view.out, show_board=view.mode != "board",
            on_start=(lambda names: view.game_started(job.game, names)) if view.per_move else None,
            on_move=(lambda ev: view.move(ev, humans)) if view.per_move else None,
            registry=self.registry, log_dir=self.settings.out_dir if self.settings.log_io else None)

    def _finish(self, played: PlayedGame) -> bool:
        """Record one finished game; True when the match should start no further game."""
        r = played.result
        if r.termination == Termination.INTERRUPTED.value:
            return True
        engines = self.tournament.engines_of(r.game)
        for side, e in enumerate(engines):
            self.about_wait[e] = self.about_wait[e] and played.about_answered[side]
        if not self.tournament.is_match:
            # a game calls its sides engine1 and engine2; the tournament's texts call them by their places
            r.reason = self.tournament.retag(r.game, r.reason)
            if r.termination == Termination.ABANDONED.value:  # (a cluster names them after the first two)
                r.engine1, r.engine2 = (self.outcome.standings.names[e] for e in engines)
        if self.outcome.write_error is not None:
            return True  # the records can no longer be written: a resumed match plays this game
        try:
            self._record(r)
        except OSError as exc:
            self._write_failed(exc)
        self.outcome.count(r)
        if self.report is not None:
            self.report.game_recorded(r, self.tournament.record_fields(r.game))
        self.view.game_ended(r, self.outcome, self.runner.progress() if self.runner is not None else {})
        if self.outcome.write_error is not None:
            return True
        if played.ended_by is not None:
            self.outcome.ended_by = played.ended_by  # this game is recorded; no other starts
            return True
        return self._sprt_decided()

    def _record(self, r) -> None:
        """Write a finished game's records: its line in results.jsonl first (what ``--resume``
        reads: a game there is never played again), then its own files and the PGN."""
        if self.settings.out_dir:
            append_result(Path(self.settings.out_dir) / RESULTS_FILE,
                          {**r.to_json(), **self.tournament.record_fields(r.game)})
            write_game_files(self.settings.out_dir, r)
        if self.settings.pgn:
            append_pgn(self.settings.pgn, r)

    def _sprt_decided(self) -> bool:
        if self.settings.sprt is None or not self.outcome.tally.games or not self.tournament.is_match:
            return False
        self.outcome.sprt_decision = self.outcome.sprt_state(self.settings.sprt).decision
        return self.outcome.sprt_decision is not None
