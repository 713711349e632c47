"""Command-line pieces both protocol programs share: number types (whose errors say what
was expected, not the type function's name), ``--engine-option
KEY=VALUE``, ``--list-options``, and what they say about the C extension.

Nothing here imports the engine at import time (start-up stays fast); the option
listing and the check of the factory's options import it when they run.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from engine.version import package_version  # noqa: F401 - the programs take it from here


def add_version(parser: argparse.ArgumentParser, describe: Callable[[], str]) -> None:
    """``--version``: print ``describe()`` and exit; it runs only when asked, so that the
    imports it needs (the engine's C extension check) do not slow every start."""

    class Version(argparse.Action):
        def __init__(self, option_strings, dest, **kwargs):
            super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                             help="show the version and whether the C extension is in use, and exit")

        def __call__(self, parser, namespace, values, option_string=None):
            print(describe())
            parser.exit()

    parser.add_argument("--version", action=Version)


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def integer(text: str) -> int:
    """An argparse type: any whole number (a seed)."""
    return _whole(text)


def positive(text: str) -> int:
    """An argparse type: an integer >= 1."""
    value = _whole(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def non_negative(text: str) -> int:
    """An argparse type: an integer >= 0."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def milliseconds(text: str) -> float:
    """An argparse type: a time in milliseconds, a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of milliseconds >= 0, got {text!r}")
    return value


def engine_option(text: str) -> tuple[str, str]:
    """An argparse type: ``KEY=VALUE`` as ``(key, value)``; the key is checked against the
    engine's keys at start-up (:func:`check_options`)."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"want KEY=VALUE, got {text!r} (--list-options shows the keys)")
    return key.strip(), raw


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--engine-option KEY=VALUE`` (repeatable) and ``--list-options``."""
    parser.add_argument("--engine-option", type=engine_option, action="append", default=[], metavar="KEY=VALUE",
                        help="set an engine option (repeatable); --list-options shows the keys")
    parser.add_argument("--list-options", action="store_true", help="list the engine option keys and exit")


def list_options(game: Any, mode: str, has_mode_option: bool = True) -> int:
    """Print every engine option key of ``game``'s engine with its value in preset ``mode``.
    ``has_mode_option``: the program has a ``--mode`` choosing the preset (else ``mode`` is
    its one preset and the values are called its defaults)."""
    from engine.api import option_keys, options_for

    values = f"their values in --mode {mode}" if has_mode_option else "their default values"
    print(f"engine option keys (--engine-option KEY=VALUE; a unique last part such as 'exploration' "
          f"also works), with {values}:")
    for key, kind, value in option_keys(options_for(game, mode)):
        print(f"  {key:<28} {kind:<10} {value}")
    return 0


def check_options(factory: Any, prog: str) -> bool:
    """Does the engine accept the factory's mode and options?  If not, say why on stderr
    (with the valid keys) and return False, so that a misspelt option fails at start-up,
    not mid-game."""
    try:
        factory.check()
    except (ValueError, ImportError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return False
    return True


def warn_without_c_extension(prog: str, game: Any) -> None:
    """Once at start-up, on stderr, when ``game``'s engine runs without its C code: why
    (switched off, or not built: then how to get it) and what it costs
    (:func:`engine.api.native_note`).  Nothing when the C code is in use."""
    from engine.api import native_built, native_code, native_note

    if native_code(game):
        return
    how = "" if native_built(game) else " (reinstall where a C compiler and the Python headers are present)"
    print(f"{prog}: {native_note(game)}{how}", file=sys.stderr, flush=True)
