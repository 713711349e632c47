"""Fitting the static evaluation's weights to a strong engine's judgement (offline).

Input: labelled positions, one JSON object per line::

    {"moves": [[x, y], ...], "best": [x, y], "eval": "-35" | "+M7" | null,
     "width": 15, "height": 15, "win_length": 5}

``moves`` are the stones in the order played (first player first), ``best``
the move the labelling engine chose for the side to move, ``eval`` its score
for the side to move in its own units (``M`` marks a forced win or loss).
Missing board fields mean 15x15, K=5. ``python -m lab.label_positions`` makes
such files with any brain that prints ``Eval <v>`` in its MESSAGE lines (Rapfi
does).

``fit_evaluation`` is a logistic regression (plain numpy: full-batch Adam, L2)
of the labelling engine's winning chance (``sigmoid(eval / EVAL_SCALE)``; a
mate is 0 or 1) on live-window counts by stones missing, for the side to move
and its opponent, plus a tempo bias (the form of
:class:`engine.mnk.evaluation.LineEvaluator`), reported on a held-out fifth
against the weights in the engine.  The engine's weights are copied into
``engine/mnk/evaluation.py`` by hand.

Run ``python -m lab.tuning DATA.jsonl[.gz] ...``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from engine.mnk.evaluation import OPPONENT_WEIGHTS, OWN_WEIGHTS, TEMPO
from engine.mnk.patterns import geometry, window_counts
from engine.mnk.rules import Board, GameConfig

#: Engine score that maps to a winning chance of sigmoid(1) = 73 %.
EVAL_SCALE = 200.0
#: Stones-missing levels of the evaluation fit (1..4).
EVAL_LEVELS = 4


@dataclass
class Labelled:
    """One labelled position, replayed."""

    board: Board
    best: int  # padded cell
    win_chance: float | None  # for the side to move
    forced: bool  # the label is a proven win or loss


def win_chance(text: str | None) -> float | None:
    """The labelling engine's ``eval`` as a winning chance for the side to move."""
    if text is None:
        return None
    t = str(text).strip()
    if "M" in t.upper():
        return 0.0 if t.startswith("-") else 1.0
    try:
        return 1.0 / (1.0 + math.exp(-float(t) / EVAL_SCALE))
    except (ValueError, OverflowError):
        return None


def read_records(paths: Iterable[str]) -> Iterator[dict]:
    """JSON records of the files (``.gz`` read compressed); blank lines skipped."""
    for path in paths:
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def replay(record: dict) -> Labelled | None:
    """The record's position, or ``None`` when it is unusable (bad moves, game over)."""
    try:
        cfg = GameConfig(int(record.get("width", 15)), int(record.get("height", 15)), int(record.get("win_length", 5)))
        board = Board(cfg)
        for x, y in record["moves"]:
            if board.is_over or not cfg.on_board(x, y) or not board.is_empty(cfg.move(x, y)):
                return None
            board.play(cfg.move(x, y))
        bx, by = record["best"]
        if board.is_over or not cfg.on_board(bx, by) or not board.is_empty(cfg.move(bx, by)):
            return None
    except (KeyError, TypeError, ValueError):
        return None
    ev = record.get("eval")
    return Labelled(board, cfg.padded(cfg.move(bx, by)), win_chance(ev), "M" in str(ev).upper())


def _adam(grad, size: int, iters: int, lr: float) -> np.ndarray:
    """Minimise with Adam from zero; ``grad(w)`` returns the gradient."""
    w = np.zeros(size)
    m = np.zeros(size)
    v = np.zeros(size)
    for t in range(1, iters + 1):
        g = grad(w)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return w


def split(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Indices of a reproducible 80 / 20 train / held-out split."""
    idx = np.random.default_rng(seed).permutation(n)
    cut = int(0.8 * n)
    return idx[:cut], idx[cut:]


# Evaluation ------------------------------------------------------------------------------------


def window_features(board: Board) -> np.ndarray:
    """Live windows by stones missing (1..4) of the side to move, then of its opponent."""
    cfg = board.config
    c1, c2 = (np.asarray(c) for c in window_counts(geometry(cfg), board.cells))
    own, opp = (c1, c2) if int(board.to_move) == 1 else (c2, c1)
    k = cfg.win_length
    out = [np.count_nonzero((opp == 0) & (own == k - r)) for r in range(1, EVAL_LEVELS + 1)]
    out += [np.count_nonzero((own == 0) & (opp == k - r)) for r in range(1, EVAL_LEVELS + 1)]
    return np.array(out, dtype=float)


def evaluation_logit(x: np.ndarray, own, opp, tempo: float) -> np.ndarray:
    """Logits of :func:`window_features` rows under weights indexed by stones missing."""
    w = np.array(list(own[1 : EVAL_LEVELS + 1]) + list(opp[1 : EVAL_LEVELS + 1]))
    return (x * w).sum(axis=1) + tempo


def fit_evaluation(x: np.ndarray, y: np.ndarray, iters: int = 6000, l2: float = 1e-5):
    """Fitted ``(own, opponent, tempo)`` weights (stones-missing indexed, index 0 unused)."""
    z = np.c_[x, np.ones(len(y))]

    def grad(w):
        p = 1.0 / (1.0 + np.exp(-(z * w).sum(axis=1)))
        return (z * (p - y)[:, None]).mean(axis=0) + l2 * w

    w = _adam(grad, z.shape[1], iters, 0.01)
    own = (0.0,) + tuple(float(v) for v in w[:EVAL_LEVELS])
    opp = (0.0,) + tuple(float(v) for v in w[EVAL_LEVELS : 2 * EVAL_LEVELS])
    return own, opp, float(w[-1])


def evaluation_report(p: np.ndarray, y: np.ndarray) -> str:
    """Log loss, correlation and "who is better" accuracy of predictions ``p`` for targets ``y``."""
    q = np.clip(p, 1e-6, 1 - 1e-6)
    loss = -np.mean(y * np.log(q) + (1 - y) * np.log(1 - q))
    corr = np.corrcoef(p, y)[0, 1] if len(y) > 1 else float("nan")
    sign = np.mean((p > 0.5) == (y > 0.5))
    return f"log loss {loss:.4f}  correlation {corr:.3f}  better side right {100 * sign:.1f} %"


def main(argv: list[str] | None = None) -> int:
    """Command line: fit the evaluation weights and report held-out figures."""
    ap = argparse.ArgumentParser(prog="python -m lab.tuning", description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="+", help="labelled positions (JSON lines, optionally .gz)")
    args = ap.parse_args(argv)
    items = [it for it in map(replay, read_records(args.data)) if it is not None]
    print(f"{len(items)} usable positions")

    ev = [(window_features(it.board), it.win_chance) for it in items if it.win_chance is not None]
    x = np.array([f for f, _ in ev])
    y = np.array([t for _, t in ev])
    train, test = split(len(y))
    own, opp, tempo = fit_evaluation(x[train], y[train])
    sig = lambda z: 1.0 / (1.0 + np.exp(-z))  # noqa: E731
    print("evaluation, held out:")
    print("  engine weights :", evaluation_report(sig(evaluation_logit(x[test], OWN_WEIGHTS, OPPONENT_WEIGHTS, TEMPO)), y[test]))
    print("  fitted here    :", evaluation_report(sig(evaluation_logit(x[test], own, opp, tempo)), y[test]))
    own, opp, tempo = fit_evaluation(x, y)
    print("  all-data fit   : own", [round(v, 3) for v in own], "opponent", [round(v, 3) for v in opp], "tempo", round(tempo, 3))

    return 0


if __name__ == "__main__":
    sys.exit(main())
