"""The protocol programs' command-line errors: one sentence naming the option and what was
expected, never the name of the function that checked it."""

from __future__ import annotations

import pytest

from protocol.gomocup.cli import build_parser as pbrain_parser
from protocol.nboard.cli import build_parser as nboard_parser


def error_of(parser, argv, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(argv)
    assert exc.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    return lines[-1]


@pytest.mark.parametrize("argv,said", [
    (["--move-ms", "abc"], "argument --move-ms: expected a number of milliseconds >= 0, got 'abc'"),
    (["--move-ms", "inf"], "argument --move-ms: expected a number of milliseconds >= 0, got 'inf'"),
    (["--move-ms", "nan"], "argument --move-ms: expected a number of milliseconds >= 0, got 'nan'"),
    (["--move-ms", "-5"], "argument --move-ms: expected a number of milliseconds >= 0, got '-5'"),
    (["--max-nodes", "many"], "argument --max-nodes: expected a whole number, got 'many'"),
    (["--max-nodes", "0"], "argument --max-nodes: must be a positive integer, got 0"),
    (["--seed", "x"], "argument --seed: expected a whole number, got 'x'"),
])
def test_nboard_mcts_says_what_a_bad_value_should_be(argv, said, capsys):
    line = error_of(nboard_parser(), argv, capsys)
    assert line == f"nboard-mcts: error: {said}"


@pytest.mark.parametrize("argv,said", [
    (["--turn-ms", "abc"], "argument --turn-ms: expected a whole number, got 'abc'"),
    (["--turn-ms", "-1"], "argument --turn-ms: must be >= 0, got -1"),
    (["--win-length", "five"], "argument --win-length: expected a whole number, got 'five'"),
    (["--max-playouts", "1.5"], "argument --max-playouts: expected a whole number, got '1.5'"),
    (["--threads", "0"], "argument --threads: must be a positive integer, got 0"),
    (["--seed", "x"], "argument --seed: expected a whole number, got 'x'"),
])
def test_pbrain_mcts_says_what_a_bad_value_should_be(argv, said, capsys):
    line = error_of(pbrain_parser(), argv, capsys)
    assert line == f"pbrain-mcts: error: {said}"


def test_good_values_still_parse():
    args = nboard_parser().parse_args(["--move-ms", "250.5", "--max-nodes", "9", "--seed", "-3"])
    assert (args.move_ms, args.max_nodes, args.seed) == (250.5, 9, -3)
    args = pbrain_parser().parse_args(["--turn-ms", "0", "--win-length", "4"])
    assert (args.turn_ms, args.win_length) == (0, 4)
