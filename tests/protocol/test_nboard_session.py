"""The NBoard state machine in-process: transcripts, time planning, the game it keeps,
and how it answers when the engine misbehaves (no subprocess)."""

from __future__ import annotations

import threading

import pytest

from engine.game import GameError
from engine.reversi.board.rules import PASS, ReversiConfig, ReversiState
from engine.search.limits import RootMove, SearchResult
from engine.timecontrol import level_turn_ms, turn_budget_ms
from protocol.engines import EngineFactory
from protocol.nboard.game import NBoardGame, quick_move
from protocol.nboard.session import GoJob, HintJob, Session, SessionOptions

from support.nboard_transcripts import TRANSCRIPTS, run_in_session

START = "---------------------------O*------*O---------------------------"


def ggf(moves: str = "", tags: str = "", board: str = START, side: str = "*", size: int = 8) -> str:
    return f"(;GM[Othello]PC[test]{tags}BO[{size} {board} {side}]{moves};)"


class FakeEngine:
    """Plays the first legal move (or ``reply(state)``) and records what it was asked."""

    def __init__(self, reply=None, margin=None):
        self.calls: list[tuple[str, ReversiState, object]] = []
        self.reply = reply
        self.last_margin = margin

    def search(self, state, limits, stop=None):
        self.calls.append(("search", state.clone(), limits))
        move = self.reply(state) if self.reply else state.legal_moves()[0]
        return SearchResult(move=move, value=0.75, pv=[move], playouts=160, nodes=10, depth=3)

    def rank_moves(self, state, limits, count=None, stop=None):
        self.calls.append(("rank", state.clone(), limits))
        return [RootMove(m, value=0.5, pv=[m], depth=2) for m in state.legal_moves()][:count]


class FakeThinker:
    def __init__(self, engine):
        self._engine = engine

    def engine(self, limits, stop=None):
        return self._engine, ""

    def quick(self, state, why):
        return SearchResult(move=quick_move(state), reason=why)


class Clock:
    def __init__(self, t: float = 100.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def make(engine=None, clock=None, **options) -> tuple[Session, FakeEngine, list]:
    engine = engine or FakeEngine()
    built = []

    def factory(config):
        built.append(config)
        return FakeThinker(engine)

    kw = {"clock": clock} if clock else {}
    return Session(SessionOptions(**options), factory, **kw), engine, built


def real_session(**options) -> Session:
    factory = EngineFactory(ReversiConfig(), quick_move, seed=1)
    return Session(SessionOptions(nodes=200, **options), factory)


# ------------------------------------------------------------------------ transcripts
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.stem)
def test_transcript_in_process_with_the_real_engine(path):
    assert run_in_session(real_session(), path.read_text()) > 10


def test_the_transcripts_are_there():
    assert {p.stem for p in TRANSCRIPTS} >= {"session", "bad_input"}


# ------------------------------------------------------------------------ the game
def test_go_answers_without_playing_and_move_plays():
    session, engine, _ = make()
    out = session.feed_now("go")
    assert out[0] == "status thinking" and out[1].startswith("nodestats 10 ")
    assert out[2].startswith("=== D3/") and out[3].startswith("status D3 ")
    assert session.game.state.history == ()  # go did not play
    assert session.feed_now("move d3/1.5/2") == [] and session.game.state.history == (19,)
    assert session.game.moves[-1].eval == 1.5 and session.game.moves[-1].seconds == 2.0


def test_a_forced_pass_is_answered_at_once_and_a_finished_game_gets_a_status():
    session, engine, _ = make()
    must_pass = "OOOOO*OOOOOO**OOO*OO**OOO**OO*OOO*OO*OOOOOOOO*OOOO*****-O******-"
    assert session.feed_now(f"set game {ggf(board=must_pass)}") == []
    step = session.feed("go")
    assert step.lines == ["=== PA"] and step.job is None and not engine.calls
    assert session.feed_now(f"set game {ggf(board='*' * 64)}") == []
    assert session.feed_now("go") == ["status the game is over: no move to play"]
    assert session.feed_now("hint 3") == ["status the game is over: no move to hint"]


