"""Who plays a side of a game: the :class:`~.base.Seat` contract and its kinds (Gomocup and
NBoard engines, a person, the random mover), and the start check of a match's engines."""
