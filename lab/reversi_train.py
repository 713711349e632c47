"""Fit the 8x8 pattern evaluation (engine/reversi/evaluation/patterns.py) from this project's own games.

The pipeline, deterministic from ``--seed``:

1. **Self-play.**  ``--games`` games from the start position: the first 0..``--random-plies``
   plies uniformly random, then either uniformly random moves (no weights yet) or moves
   drawn from a softmax of the previous weights' one-ply values (temperature 2 discs) with
   a 5 % chance of a random move.  Every position of every game is kept once; every
   ``--holdout``-th game goes to the held-out set.
2. **Labels, phase by phase from the end.**  A position with at most ``--exact`` empty
   squares is labelled with its exact final disc differential (the project's endgame
   solver).  A position of a later phase is labelled by an alpha-beta search on the
   weights fitted so far, down to the last empties of the phase below (already fitted),
   so every label rests on the solver at the end of the chain.
3. **Regression.**  Each phase's weights are ridge regression (``--ridge``) of the labels
   on the pattern indices, mobilities and a constant, solved with preconditioned
   conjugate gradients in numpy; two readings of one configuration under a shape's own
   symmetry share one weight (``patterns.tie_map``); written in 1/128 discs as int16.
4. **Iterations.**  ``--iterations 2`` plays a new set of games with the weights of the
   first pass and fits again on both sets; ``--start W`` has the weights ``W`` play the
   first set (a new run from a former run's weights).

Held-out mean absolute errors (against the labels, per phase) go into the weights'
``meta`` with the command line (the shipped file's commands and their run times:
docs/RESULTS.md, "Reversi: the pattern evaluation").

``--workers N`` labels in N processes (the labels, and so the weights, do not depend on N;
the fit stays on one core, numpy kept off BLAS).  ``--work DIR`` keeps the games and each
fitted phase in DIR, so a stopped run started again with the same settings resumes there.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import dataclass

import numpy as np

from engine.reversi.evaluation import patterns as pt
from engine.reversi.board.bitboard import geometry
from engine.reversi.endgame.solver import solve_position

GEO = geometry(8)
START = ((1 << 28) | (1 << 35), (1 << 27) | (1 << 36))  # (black, white): d5 e4 black, d4 e5 white


@dataclass
class Positions:
    """Positions for the side to move: ``p``, ``o`` (uint64), ``empties``, the game each came from."""

    p: np.ndarray
    o: np.ndarray
    empties: np.ndarray
    game: np.ndarray

    def __len__(self) -> int:
        return len(self.p)

    def take(self, mask: np.ndarray) -> "Positions":
        return Positions(self.p[mask], self.o[mask], self.empties[mask], self.game[mask])

    @staticmethod
    def join(parts: list["Positions"]) -> "Positions":
        return Positions(*(np.concatenate([getattr(x, f) for x in parts]) for f in ("p", "o", "empties", "game")))


def selfplay(games: int, seed: int, ev: pt.PatternEval | None = None, random_plies: int = 12,
             temperature: float = 2.0, epsilon: float = 0.05, first_game: int = 0) -> Positions:
    """Every non-final position of ``games`` games (see the module docstring, step 1)."""
    rng = random.Random(seed)
    ps, os_, es, gs = [], [], [], []
    for g in range(games):
        p, o = START  # black to move
        opening = rng.randint(0, random_plies)
        ply = 0
        while True:
            m = GEO.moves(p, o)
            if not m:
                if not GEO.moves(o, p):
                    break
                p, o = o, p
                continue
            ps.append(p)
            os_.append(o)
            es.append(64 - (p | o).bit_count())
            gs.append(first_game + g)
            squares = [sq for sq in range(64) if m >> sq & 1]
            if ev is None or ply < opening or rng.random() < epsilon:
                sq = rng.choice(squares)
            else:
                values = ev.moves(p, o, 1)
                top = max(v for _, v in values)
                weights = [math.exp((v - top) / (pt.SCALE * temperature)) for _, v in values]
                sq = rng.choices([s for s, _ in values], weights)[0]
            f = GEO.flips(p, o, sq)
            p, o = o ^ f, p | f | (1 << sq)
            ply += 1
    return Positions(np.array(ps, dtype=np.uint64), np.array(os_, dtype=np.uint64),
                     np.array(es, dtype=np.int32), np.array(gs, dtype=np.int64))


def exact_values(pos: Positions, ev: pt.PatternEval | None = None, pool: "Pool | None" = None) -> np.ndarray:
    """The exact final disc differential of every position (the endgame solver)."""
    if pool is not None and len(pos) > 1:
        table = ev.weights.table if ev is not None else None
        return pool.map(_exact_chunk, pos, table)
    handle = ev.handle if ev is not None else None
    out = np.empty(len(pos), dtype=np.float64)
    for i in range(len(pos)):
        out[i] = _solve(int(pos.p[i]), int(pos.o[i]), handle).value
    return out


def _solve(p: int, o: int, handle):
    # the pipeline's own weights order the solver's moves (none at first): the values
    # are exact either way, only the time changes
    return solve_position(p, o, 1, 8, ev=handle)


def search_labels(pos: Positions, ev: pt.PatternEval, leaf_empties: int, pool: "Pool | None" = None) -> np.ndarray:
    """The value in discs of a search of every position down to ``leaf_empties`` empty
    squares, on ``ev``."""
    if pool is not None and len(pos) > 1:
        return pool.map(_search_chunk, pos, ev.weights.table, leaf_empties)
    out = np.empty(len(pos), dtype=np.float64)
    for e in np.unique(pos.empties):
        idx = np.flatnonzero(pos.empties == e)
        leaves = [(int(pos.p[i]), int(pos.o[i]), 1) for i in idx]
        out[idx] = np.array(ev.leaves(leaves, int(e) - leaf_empties), dtype=np.float64) / pt.SCALE
    return out


def _weights_eval(table: np.ndarray | None) -> pt.PatternEval | None:
    return None if table is None else pt.PatternEval(pt.Weights(table, {}))


def _exact_chunk(pos: Positions, table: np.ndarray | None, _extra) -> np.ndarray:
    return exact_values(pos, _weights_eval(table))


def _search_chunk(pos: Positions, table: np.ndarray, leaf_empties: int) -> np.ndarray:
    return search_labels(pos, _weights_eval(table), leaf_empties)


class Pool:
    """Labels computed by ``workers`` processes: the positions are cut into chunks, each
    labelled by the same function the serial path runs, and put back in order (so a run's
    labels do not depend on the number of workers)."""

    def __init__(self, workers: int) -> None:
        import multiprocessing
        self.workers = workers
        self._pool = multiprocessing.get_context("fork").Pool(workers)

    def map(self, fn, pos: Positions, table: np.ndarray | None, extra=None) -> np.ndarray:
        # small chunks so that slow solves spread over the workers
        bounds = np.linspace(0, len(pos), min(len(pos), 16 * self.workers) + 1).astype(int)
        jobs = [(fn, pos.take(slice(a, b)), table, extra) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
        return np.concatenate(self._pool.starmap(_call, jobs))

    def close(self) -> None:
        self._pool.close()
        self._pool.join()


def _call(fn, pos, table, extra):
    return fn(pos, table, extra)


def features(pos: Positions) -> tuple[np.ndarray, np.ndarray]:
    """The pattern indices ``(N, placements)``, each mapped to the weight it is tied to
    (:func:`~engine.reversi.evaluation.patterns.tie_map`), and the extras ``(N, 3)``: own mobility,
    opponent mobility, 1."""
    idx = pt.tie_map()[pt.indices_batch(pos.p, pos.o)].astype(np.int32)
    extras = np.empty((len(pos), pt.EXTRAS), dtype=np.float64)
    for i in range(len(pos)):
        p, o = int(pos.p[i]), int(pos.o[i])
        extras[i, 0] = GEO.moves(p, o).bit_count()
        extras[i, 1] = GEO.moves(o, p).bit_count()
    extras[:, 2] = 1.0
    return idx, extras


def ridge(idx: np.ndarray, extras: np.ndarray, y: np.ndarray, size: int, lam: float,
          iterations: int = 300, tol: float = 1e-6) -> np.ndarray:
    """Ridge regression of ``y`` on one-hot pattern indices plus dense extras (the last
    ``extras.shape[1]`` of ``size`` weights, not penalised), by conjugate gradients on the
    normal equations with a diagonal preconditioner."""
    npat = size - extras.shape[1]
    flat = idx.ravel()
    k = idx.shape[1]

    # (no BLAS calls: its threads would take the second core)
    def xmul(w: np.ndarray) -> np.ndarray:
        return w[:npat][idx].sum(axis=1) + (extras * w[npat:]).sum(axis=1)

    def xtmul(r: np.ndarray) -> np.ndarray:
        out = np.empty(size)
        out[:npat] = np.bincount(flat, weights=np.repeat(r, k), minlength=npat)
        out[npat:] = (extras * r[:, None]).sum(axis=0)
        return out

    def dot(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.multiply(a, b).sum())

    penalty = np.full(size, lam)
    penalty[npat:] = 1e-9
    diag = np.empty(size)
    diag[:npat] = np.bincount(flat, minlength=npat)
    diag[npat:] = (extras ** 2).sum(axis=0)
    diag += penalty

    def amul(w: np.ndarray) -> np.ndarray:
        return xtmul(xmul(w)) + penalty * w

    w = np.zeros(size)
    b = xtmul(y)
    r = b - amul(w)
    z = r / diag
    d = z.copy()
    rz = dot(r, z)
    bnorm = math.sqrt(dot(b, b)) or 1.0
    for _ in range(iterations):
        ad = amul(d)
        alpha = rz / dot(d, ad)
        w += alpha * d
        r -= alpha * ad
        if math.sqrt(dot(r, r)) < tol * bnorm:
            break
        z = r / diag
        rz_new = dot(r, z)
        d = z + (rz_new / rz) * d
        rz = rz_new
    return w


def predict(w: np.ndarray, idx: np.ndarray, extras: np.ndarray) -> np.ndarray:
    npat = len(w) - extras.shape[1]
    return w[:npat][idx].sum(axis=1) + (extras * w[npat:]).sum(axis=1)


def fit(train: Positions, held: Positions, exact: int, lam: float, meta: dict, log=None,
        ev: pt.PatternEval | None = None, pool: Pool | None = None,
        checkpoint: "Checkpoint | None" = None, fit_iterations: int = 300) -> tuple[pt.Weights, dict]:
    """Label and fit every phase, from the end (step 2 and 3); the weights and the
    held-out errors per phase.  ``ev``: the solver's move-ordering evaluation (only
    speed: solved values are exact whatever the order).  ``checkpoint``: where each
    fitted phase is kept, and read back instead of being done again."""
    weights = pt.Weights.zeros(meta)
    report = {}
    for phase in range(pt.PHASES):
        lo = phase * pt.PHASE_WIDTH + 1
        name = f"{lo}-{lo + pt.PHASE_WIDTH - 1}"
        done = checkpoint.phase(phase) if checkpoint else None
        if done is not None:
            row, entry = done
        else:
            row, entry = _fit_phase(train, held, phase, pt.PatternEval(weights), exact, lam, ev, pool,
                                    fit_iterations)
            if checkpoint:
                checkpoint.save_phase(phase, row, entry)
        if row is None:
            continue
        table = weights.table.copy()
        table[phase] = row
        weights = pt.Weights(table, meta)
        report[name] = entry
        if log:
            log(f"phase {phase} (empties {name}): {json.dumps(entry)}")
    return weights, report


def _fit_phase(train: Positions, held: Positions, phase: int, current: pt.PatternEval, exact: int,
               lam: float, ev: pt.PatternEval | None, pool: Pool | None, fit_iterations: int):
    """One phase's labels and ridge fit: its table row (``None`` without positions) and
    its report entry."""
    t0 = time.monotonic()
    lo = phase * pt.PHASE_WIDTH + 1
    size = pt.table_size()
    sel_t, sel_h = (train.empties - 1) // pt.PHASE_WIDTH, (held.empties - 1) // pt.PHASE_WIDTH
    parts = [x.take(np.minimum(s, pt.PHASES - 1) == phase) for x, s in ((train, sel_t), (held, sel_h))]
    ys = []
    for part in parts:
        y = np.empty(len(part))
        near = part.empties <= exact
        if near.any():
            y[near] = exact_values(part.take(near), ev, pool)
        if (~near).any():
            y[~near] = search_labels(part.take(~near), current, lo - 1, pool)
        ys.append(y)
    (tr, ho), (ytr, yho) = parts, ys
    if len(tr) == 0:
        return None, None
    t1 = time.monotonic()
    idx, extras = features(tr)
    w = ridge(idx, extras, ytr, size, lam, fit_iterations)
    w[:size - pt.EXTRAS] = w[pt.tie_map()]  # tied weights take their fitted twin's value
    row = np.clip(np.rint(w * pt.SCALE), -32767, 32767).astype(np.int16)
    entry = {"train": int(len(tr)), "train_mae": float(np.abs(predict(w, idx, extras) - ytr).mean())}
    if len(ho):
        hidx, hextras = features(ho)
        entry["held"] = int(len(ho))
        entry["held_mae"] = float(np.abs(predict(w, hidx, hextras) - yho).mean())
    entry["label_s"] = round(t1 - t0, 1)
    entry["fit_s"] = round(time.monotonic() - t1, 1)
    return row, entry


class Checkpoint:
    """A run's work kept in a folder, so that a stopped run resumes where it stopped:
    ``run.json`` (the settings, which must match), each iteration's games
    (``games-I.npz``) and each fitted phase (``phase-I-P.npz``)."""

    def __init__(self, folder: str, settings: dict) -> None:
        from pathlib import Path
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        run = self.folder / "run.json"
        if run.exists():
            recorded = json.loads(run.read_text())
            if recorded != settings:
                raise SystemExit(f"{run}: recorded for other settings ({recorded}), not {settings}")
        else:
            run.write_text(json.dumps(settings))
        self.iteration = 0

    def _write(self, name: str, **arrays) -> None:
        tmp = self.folder / (name + ".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(self.folder / name)

    def games(self, iteration: int) -> Positions | None:
        path = self.folder / f"games-{iteration}.npz"
        if not path.exists():
            return None
        with np.load(path) as d:
            return Positions(d["p"], d["o"], d["empties"], d["game"])

    def save_games(self, iteration: int, pos: Positions) -> None:
        self._write(f"games-{iteration}.npz", p=pos.p, o=pos.o, empties=pos.empties, game=pos.game)

    def phase(self, phase: int):
        path = self.folder / f"phase-{self.iteration}-{phase}.npz"
        if not path.exists():
            return None
        with np.load(path) as d:
            entry = json.loads(str(d["entry"]))
            return (np.array(d["row"]) if entry is not None else None), entry

    def save_phase(self, phase: int, row: np.ndarray | None, entry: dict | None) -> None:
        self._write(f"phase-{self.iteration}-{phase}.npz", row=row if row is not None else np.zeros(0, np.int16),
                    entry=np.array(json.dumps(entry)))


def train(games: int, seed: int, exact: int = 14, lam: float = 3.0, iterations: int = 1,
          holdout: int = 10, random_plies: int = 12, command: str = "", log=None,
          version: str = "1", start: pt.Weights | None = None, workers: int = 1,
          work: str | None = None, fit_iterations: int = 300) -> pt.Weights:
    """The whole pipeline (the module docstring); the fitted weights with their ``meta``.
    ``start``: weights that play the first iteration's games (else random moves); ``workers``: processes that
    label; ``work``: a folder to checkpoint into and resume from; ``fit_iterations``: the
    conjugate-gradient steps of each phase's fit."""
    meta = {"version": version, "command": command, "games": games, "seed": seed, "exact": exact,
            "ridge": lam, "iterations": iterations, "patterns": [name for name, _ in pt.SHAPES]}
    if fit_iterations != 300:
        meta["fit_iterations"] = fit_iterations
    if start is not None:
        meta["start"] = {"version": start.version, "command": start.meta.get("command")}
    checkpoint = None
    if work is not None:
        settings = {k: v for k, v in meta.items() if k != "command"}
        settings["holdout"], settings["random_plies"] = holdout, random_plies
        checkpoint = Checkpoint(work, settings)
    pool = Pool(workers) if workers > 1 else None
    sets: list[Positions] = []
    weights = start
    try:
        for it in range(iterations):
            t0 = time.monotonic()
            ev = pt.PatternEval(weights) if weights is not None else None
            played = checkpoint.games(it) if checkpoint else None
            if played is None:
                played = selfplay(games, seed * 1000 + it, ev, random_plies, first_game=it * games)
                if checkpoint:
                    checkpoint.save_games(it, played)
            sets.append(played)
            allpos = Positions.join(sets)
            # one copy of each position (a transposition keeps its first game)
            keys = allpos.p.astype(np.object_) * (1 << 64) + allpos.o.astype(np.object_)
            _, first = np.unique(keys, return_index=True)
            allpos = allpos.take(np.sort(first))
            held = allpos.game % holdout == 0
            if log:
                log(f"iteration {it}: {len(allpos)} positions ({int(held.sum())} held out), "
                    f"self-play {time.monotonic() - t0:.1f} s")
            if checkpoint:
                checkpoint.iteration = it
            weights, report = fit(allpos.take(~held), allpos.take(held), exact, lam, meta, log, ev,
                                  pool, checkpoint, fit_iterations)
            meta = dict(meta, held_out_mae=report)
            weights = pt.Weights(weights.table, meta)
            if log:
                log(f"iteration {it} done in {time.monotonic() - t0:.1f} s")
    finally:
        if pool is not None:
            pool.close()
    return weights


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lab.reversi_train", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exact", type=int, default=14, help="solve exactly from this many empties")
    ap.add_argument("--ridge", type=float, default=3.0)
    ap.add_argument("--iterations", type=int, default=1)
    ap.add_argument("--holdout", type=int, default=10, help="every N-th game is held out")
    ap.add_argument("--random-plies", type=int, default=12)
    ap.add_argument("--version", default="1")
    ap.add_argument("--start", default=None, help="weights that play the first games (default: random moves)")
    ap.add_argument("--workers", type=int, default=1, help="processes that label (the result does not depend on it)")
    ap.add_argument("--fit-iterations", type=int, default=300, help="conjugate-gradient steps of each phase's fit")
    ap.add_argument("--work", default=None, help="a folder to checkpoint into; a stopped run resumes from it")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    command = "python -m lab.reversi_train " + " ".join(sys.argv[1:] if argv is None else argv)
    weights = train(args.games, args.seed, args.exact, args.ridge, args.iterations, args.holdout,
                    args.random_plies, command, log=lambda s: print(s, flush=True), version=args.version,
                    start=pt.Weights.load(args.start) if args.start else None, workers=args.workers, work=args.work, fit_iterations=args.fit_iterations)
    weights.save(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
