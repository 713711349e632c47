"""The NBoard lab tools: the endgame check of any NBoard engine, the latency tool's
positions, the eval scale's helpers (the measurements themselves are run by hand)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from engine.reversi.board.ggf import parse_ggf
from lab import endgames, eval_scale, nboard_latency


def test_endgames_file_reads_and_becomes_ggf_records():
    games = endgames.read_endgames(endgames.DEFAULT_FILE)
    assert len(games) == 30 and games[0].name == "e01" and games[0].answers == frozenset({"f8"})
    assert games[1].margin == 8 and "h1" in games[1].answers
    for g in games:
        record = parse_ggf(endgames.ggf(g))
        assert record.start.to_text().split()[0] == g.board and not record.moves


def test_latency_positions_are_fixed_midgames():
    first = nboard_latency.positions(5, seed=3)
    assert [s.key() for s in first] == [s.key() for s in nboard_latency.positions(5, seed=3)]
    assert all(20 <= s.empties() <= 50 and len(s.legal_moves()) >= 1 for s in first)
    assert parse_ggf(nboard_latency.ggf(first[0])).start.key() == first[0].key()


def test_eval_scale_helpers():
    assert eval_scale.logit(0.5) == 0.0 and eval_scale.logit(1.0) == pytest.approx(math.log(999))
    assert eval_scale.rmse([(3.0, 1.0), (-1.0, 1.0)]) == 2.0


@pytest.mark.slow
def test_endgames_through_this_engine(tmp_path: Path, capsys):
    lines = [ln for ln in endgames.DEFAULT_FILE.read_text().splitlines() if ln.startswith(("e01", "e10", "e21"))]
    path = tmp_path / "three.txt"
    path.write_text("\n".join(lines) + "\n")
    code = endgames.main(["--file", str(path), "--json", "--", sys.executable, "-m", "protocol.nboard",
                          "--max-nodes", "200"])
    out = capsys.readouterr().out
    assert code == 0 and '"kept": 3' in out and '"exact_evals": 3' in out


@pytest.mark.slow
def test_endgames_report_an_engine_that_cannot_start(capsys):
    assert endgames.main(["--", "/nonexistent/engine"]) == 2
    assert "cannot start" in capsys.readouterr().err
