"""Which seat plays a side: :func:`open_seat` makes the right one from a spec and the game.

A seat honours the :class:`~referee.seats.base.Seat` contract.  The kinds:

- :class:`~referee.seats.gomocup.GomocupSeat`: an m,n,k engine process (Gomocup);
- :class:`~referee.seats.nboard.NboardSeat`: a Reversi engine process (NBoard);
- :class:`~referee.seats.human.HumanSeat`: a person at the terminal;
- :class:`~referee.seats.random_seat.RandomSeat`: the built-in random mover.
"""

from __future__ import annotations

import threading
from typing import IO, Any, Callable

from engine.reversi.board.rules import ReversiConfig
from referee.engines.registry import ProcessRegistry
from referee.seats.base import Seat
from referee.seats.gomocup import GomocupSeat
from referee.seats.human import HumanSeat
from referee.seats.nboard import NboardSeat
from referee.seats.random_seat import RandomSeat
from referee.seats.spec import EngineSpec

__all__ = ["open_seat", "engine_seat_class"]


def engine_seat_class(config: Any) -> type:
    """The wire adapter of a game's engines: NBoard for Reversi, Gomocup for m,n,k."""
    return NboardSeat if isinstance(config, ReversiConfig) else GomocupSeat


def open_seat(spec: EngineSpec, config: Any, *, log: IO[str] | None = None, stderr_path: str | None = None,
              registry: ProcessRegistry | None = None, stop: threading.Event | None = None,
              tag: str | None = None, log_t0: float | None = None, about_wait: bool = True,
              input_fn: Callable[[str], str] = input, output: IO[str] | None = None,
              show_board: bool = False, seed: object = None) -> Seat:
    """The seat that plays ``spec`` in a game of ``config`` (nothing is started yet).

    Engine processes get the I/O ``log``, their stderr file, the match's process
    ``registry`` and ``stop`` event; a person the terminal (``input_fn``,
    ``output``, ``show_board``); the random mover its ``seed``.
    """
    if spec.is_human:
        return HumanSeat(name=spec.label, input_fn=input_fn, output=output, show_board=show_board)
    if not spec.is_process:
        return RandomSeat(name=spec.label, seed=seed)
    return engine_seat_class(config)(spec, log=log, stderr_path=stderr_path, registry=registry, stop=stop,
                                     tag=tag, log_t0=log_t0, about_wait=about_wait)
