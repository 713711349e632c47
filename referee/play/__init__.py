"""One adjudicated game: :func:`.game.play_game`, and :mod:`.job`, the same game as a picklable job."""
