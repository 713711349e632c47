"""The NBoard wire format (pure): commands parsed, replies formatted, evals in discs."""

from __future__ import annotations

import math

import pytest

from protocol.nboard import wire
from protocol.nboard.discs import EVAL_SCALE, eval_discs, value_to_discs


def test_commands_parse_to_typed_values_case_insensitively():
    assert wire.parse_command("nboard 2") == wire.Hello("2")
    assert wire.parse_command("NBoard 1") == wire.Hello("1")
    assert wire.parse_command("set depth 12") == wire.SetDepth(12)
    assert wire.parse_command("  SET Depth  3 ") == wire.SetDepth(3)
    ggf = "(;GM[Othello]BO[8 " + "-" * 64 + " *];)"
    assert wire.parse_command(f"set game {ggf}") == wire.SetGame(ggf)
    assert wire.parse_command("set contempt -100") == wire.SetContempt(-100)
    assert wire.parse_command("move c3//") == wire.Move("c3//")
    assert wire.parse_command("move f5/0.00/1.5") == wire.Move("f5/0.00/1.5")
    assert wire.parse_command("go") == wire.Go()
    assert wire.parse_command("hint 4") == wire.Hint(4)
    assert wire.parse_command("hint") == wire.Hint(1)
    assert wire.parse_command("ping 17") == wire.Ping("17")
    assert wire.parse_command("quit") == wire.Quit()


def test_what_this_engine_does_not_do_is_ignored():
    for line, word in (("learn", "learn"), ("analyze", "analyze"), ("foo bar", "foo"), ("set myname x", "set myname"),
                       ("set", "set ")):
        assert wire.parse_command(line) == wire.Ignored(word)


@pytest.mark.parametrize("line, words", [
    ("set depth x", ["set depth", "integer", "'x'"]),
    ("set depth 0", ["set depth", "1 or more"]),
    ("set depth 99999999999999999", ["integer"]),
    ("set game", ["set game", "GGF"]),
    ("set contempt 1.5", ["set contempt", "integer"]),
    ("move", ["move wants a move"]),
    ("hint -2", ["hint", "1 or more"]),
    ("hint lots", ["hint", "integer"]),
    ("go\x00\x01", ["unreadable bytes"]),
    ("set game (;GM[\ufffd\ufffd];)", ["unreadable bytes"]),
])
def test_bad_arguments_and_binary_lines_are_refused_with_a_status(line, words):
    with pytest.raises(wire.WireError) as info:
        wire.parse_command(line)
    reply = info.value.reply
    assert reply.startswith("status ") and "\n" not in reply and all(w in reply for w in words), reply
    assert reply.isprintable() and len(reply) <= len("status ") + wire.STATUS_LIMIT


def test_hint_searches_are_interrupted_by_commands_that_make_them_stale():
    assert wire.command_word("SET GAME (;;)") == "set game" and wire.command_word("  ") == ""
    assert all(wire.interrupts(line) for line in ("set game (;;)", "move f5", "go", "hint 3", "quit"))
    assert not any(wire.interrupts(line) for line in ("ping 3", "set depth 4", "set contempt 0", "nboard 2", "learn"))


def test_replies_take_the_nboard_gui_forms():
    assert wire.move_reply("f5", 0.5, 1.234) == "=== F5/0.50/1.23"
    assert wire.move_reply("PA") == "=== PA"
    assert wire.move_reply("c3", None, 2.0) == "=== C3//2.00"
    assert wire.move_reply("c3", -0.001, -1) == "=== C3/0.00/0.00"  # never -0.00 or negative time
    assert wire.search_line(["F5", "d6", "C3"], 3.14159, "12") == "search F5D6C3 3.14 0 12"
    assert wire.nodestats(12345, 0.5) == "nodestats 12345 0.50"
    assert wire.pong("7") == "pong 7" and wire.pong("") == "pong"
    assert wire.myname("nboard-mcts") == "set myname nboard-mcts" and wire.myname("a b") == "set myname ab"
    assert wire.status("two\nlines\x00") == "status two lines"
    assert wire.status("x" * 1000).endswith("...") and len(wire.status("x" * 1000)) == len("status ") + wire.STATUS_LIMIT
    assert [wire.hint_depth(9, None, None), wire.hint_depth(9, "win", None), wire.hint_depth(9, "win", 4)] == \
        ["9", "100%W", "100%"]


def test_any_engines_move_line_is_read():
    assert wire.parse_engine_move("=== F5/0.50/1.23") == ("f5", 0.5, 1.23)
    assert wire.parse_engine_move("=== f5 -2.00 0.0") == ("f5", -2.0, 0.0)  # Edax
    assert wire.parse_engine_move("=== pa") == ("pa", None, None)
    assert wire.parse_engine_move("=== C3//2.5") == ("c3", None, 2.5)
    assert wire.parse_engine_move("=== e6/x") == ("e6", None, None)
    assert wire.parse_engine_move("status ===") is None and wire.parse_engine_move("===") is None


def test_evals_are_discs_for_the_side_to_move():
    from engine.reversi.evaluation.patternleaves import LEAF_SCALE
    assert EVAL_SCALE == LEAF_SCALE  # the eval shown is the margin the leaves predicted
    assert value_to_discs(0.5) == 0.0
    assert value_to_discs(0.75) == pytest.approx(EVAL_SCALE * math.log(3))
    assert value_to_discs(0.25) == pytest.approx(-value_to_discs(0.75))
    assert value_to_discs(1.0) == 64 and value_to_discs(0.0) == -64 and value_to_discs(1 - 1e-12) == 64
    assert value_to_discs(0.999999, area=36) == 36
    values = [value_to_discs(v / 100) for v in range(101)]
    assert values == sorted(values)
    # An exact margin wins; a proof without one shows the smallest margin of its result.
    assert eval_discs(0.9, "win", 12) == 12 and eval_discs(0.5, "draw", 0) == 0
    assert eval_discs(1.0, "win") == 2 and eval_discs(0.0, "loss") == -2 and eval_discs(0.5, "draw") == 0
    assert eval_discs(0.75) == value_to_discs(0.75)
