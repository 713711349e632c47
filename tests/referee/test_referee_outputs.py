"""A match's output paths: checked before the first game, and a write that fails mid-match.

Every case plays random movers in the referee's own process (no engine is started), so the
tests are quick.  A failing disk is simulated by an ``OSError`` raised from the record writers.
"""

import errno
import io
import json

import pytest

from engine.mnk.board.rules import GameConfig
from referee.cli.match import main
from referee.errors import MatchError
from referee.games.clock import TimeControl
from referee.match import run as match_run
from referee.match.run import run_match
from referee.match.settings import MatchSettings
from referee.match.writable import is_output_error
from referee.seats.spec import EngineSpec

RANDOM = EngineSpec.parse("random")
SMALL = dict(config=GameConfig(7, 7, 4), tc=TimeControl(1000, 0, 1000, 5000), seed=5, random_plies=2)
CLI = ["--size", "7", "--win-length", "4", "--seed", "5", "--display", "none", "random", "random"]


@pytest.fixture
def no_engine_may_start(monkeypatch):
    """Fail the test if the match gets as far as opening its runner (which starts the engines)."""
    def refuse(*args, **kwargs):
        raise AssertionError("the match started its engines before checking its output paths")
    monkeypatch.setattr(match_run, "open_runner", refuse)


def _bad_outputs(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    return {
        "an existing file as --out": (dict(out_dir=str(a_file)), "not a directory"),
        "a folder no file can be made in": (dict(out_dir="/proc"), "cannot write files in it"),
        "a folder that cannot be made": (dict(out_dir=str(a_file / "sub")), "cannot create the directory"),
        "a --pgn nowhere": (dict(pgn="/proc/x.pgn"), "cannot be written"),
        "a folder as --pgn": (dict(pgn=str(tmp_path)), "a directory"),
        "a results file that is a folder": (dict(out_dir=str(tmp_path / "m")), "cannot be written"),
    }


@pytest.mark.parametrize("case", ["an existing file as --out", "a folder no file can be made in",
                                  "a folder that cannot be made", "a --pgn nowhere", "a folder as --pgn",
                                  "a results file that is a folder"])
def test_every_output_path_is_checked_before_an_engine_starts(tmp_path, no_engine_may_start, case):
    (tmp_path / "m" / "results.jsonl").mkdir(parents=True)
    given, said = _bad_outputs(tmp_path)[case]
    with pytest.raises(MatchError, match=said):
        run_match(RANDOM, RANDOM, MatchSettings(games=2, display="none", **given, **SMALL), out=io.StringIO())


@pytest.mark.parametrize("options", [["--out", "/proc"], ["--log-io", "--out", "/proc"], ["--pgn", "/proc/x.pgn"]])
def test_the_cli_names_an_unwritable_output_in_one_line_with_exit_status_2(options, capsys, no_engine_may_start):
    assert main(options + CLI) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"referee: {options[-2]} {options[-1]}: ")


def test_a_failed_check_leaves_no_folder_behind(tmp_path, monkeypatch):
    out = tmp_path / "new"
    with pytest.raises(MatchError, match="--pgn"):
        run_match(RANDOM, RANDOM, MatchSettings(out_dir=str(out), pgn="/proc/x.pgn", **SMALL), out=io.StringIO())
    assert not out.exists()


def _disk_full_at(monkeypatch, writer: str, game: int):
    """Make ``writer`` (a record writer as run.py calls it) fail on game ``game`` as a full disk does."""
    real = getattr(match_run, writer)

    def failing(path, r):
        number = r["game"] if isinstance(r, dict) else r.game
        if number == game:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, r)

    monkeypatch.setattr(match_run, writer, failing)


def _games_in(out):
    return sorted(json.loads(line)["game"] for line in (out / "results.jsonl").read_text().splitlines())


@pytest.mark.parametrize("writer,kept", [("append_result", [1]), ("write_game_files", [1, 2]),
                                         ("append_pgn", [1, 2])])
def test_a_write_that_fails_mid_match_stops_it_and_keeps_the_finished_games(tmp_path, monkeypatch, writer, kept):
    out, pgn = tmp_path / "m", tmp_path / "games.pgn"
    _disk_full_at(monkeypatch, writer, 2)
    settings = MatchSettings(games=6, out_dir=str(out), pgn=str(pgn), display="none", **SMALL)
    outcome = run_match(RANDOM, RANDOM, settings, out=io.StringIO())
    assert "No space left on device" in outcome.write_error and not outcome.interrupted
    assert [r.game for r in outcome.results] == [1, 2]  # no game started after the failure
    assert _games_in(out) == kept  # the results line goes first: a game there is kept
    assert (out / "game-0001.psq").exists() and "game 1" in (out / "match.sgf").read_text()
    monkeypatch.undo()
    resumed = run_match(RANDOM, RANDOM, MatchSettings(games=6, out_dir=str(out), pgn=str(pgn), display="none",
                                                      resume=True, **SMALL), out=io.StringIO())
    assert resumed.write_error is None and resumed.tally.games == 6
    assert _games_in(out) == [1, 2, 3, 4, 5, 6]


