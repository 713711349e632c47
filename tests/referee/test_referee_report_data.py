"""The match report's data: what DIR/report.html holds, checked against the match's results.jsonl.

The expected figures are recounted here from the results (wins, pairs, points, moves) and put
through the statistics functions; the report must show the same, also at every plotted point
(the counts of the games played up to it)."""

from __future__ import annotations

import contextlib
import io
import json
import math

import pytest

from engine.mnk.board.rules import winning_line
from referee.cli.main import main
from referee.games import rules_for
from referee.match.pentanomial import Pairs, pair_interval
from referee.match.stats import Sprt, elo_interval, sprt_bounds
from referee.play.result import GameResult
from referee.report import data as report_data
from referee.report.data import ReportBuilder
from referee.report.moves import ALPHABET, decode_cells, move_codes
from referee.report.info import INFO_FILE, ReportInfo, config_of_record, load_info
from referee.report.live import LiveReport
from referee.report.page import embedded_data, render
from support.report_matches import engines_of, page_data, play, records


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    """The three short matches, each played once into its own folder."""
    return {name: play(name, tmp_path_factory.mktemp(name.replace("-", "")))
            for name in ("sprt", "round-robin", "reversi")}


def _pairs_up_to(recs, k):
    """Engine1's pentanomial counts over the first ``k`` scored games (file order)."""
    pairs, halves = Pairs(), {}
    for r in recs[:k]:
        s = 1.0 if r["winner"] == "engine1" else 0.0 if r["winner"] == "engine2" else 0.5
        partner = r["game"] + 1 if r["game"] % 2 else r["game"] - 1
        if partner in halves:
            pairs.add(s, halves.pop(partner))
        else:
            halves[r["game"]] = s
    return pairs


def _rounded(t):
    return [None if math.isinf(v) else round(v, 1) for v in t]


def test_the_match_page_lists_every_game_as_recorded(dirs):
    recs, d = records(dirs["sprt"]), page_data(dirs["sprt"])
    assert (dirs["sprt"] / INFO_FILE).is_file()
    assert d["kind"] == "match" and d["state"] == "finished" and d["total"] == 6
    assert [g["g"] for g in d["games"]] == [r["game"] for r in recs]
    for g, r in zip(d["games"], recs):
        assert decode_cells(g["mv"]) == [tuple(m) for m in r["moves"]]
        assert [int(t) for t in g["ms"].split(",")] == r["times_ms"] and g["op"] == r["opening"] and g["t"] == r["termination"]
        assert g["e"] == ([0, 1] if r["first"] == 1 else [1, 0])
        winner_first = (r["winner"] == "engine1") == (r["first"] == 1)
        assert g["w"] == (0 if r["winner"] is None else 1 if winner_first else 2)
        assert g["f"] == [f"game-{r['game']:04d}.sgf", f"game-{r['game']:04d}.psq"]
        assert all((dirs["sprt"] / f).is_file() for f in g["f"])


def test_the_winning_line_is_k_stones_of_the_winner_in_a_row(dirs):
    recs, d = records(dirs["sprt"]), page_data(dirs["sprt"])
    lines = 0
    for g, r in zip(d["games"], recs):
        if r["termination"] != "line":
            assert "line" not in g
            continue
        lines += 1
        cells = decode_cells(g["line"])
        assert len(cells) >= r["win_length"]
        winner_moves = {tuple(m) for m in r["moves"][g["w"] - 1::2]}
        assert set(cells) <= winner_moves
        assert tuple(r["moves"][-1]) in cells  # the line goes through the last stone
        dx, dy = cells[1][0] - cells[0][0], cells[1][1] - cells[0][1]
        assert all((b[0] - a[0], b[1] - a[1]) == (dx, dy) for a, b in zip(cells, cells[1:]))
    assert lines > 0


