"""The tactical positions the tests use, copied into the repository (tests/data/) from the
team's shared set: 72 puzzles with exact answer sets (see tests/data/README.md)."""

from pathlib import Path

TACTICS = Path(__file__).resolve().parents[1] / "data" / "tactics.txt"
