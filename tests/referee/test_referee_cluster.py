"""Matches on a Dask cluster (``referee --cluster``): the same records as a local match, no game lost
to a dead worker or coordinator, Ctrl-C and SPRT stops, the start check on the workers.

The tests that need Dask are skipped, with the reason, where it is not installed
(``pip install -e '.[test,cluster]'``); they start processes, so they are marked slow.
"""

import contextlib
import importlib.util
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.fakes import (REFEREE, assert_all_gone, cmdline, children, descendants, fake_argv, fake_cmd,
                                read_pids)
from referee.cli import match as cli
from referee.cluster.address import ClusterAddress

REF = REFEREE
SMALL = ["--size", "7", "--win-length", "4", "--turn-ms", "2000", "--tolerance-ms", "10000", "--seed", "11"]
A = ("--name", "A", "--seed", "1")
B = ("--name", "B", "--seed", "2")

HAVE_DASK = importlib.util.find_spec("distributed") is not None
needs_dask = pytest.mark.skipif(not HAVE_DASK, reason="Dask is not installed: pip install -e '.[test,cluster]'")


def run(args, timeout=120):
    return subprocess.run(REF + args, capture_output=True, text=True, timeout=timeout)


@contextlib.contextmanager
def referee(args, **popen):
    """A referee running in the background (output piped); killed, with its process group, if still running."""
    proc = subprocess.Popen(REF + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            if popen.get("start_new_session"):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.kill()
            proc.wait()


def games_of(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]


def content(games: list[dict]) -> dict[int, dict]:
    """Each game's record without what depends on the clock (start time, duration, think times)."""
    out = {}
    for g in games:
        assert g["game"] not in out, f"game {g['game']} recorded twice"
        out[g["game"]] = {k: v for k, v in g.items() if k not in ("started", "duration_s", "times_ms")}
    return out


def slow_engines(pidfile: Path, move_ms: int) -> list[str]:
    """The two fakes, each taking ``move_ms`` a move (so a game lasts long enough to be hit)."""
    slow = ("--move-ms", str(move_ms), "--pidfile", str(pidfile))
    return [fake_cmd(*A, *slow), fake_cmd(*B, *slow)]


def assert_same_as_local(farmed: Path, games: int, engines: list[str]) -> None:
    """The records in ``farmed`` are those of the same match played here: each game once, the same moves."""
    local = farmed.with_name(farmed.name + "-local")
    p = run(SMALL + ["--games", str(games), "--concurrency", "2", "--out", str(local), "--quiet", *engines])
    assert p.returncode == 0, p.stderr
    assert content(games_of(farmed)) == content(games_of(local))


def psq_moves(out: Path, game: int) -> list[str]:
    """A PSQ record's moves and trailer without the think times."""
    lines = (out / f"game-{game:04d}.psq").read_text().splitlines()
    return [",".join(ln.split(",")[:2]) for ln in lines]


def workers_of(pid: int) -> list[int]:
    """The Dask worker processes a referee started (multiprocessing's spawned children)."""
    return [p for p in descendants(pid) if "spawn_main" in cmdline(p)]


def engines_below(pid: int) -> list[int]:
    return [p for p in children(pid) if "fake_brain" in cmdline(p)]


def wait_for(cond, within_s: float, what: str):
    end = time.monotonic() + within_s
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


# --- without Dask: the address, usage errors, the import ------------------------------------------

@pytest.mark.parametrize("text,expect", [
    ("local:2", "local:2"), ("LOCAL:16", "local:16"), ("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786"),
    ("sched.example:8786", "tcp://sched.example:8786"), ("tls://[::1]:8786", "tls://[::1]:8786"),
])
def test_cluster_addresses_are_normalised(text, expect):
    assert str(ClusterAddress.parse(text)) == expect


@pytest.mark.parametrize("text", ["local:0", "local:", "local:x", "local:100000", "tcp://host", "host",
                                  "tcp://:8786", "udp://host:8786", "tcp://host:0", "tcp://host:99999", ""])
def test_bad_cluster_addresses_are_refused(text):
    with pytest.raises(ValueError, match="local:N"):
        ClusterAddress.parse(text)


@pytest.mark.parametrize("args,msg", [
    (["--cluster", "nowhere"], "local:N or a scheduler address"),
    (["--cluster", "local:0"], "from 1 to"),
    (["--cluster", "local:2", "human"], "a human plays here"),
    (["--cluster", "local:2", "--display", "moves"], "--display games or none"),
])
def test_cluster_usage_errors_exit_2_with_one_message(args, msg, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert msg in err and "Traceback" not in err


@pytest.mark.slow
def test_a_local_match_does_not_import_dask(tmp_path):
    code = ("import sys; from referee.cli.match import main; rc = main(sys.argv[1:]); "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')); "
            "print('imported:', bad); sys.exit(rc)")
    p = subprocess.run([sys.executable, "-c", code, *SMALL, "--games", "2", "--concurrency", "2", "--quiet",
                        fake_cmd(*A), fake_cmd(*B)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "imported: []" in p.stdout


@pytest.mark.slow
def test_without_dask_a_cluster_match_is_one_message():
    code = ("import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None; "
            "from referee.cli.match import main; sys.exit(main(sys.argv[1:]))")
    p = subprocess.run([sys.executable, "-c", code, *SMALL, "--cluster", "local:2", fake_cmd(*A), fake_cmd(*B)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr.strip() == "referee: --cluster needs Dask: pip install 'mnk-mcts[cluster]'"


# --- with Dask -------------------------------------------------------------------------------------

@pytest.mark.slow
@needs_dask
def test_a_cluster_match_records_what_a_local_one_does(tmp_path):
    local, farmed = tmp_path / "local", tmp_path / "farmed"
    pidfile = tmp_path / "pids"
    engines = [fake_cmd(*A, "--pidfile", str(pidfile)), fake_cmd(*B, "--messages", "2")]
    p = run(SMALL + ["--games", "6", "--concurrency", "2", "--out", str(local), "--quiet", "--log-io", *engines])
    assert p.returncode == 0, p.stderr
    p = run(SMALL + ["--games", "6", "--cluster", "local:2", "--out", str(farmed), "--log-io", *engines])
    assert p.returncode == 0, p.stderr
    assert content(games_of(farmed)) == content(games_of(local))
    for g in range(1, 7):
        assert psq_moves(farmed, g) == psq_moves(local, g)
        log = (farmed / f"game-{g:04d}.log").read_text()
        assert "engine1 > START 7" in log and (farmed / f"game-{g:04d}.engine2.stderr").exists()
    assert "[6/6] engine1" in p.stdout and "games/s  2 workers" in p.stdout
    assert_all_gone(read_pids(pidfile))


@pytest.mark.slow
@needs_dask
def test_an_engine_that_cannot_start_on_a_worker_fails_the_match_with_one_message(tmp_path):
    p = run(SMALL + ["--cluster", "local:1", "--out", str(tmp_path / "m"), fake_cmd(*A),
                     fake_cmd("--start-error")])
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: on the Dask worker tcp://"), p.stderr
    assert "engine2" in lines[0] and "refused START" in lines[0] and "no game was played" in lines[0]
    assert not (tmp_path / "m" / "results.jsonl").exists()


@pytest.mark.slow
@needs_dask
def test_an_unreachable_scheduler_is_one_message():
    p = run(SMALL + ["--cluster", "tcp://127.0.0.1:9", fake_cmd(*A), fake_cmd(*B)], timeout=60)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: cannot reach the Dask scheduler at tcp://127.0.0.1:9")


@pytest.mark.slow
@needs_dask
def test_a_killed_worker_loses_no_game_and_leaves_no_engine(tmp_path):
    farmed, pidfile = tmp_path / "farmed", tmp_path / "pids"
    engines = slow_engines(pidfile, 40)
    with referee(SMALL + ["--games", "6", "--cluster", "local:2", "--out", str(farmed), "--quiet", *engines]) as proc:
        # past the start check (two engines on each worker, ended before any game), a game under way
        wait_for(lambda: len(read_pids(pidfile)) >= 2 * 2 + 2, 60, "a game")
        worker, orphans = wait_for(lambda: next(((w, engines_below(w)) for w in workers_of(proc.pid)
                                                 if len(engines_below(w)) == 2), None), 60, "a game on a worker")
        os.kill(worker, signal.SIGKILL)
        assert_all_gone(orphans, within_s=5)  # they read EOF on stdin and exit by themselves
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert_same_as_local(farmed, 6, engines)  # each game once, the killed one played again from the start
    assert_all_gone(read_pids(pidfile))


@pytest.mark.slow
@needs_dask
def test_resume_after_the_coordinator_was_killed(tmp_path):
    farmed, pidfile = tmp_path / "farmed", tmp_path / "pids"
    engines = slow_engines(pidfile, 20)
    args = SMALL + ["--games", "8", "--cluster", "local:2", "--out", str(farmed), "--quiet", *engines]
    with referee(args) as proc:
        results = farmed / "results.jsonl"
        wait_for(lambda: results.exists() and len(results.read_text().splitlines()) >= 2, 90, "two games")
        below = descendants(proc.pid)
        assert workers_of(proc.pid)
        proc.kill()
        proc.wait()
    assert_all_gone(below, within_s=10)  # workers see their parent go, engines their stdin close
    kept = len(games_of(farmed))
    assert 2 <= kept < 8
    p = run(args + ["--resume"])
    assert p.returncode == 0, p.stderr
    assert_same_as_local(farmed, 8, engines)
    assert_all_gone(read_pids(pidfile))


@pytest.mark.slow
@needs_dask
def test_a_game_that_kills_every_worker_is_recorded_as_abandoned(tmp_path):
    out = tmp_path / "m"
    pidfile = tmp_path / "pids"
    p = run(SMALL + ["--games", "1", "--cluster", "local:2", "--out", str(out), "--quiet",
                     fake_cmd(*A, "--pidfile", str(pidfile)),
                     fake_cmd(*B, "--kill-parent-at", "2", "--pidfile", str(pidfile))], timeout=180)
    assert p.returncode == 0, p.stderr
    (game,) = games_of(out)
    assert game["termination"] == "abandoned" and game["winner"] is None
    assert "every Dask worker that played it died" in game["reason"]
    assert "no game finished" in p.stdout and "endings: abandoned 1" in p.stdout
    assert_all_gone(read_pids(pidfile))


@pytest.mark.slow
@needs_dask
def test_an_sprt_decision_starts_no_further_game(tmp_path):
    out = tmp_path / "m"
    p = run(SMALL + ["--games", "200", "--cluster", "local:2", "--out", str(out), "--quiet", "--sprt", "0", "100",
                     fake_cmd(*A), fake_cmd(*B, "--crash-at", "1")])
    assert p.returncode == 0, p.stderr
    games = content(games_of(out))
    assert "SPRT" in p.stdout and "H1 accepted" in p.stdout
    # decided by the 12th pair won (24 games); the few games already under way end too
    assert 24 <= len(games) < 40
    assert all(g["winner"] == "engine1" for g in games.values())


@pytest.mark.slow
@needs_dask
@pytest.mark.parametrize("whole_group", [False, True])
def test_ctrl_c_on_a_local_cluster_ends_everything(tmp_path, whole_group):
    """SIGINT to the referee, or to its whole process group as a terminal's Ctrl-C does."""
    out = tmp_path / "m"
    pidfile = tmp_path / "pids"
    hang = fake_cmd("--hang-at", "1", "--spawn-child", "--pidfile", str(pidfile))
    with referee(SMALL + ["--games", "4", "--cluster", "local:2", "--out", str(out), "--quiet", hang, hang],
                 start_new_session=True) as proc:
        wait_for(lambda: len(read_pids(pidfile)) >= 2 + 2 * 2 * 2, 60, "two games under way")
        below = descendants(proc.pid)
        time.sleep(0.3)
        if whole_group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert_all_gone(below + read_pids(pidfile), within_s=10)
    assert not (out / "results.jsonl").exists() or games_of(out) == []


@pytest.fixture
def scheduler():
    """A running Dask scheduler with two worker processes (as `dask scheduler` and `dask worker` give)."""
    if not HAVE_DASK:
        pytest.skip("Dask is not installed: pip install -e '.[test,cluster]'")
    import logging

    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.CRITICAL)
    client = Client(cluster, set_as_default=False)
    try:
        yield cluster.scheduler_address, client
    finally:
        client.close()
        cluster.close()


@pytest.mark.slow
@needs_dask
def test_ctrl_c_on_a_scheduler_leaves_its_workers_alive_and_idle(tmp_path, scheduler):
    address, client = scheduler
    out = tmp_path / "m"
    pidfile = tmp_path / "pids"
    hang = fake_cmd("--hang-at", "3", "--spawn-child", "--pidfile", str(pidfile))
    before = set(client.scheduler_info()["workers"])
    with referee(SMALL + ["--games", "10", "--cluster", address, "--out", str(out), "--quiet", hang, hang]) as proc:
        wait_for(lambda: len(read_pids(pidfile)) >= 2 + 2 * 2 * 2, 60, "two games under way")
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert_all_gone(read_pids(pidfile), within_s=10)
    assert set(client.scheduler_info()["workers"]) == before  # alive
    wait_for(lambda: not any(client.processing().values()), 10, "idle workers")
    plugins = client.run(lambda dask_worker: [n for n in dask_worker.plugins if n.startswith("referee-match-")])
    assert all(not names for names in plugins.values())
    assert not (out / "results.jsonl").exists() or games_of(out) == []


@pytest.mark.slow
@needs_dask
def test_a_match_on_a_scheduler_plays_every_game_and_leaves_the_workers(tmp_path, scheduler):
    address, client = scheduler
    out = tmp_path / "m"
    p = run(SMALL + ["--games", "4", "--cluster", address, "--out", str(out), "--quiet", fake_cmd(*A),
                     fake_cmd(*B)])
    assert p.returncode == 0, p.stderr
    assert sorted(content(games_of(out))) == [1, 2, 3, 4]
    assert len(client.scheduler_info()["workers"]) == 2


@pytest.mark.slow
@needs_dask
def test_a_worker_that_joins_later_and_cannot_start_an_engine_ends_the_match(tmp_path):
    """Checked by its first game: the match ends with one message, and no game is lost by start_failed."""
    import logging

    from distributed import LocalCluster
    out = tmp_path / "m"
    # the engine starts only where GOOD=1: on the cluster's own worker, not on the one that joins later
    picky = shlex.join(["/bin/sh", "-c", 'test "$GOOD" = 1 || exit 3; exec "$@"', "sh",
                        *fake_argv(*A, "--move-ms", "30")])
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.CRITICAL, env={"GOOD": "1"})
    try:
        with referee(SMALL + ["--games", "20", "--cluster", cluster.scheduler_address, "--out", str(out),
                              "--quiet", picky, picky]) as proc:
            wait_for(lambda: (out / "results.jsonl").exists(), 60, "a first game")
            late = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
                                     "--nthreads", "1", "--no-dashboard"], env={**os.environ, "GOOD": "0"},
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                _, err = proc.communicate(timeout=60)
            finally:
                late.terminate()
                late.wait(timeout=30)
    finally:
        cluster.close()
    assert proc.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: on the Dask worker tcp://"), err
    assert "failed to start" in lines[0] or "cannot be started" in lines[0]
    assert all(g["termination"] != "start_failed" for g in games_of(out))


@pytest.mark.slow
@needs_dask
def test_a_reversi_match_on_a_cluster_records_what_a_local_one_does(tmp_path):
    from support.fakes import nboard_cmd

    local, farmed = tmp_path / "local", tmp_path / "farmed"
    pidfile = tmp_path / "pids"
    engines = [nboard_cmd("--seed", "3", "--pidfile", str(pidfile)), "random"]
    common = ["--game", "reversi", "--turn-ms", "2000", "--tolerance-ms", "10000", "--seed", "11", "--games", "4"]
    p = run(common + ["--out", str(local), "--quiet", *engines])
    assert p.returncode == 0, p.stderr
    p = run(common + ["--cluster", "local:2", "--out", str(farmed), *engines])
    assert p.returncode == 0, p.stderr
    assert content(games_of(farmed)) == content(games_of(local))
    assert all(g["termination"] == "discs" for g in games_of(farmed))
    assert sorted(f.name for f in farmed.glob("game-*.ggf")) == [f"game-{g:04d}.ggf" for g in range(1, 5)]
    assert "[4/4] engine1" in p.stdout
    assert_all_gone(read_pids(pidfile))
