"""``referee``: the entry point.  ``referee check ...``, ``referee script ...``, ``referee report ...``
and ``referee summary ...`` go to their commands (:mod:`referee.cli.check`, :mod:`referee.cli.script`,
:mod:`referee.cli.report_page`, :mod:`referee.cli.summary`); anything else is a match
(:mod:`referee.cli.match`)."""

from __future__ import annotations

import importlib
import sys
from typing import Sequence

__all__ = ["main", "SUBCOMMANDS"]

#: The subcommands and their modules, imported only when used (a match needs neither).
SUBCOMMANDS = {"check": "referee.cli.check", "script": "referee.cli.script", "report": "referee.cli.report_page",
               "summary": "referee.cli.summary"}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``referee`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = SUBCOMMANDS.get(argv[0]) if argv else None
    if command is not None:
        return int(importlib.import_module(command).main(argv[1:]) or 0)
    from referee.cli import match

    return match.main(argv)


if __name__ == "__main__":
    sys.exit(main())
