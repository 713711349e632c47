"""Parsing engine replies and formatting commands."""

import pytest

from referee.seats.spec import EngineSpec, name_from_argv
from referee.engines.gomocup_wire import board_block, looks_like_about, parse_about, parse_move, start_command


@pytest.mark.parametrize("line,move", [
    ("7,7", (7, 7)), (" 10 , 3 ", (10, 3)), ("9,11\tValue: 0.53", (9, 11)), ("9,11 pv 3,3", (9, 11)),
    ("-1,4", (-1, 4)), ("99,0", (99, 0)),
    ("9,11,3", None), ("9,1x", None), ("7", None), ("OK", None), ("ERROR x", None), ("", None),
    ("a,b", None), ("MESSAGE 7,7", None), ("1234567890,1", None),
])
def test_parse_move(line, move):
    assert parse_move(line) == move


def test_about():
    line = 'name="Rapfi 2024", version="1.0", author="x", country="CN"'
    assert parse_about(line) == {"name": "Rapfi 2024", "version": "1.0", "author": "x", "country": "CN"}
    assert looks_like_about(line) and not looks_like_about("7,7")
    assert parse_about("UNKNOWN ABOUT") == {}


def test_commands():
    assert start_command(15, 15) == "START 15" and start_command(20, 15) == "RECTSTART 20,15"
    assert board_block([(1, 2, 1), (3, 4, 2)]) == ["BOARD", "1,2,1", "3,4,2", "DONE"]


def test_engine_spec_and_fallback_names():
    spec = EngineSpec.parse("'/opt/my engines/pbrain-rapfi.exe' --config 'a b.toml'", send_delay_ms=30)
    assert spec.argv == ("/opt/my engines/pbrain-rapfi.exe", "--config", "a b.toml")
    assert spec.label == "rapfi" and spec.send_delay_ms == 30
    assert EngineSpec.parse("HUMAN").is_human
    assert name_from_argv(["/usr/bin/python3", "-m", "protocol"]) == "protocol"
    assert name_from_argv(["python", "-u", "tests/support/fake_brain.py"]) == "fake_brain"
    with pytest.raises(ValueError):
        EngineSpec.parse("   ")


@pytest.mark.parametrize("line,info", [
    ("MESSAGE 7,7 is good", True), ("DEBUG x", True), ("", True), ("  ", True),
    ("7,7", False), ("OK", False), ("MESSAGES", False), ("ERROR bad", False),
])
def test_is_info_line(line, info):
    from referee.engines.gomocup_wire import is_chatter as is_info_line

    assert is_info_line(line) is info
