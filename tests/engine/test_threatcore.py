"""The C threat solver (engine/mnk/_threatcore.c) against the Python solver it replaces.

For the same node budget the two must give the same answer: the same winning
line, the same "no win", and running out of budget at the same node.  That is
checked on random positions of several sizes and win lengths and on the won
positions of ``data/conversion-15x15.json``, for the VCF, the VCT at fixed
three counts, the deepening VCT and the best-first (proof-number) one, under freestyle and under renju (where black's
completions are exactly five and its forbidden points are no moves, no threats and no
defences).  (The semantics themselves are checked
against brute force in tests/test_threats.py, which runs on the C solver for
freestyle boards whenever it is built.)
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import sysconfig
from pathlib import Path

import pytest

from engine.mnk.threats import solver
from engine.mnk.knowledge.patterns import LineState
from engine.mnk.board.rules import Board, GameConfig, Player, Rule

from test_threats import random_position

ROOT = Path(__file__).resolve().parents[2]
native = pytest.mark.skipif(solver._threatcore is None, reason="the C solver was not built")


def _compiler_at_hand() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None and Path(sysconfig.get_paths()["include"], "Python.h").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CI builds on Linux")
def test_extension_is_built_where_a_compiler_is_at_hand():
    """The extension is optional so installs without a compiler still work; this makes a
    silently failed build visible wherever one should have succeeded (as in CI)."""
    if not _compiler_at_hand():
        pytest.skip("no C compiler or Python headers")
    assert solver._threatcore is not None
    assert solver.USE_NATIVE or os.environ.get("MNK_PURE_PYTHON")


def _both(st: LineState, a: int, nodes: int, threes: int, search: int, monkeypatch) -> tuple:
    """(C answer, Python answer); an answer is the line, None, or "abort"."""
    out = []
    for use in (True, False):
        monkeypatch.setattr(solver, "USE_NATIVE", use)
        before = list(st.cells), st.hash
        try:
            out.append(solver._solve(st, a, nodes, None, threes=threes, search=search))
        except solver._Abort:
            out.append("abort")
        assert (list(st.cells), st.hash) == before  # the state is left as it was
    return tuple(out)


FREESTYLE_CASES = [(GameConfig(15, 15, 5), 22), (GameConfig(15, 15, 5), 34), (GameConfig(11, 9, 4), 16),
                   (GameConfig(19, 19, 6), 40), (GameConfig(12, 12, 5), 26)]
RENJU_CASES = [(GameConfig(15, 15, 5, Rule.RENJU), 24), (GameConfig(15, 15, 5, Rule.RENJU), 36),
               (GameConfig(10, 12, 5, Rule.RENJU), 26)]


def _random_cases(seed: int, count: int, configs=FREESTYLE_CASES):
    rng = random.Random(seed)
    for i in range(count):
        cfg, stones = configs[i % len(configs)]
        a = rng.choice((1, 2))
        board = random_position(cfg, rng, stones + rng.randint(-6, 6), a)
        if board.winning_cells(Player(1)) or board.winning_cells(Player(2)):
            continue  # a finished line, or one to be completed at once: nothing to search
        yield board, a


@native
@pytest.mark.parametrize("threes,search,nodes", [(-1, solver.DEPTH_FIRST, 3000), (1, solver.DEPTH_FIRST, 150),
                                                (2, solver.DEPTH_FIRST, 1500), (3, solver.DEEPENING, 1500),
                                                (3, solver.BEST_FIRST, 1500)],
                         ids=["vcf", "vct1", "vct2", "deepen3", "pns3"])
@pytest.mark.slow
def test_same_answers_as_python_on_random_positions(threes, search, nodes, monkeypatch):
    kinds = {"line": 0, "none": 0, "abort": 0}
    for board, a in _random_cases(11 + threes, 60):
        st = LineState(board.config, board.cells)
        c_answer, py_answer = _both(st, a, nodes, threes, search, monkeypatch)
        assert c_answer == py_answer, board.render()
        kinds["abort" if py_answer == "abort" else "line" if py_answer else "none"] += 1
    # The sample must exercise wins found, searches that end without one, and budgets running out.
    assert kinds["line"] >= 3 and kinds["none"] >= 3, kinds
    if threes != -1:
        assert kinds["abort"] >= 3, kinds


@native
@pytest.mark.parametrize("threes,search,nodes", [(-1, solver.DEPTH_FIRST, 3000), (2, solver.DEPTH_FIRST, 1500),
                                                (3, solver.DEEPENING, 1500), (3, solver.BEST_FIRST, 1500)],
                         ids=["vcf", "vct2", "deepen3", "pns3"])
def test_same_answers_as_python_under_renju(threes, search, nodes, monkeypatch):
    """Renju in C: the same lines as the Python solver, on positions where the rule matters."""
    kinds = {"line": 0, "none": 0, "abort": 0}
    differs = 0  # answers that freestyle's solver would have given otherwise
    for board, a in _random_cases(7 + threes, 90, RENJU_CASES):
        st = LineState(board.config, board.cells)
        c_answer, py_answer = _both(st, a, nodes, threes, search, monkeypatch)
        assert c_answer == py_answer, board.render()
        kinds["abort" if py_answer == "abort" else "line" if py_answer else "none"] += 1
        cfg = board.config
        free = LineState(GameConfig(cfg.width, cfg.height, 5), list(board.cells))
        differs += _both(free, a, nodes, threes, search, monkeypatch)[0] != c_answer
    assert kinds["line"] >= 3 and kinds["none"] + kinds["abort"] >= 3, kinds
    assert differs >= 3, "the sample never needed renju's knowledge"


@pytest.mark.slow
@native
def test_same_answers_as_python_on_won_positions(monkeypatch):
    """The won positions of games against pela: long VCT lines, many transpositions."""
    positions = json.loads((ROOT / "data" / "conversion-15x15.json").read_text())
    from lab.judge_games import replay
    found = 0
    for position in positions[:45]:
        cfg = GameConfig(position["width"], position["height"], position["win_length"])
        board = replay(cfg, position["moves"])
        st = LineState(cfg, board.cells)
        c_answer, py_answer = _both(st, int(board.to_move), 4000, 3, solver.BEST_FIRST, monkeypatch)
        assert c_answer == py_answer
        found += isinstance(py_answer, list)
    assert found >= 5


@native
def test_deadline_stops_the_c_solver():
    """A wall-clock deadline ends a long search (the budget alone would take far longer)."""
    import time

    rng = random.Random(5)
    board = random_position(GameConfig(19, 19, 5), rng, 60, 1)
    st = LineState(board.config, board.cells)
    start = time.monotonic()
    try:
        solver._solve(st, 1, 10**12, start + 0.05, threes=8, search=solver.BEST_FIRST)
    except solver._Abort:
        pass
    assert time.monotonic() - start < 1.0


@native
def test_other_rules_and_short_lines_stay_on_the_python_solver(monkeypatch):
    """Exact, caro and K < 4 are not handled in C: they must never reach it (renju does)."""
    calls = []
    monkeypatch.setattr(solver, "USE_NATIVE", True)
    monkeypatch.setattr(solver._threatcore, "solve", lambda *a: calls.append(a) or (0, None), raising=False)
    for cfg in (GameConfig(9, 9, 5, Rule.EXACT), GameConfig(9, 9, 5, Rule.CARO), GameConfig(7, 7, 3)):
        board = Board(cfg)
        solver.find_vcf(board, 1)
    assert calls == []
    solver.find_vcf(Board(GameConfig(9, 9, 5)), 1)
    solver.find_vcf(Board(GameConfig(9, 9, 5, Rule.RENJU)), 1)
    assert len(calls) == 2


@native
@pytest.mark.parametrize("bad", [
    lambda g, cells: ("not a geometry", cells, 1, 10, None, -1, False),
    lambda g, cells: (g, cells[:-1], 1, 10, None, -1, False),
    lambda g, cells: (g, cells, 3, 10, None, -1, False),
    lambda g, cells: (g, [9] * len(cells), 1, 10, None, -1, False),
    lambda g, cells: (g, cells, 1, 10, None, 2, 3),  # no such search
])
def test_bad_arguments_raise_instead_of_crashing(bad):
    cfg = GameConfig(9, 9, 5)
    g = solver._native_geometry(cfg)
    with pytest.raises((TypeError, ValueError)):
        solver._threatcore.solve(*bad(g, list(Board(cfg).cells)))


@native
def test_geometry_refuses_boards_whose_cells_do_not_fit_sixteen_bits():
    with pytest.raises(ValueError):
        solver._threatcore.Geometry(70_000, 5, [], [(0, 0)] * 70_000)
    biggest = GameConfig(64, 64, 5)  # the largest board the rules allow is accepted
    assert solver._native_geometry(biggest) is not None



@native
def test_line_runs_give_the_answers_of_the_window_walk(monkeypatch):
    """Where K <= 8 the C geometry numbers the windows line by line and a stone updates its
    windows' counts a line at a time (``Geometry.runs``); for K > 8, or built with
    ``runs=False``, it walks them one by one.  Both must give the same answers, and the
    boards the engine plays on must get the runs (else the speed is silently lost)."""
    from engine.mnk.knowledge.patterns import geometry

    def built(cfg, runs):
        geom = geometry(cfg)
        return solver._threatcore.Geometry(
            cfg.padded_size, cfg.win_length, geom.windows, geom.zobrist,
            renju=cfg.rule is Rule.RENJU, directions=cfg.directions, runs=runs)

    for cfg in (GameConfig(15, 15, 5), GameConfig(20, 20, 5), GameConfig(15, 15, 5, Rule.RENJU), GameConfig(11, 9, 4)):
        assert solver._native_geometry(cfg).runs == 1
    assert solver._native_geometry(GameConfig(19, 19, 9)).runs == 0
    assert built(GameConfig(15, 15, 5), False).runs == 0

    monkeypatch.setattr(solver, "USE_NATIVE", True)
    kinds = {"line": 0, "none": 0, "abort": 0}
    for board, a in _random_cases(23, 60, FREESTYLE_CASES + RENJU_CASES):
        answers = []
        for runs in (True, False):
            geom = built(board.config, runs)
            monkeypatch.setattr(solver, "_native_geometry", lambda cfg, geom=geom: geom)
            st = LineState(board.config, board.cells)
            try:
                answers.append(solver._solve(st, a, 1500, None, threes=2, search=solver.BEST_FIRST))
            except solver._Abort:
                answers.append("abort")
        assert answers[0] == answers[1], board.render()
        kinds["abort" if answers[0] == "abort" else "line" if answers[0] else "none"] += 1
    assert min(kinds.values()) >= 3, kinds
