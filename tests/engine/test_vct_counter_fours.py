"""VCT through the defender's counter-fours: a quiet block keeps a three's threat alive.

Position from a real game (15x15 freestyle, pbrain-mcts as O against Piskvork's
pela): after X's 27th stone (6,6) every O move loses.  O's only "defences" that
the solver used to accept were its own fours -- but after X blocks each of them
(a move that is no threat by itself) X's three still stands, so they only delay.
"""

from engine.mnk.board.rules import Board, GameConfig
from engine.mnk.threats.defence import candidate_moves
from engine.mnk.threats.roottactics import losing_moves
from engine.mnk.threats.solver import find_vct
from engine.mnk.threats.kinds import winning_moves

MOVES = [(8, 8), (7, 7), (8, 9), (8, 7), (7, 6), (7, 8), (9, 6), (8, 6), (9, 5), (9, 7), (6, 7), (8, 5),
         (8, 4), (10, 6), (11, 7), (10, 8), (11, 9), (10, 9), (10, 7), (11, 8), (6, 4), (12, 7), (13, 6),
         (9, 8), (9, 3), (7, 4), (6, 6)]
CFG = GameConfig.square(15, 5)


def _position(n=len(MOVES)):
    b = Board(CFG)
    for x, y in MOVES[:n]:
        b.play(CFG.move(x, y))
    return b


def test_counter_fours_only_delay_the_loss():
    b = _position()
    assert b.to_move == 2
    cands = [m for m, _ in candidate_moves(b)]
    fours_of_o = {CFG.move(x, y) for x, y in [(9, 10), (8, 11), (12, 8), (13, 8), (12, 11), (11, 10)]}
    assert fours_of_o <= set(cands)
    safe, losing, unchecked = losing_moves(b, cands, max_nodes=3000, max_threes=3)
    assert not unchecked
    assert safe == [], [CFG.xy(m) for m in safe]
    assert fours_of_o <= set(losing)


def test_the_winning_line_answers_a_counter_four_with_a_block():
    # After O's counter-four (9,10), X must block at O's completing cell (8,11) -- a quiet
    # move -- and still wins.
    b = _position()
    b.play(CFG.move(9, 10))
    assert [CFG.xy(m) for m in winning_moves(b, 2)] == [(8, 11)]
    line = find_vct(b, 1, max_nodes=3000, max_threes=3)
    assert line is not None and CFG.xy(line[0]) == (8, 11)