def test_the_cli_reports_a_failed_write_with_a_resume_hint_and_no_traceback(tmp_path, monkeypatch, capsys):
    out = tmp_path / "m"
    _disk_full_at(monkeypatch, "append_result", 3)
    assert main(["--games", "4", "--out", str(out)] + CLI) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "No space left on device" in err and "stopped after 3 of 4 games" in err and "--resume" in err
    assert _games_in(out) == [1, 2]


def test_a_removed_out_folder_ends_the_match_without_a_traceback(tmp_path, monkeypatch):
    out = tmp_path / "m"
    real = match_run.append_result

    def remove_then_append(path, r):
        if r["game"] == 2:
            for f in out.iterdir():
                f.unlink()
            out.rmdir()
        return real(path, r)

    monkeypatch.setattr(match_run, "append_result", remove_then_append)
    outcome = run_match(RANDOM, RANDOM, MatchSettings(games=4, out_dir=str(out), display="none", **SMALL),
                        out=io.StringIO())
    assert "cannot write" in outcome.write_error and outcome.tally.games == 2


def test_only_errors_about_the_outputs_count_as_failed_writes(tmp_path):
    out = tmp_path / "m"
    assert is_output_error(FileNotFoundError(2, "gone", str(out / "game-0001.log")), str(out), None)
    assert is_output_error(OSError(28, "full", str(tmp_path / "g.pgn")), None, str(tmp_path / "g.pgn"))
    assert not is_output_error(FileNotFoundError(2, "gone", "/usr/bin/pbrain-x"), str(out), None)
    assert not is_output_error(OSError(28, "full"), str(out), None)


def test_resume_names_the_settings_that_differ_and_the_command_recorded(tmp_path, capsys):
    out = tmp_path / "m"
    first = ["--games", "2", "--out", str(out)] + CLI
    assert main(first) == 0
    recorded = (out / "command.txt").read_text()
    assert recorded.startswith("referee --games 2 --out ") and "--win-length 4" in recorded
    capsys.readouterr()
    assert main(["--resume", "--games", "4", "--out", str(out), "--size", "9", "--rule", "exact",
                 "--display", "none", "random", "random"]) == 2
    err = capsys.readouterr().err
    assert "size 7x7 recorded, 9x9 given" in err and "win length 4 recorded, 5 given" in err
    assert "rule freestyle recorded, exact given" in err
    assert f"the match was started with: {recorded.strip()}" in err
    assert main(["--resume", "--games", "4"] + first[2:]) == 0  # the same options continue it
    assert _games_in(out) == [1, 2, 3, 4] and (out / "command.txt").read_text() == recorded  # kept as it was


def test_resume_without_a_recorded_match_says_so(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    for where, said in ((empty, "holds no match to continue"), (tmp_path / "none", "does not exist")):
        assert main(["--resume", "--out", str(where)] + CLI) == 2
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "none").exists() and list(empty.iterdir()) == []


def test_a_match_recorded_before_its_first_game_ended_can_be_resumed(tmp_path):
    out = tmp_path / "m"
    out.mkdir()
    (out / "command.txt").write_text("referee --out m random random\n")  # (stopped during game 1)
    outcome = run_match(RANDOM, RANDOM, MatchSettings(games=2, out_dir=str(out), resume=True, display="none",
                                                      **SMALL), out=io.StringIO())
    assert outcome.tally.games == 2 and _games_in(out) == [1, 2]


def test_a_log_that_cannot_be_opened_mid_match_ends_it_cleanly(tmp_path, monkeypatch):
    out = tmp_path / "m"
    real = match_run.write_game_files

    def write_then_remove_the_folder(path, r):
        written = real(path, r)
        for f in out.iterdir():
            f.unlink()
        out.rmdir()  # (game 2's I/O log is then opened in a folder that is gone)
        return written

    monkeypatch.setattr(match_run, "write_game_files", write_then_remove_the_folder)
    settings = MatchSettings(games=4, out_dir=str(out), log_io=True, display="none", **SMALL)
    outcome = run_match(RANDOM, RANDOM, settings, out=io.StringIO())
    assert "game-0002.log" in outcome.write_error and not outcome.interrupted
    assert [r.game for r in outcome.results] == [1]
