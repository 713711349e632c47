"""``referee summary DIR ...``: matches recorded in several folders, summarised as one."""

from __future__ import annotations

import pytest

from referee.cli.main import main as referee_main
from referee.cli.summary import SummaryError, pooled
from referee.match.records import append_result
from referee.match.settings import RESULTS_FILE
from referee.play.result import GameResult


def game(n: int, winner: str | None, first: int, seed: int, **kw) -> GameResult:
    """Game ``n`` of a 15x15 match between Alpha (engine1) and Beta."""
    base = dict(game=n, engine1="Alpha", engine2="Beta", first=first, winner=winner,
                termination="line" if winner else "full_board", reason="", moves=[[7, 7]], times_ms=[0],
                seed=seed)
    base.update(kw)
    return GameResult(**base)


def record(folder, games) -> str:
    folder.mkdir()
    for g in games:
        append_result(folder / RESULTS_FILE, g)
    return str(folder)


@pytest.fixture
def two_matches(tmp_path):
    """Two folders of two colour-swapped pairs each.

    a (seed 1): pair 1 won twice by Alpha, pair 2 split (each side won as first player).
    b (seed 2): pair 1 a draw and a loss, pair 2 lost twice; and an interrupted game 5.
    """
    a = record(tmp_path / "a", [game(1, "engine1", 1, 1), game(2, "engine1", 2, 1),
                                game(3, "engine1", 1, 1), game(4, "engine2", 2, 1)])
    b = record(tmp_path / "b", [game(2, "engine2", 2, 2), game(1, None, 1, 2),  # written out of order
                                game(3, "engine2", 1, 2), game(4, "engine2", 2, 2),
                                game(5, None, 1, 2, termination="interrupted")])
    return a, b


def test_the_games_of_every_folder_count_once_and_pairs_stay_within_their_folder(two_matches):
    total, each = pooled(two_matches)
    t = total.tally
    assert (t.wins, t.draws, t.losses) == (3, 1, 4)  # the interrupted game does not count
    assert t.as_x == (2, 1, 1) and t.as_o == (1, 0, 3)
    # Pentanomial counts by engine1's points in a pair (0, 0.5, 1, 1.5, 2): a's 2 and 1,
    # b's 0.5 and 0.  Pairing across folders (b's games as 5-8) would have made other pairs.
    assert total.pairs.counts == [1, 1, 1, 0, 1]
    assert [(name.rsplit("/", 1)[-1], o.tally.games) for name, o in each] == [("a", 4), ("b", 4)]
    assert [o.pairs.counts for _, o in each] == [[0, 0, 1, 0, 1], [1, 1, 0, 0, 0]]


def test_the_command_prints_each_folder_then_the_pooled_summary(two_matches, capsys):
    assert referee_main(["summary", *two_matches]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("a: 3 of 4 (75.0 %)   first 2 of 2   second 1 of 2   seed 1")
    assert lines[1].endswith("b: 0.5 of 4 (12.5 %)   first 0.5 of 2   second 0 of 2   seed 2")
    assert lines[2] == "Alpha (engine1) vs Beta (engine2): 8 games"
    assert "3 wins, 1 draws, 4 losses   score 0.438" in lines[3]
    assert any(line.strip().startswith("4 pairs LL LD WL+DD WD WW: 1 1 1 0 1") for line in lines)
    assert lines[-1] == "  endings: line 7, full_board 1"


def test_folders_of_other_engines_or_of_no_match_are_refused(tmp_path, two_matches, capsys):
    other = record(tmp_path / "c", [game(1, "engine1", 1, 3, engine2="Gamma")])
    with pytest.raises(SummaryError, match="Gamma"):
        pooled([*two_matches, other])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SystemExit) as exc:
        referee_main(["summary", two_matches[0], str(empty)])
    assert exc.value.code == 2
    assert "holds no results.jsonl" in capsys.readouterr().err
    only_interrupted = record(tmp_path / "d", [game(1, None, 1, 4, termination="interrupted")])
    with pytest.raises(SummaryError, match="no finished game"):
        pooled([only_interrupted])
