"""How one side of a match is played: an engine's command line, a person, or the built-in random mover."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Sequence

__all__ = ["EngineSpec", "name_from_argv", "HUMAN", "RANDOM"]

HUMAN = "human"
RANDOM = "random"


@dataclass(frozen=True)
class EngineSpec:
    """One side: a command line (``argv``), or a built-in seat (``builtin``: ``human`` or ``random``).

    The protocol an engine speaks follows from the game (Gomocup for m,n,k, NBoard
    for Reversi), so it is not part of the spec.  An empty ``argv`` without a
    ``builtin`` means a person (the form older callers use).
    """

    argv: tuple[str, ...]
    label: str
    send_delay_ms: float = 0
    cwd: str | None = None
    builtin: str = ""

    def __post_init__(self) -> None:
        if not self.argv and not self.builtin:
            object.__setattr__(self, "builtin", HUMAN)

    @classmethod
    def parse(cls, text: str, *, send_delay_ms: float = 0) -> "EngineSpec":
        """``human`` (``human:NAME``), ``random``, or one command line (shlex-split, run without a shell)."""
        head, sep, name = text.strip().partition(":")
        if head.lower() == HUMAN:
            name = " ".join(name.split())
            if sep and not name:
                raise ValueError("human:NAME needs a name")
            return cls((), name[:40] if sep else HUMAN, 0, builtin=HUMAN)
        if text.strip().lower() == RANDOM:
            return cls((), RANDOM, 0, builtin=RANDOM)
        # A shell would expand a leading ~ in each word, but the engine string is quoted.
        argv = tuple(os.path.expanduser(w) if w.startswith("~") else w for w in shlex.split(text))
        if not argv:
            raise ValueError("empty engine command")
        return cls(argv, name_from_argv(argv), send_delay_ms)

    @property
    def is_human(self) -> bool:
        """A person at this terminal."""
        return self.builtin == HUMAN

    @property
    def is_process(self) -> bool:
        """An engine program the referee runs (not a built-in seat)."""
        return not self.builtin


def name_from_argv(argv: Sequence[str]) -> str:
    """A readable fallback name: the program's base name without ``pbrain-`` and extension;
    for ``python script.py`` / ``python -m module`` the script or module."""
    prog = os.path.basename(argv[0])
    if prog.startswith("python") and len(argv) > 1:
        rest = list(argv[1:])
        if rest[0] == "-m" and len(rest) > 1:
            return rest[1]
        for a in rest:
            if not a.startswith("-"):
                prog = os.path.basename(a)
                break
    stem, ext = os.path.splitext(prog)
    if ext.lower() in (".exe", ".py", ".sh", ".bat"):
        prog = stem
    if prog.lower().startswith("pbrain-") and len(prog) > 7:
        prog = prog[7:]
    return prog or "engine"
