"""A human at the terminal: move syntax, help, undo, resign, quit and the end of input.

Most tests play against an in-process scripted engine (no process is started), so
they are quick; the match-level ones start the fake brain and are marked slow.
"""

import io

import pytest

from engine.mnk.board.rules import Board, GameConfig
from referee.play.game import play_game
from referee.seats.base import InProcessSeat
from referee.seats.gomocup import position_lines
from referee.games.clock import TimeControl
from referee.games.mnk import HUMAN_HELP, parse_human_move
from referee.seats.human import HumanSeat

CFG = GameConfig(7, 7, 4)
TC = TimeControl(turn_ms=1000, tolerance_ms=1000)


class ScriptedEngine(InProcessSeat):
    """Stands in for an engine seat: plays the first empty cell of ``prefs`` and keeps what it was sent."""

    def __init__(self, prefs):
        super().__init__("bot")
        self.sent = []  # one list of command lines per move asked
        self._prefs = [CFG.move(x, y) for x, y in prefs]
        self._known = []  # what a Gomocup engine's own board would hold

    def ask(self, pos, turn):
        self.sent.append(position_lines(self._known, pos))  # the lines a Gomocup seat would send
        board = pos.state
        m = next(m for m in self._prefs if board.is_empty(m))
        self._known = list(board.history) + [m]
        return board.config.xy(m), 0.001


def human(answers):
    out = io.StringIO()
    it = iter(answers)

    def ask(prompt):
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return HumanSeat(input_fn=ask, output=out, show_board=True), out


BOT_PREFS = [(6, 0), (6, 1), (6, 2), (6, 4), (6, 5), (0, 6), (1, 6), (2, 6)]


@pytest.mark.parametrize("text,move", [
    ("7,7", (7, 7)), ("7 7", (7, 7)), (" 7, 7 ", (7, 7)), ("(3,4)", (3, 4)), ("3\t4", (3, 4)), ("0 12", (0, 12)),
    ("h8", None), ("7", None), ("7,7,7", None), ("a,b", None), ("", None), ("7 7 please", None),
])
def test_move_syntax(text, move):
    assert parse_human_move(text) == move


def test_spaces_commas_help_and_letters():
    seat, out = human(["help", "h8", "1 1", "1,2", "1 3", "1 4"])  # X: four down column 1
    r = play_game([seat, ScriptedEngine(BOT_PREFS)], game=1, first=1, config=CFG, tc=TC)
    text = out.getvalue()
    assert HUMAN_HELP in text
    assert "letters are not used here" in text
    assert (r.termination, r.winner) == ("line", "engine1")
    assert r.moves[::2] == [[1, 1], [1, 2], [1, 3], [1, 4]]


def test_undo_takes_back_the_humans_move_and_the_reply_and_resyncs_the_engine_with_board():
    bot = ScriptedEngine(BOT_PREFS)
    seat, out = human(["1 1", "undo", "2 2", "2 3", "2 4", "2 5"])
    r = play_game([seat, bot], game=1, first=1, config=CFG, tc=TC)
    assert (r.termination, r.winner) == ("line", "engine1")
    assert r.moves[:2] == [[2, 2], [6, 0]]  # 1,1 and the reply are gone
    assert [1, 1] not in r.moves and len(r.times_ms) == len(r.moves)
    assert bot.sent[0] == ["TURN 1,1"]
    # the engine's board still held 1,1 and its reply: it is told the whole position afresh
    assert bot.sent[1] == ["BOARD", "2,2,2", "DONE"]
    assert bot.sent[2] == ["TURN 2,3"]
    assert "taken back" in out.getvalue()
    b = Board(CFG)
    for x, y in r.moves:
        b.play(CFG.move(x, y))
    assert b.winner is not None


def test_undo_as_o_and_undo_with_nothing_to_take_back():
    bot = ScriptedEngine([(3, 3), (4, 4), (5, 5), (6, 6), (0, 6), (1, 6), (2, 6)])
    seat, out = human(["undo", "0 0", "undo", "undo", "1 0", "2 0", "3 0"])
    r = play_game([seat, bot], game=1, first=2, config=CFG, tc=TC)  # the bot is X
    assert "nothing to take back" in out.getvalue()
    # 3,3 (bot), 0,0 (human), 4,4 (bot) -> undo -> 3,3; undo again: nothing of the human's is left
    assert r.moves[:3] == [[3, 3], [1, 0], [4, 4]]
    assert bot.sent[0] == ["BEGIN"] and bot.sent[1] == ["TURN 0,0"]
    assert bot.sent[2] == ["BOARD", "3,3,1", "1,0,2", "DONE"]


def test_undo_never_takes_back_the_opening():
    bot = ScriptedEngine(BOT_PREFS)
    seat, out = human(["undo", "resign"])
    opening = [CFG.move(3, 3), CFG.move(4, 4)]
    r = play_game([seat, bot], game=1, first=1, config=CFG, tc=TC, opening=opening)
    assert "nothing to take back" in out.getvalue()
    assert r.moves == [[3, 3], [4, 4]] and r.termination == "resign"


def test_resign_loses_the_game_only():
    seat, _ = human(["1 1", "resign"])
    r = play_game([seat, ScriptedEngine(BOT_PREFS)], game=1, first=1, config=CFG, tc=TC)
    assert (r.termination, r.winner) == ("resign", "engine2")
    assert r.reason == "human resigned" and not seat.quit_requested


