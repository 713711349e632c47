"""The lab: pipelines that make the shipped knowledge from the project's own games, and measurements."""
