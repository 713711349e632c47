"""In-process transcript tests of the protocol state machine (no subprocess).

Transcripts use the referee-script notation: ``> LINE`` is sent; the ``<``
lines after it are everything the brain must answer, in order:
``< OK`` / ``< 7,7`` exact (``*`` wildcards allowed), ``< move`` any legal
move, ``< ERROR*`` / ``< UNKNOWN*`` prefixes, ``< nothing`` no reply,
``< exit`` the brain quits.  MESSAGE/DEBUG lines are skipped unless a
pattern asks for them.  A ``>`` line with no ``<`` line must get no reply.
"""

from __future__ import annotations

import fnmatch
import re
import textwrap
import threading
from pathlib import Path

import pytest

from engine.search.limits import Limits, SearchResult
from engine.mnk.board.rules import Board, GameConfig, Player, Rule
from engine.timecontrol import turn_budget_ms
from protocol.gomocup.position import quick_move
from protocol.gomocup.session import Session, SessionOptions
from protocol.gomocup.thinker import QuickThinker

MOVE = re.compile(r"^(\d+),(\d+)$")


class RecordingThinker:
    """Test double: plays the quick move (or a scripted reply) and records each search."""

    def __init__(self, reply=None):
        self.calls: list[tuple[Board, Limits]] = []
        self.reply = reply

    def search(self, board, limits, stop=None):
        self.calls.append((board.copy(), limits))
        if self.reply is not None:
            return self.reply(board)
        move = quick_move(board)
        return SearchResult(move=move, pv=[move], playouts=1, nodes=1, depth=1)


def make_session(thinker=None, clock=None, **options) -> tuple[Session, RecordingThinker]:
    thinker = thinker or RecordingThinker()
    kw = {"clock": clock} if clock else {}
    return Session(SessionOptions(**options), lambda config: thinker, **kw), thinker


def run_transcript(session: Session, script: str) -> None:
    """Play a transcript against ``session`` (see the module docstring)."""
    lines = [ln.rstrip("\n") for ln in textwrap.dedent(script).splitlines()]
    lines = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    i = 0
    while i < len(lines):
        assert lines[i].startswith("> "), f"transcript line {lines[i]!r} is not a command"
        sent = lines[i][2:]
        i += 1
        expects = []
        while i < len(lines) and lines[i].startswith("<"):
            expects.append(lines[i][1:].strip())
            i += 1
        before = session.board.copy() if session.board is not None else None
        step = session.feed(sent)
        out = list(step.lines)
        if step.job is not None:
            out += session.finish(step.job, step.job.run(threading.Event()))
        wants_msg = any(e.startswith(("MESSAGE", "DEBUG")) for e in expects)
        if not wants_msg:
            out = [o for o in out if not o.startswith(("MESSAGE ", "DEBUG "))]
        context = f"after > {sent!r}: got {out!r}, want {expects!r}"
        for exp in expects:
            if exp == "exit":
                assert step.quit, context
                continue
            if exp.startswith("nothing"):
                assert not out, context
                continue
            assert out, context
            got = out.pop(0)
            if exp == "move":
                m = MOVE.match(got)
                assert m, context
                x, y = int(m[1]), int(m[2])
                board = session.board
                assert board.config.on_board(x, y), context
                if sent.strip().upper() != "DONE":  # a BOARD block replaces the position
                    assert before is None or before.at(x, y) == 0, f"{context}: played on an occupied cell"
                assert board.at(x, y) in (1, 2), context
            else:
                assert fnmatch.fnmatchcase(got, exp), context
        assert not out, f"unexpected extra output {context}"
        assert step.quit == ("exit" in expects), context


def test_about_before_start_and_full_game():
    s, thinker = make_session()
    run_transcript(s, """
        > ABOUT
        < name="pbrain-mcts", version="*", author="*", country="*", www="*"*
        > INFO win_length 4
        > START 7
        < OK
        > BEGIN
        < 3,3
        > TURN 0,0
        < move
        > TURN 0,1
        < move
        > TURN 6,6
        < move
        > END
        < exit
    """)
    assert s.board.stone_count == 7 and s.board.config.win_length == 4
    assert len(thinker.calls) == 4


