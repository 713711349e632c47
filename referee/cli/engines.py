"""The engines a ``referee`` command line names: plain command lines, ``KEY=VALUE`` settings
(``cmd=./rapfi name=rapfi-3k nodes=3000``), names from an engines file, and ``--each``.

An engines file keeps a user's engines in one place (``--engines FILE``), JSON or TOML by its
extension: a list of objects with a ``name`` (as cutechess's ``engines.json``; ``command`` and
``workingDirectory`` are read as ``cmd`` and ``dir``), or one table an engine keyed by its name
(TOML ``[rapfi-3k]``).  The settings are those of :mod:`referee.seats.spec`.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any, Iterable, Mapping

from referee.cli.argtypes import read_text_file
from referee.seats.spec import EngineSpec, settings_of

__all__ = ["load_engines_file", "engine_specs", "parse_each"]

#: cutechess's key names, read as ours.
_ALIASES = {"command": "cmd", "workingdirectory": "dir", "working_directory": "dir"}


def load_engines_file(path: str) -> dict[str, dict[str, str]]:
    """The engines of ``path`` by name; ``ValueError`` naming ``--engines`` and the file and
    saying what is wrong with it."""
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
    for entry in entries:
        settings = {_ALIASES.get(str(k).lower(), str(k).lower()): _text(v) for k, v in entry.items()}
        name = settings.get("name", "")
        if not name or "cmd" not in settings:
            raise ValueError(f"--engines {path}: every engine needs a name and a cmd (or command), got {dict(entry)}")
        out[name] = settings
    return out


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
            if game == "reversi" and any(key != "max_depth" for key, _ in spec.info):
                raise ValueError("nodes, threads and info.KEY are Gomocup INFO settings: an NBoard engine "
                                 "takes depth= (set depth) only")
            specs.append(spec)
        except ValueError as exc:
            raise ValueError(f"engine {text!r}: {exc}") from None
    return specs


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
