"""PSQ, SGF and results.jsonl writing and reading."""

import json

from referee.play.result import GameResult
from referee.match.records import append_result, psq_text, read_results, sgf_text, write_game_files


def result(**kw):
    base = dict(game=3, engine1="Alpha", engine2="Beta", first=2, winner="engine2", termination="line",
                reason="Beta completed 4 in a row with 2,0", moves=[[0, 0], [1, 1], [1, 0], [2, 2], [2, 0]],
                times_ms=[0, 15, 20, 1200, 7], opening=1, width=7, height=6, win_length=3, rule="exact",
                started="2026-11-22T03:00:00Z")
    base.update(kw)
    return GameResult(**base)


def test_psq_has_header_one_based_moves_names_in_colour_order_and_code():
    text = psq_text(result())
    assert text.splitlines() == [
        "Piskvorky 7x6, 11:11, 0",
        "1,1,0", "2,2,15", "2,1,20", "3,3,1200", "3,1,7",
        "Beta", "Alpha",  # Beta (engine2) moved first
        "0",
    ]
    assert psq_text(result(termination="timeout")).splitlines()[-1] == "15"
    assert psq_text(result(termination="crash")).splitlines()[-1] == "1"


def test_sgf_fields():
    text = sgf_text(result())
    assert text.startswith("(;FF[4]GM[4]") and text.endswith(")\n")
    for part in ("SZ[7:6]", "RU[1]", "PB[Beta]", "PW[Alpha]", "RE[B+1]", "TE[line]",
                 ";B[aa]C[opening]", ";W[bb]C[15ms]", ";B[ba]C[20ms]", ";B[ca]C[7ms]"):
        assert part in text
    assert "RE[W+1]" in sgf_text(result(winner="engine1"))
    assert "RE[0]" in sgf_text(result(winner=None, termination="full_board"))
    assert "SZ[15]" in sgf_text(result(width=15, height=15))
    assert "PB[a\\]b]" in sgf_text(result(engine2="a]b"))


def test_jsonl_roundtrip_skips_torn_lines(tmp_path):
    path = tmp_path / "results.jsonl"
    append_result(path, result(game=1))
    append_result(path, result(game=2, winner=None, termination="full_board"))
    with open(path, "a") as f:
        f.write('{"game": 3, "termin')  # a write cut short by a crash
    got = read_results(path)
    assert [g["game"] for g in got] == [1, 2]
    obj = got[0]
    for key in ("game", "engine1", "engine2", "first", "winner", "termination", "reason", "moves", "times_ms"):
        assert key in obj
    assert obj["moves"] == [[0, 0], [1, 1], [1, 0], [2, 2], [2, 0]]
    assert "overhead_s" not in obj
    back = GameResult.from_json(json.loads(json.dumps(obj)))
    assert back.to_json() == obj
    assert read_results(tmp_path / "missing.jsonl") == []


def test_write_game_files(tmp_path):
    psq, sgf = write_game_files(tmp_path / "out", result())
    assert psq.name == "game-0003.psq" and sgf.name == "game-0003.sgf"
    assert psq.read_text().startswith("Piskvorky 7x6") and sgf.read_text().startswith("(;FF[4]")
