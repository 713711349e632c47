"""lab/mnk_agreement.py: the knowledge and search judged by the moves a player made in recorded games."""

import json
import sys

from support.fakes import FAKE_BRAIN

from lab import mnk_agreement

# Black (engine1, first) builds four in a row on row 7, blocked on the left by white's first
# stone; white then answers far away.  At ply 8 black completes the five at (7, 7), the one
# winning cell: the move the priors and the search should play.
WIN = [[3, 7], [2, 7], [4, 7], [14, 0], [5, 7], [0, 14], [6, 7], [14, 14], [7, 7]]


def _record(moves, first=1, opening=2):
    return {"game": 1, "first": first, "winner": "engine1", "moves": moves, "opening": opening,
            "width": 15, "height": 15, "win_length": 5, "rule": "freestyle"}


def test_the_positions_are_the_players_moves_after_the_opening():
    rec = _record(WIN)
    assert [ply for _, ply in mnk_agreement.positions([rec], "engine1")] == [2, 4, 6, 8]
    assert [ply for _, ply in mnk_agreement.positions([rec], "engine2")] == [3, 5, 7]
    # engine2 moving first plays the even plies.
    assert [ply for _, ply in mnk_agreement.positions([_record(WIN, first=2)], "engine2")] == [2, 4, 6, 8]


def test_the_winning_move_ranks_first_and_a_corner_move_does_not():
    rec = _record(WIN)
    assert mnk_agreement.prior_rank(rec, 8) == 0
    # White's corner replies at plies 5 and 7 ignore black's three and four.
    assert mnk_agreement.prior_rank(rec, 5) > 10 and mnk_agreement.prior_rank(rec, 7) > 10


def test_the_search_plays_the_win_and_proves_it():
    rec = _record(WIN)
    assert mnk_agreement.search_agrees((rec, 8, (50, 200), 1)) == [(True, True, (7, 7)), (True, True, (7, 7))]
    # The corner at ply 7 leaves black's four: the search blocks it instead.
    agree, _, move = mnk_agreement.search_agrees((rec, 7, (200,), 1))[0]
    assert not agree and move == (7, 7)


def test_changes_count_the_open_positions_whose_move_moves():
    a, b, c = (0, 0), (1, 1), (2, 2)
    results = [
        [(True, False, a), (False, False, b)],   # changed, away from the move played
        [(False, False, a), (True, False, c)],   # changed, to the move played
        [(False, False, a), (False, False, b)],  # changed, neither
        [(True, False, a), (True, False, a)],    # kept
        [(False, True, a), (True, False, b)],    # proved at the first budget: not counted
    ]
    assert mnk_agreement.changes(results) == (4, 3, 1, 1)


def test_the_command_prints_the_priors_and_each_budget(tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(_record(WIN)) + "\n\n")
    assert mnk_agreement.main([str(path), "--player", "engine1", "--nodes", "100"]) == 0
    out = capsys.readouterr().out
    assert "4 positions of engine1's moves" in out
    assert "search, 100 nodes: plays the move played in" in out
    assert mnk_agreement.main([str(path), "--player", "engine1", "--nodes", "50,100"]) == 0
    assert "from 50 to 100 nodes, where neither proved anything: the move changes in" in capsys.readouterr().out
    assert mnk_agreement.main([str(path), "--player", "engine2", "--positions", "0"]) == 1
    # Files that are not referee records are reported, not a crash.
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{not json\n")
    assert mnk_agreement.main([str(junk), "--nodes", ""]) == 1
    junk.write_text('{"moves": []}\n')
    assert mnk_agreement.main([str(junk), "--nodes", ""]) == 1
    assert mnk_agreement.main([str(tmp_path / "missing.jsonl"), "--nodes", ""]) == 1


def test_another_brain_is_measured_in_the_searchs_place(tmp_path, capsys):
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(_record(WIN)) + "\n")
    # A brain that answers (7, 7) to every request: black's winning move at ply 8, and at
    # none of its other three positions.  A new brain per budget starts its script again.
    brain = f"{sys.executable} {FAKE_BRAIN} --script 7,7;7,7;7,7;7,7"
    assert mnk_agreement.main([str(path), "--player", "engine1", "--nodes", "10,20", "--engine", brain]) == 0
    out = capsys.readouterr().out
    assert "brain, 10 nodes: plays the move played in 1 of 4 (25.0%)" in out
    assert "brain, 20 nodes: plays the move played in 1 of 4 (25.0%)" in out
    # A brain that quits at once is reported, not a crash.
    quits = f"{sys.executable} {FAKE_BRAIN} --crash-at 1"
    assert mnk_agreement.main([str(path), "--player", "engine1", "--nodes", "10", "--engine", quits]) == 1
