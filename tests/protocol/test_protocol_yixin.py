"""The Yixin protocol in the brain's session: the commands Yixin-Board sends, with fake
searchers so that every answer is exact (the real engine is replayed by the transcripts
``tests/transcripts/yixin_*.txt`` and ``referee check --yixin``)."""

from __future__ import annotations

import math

import pytest

from engine.mnk.board.rules import Player, Rule
from engine.search.limits import RootMove, SearchInfo, SearchResult
from protocol.gomocup import analysis
from protocol.gomocup.session import STREAM_PERIOD_S, Session, SessionOptions
from protocol.gomocup.yixin import BLOCK, PATH, QUIET

N = 15


def cell(x: int, y: int) -> int:
    return y * N + x


class Ranker:
    """A searcher that ranks fixed moves: ``values`` maps (x, y) to the value for the side to
    move, visits fall with the rank; it records what it was asked."""

    def __init__(self, values: dict[tuple[int, int], float], proven: dict[tuple[int, int], str] | None = None):
        self.values = values
        self.proven = proven or {}
        self.calls: list[tuple] = []

    def ranked(self, board, count):
        moves = [mv for mv in self.values if board.is_empty(cell(*mv))]
        out = [RootMove(cell(*mv), self.values[mv], 1000.0 / (i + 1), self.proven.get(mv), None,
                        [cell(*mv), cell(0, i)], 3) for i, mv in enumerate(moves)]
        return out[:count]

    def search(self, board, limits, stop=None, on_info=None):
        self.calls.append(("search", board.stone_count))
        best = self.ranked(board, 1)[0]
        return SearchResult(move=best.move, value=best.value, pv=best.pv, playouts=100, nodes=10, depth=3,
                            elapsed=0.1)

    def rank_moves(self, board, limits, count, stop=None, on_info=None):
        self.calls.append(("rank", board.stone_count, count))
        ranked = self.ranked(board, count)
        result = SearchResult(move=ranked[0].move, value=ranked[0].value, pv=ranked[0].pv, playouts=100,
                              nodes=10, depth=3, elapsed=0.1)
        return result, ranked


VALUES = {(7, 7): 0.62, (8, 8): 0.55, (6, 6): 0.51, (9, 9): 0.40}


def session(values=VALUES, **kw):
    thinker = Ranker(values, kw.pop("proven", None))
    s = Session(SessionOptions(**kw), lambda config: thinker)
    assert s.feed("START 15").lines == ["OK"]
    return s, thinker


def moves(out):
    return [o for o in out if not o.startswith(("MESSAGE", "INFO"))]


def test_yxboard_then_turn_is_a_move_of_the_side_to_move():
    s, _ = session()
    for line in ("yxboard", "1,1,1", "2,2,2", "done"):
        assert s.feed_now(line) == []
    out = s.feed_now("turn 3,3")  # the side to move there (field 1, black) plays 3,3
    assert moves(out) == ["7,7"]
    b = s.board
    assert b.at(3, 3) == b.at(1, 1) == Player.FIRST and b.at(7, 7) == Player.SECOND


def test_yxboard_then_begin_thinks_for_the_side_to_move():
    s, thinker = session()
    for line in ("yxboard", "1,1,2", "done"):
        s.feed_now(line)
    assert moves(s.feed_now("BEGIN")) == ["7,7"]
    assert s.board.at(7, 7) == Player.SECOND and thinker.calls == [("search", 1)]


def test_yxnbest_reports_n_lines_and_plays_the_first():
    s, thinker = session()
    out = s.feed_now("yxnbest 3")
    assert out[-1] == "7,7" and thinker.calls == [("rank", 0, 3)]
    rows = [o for o in out if o.startswith("MESSAGE (")]
    assert [r.split()[1] for r in rows] == ["(1)", "(2)", "(3)"]
    assert rows[1].endswith("| I9 A2")  # each move with its own line, in letters
    assert s.board.at(7, 7) == Player.FIRST
    # No side was claimed: the GUI may send a TURN for either side next.
    assert moves(s.feed_now("turn 0,0")) == ["8,8"]