def test_game_to_a_win_then_no_more_moves():
    s, _ = make_session(win_length=3)
    run_transcript(s, """
        > START 9
        < OK
        > BEGIN
        < 4,4
    """)
    # The opponent plays far corners; the quick mover builds and completes a line of 3.
    for x, y in [(0, 0), (0, 8), (8, 8), (8, 0), (0, 4)]:
        if s.board.winner is not None:
            break
        run_transcript(s, f"> TURN {x},{y}\n< move")
    assert s.board.winner == Player.FIRST
    run_transcript(s, """
        > TURN 8,4
        < ERROR*over*
        > BEGIN
        < ERROR*
    """)


def test_commands_out_of_order():
    s, _ = make_session()
    run_transcript(s, """
        > TURN 7,7
        < ERROR*START*
        > BEGIN
        < ERROR*START*
        > RESTART
        < ERROR*START*
        > TAKEBACK 1,1
        < ERROR*START*
        > BOARD
        > 7,7,1
        > DONE
        < ERROR*START*
        > DONE
        < ERROR DONE without BOARD
        > START 15
        < OK
        > TURN 7,7
        < move
        > BEGIN
        < ERROR*BEGIN*
    """)


def test_bad_lines_keep_the_game_going():
    s, _ = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > TURN 15,0
        < ERROR*off the 15x15 board*
        > TURN -1,3
        < ERROR*off*
        > TURN a,b
        < ERROR*
        > TURN 7
        < ERROR*
        > HELLO there
        < UNKNOWN*HELLO*
        > \x00\x01\ufffd
        < UNKNOWN*
        > YXNBEST two
        < ERROR*
        > TURN 7,7
        < move
        > TURN 7,7
        < ERROR*occupied*
    """)
    assert s.board.stone_count == 2


def test_case_whitespace_crlf_and_empty_lines():
    s, _ = make_session()
    assert s.feed("   ").lines == []
    assert s.feed("\r").lines == []
    assert s.feed("start 15\r").lines == ["OK"]
    step = s.feed("  turn 7,7 \r\n")
    assert step.job is not None
    out = s.finish(step.job, step.job.run())
    assert MOVE.match(out[-1]) and out[0].startswith("MESSAGE ")
    assert s.feed("about\r").lines[0].startswith('name="pbrain-mcts"')


def test_very_long_line_is_refused_briefly():
    s, _ = make_session()
    out = s.feed("TURN " + "1" * 200_000).lines
    assert len(out) == 1 and out[0].startswith("ERROR") and len(out[0]) < 200
    out = s.feed("X" * 200_000).lines
    assert len(out) == 1 and out[0].startswith("UNKNOWN") and len(out[0]) < 200


def test_sizes():
    s, _ = make_session()
    run_transcript(s, """
        > START 2
        < ERROR*width*
        > START 65
        < ERROR*
        > START 0
        < ERROR*
        > START -5
        < ERROR*
        > START 4
        < OK
        > BEGIN
        < ERROR*win length*
        > INFO win_length 3
        > START 3
        < OK
        > RECTSTART 20,15
        < OK
        > RECTSTART 20x15
        < ERROR*
        > TURN 19,14
        < move
        > TURN 14,19
        < ERROR*off the 20x15 board*
    """)


def test_win_length_and_rule_last_across_start_and_restart():
    s, _ = make_session()
    run_transcript(s, """
        > INFO win_length 4
        > INFO rule 1
        > START 9
        < OK
        > RESTART
        < OK
        > START 10
        < OK
    """)
    assert s.board.config.win_length == 4 and s.board.config.rule is Rule.EXACT
    # Sent after START (as GomocupJudge does): applies to the game at the next move.
    run_transcript(s, """
        > INFO rule 8
        > INFO win_length 5
        > BEGIN
        < move
    """)
    assert s.board.config.rule is Rule.CARO and s.board.config.win_length == 5


#: GomocupJudge's renju test: h8 h9 i7 i9 h10 i6 i11 i12 (letter = x from a, number = y + 1),
#: black to move, as the BOARD block black receives; g9 = 6,8 is a double three.
GOMOCUP_JUDGE_RENJU = ["7,7,1", "7,8,2", "8,6,1", "8,8,2", "7,9,1", "8,5,2", "8,10,1", "8,11,2"]


def renju_board(stones: list[str], answer: str = "move") -> str:
    """A transcript: a 15x15 renju game set up by BOARD with ``stones`` (``x,y,who`` lines),
    the brain's answer ``answer``."""
    block = "\n".join(f"        > {st}" for st in stones)
    return f"""
        > START 15
        < OK
        > INFO rule 4
        > BOARD
{block}
        > DONE
        < {answer}
    """


