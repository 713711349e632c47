"""The installed project's version, for every program's ``--version`` and ``ABOUT``."""

from __future__ import annotations

#: The version when the project runs from a source tree that is not installed.
UNINSTALLED_VERSION = "0.1.0"


def package_version() -> str:
    """The installed project's version (``UNINSTALLED_VERSION`` when it is not installed)."""
    try:
        from importlib.metadata import version

        return version("mnk-mcts")
    except Exception:  # noqa: BLE001 - not installed: any failure means "unknown"
        return UNINSTALLED_VERSION
