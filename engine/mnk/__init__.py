"""The m,n,k family: K or more in a row on a W x H board (freestyle, exact K, caro, renju).

Folders (import the module you need; no package imports anything heavy):

- :mod:`engine.mnk.board` -- the game: rules and board text, renju's forbidden points, sets of
  cells, the moves between two positions;
- :mod:`engine.mnk.knowledge` -- what lines are worth: windows and line geometry, the learned
  shapes (value and move priors) with their weights in ``data/``;
- :mod:`engine.mnk.threats` -- threat-space search: what a move makes, the VCF/VCT solver
  (Python, and C in ``_solver.h``), defences, the root's threat plan;
- :mod:`engine.mnk.playouts` -- plain UCT's knowledge: random playouts and the exact facts of
  every node (wins and threats);
- :mod:`engine.mnk.tree` -- the engine: options, the generic MCTS wired with the above for
  either mode, and guided mode's tree in C.

Beside them :mod:`engine.mnk.bench` gives the speed figures (``pbrain-mcts bench``).

The C extension ``_threatcore`` (``_threatcore.c``, which includes ``board/_renju.h``,
``threats/_solver.h`` and the ``tree/_tree*.h`` files) runs the solver and the guided tree for
freestyle with K >= 4 and renju; without it everything runs in Python, with the same results.
"""
