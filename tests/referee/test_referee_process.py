"""EngineProcess: deadlines, odd output, crashes, and that nothing is ever left running."""

import io
import sys
import time

import pytest

from support.fakes import assert_all_gone, fake_argv, read_pids, running
from referee.engines.process import EngineProcess
from referee.engines.registry import close_many
from referee.engines.transport import OverlongLine
from referee.errors import EngineExited, EngineStartError

pytestmark = pytest.mark.slow  # every test here starts processes

PY = sys.executable


def script(code: str) -> list[str]:
    return [PY, "-c", code]


def test_read_line_returns_none_at_deadline_for_a_silent_engine():
    eng = EngineProcess(script("import time; time.sleep(30)"), name="silent")
    eng.start()
    try:
        t = time.monotonic()
        assert eng.read_line(t + 0.2) is None
        waited = time.monotonic() - t
        assert 0.18 <= waited < 1.0
        assert eng.is_alive()
    finally:
        eng.close(grace_s=0.1)
    assert not running(eng.pid)


def test_lines_big_binary_and_crlf_are_survived():
    code = (
        "import sys\n"
        "o = sys.stdout.buffer\n"
        "o.write(b'MESSAGE ' + b'x' * 150000 + b'\\r\\n')\n"
        "o.write(b'\\xff\\xfe\\x00bin\\n')\n"
        "o.write(b'DEBUG d\\n7,8\\tValue: 1\\r\\n')\n"
        "o.flush()\n"
        "sys.stdin.readline()\n"
    )
    eng = EngineProcess(script(code), name="odd", max_line_bytes=200000)
    eng.start()
    try:
        dl = time.monotonic() + 5
        big = eng.read_line(dl)
        assert big.startswith("MESSAGE ") and len(big) == 150008 and not big.endswith("\r")
        garbage = eng.read_line(dl)
        assert "bin" in garbage and "\ufffd" in garbage
        reply, skipped = eng.read_reply(dl)
        assert reply == "7,8\tValue: 1"
        assert skipped == ["DEBUG d"]
    finally:
        eng.close(grace_s=0.1)


def test_endless_line_is_cut_once_and_its_rest_dropped():
    eng = EngineProcess(script("import sys; sys.stdout.write('y' * 300000 + '\\nnext\\n'); sys.stdout.flush(); "
                               "import time; time.sleep(30)"), name="endless", max_line_bytes=100000)
    eng.start()
    try:
        piece = eng.read_line(time.monotonic() + 5)
        assert isinstance(piece, OverlongLine) and piece == "y" * 100000
        assert eng.read_line(time.monotonic() + 5) == "next"  # the other 200000 bytes were dropped
    finally:
        eng.close(grace_s=0.1)


def test_crash_raises_engine_exited_with_status_after_buffered_lines():
    eng = EngineProcess(script("print('last words', flush=True); raise SystemExit(7)"), name="crash")
    eng.start()
    try:
        assert eng.read_line(time.monotonic() + 5) == "last words"
        with pytest.raises(EngineExited) as info:
            eng.read_line(time.monotonic() + 5)
        assert info.value.returncode == 7
        with pytest.raises(EngineExited):
            eng.send("TURN 1,1")
    finally:
        eng.close()
    assert eng.returncode == 7


def test_missing_program_is_a_start_error():
    eng = EngineProcess(["/nonexistent/pbrain-nothing"], name="ghost")
    with pytest.raises(EngineStartError):
        eng.start()
    eng.close()  # harmless on a process that never started


def test_close_kills_a_hung_engine_and_its_children(tmp_path):
    pidfile = tmp_path / "pids"
    eng = EngineProcess(fake_argv("--hang-at", "1", "--spawn-child", "--pidfile", str(pidfile)), name="hang")
    eng.start()
    eng.send("START 15")
    assert eng.read_reply(time.monotonic() + 10)[0] == "OK"
    eng.send("BEGIN")
    assert eng.read_line(time.monotonic() + 0.3) is None  # it hangs, ignoring END and SIGTERM
    pids = read_pids(pidfile)
    assert len(pids) == 2 and all(running(p) for p in pids)
    t = time.monotonic()
    eng.close(grace_s=0.2)
    assert time.monotonic() - t < 3
    assert_all_gone(pids)
    eng.close()  # idempotent
    assert not eng.is_alive()


