"""Reversi through the generic search: the evaluators (engine/reversi/evaluation/), the
oracle, the engine (engine/reversi/tree/engine.py, options.py), the bench and the command line."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.reversi import kernel
from engine.reversi.__main__ import main
from engine.reversi.bench import fixed_positions, perft_row, search_rows, solver_rows
from engine.reversi.evaluation.playoutleaves import ReversiEvaluator, square_classes
from engine.reversi.endgame.oracle import ReversiOracle
from engine.reversi.board.rules import PASS, ReversiConfig, ReversiState
from engine.reversi.tree.engine import ReversiEngine
from engine.reversi.tree.options import ReversiOptions
from engine.reversi.endgame.solver import solve
from engine.game import GameError, Outcome, Verdict
from engine.search.limits import Limits

from support.reversi_reference import minimax

ENDGAMES = Path(__file__).resolve().parents[1] / "data" / "reversi-endgames.txt"


def sq(text: str) -> int:
    return ReversiState().text_to_move(text)


def solvable(state: ReversiState) -> bool:
    """Quick to solve with the kernel in use (the Python solver takes seconds from 12)."""
    return kernel.native() is not None or state.empties() <= 10


def endgames():
    for line in ENDGAMES.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, board, side, moves, result = (f.strip() for f in line.split("|"))
            yield name, ReversiState.from_text(board, side), set(moves.split(",")), int(result.split()[1])


def exact_value(state: ReversiState) -> int:
    b, w, tm = state.snapshot()
    return minimax(*((b, w) if tm == 1 else (w, b)), state.n)


# ------------------------------------------------------------------------ evaluator
def test_square_classes():
    classes = square_classes(8)
    assert [classes[sq(t)] for t in ("a1", "h1", "a8", "h8")] == ["corner"] * 4
    assert [classes[sq(t)] for t in ("b2", "g2", "b7", "g7")] == ["x"] * 4
    assert [classes[sq(t)] for t in ("b1", "a2", "g1", "h2", "a7", "b8", "h7", "g8")] == ["c"] * 8
    assert classes[sq("d1")] == "edge" and classes[sq("d4")] == "inner"
    assert square_classes(4).count("corner") == 4


def test_expand_orders_corners_first_and_x_squares_last():
    s = ReversiState.from_text("-OX-----" "OO------" "X-------" + "-" * 40 + " X")
    ev = ReversiEvaluator(8)
    ex = ev.expand(s, None)
    assert sorted(ex.moves) == s.legal_moves() and ex.complete
    assert ex.moves[0] == sq("a1")
    assert ex.priors is not None and list(ex.priors) == sorted(ex.priors, reverse=True)
    plain = ReversiEvaluator(8, order=False).expand(s, None)
    assert list(plain.moves) == s.legal_moves() and plain.priors is None


def test_expand_puts_the_oracles_moves_first():
    s = ReversiState()
    ex = ReversiEvaluator(8).expand(s, Verdict(moves=[sq("f5")]))
    assert ex.moves[0] == sq("f5") and sorted(ex.moves) == s.legal_moves()


def test_expand_at_a_forced_pass():
    s = ReversiState.from_text("OX------" + "-" * 56 + " X")
    assert list(ReversiEvaluator(8).expand(s, None).moves) == [PASS]


def test_leaf_values_are_reproducible_scores():
    ev = ReversiEvaluator(8, playouts_per_leaf=8)
    leaves = [ev.leaf(s) for s in fixed_positions(30, 6)]
    a = ev.values(leaves, np.random.default_rng(5))
    b = ev.values(leaves, np.random.default_rng(5))
    assert a == b and len(a) == 6 and all(0.0 <= v <= 1.0 for v in a)
    assert ev.values([], np.random.default_rng(5)) == []
    finished = ReversiState.from_text("XX" + "-" * 61 + "O" + " O")
    assert ev.values([ev.leaf(finished)], np.random.default_rng(1)) == [0.0]
    with pytest.raises(ValueError):
        ReversiEvaluator(8, playouts_per_leaf=0)


# ------------------------------------------------------------------------ oracle
def test_oracle_decides_finished_games():
    oracle = ReversiOracle()
    lost = ReversiState.from_text("XX" + "-" * 61 + "O" + " O")
    v = oracle.verdict(lost, Verdict(), sq("a1"))
    assert v.outcome == Outcome.LOSS and v.plies == 0
    won = ReversiState.from_text("XX" + "-" * 61 + "O" + " X")
    assert oracle.verdict(won, Verdict(), sq("a1")).outcome == Outcome.WIN
    draw = ReversiState.from_text("X" + "-" * 62 + "O" + " X")
    assert oracle.verdict(draw, None, None).outcome == Outcome.DRAW


def test_oracle_solves_small_endgames_with_the_winning_move_first():
    oracle = ReversiOracle(tree_empties=8, root_empties=8)
    for state in fixed_positions(8, 12):
        v = oracle.verdict(state, Verdict(), 0)
        value = solve(state).value
        assert v.outcome == (Outcome.WIN if value > 0 else Outcome.LOSS if value < 0 else Outcome.DRAW)
        assert v.plies == state.empties() and v.moves
        state.apply(v.moves[0])
        after = -solve(state).value  # the move keeps the result
        state.undo()
        assert (after > 0) - (after < 0) == (value > 0) - (value < 0)
        assert oracle.verdict(state, Verdict(), 0) is v  # cached
    assert oracle.solves == oracle.solved == 12
    deeper = fixed_positions(9, 1)[0]
    assert oracle.verdict(deeper, Verdict(), 0).outcome == Outcome.UNKNOWN


def test_oracle_gives_up_past_its_node_budget():
    oracle = ReversiOracle(tree_empties=14, tree_nodes=10)
    state = max(endgames(), key=lambda e: e[1].empties())[1]
    assert oracle.verdict(state, Verdict(), 0).outcome == Outcome.UNKNOWN


def test_oracle_root_solves_exact_margins():
    oracle = ReversiOracle(root_empties=14)
    for name, state, answers, margin in endgames():
        if not solvable(state):
            continue
        v = oracle.verdict(state, None, None)
        assert v.facts == margin and state.move_to_text(v.moves[0]) in answers, name


# ------------------------------------------------------------------------ searcher
def test_searcher_answers_solved_endgames_at_once():
    searcher = ReversiEngine(8, ReversiOptions(root_empties=14), seed=1)
    for name, state, answers, margin in endgames():
        if not solvable(state):
            continue
        result = searcher.search(state, Limits(nodes=100))
        assert result.reason == "proven" and state.move_to_text(result.move) in answers, name
        assert searcher.last_margin == margin
        assert result.proven == ("win" if margin > 0 else "draw" if margin == 0 else "loss")


def _wld_positions(empties: int, count: int) -> tuple[list[ReversiState], list[ReversiState]]:
    """Won or drawn and lost positions with ``empties`` empty squares (side to move)."""
    kept, lost = [], []
    for state in fixed_positions(empties, count, seed=31):
        (kept if solve(state, exact=False).value >= 0 else lost).append(state)
    return kept, lost


@pytest.mark.skipif(kernel.native() is None, reason="the root's win/draw/loss solve needs the C solver")
def test_a_won_or_drawn_root_past_the_exact_range_is_played_from_a_win_draw_loss_solve():
    kept, lost = _wld_positions(18, 12)
    assert kept and lost
    engine = ReversiEngine(8, ReversiOptions(root_empties=14, root_wld_empties=18), seed=1)
    for state in kept:
        result = engine.search(state, Limits(nodes=50))
        assert engine.root_solved and result.reason == "proven" and engine.last_margin is None
        value = solve(state, exact=False).value
        assert result.proven == ("win" if value > 0 else "draw")
        after = state.clone()
        after.apply(result.move)
        assert -solve(after, exact=False).value == value  # the move keeps the result
        ranked = engine.rank_moves(state, Limits(nodes=50))
        assert [r.move for r in ranked] == [result.move] and ranked[0].exact is None
    for state in lost:  # a lost root is left to the tree, which searches its nodes
        result = engine.search(state, Limits(nodes=50))
        assert not engine.root_solved and result.reason != "proven" and result.move in state.legal_moves()
    assert engine.oracle.solved >= len(kept) + len(lost)
    # out of range (root_wld_empties below the position's empties, or at most root_empties)
    for options in (ReversiOptions(root_empties=14, root_wld_empties=17), ReversiOptions(root_empties=14, root_wld_empties=0)):
        engine = ReversiEngine(8, options, seed=1)
        result = engine.search(kept[0], Limits(nodes=50))
        assert not engine.root_solved and result.reason != "proven"


def test_root_wld_empties_must_be_a_count():
    with pytest.raises(ValueError):
        ReversiOptions(root_wld_empties=-1)
    assert ReversiOptions().with_values({"root_wld_empties": "20"}).root_wld_empties == 20


def test_searcher_plays_a_legal_move_reproducibly():
    state = ReversiState()
    for m in ("f5", "d6", "c3"):
        state.apply(sq(m))
    options = ReversiOptions(leaves="playouts", playouts_per_leaf=4)
    results = [ReversiEngine(8, options, seed=7).search(state, Limits(nodes=300)) for _ in range(2)]
    assert results[0].move in state.legal_moves()
    assert results[0].move == results[1].move and results[0].playouts == results[1].playouts == 300 * 4
    assert state.history == (sq("f5"), sq("d6"), sq("c3"))  # untouched


def test_searcher_reuses_its_tree_along_a_game():
    searcher = ReversiEngine(8, ReversiOptions(leaves="playouts", playouts_per_leaf=4), seed=3)
    state = ReversiState()
    searcher.search(state, Limits(nodes=200))
    state.apply(state.legal_moves()[0])
    state.apply(state.legal_moves()[0])
    assert searcher.tree.set_root(state) in (True, False)
    result = searcher.search(state, Limits(nodes=200))
    assert result.move in state.legal_moves()


def test_searcher_passes_when_it_must():
    state = ReversiState.from_text("OX------" + "-" * 56 + " X")
    assert ReversiEngine(8, seed=1).search(state, Limits(nodes=50)).move == PASS
    no_solver = ReversiEngine(8, ReversiOptions(solver=False), seed=1)
    assert no_solver.search(state, Limits(nodes=50)).move == PASS


def test_ranked_moves_of_an_endgame_are_solved_exactly():
    searcher = ReversiEngine(8, ReversiOptions(root_empties=14), seed=1)
    for name, state, answers, margin in list(endgames())[:6]:
        if not solvable(state):
            continue
        ranked = searcher.rank_moves(state, Limits(nodes=100))
        assert sorted(r.move for r in ranked) == sorted(state.legal_moves()), name
        assert ranked[0].exact == margin and state.move_to_text(ranked[0].move) in answers, name
        assert [r.exact for r in ranked] == sorted((r.exact for r in ranked), reverse=True)
        kept = {state.move_to_text(r.move) for r in ranked if (r.exact > 0) == (margin > 0) and r.exact >= min(margin, 0)}
        assert kept == answers, name  # the moves that keep the result are the file's answer set
        assert all(r.proven == ("win" if r.exact > 0 else "draw" if r.exact == 0 else "loss") for r in ranked)
        assert searcher.rank_moves(state, Limits(nodes=100), count=2) == ranked[:2]


def test_ranked_moves_of_a_midgame_come_from_the_tree_with_the_played_move_first():
    state = ReversiState()
    for m in ("f5", "d6", "c3"):
        state.apply(sq(m))
    ranked = ReversiEngine(8, ReversiOptions(leaves="playouts", playouts_per_leaf=4), seed=7).rank_moves(state, Limits(nodes=300))
    played = ReversiEngine(8, ReversiOptions(leaves="playouts", playouts_per_leaf=4), seed=7).search(state, Limits(nodes=300))
    assert ranked[0].move == played.move and ranked[0].pv == played.pv and ranked[0].depth == played.depth
    assert sorted(r.move for r in ranked) == sorted(state.legal_moves())
    assert sum(r.visits for r in ranked) == 300 * 4
    assert all(0.0 <= r.value <= 1.0 and r.exact is None and r.pv == [r.move] for r in ranked[1:])
    with pytest.raises(GameError):
        ReversiEngine(8, seed=1).rank_moves(ReversiState.from_text("XX" + "-" * 61 + "O" + " O"), Limits(nodes=10))


def test_searcher_rejects_finished_games_and_other_sizes():
    with pytest.raises(GameError):
        ReversiEngine(8, seed=1).search(ReversiState.from_text("XX" + "-" * 61 + "O" + " O"), Limits(nodes=10))
    with pytest.raises(GameError):
        ReversiEngine(8, seed=1).search(ReversiState(6), Limits(nodes=10))


@pytest.mark.slow
def test_tree_proofs_without_the_oracle_are_exact_on_4x4():
    """MCTS-Solver alone (terminal positions only) proves the 4x4 game lost for black,
    and every node it proved has its brute-force value."""
    searcher = ReversiEngine(4, ReversiOptions(solver=False, leaves="playouts", playouts_per_leaf=4), seed=1)
    start = ReversiState(4)
    result = searcher.search(start, Limits(nodes=20_000))
    assert result.proven == "loss"
    stack = [(searcher.tree.root, start.clone())]
    checked = 0
    while stack:
        node, pos = stack.pop()
        if node.outcome:
            v = exact_value(pos)
            assert Outcome(node.outcome) == (Outcome.WIN if v > 0 else Outcome.LOSS if v < 0 else Outcome.DRAW)
            checked += 1
        for m, child in zip(node.moves or (), node.children or ()):
            if child is not None:
                nxt = pos.clone()
                nxt.apply(m)
                stack.append((child, nxt))
    assert checked > 50


@pytest.mark.skipif(kernel.native() is None, reason="the Python solver is too slow for this search")
def test_search_with_the_oracle_proves_a_6x6_endgame():
    rng = random.Random(6)
    while True:
        s = ReversiState(6)
        while s.empties() > 16 and not s.is_terminal():
            s.apply(rng.choice(s.legal_moves()))
        if not s.is_terminal():
            break
    options = ReversiOptions(tree_empties=10, root_empties=0, leaves="playouts", playouts_per_leaf=4)
    searcher = ReversiEngine(6, options, seed=2)
    result = searcher.search(s, Limits(nodes=20_000))
    assert result.proven is not None
    v = solve(s).value
    assert result.proven == ("win" if v > 0 else "draw" if v == 0 else "loss")


# ------------------------------------------------------------------------ bench and command line
def test_bench_rows_are_deterministic():
    a = list(search_rows(nodes=150))
    b = list(search_rows(nodes=150))
    assert [r["signature"] for r in a] == [r["signature"] for r in b]
    assert all(r["playouts_per_s"] > 0 and r["nodes"] == 150 for r in a)
    assert perft_row(5)["correct"]
    rows = list(solver_rows((8,), 2))
    assert [r["mode"] for r in rows] == ["exact", "wdl"]
    assert fixed_positions(20, 2)[0].key() == fixed_positions(20, 2)[0].key()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine.reversi", *args], capture_output=True, text=True,
                          timeout=120)


def test_cli_perft():
    out = run_cli("perft", "6")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[:6] == [f"depth {d}: {c}" for d, c in enumerate((4, 12, 56, 244, 1396, 8200), 1)]
    assert lines[6].startswith("time: ")
    assert "pass counts as a move" in run_cli("perft", "--help").stdout


def test_cli_solve_and_bad_input(capsys):
    name, state, answers, margin = next(endgames())
    assert main(["solve", state.to_text()]) == 0
    assert f"best: {next(iter(answers))} (draw +0)" in capsys.readouterr().out
    assert main(["solve", "--wdl", state.to_text()]) == 0
    assert "(draw)" in capsys.readouterr().out
    for args in (["solve", "XO-"], ["solve", "X" * 64 + " Z"], ["perft", "0"], ["perft", "3", "--size", "7"]):
        assert main(args) == 2
        assert capsys.readouterr().err.startswith("error:")


@pytest.mark.slow
def test_cli_bench_json():
    out = run_cli("bench", "--json", "--quick")
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert out.returncode == 0 and {r["bench"] for r in rows} >= {"playouts", "perft", "solver", "search"}
    assert all("playouts_per_s" in r for r in rows if r["bench"].startswith("playouts") or r["bench"] == "search")
    if kernel.available():
        assert any(r["bench"] == "playouts_plain_c" for r in rows)


# ------------------------------------------------------------------------ options and the facade
def test_options_by_key():
    opts = ReversiOptions.preset("uct").with_values({"playouts_per_leaf": "8", "order": "off", "exploration": "1.2",
                                                     "tree-empties": "none"})
    assert (opts.playouts_per_leaf, opts.order, opts.tree.exploration, opts.tree_empties) == (8, False, 1.2, None)
    for bad in ({"nope": 1}, {"order": "maybe"}, {"playouts_per_leaf": "x"}, {"playouts_per_leaf": "0"},
                {"exploration": "-1"}, {"tree_nodes": "-5"}):
        with pytest.raises(ValueError):
            ReversiOptions().with_values(bad)
    with pytest.raises(ValueError):
        ReversiOptions.preset("guided")


def test_the_facade_opens_the_reversi_engine():
    from engine.api import best_move, open_engine, option_keys, options_for

    config = ReversiConfig(6)
    assert config.label == "reversi 6x6" and config.new_state().config == config
    keys = {k for k, _, _ in option_keys(options_for(config))}
    assert {"playouts_per_leaf", "tree_empties", "tree.exploration"} <= keys
    engine = open_engine(config, options_for(config, "uct", {"playouts_per_leaf": "4"}), seed=1)
    assert isinstance(engine, ReversiEngine) and engine.evaluator.weight == 4
    state = config.new_state()
    assert engine.search(state, Limits(nodes=50)).move in state.legal_moves()
    engine.new_game()
    engine.close()
    assert best_move(ReversiState(), Limits(nodes=30), seed=2).move in ReversiState().legal_moves()
    with pytest.raises(GameError):
        ReversiConfig(7)


def test_a_result_the_tree_proved_gets_its_exact_margin_with_the_time_left():
    # no solve at the root (root_empties 0): the tree proves the result from its children's
    # verdicts, then the time left finds the exact margin and a move that reaches it
    import time

    state = fixed_positions(12, 1, seed=7)[0]
    engine = ReversiEngine(8, ReversiOptions(root_empties=0, root_wld_empties=0), seed=1)
    result = engine.search(state, Limits(deadline=time.monotonic() + 30))
    exact = solve(state, exact=True).value
    assert result.proven is not None and engine.last_margin == exact
    state.apply(result.move)
    assert -solve(state, exact=True).value == exact
