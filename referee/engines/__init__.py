"""Engines as the referee meets them: child processes, the Gomocup and NBoard wire formats,
and the shipped random engine."""
