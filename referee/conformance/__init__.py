"""Testing an engine's protocol: the Gomocup and NBoard check suites, and scripted transcripts."""
