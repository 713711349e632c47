"""Programs that speak real engine protocols on stdin/stdout and wrap the search:
``protocol.gomocup`` (``pbrain-mcts``) and ``protocol.nboard`` (``nboard-mcts``).
Protocol code never searches: it parses, keeps the game's state and asks the engine
facade (:mod:`engine.api`) for moves."""
