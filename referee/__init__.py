"""The referee: runs and adjudicates games between two Gomocup engine processes.

Modules (dependencies point downwards; the referee uses ``engine.mnk.rules`` only):

- ``cli``        the ``referee`` command (``referee check``/``referee script`` dispatch to
                 ``referee.check``/``referee.script``)
- ``match``      scheduling, concurrency, resume, SPRT stop
- ``cluster``    the games of a match on a Dask cluster (``--cluster``; imports Dask, only then);
                 ``cluster_address`` its ``local:N`` / scheduler address, read without Dask
- ``gamejob``    one game from picklable settings, played by one call (``GameJob``, ``play_job``)
- ``game``       one game: own board, own clock, verdict (``GameResult``)
- ``seats``      an engine or a human as one side (``EngineSeat``, ``HumanSeat``, ``Fault``,
                 ``TimeControl``, ``EngineSpec``, ``ProcessRegistry``)
- ``process``    ``EngineProcess``: child process in its own process group, line reads with
                 deadlines, kill and reap (the base for ``check``/``script`` too)
- ``wire``       parsing replies / formatting commands
- ``openings``, ``records`` (PSQ/SGF/JSONL), ``stats`` (Elo, LOS, SPRT), ``display``
- ``random_engine`` an instant random-move brain; ``overhead`` the per-move cost benchmark
"""
