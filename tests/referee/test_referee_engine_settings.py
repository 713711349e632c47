"""Each engine its own settings: KEY=VALUE words, an engines file, --each, and what the seats send."""

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from engine.mnk.board.rules import GameConfig
from engine.reversi.board.rules import ReversiConfig
from support.fakes import REFEREE, fake_cmd
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
    with pytest.raises(ValueError, match="engine 1 \\(x\\) needs a name and a command"):
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


def cutechess_file(tmp_path) -> Path:
    """An engines.json as cutechess writes it: every entry with a protocol, most with
    initStrings and options, and chess engines the referee cannot play."""
    entries = [
        {"command": "./pbrain-rapfi --quiet", "name": "Rapfi 3k", "protocol": "gomocup",
         "workingDirectory": str(tmp_path), "stderrFile": str(tmp_path / "rapfi.err"),
         "initStrings": ["INFO max_node 3000", "INFO caution_factor 3"],
         "options": [{"name": "Hash", "type": "spin", "value": 64, "default": 16, "min": 1, "max": 1024}],
         "ponder": False, "whitepov": False, "restart": "auto", "timeoutScale": 1.5, "variants": ["standard"]},
        {"command": "nboard-mcts --move-ms 100", "name": "mcts", "protocol": "nboard",
         "initStrings": ["set depth 8", "set contempt 0"], "options": [], "restart": "on"},
        {"command": "./embryo", "name": "Embryo", "protocol": "renju", "ponder": True},
        {"command": "stockfish", "name": "Stockfish 16", "protocol": "uci",
         "options": [{"name": "Threads", "type": "spin", "value": 2}], "initStrings": ["setoption name Hash value 64"]},
        {"command": "crafty", "name": "Crafty", "protocol": "xboard", "whitepov": True},
    ]
    path = tmp_path / "engines.json"
    path.write_text(json.dumps(entries, indent=4))
    return path


def test_a_cutechess_engines_file_is_read_with_one_warning(tmp_path):
    warned = []
    known = load_engines_file(str(cutechess_file(tmp_path)), warn=warned.append)
    assert warned == [f"referee: --engines {tmp_path / 'engines.json'}: ignored what has no meaning here: "
                      "options, ponder, restart, timeoutScale, variants, whitepov"]
    rapfi, embryo = engine_specs(["Rapfi 3k", "Embryo"], known=known)
    assert rapfi.argv == ("./pbrain-rapfi", "--quiet") and (rapfi.label, rapfi.named) == ("Rapfi 3k", True)
    assert (rapfi.cwd, rapfi.stderr_file, rapfi.protocol) == (str(tmp_path), str(tmp_path / "rapfi.err"), "gomocup")
    assert rapfi.init == ("INFO max_node 3000", "INFO caution_factor 3") and rapfi.info == ()
    assert (embryo.protocol, embryo.init, embryo.stderr_file) == ("gomocup", (), None)  # renju implies Gomocup
    mcts, = engine_specs(["mcts"], known=known, game="reversi")
    assert (mcts.argv, mcts.protocol, mcts.init) == (("nboard-mcts", "--move-ms", "100"), "nboard",
                                                     ("set depth 8", "set contempt 0"))


@pytest.mark.parametrize("name,game,said", [
    ("Stockfish 16", "mnk", "engine 'Stockfish 16': protocol 'uci' is not one the referee speaks: "
                            "gomocup (m,n,k games) or nboard (reversi)"),
    ("Crafty", "reversi", "engine 'Crafty': protocol 'xboard' is not one the referee speaks"),
    ("mcts", "mnk", "engine 'mcts': it speaks nboard, the protocol of --game reversi; --game mnk engines speak gomocup"),
    ("Rapfi 3k", "reversi", "engine 'Rapfi 3k': it speaks gomocup, the protocol of --game mnk"),
])
def test_an_engine_of_another_protocol_is_refused_in_one_line(tmp_path, name, game, said):
    known = load_engines_file(str(cutechess_file(tmp_path)), warn=lambda line: None)
    with pytest.raises(ValueError) as info:
        engine_specs([name], known=known, game=game)
    assert str(info.value).startswith(said) and "\n" not in str(info.value)


def test_the_referee_refuses_a_uci_engine_with_one_line_and_warns_once(tmp_path, capsys):
    path = cutechess_file(tmp_path)
    with pytest.raises(SystemExit) as info:
        referee_main(["--engines", str(path), "Stockfish 16", "random"])
    err = capsys.readouterr().err.strip().splitlines()
    assert info.value.code == 2 and err[0].startswith(f"referee: --engines {path}: ignored")
    assert sum("ignored" in line for line in err) == 1 and err[-1] == ("referee: error: engine 'Stockfish 16': protocol 'uci' is not one the referee speaks: "
                      "gomocup (m,n,k games) or nboard (reversi)")