def test_the_match_standings_elo_and_llr_match_the_results(dirs):
    recs, d = records(dirs["sprt"]), page_data(dirs["sprt"])
    wins = sum(r["winner"] == "engine1" for r in recs)
    losses = sum(r["winner"] == "engine2" for r in recs)
    rows = {row["e"]: row for row in d["standings"]}
    assert (rows[0]["w"], rows[0]["l"], rows[1]["w"], rows[1]["l"]) == (wins, losses, losses, wins)
    assert rows[0]["points"] + rows[1]["points"] == len(recs)
    sprt = Sprt(0, 50)
    plots = d["plots"]
    assert plots["x"][-1] == len(recs)
    assert [plots["llr"]["lower"], plots["llr"]["upper"]] == [round(b, 3) for b in sprt_bounds()]
    for i, k in enumerate(plots["x"]):
        pairs = _pairs_up_to(recs, k)
        assert plots["llr"]["y"][i] == round(sprt.state_of_pairs(pairs.counts).llr, 3)
        if pairs.n:
            expected = pair_interval(pairs.counts)
        else:
            w = sum(r["winner"] == "engine1" for r in recs[:k])
            l = sum(r["winner"] == "engine2" for r in recs[:k])
            expected = elo_interval(w, k - w - l, l)
        series = plots["elo"][0]
        assert [series["y"][i], series["lo"][i], series["hi"][i]] == _rounded(expected)
    assert d["sprt"]["llr"] == plots["llr"]["y"][-1]
    assert "SPRT (pentanomial" in d["summary"] and "LOS" in d["summary"]


def test_the_tournament_standings_and_cross_table_match_the_results(dirs):
    recs, d = records(dirs["round-robin"]), page_data(dirs["round-robin"])
    assert d["kind"] == "round-robin" and len(d["engines"]) == 3 and d["total"] == 12 == len(recs)
    points, games = [0.0] * 3, [0] * 3
    cross = [[0.0] * 3 for _ in range(3)]
    for r in recs:
        i, j = engines_of(r)
        s = 1.0 if r["winner"] == "engine1" else 0.0 if r["winner"] == "engine2" else 0.5
        points[i] += s
        points[j] += 1 - s
        games[i] += 1
        games[j] += 1
        cross[i][j] += s
        cross[j][i] += 1 - s
    assert sorted(row["e"] for row in d["standings"]) == [0, 1, 2]
    for row in d["standings"]:
        assert (row["points"], row["games"]) == (points[row["e"]], games[row["e"]])
    assert [row["points"] for row in d["standings"]] == sorted(points, reverse=True)
    for i in range(3):
        for j in range(3):
            assert d["cross"][i][j] == (None if i == j else [cross[i][j], 4])
    assert len(d["plots"]["elo"]) == 3 and "llr" not in d["plots"]
    for e in range(3):
        lost = sum(n for n in d["verdicts"][e]["L"].values())
        won = sum(n for n in d["verdicts"][e]["W"].values())
        assert won + lost + sum(d["verdicts"][e]["D"].values()) == games[e]


def test_reversi_moves_are_kept_with_their_passes(dirs):
    recs, d = records(dirs["reversi"]), page_data(dirs["reversi"])
    assert d["board"] == {"game": "reversi", "w": 6, "h": 6, "k": None, "rule": None}
    assert d["colours"] == ["black", "white"]
    for g, r in zip(d["games"], recs):
        cells = decode_cells(g["mv"])
        words = ["pass" if c is None else f"{chr(97 + c[0])}{c[1] + 1}" for c in cells]
        assert words == r["moves"]
        assert g["discs"] == r["discs"] and g["f"] == [f"game-{r['game']:04d}.ggf"]
    assert any("pass" in r["moves"] for r in recs)  # (the seed gives a game with a forced pass)


def test_move_codes_cover_the_largest_board_and_passes():
    assert move_codes({"moves": [[0, 0], [63, 62]]}) == "00_-"
    assert move_codes({"game_type": "reversi", "moves": ["a1", "pass", "p16"]}) == "00..ff"
    assert decode_cells("00.._-") == [(0, 0), None, (63, 62)]
    assert len(ALPHABET) == 64 and len(set(ALPHABET)) == 64


