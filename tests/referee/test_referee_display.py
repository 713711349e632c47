"""Schedule and summary text."""

from engine.mnk.board.rules import Board, GameConfig
from referee.match.output import progress_line, summary_text
from referee.games.mnk import MnkRules
from referee.match.settings import MatchSettings
from referee.match.stats import Sprt, Tally


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
    assert "SPRT (trinomial, logistic Elo) elo0=0 elo1=10" in text and "continue" in text
    line = progress_line(t, 20, 50.0)
    assert line.startswith("[10/20] engine1 +6 =2 -2") and "ETA 50s" in line


def test_a_summary_of_no_game_says_so_and_gives_no_score():
    text = summary_text("A", "B", Tally(), Sprt(0, 10))
    assert text == "A (engine1) vs B (engine2): no game finished"


def test_board_text_has_coordinates_and_marks_the_last_move():
    cfg = GameConfig(5, 5, 4)
    b = Board(cfg)
    b.play(cfg.move(1, 2))
    b.play(cfg.move(3, 0))
    rows = MnkRules(cfg).board_text(b).splitlines()
    assert rows[0].split() == ["0", "1", "2", "3", "4"]
    assert rows[1].split() == ["0", ".", ".", ".", "o", "."]
    assert rows[3].split() == ["2", ".", "X", ".", ".", "."]


def _tally(wins=0, draws=0, losses=0):
    t = Tally()
    for s, n in ((1, wins), (0.5, draws), (0, losses)):
        for _ in range(n):
            t.add(s, True)
    return t


def test_elo_text_on_edge_cases():
    from referee.match.output import elo_text

    assert elo_text(_tally()) == "Elo difference n/a (no games)"
    assert elo_text(_tally(draws=4)) == "Elo difference +0.0  (95 % interval -163.3 .. +163.3)"
    assert elo_text(_tally(losses=1), "human") == (
        "Elo difference < +254.8 (95 % bound; no estimate: human lost every game)")
    assert elo_text(_tally(wins=1)) == "Elo difference > -254.8 (95 % bound; no estimate: engine1 won every game)"
    assert elo_text(_tally(wins=1, losses=1)) == "Elo difference +0.0  (too few games to bound it at 95 %)"
    assert "-inf" not in elo_text(_tally(losses=5)) and "inf" not in elo_text(_tally(draws=1))
    # a normal sample: the usual figure, 400 log10(0.7/0.3) = +147.2
    # one bound the data do not give: the other stated as a bound, never "inf"
    assert elo_text(_tally(3, 1, 0)) == "Elo difference +338.0  (95 % interval: above +27.4)"
    assert elo_text(_tally(0, 1, 3)) == "Elo difference -338.0  (95 % interval: below -27.4)"
    assert elo_text(_tally(6, 2, 2)).startswith("Elo difference +147.2  (95 % interval ")


def test_final_board_marks_the_winning_line():
    cfg = GameConfig(5, 5, 3)
    final_board_text = MnkRules(cfg).final_board_text
    b = Board(cfg)
    for x, y in [(0, 0), (0, 4), (1, 1), (4, 4), (2, 2)]:  # X: the diagonal
        b.play(cfg.move(x, y))
    lines = final_board_text(b).splitlines()
    assert len(lines) == 6  # the legend is the match's, shown once
    assert [r.split()[1:] for r in lines[1:6]] == [
        ["x", ".", ".", ".", "."], [".", "x", ".", ".", "."], [".", ".", "x", ".", "."],
        [".", ".", ".", ".", "."], ["O", ".", ".", ".", "O"]]
    b.undo()  # no line: the last move in lower case
    lines = final_board_text(b).splitlines()
    assert lines[5].split()[1:] == ["O", ".", ".", ".", "o"]


def test_rules_and_game_header_in_words():
    from engine.mnk.board.rules import Rule
    from referee.match.output import game_header, rules_text

    assert rules_text(GameConfig(15, 15, 5)) == "15x15, five or more in a row (freestyle)"
    assert rules_text(GameConfig(9, 7, 4, Rule.EXACT)) == "9x7, exactly four in a row (exact: longer lines do not win)"
    assert rules_text(GameConfig(15, 15, 5, Rule.CARO)).endswith("not exactly five blocked at both ends (caro)")
    assert rules_text(GameConfig(20, 20, 12)).startswith("20x20, 12 or more in a row")
    text = game_header(3, 4, "A (engine2)", "human", GameConfig(15, 15, 5), [(7, 7), (8, 6), (6, 8)])
    assert text.splitlines() == ["=== game 3/4: X A (engine2)  vs  O human",
                                 "    15x15, five or more in a row (freestyle); opening 7,7 8,6 6,8 (3 stones), O to move"]


