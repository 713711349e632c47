"""The engines as a library: one MCTS for any game, and the games (m,n,k and Reversi).

- :mod:`engine.api` -- the facade: open an engine for a game configuration, ask it for moves;
- :mod:`engine.game` -- the small game-state interface every game implements;
- :mod:`engine.search` -- the game-independent search (MCTS, limits, the choice of a move);
- :mod:`engine.mnk`, :mod:`engine.reversi` -- the games, each with its own knowledge and trees.
"""
