"""The game itself: the rules and board text, renju's forbidden points, sets of cells, move history.

- :mod:`engine.mnk.board.rules` -- :class:`~engine.mnk.board.rules.GameConfig`,
  :class:`~engine.mnk.board.rules.Board`, the four rules, coordinates;
- :mod:`engine.mnk.board.renju` -- black's forbidden points (Python, and C in ``_renju.h``);
- :mod:`engine.mnk.board.cellsets` -- sets of cells as ints, centre first, and the cells near stones;
- :mod:`engine.mnk.board.history` -- the moves that lead from one position to another.
"""