def test_close_many_ends_cooperative_engines_with_end(tmp_path):
    pidfile = tmp_path / "pids"
    engines = [EngineProcess(fake_argv("--pidfile", str(pidfile)), name=f"e{i}") for i in range(2)]
    for e in engines:
        e.start()
        e.send("ABOUT")
    for e in engines:
        assert "name=" in e.read_reply(time.monotonic() + 10)[0]
    close_many(engines, grace_s=2.0)
    assert [e.returncode for e in engines] == [0, 0]  # exited by itself after END, not killed
    assert_all_gone(read_pids(pidfile))


def test_send_delay_spaces_commands_after_output():
    eng = EngineProcess(script("import sys\nfor l in sys.stdin: print(l.strip(), flush=True)"),
                        name="echo", send_delay_ms=80)
    eng.start()
    try:
        eng.send("a")
        assert eng.read_line(time.monotonic() + 5) == "a"
        t = time.monotonic()
        eng.send("b")
        assert time.monotonic() - t >= 0.07
        assert eng.read_line(time.monotonic() + 5) == "b"
    finally:
        eng.close(grace_s=0.1)


def test_log_records_both_directions():
    log = io.StringIO()
    eng = EngineProcess(script("import sys\nfor l in sys.stdin: print('re ' + l.strip(), flush=True)"),
                        name="echo", log=log)
    eng.start()
    try:
        eng.send("hello")
        assert eng.read_line(time.monotonic() + 5) == "re hello"
    finally:
        eng.close(grace_s=0.1)
    text = log.getvalue()
    assert "echo > hello" in text and "echo < re hello" in text


def test_the_overhead_measure_counts_every_move():
    from lab.overhead import measure

    m = measure(games=2, size=9, win_length=5, concurrency=1)
    assert m["games"] == 2 and m["moves"] > 10
    assert 0 < m["median_us"] <= m["p90_us"]


def test_a_full_input_pipe_times_out_instead_of_blocking():
    from referee.errors import EngineTimeout

    eng = EngineProcess(script("import time; time.sleep(30)"), name="deaf", write_timeout_s=0.3)
    eng.start()
    try:
        t = time.monotonic()
        with pytest.raises(EngineTimeout):
            eng.send("x" * 4_000_000)  # far more than a pipe buffer holds
        assert time.monotonic() - t < 2
    finally:
        eng.close(grace_s=0.1)
    assert not running(eng.pid)


def test_drain_sees_output_already_in_the_pipe():
    eng = EngineProcess(script("print('a'); print('b', flush=True); import time; time.sleep(30)"), name="chatty")
    eng.start()
    try:
        end = time.monotonic() + 5
        got = []
        while len(got) < 2 and time.monotonic() < end:
            time.sleep(0.05)
            got += eng.drain()
        assert got == ["a", "b"]
        assert eng.drain() == []
    finally:
        eng.close(grace_s=0.1)


def test_kill_from_another_thread_wakes_a_blocked_reader():
    import threading

    eng = EngineProcess(script("import time; time.sleep(30)"), name="victim")
    eng.start()
    killer = threading.Timer(0.2, eng.kill)
    killer.start()
    t = time.monotonic()
    with pytest.raises(EngineExited):
        while time.monotonic() - t < 10:
            eng.read_line(time.monotonic() + 10)
    assert time.monotonic() - t < 3
    killer.join(5)  # the reader may wake as soon as close() begins, before the reaping is done
    assert not running(eng.pid)


def test_line_ends_and_closing_stdin():
    """CR LF can be sent on request; closing stdin gives the engine EOF, and close() still never raises."""
    echo = "import sys\nfor raw in sys.stdin.buffer:\n    print(repr(raw), flush=True)\nprint('eof', flush=True)"
    eng = EngineProcess(script(echo), name="echo")
    eng.start()
    try:
        eng.send("ABOUT", eol="\r\n")
        assert eng.read_line(time.monotonic() + 10) == repr(b"ABOUT\r\n")
        eng.send_many(["BOARD", "DONE"])
        assert eng.read_line(time.monotonic() + 10) == repr(b"BOARD\n")
        assert eng.read_line(time.monotonic() + 10) == repr(b"DONE\n")
        eng.close_stdin()
        assert eng.read_line(time.monotonic() + 10) == "eof"
        with pytest.raises(EngineExited):
            eng.send("TURN 1,1")
    finally:
        eng.close()
        eng.close()
    assert not eng.is_alive()