def test_renju_accepted_kept_across_commands_and_forbidden_turns_refused():
    s, thinker = make_session()
    run_transcript(s, renju_board(GOMOCUP_JUDGE_RENJU))
    board = s.board
    assert board.config.rule is Rule.RENJU
    assert thinker.calls[-1][0].forbidden(board.config.move(6, 8)) == "double three"
    assert board.at(6, 8) == 0  # black did not play the forbidden point
    run_transcript(s, """
        > RESTART
        < OK
        > TURN 7,7
        < move
    """)
    assert s.board.config.rule is Rule.RENJU and s.board.stone_count == 2
    # Now the brain is white: black (the opponent) may not make a double three at 4,4.
    s, _ = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > INFO rule 4
        > BOARD
        > 2,4,2
        > 3,4,2
        > 4,2,2
        > 4,3,2
        > 10,10,2
        > 0,0,1
        > 14,0,1
        > 0,14,1
        > 14,14,1
        > DONE
        < move
        > TURN 4,4
        < ERROR*4,4 is forbidden for black (renju): double three*
        > TURN 6,6
        < move
        > TAKEBACK 10,10
        < OK
    """)
    board = s.board
    assert board.config.rule is Rule.RENJU and board.at(4, 4) == 0
    assert board.forbidden(board.config.move(4, 4)) == "double three"


def test_renju_kept_through_swap2():
    s, thinker = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > INFO rule 4
        > SWAP2BOARD
        > 7,7
        > 8,7
        > 9,9
        > DONE
        < move
    """)
    board, _ = thinker.calls[-1]
    assert board.config.rule is Rule.RENJU and board.to_move is Player.SECOND
    assert s.board.config.rule is Rule.RENJU  # the game goes on under renju


def test_renju_with_another_win_length_refused_at_the_next_game_command():
    s, _ = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > INFO rule 4
        > INFO win_length 4
        > BEGIN
        < ERROR*renju is played with five in a row: win length must be 5, got 4*
        > INFO rule 12
        > INFO win_length 5
        > BEGIN
        < ERROR*renju*caro*
        > INFO rule 5
        > BEGIN
        < 7,7
    """)
    assert s.board.config.rule is Rule.RENJU


@pytest.mark.parametrize("mode", ["uct", "guided"])
def test_gomocup_judge_renju_position_answered_with_a_legal_move(mode):
    """The real engine in both modes on GomocupJudge's rule test: any legal move but g9."""
    from protocol.gomocup.thinker import EngineFactory

    s = Session(SessionOptions(nodes=150), EngineFactory(mode, seed=5))
    run_transcript(s, renju_board(GOMOCUP_JUDGE_RENJU))
    board = s.board
    played = board.history[-1]
    assert board.config.xy(played) != (6, 8)
    board.undo()
    assert board.forbidden(played) is None


#: A renju game's 224 stones (tests/data/README.md): black to move, its one empty cell forbidden.
NO_MOVE_FOR_BLACK = (Path(__file__).resolve().parent.parent / "data" / "renju-black-no-move.txt").read_text().split()


