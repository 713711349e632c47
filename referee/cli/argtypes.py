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


def any_int(text: str) -> int:
    """Any integer, e.g. a seed (argparse ``type=``)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def number(text: str) -> float:
    """A finite number (argparse ``type=``): Elo bounds, SPRT rates."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def nonneg_ms(text: str) -> float:
    """Milliseconds >= 0, fractions allowed (argparse ``type=``)."""
    v = number(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
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


#: The largest engines or openings file read.
MAX_TEXT_FILE_BYTES = 64 << 20


def read_text_file(path: str) -> str:
    """The text of a file named on the command line (an engines or openings file);
    ``ValueError`` saying in one phrase, after ``path:``, why it cannot be read (missing,
    a directory, not readable, or not text: binary data or not UTF-8)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT_FILE_BYTES + 1)  # bounded: /dev/zero must not fill the memory
    except OSError as exc:
        raise ValueError(f"{path}: {(exc.strerror or str(exc)).lower()}") from None
    if len(data) > MAX_TEXT_FILE_BYTES:
        raise ValueError(f"{path}: larger than {MAX_TEXT_FILE_BYTES >> 20} MB, too large for an engines or openings file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = ""
    if "\0" in text or (data and not text):
        raise ValueError(f"{path}: not a text file (binary data or not UTF-8)")
    return text