def test_a_move_after_a_left_out_pass_is_read_as_the_pass_then_the_move():
    session, _, _ = make()
    must_pass = "OOOOO*OOOOOO**OOO*OO**OOO**OO*OOO*OO*OOOOOOOO*OOOO*****-O******-"
    session.feed_now(f"set game {ggf(board=must_pass)}")
    assert session.feed_now("move h8") == []  # black must pass: h8 is white's
    assert session.game.state.history == (PASS, 63)
    assert [m.player for m in session.game.moves] == [1, 2]


def test_bad_input_leaves_the_position_as_it_was():
    session, _, _ = make()
    session.feed_now(f"set game {ggf('B[F5]W[F6]')}")
    before = session.game.state.key()
    for line in (f"set game {ggf('B[F5]W[F5]')}", "set game (;GM[Othello]BO[8 xyz *];)", "move f6", "move q1",
                 "move f5/1/2/3", "set game " + "(" * 5000):
        out = session.feed_now(line)
        assert len(out) == 1 and out[0].startswith("status ") and "position unchanged" in out[0], (line, out)
        assert session.game.state.key() == before


def test_set_game_accepts_whitespace_before_the_closing_parenthesis():
    session, _, _ = make()
    out = session.feed_now(f"set game {ggf('B[F5] W[F6]')[:-2]}; )")
    assert out == [] and session.game.state.history == (37, 45)


def test_another_board_size_switches_the_engine():
    session, engine, built = make()
    session.feed_now("nboard 2")
    session.feed_now(f"set game {ggf(board='-' * 14 + 'O*----*O' + '-' * 14, size=6)}")
    assert built[-1] == ReversiConfig(6)
    out = session.feed_now("go")
    assert any(line.startswith("=== ") for line in out) and engine.calls[-1][1].n == 6
    session.feed_now(f"set game {ggf()}")
    assert built[-1] == ReversiConfig(8)


def test_a_new_start_position_gets_a_fresh_engine_and_the_same_game_keeps_it():
    session, _, built = make()
    session.feed_now(f"set game {ggf('B[F5]')}")
    session.feed_now(f"set game {ggf('B[F5]W[F6]')}")  # the same game, on: the tree is reusable
    assert len(built) == 1
    other = START.replace("-", "*", 1)
    session.feed_now(f"set game {ggf(board=other)}")
    assert len(built) == 2


def test_version_contempt_and_depth_are_kept():
    session, _, _ = make()
    assert session.feed_now("nboard 2") == []
    assert session.feed_now("nboard 1") == ["status nboard-mcts speaks NBoard protocol version 2"]
    assert session.feed_now("set contempt -150") == [] and session.contempt == -150
    assert session.feed_now("set depth 13") == [] and session.depth == 13
    assert session.feed_now("ping 9") == ["pong 9"]
    assert session.feed_now("quit") == [] and session.feed("quit").quit


# ------------------------------------------------------------------------ time
def limits_of(session: Session, engine: FakeEngine, line: str = "go"):
    session.feed_now(line, arrival=100.0)
    return engine.calls[-1][2]


def test_time_a_move_comes_from_set_depth_unless_the_command_line_fixes_it():
    session, engine, _ = make(clock=Clock())
    assert limits_of(session, engine).deadline == pytest.approx(100.0 + turn_budget_ms(1000) / 1000)
    session.feed_now("set depth 16")
    assert level_turn_ms(16) == 4000
    assert limits_of(session, engine).deadline == pytest.approx(100.0 + turn_budget_ms(4000) / 1000)
    fixed, engine2, _ = make(clock=Clock(), move_ms=250)
    fixed.feed_now("set depth 16")
    assert limits_of(fixed, engine2).deadline == pytest.approx(100.0 + turn_budget_ms(250) / 1000)
    limited, engine3, _ = make(clock=Clock(), nodes=500)
    assert limits_of(limited, engine3).nodes == 500


