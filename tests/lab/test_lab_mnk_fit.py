"""The m,n,k knowledge pipeline end to end, tiny: self-play, labels, fit, weights the engine loads."""

import json

import numpy as np

from engine.mnk.board.rules import Board, GameConfig
from engine.mnk.knowledge.shapes import ShapeBoard, ShapeWeights
from lab import mnk_fit, mnk_labels, mnk_selfplay

SMALL = GameConfig.square(9, 4)


def test_labels_are_the_searchs_move_and_value_for_each_position():
    game = mnk_selfplay.play_game(SMALL, 7, 0, 40, 3, 4, 0.0)
    rows = mnk_labels.label_game(game, 60)
    assert len(rows) == len(game["moves"]) - game["opening"]
    assert rows == mnk_labels.label_game(game, 60)  # deterministic
    for row in rows:
        board = Board(SMALL)
        for x, y in row["moves"]:
            board.play(SMALL.move(x, y))
        assert int(board.to_move) == row["to_move"]
        assert board.is_empty(SMALL.move(*row["best"]))
        assert 0.0 <= row["value"] <= 1.0
        if row["proven"] == "win":
            assert row["value"] == 1.0
        assert all(board.is_empty(SMALL.move(x, y)) for x, y, _ in row["visits"])


def test_the_pipeline_fits_weights_that_learn_the_search_moves(tmp_path):
    games = tmp_path / "games.jsonl"
    labels = tmp_path / "labels.jsonl"
    weights = tmp_path / "weights.json"
    assert mnk_selfplay.main(["--games", "6", "--seed", "2", "--nodes", "40", "--size", "9",
                              "--win-length", "4", "--out", str(games)]) == 0
    assert mnk_labels.main([str(games), "--nodes", "60", "--out", str(labels)]) == 0
    assert mnk_fit.main([str(labels), "--steps", "150", "--out", str(weights)]) == 0
    fitted = ShapeWeights.from_json(weights.read_text())
    assert fitted.trained_for == "9x9-k4-freestyle"
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    pos = mnk_fit.Positions(rows)
    everything = np.arange(len(rows))
    data = mnk_fit.PriorData(pos, ShapeBoard(SMALL, fitted), everything)
    theta = np.concatenate([fitted.attack, fitted.defence, fitted.attack_lines, fitted.defence_lines])
    # On the positions it was fitted to, the fit ranks the search's move better than no knowledge.
    assert data.loss_grad(theta, 0.0)[0] < data.loss_grad(np.zeros_like(theta), 0.0)[0]
    assert np.mean(data.ranks(data.logits(theta)) == 0) > np.mean(data.ranks(data.logits(theta * 0)) == 0)


def test_the_fits_forms_are_the_engines_priors_and_value():
    # lab.mnk_fit learns in its own index form (for the gradients); weights it fits must mean
    # in the engine exactly what they meant to the fit.
    rng = np.random.default_rng(4)
    game = mnk_selfplay.play_game(SMALL, 9, 0, 40, 4, 4, 0.0)
    rows = mnk_labels.label_game(game, 40)
    pos = mnk_fit.Positions(rows)
    zero = ShapeWeights.zero()
    weights = ShapeWeights(*(tuple(rng.normal(size=len(getattr(zero, name)))) for name in
                             ("attack", "defence", "attack_lines", "defence_lines", "mine", "theirs")),
                           tempo=0.3, trained_for="")
    sb = ShapeBoard(SMALL, weights)
    everything = np.arange(len(rows))
    data = mnk_fit.PriorData(pos, sb, everything)
    theta = np.concatenate([weights.attack, weights.defence, weights.attack_lines, weights.defence_lines])
    logits = data.logits(theta)
    for r, i in enumerate(everything):
        k = data.mask[r].sum()
        expected = sb.prior_logits(pos.boards[i: i + 1], int(pos.movers[i]), data.cells[r, :k])[0]
        assert np.allclose(logits[r, :k], expected)
    x = mnk_fit.value_features(pos, sb, everything)
    fitted = x @ np.concatenate([weights.mine, weights.theirs]) + weights.tempo
    assert np.allclose(fitted, sb.value_logits(pos.boards, pos.movers))


def test_self_play_games_are_fitted_by_their_own_searches_and_priors_can_be_kept(tmp_path):
    games = tmp_path / "games.jsonl"
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert mnk_selfplay.main(["--games", "6", "--seed", "3", "--nodes", "40", "--size", "9",
                              "--win-length", "4", "--out", str(games)]) == 0
    rows = [json.loads(line) for line in games.read_text().splitlines()]
    labelled = mnk_labels.expand(rows)
    assert labelled == [r for g in rows for r in mnk_labels.own_labels(g)]
    assert len(labelled) == sum(len(g["moves"]) - g["opening"] for g in rows)
    assert mnk_fit.main([str(games), "--steps", "100", "--out", str(first)]) == 0
    assert mnk_fit.main([str(games), "--steps", "100", "--result-share", "1", "--priors", str(first),
                         "--out", str(second)]) == 0
    a = ShapeWeights.from_json(first.read_text())
    b = ShapeWeights.from_json(second.read_text())
    assert (b.attack, b.defence, b.attack_lines, b.defence_lines) == (a.attack, a.defence, a.attack_lines, a.defence_lines)
    assert b.mine != a.mine and any(a.attack)  # the value was fitted again, to the results
    assert json.loads(second.read_text())["priors_from"] == "first.json"
