"""How a leaf is valued: the learned 8x8 pattern evaluation (its weights and held-out
positions in ``data/``) and random playouts, each with the search's Evaluator on it.

- :mod:`engine.reversi.evaluation.patterns` -- the pattern evaluation and its weight files;
- :mod:`engine.reversi.evaluation.patternleaves` -- the Evaluator on it (8x8);
- :mod:`engine.reversi.evaluation.playout` -- batched uniformly random playouts;
- :mod:`engine.reversi.evaluation.playoutleaves` -- the Evaluator on them (any size).
"""