def test_a_reader_that_starts_waiting_while_close_runs_wakes_at_once():
    """The old race, forced with events instead of timing: the reader has passed the closed-check
    and calls ``select`` only once ``close()`` is under way (the engine still alive, its pipes
    still open).  It must return at once, not sleep until its deadline."""
    import threading

    eng = EngineProcess(script("import time; time.sleep(30)"), name="victim")
    eng.start()
    at_select, go, returned = threading.Event(), threading.Event(), threading.Event()
    real_select = eng._pipes.sel.select

    def gated_select(timeout=None):
        at_select.set()
        go.wait(10)
        try:
            return real_select(timeout)
        finally:
            returned.set()

    eng._pipes.sel.select = gated_select
    real_kill_group = eng._child.kill_group
    waited = []

    def kill_group_once_the_reader_has_selected():
        go.set()  # close() has begun; let the reader into select now
        t = time.monotonic()
        returned.wait(5)  # old code: the reader sleeps in select until the engine dies, 5 s later
        waited.append(time.monotonic() - t)
        real_kill_group()

    eng._child.kill_group = kill_group_once_the_reader_has_selected
    outcome = []

    def reader():
        try:
            eng.read_line(time.monotonic() + 30)
            outcome.append("returned")
        except EngineExited:
            outcome.append("exited")

    th = threading.Thread(target=reader)
    th.start()
    try:
        assert at_select.wait(10)
        eng.kill()
        th.join(30)
    finally:
        go.set()
        eng._child.kill_group = real_kill_group
        eng.kill()
    assert outcome == ["exited"]
    assert waited and waited[0] < 2  # woken by close(), before the engine was even killed
    assert not running(eng.pid)


def test_kill_from_another_thread_always_wakes_the_reader():
    """Many kills racing a reader entering ``select`` (a barrier starts both together): every
    reader wakes promptly, wherever in ``read_line`` the kill lands."""
    import threading

    for _ in range(100):
        eng = EngineProcess(["sleep", "30"], name="victim")
        eng.start()
        barrier = threading.Barrier(2)
        outcome = []

        def reader():
            barrier.wait(10)
            try:
                while True:
                    eng.read_line(time.monotonic() + 20)
            except EngineExited:
                outcome.append("exited")

        th = threading.Thread(target=reader)
        th.start()
        barrier.wait(10)
        eng.kill()
        th.join(3)
        alive = th.is_alive()
        if alive:  # let the stuck reader go before failing
            th.join(30)
        assert not alive and outcome == ["exited"]
        assert not running(eng.pid)


def test_a_program_that_cannot_be_spawned_is_explained(tmp_path, monkeypatch):
    """Each way a command can fail to spawn gets a message the user can act on."""
    def start_error(argv, cwd=None):
        eng = EngineProcess(argv, name="e", cwd=cwd)
        with pytest.raises(EngineStartError) as info:
            eng.start()
        eng.close()
        return str(info.value)

    monkeypatch.chdir(tmp_path)
    here = tmp_path / "pbrain-here"
    here.write_text("#!/bin/sh\nexit 0\n")
    here.chmod(0o755)
    assert "not found on PATH" in start_error(["pbrain-here"]) and "./pbrain-here" in start_error(["pbrain-here"])
    assert "command not found" in start_error(["pbrain-surely-not-installed-anywhere"])
    assert "no such file" in start_error(["./pbrain-missing"])
    plain = tmp_path / "engine.py"
    plain.write_text("print('hi')\n")
    assert "not executable" in start_error(["./engine.py"]) and "python3 ./engine.py" in start_error(["./engine.py"])
    assert "is a directory" in start_error([str(tmp_path)])
    orphan = tmp_path / "orphan"
    orphan.write_text("#!/nonexistent/interpreter\n")
    orphan.chmod(0o755)
    assert "'/nonexistent/interpreter', from its #! line" in start_error(["./orphan"])
    assert "working directory" in start_error(["./orphan"], cwd=str(tmp_path / "gone"))
    windows = tmp_path / "pbrain-x.exe"
    windows.write_bytes(b"MZ\x90\x00" + bytes(200))
    windows.chmod(0o755)
    assert 'run it through wine, "wine ./pbrain-x.exe"' in start_error(["./pbrain-x.exe"])
    script_without_hashbang = tmp_path / "bare"
    script_without_hashbang.write_bytes(b"\x00\x01 not a program\n")
    script_without_hashbang.chmod(0o755)
    assert "exec format error" in start_error(["./bare"])
