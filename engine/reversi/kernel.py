"""Which Reversi kernel runs: the C extension ``_reversicore`` when it was built, else Python.

``MNK_PURE_PYTHON=1`` in the environment (read at import) forces the Python paths, to
measure the difference or to rule the extension out; the two give the same results (the
same games for the same seed, the same solver values).
"""

from __future__ import annotations

import os
from types import ModuleType

try:  # built at install when a C compiler is at hand (pyproject.toml, optional = true)
    from . import _reversicore
except ImportError:  # pragma: no cover - depends on the build
    _reversicore = None

#: Run perft, playouts and solves in C.
USE_NATIVE = _reversicore is not None and not os.environ.get("MNK_PURE_PYTHON")


def native() -> ModuleType | None:
    """The C kernel module when it is in use, else ``None``."""
    return _reversicore if USE_NATIVE else None


def available() -> bool:
    """Was the C kernel built (whether or not it is in use)?"""
    return _reversicore is not None


def name() -> str:
    """``"C"`` or ``"Python"``: the kernel in use, for reports."""
    return "C" if USE_NATIVE else "Python"