def test_a_human_side_is_called_by_its_name():
    from referee.match.output import endings_text, verdict_text
    from referee.play.result import GameResult

    t = _tally(losses=2)
    text = summary_text("human", "pbrain-mcts", t, labels=("human", "engine2"))
    assert text.splitlines()[:2] == ["human vs pbrain-mcts (engine2): 2 games",
                                     "  human: 0 wins, 0 draws, 2 losses   score 0.000"]
    assert "engine1" not in text
    assert progress_line(t, 4, 1.0, "human").startswith("[2/4] human +0 =0 -2")
    r = GameResult(game=1, engine1="human", engine2="B", first=1, winner="engine2", termination="timeout",
                   reason="r", moves=[[0, 0]], times_ms=[5])
    assert verdict_text(r, ("human", "engine2")).startswith("game 1: B (engine2) wins by timeout")
    assert endings_text([r], ("human", "engine2")) == "timeout 1 (human at fault)"
    r.winner = "engine1"
    assert verdict_text(r, ("human", "engine2")).startswith("game 1: human wins by timeout")


def test_sides_with_one_name_are_told_apart_in_every_line():
    from referee.match.output import move_line, verdict_text
    from referee.play.game import play_game
    from referee.seats.random_seat import RandomSeat
    from referee.games.clock import TimeControl

    lines = []
    seats = [RandomSeat(seed=1), RandomSeat(seed=2)]  # both are called "random"
    r = play_game(seats, game=1, first=2, config=GameConfig(5, 5, 3), tc=TimeControl(),
                  on_move=lambda ev: lines.append(move_line(ev)))
    assert r.termination == "line" and (r.engine1, r.engine2) == ("random", "random")  # records keep the name
    winner = r.winner
    assert verdict_text(r).endswith(f"random ({winner}) completed 3 in a row with {r.moves[-1][0]},{r.moves[-1][1]}")
    assert lines[0].startswith("game 1 move 1: random (engine2, X) ")  # engine2 moves first
    assert lines[1].startswith("game 1 move 2: random (engine1, O) ")


def test_a_fault_names_the_side_when_both_have_one_name():
    from referee.play.game import play_game
    from referee.seats.random_seat import RandomSeat
    from referee.games.clock import TimeControl
    from referee.games.verdicts import Termination
    from referee.seats.base import Fault

    class Crashing(RandomSeat):
        def ask(self, pos, turn):
            raise Fault(Termination.CRASH, f"{self.name} exited (exit status 1)")

    r = play_game([RandomSeat(seed=1), Crashing()], game=1, first=1, config=GameConfig(5, 5, 3), tc=TimeControl())
    assert (r.termination, r.winner) == ("crash", "engine1")
    assert r.reason == "random (engine2) exited (exit status 1)"


def test_a_paired_match_summary_gives_the_pairs_and_their_sprt():
    from referee.match.pentanomial import Pairs

    t, pairs = Tally(), Pairs()
    for a, b in [(1, 0), (1, 1), (0.5, 1), (1, 0.5), (0, 0)]:
        t.add(a, True)
        t.add(b, False)
        pairs.add(a, b)
    text = summary_text("A", "B", t, Sprt(0, 10), pairs=pairs)
    assert "5 pairs LL LD WL+DD WD WW: 1 0 1 2 1   Elo +" in text and "nElo +" in text
    assert "SPRT (pentanomial, logistic Elo) elo0=0 elo1=10" in text
    assert "pairs" not in summary_text("A", "B", t)  # a match with a person: games only


def test_the_pairs_line_never_prints_an_infinite_elo():
    from referee.match.output import pairs_text
    from referee.match.pentanomial import Pairs

    for counts in ([0, 0, 1, 5, 17], [0, 0, 0, 0, 3], [2, 0, 0, 0, 0], [0, 0, 1, 0, 0], [1, 2, 3, 2, 2]):
        text = pairs_text(Pairs(list(counts)))
        assert "inf" not in text, text
    assert "(95 % above +" in pairs_text(Pairs([0, 0, 1, 5, 17]))
    assert "(won every pair)" in pairs_text(Pairs([0, 0, 0, 0, 3]))


def test_the_clock_says_where_it_comes_from_and_who_is_timed():
    from referee.games.clock import TimeControl
    from referee.match.output import clock_text

    tc = TimeControl(turn_ms=1000, tolerance_ms=1000)
    assert clock_text(tc) == "1000 ms a move (+1000 ms tolerance)"
    assert clock_text(tc, "mnk") == ("1000 ms a move (+1000 ms tolerance; referee --turn-ms: engines' own time "
                                     "options are overridden by the manager's)")
    # NBoard has no move time to send: a Reversi engine keeps its own settings; a game clock is sent
    assert "NBoard sends no move time, engines play at their own settings" in clock_text(tc, "reversi")
    assert "overridden" not in clock_text(tc, "reversi")
    both = clock_text(TimeControl(turn_ms=500, match_ms=60000), "reversi")
    assert "referee --turn-ms and --match-ms: engines are sent the game clock, not a move time" in both
    human = clock_text(tc, "mnk", ("Ann",))
    assert human.startswith("the engine: 1000 ms a move (") and human.endswith("; Ann: untimed")
    assert clock_text(tc, "mnk", ("Ann", "Bo")) == "Ann and Bo: untimed"
    assert progress_line(_tally(losses=2), 4, 9.0, "Ann", timing=False) == "[2/4] Ann +0 =0 -2  score 0.000"
