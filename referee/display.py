"""Text shown to the person watching a match: boards, verdicts, progress and the summary."""

from __future__ import annotations

import math

from engine.mnk.rules import Board, render
from referee.game import GameResult
from referee.stats import Sprt, Tally, elo_interval, los

__all__ = ["board_text", "game_header", "verdict_text", "progress_line", "summary_text", "endings_text"]


def board_text(board: Board, last: int | None = None) -> str:
    """The board with 0-based column numbers on top and row numbers on the left
    (the protocol's ``x,y``); X moved first, the last move in lower case."""
    return render(board, last)


def game_header(game: int, total: int, x_name: str, o_name: str) -> str:
    return f"=== game {game}/{total}: X {x_name}  vs  O {o_name}"


def verdict_text(r: GameResult) -> str:
    """One line: who won and why."""
    if r.winner is None:
        head = "draw" if r.termination != "interrupted" else "interrupted"
    else:
        name = r.engine1 if r.winner == "engine1" else r.engine2
        head = f"{name} ({r.winner}) wins"
    return f"game {r.game}: {head} by {r.termination} after {len(r.moves)} stones: {r.reason}"


def _fmt_elo(v: float) -> str:
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    return f"{v:+.1f}"


def progress_line(t: Tally, total: int, elapsed_s: float) -> str:
    """``games done/total, W-D-L, score, ETA`` for a running match."""
    done = t.games
    eta = elapsed_s / done * (total - done) if done else float("nan")
    eta_txt = f"{eta:.0f}s" if done and not math.isnan(eta) else "?"
    return (f"[{done}/{total}] engine1 +{t.wins} ={t.draws} -{t.losses}  "
            f"score {t.score():.3f}  elapsed {elapsed_s:.0f}s  ETA {eta_txt}")


def summary_text(name1: str, name2: str, t: Tally, sprt: Sprt | None = None) -> str:
    """The end-of-match summary: W/D/L by colour, score, Elo ± 95 %, LOS, SPRT."""
    elo, lo, hi = elo_interval(t.wins, t.draws, t.losses)
    xw, xd, xl = t.as_x
    ow, od, ol = t.as_o
    lines = [
        f"{name1} (engine1) vs {name2} (engine2): {t.games} games",
        f"  engine1: {t.wins} wins, {t.draws} draws, {t.losses} losses   score {t.score():.3f}",
        f"  as X (first): +{xw} ={xd} -{xl}    as O (second): +{ow} ={od} -{ol}",
        f"  Elo difference {_fmt_elo(elo)}  (95 % interval {_fmt_elo(lo)} .. {_fmt_elo(hi)})",
        f"  LOS {100 * los(t.wins, t.losses):.1f} %",
    ]
    if sprt is not None:
        st = sprt.state(t.wins, t.draws, t.losses)
        decision = {"H1": "H1 accepted", "H0": "H0 accepted", None: "continue"}[st.decision]
        lines.append(f"  SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} alpha={sprt.alpha:g} beta={sprt.beta:g}: "
                     f"LLR {st.llr:.3f} [{st.lower:.3f}, {st.upper:.3f}] {decision}")
    return "\n".join(lines)


def endings_text(results) -> str:
    """How the games ended, e.g. ``line 7, timeout 2 (engine2 at fault)``."""
    counts: dict[str, int] = {}
    faulty: dict[str, set[str]] = {}
    for r in results:
        counts[r.termination] = counts.get(r.termination, 0) + 1
        if r.termination not in ("line", "full_board", "interrupted") and r.winner is not None:
            faulty.setdefault(r.termination, set()).add("engine2" if r.winner == "engine1" else "engine1")
    parts = []
    for term, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        who = faulty.get(term)
        parts.append(f"{term} {n}" + (f" ({' and '.join(sorted(who))} at fault)" if who else ""))
    return ", ".join(parts)
