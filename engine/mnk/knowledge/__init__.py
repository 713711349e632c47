"""What lines are worth: window counts and line geometry, and the learned shapes (value and priors).

- :mod:`engine.mnk.knowledge.patterns` -- windows, incremental line state, the move priors of cells;
- :mod:`engine.mnk.knowledge.shapes` -- the learned shape tables and the static value, with
  their weights in ``data/`` (made by ``lab/mnk_fit.py``).
"""
