"""The game-independent search: MCTS over :mod:`engine.game` states, its limits and the move chosen."""
