"""Where the team's shared tactical positions live: ``shared/`` beside the repository
(as on the developers' machines and in CI).  Tests that need them skip when absent."""

from pathlib import Path

TACTICS = Path(__file__).resolve().parents[2] / "shared" / "positions" / "tactics.txt"
