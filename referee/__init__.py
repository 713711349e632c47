"""The referee: runs and adjudicates games between engine processes (Gomocup engines for the
m,n,k family, NBoard engines for Reversi), a person or the built-in random mover.

It imports the games' rules and record formats only (``engine.mnk.board.rules``,
``engine.reversi.board.rules``, ``engine.reversi.board.ggf``), never a search.  Its floors, each
importing only the floors below it (``tests/test_architecture.py`` checks this; the
module table is in docs/ARCHITECTURE.md):

- ``cli``          the ``referee`` command and its ``check`` and ``script`` subcommands
- ``match``        a match: settings, schedule, runners, records, statistics, what is shown;
  ``conformance``  the check suites and scripted transcripts
- ``cluster``      a match's games on a Dask cluster (the only place Dask is imported)
- ``play``         one adjudicated game, and the same game as a picklable job
- ``seats``        the ``Seat`` contract and its kinds (Gomocup, NBoard, human, random), the start check
- ``engines``      child processes and the wire formats; ``games`` the rules, clock, verdicts, openings
- ``errors``       the referee's own errors
"""