@pytest.mark.parametrize("mode", [None, "guided"])
def test_black_with_only_a_forbidden_point_left_plays_it_rather_than_an_error(mode):
    """Renju, every empty cell forbidden for black: the protocol has no pass, so the brain
    answers with the foul for the manager to judge (the quick move, and the real engine)."""
    from protocol.gomocup.thinker import EngineFactory

    s = make_session()[0] if mode is None else Session(SessionOptions(nodes=50), EngineFactory(mode, seed=5))
    run_transcript(s, renju_board(NO_MOVE_FOR_BLACK, "7,14"))
    board = s.board
    assert board.stone_count == 225 and board.at(7, 14) == Player.FIRST
    assert board.winner is None


def test_win_length_too_long_for_the_board_mid_game():
    s, _ = make_session()
    run_transcript(s, """
        > START 7
        < OK
        > INFO win_length 8
        > TURN 3,3
        < ERROR*win length*
        > INFO win_length 4
        > TURN 3,3
        < move
    """)


def test_board_block_any_order_and_side_to_move():
    s, thinker = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > BOARD
        > 8,8,2
        > 7,7,1
        > 9,9,2
        > DONE
        < move
    """)
    board, _ = thinker.calls[-1]
    # one own stone against two: I am the second player, to move
    assert board.to_move is Player.SECOND and board.at(7, 7) == Player.SECOND
    assert board.at(8, 8) == Player.FIRST
    # BOARD resets the board itself, with no RESTART; an empty BOARD is the first move
    run_transcript(s, """
        > BOARD
        > DONE
        < move
    """)
    assert s.board.stone_count == 1


def test_board_blocks_that_are_refused_leave_the_position_unchanged():
    s, _ = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > TURN 7,7
        < move
    """)
    snapshot = [row for row in s.board.stones()]
    run_transcript(s, """
        > BOARD
        > 1,1,1
        > garbage
        > 2,2,2
        > DONE
        < ERROR*bad line*unchanged*
        > BOARD
        > 15,1,1
        > DONE
        < ERROR*off the 15x15 board*
        > BOARD
        > 1,1,4
        > DONE
        < ERROR*field*
        > BOARD
        > 1,1,1
        > 1,1,2
        > DONE
        < ERROR*two stones*
        > BOARD
        > 1,1,1
        > 2,2,1
        > DONE
        < ERROR*impossible stone counts*
        > BOARD
        > 0,0,2
        > 1,0,2
        > 2,0,2
        > 3,0,2
        > 4,0,2
        > 0,5,1
        > 1,5,1
        > 2,5,1
        > 3,5,1
        > 9,9,1
        > DONE
        < ERROR*already over*
    """)
    assert s.board.stones() == snapshot
    run_transcript(s, """
        > TURN 8,8
        < move
    """)


def test_board_block_interrupted_by_a_command():
    s, _ = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > BOARD
        > 7,7,2
        > TURN 8,8
        < ERROR BOARD block ended by TURN*
        < move
    """)
    assert s.board.stone_count == 2
    run_transcript(s, """
        > BOARD
        > END
        < ERROR*
        < exit
    """)


def test_board_field_3_is_a_blocked_cell():
    s, thinker = make_session()
    lines = ["> START 7", "< OK", "> INFO win_length 4", "> BOARD"]
    # a finished line of 4 (field 3) on row 0; play continues around it
    lines += [f"> {x},0,3" for x in range(4)]
    lines += ["> 3,3,2", "> DONE", "< move"]
    run_transcript(s, "\n".join(lines))
    board, _ = thinker.calls[-1]
    assert board.empty_count == 49 - 5
    assert all(not board.is_empty(x) for x in range(4))


def test_full_board_and_finished_positions():
    s, _ = make_session(win_length=3)
    # a drawn full 3x3 board except one cell; the opponent fills it
    lines = ["> START 3", "< OK", "> BOARD"]
    layout = {(0, 0): 1, (1, 0): 2, (2, 0): 1, (0, 1): 1, (1, 1): 2, (2, 1): 2, (0, 2): 2, (1, 2): 1}
    lines += [f"> {x},{y},{f}" for (x, y), f in layout.items()]
    lines += ["> DONE", "< 2,2"]
    run_transcript(s, "\n".join(lines))
    assert s.board.is_full
    run_transcript(s, """
        > TURN 0,0
        < ERROR*over*
        > TAKEBACK 2,2
        < OK
        > TAKEBACK 2,2
        < ERROR*no stone*
    """)
    assert s.board.empty_count == 1


def test_takeback_and_play():
    s, _ = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > TURN 7,7
        < 7,6
        > TAKEBACK 7,6
        < OK
        > TAKEBACK 7,7
        < OK
        > TURN 3,3
        < move
        > TURN 5,5
        < move
        > PLAY 10,10
        < ERROR*opponent's move*
        > TAKEBACK 5,5
        < OK
        > TAKEBACK 99,99
        < ERROR*off*
    """)
    assert s.board.stone_count == 3
    # after the opponent's stone is taken back, it is the opponent's turn again
    run_transcript(s, """
        > TURN 1,1
        < move
    """)


