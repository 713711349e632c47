"""The engine that searches: its options, the generic MCTS wired with the leaves and the
oracle, and the 8x8 tree in C beside it.

- :mod:`engine.reversi.tree.options` -- the engine's options, settable by key;
- :mod:`engine.reversi.tree.engine` -- :class:`~engine.reversi.tree.engine.ReversiEngine`,
  the tree kept between moves;
- :mod:`engine.reversi.tree.native` -- the same algorithm in C (8x8, pattern leaves).
"""
