"""The match report in a real browser: headless Chromium renders DIR/report.html, steps through every
game with the page's own buttons (its #selftest mode) and the DOM it leaves is checked against
results.jsonl.  Skipped where no Chromium is installed."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest

from referee.report.data import ReportBuilder
from referee.report.info import ReportInfo
from referee.report.page import write_page
from support.report_matches import engines_of, final_board, play, records

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(CHROMIUM is None, reason="no Chromium to render the page")]


def dump_dom(url: str, profile) -> str:
    """The DOM Chromium holds once ``url`` has loaded (its scripts run)."""
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           f"--user-data-dir={profile}", "--dump-dom", url]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def selftest(out_dir, tmp_path) -> dict:
    dom = dump_dom((out_dir / "report.html").as_uri() + "#selftest", tmp_path / "profile")
    errors = re.search(r'<div id="script-errors">(.*?)</div>', dom, re.S)
    assert errors is not None and errors.group(1) == "", errors and html.unescape(errors.group(1))
    found = re.search(r'<pre id="selftest">(.*?)</pre>', dom, re.S)
    assert found is not None, "the page wrote no self-test result"
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.parametrize("name", ["sprt", "round-robin", "reversi"])
def test_chromium_renders_the_report_and_replays_every_game_to_its_recorded_end(name, tmp_path):
    out = play(name, tmp_path / "match")
    recs = records(out)
    result = selftest(out, tmp_path)
    engines = 3 if name == "round-robin" else 2
    assert result["errors"] == []
    assert result["standings"] == engines
    assert result["rows"] == result["all_rows"] == len(recs)
    assert result["rows_engine0"] == sum(0 in engines_of(r) for r in recs)
    assert {"plot-elo", "plot-verdicts", "plot-lengths"} <= set(result["plots"])
    assert result["series"] == (3 if name == "round-robin" else 1)
    assert result["llr_bounds"] == (2 if name == "sprt" else 0)
    for r in recs:
        g = str(r["game"])
        assert result["boards"][g] == final_board(r), f"game {g}"
        assert result["marks"][g]["clicks"] == len(r["moves"])  # one press of 'next' a move
        if len(r["moves"]) > r["opening"]:  # the last move's time is shown (a forced pass takes 0 ms)
            assert f" {r['times_ms'][-1]} ms" in result["marks"][g]["move"]
        if r["termination"] == "line":
            assert result["marks"][g]["win"] >= r["win_length"]


def test_a_long_match_draws_its_first_rows_and_the_rest_on_a_click(tmp_path):
    out = play("sprt", tmp_path / "match")
    page = out / "report.html"
    page.write_text(page.read_text(encoding="utf-8").replace("PAGE_ROWS = 200", "PAGE_ROWS = 4"), encoding="utf-8")
    result = selftest(out, tmp_path)
    assert (result["rows"], result["all_rows"]) == (4, 6)
    assert all(result["boards"][str(r["game"])] == final_board(r) for r in records(out))


def test_a_link_to_one_game_shows_it_first(tmp_path):
    out = play("reversi", tmp_path / "match")
    dom = dump_dom((out / "report.html").as_uri() + "#game-3", tmp_path / "profile")
    assert re.search(r'<body[^>]*class="focus"', dom)
    assert '<h2 id="r-title">Game 3' in dom and 'href="game-0003.ggf"' in dom


def test_a_foul_is_marked_and_not_placed(tmp_path):
    """A renju game lost on a forbidden point (its record keeps the foul as the last move) and an
    illegal move onto a stone: the page marks each foul's cell and places no stone for it."""
    base = {"engine1": "a", "engine2": "b", "first": 1, "winner": "engine2", "width": 15, "height": 15,
            "win_length": 5, "rule": "renju", "opening": 0}
    builder = ReportBuilder(ReportInfo(names=["a", "b"], tags=["engine1", "engine2"], per_pairing=2))
    builder.add_record({**base, "game": 1, "termination": "forbidden", "moves": [[7, 7], [0, 0], [9, 9]],
                        "times_ms": [5, 6, 7], "foul": True, "reason": "a (engine1) played 9,9: a double three"})
    builder.add_record({**base, "game": 2, "termination": "illegal_move", "moves": [[7, 7], [0, 0]],
                        "times_ms": [5, 6], "reason": "a (engine1) played 0,0, which is occupied"})
    write_page(tmp_path, builder.data())
    result = selftest(tmp_path, tmp_path)
    assert result["errors"] == [] and result["rows"] == 2
    empty = ["." * 15] * 15
    first = list(empty)
    first[7] = "." * 7 + "x" + "." * 7
    first[0] = "o" + "." * 14
    assert result["boards"]["1"] == result["boards"]["2"] == "/".join(first)  # 9,9 stays empty
    assert result["marks"]["1"]["foul"] == result["marks"]["2"]["foul"] == 1