def test_play_forced_move():
    s, thinker = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > TURN 7,7
        < move
        > TURN 1,1
        < move
        > YXBOARD
        > 7,7,2
        > 1,1,2
        > 3,3,1
        > DONE
        > PLAY 3,4
        < 3,4
        > PLAY 3,5
        < ERROR*
    """)
    assert s.board.at(3, 4) == s.board.at(3, 3)


def test_yxboard_sets_position_then_begin_thinks_and_yxstop_idle_is_silent():
    s, thinker = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > YXBOARD
        > 7,7,2
        > DONE
        > YXSTOP
        > BEGIN
        < move
    """)
    assert len(thinker.calls) == 1 and thinker.calls[0][0].stone_count == 1


def test_swap2_opening_three_stones_then_stay_white():
    s, thinker = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > SWAP2BOARD
        > DONE
        < 7,7 8,8 6,7
        > SWAP2BOARD
        > 7,7
        > 8,7
        > 9,9
        > DONE
        < move
        > SWAP2BOARD
        > 7,7
        > 8,7
        > 9,9
        > 8,8
        > 8,6
        > DONE
        < move
    """)
    board, _ = thinker.calls[-1]
    assert board.to_move is Player.SECOND and board.stone_count == 5
    assert board.at(7, 7) == Player.FIRST and board.at(8, 7) == Player.SECOND and board.at(8, 6) == Player.FIRST
    # after the answer the game goes on normally
    run_transcript(s, """
        > TURN 0,0
        < move
    """)


def test_swap2_bad_blocks():
    s, _ = make_session()
    run_transcript(s, """
        > START 15
        < OK
        > SWAP2BOARD
        > 7,7
        > DONE
        < ERROR*0, 3 or 5 stones*
        > SWAP2BOARD
        > 7,7,1
        > DONE
        < ERROR*want x,y*
        > SWAP2BOARD
        > 7,7
        > 7,7
        > 9,9
        > DONE
        < ERROR*two stones*
        > SWAP2BOARD
        > 7,7
        > 99,7
        > 9,9
        > DONE
        < ERROR*off the 15x15 board*
    """)


def test_info_keys_never_reply_and_set_limits():
    now = [1000.0]
    s, thinker = make_session(clock=lambda: now[0])
    for line in ("INFO timeout_turn 100", "INFO timeout_match 0", "INFO time_left 2147483647",
                 "INFO max_memory 367001600", "INFO game_type 1", "INFO folder /tmp/x",
                 "INFO thread_num 2", "INFO max_depth 10", "INFO evaluate 7,7", "INFO bogus 1",
                 "INFO timeout_turn abc", "INFO", "INFO max_node 5000"):
        assert s.feed(line).lines == [], line
    assert s.time_settings.turn_ms == 100 and s.folder == "/tmp/x"
    s.feed("START 15")
    step = s.feed("TURN 7,7", arrival=990.0)
    limits = step.job.limits
    assert limits.deadline == pytest.approx(990.0 + turn_budget_ms(100) / 1000)
    assert limits.nodes == 5000 and limits.max_tree_nodes is not None
    s.finish(step.job, step.job.run())
    s.feed("INFO max_node 0")
    step = s.feed("TURN 1,1", arrival=1000.0)
    assert step.job.limits.nodes is None


def test_match_clock_is_tracked_when_time_left_is_not_sent():
    now = [0.0]
    s, _ = make_session(clock=lambda: now[0])
    s.feed("START 15")
    s.feed("INFO timeout_match 10000")  # after START, as GomocupJudge sends it
    step = s.feed("TURN 7,7", arrival=0.0)
    first = step.job.limits.deadline
    now[0] = 2.0  # the move took 2 s
    s.finish(step.job, step.job.run())
    step = s.feed("TURN 1,1", arrival=2.0)
    second = step.job.limits.deadline - 2.0
    assert 0 < second < first  # less time left, smaller budget
    s.finish(step.job, step.job.run())
    s.feed("INFO time_left 0")
    step = s.feed("TURN 2,2", arrival=5.0)
    assert step.job.limits.deadline == 5.0  # out of time: answer at once


@pytest.mark.parametrize("kind, stones", [
    ("BOARD", ["7,7,2", "8,8,1", "7,8,2", "6,6,1", "9,9,2"]),
    ("SWAP2BOARD", ["7,7", "8,8", "6,6"]),
])
def test_a_block_sent_line_by_line_is_timed_from_its_done(kind, stones):
    """The move a block asks for counts from DONE (when the command is complete), not
    from its first line: a block typed with gaps keeps its whole turn."""
    now = [100.0]
    s, _ = make_session(clock=lambda: now[0])
    s.feed("INFO timeout_turn 500")
    s.feed("START 15")
    s.feed(kind, arrival=100.0)
    for i, line in enumerate(stones, 1):
        assert s.feed(line, arrival=100.0 + 0.2 * i).job is None
    done_at = 100.0 + 0.2 * (len(stones) + 1)
    now[0] = done_at
    step = s.feed("DONE", arrival=done_at)
    assert step.job is not None and step.job.arrival == done_at
    assert step.job.limits.deadline == pytest.approx(done_at + turn_budget_ms(500) / 1000)
    assert step.job.hard_deadline == pytest.approx(done_at + 0.5)  # the watchdog's limit too


def test_yxboard_then_begin_is_timed_from_begin():
    s, _ = make_session()
    s.feed("INFO timeout_turn 500")
    s.feed("START 15")
    for t, line in enumerate(("YXBOARD", "7,7,2", "DONE")):
        assert s.feed(line, arrival=10.0 + t).lines == []
    step = s.feed("BEGIN", arrival=15.0)
    assert step.job.limits.deadline == pytest.approx(15.0 + turn_budget_ms(500) / 1000)


def test_search_failure_and_illegal_move_fall_back_to_a_legal_move():
    def boom(board):
        raise RuntimeError("engine exploded")

    s, _ = make_session(RecordingThinker(reply=boom))
    s.feed("START 15")
    out = s.feed_now("TURN 7,7")
    assert any("search failed" in o and "exploded" in o for o in out if o.startswith("MESSAGE"))
    assert MOVE.match(out[-1]) and out[-1] != "7,7"

    s2, _ = make_session(RecordingThinker(reply=lambda b: SearchResult(move=7 * 15 + 7)))
    s2.feed("START 15")
    out = s2.feed_now("TURN 7,7")  # the double answers the occupied cell
    assert any("illegal" in o for o in out) and MOVE.match(out[-1]) and out[-1] != "7,7"


def test_a_search_answering_blacks_forbidden_point_falls_back_to_a_legal_move():
    """Under renju a forbidden point is as illegal as an occupied cell: the brain plays a
    quick legal move and says why, instead of an ERROR that leaves the manager without one."""
    forbidden = GameConfig.square(15, 5, Rule.RENJU).move(6, 8)
    s, _ = make_session(RecordingThinker(reply=lambda b: SearchResult(move=forbidden)))
    run_transcript(s, renju_board(GOMOCUP_JUDGE_RENJU))
    board = s.board
    played = board.history[-1]
    assert played != forbidden and board.at(6, 8) == 0
    board.undo()
    assert board.forbidden(forbidden) == "double three" and board.forbidden(played) is None


def test_message_lines_show_the_search_as_rapfi_does():
    result = SearchResult(move=7 * 15 + 8, value=0.625, pv=[7 * 15 + 8, 6 * 15 + 7], playouts=1234,
                          nodes=321, depth=5, elapsed=0.25)
    s, _ = make_session(RecordingThinker(reply=lambda b: result))
    s.feed("START 15")
    out = s.feed_now("BEGIN")
    assert out[-1] == "8,7"
    msg = [o for o in out if o.startswith("MESSAGE")]
    assert len(msg) == 2 and all(len(m) < 200 for m in msg)
    # Rapfi's form, read by client libraries: depth, eval (200 * logit of 62.5 %), nodes,
    # nodes a millisecond, time, then the line in letters and numbers, last.
    assert msg[1] == "MESSAGE depth 2-5 ev 102 n 321 n/ms 1 tm 250 pv I8 H7"
    for part in ("winrate 62.5%", "playouts 1234"):
        assert part in msg[0]


def test_unavailable_engine_still_plays_and_says_so():
    def broken(config):
        raise ImportError("no engine here")

    s = Session(SessionOptions(), broken)
    assert s.feed("START 15").lines == ["OK"]
    notes = s.prepare()
    assert notes and "no engine here" in notes[0]
    out = s.feed_now("BEGIN")
    assert out[-1] == "7,7"


def test_quick_thinker_wins_and_blocks():
    cfg_session = Session(SessionOptions(win_length=4), lambda c: QuickThinker())
    run_transcript(cfg_session, """
        > START 9
        < OK
        > BOARD
        > 1,1,1
        > 2,1,1
        > 3,1,1
        > 1,5,2
        > 2,5,2
        > 3,5,2
        > 8,8,2
        > DONE
        < 0,1
    """)
    run_transcript(cfg_session, """
        > BOARD
        > 1,5,2
        > 2,5,2
        > 3,5,2
        > 8,8,1
        > 5,8,1
        > DONE
        < 0,5
    """)


# With the real engine ------------------------------------------------------------------

from support.shared_positions import TACTICS


def _puzzles(kinds: tuple[str, ...]) -> list[tuple[str, int, int, int, int, list, list]]:
    out = []
    for raw in open(TACTICS, encoding="utf-8"):
        if not raw.strip() or raw.startswith("#"):
            continue
        name, dims, stones, answers = (part.strip() for part in raw.split("|"))
        if not name.startswith(kinds):
            continue
        w, h, k, rule = map(int, dims.split())
        out.append((name, w, h, k, rule,
                    [tuple(map(int, s.split(","))) for s in stones.split()],
                    [tuple(map(int, a.split(","))) for a in answers.split()]))
    return out


def real_session(**options) -> Session:
    from protocol.gomocup.thinker import EngineFactory

    pytest.importorskip("engine.api")
    options.setdefault("default_turn_ms", None)
    return Session(SessionOptions(**options), EngineFactory(seed=3))


def test_real_engine_full_game_by_transcript():
    s = real_session(nodes=300)
    run_transcript(s, """
        > INFO win_length 4
        > START 7
        < OK
        > BEGIN
        < move
    """)
    corners = [(0, 0), (6, 6), (6, 0), (0, 6)]

    def free_corner() -> str:
        x, y = next(c for c in corners if s.board.at(*c) == 0)
        return f"{x},{y}"

    played = free_corner()
    run_transcript(s, f"> TURN {played}\n< move")
    played = free_corner()
    run_transcript(s, f"> TURN {played}\n< move\n> TAKEBACK {played}\n< OK")
    assert s.board.stone_count == 4
    run_transcript(s, f"> TURN {free_corner()}\n< move")
    assert s.board.stone_count == 6


@pytest.mark.parametrize("puzzle", _puzzles(("win1", "block1"))[::3], ids=lambda p: p[0])
def test_real_engine_answers_immediate_tactics_through_board(puzzle):
    """BOARD field 1 must be the side to move's stones: a swapped mapping misses these."""
    name, w, h, k, rule, stones, answers = puzzle
    s = real_session(nodes=200, win_length=k)
    assert s.feed(f"RECTSTART {w},{h}").lines == ["OK"]
    mover = 1 if len(stones) % 2 == 0 else 2
    lines = ["BOARD"] + [f"{x},{y},{1 if p == mover else 2}" for x, y, p in stones] + ["DONE"]
    out = []
    for ln in lines:
        out += s.feed_now(ln)
    move = out[-1]
    assert MOVE.match(move), out
    assert tuple(map(int, move.split(","))) in answers, f"{name}: {move} not in {answers}"


