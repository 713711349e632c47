"""The built-in random mover (``referee random``): legal moves of either game, no process,
the same game again for the same seed."""

from engine.mnk.board.rules import Board, GameConfig
from engine.reversi.board.rules import ReversiConfig
from referee.games.clock import TimeControl
from referee.play.game import play_game
from referee.seats.factory import open_seat
from referee.seats.random_seat import RandomSeat
from referee.seats.spec import EngineSpec

TC = TimeControl(turn_ms=100, tolerance_ms=100)


def test_random_spec_opens_the_random_seat_for_any_game():
    spec = EngineSpec.parse("random")
    assert not spec.is_process and not spec.is_human
    for cfg in (GameConfig(7, 7, 4), ReversiConfig(8)):
        seat = open_seat(spec, cfg, seed=1)
        assert isinstance(seat, RandomSeat) and seat.name == "random"


def test_random_movers_finish_mnk_games_by_the_rules():
    cfg = GameConfig(7, 7, 4)
    for g in range(10):
        r = play_game([RandomSeat(seed=g), RandomSeat(seed=100 + g)], game=g + 1, first=1, config=cfg, tc=TC)
        assert r.termination in ("line", "full_board") and r.game_type == "mnk"
        b = Board(cfg)
        for x, y in r.moves:
            b.play(cfg.move(x, y))
        assert (b.winner is not None) == (r.termination == "line")
        assert "discs" not in r.to_json()  # an m,n,k record is as it was


def test_a_seed_repeats_the_game():
    games = [play_game([RandomSeat(seed="s/1"), RandomSeat(seed="s/2")], game=1, first=1,
                       config=ReversiConfig(8), tc=TC).moves for _ in range(2)]
    assert games[0] == games[1]
