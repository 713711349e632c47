"""Short matches of the referee's random mover recorded with --out, and what a report must show of
them, worked out from results.jsonl independently of the report's code (shared by the report tests)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from referee.cli.main import main
from referee.games import rules_for
from referee.match.records import read_results
from referee.report.info import config_of_record
from referee.report.page import embedded_data

#: Each match: its name and the referee's command line (random movers are fast and need no process).
MATCHES = {
    "sprt": ["random", "random", "--size", "9", "--win-length", "4", "--games", "6", "--seed", "3",
             "--sprt", "0", "50"],
    "round-robin": ["random", "random", "random", "--size", "10x7", "--win-length", "4", "--games", "4",
                    "--seed", "4"],
    "reversi": ["--game", "reversi", "random", "random", "--size", "6", "--games", "4", "--seed", "9"],  # passes in it
}


def play(name: str, out_dir: Path) -> Path:
    """Play match ``name`` into ``out_dir`` (quietly); return the folder."""
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(MATCHES[name] + ["--out", str(out_dir), "--quiet"]) == 0
    return out_dir


def records(out_dir: Path) -> list[dict]:
    return read_results(out_dir / "results.jsonl")


def page_data(out_dir: Path) -> dict:
    return embedded_data((out_dir / "report.html").read_text(encoding="utf-8"))


def final_board(obj: dict) -> str:
    """The recorded game's last position as rows of ``.``, ``x`` (the first colour), ``o``, joined by ``/``."""
    config = config_of_record(obj)
    state = rules_for(config).replay(obj["moves"])
    w, h = obj["width"], obj["height"]
    rows = []
    for y in range(h):
        row = ""
        for x in range(w):
            if obj.get("game_type") == "reversi":
                bit = 1 << (y * w + x)
                row += "x" if state.black & bit else "o" if state.white & bit else "."
            else:
                row += ".xo"[state.at(x, y)]
        rows.append(row)
    return "/".join(rows)


def engines_of(obj: dict) -> tuple[int, int]:
    """The places (0-based) of a game's engine1 and engine2."""
    places = obj.get("engine_numbers") or [1, 2]
    return places[0] - 1, places[1] - 1
