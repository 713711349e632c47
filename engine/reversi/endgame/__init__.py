"""Exact endgames: the solver and the oracle that hands its verdicts to the search.

- :mod:`engine.reversi.endgame.solver` -- the final margin with best play, or win/draw/loss;
- :mod:`engine.reversi.endgame.oracle` -- finished games and solved positions for the tree,
  the exact or win/draw/loss solve at its root.
"""
