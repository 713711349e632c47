"""The lab's resumable JSON-lines files (lab.jsonlines), and the m,n,k runs resumed on them."""

import gzip
import json
import shutil

from lab import mnk_labels, mnk_selfplay
from lab.jsonlines import RowWriter, read_rows

ROWS = [{"game": i, "moves": [[i, i + 1]] * (i + 1)} for i in range(30)]


def test_a_file_copied_while_its_run_writes_holds_every_row_flushed(tmp_path):
    live, copy = tmp_path / "live.jsonl.gz", tmp_path / "copy.jsonl.gz"
    writer = RowWriter(live, resume=False)
    writer.write(ROWS[:10])
    writer.write(ROWS[10:12])
    shutil.copy(live, copy)  # what a stop now would leave: no gzip trailer
    writer.close()
    assert read_rows(copy) == (ROWS[:12], False)
    assert read_rows(live) == (ROWS[:12], True)


def test_a_cut_off_tail_is_left_out_and_the_resumed_file_is_whole(tmp_path):
    for name in ("runs.jsonl.gz", "runs.jsonl"):
        path = tmp_path / name
        with RowWriter(path, resume=False) as w:
            for row in ROWS:
                w.write([row])
        data = path.read_bytes()
        path.write_bytes(data[: len(data) * 2 // 3])  # stopped in the middle of a row
        rows, clean = read_rows(path)
        assert not clean and 0 < len(rows) < len(ROWS) and rows == ROWS[: len(rows)]
        with RowWriter(path) as w:
            assert w.done == rows
            w.write(ROWS[len(rows):])
        assert read_rows(path) == (ROWS, True)


def test_trim_drops_rows_and_a_fresh_writer_starts_empty(tmp_path):
    path = tmp_path / "t.jsonl.gz"
    with RowWriter(path, resume=False) as w:
        w.write(ROWS[:5])
    with RowWriter(path, trim=lambda rows: rows[:-2]) as w:
        assert w.done == ROWS[:3]
        w.write([ROWS[20]])
    assert read_rows(path) == (ROWS[:3] + [ROWS[20]], True)
    with RowWriter(path, resume=False) as w:
        assert w.done == []
    assert read_rows(path) == (ROWS[:3] + [ROWS[20]], True)  # untouched until a row is written
    with RowWriter(path, resume=False) as w:
        w.write([ROWS[7]])
    assert read_rows(path) == ([ROWS[7]], True)


SELFPLAY = ["--seed", "5", "--nodes", "40", "--size", "9", "--win-length", "4"]


def test_a_stopped_self_play_run_resumes_to_the_games_of_a_whole_run(tmp_path):
    whole, resumed = tmp_path / "whole.jsonl.gz", tmp_path / "resumed.jsonl.gz"
    assert mnk_selfplay.main(["--games", "3", *SELFPLAY, "--out", str(whole)]) == 0
    assert mnk_selfplay.main(["--games", "2", *SELFPLAY, "--out", str(resumed)]) == 0
    data = resumed.read_bytes()
    resumed.write_bytes(data[: len(data) * 3 // 4])  # the stop cut the trailer and part of the last game
    assert len(read_rows(resumed)[0]) < 2
    assert mnk_selfplay.main(["--games", "3", *SELFPLAY, "--out", str(resumed)]) == 0
    assert read_rows(resumed) == read_rows(whole)
    before = resumed.read_bytes()
    other = ["--games", "3", "--seed", "6", "--nodes", "40", "--size", "9", "--win-length", "4"]
    assert mnk_selfplay.main([*other, "--out", str(resumed)]) == 2  # not another run's games
    assert resumed.read_bytes() == before


def test_a_stopped_labelling_run_labels_the_last_game_again(tmp_path):
    games = tmp_path / "games.jsonl.gz"
    assert mnk_selfplay.main(["--games", "3", *SELFPLAY, "--out", str(games)]) == 0
    whole, resumed = tmp_path / "whole.jsonl.gz", tmp_path / "resumed.jsonl.gz"
    assert mnk_labels.main([str(games), "--nodes", "30", "--out", str(whole)]) == 0
    rows, _ = read_rows(whole)
    assert {r["game"] for r in rows} == {0, 1, 2}
    first_two = [r for r in rows if r["game"] < 2]
    with gzip.open(resumed, "wt") as fh:  # a run stopped inside game 1's rows
        fh.write("".join(json.dumps(r) + "\n" for r in first_two[:-1]))
    assert mnk_labels.main([str(games), "--nodes", "30", "--out", str(resumed)]) == 0
    assert sorted(read_rows(resumed)[0], key=lambda r: (r["game"], len(r["moves"]))) == \
        sorted(rows, key=lambda r: (r["game"], len(r["moves"])))
