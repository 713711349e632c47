"""``nboard-mcts``, the NBoard-protocol engine: the Reversi engine on stdin/stdout.

``wire`` (pure parsing and formatting) -> ``session`` (the state machine, no I/O) ->
``loop`` (threads and pipes) -> ``cli`` (the entry point).  ``game`` keeps the GGF game
the GUI set (position, clock); ``discs`` turns the engine's values into NBoard's evals.
The engine is built through the facade by :mod:`protocol.engines`, the line I/O is
:mod:`protocol.lines`: both shared with the Gomocup brain.  ``python -m protocol.nboard``
runs the engine, as ``nboard-mcts`` does.
"""