def test_fuzzed_input_never_raises_and_every_reply_is_well_formed():
    import numpy as np

    rng = np.random.default_rng(12345)
    words = ["START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "YXBOARD", "DONE", "INFO", "END",
             "ABOUT", "TAKEBACK", "PLAY", "YXSTOP", "SWAP2BOARD", "turn", "Xyz", ""]
    args = ["", "7,7", "0,0", "14,14", "15,3", "-1,2", "a,b", "1,2,1", "1,2,3", "15", "5", "3", "20,15",
            "timeout_turn 0", "rule 4", "rule 1", "win_length 3", "win_length 99", "\x00\xff", "9" * 30]
    reply = re.compile(r'^(OK|ERROR .+|UNKNOWN .+|MESSAGE .*|\d+,\d+|\d+,\d+ \d+,\d+ \d+,\d+|name="pbrain-mcts".*)$')
    s = Session(SessionOptions(), lambda c: QuickThinker())
    for _ in range(3000):
        kind = rng.integers(4)
        if kind == 0:
            line = f"{rng.integers(-2, 17)},{rng.integers(-2, 17)},{rng.integers(0, 5)}"
        elif kind == 1:
            line = bytes(rng.integers(0, 256, size=int(rng.integers(1, 12)), dtype=np.uint8)).decode(
                "utf-8", "replace")
        else:
            line = f"{words[rng.integers(len(words))]} {args[rng.integers(len(args))]}"
        for out in s.feed_now(line):
            assert reply.match(out), (line, out)
            assert "\n" not in out and len(out) < 400
        board = s.board
        if board is not None:  # the session's board always agrees with its own bookkeeping
            assert board.empty_count == sum(1 for m in range(board.config.area) if board.is_empty(m))
    s.feed_now("INFO rule 0")
    s.feed_now("INFO win_length 5")
    s.feed_now("DONE")
    assert s.feed_now("START 15") == ["OK"]
    assert MOVE.match(s.feed_now("TURN 7,7")[-1])


