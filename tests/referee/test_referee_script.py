"""``referee script``: the transcript parser and the runner, against a fake engine written by the tests."""

from __future__ import annotations

import sys
import time

import pytest

from referee.cli import script
from referee.conformance.script import Directive, Expect, Send, parse_script, run_script, transcript_game
from referee.errors import ScriptError
from support.scripted_brain import write_fake


@pytest.fixture
def fake(tmp_path):
    """argv of the fake brain (see test_referee_check.FAKE_SOURCE) with optional fault words."""
    path = write_fake(tmp_path)
    return lambda *faults: [sys.executable, str(path), *faults]


def run(text: str, argv, **kw):
    return run_script(parse_script(text), argv, default_timeout_ms=kw.pop("timeout", 5000), **kw)


# Parser ----------------------------------------------------------------------------------
def test_parse_every_kind_of_line():
    steps = parse_script("""
# comment
> START 15
<   OK
< move
< move 2000ms
< move in 7,7 8,8
< nothing
< nothing 150ms
< exit
< exit 2s
< any
< ERROR* | UNKNOWN*
< name="x", version="*"
! timeout 3s
! sleep 10ms
! crlf on
>
""")
    assert steps[0] == Send(3, "START 15")
    assert steps[1] == Expect(4, "line", patterns=("OK",), text="OK")
    kinds = [(s.kind, s.cells, s.timeout_ms) for s in steps[2:10]]
    assert kinds == [("move", (), None), ("move", (), 2000.0), ("move", ((7, 7), (8, 8)), None),
                     ("nothing", (), 300), ("nothing", (), 150.0), ("exit", (), 1000), ("exit", (), 2000.0),
                     ("any", (), None)]
    assert steps[10].patterns == ("ERROR*", "UNKNOWN*")
    assert steps[11].patterns == ('name="x", version="*"',)
    assert steps[12:15] == [Directive(15, "timeout", "3s"), Directive(16, "sleep", "10ms"),
                            Directive(17, "crlf", "on")]
    assert steps[15] == Send(18, "")


@pytest.mark.parametrize("text, line_no", [
    ("> START 15\nSTART 15\n", 2),
    ("<\n", 1),
    ("< move in\n", 1),
    ("< move at 7,7\n", 1),
    ("< move in 7;7\n", 1),
    ("< nothing soon\n", 1),
    ("! timeout fast\n", 1),
    ("! crlf maybe\n", 1),
    ("! colour red\n", 1),
    ("# ok\n\n! sleep\n", 3),
])
def test_parse_errors_name_the_line(text, line_no):
    with pytest.raises(ScriptError) as exc:
        parse_script(text, "t.txt")
    assert exc.value.line_no == line_no
    assert f"t.txt:{line_no}:" in str(exc.value)


# Runner ------------------------------------------------------------------------------------
GAME = """
> ABOUT
< name="fake", *
> ABOUT
< about
> START 15
< OK
> INFO timeout_turn 100
< nothing 100ms
> BEGIN
< move in 7,7
> TURN 0,0
< move
> TURN 0,0
< ERROR*
> FOO
< UNKNOWN* | ERROR*
> TAKEBACK 0,0
< OK
> TURN 0,0
< move
> RESTART
< OK
> TURN 7,7
< move
> END
< exit
"""


@pytest.mark.slow
def test_a_matching_session_holds(fake):
    res = run(GAME, fake())
    assert res.ok, res.failure
    assert res.held == sum(isinstance(s, Expect) for s in parse_script(GAME))


@pytest.mark.slow
def test_message_debug_and_trailing_text_are_skipped(fake):
    res = run(GAME, fake("chatty"))
    assert res.ok, res.failure


@pytest.mark.slow
def test_the_first_mismatch_is_reported_with_context(fake):
    text = "> START 15\n< OK\n> BEGIN\n< move in 0,0\n> END\n< exit\n"
    res = run(text, fake())
    assert not res.ok and res.held == 1 and res.failed_line == 4
    assert "7,7" in res.failure and "not one of the expected cells" in res.failure
    assert any("> BEGIN" in ln for ln in res.context) and any("< 7,7" in ln for ln in res.context)


