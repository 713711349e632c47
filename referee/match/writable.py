"""A match's output paths: checked before its first game, and a write that fails later, in words.

Every file a match writes lives in ``--out DIR`` (the game records, ``results.jsonl``, the
match file, the ``--log-io`` logs, the recorded command line) or is the ``--pgn FILE``.
:func:`check_outputs` proves each can be written before any engine starts, so that a
path that cannot be written is one clear :class:`~referee.errors.MatchError` instead of a
game played and then lost.  A write that fails later anyway (the disk fills up, the folder
is removed) stops the match; :func:`write_failure_text` says what failed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from referee.errors import MatchError

__all__ = ["check_outputs", "check_out_dir", "check_pgn", "write_failure_text", "is_output_error"]


def _why(exc: OSError) -> str:
    """The system's reason, without the errno and path Python adds (the caller names the path)."""
    return (exc.strerror or str(exc)).rstrip(".")


def check_out_dir(out_dir: str, option: str = "--out", files: tuple[str, ...] = ()) -> bool:
    """Make sure files can be written in ``out_dir``: create it when missing (True: it was
    created), then write and remove a probe file in it; each of ``files`` that exists there
    must be a regular file that can be appended to.  A :class:`MatchError` otherwise."""
    d = Path(out_dir)
    if d.exists() and not d.is_dir():
        raise MatchError(f"{option} {out_dir}: not a directory (a file of that name exists)")
    made = not d.exists()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MatchError(f"{option} {out_dir}: cannot create the directory ({_why(exc)})") from None
    try:
        fd, probe = tempfile.mkstemp(dir=d, prefix=".referee-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise MatchError(f"{option} {out_dir}: cannot write files in it ({_why(exc)})") from None
    for name in files:
        path = d / name
        if path.exists() and (not path.is_file() or not os.access(path, os.W_OK)):
            raise MatchError(f"{option} {out_dir}: {path} cannot be written "
                             f"({'not a file' if not path.is_file() else 'read-only'})")
    return made


def check_pgn(pgn: str, option: str = "--pgn") -> None:
    """Make sure ``pgn`` can be appended to (a file that did not exist is not left behind)."""
    path = Path(pgn)
    if path.is_dir():
        raise MatchError(f"{option} {pgn}: a directory, not a file")
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise MatchError(f"{option} {pgn}: cannot be written ({_why(exc)})") from None
    if not existed:
        try:
            path.unlink()
        except OSError:
            pass  # an empty file is harmless: the first game appends to it


def check_outputs(out_dir: str | None, pgn: str | None, files: tuple[str, ...] = ()) -> bool:
    """Check every output path of a match (see the module docstring); True when ``out_dir``
    was created by the check (a match that fails to start removes it again while empty)."""
    if pgn:  # (first: a failed check leaves no folder made for nothing)
        check_pgn(pgn)
    return check_out_dir(out_dir, files=files) if out_dir else False


def is_output_error(exc: OSError, out_dir: str | None, pgn: str | None) -> bool:
    """True when ``exc`` is about one of the match's output paths (a file in ``out_dir``, or ``pgn``)."""
    name = exc.filename
    if not isinstance(name, (str, os.PathLike)):
        return False
    path = Path(os.path.abspath(name))
    if pgn and path == Path(os.path.abspath(pgn)):
        return True
    return bool(out_dir) and Path(os.path.abspath(out_dir)) in (path, *path.parents)


def write_failure_text(exc: OSError) -> str:
    """What failed, in one clause: ``cannot write runs/a/game-0002.psq (No space left on device)``."""
    where = f" {exc.filename}" if exc.filename else ""
    return f"cannot write{where} ({_why(exc)})"
