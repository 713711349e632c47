"""Plain UCT's knowledge: batched random playouts and the exact facts of every node.

- :mod:`engine.mnk.playouts.rollout` -- vectorised random playouts (numpy);
- :mod:`engine.mnk.playouts.oracle` -- immediate wins and threats of each node, for both modes;
- :mod:`engine.mnk.playouts.leaves` -- plain UCT's candidates and playout leaf values.
"""
