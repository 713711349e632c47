"""Threat-space search: what a move makes, the VCF/VCT solver, defences, the root's threat plan.

- :mod:`engine.mnk.threats.kinds` -- wins, fours, double threats and threes a move makes;
- :mod:`engine.mnk.threats.solver` -- victory by continuous fours and by threats (Python, and
  the same search in C in ``_solver.h``);
- :mod:`engine.mnk.threats.defence` -- the moves that answer the opponent's threats;
- :mod:`engine.mnk.threats.roottactics` -- guided mode's threat search at the root.
"""