@pytest.mark.parametrize("settings,game,said", [
    ({"initstr": "START 15"}, "mnk", "init line 'START 15': a Gomocup engine is sent INFO KEY VALUE lines only"),
    ({"initstr": "INFO hash"}, "mnk", "INFO KEY VALUE lines only"),
    ({"initstr": "set game (;GM[Othello];)"}, "reversi", "set NAME VALUE lines only (set game is the referee's)"),
    ({"initstr": "go"}, "reversi", "set NAME VALUE lines only"),
    ({"stderr": "/nonexistent-dir/e.err"}, "mnk", "stderr file /nonexistent-dir/e.err: no directory /nonexistent-dir"),
    ({"stderr": "/"}, "mnk", "stderr file /: is a directory"),
    ({"proto": "usi"}, "mnk", "protocol 'usi' is not one the referee speaks"),
])
def test_init_lines_a_protocol_would_answer_and_bad_stderr_files_are_refused(settings, game, said):
    with pytest.raises(ValueError, match=re.escape(said)):
        engine_specs(["cmd=./x " + " ".join(f"{k}={shlex.quote(v)}" for k, v in settings.items())], game=game)


def test_initstr_on_the_command_line_takes_several_lines_and_toml_info_tables_are_read(tmp_path):
    spec, = engine_specs(["cmd=./x proto=Gomocup 'initstr=INFO a 1\\nINFO b two words'"])
    assert spec.init == ("INFO a 1", "INFO b two words") and spec.protocol == "gomocup"
    toml = tmp_path / "engines.toml"
    toml.write_text('[rapfi]\ncmd = "./rapfi"\nprotocol = "gomocup"\ninitStrings = ["INFO x 1"]\n'
                    'info.caution_factor = 3\n')
    rapfi, = engine_specs(["rapfi"], known=load_engines_file(str(toml), warn=pytest.fail))
    assert rapfi.info == (("caution_factor", "3"),) and rapfi.init == ("INFO x 1",)


def test_init_lines_are_sent_after_the_referees_settings():
    one = MockTransport("one", ignore=("INFO timeout", "INFO max_memory", "INFO game_type", "INFO rule",
                                       "INFO win_length", "INFO time_left"))
    one.expect("START 7", "OK").expect("INFO max_node 3000").expect("INFO caution_factor 3").expect(
        "ABOUT", 'name="Rapfi"').expect("BEGIN", "0,0")
    two = MockTransport("two", ignore=("INFO",))
    two.expect("START 7", "OK").expect("ABOUT", 'name="two"').expect("TURN 0,0", "no move")
    spec = EngineSpec.from_settings({"cmd": "./rapfi", "initstr": "INFO max_node 3000\nINFO caution_factor 3"})
    seats = [GomocupSeat(spec, transport=one), GomocupSeat(EngineSpec(("two",), "two"), transport=two)]
    play_game(seats, game=1, first=1, config=GameConfig(7, 7, 4), tc=TC)
    one.assert_done()
    black = MockTransport("black", end_line="quit")
    black.expect("nboard 2").expect("set depth 7").expect("set contempt 0").expect(
        re.compile(r"set game .*")).expect("ping 1", "pong 1")
    seat = NboardSeat(EngineSpec.from_settings({"cmd": "./edax", "depth": "7", "initstr": "set contempt 0"}),
                      transport=black)
    seat.launch(ReversiConfig(), TC)
    seat.finish_start(ReversiConfig(), TC)
    black.assert_done()


@pytest.mark.slow
def test_a_match_from_a_cutechess_file_writes_the_engines_stderr_file(tmp_path):
    err = tmp_path / "first.err"
    brain = fake_cmd("--name", "first")
    entries = [{"name": "first", "command": f"sh -c {shlex.quote('echo started >&2; exec ' + brain)}",
                "protocol": "gomocup", "stderrFile": str(err), "initStrings": ["INFO caution_factor 3"],
                "options": [], "whitepov": False},
               {"name": "second", "command": fake_cmd("--name", "second"), "protocol": "gomocup"}]
    path = tmp_path / "engines.json"
    path.write_text(json.dumps(entries))
    out = tmp_path / "m"
    p = subprocess.run([*REFEREE, "--engines", str(path), "--size", "7", "--win-length", "4", "--games", "2",
                        "--turn-ms", "500", "--tolerance-ms", "2000", "--out", str(out), "--quiet", "first", "second"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("ignored what has no meaning here: options, whitepov") == 1
    assert err.read_text().startswith("started")
    games = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(games) == 2 and {g["engine1"] for g in games} == {"first"}