@pytest.mark.slow
def test_move_must_be_legal_in_the_model(fake):
    # the model knows 7,7 is taken: a fake that answered 7,7 again would be caught;
    # here the BOARD fills the centre, so "move in 7,7" cannot hold
    text = "> START 15\n< OK\n> BOARD\n> 7,7,2\n> DONE\n< move in 7,7\n"
    res = run(text, fake())
    assert not res.ok and "not one of the expected cells" in res.failure


@pytest.mark.slow
def test_a_refused_start_does_not_change_the_board_model(fake):
    text = "> START 15\n< OK\n> START 99\n< ERROR*\n> TURN 14,14\n< move\n"
    res = run(text, fake())
    assert res.ok, res.failure


@pytest.mark.slow
def test_about_rejects_a_line_that_is_not_key_value_pairs(fake):
    res = run("> START 15\n< about\n", fake())
    assert not res.ok and "key=\"value\" pairs" in res.failure and "'OK'" in res.failure


@pytest.mark.slow
def test_nothing_fails_when_a_reply_comes(fake):
    res = run("> ABOUT\n< nothing 300ms\n", fake())
    assert not res.ok and "no reply for 300 ms" in res.failure and 'name="fake"' in res.failure


@pytest.mark.slow
def test_timeouts_are_honoured_for_a_silent_engine(fake):
    t0 = time.monotonic()
    res = run("> START 15\n< OK\n> BEGIN\n< move 300ms\n", fake("hang-BEGIN"))
    assert not res.ok and "nothing within" in res.failure
    assert time.monotonic() - t0 < 5


@pytest.mark.slow
def test_exit_fails_when_the_engine_stays(fake):
    res = run("> END\n< exit 300ms\n", fake("ignore-end"))
    assert not res.ok and "still running" in res.failure


@pytest.mark.slow
def test_crlf_directive_sends_cr_lf(fake):
    argv = fake("require-crlf")
    assert not run("> START 15\n< OK\n", argv).ok
    res = run("! crlf on\n> START 15\n< OK\n! crlf off\n> RESTART\n< ERROR*\n", argv)
    assert res.ok, res.failure


@pytest.mark.slow
def test_default_timeout_directive(fake):
    t0 = time.monotonic()
    res = run("! timeout 200ms\n> START 15\n< OK\n> BEGIN\n< move\n", fake("hang-BEGIN"))
    assert not res.ok and "within 200 ms" in res.failure
    assert time.monotonic() - t0 < 5


# Command line -------------------------------------------------------------------------------
@pytest.mark.slow
def test_main_exit_codes(fake, tmp_path, capsys):
    engine = " ".join(fake())
    good = tmp_path / "good.txt"
    good.write_text("> START 15\n< OK\n> END\n< exit\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("> START 15\n< ERROR*\n")
    broken = tmp_path / "broken.txt"
    broken.write_text("START 15\n")
    assert script.main([str(good), engine]) == 0
    assert "all 2 expectations held" in capsys.readouterr().out
    assert script.main([str(bad), engine]) == 1
    out = capsys.readouterr().out
    assert "bad.txt:2: expected" in out and "> START 15" in out and "< OK" in out
    assert script.main([str(broken), engine]) == 2
    assert "broken.txt:1:" in capsys.readouterr().err
    assert script.main([str(tmp_path / "missing.txt"), engine]) == 2
    assert script.main([str(good), str(tmp_path / "no-engine")]) == 2
    with pytest.raises(SystemExit):
        script.main([str(good)])


def test_a_transcript_of_the_other_protocol_is_refused_with_the_option_it_needs(fake, tmp_path, capsys):
    engine = " ".join(fake())
    nboard = tmp_path / "nboard.txt"
    nboard.write_text("# a comment first\n> nboard 2\n> ping 1\n< pong 1\n")
    assert script.main([str(nboard), engine]) == 2
    assert "an NBoard session: replay it with --game reversi" in capsys.readouterr().err
    gomocup = tmp_path / "gomocup.txt"
    gomocup.write_text("> START 15\n< OK\n")
    assert script.main(["--game", "reversi", str(gomocup), engine]) == 2
    assert "a Gomocup session: replay it with no --game reversi" in capsys.readouterr().err
    assert transcript_game(parse_script("> TURN 7,7\n< move\n")) is None  # a mid-game fragment
