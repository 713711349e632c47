"""What the tests share: fake engines (run as processes), an in-memory transport, harnesses,
transcripts and positions.  Imported one way: ``from support.X import ...`` (``tests/`` is on
the path, see pyproject.toml)."""
