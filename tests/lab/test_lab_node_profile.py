"""lab/node_profile.py: where guided mode's search time goes on 15x15 middle games."""

import re

import pytest

from lab import node_profile


def test_positions_are_the_bench_middle_game_then_game_positions():
    games = node_profile.middle_games(4)
    assert len(games) == 4
    name, first = games[0]
    assert name == "bench-middle" and first.stone_count == 20
    for _, board in games:
        assert board.config.width == 15 and 14 <= board.stone_count <= 40 and board.winner is None


def test_the_split_covers_the_time_and_the_total_adds_the_positions(capsys):
    assert node_profile.main(["--positions", "2", "--nodes", "300"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows, total = out[:-1], out[-1]
    assert len(rows) == 2
    nodes = [int(re.search(r"nodes +(\d+)", row).group(1)) for row in rows]
    assert all(n > 0 for n in nodes)
    match = re.match(r"total: (\d+) nodes in [\d.]+ s, .*plan ([\d.]+)%, tree ([\d.]+)%, rest (-?[\d.]+)%", total)
    assert match, total
    assert int(match.group(1)) == sum(nodes)
    plan, tree, rest = (float(match.group(i)) for i in (2, 3, 4))
    assert tree > 0 and plan + tree + rest == pytest.approx(100, abs=0.2)


def test_tree_only_runs_no_plan_and_bad_options_are_usage_errors(capsys):
    assert node_profile.main(["--positions", "1", "--nodes", "200", "--tree-only"]) == 0
    total = capsys.readouterr().out.splitlines()[-1]
    assert re.search(r"plan 0\.0%", total), total
    with pytest.raises(SystemExit) as exc:
        node_profile.main(["--nodes", "0"])
    assert exc.value.code == 2


def test_the_same_stones_under_renju_and_in_the_middle_of_a_larger_board():
    from engine.mnk.board.rules import Rule

    plain = node_profile.middle_games(3)
    moved = node_profile.middle_games(3, Rule.RENJU, 20)
    assert [name for name, _ in moved] == [name for name, _ in plain]
    for (_, a), (_, b) in zip(plain, moved):
        assert b.config.width == 20 and b.config.rule is Rule.RENJU
        assert [b.config.xy(m) for m in b.history] == [(x + 2, y + 2) for x, y in map(a.config.xy, a.history)]
    with pytest.raises(SystemExit) as exc:
        node_profile.main(["--size", "9"])
    assert exc.value.code == 2
