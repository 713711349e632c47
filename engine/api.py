"""The engine facade: open the searcher for a game, options and thread count.

The protocol layer imports this module (and a game's rules) only: it never chooses a
searcher class itself.

>>> from engine.mnk.board.rules import Board, GameConfig
>>> from engine.search.limits import Limits
>>> res = best_move(Board(GameConfig.square(3, 3)), Limits(nodes=200), seed=1)
>>> 0 <= res.move < 9
True
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping

from .search.limits import Limits, SearchInfo, SearchResult
from .search.searcher import Searcher

if TYPE_CHECKING:  # numpy is imported with a game's engine, not with the facade
    import numpy as np

__all__ = ["PURE_PYTHON_SLOWDOWN", "Searcher", "Limits", "SearchInfo", "SearchResult", "best_move", "native_built",
           "native_code", "native_note", "open_engine", "options_for", "option_keys", "preload"]


def preload(game: Any) -> None:
    """Import what :func:`open_engine` needs for ``game`` (numpy included), so that a program
    can do it on a background thread while it waits for its first command."""
    from .mnk.board.rules import GameConfig
    from .reversi.board.rules import ReversiConfig

    if isinstance(game, GameConfig):
        from .mnk.tree import engine  # noqa: F401
    elif isinstance(game, ReversiConfig):
        from .reversi.tree import engine  # noqa: F401,F811


#: How much slower each game's engine runs without its C code, said once here for
#: ``--version``, the start-up warning and ``pbrain-mcts bench``.  Measured with the games'
#: own benches, like for like (docs/RESULTS.md, "Pure-Python fallback"): m,n,k's playouts a
#: second in guided mode on 15x15 freestyle and renju (the only mode and rules whose code is
#: in C), Reversi's search under the same node limit (the same signature).
PURE_PYTHON_SLOWDOWN = {
    "mnk": "guided mode runs 10-33 times slower on freestyle boards and about 14 times under renju; "
           "plain UCT and the exact and caro rules have no C code",
    "reversi": "the search runs 60-100 times slower, its random playouts about 200 times and the endgame "
               "solver about 300 times",
}


def _is_reversi(game: Any) -> bool:
    from .reversi.board.rules import ReversiConfig

    return isinstance(game, ReversiConfig)


def native_built(game: Any = None) -> bool:
    """Was the optional C code of ``game``'s engine built (whether or not
    ``MNK_PURE_PYTHON=1`` switches it off)?  ``game`` as for :func:`native_code`."""
    if _is_reversi(game):
        from .reversi import kernel

        return kernel.available()
    return importlib.util.find_spec("engine.mnk._threatcore") is not None


def native_code(game: Any = None) -> bool:
    """Is the optional C code of ``game``'s engine built and in use (``MNK_PURE_PYTHON=1``
    turns it off)?  ``game``: an m,n,k ``GameConfig`` or ``None`` (the m,n,k extension,
    ``_threatcore``: without it that engine runs the same algorithms in Python), or a
    ``ReversiConfig`` (the Reversi kernel, ``_reversicore``, whose own check is
    :func:`engine.reversi.kernel.native`: without it playouts and solves run in Python).
    What that costs: :data:`PURE_PYTHON_SLOWDOWN`."""
    if os.environ.get("MNK_PURE_PYTHON"):
        return False
    if _is_reversi(game):
        from .reversi import kernel

        return kernel.native() is not None
    return native_built(game)


def native_note(game: Any = None) -> str:
    """What ``--version``, the start-up warning and the bench say of ``game``'s C code:
    ``C extension built``, or that ``MNK_PURE_PYTHON=1`` switched it off or it was not
    built, and what that costs (:data:`PURE_PYTHON_SLOWDOWN`).  ``game`` as for
    :func:`native_code`."""
    if native_code(game):
        return "C extension built"
    why = "switched off by MNK_PURE_PYTHON=1" if native_built(game) else "not built"
    return f"C extension {why}: {PURE_PYTHON_SLOWDOWN['reversi' if _is_reversi(game) else 'mnk']}"


def options_for(game: Any, mode: str = "uct", values: Mapping[str, Any] | None = None) -> Any:
    """The options of ``game``'s engine: the preset ``mode`` with ``values`` set by key
    (text values converted).  ``ValueError`` names a bad mode, key or value and lists the
    valid keys."""
    from .mnk.tree.options import MnkOptions
    from .mnk.board.rules import GameConfig
    from .reversi.board.rules import ReversiConfig

    if isinstance(game, GameConfig):
        return MnkOptions.preset(mode).with_values(dict(values or {}))
    if isinstance(game, ReversiConfig):
        from .reversi.tree.options import ReversiOptions

        return ReversiOptions.preset(mode).with_values(dict(values or {}))
    raise TypeError(f"no engine for {type(game).__name__}")


def option_keys(options: Any) -> list[tuple[str, str, Any]]:
    """Every key of a game's ``options`` (from :func:`options_for`) with its type and value:
    ``(dotted key, type name, value)``."""
    from .options import option_keys as keys

    return keys(options)


def open_engine(game: Any, options: Any = None, seed: "int | np.random.Generator | None" = None,
                threads: int = 1) -> Searcher:
    """The searcher for one game of ``game`` (a game configuration: an m,n,k
    :class:`~engine.mnk.board.rules.GameConfig` or a :class:`~engine.reversi.board.rules.ReversiConfig`).

    ``options``: the game's options (``None``: the library default, plain UCT);
    ``threads``: searching threads; a second one is used where the game's engine has work
    for it (m,n,k's guided C tree: the root threat search beside the tree), otherwise
    the search runs on one.
    """
    from .mnk.tree.engine import MnkEngine, root_thread_applies
    from .mnk.tree.options import MnkOptions
    from .mnk.board.rules import GameConfig

    if isinstance(game, GameConfig):
        options = options if options is not None else MnkOptions.uct()
        if threads >= 2 and root_thread_applies(game, options):
            options = replace(options, root=replace(options.root, thread=True))
        return MnkEngine(game, options, seed)
    from .reversi.board.rules import ReversiConfig

    if isinstance(game, ReversiConfig):
        from .reversi.tree.engine import ReversiEngine

        return ReversiEngine(game, options, seed)  # one thread: nothing runs beside the tree
    raise TypeError(f"no engine for {type(game).__name__}")


def best_move(state: Any, limits: Limits, seed: "int | np.random.Generator | None" = None,
              options: Any = None) -> SearchResult:
    """One-shot search of ``state`` with a fresh engine."""
    return open_engine(state.config, options, seed).search(state, limits)
