"""The m,n,k engine's shape knowledge (engine.mnk.knowledge.shapes): line shapes, features, shipped weights."""

from importlib import resources

import numpy as np
import pytest

from engine.mnk.knowledge.patterns import cell_scores
from engine.mnk.board.rules import Board, GameConfig, Rule
from engine.mnk.knowledge.shapes import (
    CLASS_NAMES, COMBOS, FEATURES, GENERAL, RADIUS, ShapeBoard, ShapeWeights, line_classes, player_classes,
    weights_for, weights_name,
)

CFG = GameConfig.square(15, 5)


def code_of(line: str) -> int:
    """Line code of a 9-character picture: the centre is the cell played ('*'), 'x' own, 'o' blocked."""
    assert len(line) == 2 * RADIUS + 1 and line[RADIUS] == "*"
    digits = [".xo".index(ch) for i, ch in enumerate(line) if i != RADIUS]
    return sum(v * 3 ** i for i, v in enumerate(digits))


def shape(line: str, k: int = 5, exact: bool = False) -> str:
    return CLASS_NAMES[line_classes(k, exact)[code_of(line)]]


@pytest.mark.parametrize("line,name", [
    ("..xx*xx..", "five"),
    ("...x*xxx.", "five"),
    ("..xx*x...", "F4"),      # an open four
    (".oxx*x...", "B4"),      # blocked at one end
    ("x.xx*....", "B4"),      # a split four
    ("xx.x*.xx.", "F4"),      # two separate completions in one line
    ("...x*x...", "F3"),      # an open three
    ("..x.*x...", "F3"),      # a split three
    ("o.xx*.o..", "B3"),      # a three that can only become a four
    ("...x*....", "F2"),
    ("....*....", "F1"),
    ("oo..*..oo", "B1"),      # room for exactly one window of five
    ("ooo.*.ooo", "dead"),    # no room for five
    ("o.xx*o...", "dead"),
])
def test_shapes_of_lines_for_five_in_a_row(line, name):
    assert shape(line) == name


def test_exact_rule_tables_do_not_count_overlines():
    assert shape("..xx*xxx.") == "five"
    assert shape("..xx*xxx.", exact=True) != "five"
    assert shape("...x*xxx.", exact=True) == "five"
    renju = GameConfig(15, 15, 5, Rule.RENJU)
    black, white = player_classes(renju)
    overline = code_of("..xx*xxx.")
    assert CLASS_NAMES[black[overline]] != "five" and CLASS_NAMES[white[overline]] == "five"


def test_shapes_follow_k():
    assert shape("...x*x...", k=4) == "F4"  # three in a row with both ends open, for four in a row
    assert shape("...x*x...", k=6) == "F2"


def _board(config, stones):
    b = np.zeros((1, config.area), dtype=np.int8)
    for (x, y), p in stones:
        b[0, y * config.width + x] = p
    return b


def test_features_count_every_empty_cell_once_per_direction():
    sb = ShapeBoard(CFG)
    b = _board(CFG, [((7, 7), 1), ((8, 8), 2)])
    f = sb.features(b, 1)[0]
    empty = CFG.area - 2
    assert f[:COMBOS].sum() == empty           # one combination per empty cell
    assert f[COMBOS:].sum() == 4 * empty       # four shapes per empty cell
    assert f.shape == (FEATURES,)


def test_combination_is_the_best_two_shapes():
    idx = ShapeBoard.feature_index(np.array([[6, 2, 7, 0]]))
    assert idx[0, 0] == 7 * len(CLASS_NAMES) + 6
    assert sorted(idx[0, 1:] - COMBOS) == [0, 2, 6, 7]


def test_value_is_for_the_side_to_move_and_colour_blind():
    sb = ShapeBoard(CFG)
    three = [((6, 7), 1), ((7, 7), 1), ((8, 7), 1), ((7, 8), 2), ((3, 3), 2)]
    swapped = [(xy, 3 - p) for xy, p in three]
    b = np.concatenate([_board(CFG, three), _board(CFG, swapped)])
    mover_owns = sb.values(b, np.array([1, 2]))
    other_moves = sb.values(b, np.array([2, 1]))
    assert mover_owns[0] == pytest.approx(mover_owns[1])
    # An open three with the move is close to a win; the side facing it is worse off.
    assert mover_owns[0] > 0.6 > other_moves[0]


def test_priors_rank_the_winning_and_the_forced_moves_first():
    b = Board(CFG)
    for x, y in [(7, 7), (7, 8), (8, 7), (8, 8), (9, 7), (3, 12)]:  # X has an open three on row 7
        b.apply(CFG.move(x, y))
    scores = cell_scores(CFG, b.cells, int(b.to_move))  # X to move: the open four wins
    best = max(scores, key=scores.get)
    assert CFG.unpadded(best) in (CFG.move(6, 7), CFG.move(10, 7))
    b.apply(CFG.move(0, 0))  # X wastes the move: O must stop the open three
    scores = cell_scores(CFG, b.cells, int(b.to_move))
    top = sorted(scores, key=scores.get, reverse=True)[:3]
    assert {CFG.unpadded(c) for c in top} & {CFG.move(6, 7), CFG.move(10, 7)}


def test_every_shipped_weights_file_is_the_one_its_board_uses():
    files = sorted(resources.files("engine.mnk.knowledge").joinpath("data").iterdir(), key=lambda f: f.name)
    names = [f.name[len("shapes-"):-len(".json")] for f in files if f.name.startswith("shapes-")]
    assert GENERAL in names
    for name in names:
        size, k, rule = name.split("-")
        width, height = (int(v) for v in size.split("x"))
        config = GameConfig(width, height, int(k[1:]), Rule.parse(rule))
        assert weights_name(config) == name
        assert weights_for(config).trained_for == name


def test_shipped_weights_say_what_they_were_trained_for():
    general = weights_for(CFG)
    assert general.trained_for == GENERAL == weights_name(CFG)
    # A board with no weights of its own uses the general ones.
    assert weights_for(GameConfig(11, 9, 4)) == general
    assert ShapeWeights.from_json(general.to_json()) == general
    with pytest.raises(ValueError):
        ShapeWeights.from_json('{"attack": [1], "defence": [], "mine": [], "theirs": [], "tempo": 0, "trained_for": ""}')
