"""Each engine its own settings: KEY=VALUE words, an engines file, --each, and what the seats send."""

import json
import re

import pytest

from engine.mnk.rules import GameConfig
from engine.reversi.rules import ReversiConfig
from support.mock_transport import MockTransport
from referee.cli.engines import engine_specs, load_engines_file, parse_each
from referee.cli.match import main as referee_main
from referee.games.clock import GameClock, TimeControl
from referee.play.game import play_game
from referee.seats.gomocup import GomocupSeat
from referee.seats.nboard import NboardSeat
from referee.seats.spec import EngineSpec, settings_of

TC = TimeControl(turn_ms=300, match_ms=0, tolerance_ms=100, start_ms=1000, about_ms=500)


def test_settings_words_make_a_spec():
    spec = EngineSpec.from_settings(settings_of(
        "cmd='./rapfi --x' name=rapfi-3k dir=/tmp nodes=3000 depth=9 threads=2 info.caution_factor=3 "
        "turn_ms=500 match_ms=60000 send_delay_ms=30"))
    assert spec.argv == ("./rapfi", "--x") and (spec.label, spec.named, spec.cwd) == ("rapfi-3k", True, "/tmp")
    assert spec.info == (("max_node", "3000"), ("max_depth", "9"), ("thread_num", "2"), ("caution_factor", "3"))
    assert (spec.turn_ms, spec.match_ms, spec.send_delay_ms, spec.nboard_depth) == (500, 60000, 30.0, 9)
    assert spec.time_control(TC) == TimeControl(500, 60000, 100, 1000, 500)
    assert settings_of("./rapfi --x") is None  # a plain command line


@pytest.mark.parametrize("words,said", [
    ("cmd=./x colour=red", "unknown engine setting 'colour'"),
    ("cmd=./x nodes=many", "nodes"),
    ("cmd=./x turn_ms=-5", "must be >= 0"),
    ("cmd=./x info.hash", "not KEY=VALUE"),
    ("cmd=random", "settings are for engine programs"),
])
def test_bad_settings_say_what_is_wrong(words, said):
    with pytest.raises(ValueError, match=said):
        engine_specs([words])


def test_engines_files_json_and_toml_and_each(tmp_path):
    js = tmp_path / "engines.json"
    js.write_text(json.dumps([{"name": "rapfi-3k", "command": "./rapfi", "workingDirectory": "/opt", "nodes": 3000},
                              {"name": "mine", "cmd": "./pbrain-mine --fast"}]))
    toml = tmp_path / "engines.toml"
    toml.write_text('[rapfi-3k]\ncmd = "./rapfi"\ndir = "/opt"\nnodes = 3000\n\n[mine]\ncmd = "./pbrain-mine --fast"\n')
    for path in (js, toml):
        known = load_engines_file(str(path))
        rapfi, mine, plain = engine_specs(["rapfi-3k", "mine", "./other"], known=known,
                                          each=parse_each(["nodes=10000", "turn_ms=200"]))
        assert (rapfi.label, rapfi.cwd, rapfi.info, rapfi.turn_ms) == ("rapfi-3k", "/opt", (("max_node", "3000"),), 200)
        assert mine.argv == ("./pbrain-mine", "--fast") and mine.info == (("max_node", "10000"),)
        assert plain.argv == ("./other",) and plain.info == (("max_node", "10000"),) and not plain.named
    bad = tmp_path / "bad.json"
    bad.write_text('[{"name": "x"}]')
    with pytest.raises(ValueError, match="needs a name and a cmd"):
        load_engines_file(str(bad))