def test_report_rebuilds_the_page_without_its_settings_file(dirs, tmp_path, capsys):
    src = dirs["round-robin"]
    before = page_data(src)
    out = tmp_path / "copy"
    out.mkdir()
    (out / "results.jsonl").write_bytes((src / "results.jsonl").read_bytes())
    assert main(["report", str(out)]) == 0
    assert "12 games" in capsys.readouterr().out
    after = page_data(out)
    assert after["state"] == "recorded" and after["total"] == 12 and after["kind"] == "round-robin"
    assert after["standings"] == before["standings"] and after["cross"] == before["cross"]
    assert after["plots"] == before["plots"] and after["games"] == before["games"]


def test_report_plots_a_given_sprt_and_refuses_bad_folders(dirs, tmp_path, capsys):
    out = tmp_path / "m"
    out.mkdir()
    (out / "results.jsonl").write_bytes((dirs["sprt"] / "results.jsonl").read_bytes())
    assert main(["report", str(out), "--sprt", "0", "50"]) == 0
    assert page_data(out)["plots"]["llr"] == page_data(dirs["sprt"])["plots"]["llr"]
    for bad in ([str(tmp_path / "missing")], [str(tmp_path)], [str(out), "--sprt", "10", "0"]):
        with pytest.raises(SystemExit) as exc:
            main(["report"] + bad)
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "is not a folder" in err and "holds no results.jsonl" in err and "elo0 < elo1" in err


def test_the_page_cannot_be_broken_by_a_name_or_a_reason():
    obj = {"game": 1, "engine1": "</script><script>alert(1)</script>", "engine2": "b & c", "first": 1,
           "winner": "engine2", "termination": "crash", "reason": "</script> <!-- crashed", "moves": [[1, 1]],
           "times_ms": [5], "width": 5, "height": 5, "win_length": 3, "rule": "freestyle"}
    b = ReportBuilder(ReportInfo(names=["a", "b"], tags=["engine1", "engine2"], per_pairing=2))
    b.add_record(obj)
    for page in (render(b.data()), render(b.data(), b.games_json)):  # the games encoded at once, or kept
        assert "</script><script>alert" not in page and "<!-- crashed" not in page
        d = embedded_data(page)
        assert d["engines"][0]["name"] == obj["engine1"] and d["games"][0]["why"] == obj["reason"]
        assert d["games"] == b.data()["games"]


def test_junk_and_interrupted_lines_are_skipped():
    b = ReportBuilder(ReportInfo(names=["a", "b"], tags=["engine1", "engine2"], per_pairing=2))
    b.add_record({"game": 1, "termination": "line"})  # no moves, no players
    b.add_record({"game": 1, "engine1": "a", "engine2": "b", "first": 1, "winner": None, "termination": "interrupted",
           "reason": "", "moves": [], "times_ms": []})
    assert b.data()["games"] == [] and b.data()["done"] == 0


def test_the_foul_is_marked_on_its_cell():
    base = {"engine1": "a", "engine2": "b", "first": 1, "winner": "engine2", "width": 15, "height": 15,
            "win_length": 5, "rule": "renju", "times_ms": [0, 0, 0]}
    b = ReportBuilder(ReportInfo(names=["a", "b"], tags=["engine1", "engine2"], per_pairing=2))
    b.add_record({**base, "game": 1, "termination": "forbidden", "moves": [[7, 7], [8, 8], [6, 6]], "foul": True,
           "reason": "a (engine1) played 6,6: black's 6,6 is a double three, forbidden under renju"})
    b.add_record({**base, "game": 2, "termination": "illegal_move", "moves": [[7, 7], [8, 8]], "times_ms": [0, 0],
           "reason": "a (engine1) played 8,8, which is occupied"})
    g1, g2 = b.data()["games"]
    assert (g1["foul"], g1["fm"]) == ("66", 1)
    assert g2["foul"] == "88" and "fm" not in g2


