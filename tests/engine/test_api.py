"""The engine facade and the m,n,k engine's search contract (open_engine, best_move)."""

from __future__ import annotations

import threading
import time

import pytest

from engine.api import best_move, option_keys, options_for
from engine.game import GameError
from engine.mnk.tree.engine import MnkEngine
from engine.mnk.tree.options import MnkOptions
from engine.search.limits import Limits, SearchInfo, SearchResult
from engine.mnk.board.rules import Board, GameConfig, Player, Rule

from support.shared_positions import TACTICS


def load_tactics(kinds: tuple[str, ...]):
    """(name, board, answers) of the puzzles whose name starts with ``kinds``."""
    out = []
    for line in TACTICS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, geo, stones, answers = (part.strip() for part in line.split("|"))
        if not name.startswith(kinds):
            continue
        w, h, k, rule = (int(v) for v in geo.split())
        cfg = GameConfig(w, h, k, Rule.from_gomocup_bits(rule))
        b = Board(cfg)
        for s in stones.split():
            x, y, _ = (int(v) for v in s.split(","))
            b.play(cfg.move(x, y))
        ans = {cfg.move(*(int(v) for v in a.split(","))) for a in answers.split()}
        out.append((name, b, ans))
    return out


def middle_game() -> Board:
    cfg = GameConfig.square(15, 5)
    b = Board(cfg)
    for x, y in [(7, 7), (8, 8), (8, 6), (6, 8), (7, 8), (7, 9), (9, 7), (6, 6)]:
        b.play(cfg.move(x, y))
    return b


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["win1", "block1"])
def test_immediate_win_and_forced_block(kind):
    for name, b, answers in load_tactics((kind,)):
        res = best_move(b, Limits(nodes=200), seed=1)
        assert res.move in answers, name


def test_win_is_taken_even_with_the_deadline_past():
    for name, b, answers in load_tactics(("win1", "block1")):
        t = time.monotonic()
        res = best_move(b, Limits(deadline=t - 1.0), seed=1)
        assert res.move in answers, name
        assert time.monotonic() - t < 0.1


def test_win1_is_reported_proven():
    name, b, answers = load_tactics(("win1",))[0]
    res = best_move(b, Limits(nodes=100), seed=1)
    assert res.proven == "win" and res.value == 1.0 and res.pv[0] == res.move


@pytest.mark.slow
def test_win3_and_def3_puzzles():
    """Forced wins in three plies are found, and the only defences against a
    coming double threat are played (72 puzzles, fixed seed and node budget)."""
    failed = []
    for name, b, answers in load_tactics(("win3", "def3")):
        res = best_move(b, Limits(nodes=2500), seed=1)
        if res.move not in answers:
            failed.append(name)
    assert not failed


def test_deadline_past_gives_legal_move_at_once():
    b = middle_game()
    t = time.monotonic()
    res = MnkEngine(b.config, seed=0).search(b, Limits(deadline=t - 5))
    assert b.is_empty(res.move)
    assert time.monotonic() - t < 0.1


@pytest.mark.slow
def test_deadline_is_respected():
    b = middle_game()
    eng = MnkEngine(b.config, seed=0)
    eng.search(b, Limits(nodes=10))  # warm up
    eng.new_game()
    for ms in (50, 300):
        start = time.monotonic()
        res = eng.search(b, Limits.movetime(ms))
        overrun = time.monotonic() - (start + ms / 1000)
        assert overrun < 0.03, overrun  # < 10 ms on an idle machine; shared cores here
        assert res.reason == "deadline"
        assert b.is_empty(res.move)
        eng.new_game()


def test_stop_event_ends_search_promptly():
    b = middle_game()
    stop = threading.Event()
    timer = threading.Timer(0.15, stop.set)
    start = time.monotonic()  # before the timer starts, so that the stop comes 0.15 s after it at the earliest
    timer.start()
    res = MnkEngine(b.config, seed=0).search(b, Limits(), stop=stop)
    took = time.monotonic() - start
    timer.cancel()
    assert res.reason == "stop"
    assert 0.14 < took < 0.25
    assert b.is_empty(res.move) and res.playouts > 0


