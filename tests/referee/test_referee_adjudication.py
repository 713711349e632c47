"""Draws the referee declares itself (--draw-after, --max-moves) and the PGN records for rating tools."""

import pytest

from engine.mnk.board.rules import GameConfig
from engine.reversi.board.rules import ReversiConfig
from referee.games.adjudication import Adjudication
from referee.games.clock import TimeControl
from referee.match.records import pgn_text, psq_text, sgf_text
from referee.match.run import run_match
from referee.match.settings import MatchSettings
from referee.play.game import play_game
from referee.seats.random_seat import RandomSeat
from referee.seats.spec import EngineSpec


def test_draw_after_n_stones_counts_the_opening():
    cfg = GameConfig(7, 7, 4)
    opening = [cfg.move(3, 3), cfg.move(4, 4)]
    r = play_game([RandomSeat(seed=1), RandomSeat(seed=2)], game=1, first=1, config=cfg, tc=TimeControl(),
                  opening=opening, adjudication=Adjudication(draw_after=6))
    assert (r.termination, r.winner, len(r.moves)) == ("draw_after", None, 6)  # no four in a row before 7 stones
    assert r.reason == "drawn by adjudication: 6 stones on the board (--draw-after)"
    assert r.score1 == 0.5 and psq_text(r).splitlines()[-1] == "0" and "RE[0]" in sgf_text(r)


def test_max_moves_ends_a_reversi_game_as_a_draw():
    r = play_game([RandomSeat(seed=3), RandomSeat(seed=4)], game=1, first=1, config=ReversiConfig(),
                  tc=TimeControl(), adjudication=Adjudication(max_moves=10))
    assert (r.termination, r.winner, len(r.moves)) == ("max_length", None, 10)


def test_a_win_before_the_limit_stands():
    r = play_game([RandomSeat(seed=5), RandomSeat(seed=6)], game=1, first=1, config=GameConfig(3, 3, 3),
                  tc=TimeControl(), adjudication=Adjudication(max_moves=9))
    assert r.termination in ("line", "full_board", "max_length")
    assert (r.termination == "line") == (r.winner is not None)


@pytest.mark.parametrize("winner,first,result", [("engine1", 1, "1-0"), ("engine1", 2, "0-1"),
                                                  ("engine2", 2, "1-0"), (None, 1, "1/2-1/2")])
def test_pgn_puts_the_first_mover_as_white_and_the_result_from_its_side(winner, first, result):
    from referee.play.result import GameResult

    r = GameResult(game=7, engine1="A", engine2='B "2"', first=first, winner=winner, termination="line",
                   reason="A completed 5", moves=[[7, 7]] * 9, times_ms=[0] * 9, started="2026-11-25T10:00:00Z")
    text = pgn_text(r)
    white, black = ("A", 'B \\"2\\"') if first == 1 else ('B \\"2\\"', "A")
    assert f'[White "{white}"]' in text and f'[Black "{black}"]' in text
    assert f'[Result "{result}"]' in text and text.rstrip().endswith(result)
    assert '[Round "7"]' in text and '[Date "2026.11.25"]' in text and '[PlyCount "9"]' in text


def test_a_match_appends_one_pgn_record_a_game(tmp_path):
    pgn = tmp_path / "games.pgn"
    settings = MatchSettings(config=GameConfig(7, 7, 4), games=4, display="none", pgn=str(pgn), seed=9,
                             random_plies=2, adjudication=Adjudication(draw_after=12))
    outcome = run_match(EngineSpec.parse("random"), EngineSpec.parse("random"), settings)
    records = pgn.read_text().split("[Event ")[1:]
    assert len(records) == 4 == len(outcome.results)
    for rec, r in zip(records, sorted(outcome.results, key=lambda r: r.game)):
        assert f'[Termination "{r.termination}"]' in rec
        assert r.termination in ("line", "draw_after") and len(r.moves) <= 12


def test_the_random_mover_repeats_its_moves_for_a_seed_on_fixed_openings():
    # No random openings: the seed still fixes the random mover's moves, so a match with a person
    # or a script against it can be replayed
    def moves(seed):
        settings = MatchSettings(config=GameConfig(7, 7, 4), games=2, display="none", seed=seed)
        outcome = run_match(EngineSpec.parse("random"), EngineSpec.parse("random"), settings)
        return [r.moves for r in sorted(outcome.results, key=lambda r: r.game)]

    assert moves(11) == moves(11)
    assert moves(11) != moves(12)