def test_plots_keep_a_bounded_number_of_points(dirs, monkeypatch):
    monkeypatch.setattr(report_data, "MAX_POINTS", 8)
    recs = records(dirs["sprt"])
    b = ReportBuilder(ReportInfo(names=["a", "b"], tags=["engine1", "engine2"], per_pairing=60))
    for copy in range(10):  # the six games again and again, numbered on
        for r in recs:
            b.add_record({**r, "game": r["game"] + 6 * copy})
    xs = b.data()["plots"]["x"]
    assert len(xs) <= 9 and xs[-1] == 60 and b.step > 1
    assert all(x % b.step == 0 for x in xs[:-1])


def test_the_live_page_is_written_at_the_first_game_then_rarely_then_at_the_end(dirs, tmp_path):
    recs = records(dirs["sprt"])
    out = tmp_path / "live"
    out.mkdir()
    (out / "results.jsonl").write_text(json.dumps(recs[0]) + "\n", encoding="utf-8")  # a resumed game
    live = LiveReport(out, ReportInfo(names=["a", "b"], tags=["engine1", "engine2"], per_pairing=6),
                      min_interval_s=3600)
    for obj in recs[1:]:
        live.game_recorded(GameResult.from_json(obj), obj)
    assert live.writes == 1 and page_data(out)["recorded"] == 2 and page_data(out)["state"] == "running"
    live.close(interrupted=True)
    d = page_data(out)
    assert live.writes == 2 and d["state"] == "interrupted"
    assert [g["g"] for g in d["games"]] == [r["game"] for r in recs]
    assert load_info(out).per_pairing == 6


def test_a_match_that_recorded_nothing_leaves_no_page(tmp_path):
    live = LiveReport(tmp_path, ReportInfo(names=["a", "b"], tags=["engine1", "engine2"]))
    live.close()
    assert list(tmp_path.iterdir()) == []


def test_a_page_that_cannot_be_written_leaves_the_match_alone(dirs, tmp_path):
    out = tmp_path / "blocked"
    out.mkdir()
    (out / "report.html").mkdir()  # a folder where the page goes: every write fails
    err = io.StringIO()
    live = LiveReport(out, ReportInfo(names=["a", "b"], tags=["engine1", "engine2"]), err=err)
    for obj in records(dirs["sprt"]):
        live.game_recorded(GameResult.from_json(obj), obj)
    live.close()
    assert live.writes == 0 and err.getvalue().count("cannot write") == 1
    assert json.loads((out / INFO_FILE).read_text())["names"] == ["a", "b"]


@pytest.mark.parametrize("rule", ["freestyle", "exact", "caro"])
def test_the_winning_line_is_the_one_the_rules_mark(rule, tmp_path):
    out = tmp_path / rule
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["random", "random", "--size", "7", "--win-length", "4", "--rule", rule, "--games", "12",
                     "--seed", "7", "--out", str(out), "--quiet"]) == 0
    recs = records(out)
    checked = 0
    for g, r in zip(page_data(out)["games"], recs):
        if r["termination"] != "line":
            continue
        config = config_of_record(r)
        board = rules_for(config).replay(r["moves"])
        expected = {config.xy(m) for m in winning_line(board, board.history[-1])}
        assert set(decode_cells(g["line"])) == expected
        checked += 1
    assert checked > 0


def test_a_resumed_match_page_holds_the_games_of_both_runs(tmp_path):
    out = tmp_path / "resumed"
    base = ["random", "random", "--size", "7", "--win-length", "4", "--seed", "2", "--out", str(out), "--quiet"]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(base + ["--games", "4"]) == 0
        assert page_data(out)["total"] == 4
        assert main(base + ["--games", "8", "--resume"]) == 0
    d = page_data(out)
    assert (d["state"], d["done"], d["total"]) == ("finished", 8, 8)
    assert [g["g"] for g in d["games"]] == [r["game"] for r in records(out)] == list(range(1, 9))