@pytest.mark.slow
def test_same_seed_same_result():
    b = middle_game()
    r1 = best_move(b, Limits(nodes=600), seed=42)
    r2 = best_move(b, Limits(nodes=600), seed=42)
    assert (r1.move, r1.pv, r1.playouts, r1.visits, r1.value) == (r2.move, r2.pv, r2.playouts, r2.visits, r2.value)
    r3 = best_move(b, Limits(playouts=5000), seed=42)
    r4 = best_move(b, Limits(playouts=5000), seed=42)
    assert (r3.move, r3.pv, r3.nodes) == (r4.move, r4.pv, r4.nodes)


def test_limits_are_obeyed():
    b = middle_game()
    res = best_move(b, Limits(nodes=300), seed=1)
    assert res.nodes == 300 and res.reason == "nodes"
    res = best_move(b, Limits(playouts=1000), seed=1)
    assert 1000 <= res.playouts < 1000 + 64 and res.reason == "playouts"


def test_board_is_not_mutated():
    b = middle_game()
    before = (list(b.cells), list(b.history), b.to_move, b.winner)
    eng = MnkEngine(b.config, seed=3)
    eng.search(b, Limits(nodes=300))
    eng.search(b, Limits(nodes=300))
    assert (list(b.cells), list(b.history), b.to_move, b.winner) == before


def test_result_fields_are_consistent():
    b = middle_game()
    res = best_move(b, Limits(nodes=500), seed=5)
    assert isinstance(res, SearchResult)
    assert b.is_empty(res.move)
    assert 0.0 <= res.value <= 1.0
    assert res.pv and res.pv[0] == res.move
    assert res.nodes == 500 and res.playouts > 0 and res.depth >= 2
    assert 0 < res.visits <= res.playouts
    assert res.elapsed > 0 and res.proven is None
    # The pv is a legal continuation.
    c = b.copy()
    for m in res.pv:
        assert c.is_empty(m)
        if c.play(m) is not None:
            break


@pytest.mark.slow
def test_on_info_reports_progress():
    b = middle_game()
    infos: list[SearchInfo] = []
    best_move_engine = MnkEngine(b.config, seed=1)
    best_move_engine.search(b, Limits.movetime(700), on_info=infos.append)
    assert len(infos) >= 3
    assert all(isinstance(i, SearchInfo) for i in infos)
    assert infos[-1].playouts >= infos[0].playouts
    assert all(0 <= i.value <= 1 and i.pv for i in infos)


@pytest.mark.slow
def test_tree_is_reused_between_moves():
    b = middle_game()
    eng = MnkEngine(b.config, seed=1)
    r1 = eng.search(b, Limits(nodes=2000))
    assert not eng.reused
    b.play(r1.move)
    b.play(r1.pv[1])
    r2 = eng.search(b, Limits(nodes=10))
    assert eng.reused
    assert b.is_empty(r2.move)
    # A position that does not follow: rebuilt.
    other = middle_game()
    other.play(0)
    eng.search(other, Limits(nodes=10))
    assert not eng.reused
    eng.new_game()
    eng.search(b, Limits(nodes=10))
    assert not eng.reused


def test_game_over_and_wrong_config_raise():
    cfg = GameConfig.square(3, 3)
    b = Board(cfg)
    for m in (0, 3, 1, 4, 2):
        b.play(m)
    with pytest.raises(GameError):
        best_move(b, Limits(nodes=10))
    with pytest.raises(GameError):
        MnkEngine(GameConfig.square(4, 3)).search(Board(cfg), Limits(nodes=10))


def test_last_empty_cell_is_played():
    cfg = GameConfig.square(3, 3)
    b = Board(cfg)
    for m in (0, 1, 2, 4, 3, 5, 7, 6):
        b.play(m)
    res = best_move(b, Limits(nodes=10), seed=0)
    assert res.move == 8


@pytest.mark.parametrize("rule", list(Rule))
def test_every_rule_searches(rule):
    cfg = GameConfig(9, 9, 5 if rule is Rule.RENJU else 4, rule)
    b = Board(cfg)
    for m in (40, 41, 31, 50):
        b.play(m)
    res = best_move(b, Limits(nodes=300), seed=2)
    assert b.is_empty(res.move)


