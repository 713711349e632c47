"""The Gomocup brain ``pbrain-mcts``: wire format, session state machine, stdin/stdout loop, CLI.

``wire`` (pure parsing/formatting) → ``session`` (state, no I/O) → ``loop``
(threads and pipes) → ``cli`` (entry point).  ``python -m protocol`` runs the
brain; ``python -m protocol.latency`` measures its response times.
"""