def test_yxsearchdefend_ranks_every_move_and_marks_the_lost_ones():
    s, thinker = session(proven={(9, 9): "loss"})
    s.feed_now("info show_detail 1")
    out = s.feed_now("yxsearchdefend")
    assert thinker.calls == [("rank", 0, None)]
    assert "MESSAGE REALTIME LOST 9,9" in out and "MESSAGE REALTIME BEST 7,7" in out
    assert out[-1] == "7,7"


@pytest.mark.parametrize("bias, want", [(0, "6,6"), (200, "7,7"), (-100, "9,9")])
def test_yxbalanceone_plays_the_move_nearest_the_bias(bias, want):
    s, _ = session()
    out = s.feed_now(f"yxbalanceone {bias}")
    assert out[-1] == want
    target = 1 / (1 + math.exp(-bias / analysis.EVAL_SCALE))
    x, y = map(int, want.split(","))
    assert min(VALUES.values(), key=lambda v: abs(v - target)) == VALUES[(x, y)]


def test_yxbalancetwo_answers_the_move_and_the_reply_on_one_line():
    s, _ = session()
    out = s.feed_now("yxbalancetwo 0")
    assert out[-1] == "6,6 0,2"  # 6,6 is nearest an even game; 0,2 the reply in its line
    assert s.board.stone_count == 2 and s.board.to_move == Player.FIRST


def test_show_detail_streams_the_info_block_throttled():
    now = [100.0]
    thinker = Ranker(VALUES)
    s = Session(SessionOptions(), lambda config: thinker, clock=lambda: now[0])
    s.feed("START 15")
    s.feed("info show_detail 3")
    step = s.feed("BEGIN")
    job = step.job
    assert s.wants_reports(job)
    info = SearchInfo(playouts=500, nodes=50, depth=6, value=0.6, pv=[cell(7, 7), cell(8, 8)], elapsed=0.3)
    first = s.report(job, info)
    assert first[:2] == ["INFO PV 0", "INFO NUMPV 1"] and "INFO BESTLINE 7,7 8,8" in first
    assert "INFO PV DONE" in first and "MESSAGE REALTIME BEST 7,7" in first
    assert any(line.startswith("MESSAGE Depth 2-6 | Eval ") for line in first)
    now[0] += STREAM_PERIOD_S / 2
    assert s.report(job, info) == []  # too soon
    now[0] += STREAM_PERIOD_S
    again = s.report(job, info)
    assert again and not any(line.startswith("MESSAGE Depth") for line in again)  # same depth and move


def test_without_show_detail_a_progress_line_in_the_summarys_form_streams():
    s, _ = session()
    step = s.feed("BEGIN")
    assert s.wants_reports(step.job)
    out = s.report(step.job, SearchInfo(4000, 300, 7, 0.5, [cell(7, 7), cell(8, 7)], 0.5))
    assert out == ["MESSAGE depth 2-7 ev 0 n 300 n/ms 0 tm 500 pv H8 I8"]
    assert s.report(step.job, SearchInfo(1, 1, 1, 0.5, [cell(7, 7)], 0.6)) == []  # throttled


def test_rule_2_is_renju_and_yxshowforbid_lists_blacks_forbidden_points():
    s, _ = session()
    s.feed("INFO rule 2")
    # GomocupJudge's renju position, black to move: 6,8 is a double three.
    stones = ["7,7,1", "7,8,2", "8,6,1", "8,8,2", "7,9,1", "8,5,2", "8,10,1", "8,11,2"]
    for line in ("yxboard", *stones, "done"):
        assert s.feed_now(line) == []
    assert s.board.config.rule is Rule.RENJU
    assert s.feed_now("yxshowforbid") == ["FORBID 0608."]
    # Without black's last stone white is to move (field 1 is now white): nothing is shown.
    white = ["7,7,2", "7,8,1", "8,6,2", "8,8,1", "7,9,2", "8,5,1", "8,10,2"]
    for line in ("yxboard", *white, "done"):
        assert s.feed_now(line) == []
    assert s.board.to_move == Player.SECOND
    assert s.feed_now("yxshowforbid") == ["FORBID ."]