@pytest.mark.parametrize("name,data,said", [
    ("missing.json", None, "no such file or directory"),
    ("ls", b"\x7fELF\x02\x01\x01\x00\xd0\x00", "not a text file"),
    ("broken.json", b'[{"name": "x", ', "not valid JSON"),
    ("broken.toml", b"[x\ncmd = 1", "not valid TOML"),
])
def test_an_engines_file_that_cannot_be_read_is_named(tmp_path, capsys, name, data, said):
    path = tmp_path / name
    if data is not None:
        path.write_bytes(data)
    with pytest.raises(ValueError) as info:
        load_engines_file(str(path))
    text = str(info.value)
    assert text.startswith(f"--engines {path}: ") and said in text and "codec" not in text and "\n" not in text
    with pytest.raises(SystemExit) as info:  # the referee's command line: one line, exit code 2
        referee_main(["--engines", str(path), "random", "random"])
    assert info.value.code == 2 and capsys.readouterr().err.strip().splitlines()[-1] == f"referee: error: {text}"


def test_an_nboard_engine_takes_depth_only():
    assert engine_specs(["cmd=./edax depth=5"], game="reversi")[0].nboard_depth == 5
    with pytest.raises(ValueError, match="NBoard engine takes depth"):
        engine_specs(["cmd=./edax nodes=5"], game="reversi")


def test_a_gomocup_engine_gets_its_info_lines_and_keeps_the_name_it_was_given():
    one = MockTransport("one", ignore=("INFO timeout", "INFO max_memory", "INFO game_type", "INFO rule", "INFO win_length",
                                        "INFO time_left"))
    one.expect("START 7", "OK").expect("INFO max_node 3000").expect("INFO thread_num 1").expect(
        "ABOUT", 'name="Rapfi", version="1"').expect("BEGIN", "0,0")
    two = MockTransport("two", ignore=("INFO",))
    two.expect("START 7", "OK").expect("ABOUT", 'name="two"').expect("TURN 0,0", "no move")
    spec = EngineSpec.from_settings({"cmd": "./rapfi", "name": "rapfi-3k", "nodes": "3000", "threads": "1"})
    seats = [GomocupSeat(spec, transport=one), GomocupSeat(EngineSpec(("two",), "two"), transport=two)]
    r = play_game(seats, game=1, first=1, config=GameConfig(7, 7, 4), tc=TC)
    assert r.engine1 == "rapfi-3k" and r.engine2 == "two"  # a given name wins over ABOUT's
    assert "INFO max_node 3000" in one.sent and not any("max_node" in line for line in two.sent)


def test_time_odds_give_each_side_its_own_clock():
    clock = GameClock(TC, (TimeControl(turn_ms=50, tolerance_ms=0), TC))
    assert clock.turn(0).budget_s == pytest.approx(0.05) and clock.turn(1).budget_s == pytest.approx(0.4)
    assert "over the 50 ms turn time" in clock.late(clock.turn(0), 80, 0) and clock.late(clock.turn(1), 80, 1) is None
    one = MockTransport("one", ignore=("INFO",))
    one.expect("START 7", "OK").expect("ABOUT", 'name="one"').expect("BEGIN", "3,3", after_s=0.35)
    two = MockTransport("two", ignore=("INFO",))
    two.expect("START 7", "OK").expect("ABOUT", 'name="two"')
    fast = EngineSpec.from_settings({"cmd": "./one", "turn_ms": "100"})
    seats = [GomocupSeat(fast, transport=one), GomocupSeat(EngineSpec(("two",), "two"), transport=two)]
    r = play_game(seats, game=1, first=1, config=GameConfig(7, 7, 4), tc=TC)  # 0.35 s: late for 100 + 100 ms only
    assert (r.termination, r.winner) == ("timeout", "engine2") and r.reason == "one did not move within 200 ms"
    assert "INFO timeout_turn 100" in one.sent  # the engine is told its own time


def test_an_nboard_engine_is_sent_its_depth():
    black = MockTransport("black", end_line="quit")
    black.expect("nboard 2").expect("set depth 7").expect(re.compile(r"set game .*")).expect("ping 1", "pong 1")
    seat = NboardSeat(EngineSpec.from_settings({"cmd": "./edax", "depth": "7"}), transport=black)
    seat.launch(ReversiConfig(), TC)
    seat.finish_start(ReversiConfig(), TC)
    black.assert_done()
