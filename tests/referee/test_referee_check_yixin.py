"""``referee check --yixin``: Yixin-Board's extensions judged as that GUI needs them.

Our brain passes every check of the section; a plain Gomocup engine (the suite's scripted
fake, which knows none of the extensions) fails them, so the checks can fail.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from support.scripted_brain import write_fake
from referee.cli import check
from referee.conformance.gomocup_suite import Options
from referee.conformance.gomocup_yixin_checks import YIXIN_GROUPS

ROOT = Path(__file__).resolve().parents[2]
YIXIN_CHECKS = [c.name for g in YIXIN_GROUPS for c in g.checks]
OPTS = dict(turn_ms=300, tolerance_ms=3000, quiet_ms=200, exit_ms=2000, start_ms=8000)


def run(argv: list[str]) -> dict[str, str]:
    results = check.run_checks(Options(argv=argv, **OPTS), groups=YIXIN_GROUPS)
    return {r.name: (r.status, check.format_result(r)) for r in results}


@pytest.mark.slow
def test_our_brain_passes_the_yixin_section(monkeypatch):
    monkeypatch.chdir(ROOT)
    got = run([sys.executable, "-m", "protocol.gomocup"])
    assert list(got) == YIXIN_CHECKS
    bad = [text for status, text in got.values() if status != "pass"]
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_a_plain_gomocup_engine_fails_it(tmp_path):
    got = run([sys.executable, str(write_fake(tmp_path))])
    for name in ("yixin-showinfo", "yixin-nbest", "yixin-defend", "yixin-balance", "yixin-renju-forbid"):
        assert got[name][0] == "fail", got[name][1]


def test_the_section_is_listed_only_when_asked():
    plain, yixin = io.StringIO(), io.StringIO()
    assert check.main(["--list"], out=plain) == 0
    assert check.main(["--list", "--yixin"], out=yixin) == 0
    assert "yixin-nbest" not in plain.getvalue()
    assert all(name in yixin.getvalue() for name in YIXIN_CHECKS)
