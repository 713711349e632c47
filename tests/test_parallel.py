"""Root-parallel search (engine.mnk.parallel) and its use by the brain (--threads, INFO thread_num).

Helper processes start in a few tenths of a second, so one engine is shared
by most tests (module fixture); the searches are short (node limits or
a few hundred milliseconds).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time

import pexpect
import pytest
from pexpect.popen_spawn import PopenSpawn

from engine.api import Engine, EngineOptions
from engine.search.limits import Limits, SearchResult
from engine.mnk.parallel import ParallelEngine
from engine.mnk.rules import Board, GameConfig
from protocol.session import Session
from protocol.thinker import EngineFactory

BRAIN = os.path.join(os.path.dirname(sys.executable), "pbrain-mcts")
MOVE = re.compile(r"^(\d+),(\d+)$")
CFG = GameConfig.square(15, 5)
UCT = EngineOptions(mode="uct")


def middle_game() -> Board:
    b = Board(CFG)
    for x, y in [(7, 7), (8, 8), (8, 6), (6, 8), (7, 8), (7, 9), (9, 7), (6, 6)]:
        b.play(CFG.move(x, y))
    return b


def four_at_the_edge(to_move_wins: bool) -> tuple[Board, int]:
    """First player has (0..3, 7): (4, 7) wins for it; with ``to_move_wins`` False the
    second player is to move and must block there."""
    b = Board(CFG)
    fillers = [(14, 0), (14, 2), (14, 4), (14, 6)]
    for i in range(4):
        b.play(CFG.move(i, 7))
        if i < 3 or to_move_wins:
            b.play(CFG.move(*fillers[i]))
    return b, CFG.move(4, 7)


def alive(pid: int) -> bool:
    """Is ``pid`` a running (not zombie) process?"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, timeout: float = 3.0) -> list[int]:
    """The pids still alive after waiting up to ``timeout``."""
    end = time.monotonic() + timeout
    left = [p for p in pids if alive(p)]
    while left and time.monotonic() < end:
        time.sleep(0.02)
        left = [p for p in left if alive(p)]
    return left


