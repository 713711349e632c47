"""The evaluation's training pipeline (lab/reversi_train.py) end to end on a tiny run:
deterministic from its seed, exact labels where the solver reaches, fitted weights that
predict those labels better than nothing, and a file the engine loads."""

from __future__ import annotations

import numpy as np
import pytest

from engine.reversi import kernel
from engine.reversi.evaluation import patterns as pt
from lab import reversi_accuracy, reversi_train

pytestmark = pytest.mark.skipif(kernel.native() is None, reason="the tiny run needs the C kernel's speed")


def test_tiny_run_is_deterministic_and_learns(tmp_path):
    a = reversi_train.train(24, seed=3, exact=8, command="python -m lab.reversi_train --games 24")
    b = reversi_train.train(24, seed=3, exact=8, command="python -m lab.reversi_train --games 24")
    assert np.array_equal(a.table, b.table)
    assert np.count_nonzero(a.table) > 1000
    report = a.meta["held_out_mae"]
    assert set(report) == {f"{lo}-{lo + 3}" for lo in range(1, 61, 4)}
    a.save(tmp_path / "w.npz")
    ev = pt.PatternEval(pt.Weights.load(tmp_path / "w.npz"))
    # on positions of its own (training) games near the end the fit beats the zero evaluation
    pos = reversi_train.selfplay(24, 3 * 1000)
    near = pos.take((pos.empties <= 8) & (pos.empties >= 5) & (pos.game % 10 != 0))
    exact = reversi_train.exact_values(near)
    guess = np.array([ev.evaluate(int(p), int(o)) for p, o in zip(near.p, near.o)]) / pt.SCALE
    assert np.abs(guess - exact).mean() < 0.7 * np.abs(exact).mean()


def test_exact_labels_are_the_solver_values():
    pos = reversi_train.selfplay(3, 5)
    end = pos.take(pos.empties <= 6)
    from engine.reversi.endgame.solver import solve_python
    values = reversi_train.exact_values(end)
    assert list(values) == [solve_python(int(p), int(o), 1, 8).value for p, o in zip(end.p, end.o)]


def test_ridge_recovers_a_planted_model():
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 50, size=(2000, 3)).astype(np.int32)
    extras = np.column_stack([rng.integers(0, 10, 2000), np.ones(2000)])
    truth = rng.normal(size=52)
    y = truth[:50][idx].sum(axis=1) + extras @ truth[50:]
    w = reversi_train.ridge(idx, extras, y, 52, lam=1e-6)
    assert np.abs(reversi_train.predict(w, idx, extras) - y).max() < 1e-3


def test_heldout_file_round_trip(tmp_path):
    lines = reversi_accuracy.make([10], 3, seed=1, ev=None)
    path = tmp_path / "h.txt"
    path.write_text("# header\n" + "\n".join(lines) + "\n")
    from engine.reversi.bench import heldout_positions

    positions = heldout_positions(path)
    assert [e for _, _, e, _ in positions] == [10, 10, 10]
    errs = reversi_accuracy.eval_errors(positions, None)
    assert errs[10] == pytest.approx(np.mean([abs(v) for *_, v in positions]))


def test_workers_and_checkpoints_change_nothing_and_resume(tmp_path, monkeypatch):
    serial = reversi_train.train(24, seed=4, exact=8)
    work = tmp_path / "run"
    pooled = reversi_train.train(24, seed=4, exact=8, workers=2, work=str(work))
    assert np.array_equal(serial.table, pooled.table)
    assert (work / "games-0.npz").exists() and len(list(work.glob("phase-0-*.npz"))) == pt.PHASES

    # a stopped run: the last phases' files are gone; resuming plays no game and refits
    # only what is missing, to the same weights
    for phase in range(10, pt.PHASES):
        (work / f"phase-0-{phase}.npz").unlink()
    monkeypatch.setattr(reversi_train, "selfplay", lambda *a, **k: pytest.fail("self-play again"))
    refits = []
    real = reversi_train._fit_phase
    monkeypatch.setattr(reversi_train, "_fit_phase", lambda *a: refits.append(a[2]) or real(*a))
    resumed = reversi_train.train(24, seed=4, exact=8, work=str(work))
    assert np.array_equal(serial.table, resumed.table)
    assert refits == list(range(10, pt.PHASES))

    with pytest.raises(SystemExit, match="other settings"):
        reversi_train.train(24, seed=5, exact=8, work=str(work))

