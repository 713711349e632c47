"""The referee under renju (fast tier: in-process seats, the real ``play_game``): black's
forbidden point ends the game with the ``forbidden`` verdict, a five still wins, white's
overline wins, a person is told why a point is forbidden, and records carry the rule."""

from __future__ import annotations

import io
import json
import subprocess

import pytest

from engine.mnk.board.rules import GameConfig, Rule
from referee.cli.match import build_parser, _game_config
from referee.games import rules_for
from referee.games.clock import TimeControl
from referee.games.verdicts import FAULTS, Termination
from referee.match.records import psq_text, sgf_text
from referee.play.game import play_game
from referee.play.result import GameResult
from referee.seats.base import InProcessSeat
from referee.seats.human import HumanSeat
from support.fakes import REFEREE, fake_cmd

RENJU = GameConfig.square(15, 5, Rule.RENJU)
TC = TimeControl(turn_ms=1000, tolerance_ms=1000)
#: White's moves far from the action (corners and edges).
QUIET = [(0, 0), (14, 0), (0, 14), (14, 14), (0, 2), (2, 0), (12, 0), (0, 12)]


class Scripted(InProcessSeat):
    """An engine that plays its ``moves`` in order (whatever the position)."""

    def __init__(self, name, moves):
        super().__init__(name)
        self._moves = iter(moves)

    def ask(self, pos, turn):
        return next(self._moves), 0.001


def play(black, white, config=RENJU):
    return play_game([Scripted("black", black), Scripted("white", white)], game=1, first=1, config=config, tc=TC)


def test_a_forbidden_move_by_black_ends_the_game_and_white_wins():
    r = play([(5, 7), (6, 7), (7, 5), (7, 6), (7, 7)], QUIET)
    assert r.termination == "forbidden" and r.winner == "engine2"
    assert r.reason == "black played 7,7: black's 7,7 is a double three, forbidden under renju"
    assert Termination.FORBIDDEN in FAULTS
    assert "RU[4]" in sgf_text(r) and r.rule == "renju"


def test_the_foul_is_recorded_as_the_last_move_and_marked():
    r = play([(5, 7), (6, 7), (7, 5), (7, 6), (7, 7)], QUIET)
    assert r.moves[-1] == [7, 7] and len(r.moves) == 9 and len(r.times_ms) == 9 and r.foul is True
    obj = r.to_json()
    assert obj["foul"] is True and obj["moves"][-1] == [7, 7]
    assert GameResult.from_json(json.loads(json.dumps(obj))).to_json() == obj  # what --resume reads back
    board = rules_for(RENJU).replay(obj["moves"])  # the foul is recorded, not played
    assert len(board.history) == 8 and board.is_empty(RENJU.move(7, 7)) and board.winner is None
    sgf = sgf_text(r)
    assert sgf.endswith(";B[hh]C[1ms; foul, the game is lost: black played 7,7: black's 7,7 is a double three, "
                        "forbidden under renju]MA[hh])\n")
    assert sgf.count("MA[") == 1 and "RE[W+1]" in sgf
    psq = psq_text(r).splitlines()
    assert psq[-4:] == ["8,8,1", "black", "white", "1"] and len(psq) == 1 + 9 + 3
    clean = play([(3, 7), (4, 7), (5, 7), (6, 7), (7, 7)], QUIET)  # a five, no foul: nothing added
    assert "foul" not in clean.to_json() and "MA[" not in sgf_text(clean)


