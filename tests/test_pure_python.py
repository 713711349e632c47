"""The engine without its C extension: the fast tests of the engine and the brain's state
machine, run again with ``MNK_PURE_PYTHON=1`` (an install without a compiler gets these
paths; nothing else guards them).  One slow test that runs pytest in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SUBSET = [
    "test_rules.py", "test_search_mcts.py", "test_mnk_tree.py", "test_api.py", "test_threats.py",
    "test_tactics.py", "test_shapes.py", "test_rollout.py", "test_roottactics.py", "test_tictactoe.py",
    "test_reversi_rules.py", "test_reversi_solver.py", "test_reversi_kernel.py", "test_reversi_search.py",
    "test_reversi_ggf.py", "test_protocol_session.py",
]


@pytest.mark.slow
def test_the_fast_engine_tests_pass_without_the_c_extension():
    env = {**os.environ, "MNK_PURE_PYTHON": "1"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider",
                          *(str(next(HERE.rglob(name))) for name in SUBSET)],
                         cwd=HERE.parent, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout.splitlines()[-1]
