"""The referee's command-line value types: a bad value is one sentence naming what it should be."""

from __future__ import annotations

import pytest

from referee.cli.main import main as referee_main


@pytest.mark.parametrize("argv, said", [
    (["random", "random", "--seed", "abc"], "argument --seed: expected an integer, got 'abc'"),
    (["random", "random", "--send-delay-ms", "x"], "argument --send-delay-ms: expected a number, got 'x'"),
    (["random", "random", "--send-delay-ms", "-5"], "argument --send-delay-ms: must be >= 0, got -5"),
    (["random", "random", "--sprt", "0", "x"], "argument --sprt: expected a number, got 'x'"),
    (["random", "random", "--alpha", "nan"], "argument --alpha: expected a finite number, got 'nan'"),
    (["check", "--tolerance-ms", "soon", "x"], "argument --tolerance-ms: expected an integer, got 'soon'"),
    (["script", "--timeout-ms", "inf", "f", "x"], "argument --timeout-ms: expected a finite number, got 'inf'"),
])
def test_a_bad_number_is_one_sentence(argv, said, capsys):
    with pytest.raises(SystemExit) as exit_:
        referee_main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith(said), err


def test_good_numbers_still_parse():
    from referee.cli.argtypes import any_int, nonneg_ms, number

    assert any_int("-3") == -3 and number("2.5") == 2.5 and nonneg_ms("0.5") == 0.5