def test_yxshowforbid_under_freestyle_lists_nothing():
    s, _ = session()
    assert s.feed_now("yxshowforbid") == ["FORBID ."]


def test_yxshowinfo_names_the_brain_and_its_limits():
    s, _ = session()
    out = s.feed_now("yxshowinfo")
    assert out[0].startswith("MESSAGE pbrain-mcts ")
    assert out[1].startswith("MESSAGE INFO MAX_THREAD_NUM ") and int(out[1].split()[-1]) >= 1
    assert out[2].startswith("MESSAGE INFO MAX_HASH_SIZE ")


def test_database_queries_are_read_whole_and_answered_with_silence():
    s, _ = session()
    for line in ("yxquerydatabaseallt", "7,7", "8,8", "done", "yxhashclear", "yxblockreset"):
        assert s.feed_now(line) == []
    assert s.board.stone_count == 0 and not s.in_block
    assert moves(s.feed_now("BEGIN")) == ["7,7"]


def test_a_path_on_the_next_line_is_the_commands_argument():
    s, _ = session()
    out = s.feed_now("yxhashdump")
    assert out == []
    out = s.feed_now("BEGIN")  # a path, however it reads: never obeyed as a command
    assert len(out) == 1 and "YXHASHDUMP ignored" in out[0]
    assert len(s.feed_now("yxhashload /tmp/h.dat")) == 1  # the path on the same line
    assert moves(s.feed_now("BEGIN")) == ["7,7"]


@pytest.mark.parametrize("word", sorted(QUIET))
def test_no_command_the_gui_sends_gets_error_or_unknown(word):
    s, _ = session()
    follow = {BLOCK: ["7,7", "done"], PATH: ["/tmp/file"]}.get(QUIET[word].follows, [])
    out = [o for line in (word.lower(), *follow) for o in s.feed_now(line)]
    assert not s.in_block
    assert not any(o.startswith(("ERROR", "UNKNOWN")) for o in out), out


@pytest.mark.parametrize("key", ["caution_factor 1", "hash_size 262144", "pondering 0", "vcthread 0",
                                 "usedatabase 1", "nbestsym 0", "time_increment 0", "start_depth 2",
                                 "max_depth 225", "max_node -1", "show_detail 3"])
def test_the_guis_info_keys_are_taken_silently(key):
    s, _ = session()
    assert s.feed_now(f"INFO {key}") == []


def test_hash_size_leaves_the_trees_memory_alone():
    s, _ = session()
    s.feed_now("INFO hash_size 65536")  # the GUI's default: a transposition table's size
    assert s.time_settings.memory_bytes is None
    s.feed_now("INFO max_memory 100000000")
    assert s.time_settings.memory_bytes == 100000000


def test_after_yxshowinfo_rows_name_cells_as_yixin_boards_labels():
    # The GUI sends row,column from the top: its H9 (column H, row 9 of 15 from the bottom)
    # arrives as 6,7.  Before YXSHOWINFO the rows use the Gomocup x,y reading (6,7 is G8).
    s, _ = session({(6, 7): 0.6, (7, 7): 0.5})
    before = [o for o in s.feed_now("BEGIN") if o.startswith("MESSAGE depth")]
    assert before[-1].endswith("pv G8 A1")
    s, _ = session({(6, 7): 0.6, (7, 7): 0.5})
    s.feed_now("yxshowinfo")
    after = [o for o in s.feed_now("BEGIN") if o.startswith("MESSAGE depth")]
    assert after[-1].endswith("pv H9 A15")