def test_numpy_integer_moves_are_accepted():
    import numpy as np

    s, _ = make_session(RecordingThinker(reply=lambda b: SearchResult(move=np.int64(3), pv=[np.int64(3)])))
    s.feed("START 15")
    out = s.feed_now("BEGIN")
    assert out[-1] == "3,0" and not any("failed" in o for o in out)


def test_start_always_starts_and_a_bad_win_length_or_rule_waits_for_the_move():
    """Managers send START first and INFO after it: START answers OK for every supported
    size and clears the old game; what cannot be played is said at the next move command."""
    session, _ = make_session()
    run_transcript(session, """
        > START 3
        < OK
        > BEGIN
        < ERROR*win length*
        > INFO win_length 3
        > BEGIN
        < move
        > INFO rule 12
        > START 15
        < OK
        > BEGIN
        < ERROR*renju*
        > INFO rule 0
        > INFO win_length 5
        > BEGIN
        < 7,7
        > START 2
        < ERROR*unsupported board width 2*
        > TURN 1,1
        < ERROR*no game in progress*
    """)
    assert session.board is None


def test_start_clears_the_previous_game_even_when_the_next_one_cannot_be_played():
    session, _ = make_session()
    run_transcript(session, """
        > START 15
        < OK
        > BEGIN
        < 7,7
        > INFO rule 4
        > START 15
        < OK
        > INFO rule 1
        > BOARD
        > 7,7,2
        > DONE
        < move
    """)
    assert session.board.stone_count == 2  # only the new game's stones
