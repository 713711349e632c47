"""``referee check --game reversi``: the NBoard conformance suite against the fake NBoard engine,
well behaved and misbehaving (each fault shows up in the check that looks for it)."""

import io

import pytest

from support.fakes import assert_all_gone, nboard_cmd, read_pids
from referee.cli import check


def run(tmp_path, *opts, extra=()):
    pidfile = tmp_path / "pids"
    out = io.StringIO()
    rc = check.main(["--game", "reversi", "--turn-ms", "300", "--tolerance-ms", "500", "--start-ms", "1000",
                     *extra, nboard_cmd("--pidfile", str(pidfile), *opts)], out=out)
    assert_all_gone(read_pids(pidfile))
    lines = out.getvalue().splitlines()
    return rc, {ln.split()[1]: ln.split()[0] for ln in lines[:-1]}, out.getvalue()


def test_a_good_engine_passes_every_check(tmp_path):
    rc, status, text = run(tmp_path)
    assert rc == 0 and set(status.values()) == {"PASS"}, text
    assert {"nboard-ping", "forced-pass", "after-a-pass", "hint", "unknown-command", "quit", "move-eval-time",
            "clock-honoured", "binary-line", "malformed-set-game", "eof"} <= set(status)
    assert "=== PA" in text


@pytest.mark.parametrize("opts,failed", [
    pytest.param(("--no-pong",), "nboard-ping", marks=pytest.mark.slow),  # every wait runs out
    (("--pass-at", "1"), "go-start"),
    pytest.param(("--illegal-at", "1"), "go-start", marks=pytest.mark.slow),  # judged as --pass-at is
    pytest.param(("--garbage-at", "1"), "go-start", marks=pytest.mark.slow),
    (("--crash-at", "2"), "go-after-move-lines"),
    # 1 s of a 10 s clock is left (+0.5 s tolerance): an engine that plays its level regardless
    pytest.param(("--ignore-clock-ms", "2500"), "clock-honoured", marks=pytest.mark.slow),
])
def test_a_fault_fails_its_check(tmp_path, opts, failed):
    rc, status, text = run(tmp_path, *opts)
    assert rc == 1 and status[failed] == "FAIL", text
    if failed != "nboard-ping":
        assert status["nboard-ping"] == "PASS" and status["quit"] == "PASS", text  # the rest still runs


def test_the_list_names_the_nboard_checks():
    out = io.StringIO()
    assert check.main(["--game", "reversi", "--list"], out=out) == 0
    assert "forced-pass" in out.getvalue() and "about-first" not in out.getvalue()