def children(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of the live children of ``pid``."""
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    kids = []
    for p in out.split():
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                args = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if alive(int(p)):
            kids.append((int(p), args))
    return kids


@pytest.fixture(scope="module")
def engine():
    eng = ParallelEngine(CFG, UCT, seed=3, workers=1)
    assert eng.wait_ready(10)
    yield eng
    eng.close()


# ---------------------------------------------------------------------- engine


@pytest.mark.parametrize("to_move_wins", [True, False])
def test_immediate_win_and_forced_block(engine, to_move_wins):
    engine.new_game()
    b, answer = four_at_the_edge(to_move_wins)
    for limits in (Limits(nodes=300), Limits.movetime(150)):
        res = engine.search(b, limits)
        assert res.move == answer
    if to_move_wins:
        assert res.proven == "win"


def test_node_limited_search_merges_both_searchers(engine):
    b = middle_game()
    engine.new_game()
    res = engine.search(b, Limits(nodes=400))
    alone = Engine(CFG, UCT, seed=1).search(b, Limits(nodes=400))
    assert b.is_empty(res.move)
    assert "2 of 2 searchers" in res.reason, res.reason
    # Every searcher did the full node budget: twice the nodes, playouts from both.
    assert res.nodes >= 2 * 400 * 0.9
    assert res.playouts > alone.playouts * 1.5
    local = {m: n for m, n, _, _ in engine.root_stats()}
    assert res.visits > local.get(res.move, 0)


def test_deadline_search_is_on_time_and_merged(engine):
    b = middle_game()
    reasons = []
    for _ in range(3):  # on a loaded machine a helper's reply may miss one deadline
        engine.new_game()
        t = time.monotonic()
        res = engine.search(b, Limits.movetime(300))
        took = time.monotonic() - t
        assert b.is_empty(res.move)
        assert took < 0.3 + 0.05, took
        assert res.visits > 0 and res.playouts > 0
        reasons.append(res.reason)
        if "2 of 2 searchers" in res.reason:
            break
    assert "2 of 2 searchers" in reasons[-1], reasons
    # The tree is kept between moves of a game.
    b.play(res.move)
    b.play(next(m for m in range(CFG.area) if b.is_empty(m) and m != res.move))
    assert b.is_empty(engine.search(b, Limits.movetime(100)).move)


def test_stop_event_reaches_the_helpers(engine):
    b = middle_game()
    engine.new_game()
    stop = threading.Event()
    fired: list[float] = []

    def fire() -> None:
        fired.append(time.monotonic())
        stop.set()

    timer = threading.Timer(0.2, fire)
    timer.start()
    res = engine.search(b, Limits(), stop=stop)  # no limit: only stop ends it
    returned = time.monotonic()
    timer.join()
    assert b.is_empty(res.move) and "stop" in res.reason
    assert returned - fired[0] < 0.1, returned - fired[0]
    # The helper stopped too: it answers the next search in full.
    res2 = engine.search(b, Limits(nodes=100))
    assert "2 of 2 searchers" in res2.reason, res2.reason


def test_a_killed_helper_does_not_break_the_search(engine):
    b = middle_game()
    pids = engine.worker_pids()
    assert len(pids) == 1
    os.kill(pids[0], signal.SIGKILL)
    assert not wait_gone(pids)
    for limits in (Limits.movetime(150), Limits(nodes=200)):
        t = time.monotonic()
        res = engine.search(b, limits)
        assert b.is_empty(res.move)
        assert time.monotonic() - t < 1.0
    assert engine.lost_workers == 1 and engine.live_workers == 0
    assert "local only" in res.reason


def test_helper_killed_during_a_search():
    b = middle_game()
    eng = ParallelEngine(CFG, UCT, seed=9, workers=1)
    try:
        assert eng.wait_ready(10)
        pid = eng.worker_pids()[0]
        threading.Timer(0.1, os.kill, (pid, signal.SIGKILL)).start()
        t = time.monotonic()
        res = eng.search(b, Limits.movetime(400))
        assert time.monotonic() - t < 0.45
        assert b.is_empty(res.move) and eng.lost_workers == 1
    finally:
        eng.close()


def test_close_leaves_no_processes_and_same_seed_same_move():
    b = middle_game()
    a = ParallelEngine(CFG, UCT, seed=11, workers=1)
    c = ParallelEngine(CFG, UCT, seed=11, workers=1)
    try:
        assert a.wait_ready(10) and c.wait_ready(10)
        ra = a.search(b, Limits(nodes=300))
        rc = c.search(b, Limits(nodes=300))
        assert (ra.move, ra.playouts, ra.visits) == (rc.move, rc.playouts, rc.visits)
    finally:
        pids = a.worker_pids() + c.worker_pids()
        a.close()
        c.close()
    assert len(pids) == 2 and not wait_gone(pids, 0.5)
    # Only multiprocessing's resource tracker may remain (it exits with this process).
    others = [args for pid, args in children(os.getpid()) if "resource_tracker" not in args]
    assert not [a for a in others if "multiprocessing" in a], others
    # A closed engine still searches, alone.
    assert b.is_empty(a.search(b, Limits(nodes=50)).move)


class HelperOnlyWin:
    """Knowledge that declares the first candidate a proven win, but only in other processes
    (the helpers): the parent searches normally."""

    def __init__(self) -> None:
        self.parent = os.getpid()

    def suggest(self, config, cells, to_move, candidates):
        from engine.mnk.knowledge import Suggestion

        if os.getpid() == self.parent or not candidates:
            return None
        return Suggestion(forced=int(candidates[0]), proven_win=True)


def test_a_helpers_proven_win_is_played_at_once():
    b = middle_game()
    eng = ParallelEngine(CFG, EngineOptions(mode="guided", knowledge=HelperOnlyWin()), seed=2, workers=1)
    try:
        assert eng.wait_ready(10)
        t = time.monotonic()
        res = eng.search(b, Limits.movetime(3000))
        assert time.monotonic() - t < 1.0  # the local search was stopped by the helper's proof
        assert res.proven == "win" and res.value == 1.0 and b.is_empty(res.move)
        assert "2 of 2 searchers" in res.reason
    finally:
        eng.close()


class Unpicklable:
    def __init__(self) -> None:
        self.hook = lambda: None  # lambdas cannot be sent to another process

    def suggest(self, config, cells, to_move, candidates):
        return None


def test_helpers_that_cannot_start_leave_a_local_search():
    b = middle_game()
    eng = ParallelEngine(CFG, EngineOptions(mode="guided", knowledge=Unpicklable()), seed=2, workers=1)
    try:
        assert eng.lost_workers == 1 and eng.live_workers == 0 and eng.worker_pids() == []
        res = eng.search(b, Limits(nodes=50))
        assert b.is_empty(res.move) and "local only" in res.reason
    finally:
        eng.close()


def _merge(local: SearchResult, local_stats, replies, board: Board | None = None) -> SearchResult:
    board = board or middle_game()
    return ParallelEngine._merge(board, local, local_stats, replies, len(replies), time.monotonic())


def test_merge_rules():
    b = middle_game()
    m1, m2, m3 = (CFG.move(x, y) for x, y in [(5, 5), (9, 9), (10, 6)])
    local = SearchResult(move=m1, visits=100, pv=[m1], playouts=300)
    # Visits are summed: m2 wins overall although m1 has more locally.
    res = _merge(local, [(m1, 100, 60, None), (m2, 80, 50, None)],
                 [(SearchResult(move=m2, playouts=200), [(m2, 90, 50, None), (m1, 10, 4, None)])])
    assert (res.move, res.visits, res.playouts) == (m2, 170, 500)
    assert res.value == pytest.approx(100 / 170)
    # A move proven lost by one searcher is never chosen while another is not.
    res = _merge(local, [(m1, 100, 60, None), (m2, 5, 2, None)],
                 [(SearchResult(move=m2), [(m1, 50, 0, "loss")])])
    assert res.move == m2 and "1 refuted by helpers" in res.reason
    # Every move lost: the local choice stands.
    res = _merge(local, [(m1, 100, 0, "loss")], [(SearchResult(move=m2), [(m2, 9, 0, "loss")])])
    assert res.move == m1
    # Every move with statistics lost, but a searcher's own choice is not: it is played
    # (the tactician's best unrefuted candidate).
    res = _merge(local, [(m1, 100, 0, "loss")], [(SearchResult(move=m3), [(m2, 0, 0, "loss")])])
    assert res.move == m3 and res.visits == 0
    # A proven win from a helper is played.
    res = _merge(local, [(m1, 100, 60, None)],
                 [(SearchResult(move=m3, proven="win", value=1.0, pv=[m3]), [(m3, 8, 8, "win")])])
    assert res.move == m3 and res.proven == "win"
    # No statistics at all: the local move.
    assert _merge(local, [], []).move == m1


def test_bad_arguments():
    with pytest.raises(ValueError):
        ParallelEngine(CFG, UCT, workers=0)
    with pytest.raises(TypeError):
        ParallelEngine("15x15", UCT)


# ---------------------------------------------------------------------- protocol


def test_factory_threads_are_capped_and_one_thread_is_the_plain_engine():
    f = EngineFactory({"mode": "uct"}, seed=1)
    assert f.threads == 1 and isinstance(f.build(CFG), Engine)
    assert not f.set_threads(1)
    f.set_threads(10_000)
    assert f.threads == len(os.sched_getaffinity(0))
    f.set_threads(0)
    assert f.threads == 1


def test_factory_reuses_its_parallel_engine_across_games():
    f = EngineFactory({"mode": "uct"}, seed=1, threads=2)
    try:
        if f.threads < 2:
            pytest.skip("one CPU")
        first = f.build(CFG)
        assert isinstance(first, ParallelEngine) and first.workers == 1
        pids = first.worker_pids()
        second = f.build(GameConfig.square(9, 4))  # the next game, another board
        assert second is first and second.config == GameConfig.square(9, 4)
        assert second.worker_pids() == pids
        res = second.search(Board(second.config), Limits(nodes=50))
        assert "2 of 2" in res.reason
        f.set_threads(1)
        assert isinstance(f.build(CFG), Engine) and first.closed  # idle parallel engines closed
        assert not wait_gone(pids, 1.0)
    finally:
        f.close()


def test_factory_two_threads_put_the_root_threat_search_beside_the_c_tree():
    from engine.mnk.nativesearch import available

    f = EngineFactory({"mode": "guided"}, seed=1, threads=2)
    try:
        if f.threads < 2:
            pytest.skip("one CPU")
        if not available(CFG, EngineOptions(mode="guided")):
            pytest.skip("the C extension was not built")
        eng = f.build(CFG)
        assert type(eng) is Engine and eng.options.root_thread
        # Where the C tree does not run (K = 3), two threads are two processes, as before.
        small = f.build(GameConfig.square(7, 3))
        assert isinstance(small, ParallelEngine) and small.workers == 1 and not small.options.root_thread
        f.set_threads(1)
        assert not f.build(CFG).options.root_thread
    finally:
        f.close()
    off = EngineFactory({"mode": "guided", "root_thread": False}, seed=1, threads=2)
    try:
        eng = off.build(CFG)
        assert isinstance(eng, ParallelEngine) and not eng.options.root_thread
    finally:
        off.close()


class CountingFactory:
    def __init__(self) -> None:
        self.threads = 1
        self.built = 0

    def set_threads(self, n: int) -> bool:
        changed = n != self.threads
        self.threads = n
        return changed

    def __call__(self, config):
        self.built += 1
        from protocol.thinker import QuickThinker

        return QuickThinker()


def test_session_info_thread_num_rebuilds_the_searcher():
    f = CountingFactory()
    s = Session(thinker_factory=f)
    assert s.feed("INFO thread_num 2").prepare is False  # no game yet
    assert f.threads == 2 and s.thread_num == 2
    step = s.feed("START 15")
    assert step.prepare
    s.prepare()
    assert f.built == 1
    assert s.feed("INFO thread_num 2").prepare is False  # unchanged
    assert s.feed("INFO thread_num 1").prepare is True
    s.prepare()
    assert f.built == 2 and f.threads == 1
    assert s.feed("INFO thread_num 0").prepare is False and f.threads == 1
    assert MOVE.match(s.feed_now("BEGIN")[-1])


def _spawn(*args: str) -> PopenSpawn:
    return PopenSpawn([BRAIN, *args], timeout=15)


def _line(p: PopenSpawn) -> str:
    while True:
        p.expect(b"\n")
        text = p.before.decode("utf-8", "replace").rstrip("\r")
        if not text.startswith(("MESSAGE ", "DEBUG ")):
            return text


def _helpers_of(pid: int) -> list[int]:
    return [p for p, args in children(pid) if "spawn_main" in args]


@pytest.mark.skipif(not os.path.exists(BRAIN), reason="pbrain-mcts is not installed")
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one CPU")
@pytest.mark.parametrize("how", ["info_then_end", "flag_then_eof", "root_thread"])
def test_brain_plays_with_two_threads_and_leaves_no_processes(how):
    # The second case runs the brain's default (guided) mode with helper processes: its options
    # travel to the helper too.  The third is that mode's own two-thread default where the C
    # tree runs: the root threat search on a second thread, no helper process.
    if how == "info_then_end":
        p = _spawn("--mode", "uct")
    elif how == "flag_then_eof":
        p = _spawn("--threads", "2", "--engine-option", "root_thread=false")
    else:
        from engine.mnk.nativesearch import available

        if not available(CFG, EngineOptions(mode="guided")):
            pytest.skip("the C extension was not built")
        p = _spawn("--threads", "2")
    pid = p.proc.pid
    if how == "info_then_end":
        p.send(b"START 15\nINFO thread_num 2\nINFO timeout_turn 300\n")
    else:
        p.send(b"INFO timeout_turn 300\nSTART 15\n")
    assert _line(p) == "OK"
    taken = set()
    p.send(b"BEGIN\n")
    for opp in [(0, 0), (14, 14), (0, 14)]:
        got = _line(p)
        m = MOVE.match(got)
        assert m, got
        move = (int(m[1]), int(m[2]))
        assert move not in taken and 0 <= move[0] < 15 and 0 <= move[1] < 15
        taken.add(move)
        assert opp not in taken
        taken.add(opp)
        p.send(f"TURN {opp[0]},{opp[1]}\n".encode())
    assert MOVE.match(_line(p))
    helpers = _helpers_of(pid)
    assert bool(helpers) == (how != "root_thread"), children(pid)
    if how == "info_then_end":
        p.send(b"TURN 14,0\nEND\n")  # END during the search
    else:
        p.sendeof()
    p.expect(pexpect.EOF, timeout=5)
    assert p.wait() == 0
    assert not wait_gone(helpers, 2.0), "helper processes left behind"
    assert not alive(pid)
