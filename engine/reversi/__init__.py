"""Reversi (Othello) on even n x n boards: the rules on bitboards, leaf evaluations, an exact
endgame solver, and the engine that searches with them.

Folders (import the module you need; no package imports anything heavy):

- :mod:`engine.reversi.board` -- the game: bitboards, rules, perft, GGF records;
- :mod:`engine.reversi.evaluation` -- how a leaf is valued: the learned pattern evaluation
  (8x8) and random playouts;
- :mod:`engine.reversi.endgame` -- the exact solver and the search's oracle on it;
- :mod:`engine.reversi.tree` -- the engine: options, the generic MCTS wired with the above,
  the tree in C.

Beside them :mod:`engine.reversi.kernel` says which kernel runs (the C extension
``_reversicore`` or Python; ``MNK_PURE_PYTHON=1`` forces Python), :mod:`engine.reversi.bench`
gives the speed figures, and ``python -m engine.reversi perft N | bench [--json] | solve
BOARD`` is the command line.

The C kernel (``_reversicore.c`` with ``_reversi_kernel.h`` for moves, playouts and the
solver, ``_reversi_eval.h`` for the pattern evaluation, ``_reversi_tree.h`` for the tree)
handles every size: one uint64_t per board up to 8x8 (the fast path), four for 10x10..16x16
(about ten times slower per move); without it everything runs in Python, with the same results.
"""
