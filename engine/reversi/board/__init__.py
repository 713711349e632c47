"""The game itself: move generation on bitboards, the rules and board text, perft, GGF records.

- :mod:`engine.reversi.board.bitboard` -- move generation and flips on Python ints, any even n;
- :mod:`engine.reversi.board.rules` -- :class:`~engine.reversi.board.rules.ReversiState`,
  coordinates, board text;
- :mod:`engine.reversi.board.perft` -- leaf counts of the move tree;
- :mod:`engine.reversi.board.ggf` -- GGF game records, read and written.
"""
