"""Engine options set by key from text: one implementation for every game's options.

A game's options are a frozen dataclass whose fields are plain values (bool, int, float,
an enum, an optional int) or groups (nested frozen dataclasses).  A key is the dotted
path of a plain field (``tree.exploration``), or its last part alone where that is unique
(``exploration``).  Text values are converted to the field's type; a bad key or value is
a ``ValueError`` that says what was expected and lists the keys.
"""

from __future__ import annotations

import enum
import typing
from dataclasses import fields, is_dataclass, replace
from typing import Any

#: A key's type as listed for users.
_NAMES = {bool: "bool", int: "int", float: "float", str: "str"}


def _kinds(cls: type) -> dict[str, Any]:
    """Each field's type (``(int, None)`` stands for ``int | None``)."""
    hints = typing.get_type_hints(cls)
    out = {}
    for f in fields(cls):
        kind = hints[f.name]
        args = typing.get_args(kind)
        if args and type(None) in args:
            rest = [a for a in args if a is not type(None)]
            kind = (rest[0], None) if len(rest) == 1 else None
        out[f.name] = kind
    return out


def _plain(kind: Any) -> bool:
    base = kind[0] if isinstance(kind, tuple) else kind
    return base in _NAMES or (isinstance(base, type) and issubclass(base, enum.Enum))


def _walk(options: Any, prefix: str = ""):
    """``(dotted key, kind, current value)`` of every plain field, groups first-level deep."""
    kinds = _kinds(type(options))
    for f in fields(options):
        value = getattr(options, f.name)
        if is_dataclass(value):
            yield from _walk(value, f"{prefix}{f.name}.")
        elif _plain(kinds[f.name]):
            yield f"{prefix}{f.name}", kinds[f.name], value


def _kind_name(kind: Any) -> str:
    base = kind[0] if isinstance(kind, tuple) else kind
    if isinstance(base, type) and issubclass(base, enum.Enum):
        name = "|".join(str(m.value) for m in base)
    else:
        name = _NAMES[base]
    return name + "|none" if isinstance(kind, tuple) else name


def option_keys(options: Any) -> list[tuple[str, str, Any]]:
    """Every settable key of ``options`` as ``(dotted key, type name, current value)``."""
    return [(key, _kind_name(kind), value.value if isinstance(value, enum.Enum) else value)
            for key, kind, value in _walk(options)]


def resolve(key: str, known: list[str]) -> str:
    """The dotted key ``key`` names: itself, or the one key whose last part it is;
    ``ValueError`` listing the keys otherwise."""
    k = str(key).strip().replace("-", "_")
    if k in known:
        return k
    matches = [name for name in known if name.split(".")[-1] == k]
    if len(matches) == 1:
        return matches[0]
    hint = f" (ambiguous: {', '.join(sorted(matches))})" if matches else ""
    raise ValueError(f"unknown engine option {key!r}{hint}; valid keys: {', '.join(sorted(known))}")


def convert(key: str, raw: Any, kind: Any) -> Any:
    """``raw`` (text or a value) as ``kind``; ``ValueError`` says what was expected."""
    optional = isinstance(kind, tuple)
    base = kind[0] if optional else kind
    if not isinstance(raw, str):
        if raw is None and optional:
            return None
        if base is float and isinstance(raw, int) and not isinstance(raw, bool):
            return float(raw)
        if isinstance(base, type) and issubclass(base, enum.Enum):
            raw = str(raw.value if isinstance(raw, enum.Enum) else raw)
        else:
            return raw
    text = raw.strip().lower()
    try:
        if optional and text == "none":
            return None
        if base is bool:
            if text in ("true", "1", "yes", "on"):
                return True
            if text in ("false", "0", "no", "off"):
                return False
            raise ValueError
        if base is int:
            return int(text)
        if base is float:
            return float(text)
        if base is str:
            return raw.strip()
        if issubclass(base, enum.Enum):
            return base(text)
    except ValueError:
        pass
    want = {bool: "true or false", int: "an integer", float: "a number", str: "text"}.get(base)
    if want is None:
        want = " or ".join(str(m.value) for m in base)
    if optional:
        want += " or none"
    raise ValueError(f"{key}: want {want}, got {raw!r}")


def with_values(options: Any, values: dict[str, Any]) -> Any:
    """A copy of ``options`` with ``values`` set by key (see the module doc); the
    dataclasses' own checks run on the result."""
    kinds = {key: kind for key, kind, _ in _walk(options)}
    for key, raw in values.items():
        path = resolve(key, list(kinds)).split(".")
        value = convert(key, raw, kinds[".".join(path)])
        try:
            options = _replace_path(options, path, value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{key}: {exc}") from None
    return options


def _replace_path(obj: Any, path: list[str], value: Any) -> Any:
    if len(path) == 1:
        return replace(obj, **{path[0]: value})
    return replace(obj, **{path[0]: _replace_path(getattr(obj, path[0]), path[1:], value)})
