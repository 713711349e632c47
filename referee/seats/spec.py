"""How one side of a match is played: an engine's command line and its own settings, a person, or
the built-in random mover.

An engine's settings, as ``KEY=VALUE`` words (``cmd=./rapfi name=rapfi-3k nodes=3000``) on the
command line, in an engines file or in ``--each``:

- ``cmd`` the command line (split like a shell would), ``name`` the name shown and recorded
  (instead of what the engine calls itself), ``dir`` its working directory, ``stderr`` a file
  its stderr is appended to (when ``--log-io`` does not keep it per game);
- ``proto`` the protocol it speaks, ``gomocup`` or ``nboard`` (or a game that implies one:
  ``gomoku``, ``renju``, ``reversi``, ``othello``); it must be the game's, and without it the
  game's is assumed;
- ``initstr`` lines sent after its start, separated by ``\\n`` (Gomocup: ``INFO KEY VALUE``;
  NBoard: ``set NAME VALUE``), as cutechess's ``initstr``;
- ``turn_ms`` and ``match_ms`` its own clock (time odds), ``send_delay_ms``;
- ``nodes``, ``depth``, ``threads``: Gomocup's ``INFO max_node``, ``INFO max_depth`` and
  ``INFO thread_num`` (for an NBoard engine ``depth`` is ``set depth``);
- ``info.KEY`` any other ``INFO KEY VALUE`` line (Gomocup).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from referee.games.clock import TimeControl

__all__ = ["EngineSpec", "name_from_argv", "settings_of", "protocol_of", "HUMAN", "RANDOM", "SETTING_KEYS",
           "GAME_PROTOCOLS"]

HUMAN = "human"
RANDOM = "random"

#: The protocol a game's engines speak, by the referee's game type.
GAME_PROTOCOLS = {"mnk": "gomocup", "reversi": "nboard"}

#: ``proto`` values: a protocol's names, and games that imply it.
_PROTOCOL_NAMES = {"gomocup": "gomocup", "pbrain": "gomocup", "piskvork": "gomocup", "gomoku": "gomocup",
                   "renju": "gomocup", "mnk": "gomocup", "nboard": "nboard", "reversi": "nboard",
                   "othello": "nboard"}


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
    #: The ``label`` was given (``name=``): an engine's own name does not replace it.
    named: bool = False
    #: ``INFO KEY VALUE`` lines sent to a Gomocup engine at each start, after the referee's own.
    info: tuple[tuple[str, str], ...] = ()
    #: This engine's own clock (time odds); ``None``: the match's.
    turn_ms: int | None = None
    match_ms: int | None = None
    #: An NBoard engine's ``set depth`` (``None``: not sent).
    nboard_depth: int | None = None
    #: The protocol it was said to speak (``gomocup``, ``nboard``; ``""``: the game's).
    protocol: str = ""
    #: Lines sent after its start (``initstr``), after the referee's own settings.
    init: tuple[str, ...] = ()
    #: A file its stderr is appended to (``None``: the referee's choice).
    stderr_file: str | None = None

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

    @classmethod
    def from_settings(cls, settings: Mapping[str, str], *, send_delay_ms: float = 0) -> "EngineSpec":
        """An engine from its ``KEY=VALUE`` settings (see the module docstring); ``ValueError``
        naming a bad key or value."""
        unknown = sorted(k for k in settings if k not in SETTING_KEYS and not k.startswith("info."))
        if unknown:
            raise ValueError(f"unknown engine setting {unknown[0]!r} (known: {', '.join(SETTING_KEYS)}, info.KEY)")
        cmd = settings.get("cmd", "")
        spec = cls.parse(cmd, send_delay_ms=_number(settings, "send_delay_ms", send_delay_ms))
        if not spec.is_process:
            raise ValueError(f"cmd={cmd!r}: settings are for engine programs, not for {spec.label}")
        info = [(info_key, str(_whole(settings, key))) for key, info_key in
                (("nodes", "max_node"), ("depth", "max_depth"), ("threads", "thread_num")) if key in settings]
        info += [(k[5:], v) for k, v in settings.items() if k.startswith("info.")]
        for key, value in info:
            if not key or not value or any(c.isspace() for c in key + value):
                raise ValueError(f"INFO {key} {value!r}: a key and a value of one word each")
        name = " ".join(settings.get("name", "").split())[:60]
        init = tuple(line.strip() for part in settings.get("initstr", "").split("\n")
                     for line in part.split("\\n") if line.strip())
        bad = next((line for line in init if not line.isprintable()), None)
        if bad is not None:
            raise ValueError(f"init line {bad!r}: control characters cannot be sent")
        stderr = os.path.expanduser(settings.get("stderr", "")) or None
        return replace(spec, label=name or spec.label, named=bool(name), cwd=settings.get("dir") or None,
                       info=tuple(info), turn_ms=_whole(settings, "turn_ms"), match_ms=_whole(settings, "match_ms"),
                       nboard_depth=_whole(settings, "depth"),
                       protocol=protocol_of(settings["proto"]) if "proto" in settings else "",
                       init=init, stderr_file=stderr)

    def check_game(self, game: str) -> None:
        """``ValueError`` when this engine's settings do not fit ``game`` (``mnk`` or
        ``reversi``): another protocol, settings of the other protocol, or init lines
        the protocol would answer (an answer would be read as a move)."""
        speaks = GAME_PROTOCOLS[game]
        if self.protocol and self.protocol != speaks:
            other = next(g for g, p in GAME_PROTOCOLS.items() if p == self.protocol)
            raise ValueError(f"it speaks {self.protocol}, the protocol of --game {other}; "
                             f"--game {game} engines speak {speaks}")
        if speaks == "nboard" and any(key != "max_depth" for key, _ in self.info):
            raise ValueError("nodes, threads and info.KEY are Gomocup INFO settings: an NBoard engine "
                             "takes depth= (set depth) only")
        for line in self.init:
            words = line.split()
            if speaks == "gomocup" and (len(words) < 3 or words[0].upper() != "INFO"):
                raise ValueError(f"init line {line!r}: a Gomocup engine is sent INFO KEY VALUE lines only")
            if speaks == "nboard" and (len(words) < 3 or words[0].lower() != "set" or words[1].lower() == "game"):
                raise ValueError(f"init line {line!r}: an NBoard engine is sent set NAME VALUE lines only "
                                 "(set game is the referee's)")
        if self.stderr_file is not None:
            folder = os.path.dirname(os.path.abspath(self.stderr_file))
            if not os.path.isdir(folder) or os.path.isdir(self.stderr_file):
                raise ValueError(f"stderr file {self.stderr_file}: "
                                 + ("is a directory" if os.path.isdir(self.stderr_file) else f"no directory {folder}"))

    def time_control(self, tc: TimeControl) -> TimeControl:
        """The match's clock ``tc`` with this engine's own times (time odds) in it."""
        return replace(tc, turn_ms=tc.turn_ms if self.turn_ms is None else self.turn_ms,
                       match_ms=tc.match_ms if self.match_ms is None else self.match_ms)

    @property
    def is_human(self) -> bool:
        """A person at this terminal."""
        return self.builtin == HUMAN

    @property
    def is_process(self) -> bool:
        """An engine program the referee runs (not a built-in seat)."""
        return not self.builtin


#: The settings an engine takes (besides ``info.KEY``).
SETTING_KEYS = ("cmd", "name", "dir", "stderr", "proto", "initstr", "turn_ms", "match_ms", "send_delay_ms", "nodes",
                "depth", "threads")


def protocol_of(value: str) -> str:
    """``gomocup`` or ``nboard`` for a ``proto`` value (a protocol's name, or a game that
    implies it); ``ValueError`` naming a protocol the referee does not speak."""
    name = _PROTOCOL_NAMES.get(value.strip().lower())
    if name is None:
        raise ValueError(f"protocol {value!r} is not one the referee speaks: gomocup (m,n,k games) or "
                         "nboard (reversi)")
    return name


def settings_of(text: str) -> dict[str, str] | None:
    """The ``KEY=VALUE`` settings of an engine given as ``cmd=... [KEY=VALUE ...]`` (shell-like
    quoting), or ``None`` when ``text`` is a plain command line."""
    words = shlex.split(text)
    if not words or not words[0].startswith("cmd="):
        return None
    out = {}
    for w in words:
        key, sep, value = w.partition("=")
        if not sep:
            raise ValueError(f"{w!r} is not KEY=VALUE (quote a command line with spaces: cmd='./x --fast')")
        out[key.strip().lower()] = value
    return out


def _whole(settings: Mapping[str, str], key: str) -> int | None:
    value = _number(settings, key, None, int)
    return None if value is None else int(value)


def _number(settings: Mapping[str, str], key: str, default: float | None, kind: type = float) -> float | None:
    """A setting's value, >= 0, of ``kind`` (``int`` or ``float``); ``default`` when it is not set."""
    if key not in settings:
        return default
    try:
        value = kind(settings[key])
    except ValueError:
        raise ValueError(f"{key}={settings[key]!r}: expected a {'whole ' if kind is int else ''}number") from None
    if value < 0:
        raise ValueError(f"{key}={settings[key]}: must be >= 0")
    return value


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
