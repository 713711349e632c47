"""Command-line value types shared by ``referee``, ``referee check`` and ``referee script``."""

from __future__ import annotations

import argparse
import shlex


def _int_at_least(text: str, least: int) -> int:
    # One check a bound, so a value below it always gets the message of the option's own bound.
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if v < least:
        raise argparse.ArgumentTypeError(f"must be >= {least}, got {v}")
    return v


def nonneg_int(text: str) -> int:
    """An integer >= 0 (argparse ``type=``)."""
    return _int_at_least(text, 0)


def positive_int(text: str) -> int:
    """An integer >= 1 (argparse ``type=``)."""
    return _int_at_least(text, 1)


def board_size(text: str) -> tuple[int, int]:
    """``N`` or ``WxH`` as ``(width, height)``; the board's own range is checked by ``GameConfig``."""
    t = text.lower().strip()
    try:
        w, h = t.split("x", 1) if "x" in t else (t, t)
        return positive_int(w), positive_int(h)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"size must be N or WxH, got {text!r}") from None


def plies_range(text: str) -> tuple[int, int]:
    """``N`` or ``LO-HI`` (stones of a random opening) as ``(lo, hi)`` with ``0 <= lo <= hi``."""
    t = text.strip()
    lo_text, sep, hi_text = t.partition("-")
    try:
        lo = nonneg_int(lo_text)
        hi = nonneg_int(hi_text) if sep else lo
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected N or LO-HI, got {text!r}") from None
    if hi < lo:
        raise argparse.ArgumentTypeError(f"LO must not exceed HI, got {text!r}")
    return lo, hi


def engine_command(text: str) -> list[str]:
    """One engine command line as one string, split as a shell would (run without one)."""
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"engine {text!r}: {exc}") from None
    if not argv:
        raise argparse.ArgumentTypeError("empty engine command line")
    return argv
