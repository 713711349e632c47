"""The referee: runs and adjudicates games between two engine processes (Gomocup engines
for the m,n,k family, NBoard engines for Reversi), a person or the built-in random mover.

It imports the games' rules and record formats only (``engine.mnk.rules``,
``engine.reversi.rules``, ``engine.reversi.ggf``), never a search.  Modules, from the
command line down (the full table is in docs/ARCHITECTURE.md):

- ``cli``        the ``referee`` command (``referee check``/``referee script`` dispatch to
                 ``referee.cli.check``/``referee.conformance.script``)
- ``match``      scheduling, concurrency, resume, SPRT stop; ``startcheck`` every engine started once first
- ``cluster``    the games of a match on a Dask cluster (``--cluster``; imports Dask, only then);
                 ``cluster_worker`` what runs on a worker, ``cluster_address`` the address
- ``gamejob``    one game from picklable settings, played by one call (``GameJob``, ``play_job``)
- ``game``       one game over any game's rules (``games``): own position, own clock, verdict
- ``seats``      which seat plays a side: ``seat_gomocup``, ``seat_nboard`` (over ``seat_process``),
                 ``seat_human``, ``seat_random``; ``spec`` how a side is given
- ``process``    ``EngineProcess``: child process in its own process group, line reads with
                 deadlines, kill and reap (the base for ``check``/``script`` too)
- ``wire``, ``wire_nboard`` each protocol's replies parsed and commands formatted
- ``clock``, ``termination``, ``openings``, ``records`` (PSQ/SGF/GGF/JSONL), ``stats`` (Elo, LOS,
  SPRT), ``display``
- ``random_engine`` instant random movers as processes (Gomocup; ``--nboard``)
"""