@pytest.mark.slow
def test_a_fake_brain_playing_a_forbidden_point_leaves_it_in_every_record(tmp_path):
    black = fake_cmd("--name", "fouler", "--script", "5,7;6,7;7,5;7,6;7,7", "--seed", "1")
    white = fake_cmd("--name", "quiet", "--script", ";".join(f"{x},{y}" for x, y in QUIET), "--seed", "2")
    out = tmp_path / "m"
    common = ["--rule", "renju", "--empty-board", "--turn-ms", "2000", "--out", str(out), black, white]
    p = subprocess.run([*REFEREE, "--games", "2", *common], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr, p.stderr
    first = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    assert (first["termination"], first["winner"], first["foul"]) == ("forbidden", "engine2", True)
    assert first["moves"][-1] == [7, 7] and len(first["times_ms"]) == len(first["moves"]) == 9
    assert (out / "game-0001.sgf").read_text().rstrip().endswith("MA[hh])")
    assert (out / "game-0001.psq").read_text().splitlines()[-4] == "8,8," + str(first["times_ms"][-1])
    assert "MA[hh]" in (out / "match.sgf").read_text()
    p = subprocess.run([*REFEREE, "--games", "4", "--resume", *common], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr, p.stderr
    games = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [g["game"] for g in games] == [1, 2, 3, 4] and games[2]["foul"] and games[2]["moves"][-1] == [7, 7]


def test_an_overline_by_black_is_forbidden_but_the_same_under_freestyle_wins():
    black = [(2, 7), (3, 7), (4, 7), (6, 7), (7, 7), (5, 7)]
    r = play(black, QUIET)
    assert (r.termination, r.winner) == ("forbidden", "engine2")
    assert "black's 5,7 is an overline" in r.reason
    r = play(black, QUIET, config=GameConfig.square(15, 5, Rule.FREESTYLE))
    assert (r.termination, r.winner) == ("line", "engine1")


def test_a_five_that_also_makes_a_four_wins_for_black():
    # Row 7 holds four black stones and column 7 three: (7,7) makes five and a four at once.
    black = [(3, 7), (4, 7), (5, 7), (7, 4), (7, 5), (7, 6), (6, 7), (7, 7)]
    r = play(black, QUIET)
    assert (r.termination, r.winner) == ("line", "engine1")
    assert "renju rule" in r.reason


def test_white_wins_with_an_overline():
    white = [(2, 9), (3, 9), (4, 9), (6, 9), (7, 9), (5, 9)]
    black = [(0, 0), (14, 0), (0, 14), (14, 14), (0, 2), (2, 0)]
    r = play(black, white)
    assert (r.termination, r.winner) == ("line", "engine2")


def test_a_person_playing_black_is_told_why_and_chooses_again():
    out = io.StringIO()
    answers = iter(["5,7", "6,7", "7,5", "7,6", "7,7", "9,9"])

    def ask(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    seats = [HumanSeat(input_fn=ask, output=out, show_board=False), Scripted("white", QUIET)]
    r = play_game(seats, game=1, first=1, config=RENJU, tc=TC)
    text = out.getvalue()
    assert "7,7 is forbidden for black (renju): a double three; choose another point" in text
    assert "forbidden for black here: 7,7 (double three)" in text  # shown before the prompt
    assert [9, 9] in r.moves and [7, 7] not in r.moves
    assert r.termination == "resign"  # the end of the scripted input


def test_the_match_options_take_renju_and_describe_it():
    p = build_parser()
    config = _game_config(p.parse_args(["a", "b", "--rule", "renju"]), p)
    assert config.rule is Rule.RENJU and config.win_length == 5
    assert "double three" in rules_for(config).describe()
    with pytest.raises(SystemExit):
        _game_config(p.parse_args(["a", "b", "--rule", "renju", "--win-length", "6"]), p)


# referee check --renju -------------------------------------------------------------------------

def test_the_renju_check_positions_hold_under_the_rules():
    from referee.conformance.gomocup_renju_checks import avoid_forbidden, five_over_double_four, force_onto_forbidden

    pos, point = avoid_forbidden()  # each builder asserts its position with engine.mnk.board.rules
    assert point not in pos.answers and len(pos.answers) == 15 * 15 - 8 - 1
    assert five_over_double_four().answers == ((7, 7),)
    white = force_onto_forbidden()
    assert white.answers == ((11, 11),)
    # Renju positions are sent in move order: black first, then alternating.
    colours = [f for _, _, f in white.stones]
    assert colours[:4] == [2, 1, 2, 1]


def test_check_lists_the_renju_checks_only_when_asked():
    from referee.cli import check

    out = io.StringIO()
    assert check.main(["--list", "--renju"], out=out) == 0
    names = [ln.split()[0] for ln in out.getvalue().splitlines()]
    assert names[-3:] == ["renju-avoid-forbidden", "renju-five-first", "renju-forced-forbidden"]
    out = io.StringIO()
    check.main(["--list"], out=out)
    assert "renju" not in out.getvalue()


@pytest.mark.slow
def test_pbrain_mcts_passes_the_renju_checks():
    import sys

    from referee.cli import check
    from referee.conformance.context import Options
    from referee.conformance.gomocup_renju_checks import RENJU_GROUPS

    opts = Options(argv=[sys.executable, "-m", "protocol.gomocup"], turn_ms=300)
    results = check.run_checks(opts, groups=RENJU_GROUPS)
    assert [(r.name, r.status) for r in results] == [
        ("renju-avoid-forbidden", "pass"), ("renju-five-first", "pass"), ("renju-forced-forbidden", "pass")]


# referee script ----------------------------------------------------------------------------------

def test_the_script_runner_judges_a_black_engine_by_the_renju_rules():
    from referee.conformance.script_models import GomocupModel

    model = GomocupModel()
    model.sent("START 15")
    model.received("OK")
    for line in ["INFO rule 4", "BOARD", "5,7,1", "0,0,2", "6,7,1", "14,0,2", "7,5,1", "0,14,2", "7,6,1",
                 "14,14,2", "DONE"]:
        model.sent(line)
    assert model.forbidden((7, 7)) == "double three"  # the engine is black: equal stone counts
    assert model.forbidden((9, 9)) is None
    model.sent("INFO rule 0")
    assert model.forbidden((7, 7)) is None
    model.sent("INFO rule 4")
    model.sent("TURN 9,9")  # now the engine (one stone fewer) is white: no restriction
    assert model.forbidden((7, 7)) is None
    # A black opponent's TURN on a forbidden point is refused by the engine: no stone recorded.
    model.sent("START 15")
    model.received("OK")
    for line in ["BOARD", "5,7,2", "0,0,1", "6,7,2", "14,0,1", "7,5,2", "0,14,1", "7,6,2", "14,14,1", "9,9,2",
                 "DONE"]:
        model.sent(line)
    model.cells.stones[(12, 12)] = 1  # the engine's answer, as the runner records it
    model.sent("TURN 7,7")
    assert (7, 7) not in model.cells.stones
    model.sent("TURN 8,8")
    assert model.cells.stones[(8, 8)] == 2


def test_the_script_runner_reads_rule_2_and_yxboard_then_turn_as_yixin_board_means_them():
    from referee.conformance.script_models import GomocupModel

    model = GomocupModel()
    model.sent("START 15")
    model.received("OK")
    stones = ["5,7,1", "0,0,2", "6,7,1", "14,0,2", "7,5,1", "0,14,2", "7,6,1", "14,14,2"]
    for line in ["INFO rule 2", "YXBOARD", *stones, "DONE"]:
        model.sent(line)
    assert model.forbidden((7, 7)) == "double three"  # rule 2 is renju; field 1 (black) to move
    model.sent("TURN 1,1")  # black, the side to move there, plays; the engine answers as white
    assert model.forbidden((7, 7)) is None
    assert model.cells.stones[(1, 1)] == 2 and model.cells.stones[(0, 0)] == 1
