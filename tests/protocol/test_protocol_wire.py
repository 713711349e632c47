"""The pure wire parser and formatters."""

from __future__ import annotations

import pytest

from protocol.gomocup import wire


@pytest.mark.parametrize(
    "line, expected",
    [
        ("START 15", wire.Start(15, 15)),
        ("start 20", wire.Start(20, 20)),
        ("RECTSTART 20,15", wire.Start(20, 15)),
        ("RECTSTART 20, 15", wire.Start(20, 15)),
        ("TURN 7,8", wire.Turn(7, 8)),
        ("turn  0,14 ", wire.Turn(0, 14)),
        ("TURN -1,3", wire.Turn(-1, 3)),  # range is the session's business
        ("PLAY 3,4", wire.Play(3, 4)),
        ("TAKEBACK 3,4", wire.Takeback(3, 4)),
        ("BOARD", wire.BlockStart("BOARD")),
        ("yxboard", wire.BlockStart("YXBOARD")),
        ("SWAP2BOARD", wire.BlockStart("SWAP2BOARD")),
        ("DONE", wire.Done()),
        ("INFO timeout_turn 1000", wire.Info("timeout_turn", "1000")),
        ("INFO TIMEOUT_MATCH  5000 ", wire.Info("timeout_match", "5000")),
        ("INFO folder C:\\My Folder", wire.Info("folder", "C:\\My Folder")),
        ("INFO evaluate", wire.Info("evaluate", "")),
        ("INFO", wire.Info("", "")),
        ("END", wire.End()),
        ("ABOUT", wire.About()),
        ("YXSTOP", wire.Stop()),
        ("yxnbest 3", wire.Analyse("nbest", 3)),
        ("YXNBEST", wire.Analyse("nbest", 1)),
        ("yxsearchdefend", wire.Analyse("defend", None)),
        ("yxbalanceone -40", wire.Analyse("balance1", 1, -40)),
        ("YXBALANCETWO 0", wire.Analyse("balance2", 1, 0)),
        ("yxshowinfo", wire.ShowInfo()),
        ("yxshowforbid", wire.ShowForbid()),
        ("yxhashclear", wire.Quiet("YXHASHCLEAR", "")),
        ("yxhashdump /tmp/a b", wire.Quiet("YXHASHDUMP", "/tmp/a b")),
        ("stop", wire.Stop()),
        ("RESTART", wire.Restart()),
        ("BEGIN", wire.Begin()),
    ],
)
def test_parse_valid(line, expected):
    assert wire.parse_command(line) == expected


@pytest.mark.parametrize(
    "line, prefix",
    [
        ("FOO", "UNKNOWN"),
        ("SUGGEST", "UNKNOWN"),
        ("YXNBEST x", "ERROR"),
        ("YXNBEST 0", "ERROR"),
        ("YXBALANCEONE one", "ERROR"),
        ("7,7", "UNKNOWN"),
        ("\x00\xff", "UNKNOWN"),
        ("START", "ERROR"),
        ("START x", "ERROR"),
        ("START 15 16", "ERROR"),
        ("RECTSTART 15", "ERROR"),
        ("TURN", "ERROR"),
        ("TURN 7", "ERROR"),
        ("TURN 7,", "ERROR"),
        ("TURN a,b", "ERROR"),
        ("TURN 7,8,9", "ERROR"),
        ("TURN 1.5,2", "ERROR"),
        ("TURN ７,８", "ERROR"),  # full-width digits are not ASCII integers
        ("BEGIN now", "ERROR"),
        ("TURN 99999999999999999999,1", "ERROR"),
    ],
)
def test_parse_invalid(line, prefix):
    with pytest.raises(wire.WireError) as info:
        wire.parse_command(line)
    assert info.value.reply.startswith(prefix + " ")
    assert "\n" not in info.value.reply


def test_quote_keeps_replies_short_and_printable():
    q = wire.quote("A" * 100_000 + "\x00")
    assert len(q) < 120 and "100001 chars" in q
    assert wire.quote("a\x00b\x1bc") == "'a?b?c'"


def test_board_line():
    assert wire.parse_board_line("7,8,1") == (7, 8, 1)
    assert wire.parse_board_line(" 7 , 8 , 2 ") == (7, 8, 2)
    for bad in ("7,8", "7,8,1,2", "a,b,c", ""):
        with pytest.raises(wire.WireError):
            wire.parse_board_line(bad)
    assert wire.looks_like_board_line("7,8,1") and not wire.looks_like_board_line("DONE")


def test_formatting():
    assert wire.format_move(3, 11) == "3,11"
    assert wire.message("a\nb  c") == "MESSAGE a b c"
    about = wire.format_about({"name": "x", "version": 'a"b'})
    assert about == 'name="x", version="a\'b"'
