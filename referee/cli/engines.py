"""The engines a ``referee`` command line names: plain command lines, ``KEY=VALUE`` settings
(``cmd=./rapfi name=rapfi-3k nodes=3000``), names from an engines file, and ``--each``.

An engines file keeps a user's engines in one place (``--engines FILE``), JSON or TOML by its
extension: a list of objects with a ``name``, or one table an engine keyed by its name (TOML
``[rapfi-3k]``).  The settings are those of :mod:`referee.seats.spec`.  A cutechess
``engines.json`` is read as it is: ``command``, ``workingDirectory``, ``stderrFile``,
``protocol`` and ``initStrings`` (a list of lines) are read as ``cmd``, ``dir``, ``stderr``,
``proto`` and ``initstr``; its keys that mean nothing here (``options``, ``ponder``,
``whitepov``, ...) are ignored with one warning line.  A protocol the referee does not speak
(``uci``) is refused when that engine is used.
"""

from __future__ import annotations

import json
import sys
import tomllib
from typing import Any, Callable, Iterable, Mapping

from referee.cli.argtypes import read_text_file
from referee.seats.spec import SETTING_KEYS, EngineSpec, settings_of

__all__ = ["load_engines_file", "engine_specs", "parse_each"]

#: cutechess's key names, read as ours.
_ALIASES = {"command": "cmd", "workingdirectory": "dir", "working_directory": "dir", "stderrfile": "stderr",
            "protocol": "proto", "initstrings": "initstr"}


def load_engines_file(path: str, warn: Callable[[str], None] | None = None) -> dict[str, dict[str, str]]:
    """The engines of ``path`` by name; ``ValueError`` naming ``--engines`` and the file and
    saying what is wrong with it.  Keys that mean nothing here are left out and named in one
    line given to ``warn`` (default: printed on stderr)."""
    try:
        text = read_text_file(path)
    except ValueError as exc:
        raise ValueError(f"--engines {exc}") from None
    toml = path.lower().endswith(".toml")
    try:
        data: Any = tomllib.loads(text) if toml else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"--engines {path}: not valid {'TOML' if toml else 'JSON'} ({exc})") from None
    if isinstance(data, Mapping) and isinstance(data.get("engine"), list):
        data = data["engine"]  # TOML's [[engine]] tables
    entries = [{**v, "name": v.get("name", k)} for k, v in data.items() if isinstance(v, Mapping)] \
        if isinstance(data, Mapping) else data
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
        raise ValueError(f"--engines {path}: expected a list of engines, or one table an engine")
    out: dict[str, dict[str, str]] = {}
    ignored: set[str] = set()
    for no, entry in enumerate(entries, 1):
        settings = {}
        for key, value in _flat(entry):
            ours = _ALIASES.get(key.lower(), key.lower())
            if ours in SETTING_KEYS or ours.startswith("info."):
                settings[ours] = _text(value)
            else:
                ignored.add(key)
        name = settings.get("name", "")
        if not name or "cmd" not in settings:
            raise ValueError(f"--engines {path}: engine {no} ({name or 'no name'}) needs a name and a "
                             "command (cmd)")
        out[name] = settings
    if ignored:
        (warn or _warn)(f"referee: --engines {path}: ignored what has no meaning here: {', '.join(sorted(ignored))}")
    return out


def _flat(entry: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """An entry's keys and values, a TOML ``info`` table (``info.hash = 64``) as ``info.KEY`` keys."""
    out: list[tuple[str, Any]] = []
    for key, value in entry.items():
        key = str(key)
        if key.lower() == "info" and isinstance(value, Mapping):
            out += [(f"info.{k}", v) for k, v in value.items()]
        else:
            out.append((key, value))
    return out


def _warn(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def parse_each(words: Iterable[str]) -> dict[str, str]:
    """``--each KEY=VALUE`` words as settings."""
    out = {}
    for w in words:
        key, sep, value = w.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--each takes KEY=VALUE, got {w!r}")
        out[key.strip().lower()] = value
    return out


def engine_specs(texts: Iterable[str], *, known: Mapping[str, Mapping[str, str]] = {}, each: Mapping[str, str] = {},
                 send_delay_ms: float = 0, game: str = "mnk") -> list[EngineSpec]:
    """The engines named by ``texts``: a name from the engines file (``known``), ``KEY=VALUE``
    settings starting with ``cmd=``, ``human``/``random``, or a plain command line; ``each``
    gives every engine program the settings it does not set itself.  ``ValueError`` naming the
    engine and what is wrong."""
    specs = []
    for text in texts:
        try:
            settings = dict(known[text]) if text in known else settings_of(text)
            if settings is None and not each:
                specs.append(EngineSpec.parse(text, send_delay_ms=send_delay_ms))
                continue
            if settings is None:
                plain = EngineSpec.parse(text, send_delay_ms=send_delay_ms)
                if not plain.is_process:
                    specs.append(plain)
                    continue
                settings = {"cmd": text}
            spec = EngineSpec.from_settings({**each, **settings}, send_delay_ms=send_delay_ms)
            spec.check_game(game)
            specs.append(spec)
        except ValueError as exc:
            raise ValueError(f"engine {text!r}: {exc}") from None
    return specs


def _text(value: Any) -> str:
    if isinstance(value, list):  # initStrings: one line each
        return "\n".join(_text(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)
