"""The engine: its options, the generic MCTS wired for either mode, and guided mode's tree in C.

- :mod:`engine.mnk.tree.options` -- the typed options and the two presets (plain UCT, guided);
- :mod:`engine.mnk.tree.engine` -- :class:`~engine.mnk.tree.engine.MnkEngine`, the searcher the
  facade (:mod:`engine.api`) opens;
- :mod:`engine.mnk.tree.guided` -- guided mode's evaluator for the generic MCTS;
- :mod:`engine.mnk.tree.native` -- guided mode's tree in C (``_tree.h`` and the files it includes).
"""
