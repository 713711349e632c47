"""The fake engines' flood: output as fast as the pipe takes it (imported by the fakes,
which run as scripts from this folder)."""

import os
import sys


def flood(text: str, newline: bool) -> None:
    """Print ``text`` as fast as the pipe takes it, for ever (one endless line without
    ``newline``); exit once the reader has gone."""
    block = ((text + "\n") if newline else text).encode() * 4096
    try:
        while True:
            sys.stdout.buffer.write(block)
            sys.stdout.buffer.flush()
    except OSError:
        os._exit(0)
