"""Our own brain (``python -m protocol.gomocup``) replayed through the transcripts in
``tests/transcripts`` and the README's session (``docs/sessions/pbrain.txt``).

The same files work against any Gomocup engine: ``referee script tests/transcripts/X.txt ENGINE``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.conformance.script import Expect, parse_script, run_script

TRANSCRIPTS = sorted((Path(__file__).resolve().parents[1] / "transcripts").glob("*.txt"))
# The README's typed session, kept as a script so that it keeps reproducing.
TRANSCRIPTS.append(Path(__file__).resolve().parents[2] / "docs" / "sessions" / "pbrain.txt")
BRAIN = [sys.executable, "-m", "protocol.gomocup"]
ROOT = str(Path(__file__).resolve().parents[2])


def test_the_transcripts_are_there():
    names = {p.stem for p in TRANSCRIPTS}
    assert {"full_game", "bad_input", "takeback_restart", "win_length", "crlf_end"} <= names


@pytest.mark.slow
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.stem)
def test_transcript(path):
    steps = parse_script(path.read_text(), str(path))
    # a generous default wait: 2 cores shared with other test runs
    res = run_script(steps, BRAIN, default_timeout_ms=15000, cwd=ROOT)
    context = "\n".join(res.context)
    assert res.ok, f"{path.name}:{res.failure}\n{context}"
    assert res.held == sum(isinstance(s, Expect) for s in steps)


# The README's NBoard session: nboard-mcts through `referee script --game reversi`.
NBOARD_SESSION = Path(__file__).resolve().parents[2] / "docs" / "sessions" / "nboard.txt"


@pytest.mark.slow
def test_the_nboard_session_replays():
    steps = parse_script(NBOARD_SESSION.read_text(), str(NBOARD_SESSION))
    res = run_script(steps, [sys.executable, "-m", "protocol.nboard"], default_timeout_ms=15000, cwd=ROOT,
                     game="reversi")
    assert res.ok, f"{res.failure}\n" + "\n".join(res.context)
    assert res.held == sum(isinstance(s, Expect) for s in steps) >= 10


def test_an_nboard_move_expectation_judges_the_move_in_the_position_sent():
    from support.fakes import nboard_argv

    script = "> nboard 2\n> set game (;GM[Othello]TY[8]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *];)\n> go\n< move\n"
    steps = parse_script(script)
    assert run_script(steps, nboard_argv("--seed", "1"), game="reversi").ok
    bad = run_script(steps, nboard_argv("--seed", "1", "--illegal-at", "1"), game="reversi")
    assert not bad.ok and "which is occupied" in bad.failure  # the fake's illegal answer, as a match judges it
