"""The endgame solvers (engine/reversi/endgame/solver.py and the C kernel's) against a brute-force
minimax, against each other, and on the 30 endgames of tests/data/reversi-endgames.txt."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from engine.reversi import kernel
from engine.reversi.board.rules import PASS, ReversiState
from engine.reversi.endgame.solver import Solution, move_values, solve, solve_python
from engine.game import GameError, Outcome

from support.reversi_reference import minimax

core = kernel._reversicore
needs_c = pytest.mark.skipif(core is None, reason="the C kernel was not built")
ENDGAMES = Path(__file__).resolve().parents[1] / "data" / "reversi-endgames.txt"


def endgames() -> list[tuple[str, ReversiState, set[str], int]]:
    """(name, position, moves that keep the result, exact margin) of every endgame."""
    out = []
    for line in ENDGAMES.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, board, side, moves, result = (f.strip() for f in line.split("|"))
        margin = int(result.split()[1])
        out.append((name, ReversiState.from_text(board, side), set(moves.split(",")), margin))
    return out


def random_endgame(n: int, empties: int, rng: random.Random) -> ReversiState:
    """A position from a random game, stopped at ``empties`` empty squares (or its end)."""
    while True:
        s = ReversiState(n)
        while s.empties() > empties and not s.is_terminal():
            s.apply(rng.choice(s.legal_moves()))
        if s.empties() <= empties:
            return s


def solve_c(black: int, white: int, to_move: int, n: int, *, exact: bool = True,
            max_nodes: int | None = None, deadline: float | None = None) -> Solution:
    """The C solver, called directly (whatever MNK_PURE_PYTHON says)."""
    value, move, nodes, complete = core.solve(n, black, white, to_move, exact, max_nodes or 0, deadline or 0.0)
    return Solution(value, move if move >= 0 else None, nodes, complete, exact)


def c_solve(s: ReversiState, exact: bool = True) -> Solution:
    return solve_c(*s.snapshot(), s.n, exact=exact)


def check_best_move(s: ReversiState, sol: Solution, value: int) -> None:
    """The solver's move really reaches the value it claims."""
    if sol.move is None:
        assert s.is_terminal()
        return
    s.apply(sol.move)
    try:
        b, w, tm = s.snapshot()
        after = -minimax(*((b, w) if tm == 1 else (w, b)), s.n)
    finally:
        s.undo()
    assert after == value


# ------------------------------------------------------------------------ against brute force
@pytest.mark.parametrize("n,empties,count", [(4, 10, 40), (6, 8, 25)])
def test_solvers_match_brute_force(n, empties, count):
    rng = random.Random(n * 100 + empties)
    for _ in range(count):
        s = random_endgame(n, rng.randrange(1, empties + 1), rng)
        b, w, tm = s.snapshot()
        exact = minimax(*((b, w) if tm == 1 else (w, b)), n)
        sign = (exact > 0) - (exact < 0)
        py = solve_python(b, w, tm, n)
        assert (py.value, py.complete) == (exact, True), s.to_text()
        check_best_move(s, py, exact)
        assert solve_python(b, w, tm, n, exact=False).value == sign
        if core is not None:
            c = c_solve(s)
            assert c.value == exact, s.to_text()
            check_best_move(s, c, exact)
            assert c_solve(s, exact=False).value == sign


def test_4x4_from_the_start():
    """The whole 4x4 game: the solvers agree with brute force (white wins 11-3, the two
    empty squares to white: -10)."""
    s = ReversiState(4)
    b, w, _ = s.snapshot()
    assert minimax(b, w, 4) == -10
    assert solve(s).value == -10 and solve(s, exact=False).outcome == Outcome.LOSS


@needs_c
def test_c_and_python_solvers_agree_on_8x8():
    rng = random.Random(8)
    for _ in range(12):
        s = random_endgame(8, rng.randrange(2, 9), rng)
        b, w, tm = s.snapshot()
        py = solve_python(b, w, tm, 8)
        c = c_solve(s)
        assert c.value == py.value
        assert c_solve(s, exact=False).value == solve_python(b, w, tm, 8, exact=False).value


@needs_c
def test_c_solver_on_wide_boards():
    rng = random.Random(10)
    for n in (10, 12):
        for _ in range(4):
            s = random_endgame(n, rng.randrange(2, 8), rng)
            b, w, tm = s.snapshot()
            assert c_solve(s).value == solve_python(b, w, tm, n).value


# ------------------------------------------------------------------------ the 30 endgames
@needs_c
@pytest.mark.parametrize("name,state,answers,margin", endgames(), ids=[e[0] for e in endgames()])
def test_endgames_c(name, state, answers, margin):
    exact = c_solve(state)
    assert exact.complete and exact.value == margin
    assert state.move_to_text(exact.move) in answers
    wdl = c_solve(state, exact=False)
    assert wdl.value == (margin > 0) - (margin < 0)
    assert state.move_to_text(wdl.move) in answers


@needs_c
def test_endgame_answer_sets_are_exactly_the_result_keeping_moves():
    if not kernel.USE_NATIVE:
        pytest.skip("MNK_PURE_PYTHON: see the slow Python test")
    for name, state, answers, margin in endgames():
        values = move_values(state, exact=False)
        best = max(values.values())
        assert {state.move_to_text(m) for m, v in values.items() if v == best} == answers, name


@pytest.mark.slow
def test_endgames_python_solver():
    for name, state, answers, margin in endgames():
        if state.empties() > 12:
            continue
        sol = solve_python(*state.snapshot(), state.n)
        assert sol.value == margin and state.move_to_text(sol.move) in answers, name


# ------------------------------------------------------------------------ budgets and edge cases
def hardest() -> ReversiState:
    return max(endgames(), key=lambda e: e[1].empties())[1]


@pytest.mark.parametrize("python", [False, True])
def test_node_budget_and_deadline_stop_cleanly(python):
    if not python and core is None:
        pytest.skip("the C kernel was not built")
    s = hardest()
    b, w, tm = s.snapshot()
    run = solve_python if python else solve_c
    sol = run(b, w, tm, 8, max_nodes=50)
    assert not sol.complete and sol.move is None and sol.outcome == Outcome.UNKNOWN
    assert sol.nodes <= 60
    t = time.monotonic()
    sol = run(b, w, tm, 8, deadline=t - 1.0)
    assert not sol.complete
    assert time.monotonic() - t < 1.0


def test_solve_a_finished_game():
    s = ReversiState.from_text("XX" + "-" * 61 + "O" + " O")
    sol = solve(s)
    assert sol.complete and sol.value == -62 and sol.move is None and sol.outcome == Outcome.LOSS
    assert move_values(s) == {}


def test_solve_a_forced_pass():
    s = ReversiState.from_text("OX------" + "-" * 56 + " X")
    for sol in (solve(s), solve_python(*s.snapshot(), 8)):
        assert sol.move == PASS and sol.value == -64
    if core is not None:
        assert c_solve(s).move == PASS


def test_too_many_empties_is_an_error():
    with pytest.raises(GameError):
        solve(ReversiState(10))
    with pytest.raises(GameError):
        solve_python(*ReversiState(10).snapshot(), 10)


def test_move_values_budget():
    s = hardest()
    assert move_values(s, max_nodes=100) is None
