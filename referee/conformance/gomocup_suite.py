"""The checks of ``referee check``: short protocol sessions, each judged pass / fail / skip.

Checks are grouped; each group starts on a fresh engine process, and a check
that fails (or leaves the engine hung or dead) gets the next check a fresh
process too, so one fault never cascades.  The building blocks (:class:`Ctx`,
:class:`Fail`, :class:`Skip`, the registry) are in :mod:`referee.conformance.context`;
the checks in :mod:`.gomocup_protocol_checks` and :mod:`.gomocup_play_checks`.
"""

from __future__ import annotations

from referee.conformance import gomocup_play_checks, gomocup_protocol_checks  # noqa: F401 - registers them
from referee.conformance.context import GROUPS, Ctx, Fail, Options, Skip

__all__ = ["GROUPS", "Ctx", "Fail", "Options", "Skip"]

# Run order: detection first so that tactics for k != 5 know whether the engine follows it.
_ORDER = ["about", "start", "info", "moves", "errors", "crlf", "takeback", "win-length", "tactics", "clock", "end"]
GROUPS.sort(key=lambda g: _ORDER.index(g.name))
