"""The ``--cluster`` value: a Dask scheduler's address or ``local:N``, checked without importing Dask.

- ``local:N`` (N from 1 to :data:`MAX_LOCAL_WORKERS`): the referee starts N
  single-threaded worker processes on this machine and shuts them down at the end;
- ``tcp://host:port`` (or ``tls://``, ``ws://``, ``wss://``; a bare ``host:port``
  means ``tcp://``): a running scheduler, whose workers are left running.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

__all__ = ["ClusterAddress", "cluster_address", "MAX_LOCAL_WORKERS"]

MAX_LOCAL_WORKERS = 256
_SCHEMES = ("tcp", "tls", "ws", "wss")
# host: a name, an IPv4 address or a bracketed IPv6 one; then a port
_HOST_PORT = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$")


@dataclass(frozen=True)
class ClusterAddress:
    """Where the games go: ``local_workers`` processes started here, or the ``scheduler`` at an address."""

    local_workers: int | None = None
    scheduler: str | None = None

    @classmethod
    def parse(cls, text: str) -> "ClusterAddress":
        """``local:N`` or a scheduler address; ``ValueError`` saying what is expected otherwise."""
        t = text.strip()
        head, sep, rest = t.partition(":")
        if head.lower() == "local" and sep:
            if not rest.isdigit() or not 1 <= int(rest) <= MAX_LOCAL_WORKERS:
                raise ValueError(f"local:N needs a number of workers from 1 to {MAX_LOCAL_WORKERS}, got {text!r}")
            return cls(local_workers=int(rest))
        scheme, sep, hostport = t.partition("://")
        if not sep:
            scheme, hostport = "tcp", t
        m = _HOST_PORT.match(hostport)
        if scheme.lower() not in _SCHEMES or m is None or not 1 <= int(m.group(3)) <= 65535:
            raise ValueError(f"expected local:N or a scheduler address such as tcp://host:8786, got {text!r}")
        return cls(scheduler=f"{scheme.lower()}://{hostport}")

    def __str__(self) -> str:
        return f"local:{self.local_workers}" if self.local_workers is not None else str(self.scheduler)


def cluster_address(text: str) -> str:
    """argparse ``type=`` for ``--cluster``: the address in its normal form."""
    try:
        return str(ClusterAddress.parse(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