@pytest.mark.parametrize("answers,said", [(["1 1", "quit"], "(quit)"), (["1 1"], "(end of input)")])
def test_quit_and_end_of_input_resign_and_ask_to_end_the_match(answers, said):
    seat, out = human(answers)
    r = play_game([ScriptedEngine(BOT_PREFS), seat], game=1, first=2, config=CFG, tc=TC)
    assert (r.termination, r.winner) == ("resign", "engine1")
    assert said in r.reason and seat.quit_requested
    if said == "(end of input)":
        assert "end of input: human resigns this game and the match ends" in out.getvalue()


def test_the_first_prompt_shows_the_board_with_the_opening():
    seat = HumanSeat(input_fn=lambda p: "resign", output=(out := io.StringIO()), show_board=False)
    play_game([seat, ScriptedEngine(BOT_PREFS)], game=1, first=1, config=CFG, tc=TC,
              opening=[CFG.move(3, 3), CFG.move(4, 4)])
    assert " 3 . . . X . . ." in out.getvalue()


def test_human_with_a_name():
    from referee.seats.spec import EngineSpec

    assert EngineSpec.parse("human").label == "human" and EngineSpec.parse("HUMAN").is_human
    spec = EngineSpec.parse("human:Ann  Lee")
    assert spec.is_human and spec.label == "Ann Lee"
    with pytest.raises(ValueError):
        EngineSpec.parse("human:")


@pytest.mark.slow
@pytest.mark.parametrize("last", ["quit", None])  # None: the input ends (Ctrl-D)
def test_quit_ends_the_match_and_the_game_is_recorded(tmp_path, last):
    from support.fakes import fake_argv
    from referee.match.run import run_match
    from referee.match.settings import MatchSettings
    from referee.seats.spec import EngineSpec

    answers = iter(["0 0"] + ([last] if last else []))

    def ask(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    settings = MatchSettings(config=CFG, tc=TC, games=3, out_dir=str(tmp_path), display="moves")
    outcome = run_match(EngineSpec.parse("human"), EngineSpec(fake_argv("--seed", "1"), "fake"), settings,
                        out=out, input_fn=ask)
    assert outcome.ended_by == "human" and not outcome.interrupted
    assert [r.termination for r in outcome.results] == ["resign"]
    assert (outcome.tally.losses, outcome.tally.games) == (1, 1)
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 1
    assert outcome.labels == ("human", "engine2")
    assert "game 2" not in out.getvalue()


@pytest.mark.parametrize("game", ["mnk", "reversi"])
def test_a_board_is_shown_once_before_the_first_prompt_when_the_engine_moves_first(game):
    from engine.reversi.board.rules import ReversiConfig
    from referee.match.run import run_match
    from referee.match.settings import MatchSettings
    from referee.seats.spec import EngineSpec

    prompts = []

    def ask(prompt):
        prompts.append(out.getvalue())  # what was on the screen when the person was asked
        raise EOFError

    out = io.StringIO()
    config = CFG if game == "mnk" else ReversiConfig()
    settings = MatchSettings(config=config, tc=TC, games=1, first=2, display="board", seed=3)
    outcome = run_match(EngineSpec.parse("human"), EngineSpec.parse("random"), settings, out=out, input_fn=ask)
    assert [r.termination for r in outcome.results] == ["resign"]
    head = "   0 1 2 3 4 5 6" if game == "mnk" else "   a b c d e f g h"
    shown = prompts[0]
    assert "move 1:" in shown or "move 5:" in shown  # the random engine moved first
    assert shown.count(head) == 1, shown  # the match showed the board; the prompt did not repeat it


def test_a_person_sees_one_board_a_turn_is_untimed_and_gets_no_eta():
    from referee.match.run import run_match
    from referee.match.settings import MatchSettings
    from referee.seats.spec import EngineSpec

    # The seed fixes the random mover's replies too: neither takes the cell typed next
    answers = iter(["3 3", "3 4", "resign", "0 0"])

    def ask(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    settings = MatchSettings(config=CFG, tc=TC, games=2, display="board", seed=3)
    outcome = run_match(EngineSpec.parse("human"), EngineSpec.parse("random"), settings, out=out, input_fn=ask)
    assert [r.termination for r in outcome.results] == ["resign", "resign"]
    text = out.getvalue()
    banner = text.splitlines()[0]
    assert banner.endswith("the engine: 1000 ms a move (+1000 ms tolerance; referee --turn-ms: engines' own time "
                           "options are overridden by the manager's); human: untimed")
    game1 = text.split("=== game 2/2")[0]
    # game 1: the empty board, then one board after each of the engine's two replies (none after the
    # person's own moves, which the reply's board shows): three boards for three prompts
    assert game1.count("   0 1 2 3 4 5 6") == 3
    lines = text.splitlines()
    assert lines[lines.index(next(l for l in lines if "move 1: human (X) 3,3" in l)) + 1].startswith("game 1 move 2:")
    assert "ETA" not in text and "elapsed" not in text
    assert "[1/2] human +0 =0 -1  score 0.000" in text  # the score between games, without a pace
