"""``pbrain-mcts``, the Gomocup (Piskvork) brain: the m,n,k engine on stdin/stdout.

``wire`` (pure parsing and formatting) -> ``session`` (the state machine, no I/O) ->
``loop`` (threads and pipes) -> ``cli`` (the entry point).  ``position`` turns BOARD
blocks into boards; ``thinker`` builds the engine for each game through the facade.
``python -m protocol.gomocup`` runs the brain, as ``pbrain-mcts`` does.
"""
