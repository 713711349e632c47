"""Schedule and summary text."""

from engine.mnk.rules import Board, GameConfig
from referee.display import board_text, progress_line, summary_text
from referee.match import MatchSettings
from referee.stats import Sprt, Tally


def test_colours_alternate_and_first_2_flips_them():
    assert [MatchSettings(games=4).first_of(g) for g in range(1, 5)] == [1, 2, 1, 2]
    assert [MatchSettings(games=4, first=2).first_of(g) for g in range(1, 5)] == [2, 1, 2, 1]


def test_summary_and_progress():
    t = Tally()
    for s, first in [(1, True)] * 6 + [(0.5, False)] * 2 + [(0, True)] * 2:
        t.add(s, first)
    text = summary_text("A", "B", t, Sprt(0, 10))
    assert "A (engine1) vs B (engine2): 10 games" in text
    assert "6 wins, 2 draws, 2 losses   score 0.700" in text
    assert "as X (first): +6 =0 -2    as O (second): +0 =2 -0" in text
    assert "Elo difference +147.2" in text  # 400 log10(0.7/0.3) = 147.19
    assert "LOS 92.1 %" in text  # Phi((6 - 2) / sqrt(6 + 2)) = Phi(1.4142) = 0.9214
    assert "SPRT elo0=0 elo1=10" in text and "continue" in text
    line = progress_line(t, 20, 50.0)
    assert line.startswith("[10/20] engine1 +6 =2 -2") and "ETA 50s" in line


def test_board_text_has_coordinates_and_marks_the_last_move():
    cfg = GameConfig(5, 5, 4)
    b = Board(cfg)
    b.play(cfg.move(1, 2))
    b.play(cfg.move(3, 0))
    rows = board_text(b, cfg.move(3, 0)).splitlines()
    assert rows[0].split() == ["0", "1", "2", "3", "4"]
    assert rows[1].split() == ["0", ".", ".", ".", "o", "."]
    assert rows[3].split() == ["2", ".", "X", ".", ".", "."]