def test_options_validation():
    cfg = GameConfig.square(9, 4)
    with pytest.raises(ValueError, match="uct or guided"):
        options_for(cfg, "alphabeta")
    with pytest.raises(ValueError, match="exploration"):
        options_for(cfg, "uct", {"exploration": -1})
    with pytest.raises(ValueError, match="want a number"):
        options_for(cfg, "uct", {"exploration": "abc"})
    with pytest.raises(ValueError, match="valid keys: .*tree.exploration"):
        options_for(cfg, "uct", {"foo": 1})
    with pytest.raises(ValueError, match="ambiguous"):
        options_for(cfg, "uct", {"enabled": "true"})
    opts = options_for(cfg, "guided", {"exploration": "0.5", "native.enabled": "false", "root.thread": "yes"})
    assert opts.tree.exploration == 0.5 and not opts.native.enabled and opts.root.thread
    assert opts.tree.widening == MnkOptions.guided().tree.widening  # the rest of the preset stays


def test_the_presets_differ_where_measured():
    uct, guided = MnkOptions.uct(), MnkOptions.guided()
    assert uct.tree.exploration == 0.8 and guided.tree.exploration == 0.3
    assert uct.leaves.eval_weight == 0.0 and guided.leaves.eval_weight == 1.0
    assert uct.tree.prior_bias == 0.0 < guided.tree.prior_bias


def test_first_player_not_to_move_first():
    """A position set up with the second player to move is searched for it."""
    cfg = GameConfig.square(7, 4)
    b = Board.from_stones(cfg, [(0, 0, 2), (1, 0, 2), (2, 0, 2), (6, 6, 1), (5, 6, 1), (4, 4, 1)],
                          to_move=Player.SECOND)
    res = best_move(b, Limits(nodes=50), seed=0)
    assert res.move == cfg.move(3, 0) and res.proven == "win"


def test_open_engine_uses_a_second_thread_only_where_it_has_work():
    from engine.api import native_code, open_engine

    c15 = GameConfig.square(15, 5)
    guided = options_for(c15, "guided")
    assert open_engine(c15, guided, threads=2).options.root.thread is native_code()
    assert not open_engine(c15, guided, threads=1).options.root.thread
    exact = GameConfig.square(15, 5, Rule.EXACT)  # the C tree does not play exact: one thread
    assert not open_engine(exact, guided, threads=2).options.root.thread
    assert not open_engine(c15, options_for(c15, "uct"), threads=2).options.root.thread
    with pytest.raises(TypeError):
        open_engine("chess")


def test_one_keyed_options_implementation_serves_every_game():
    """Both games' options convert and check values the same way (engine.options)."""
    from engine.reversi.board.rules import ReversiConfig

    for game in (GameConfig(), ReversiConfig(8)):
        keys = {k for k, _, _ in option_keys(options_for(game))}
        assert "tree.exploration" in keys
        opts = options_for(game, "uct", {"exploration": "1.1", "tree.reuse_tree": "off"})
        assert opts.tree.exploration == 1.1 and opts.tree.reuse_tree is False
        for bad, words in (({"exploration": "x"}, "want a number"), ({"nope": "1"}, "valid keys"),
                           ({"reuse_tree": "maybe"}, "true or false"), ({"exploration": "-1"}, "exploration")):
            with pytest.raises(ValueError, match=words):
                options_for(game, "uct", bad)


def test_native_note_tells_switched_off_from_not_built(monkeypatch):
    import engine.api as api
    from engine.reversi.board.rules import ReversiConfig

    for game, figure in ((GameConfig(), api.PURE_PYTHON_SLOWDOWN["mnk"]),
                         (ReversiConfig(), api.PURE_PYTHON_SLOWDOWN["reversi"])):
        # (the environment is only ever set here: the kernel reads it once, at its import)
        if api.native_code(game):
            assert api.native_note(game) == "C extension built"
        monkeypatch.setenv("MNK_PURE_PYTHON", "1")
        if api.native_built(game):
            assert api.native_note(game) == f"C extension switched off by MNK_PURE_PYTHON=1: {figure}"
        with monkeypatch.context() as m:
            m.setattr(api, "native_built", lambda game=None: False)  # an install without a compiler
            assert api.native_note(game) == f"C extension not built: {figure}"


def test_native_code_answers_for_each_games_extension(monkeypatch):
    from engine.api import native_code
    from engine.reversi import kernel
    from engine.reversi.board.rules import ReversiConfig

    assert native_code(ReversiConfig()) is (kernel.native() is not None)
    assert native_code(GameConfig()) is native_code()
    monkeypatch.setenv("MNK_PURE_PYTHON", "1")
    assert native_code(ReversiConfig()) is False and native_code() is False
