"""Replay a recorded match's SPRT two ways: on colour-swapped pairs (pentanomial, the referee's) and
on single games (trinomial), and say after how many games each would have stopped.

    python -m lab.sprt_compare OUT_DIR --sprt ELO0 ELO1 [--alpha A] [--beta B] [--model logistic|normalized]

The games are taken in the order they finished (``results.jsonl``'s order); the pentanomial
test moves when a pair is complete, the trinomial one after every game.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.match.pentanomial import Pairs
from referee.match.records import read_results
from referee.match.settings import RESULTS_FILE
from referee.match.stats import SPRT_MODELS, Sprt, Tally


def replay(records: list[dict], sprt: Sprt) -> dict:
    """The LLR of both tests after each game, and the game at which each first decided."""
    tally, pairs, halves = Tally(), Pairs(), {}
    stops: dict[str, tuple[int, str] | None] = {"pentanomial": None, "trinomial": None}
    rows = []
    for n, r in enumerate(records, 1):
        if r.get("termination") in ("abandoned", "interrupted"):
            continue
        score = 1.0 if r["winner"] == "engine1" else 0.0 if r["winner"] == "engine2" else 0.5
        tally.add(score, r["first"] == 1)
        other = halves.pop(r["game"] + 1 if r["game"] % 2 else r["game"] - 1, None)
        if other is None:
            halves[r["game"]] = score
        else:
            pairs.add(score, other)
        tri = sprt.state(tally.wins, tally.draws, tally.losses)
        penta = sprt.state_of_pairs(pairs.counts)
        rows.append((n, tri.llr, penta.llr))
        for name, st in (("trinomial", tri), ("pentanomial", penta)):
            if stops[name] is None and st.decision is not None:
                stops[name] = (n, st.decision)
    return {"rows": rows, "stops": stops, "bounds": (tri.lower, tri.upper), "pairs": pairs.counts,
            "games": tally.games}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lab.sprt_compare", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", help="a match's --out folder")
    ap.add_argument("--sprt", nargs=2, type=float, required=True, metavar=("ELO0", "ELO1"))
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--model", choices=SPRT_MODELS, default="logistic")
    args = ap.parse_args(argv)
    records = read_results(Path(args.out_dir) / RESULTS_FILE)
    if not records:
        print(f"no games in {args.out_dir}", file=sys.stderr)
        return 2
    out = replay(records, Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta, args.model))
    lo, hi = out["bounds"]
    print(f"{out['games']} games, pairs LL LD WL+DD WD WW {' '.join(map(str, out['pairs']))}; "
          f"bounds [{lo:.3f}, {hi:.3f}]")
    rows = out["rows"][9::10]
    rows += [r for r in out["rows"][-1:] if r not in rows]  # the last game, unless already shown
    for n, tri, penta in rows:
        print(f"  after {n:4d} games: trinomial LLR {tri:+.3f}   pentanomial LLR {penta:+.3f}")
    for name, stop in out["stops"].items():
        print(f"{name}: " + (f"{stop[1]} accepted after {stop[0]} games" if stop else "undecided"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
