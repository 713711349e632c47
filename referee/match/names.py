"""Unique engine names in a match: two engines never share a name in its records.

Rating tools (BayesElo, Ordo) and viewers take a player for its name, so two engines of one
name would be merged into one player (as cutechess and fastchess, the referee requires names
to differ).  Engines that would share a name are told apart by the words in which their
command lines differ (``pbrain-mcts`` and ``pbrain-mcts --mode uct``); where no word differs
(the same command twice, two random movers), the second is ``NAME#2``, the third ``NAME#3``.
A person keeps the name given.
"""

from __future__ import annotations

from typing import Sequence

from referee.seats.spec import EngineSpec

__all__ = ["unique_names", "MAX_NAME"]

#: A name longer than this is not made from command-line words (``#2`` is used instead).
MAX_NAME = 60


def unique_names(specs: Sequence[EngineSpec], names: Sequence[str]) -> list[str]:
    """``names`` (each engine's, in ``specs`` order) with every name shared by engines made
    unique (see the module docstring); a name no other engine has is kept."""
    out = list(names)
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        if not specs[i].is_human:
            groups.setdefault(name, []).append(i)
    for name, members in groups.items():
        if len(members) < 2:
            continue
        argvs = [specs[i].argv for i in members]
        common = set(argvs[0]).intersection(*map(set, argvs[1:]))
        for i, argv in zip(members, argvs):
            words = _distinguishing_words(argv, common)
            longer = f"{name} {' '.join(words)}"
            if words and len(longer) <= MAX_NAME:
                out[i] = longer
    taken = set(out)
    seen: dict[str, int] = {}
    for i, name in enumerate(out):
        if specs[i].is_human:  # (a person's name is kept: an engine of that name is renamed)
            seen[name] = 1
    for i, name in enumerate(list(out)):
        if specs[i].is_human:
            continue
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1:
            continue
        k = seen[name]
        while f"{name}#{k}" in taken:
            k += 1
        out[i] = f"{name}#{k}"
        taken.add(out[i])
    return out


def _distinguishing_words(argv: Sequence[str], common: set[str]) -> list[str]:
    """The words of ``argv`` not in ``common``, each value with the option before it
    (``--mode uct`` where only ``uct`` differs)."""
    keep: set[int] = set()
    for k, word in enumerate(argv):
        if word in common:
            continue
        keep.add(k)
        if k > 0 and not word.startswith("-") and argv[k - 1].startswith("-"):
            keep.add(k - 1)
    return [argv[k] for k in sorted(keep)]