def test_the_game_clock_caps_the_move_and_hints_ignore_it():
    session, engine, _ = make(clock=Clock())
    # a minute each; black has used 50 s: 10 s left for 29 moves to go (58 empty squares)
    session.feed_now(f"set game {ggf('B[F5//50]W[F6//1]', tags='TI[1:00]')}")
    assert session.game.clock_left_ms() == pytest.approx(10_000.0)
    deadline = limits_of(session, engine).deadline
    assert 100.0 + 0.1 < deadline < 100.0 + 10.0 / 29
    hint = limits_of(session, engine, "hint 2").deadline
    assert hint == pytest.approx(100.0 + turn_budget_ms(1000) / 1000)
    session.feed_now("move e6//0.5")  # white to move now: 59 s left
    assert session.game.clock_left_ms() == pytest.approx(59_000.0)


def test_the_answer_reports_the_time_since_the_command_arrived():
    clock = Clock()
    session, _, _ = make(clock=clock)
    step = session.feed("go", arrival=99.0)
    clock.t = 100.25
    out = session.finish(step.job, step.job.run())
    assert out[1].endswith("/1.25") and out[0] == "nodestats 10 1.25"


# ------------------------------------------------------------------------ evals and hints
def test_the_eval_is_the_exact_margin_when_solved_else_the_value_in_discs():
    session, _, _ = make(FakeEngine(margin=-6))
    assert session.feed_now("go")[2].startswith("=== D3/-6.00/")
    session, _, _ = make(FakeEngine())
    assert session.feed_now("go")[2].startswith("=== D3/13.18/")  # 12 ln 3


def test_hints_list_the_ranked_moves_with_their_depths():
    session, engine, _ = make()
    out = session.feed_now("hint 3")
    assert out[0] == "status thinking" and out[-1].startswith("status 3 hints in ")
    assert out[1:4] == ["search D3 0.00 0 2", "search C4 0.00 0 2", "search F5 0.00 0 2"]
    assert engine.calls[-1][0] == "rank"


def test_hint_pvs_are_cut_where_they_stop_being_legal():
    class Ranked(FakeEngine):
        def rank_moves(self, state, limits, count=None, stop=None):
            return [RootMove(19, 1.0, 5, "win", None, [19, 18, 18, 7], 9), RootMove(99, 0.5), RootMove(26, 0.0, 1, "loss")]

    session, _, _ = make(Ranked())
    out = session.feed_now("hint 5")
    assert out[1:3] == ["search D3C3 2.00 0 100%W", "search C4 -2.00 0 100%W"]


# ------------------------------------------------------------------------ a misbehaving engine
def test_a_failing_or_illegal_search_still_answers_a_legal_move():
    session, _, _ = make(FakeEngine(reply=lambda state: 0))  # a1: illegal
    out = session.feed_now("go")
    assert out[2].startswith("=== D3/") and "illegal move" in out[3]  # the instant move instead

    def boom(state):
        raise RuntimeError("kaput")

    session, _, _ = make(FakeEngine(reply=boom))
    out = session.feed_now("go")
    assert any(line.startswith("=== ") for line in out) and any("kaput" in line for line in out)
    out = session.feed_now("hint 2")
    assert any(line.startswith("search ") for line in out)


def test_an_engine_that_cannot_be_built_gives_instant_moves():
    def factory(config):
        raise ImportError("no numpy here")

    session = Session(SessionOptions(), factory)
    out = session.feed_now("go")
    assert any("no numpy here" in line for line in out) and any(line.startswith("=== ") for line in out)
    assert session.feed_now("ping 1") == ["pong 1"]


def test_finish_ignores_a_job_it_did_not_start():
    session, _, _ = make()
    step = session.feed("go")
    assert session.busy
    stray = GoJob(ReversiState(), step.job.limits, step.job.thinker, 0.0, "")
    assert session.finish(stray, None, "x") == []
    assert session.finish(step.job, step.job.run(threading.Event()))
    assert not session.busy
    assert isinstance(session.feed("hint 1").job, HintJob)


def test_the_game_record_is_checked_whole():
    game = NBoardGame.from_ggf(ggf("B[F5//1]W[F6]", tags="TI[1:00]"))
    assert game.size == 8 and game.state.history == (37, 45)
    with pytest.raises(GameError):
        game.play("a1")
    assert game.state.history == (37, 45) and len(game.moves) == 2
    with pytest.raises(GameError):
        quick_move(ReversiState.from_text("*" * 64 + " O"))
    assert quick_move(ReversiState.from_text("-" + "O" * 6 + "*" + "-" * 56 + " X")) == 0  # the corner
