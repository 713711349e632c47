"""Fitting the evaluation and prior weights to a strong engine's judgement (offline).

Input: labelled positions, one JSON object per line::

    {"moves": [[x, y], ...], "best": [x, y], "eval": "-35" | "+M7" | null,
     "width": 15, "height": 15, "win_length": 5}

``moves`` are the stones in the order played (first player first), ``best``
the move the labelling engine chose for the side to move, ``eval`` its score
for the side to move in its own units (``M`` marks a forced win or loss).
Missing board fields mean 15x15, K=5. ``tools/label_positions.py`` makes such
files with any brain that prints ``Eval <v>`` in its MESSAGE lines (Rapfi
does).

Two fits, both plain numpy (full-batch Adam, L2), each reported on a held-out
fifth against the weights currently in the engine:

- ``fit_evaluation``: logistic regression of the engine's winning chance
  (``sigmoid(eval / EVAL_SCALE)``; a mate is 0 or 1) on live-window counts by
  stones missing, for the side to move and its opponent, plus a tempo bias
  (the form of :class:`engine.mnk.evaluation.LineEvaluator`);
- ``fit_priors``: softmax regression of the chosen move over the candidate
  cells (empty cells within distance 2 of a stone) on the shape features of
  :mod:`engine.mnk.shapes`; ``write_prior_weights`` stores the result as
  ``engine/shape_weights.py``.

Run ``python -m engine.tuning DATA.jsonl[.gz] ... [--write]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from .mnk import shapes
from .mnk.evaluation import OPPONENT_WEIGHTS, OWN_WEIGHTS, TEMPO
from .mnk.patterns import LineState, cell_scores, geometry, neighbourhood, window_counts
from .mnk.rules import Board, GameConfig

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


# Priors ----------------------------------------------------------------------------------------


def prior_sample(item: Labelled) -> tuple[np.ndarray, int, np.ndarray] | None:
    """(feature indices of the candidates, index of the chosen one, current pattern scores), or ``None``.

    Positions where a line can be completed (by either side) are left out: the
    searcher handles those exactly, whatever the priors say.
    """
    b = item.board
    cfg = b.config
    s = int(b.to_move)
    st = LineState(cfg, list(b.cells))
    if st.completing(s) or st.completing(3 - s):
        return None
    cand = neighbourhood(geometry(cfg), b.cells)
    if item.best not in cand:
        return None
    feats = shapes.feature_indices(cfg, b.cells, s, cand)
    old = cell_scores(cfg, b.cells, s, cand)
    return feats, cand.index(item.best), np.array([old.get(c, 0.0) for c in cand])


def fit_priors(samples, iters: int = 400, l2: float = 1e-3) -> np.ndarray:
    """Softmax-regression weights (one per shape feature) for the chosen moves of ``samples``."""
    feats = np.concatenate([f for f, _, _ in samples])
    sizes = np.array([len(f) for f, _, _ in samples])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    owner = np.repeat(np.arange(len(samples)), sizes)
    chosen = np.zeros(len(feats))
    chosen[starts + np.array([y for _, y, _ in samples])] = 1.0
    n = len(samples)

    def grad(w):
        z = w[feats].sum(axis=1)
        z -= np.maximum.reduceat(z, starts)[owner]
        p = np.exp(z)
        p /= np.add.reduceat(p, starts)[owner]
        resid = np.repeat(p - chosen, feats.shape[1])
        return np.bincount(feats.ravel(), weights=resid, minlength=shapes.FEATURES) / n + l2 * w

    return _adam(grad, shapes.FEATURES, iters, 0.05)


def rank_report(samples, score) -> str:
    """How often the chosen move is ranked first / in the top 3 / top 8 by ``score(feats, old)``."""
    ranks = []
    for feats, y, old in samples:
        s = score(feats, old)
        ranks.append(int(np.count_nonzero(s > s[y])))
    n = max(1, len(ranks))
    r = np.array(ranks)
    return f"top 1 {100 * np.sum(r < 1) / n:.1f} %  top 3 {100 * np.sum(r < 3) / n:.1f} %  top 8 {100 * np.sum(r < 8) / n:.1f} %"


def write_prior_weights(w: np.ndarray, path: Path, source: str) -> None:
    """Write ``engine/shape_weights.py`` holding the fitted prior weights."""
    rows = [", ".join(f"{v:.4f}" for v in w[i : i + 8]) for i in range(0, len(w), 8)]
    body = "\n".join(f"    {r}," for r in rows)
    path.write_text(
        '"""Fitted weights of the shape priors (see engine.mnk.shapes); generated by '
        "``python -m engine.tuning``,\nnot edited by hand.  Source: "
        f'{source}."""\n\nWEIGHTS = (\n{body}\n)\n',
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    """Command line: fit both weight sets, report held-out figures, optionally write the priors."""
    ap = argparse.ArgumentParser(prog="python -m engine.tuning", description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="+", help="labelled positions (JSON lines, optionally .gz)")
    ap.add_argument("--write", action="store_true", help="write engine/shape_weights.py from all the data")
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

    samples = [s for s in map(prior_sample, items) if s is not None]
    train, test = split(len(samples))
    w = fit_priors([samples[i] for i in train])
    held = [samples[i] for i in test]
    print(f"priors, held out ({len(held)} positions):")
    print("  pattern scores :", rank_report(held, lambda f, old: old))
    try:
        engine_w = shapes.fitted_weights()
        print("  engine shapes  :", rank_report(held, lambda f, old: engine_w[f].sum(axis=1)))
    except ImportError:
        print("  engine shapes  : (no engine/shape_weights.py yet)")
    print("  fitted here    :", rank_report(held, lambda f, old: w[f].sum(axis=1)))
    if args.write:
        w = fit_priors(samples)
        out = Path(__file__).with_name("shape_weights.py")
        write_prior_weights(w, out, f"{len(samples)} positions of {', '.join(Path(p).name for p in args.data)}")
        print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
