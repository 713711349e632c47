"""Fit the m,n,k shape weights (engine/mnk/knowledge/shapes.py) to positions labelled by the project's own searches.

    python -m lab.mnk_fit labels.jsonl.gz --out engine/mnk/knowledge/data/shapes-15x15-k5-freestyle.json

Input: the JSON lines of :mod:`lab.mnk_labels`, or self-play games of :mod:`lab.mnk_selfplay`
labelled by their own searches (one configuration).  Every fifth game (by its seed and
number) is held out.  The fits, all plain numpy:

- **move priors**: a softmax over each position's candidate cells (the empty cells within
  distance 2 of a stone, plus any the search visited), the logit of a cell being the attack
  weights on the mover's shape features and line codes plus the defence weights on the
  opponent's; the
  target is the labelling search's share of visits per move (the best move alone when the
  search proved the position without a tree);
- **value**: a logistic regression of the labelling search's value for the side to move
  (blended with the game's result by ``--result-share``) on the mover's and the opponent's
  shape features summed over the empty cells, over the positions the search did not settle
  (a settled one is the threat solver's business).

Both use Adam on the full batch with a small L2 penalty, from zero weights, so the fit is
deterministic.  ``--priors FILE`` takes the move priors from a weights file instead of
fitting them (the value alone is fitted then); ``--prior-positions`` caps the positions the
priors are fitted to (each holds a table of its candidate cells).  The report compares the
fitted knowledge with what the engine uses now (the shipped weights) on the held-out
positions: the rank of the search's move under the priors (top-1, top-5), and how often the
value prefers the side the search prefers and the side that went on to win.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time

import numpy as np

from engine.mnk.knowledge.shapes import FEATURES, LINE_CODES, ShapeBoard, ShapeWeights, line_code_index, weights_name

from .mnk_labels import config_of, expand, read_games

#: Candidate cells are within this Chebyshev distance of a stone.
NEAR = 2
#: Positions whose line codes are computed at once (a chunk's codes take about 240 MB).
CHUNK = 4096


def held_out(row: dict) -> bool:
    """Is this position's game in the held-out fifth?"""
    digest = hashlib.sha256(f"{row['seed']}:{row['game']}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 5 == 0


class Positions:
    """Labelled positions as arrays: compact boards, movers, search values, winners."""

    def __init__(self, rows: list[dict]) -> None:
        self.config = config_of(rows[0])
        w, area = self.config.width, self.config.area
        n = len(rows)
        self.boards = np.zeros((n, area), dtype=np.int8)
        for i, row in enumerate(rows):
            for j, (x, y) in enumerate(row["moves"]):
                self.boards[i, y * w + x] = 1 + j % 2
        self.movers = np.array([r["to_move"] for r in rows])
        self.values = np.array([r["value"] for r in rows])
        self.won = np.array([1.0 if r["winner"] == r["to_move"] else 0.0 if r["winner"] else 0.5 for r in rows])
        self.proven = np.array([r["proven"] is not None for r in rows])
        self.best = np.array([r["best"][1] * w + r["best"][0] for r in rows])
        self.visits = [{y * w + x: n for x, y, n in r["visits"]} for r in rows]

    def candidates(self, i: int) -> list[int]:
        """Position i's candidate cells (see the module doc)."""
        w, h = self.config.width, self.config.height
        b = self.boards[i].reshape(h, w)
        occupied = b != 0
        near = np.zeros_like(occupied)
        ys, xs = np.nonzero(occupied)
        for y, x in zip(ys, xs):
            near[max(0, y - NEAR): y + NEAR + 1, max(0, x - NEAR): x + NEAR + 1] = True
        cells = set(np.flatnonzero(near & ~occupied).tolist())
        cells.update(self.visits[i])
        cells.add(int(self.best[i]))
        return sorted(cells)


def adam(grad_fn, size: int, steps: int, rate: float) -> np.ndarray:
    """Minimise with Adam from zero weights (``grad_fn(theta) -> (loss, gradient)``)."""
    theta = np.zeros(size)
    m = np.zeros(size)
    v = np.zeros(size)
    for t in range(1, steps + 1):
        _, g = grad_fn(theta)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        theta -= rate * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return theta


#: The priors' weights: attack features, defence features, attack lines, defence lines.
PRIOR_SIZE = 2 * FEATURES + 2 * LINE_CODES
#: Weights a candidate cell looks up: 5 features and 4 line codes, for each side.
LOOKUPS = 18


class PriorData:
    """Candidate cells of every position as indices into the prior weights (:data:`PRIOR_SIZE`)."""

    def __init__(self, pos: Positions, sb: ShapeBoard, rows: np.ndarray) -> None:
        cands = [pos.candidates(i) for i in rows]
        width = max(len(c) for c in cands)
        n = len(rows)
        self.cells = np.zeros((n, width), dtype=np.intp)
        self.mask = np.zeros((n, width), dtype=bool)
        self.target = np.zeros((n, width))
        self.best_col = np.zeros(n, dtype=np.intp)
        self.index = np.zeros((n, width, LOOKUPS), dtype=np.intp)
        lines = line_code_index()
        for r, (i, cs) in enumerate(zip(rows, cands)):
            cs_arr = np.array(cs, dtype=np.intp)
            k = len(cs)
            self.cells[r, :k] = cs_arr
            self.mask[r, :k] = True
            board = pos.boards[i: i + 1]
            p = int(pos.movers[i])
            own = sb.codes(board, p, cs_arr)[0]
            opp = sb.codes(board, 3 - p, cs_arr)[0]
            self.index[r, :k] = np.concatenate([
                sb.feature_index(sb.classes[p][own]), FEATURES + sb.feature_index(sb.classes[3 - p][opp]),
                2 * FEATURES + lines[own], 2 * FEATURES + LINE_CODES + lines[opp]], axis=1)
            visits = pos.visits[i]
            total = sum(visits.values())
            col = {c: j for j, c in enumerate(cs)}
            if total > 0:
                for c, v in visits.items():
                    self.target[r, col[c]] = v / total
            else:
                self.target[r, col[int(pos.best[i])]] = 1.0
            self.best_col[r] = col[int(pos.best[i])]

    def logits(self, theta: np.ndarray) -> np.ndarray:
        z = theta[self.index].sum(axis=-1)
        return np.where(self.mask, z, -np.inf)

    def loss_grad(self, theta: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
        z = self.logits(theta)
        z = z - z.max(axis=1, keepdims=True)
        e = np.where(self.mask, np.exp(z), 0.0)
        p = e / e.sum(axis=1, keepdims=True)
        n = len(z)
        loss = -(self.target * np.where(self.mask, np.log(np.maximum(p, 1e-300)), 0.0)).sum() / n
        d = (p - self.target) / n
        grad = np.bincount(self.index.reshape(-1), weights=np.repeat(d.reshape(-1), LOOKUPS), minlength=PRIOR_SIZE)
        return loss + l2 * float(theta @ theta), grad + 2 * l2 * theta

    def ranks(self, z: np.ndarray) -> np.ndarray:
        """Rank (0 = first) of the search's move under logits z (ties count against it)."""
        best = z[np.arange(len(z)), self.best_col]
        return ((z >= best[:, None]) & self.mask).sum(axis=1) - 1


def value_features(pos: Positions, sb: ShapeBoard, rows: np.ndarray) -> np.ndarray:
    """(n, 2 * FEATURES): the mover's summed features, then the opponent's."""
    out = np.zeros((len(rows), 2 * FEATURES))
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start: start + CHUNK]
        b = pos.boards[chunk]
        f1, f2 = sb.features(b, 1), sb.features(b, 2)
        black = (pos.movers[chunk] == 1)[:, None]
        out[start: start + len(chunk)] = np.concatenate([np.where(black, f1, f2), np.where(black, f2, f1)], axis=1)
    return out


def fit_value(x: np.ndarray, y: np.ndarray, l2: float, steps: int) -> tuple[np.ndarray, float]:
    """Logistic regression of soft labels y on x with a bias: (weights, bias).  The features
    (counts of up to hundreds) are standardised for the fit and the weights mapped back."""
    mu, sd = x.mean(axis=0), x.std(axis=0)
    sd = np.where(sd > 1e-9, sd, 1.0)
    xb = np.concatenate([(x - mu) / sd, np.ones((len(x), 1))], axis=1)

    def grad(theta):
        z = np.clip(xb @ theta, -30, 30)
        p = 1 / (1 + np.exp(-z))
        reg = np.r_[theta[:-1], 0.0]
        return 0.0, xb.T @ (p - y) / len(y) + 2 * l2 * reg

    theta = adam(grad, xb.shape[1], steps, 0.02)
    w = theta[:-1] / sd
    return w, float(theta[-1] - w @ mu)


def value_report(logit: np.ndarray, pos: Positions, rows: np.ndarray) -> str:
    search = pos.values[rows]
    won = pos.won[rows]
    decided = won != 0.5
    p = 1 / (1 + np.exp(-np.clip(logit, -30, 30)))
    agrees = np.mean((p > 0.5) == (search > 0.5))
    winner = np.mean((p[decided] > 0.5) == (won[decided] > 0.5))
    ll = -np.mean(search * np.log(np.clip(p, 1e-9, 1)) + (1 - search) * np.log(np.clip(1 - p, 1e-9, 1)))
    return f"agrees with the search {agrees:.1%}, prefers the winner {winner:.1%}, log loss to the search {ll:.3f}"


def main(argv: list[str] | None = None) -> int:
    """Command line: fit, report on the held-out positions, write the weights."""
    ap = argparse.ArgumentParser(prog="python -m lab.mnk_fit", description=__doc__.split("\n")[0])
    ap.add_argument("labels", nargs="+", help="files written by lab.mnk_labels or lab.mnk_selfplay")
    ap.add_argument("--steps", type=int, default=400, help="Adam steps of each fit")
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--result-share", type=float, default=0.0,
                    help="weight of the game's result in the value's label (the rest is the search's value)")
    ap.add_argument("--priors", help="take the move priors from this weights file instead of fitting them")
    ap.add_argument("--prior-positions", type=int, default=30000,
                    help="fit the priors to at most this many positions, evenly spread (their candidate tables take memory)")
    ap.add_argument("--out", help="write the fitted weights here")
    args = ap.parse_args(argv)
    started = time.monotonic()
    rows = expand(read_games(args.labels))
    pos = Positions(rows)
    test_mask = np.array([held_out(r) for r in rows])
    train, test = np.flatnonzero(~test_mask), np.flatnonzero(test_mask)
    del rows
    print(f"{len(test_mask)} positions of {pos.config.label}: {len(train)} to fit, {len(test)} held out")
    sb = ShapeBoard(pos.config, ShapeWeights.zero())

    # Move priors.
    if args.priors:
        with open(args.priors) as f:
            given = ShapeWeights.from_json(f.read())
        attack, defence, attack_lines, defence_lines = given.attack, given.defence, given.attack_lines, given.defence_lines
    else:
        prior_rows = train[:: -(-len(train) // args.prior_positions)]
        fit_p = PriorData(pos, sb, prior_rows)
        theta = adam(lambda th: fit_p.loss_grad(th, args.l2), PRIOR_SIZE, args.steps, 0.05)
        del fit_p
        attack, defence = theta[:FEATURES], theta[FEATURES: 2 * FEATURES]
        attack_lines, defence_lines = theta[2 * FEATURES: 2 * FEATURES + LINE_CODES], theta[2 * FEATURES + LINE_CODES:]

    # Value: the positions the search did not settle (a settled one is the solver's, and the
    # long forced finishes of self-play games would otherwise swamp the fit).
    y = (1 - args.result_share) * pos.values + args.result_share * pos.won
    open_train = train[~pos.proven[train]]
    x = value_features(pos, sb, open_train)
    w, tempo = fit_value(x, y[open_train], args.l2, args.steps * 2)
    fitted = ShapeWeights(tuple(attack), tuple(defence), tuple(attack_lines), tuple(defence_lines),
                          tuple(w[:FEATURES]), tuple(w[FEATURES:]), tempo, weights_name(pos.config))
    print(f"fitted in {time.monotonic() - started:.0f} s")

    # Held-out report, against the shipped weights.
    unsettled = test[~pos.proven[test]]
    test_p = PriorData(pos, sb, test[:10000]) if len(unsettled) else None
    for label, ws in (("shipped", None), ("fitted", fitted)) if test_p else ():
        try:
            board = ShapeBoard(pos.config, ws)
        except (RuntimeError, KeyError, ValueError) as e:  # none shipped, or of another form
            print(f"  {label}: no usable weights ({e})")
            continue
        ws = board.weights
        th = np.concatenate([ws.attack, ws.defence, ws.attack_lines, ws.defence_lines])
        r = test_p.ranks(test_p.logits(th))
        vl = np.concatenate([board.value_logits(pos.boards[unsettled[i: i + CHUNK]], pos.movers[unsettled[i: i + CHUNK]])
                             for i in range(0, len(unsettled), CHUNK)])
        print(f"  {label:8s} priors: top-1 {np.mean(r < 1):.1%}, top-5 {np.mean(r < 5):.1%};"
              f" value (unsettled): {value_report(vl, pos, unsettled)}")
    if args.out:
        with open(args.out, "w") as f:
            about = {"priors_from": os.path.basename(args.priors)} if args.priors else {"prior_positions": len(prior_rows)}
            f.write(fitted.to_json(positions=len(train), value_positions=len(open_train), **about,
                                   result_share=args.result_share, l2=args.l2, steps=args.steps))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
