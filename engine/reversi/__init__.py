"""Reversi (Othello) on even n x n boards: rules on bitboards, random playouts, an exact
endgame solver, and the evaluator/oracle the generic search uses.

Modules (import the one you need; this package itself imports nothing heavy):

- :mod:`engine.reversi.bitboard` -- move generation and flips on Python ints, any even n;
- :mod:`engine.reversi.rules` -- :class:`~engine.reversi.rules.ReversiState`, coordinates,
  board text;
- :mod:`engine.reversi.kernel` -- which kernel runs (the C extension ``_reversicore`` or
  Python), ``MNK_PURE_PYTHON=1`` forces Python;
- :mod:`engine.reversi.playout` -- batched uniformly random playouts;
- :mod:`engine.reversi.solver` -- exact endgame solving (margin or win/draw/loss);
- :mod:`engine.reversi.perft` -- leaf counts of the move tree;
- :mod:`engine.reversi.evaluate` -- the search's Evaluator and Oracle for Reversi;
- :mod:`engine.reversi.options` -- the engine's options, settable by key;
- :mod:`engine.reversi.engine` -- the generic MCTS wired with them, tree kept between moves;
- :mod:`engine.reversi.bench` -- the speed figures of ``python -m engine.reversi bench``;
- ``python -m engine.reversi perft N | bench [--json] | solve BOARD`` -- the command line.

The C kernel (``_reversicore.c`` with ``_reversi_kernel.h``) handles every size: one
uint64_t per board up to 8x8 (the fast path), four for 10x10..16x16 (about ten times
slower per move); without it everything runs in Python, with the same results.
"""
