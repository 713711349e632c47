"""JSON-lines files of the lab's long runs (gzip when the name ends ``.gz``), written so a stopped run resumes.

A run writes one row per finished unit of work (a game, a game's labelled positions) and
flushes it at once.  A run stopped in the middle leaves a file whose last row may be cut
off; :func:`read_rows` reads every complete row and ignores such a tail, and
:class:`RowWriter` started on the same file keeps the complete rows (rewriting the file
when its tail was damaged) and appends after them, so the run goes on where it stopped.

The referee's ``results.jsonl`` (:func:`referee.match.records.append_result` and
``read_results``) is the same idea for one plain-text log of finished games, which it checks
are games; the lab's files are gzip streams of rows of any kind, where a cut-off tail can
only be dropped by rewriting the file, so they have this module of their own.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from pathlib import Path
from typing import IO, Any, Callable

#: What a cut-off gzip stream or a half-written line raises while being read.
_DAMAGE = (EOFError, OSError, zlib.error, json.JSONDecodeError, UnicodeDecodeError)


def _open(path: Path, mode: str) -> IO[str]:
    if path.name.endswith(".gz"):
        return gzip.open(path, mode + "t", encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def read_rows(path: str | os.PathLike) -> tuple[list[dict[str, Any]], bool]:
    """The complete rows of ``path`` and whether the file ended cleanly (no cut-off tail)."""
    rows: list[dict[str, Any]] = []
    try:
        with _open(Path(path), "r") as fh:
            for line in fh:
                if not line.endswith("\n"):
                    return rows, False  # the last line was cut off while being written
                if line.strip():
                    rows.append(json.loads(line))
    except _DAMAGE:
        return rows, False
    return rows, True


class RowWriter:
    """Appends rows to a JSON-lines file, each flushed as it is written.

    With ``resume`` and an existing file, :attr:`done` holds its complete rows and new rows
    follow them; ``trim`` (rows -> the rows to keep) may drop some of them first (a unit of
    work that may have been written only in part), in which case the file is rewritten with
    the rest.
    Without ``resume`` the file starts empty.  Nothing touches the file before the first
    :meth:`write`; the rewrite goes through a temporary file and a rename, so a stop at any
    moment leaves the rows already done.
    """

    def __init__(self, path: str | os.PathLike, resume: bool = True,
                 trim: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None) -> None:
        self.path = Path(path)
        self.done: list[dict[str, Any]] = []
        self._resume = resume
        self._clean = True
        if resume and self.path.exists():
            self.done, self._clean = read_rows(self.path)
            if trim is not None:
                kept = trim(self.done)
                self._clean = self._clean and len(kept) == len(self.done)
                self.done = kept
        self._fh: IO[str] | None = None  # the file is touched only by the first write

    def write(self, rows: list[dict[str, Any]]) -> None:
        """Append ``rows`` (one unit of work) and flush them to the file."""
        if self._fh is None:
            self._fh = self._start()
        self._fh.write("".join(json.dumps(row) + "\n" for row in rows))
        self._fh.flush()

    def _start(self) -> IO[str]:
        if not self._resume:
            return _open(self.path, "w")
        if not self._clean:
            tmp = self.path.with_name("unfinished-" + self.path.name)  # the same kind of file
            with _open(tmp, "w") as fh:
                fh.write("".join(json.dumps(row) + "\n" for row in self.done))
            os.replace(tmp, self.path)
        return _open(self.path, "a")

    def close(self) -> None:
        """Finish the file (a gzip member's end), if anything was written."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> "RowWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
