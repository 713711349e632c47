"""The referee's commands: ``referee`` (a match, :mod:`.match`), ``referee check`` (:mod:`.check`)
and ``referee script`` (:mod:`.script`)."""
