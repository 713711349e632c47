"""Threat recognition and the VCF solver against brute force and hand-made positions."""

from __future__ import annotations

import random
import time

import pytest

from engine.mnk.threats import kinds as threats
from engine.mnk.threats import solver
from engine.mnk.threats import defence
from engine.mnk.knowledge.patterns import LineState, geometry
from engine.mnk.board.rules import Board, GameConfig, Player, Rule

X, O = 1, 2
ALL_RULES = (Rule.FREESTYLE, Rule.EXACT, Rule.CARO)


# Helpers ---------------------------------------------------------------------------


def board_of(cfg: GameConfig, xs, os_, to_move: int = X) -> Board:
    """A board with X stones ``xs`` and O stones ``os_`` (lists of (x, y)), ``to_move`` to play.

    Stone counts need not be those of a real game: threats do not depend on them.
    """
    b = Board(cfg)
    for p, pts in ((X, xs), (O, os_)):
        for x, y in pts:
            b.to_move = Player(p)
            assert b.play(cfg.move(x, y)) is None, "test position must not be won already"
    b.to_move = Player(to_move)
    return b


def mv(cfg: GameConfig, *xys) -> set[int]:
    return {cfg.move(x, y) for x, y in xys}


def snapshot(board: Board):
    return (list(board.cells), list(board.history), board.to_move, board.winner, board.empty_count)


def random_position(cfg: GameConfig, rng: random.Random, stones: int, to_move: int) -> Board:
    """A random unfinished position with about ``stones`` stones, ``to_move`` to play.

    Stones are dropped near the centre so lines actually form; moves that would
    win are skipped, and so are black's forbidden points under renju.
    """
    board = Board(cfg)
    cx, cy = cfg.width // 2, cfg.height // 2
    spread = max(2, min(cfg.width, cfg.height) // 3)
    tries = 0
    while board.stone_count < stones and tries < 20 * stones:
        tries += 1
        x = min(cfg.width - 1, max(0, cx + rng.randint(-spread, spread)))
        y = min(cfg.height - 1, max(0, cy + rng.randint(-spread, spread)))
        m = cfg.move(x, y)
        if board.is_empty(m) and not board.wins_if_played(m, board.to_move):
            if board.to_move is Player.FIRST and board.forbidden(m):
                continue  # renju: not black's forbidden points
            board.play(m)
    board.to_move = Player(to_move)  # threats do not depend on stone counts
    return board


def bf_completing(board: Board, p: int) -> set[int]:
    return set(board.winning_cells(Player(p)))


def bf_fours(board: Board, p: int) -> set[int]:
    out = set()
    for m in range(board.config.area):
        if board.is_empty(m) and not board.wins_if_played(m, Player(p)):
            board.cells[board.config.padded(m)] = p
            if bf_completing(board, p):
                out.add(m)
            board.cells[board.config.padded(m)] = 0
    return out


def bf_unstoppable(board: Board, p: int) -> bool:
    """``p`` has completing cells and no single opponent stone removes them all."""
    wins = bf_completing(board, p)
    if not wins:
        return False
    for r in range(board.config.area):
        if board.is_empty(r):
            board.cells[board.config.padded(r)] = 3 - p
            # An opponent stone never creates a completion, so only the existing ones can remain.
            left = any(w != r and board.wins_if_played(w, Player(p)) for w in wins)
            board.cells[board.config.padded(r)] = 0
            if not left:
                return False
    return True


def bf_doubles(board: Board, p: int) -> set[int]:
    out = set()
    for m in bf_fours(board, p):
        board.cells[board.config.padded(m)] = p
        if bf_unstoppable(board, p):
            out.add(m)
        board.cells[board.config.padded(m)] = 0
    return out


def bf_vcf(board: Board, a: int, depth: int) -> bool:
    """Brute force: can ``a`` (to move) win with at most ``depth`` fours, every defender reply tried?"""
    cells, pad = board.cells, board.config.padded
    if bf_completing(board, a):
        return True
    if depth == 0:
        return False
    d = 3 - a
    for m in range(board.config.area):
        if not board.is_empty(m):
            continue
        cells[pad(m)] = a
        try:
            if not bf_completing(board, a):
                continue
            ok = True
            for r in range(board.config.area):
                if not board.is_empty(r):
                    continue
                if board.wins_if_played(r, Player(d)):
                    ok = False
                    break
                cells[pad(r)] = d
                try:
                    ok = bf_vcf(board, a, depth - 1)
                finally:
                    cells[pad(r)] = 0
                if not ok:
                    break
            if ok:
                return True
        finally:
            cells[pad(m)] = 0
    return False


def replay_vcf(board: Board, a: int, line: list[int]) -> None:
    """Assert that ``line`` is a sound VCF for ``a``: every attacker move a four, replies forced, a win at the end."""
    b = board.copy()
    b.to_move = Player(a)
    d = Player(3 - a)
    for i, m in enumerate(line):
        if i % 2 == 0:
            if b.wins_if_played(m, Player(a)):
                assert i == len(line) - 1
                return
            b.play(m)
            assert not b.winning_cells(d), "attacker ignored a defender threat"
            w = b.winning_cells(Player(a))
            assert w, "attacker move is not a four"
            if i == len(line) - 1:
                assert bf_unstoppable(b, a)
                return
        else:
            assert not b.winning_cells(d)
            b.play(m)
            assert not b.winning_cells(Player(a)), "defender reply does not stop the four"
    raise AssertionError("line does not end in a win")


# Geometry ------------------------------------------------------------------------------


@pytest.mark.parametrize("w,h,k", [(3, 3, 3), (15, 15, 5), (7, 9, 4), (10, 4, 4), (5, 5, 2), (64, 3, 3), (4, 6, 6)])
def test_window_count_formula(w, h, k):
    cfg = GameConfig(w, h, k)
    geom = geometry(cfg)
    expect = h * max(0, w - k + 1) + w * max(0, h - k + 1) + 2 * max(0, w - k + 1) * max(0, h - k + 1)
    assert len(geom.windows) == expect
    for win in geom.windows:
        assert len(win) == k and len(set(win)) == k
        assert all(cfg.padded(cfg.unpadded(c)) == c for c in win)
    assert geometry(cfg) is geom  # cached per config


def test_line_state_window_counts_match_stones():
    cfg = GameConfig(9, 9, 4)
    b = random_position(cfg, random.Random(3), 20, X)
    c1, c2 = LineState(cfg, b.cells).cnt[1:]
    for wid, win in enumerate(geometry(cfg).windows):
        assert c1[wid] == sum(b.cells[c] == 1 for c in win)
        assert c2[wid] == sum(b.cells[c] == 2 for c in win)


# Recognition against brute force -------------------------------------------------------------

BRUTE_CONFIGS = [
    (GameConfig(7, 7, 4, r), 14) for r in ALL_RULES
] + [
    (GameConfig(8, 6, 5, r), 16) for r in ALL_RULES
] + [(GameConfig(6, 6, 3, Rule.FREESTYLE), 6), (GameConfig(6, 6, 3, Rule.CARO), 6), (GameConfig(5, 7, 3, Rule.EXACT), 6)]


@pytest.mark.parametrize("cfg,stones", BRUTE_CONFIGS, ids=lambda v: v.label if isinstance(v, GameConfig) else str(v))
def test_recognition_matches_brute_force(cfg, stones):
    rng = random.Random(sum(map(ord, cfg.label)))
    for _ in range(12):
        b = random_position(cfg, rng, stones, rng.choice((X, O)))
        before = snapshot(b)
        for p in (X, O):
            assert set(threats.winning_moves(b, p)) == bf_completing(b, p)
            if bf_completing(b, p):
                continue  # "four" is about creating a completion; with one already every move keeps it
            assert set(threats.four_moves(b, p)) == bf_fours(b, p)
            assert set(threats.double_threat_moves(b, p)) == bf_doubles(b, p)
        assert snapshot(b) == before


@pytest.mark.parametrize("cfg,stones", BRUTE_CONFIGS, ids=lambda v: v.label if isinstance(v, GameConfig) else str(v))
def test_four_options_agree_with_four_replies(cfg, stones):
    """The one-pass four list the solvers use (a fast path under freestyle) says of every cell
    exactly what asking that cell alone says, and every four is a brute-force four."""
    rng = random.Random(3 + sum(map(ord, cfg.label)))
    seen = doubles = 0
    for _ in range(12):
        b = random_position(cfg, rng, stones, rng.choice((X, O)))
        st = LineState(cfg, b.cells)
        for p in (X, O):
            if st.completing(p):
                continue
            slow = []
            for c in st.four_candidates(p):
                w, replies = st.four_replies(c, p)
                if w:
                    slow.append((c, w, replies))
            assert st.four_options(p) == slow
            assert {cfg.unpadded(c) for c, _, _ in slow} == bf_fours(b, p)
            seen += len(slow)
            doubles += sum(1 for _, _, r in slow if not r)
    assert seen >= 5 and doubles >= 1  # the sample must exercise fours and double threats


VCF_CONFIGS = [(GameConfig(7, 7, 4, r), 10) for r in ALL_RULES] + [(GameConfig(8, 6, 5, r), 12) for r in ALL_RULES]


@pytest.mark.parametrize("cfg,stones", VCF_CONFIGS, ids=lambda v: v.label if isinstance(v, GameConfig) else str(v))
def test_vcf_matches_brute_force(cfg, stones):
    rng = random.Random(7 + len(cfg.label))
    found = refuted = 0
    for _ in range(40):
        a = rng.choice((X, O))
        b = random_position(cfg, rng, stones, a)
        if b.winning_cells(Player(a)):
            continue
        before = snapshot(b)
        line = solver.find_vcf(b, a)
        assert snapshot(b) == before
        if line is not None:
            found += 1
            replay_vcf(b, a, line)
            assert bf_vcf(b, a, (len(line) + 1) // 2)
        else:
            refuted += 1
            assert not bf_vcf(b, a, 2)
    assert found >= 1 and refuted >= 1  # the sample must exercise both cases


# Hand-made positions: every direction, edges, K = 3..6, rules ----------------------------------

DIRECTIONS = [(1, 0), (0, 1), (1, 1), (-1, 1)]


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.value)
@pytest.mark.parametrize("k", [3, 4, 5, 6])
@pytest.mark.parametrize("dx,dy", DIRECTIONS)
def test_completing_cell_every_direction_and_edge(k, dx, dy, rule):
    n = k + 3
    cfg = GameConfig(n, n, k, rule)
    # A line of k-1 stones starting at the board edge: the only completing cell is the next one.
    x0 = 0 if dx >= 0 else n - 1
    line = [(x0 + i * dx, i * dy) for i in range(k - 1)]
    far = [(n - 1 - i, n - 1) for i in range(k - 1)] if (dx, dy) != (1, 0) else [(n - 1, n - 1 - i) for i in range(k - 1)]
    far = far[: k - 2]  # O stones that make no line of their own
    b = board_of(cfg, line, far, to_move=X)
    nxt = (x0 + (k - 1) * dx, (k - 1) * dy)
    assert threats.winning_moves(b, X) == [cfg.move(*nxt)]
    assert defence.tactical_move(b) == (cfg.move(*nxt), "win")
    b2 = board_of(cfg, line, far, to_move=O) if len(far) < len(line) else None
    if b2 is not None:
        assert defence.tactical_move(b2) == (cfg.move(*nxt), "block")


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.value)
@pytest.mark.parametrize("k", [3, 4, 5, 6])
@pytest.mark.parametrize("dx,dy", DIRECTIONS)
def test_open_line_is_double_threat(k, dx, dy, rule):
    n = k + 4
    cfg = GameConfig(n, n, k, rule)
    # k-2 stones in the middle of an open line: extending makes an open k-1 (a double threat).
    if (dx, dy) == (-1, 1):
        start = (n - 3, 2)
    else:
        start = (2, 2) if dy else (2, n // 2)
    xs = [(start[0] + i * dx, start[1] + i * dy) for i in range(k - 2)]
    os_ = [(0, n - 1), (1, n - 1), (0, n - 2)][: k - 2]
    b = board_of(cfg, xs, os_, to_move=X)
    ext = cfg.move(start[0] + (k - 2) * dx, start[1] + (k - 2) * dy)
    assert ext in threats.double_threat_moves(b, X)
    assert set(threats.double_threat_moves(b, X)) == bf_doubles(b, X)
    assert set(threats.four_moves(b, X)) == bf_fours(b, X)
    line = solver.find_vcf(b, X)
    assert line is not None and len(line) == 1
    assert line[0] in threats.double_threat_moves(b, X)


def test_exact_rule_overline_is_not_a_win():
    cfg_f = GameConfig(9, 9, 4, Rule.FREESTYLE)
    cfg_e = GameConfig(9, 9, 4, Rule.EXACT)
    xs, os_ = [(1, 4), (2, 4), (4, 4), (5, 4)], [(0, 0), (8, 8), (0, 8), (8, 0)]
    # X X _ X X: the gap would make five, an overline under the exact rule.
    assert threats.winning_moves(board_of(cfg_f, xs, os_), X) == [cfg_f.move(3, 4)]
    assert threats.winning_moves(board_of(cfg_e, xs, os_), X) == []
    # X X X _ X under exact: (3,4) overlines; still no completing cell, and no four through it either.
    be = board_of(cfg_e, [(0, 4), (1, 4), (2, 4), (4, 4)], os_)
    assert cfg_e.move(3, 4) not in threats.winning_moves(be, X)
    assert cfg_e.move(3, 4) not in threats.four_moves(be, X)


def test_caro_blocked_line_is_not_a_win_but_edge_is_no_block():
    cfg_c = GameConfig(9, 9, 5, Rule.CARO)
    cfg_f = GameConfig(9, 9, 5, Rule.FREESTYLE)
    xs = [(1, 3), (2, 3), (3, 3), (4, 3)]
    os_ = [(0, 3), (6, 3), (8, 8), (7, 8)]
    assert threats.winning_moves(board_of(cfg_f, xs, os_), X) == [cfg_f.move(5, 3)]
    assert threats.winning_moves(board_of(cfg_c, xs, os_), X) == []
    # Against the board edge one O stone is not enough to block under caro.
    xs2 = [(0, 5), (1, 5), (2, 5), (3, 5)]
    os2 = [(5, 5), (8, 8), (7, 8), (6, 8)]
    assert threats.winning_moves(board_of(cfg_c, xs2, os2), X) == [cfg_c.move(4, 5)]


def test_caro_four_can_be_stopped_beyond_its_end():
    cfg = GameConfig(11, 11, 5, Rule.CARO)
    # O X X X X _ . : the completing cell (5,5) is spoilt by an O stone on (6,5) as well.
    b = board_of(cfg, [(1, 5), (2, 5), (3, 5), (4, 5)], [(0, 5), (9, 9), (9, 0)], to_move=O)
    ds = defence.defence_set(b)
    assert ds == mv(cfg, (5, 5), (6, 5))
    assert defence.tactical_move(b)[1] == "block"


def test_caro_closed_gap_gives_no_four():
    # O . X X . O with k=4: under caro any four made here is a run of exactly 4 between two O stones.
    xs, os_ = [(4, 2), (5, 2)], [(2, 2), (7, 2), (11, 4)]
    caro = board_of(GameConfig(12, 5, 4, Rule.CARO), xs, os_)
    free = board_of(GameConfig(12, 5, 4), xs, os_)
    row = {GameConfig(12, 5, 4).move(x, 2) for x in (3, 6)}
    assert row <= set(threats.four_moves(free, X))
    assert not row & set(threats.four_moves(caro, X))
    for b in (caro, free):
        assert set(threats.four_moves(b, X)) == bf_fours(b, X)
        assert set(threats.double_threat_moves(b, X)) == bf_doubles(b, X)


def test_three_moves_open_three():
    cfg = GameConfig(15, 15, 5)
    b = board_of(cfg, [(6, 7), (7, 7)], [(0, 0), (14, 14)], to_move=X)
    threes = set(threats.three_moves(b, X))
    assert cfg.move(8, 7) in threes and cfg.move(5, 7) in threes
    assert cfg.move(7, 12) not in threes
    # Every reported three really threatens a double threat next move, and a blocked one does not count.
    for m in threes:
        b.play(m)
        b.to_move = Player(X)
        assert threats.double_threat_moves(b, X)
        b.undo()
        b.to_move = Player(X)
    blocked = board_of(cfg, [(6, 7), (7, 7)], [(5, 7), (14, 14)], to_move=X)
    assert cfg.move(8, 7) not in threats.three_moves(blocked, X)


def test_vcf_through_several_fours_and_forced_replies():
    cfg = GameConfig(15, 15, 5)
    # Two closed threes sharing no cell; fours in one direction set up a double in another.
    xs = [(5, 5), (6, 5), (7, 5), (8, 6), (8, 7), (8, 8)]
    os_ = [(4, 5), (8, 9), (0, 0), (14, 0), (0, 14), (14, 14)]
    b = board_of(cfg, xs, os_, to_move=X)
    line = solver.find_vcf(b, X)
    assert line is not None
    replay_vcf(b, X, line)


def test_vcf_refused_when_defender_reply_makes_a_four():
    cfg = GameConfig(9, 9, 4)
    # Found by search: a solver that lets the defender block without looking at the defender's own
    # completions "wins" here with three fours; the brute force shows there is no VCF.
    stones = [(1, 1, 2), (2, 1, 1), (1, 2, 1), (6, 2, 1), (1, 3, 1), (1, 4, 2), (3, 4, 2), (7, 4, 2),
              (3, 5, 2), (1, 7, 2), (2, 7, 1), (4, 7, 1)]
    b = board_of(cfg, [(x, y) for x, y, p in stones if p == X], [(x, y) for x, y, p in stones if p == O])
    assert solver.find_vcf(b, X) is None
    assert not bf_vcf(b, X, 3)


def test_attacker_must_answer_defender_four():
    cfg = GameConfig(15, 15, 5)
    o_four = [(2, 2), (3, 2), (4, 2), (5, 2)]  # completes only on (6, 2): (1, 2) is X
    open_three = [(9, 9), (10, 9), (11, 9)]
    # Blocking on (6, 2) also makes an open four for X: that is the VCF, the open three must wait.
    b = board_of(cfg, [(1, 2), (6, 3), (6, 4), (6, 5)] + open_three, o_four + [(14, 0), (0, 14)])
    assert solver.find_vcf(b, X) == [cfg.move(6, 2)]
    assert defence.tactical_move(b) == (cfg.move(6, 2), "block")
    # Without the vertical stones the block is no four, so X has no VCF despite its open three.
    b2 = board_of(cfg, [(1, 2), (6, 3), (6, 4)] + open_three, o_four + [(14, 0), (0, 14)])
    assert threats.double_threat_moves(b2, X)
    assert solver.find_vcf(b2, X) is None
    # And when O has two completions nothing helps.
    b3 = board_of(cfg, [(6, 3), (6, 4), (6, 5)] + open_three, o_four + [(14, 0)])
    assert solver.find_vcf(b3, X) is None
    assert defence.tactical_move(b3)[1] == "lost"


# tactical_move, defence_set, candidate_moves -----------------------------------------------------


def test_tactical_priorities():
    cfg = GameConfig(9, 9, 4)
    # X to move can win and O can win: win first.
    b = board_of(cfg, [(0, 0), (1, 0), (2, 0)], [(0, 5), (1, 5), (2, 5)], to_move=X)
    assert defence.tactical_move(b) == (cfg.move(3, 0), "win")
    # O to move cannot win, X threatens one completion: block it.
    b = board_of(cfg, [(0, 0), (1, 0), (2, 0), (8, 8)], [(0, 5), (1, 5), (8, 3)], to_move=O)
    assert defence.tactical_move(b) == (cfg.move(3, 0), "block")
    # X has two completions: lost, still answers with one of them.
    b = board_of(cfg, [(2, 4), (3, 4), (4, 4), (8, 8)], [(0, 0), (8, 0), (0, 8)], to_move=O)
    move, why = defence.tactical_move(b)
    assert why == "lost" and move in mv(cfg, (1, 4), (5, 4))


def test_quiet_positions_have_no_tactics():
    cfg = GameConfig(15, 15, 5)
    b = board_of(cfg, [(7, 7)], [(8, 8)], to_move=X)
    assert defence.tactical_move(b) is None
    assert defence.defence_set(b) is None
    empty = Board(cfg)
    assert defence.tactical_move(empty) is None
    assert solver.find_vcf(empty, X) is None


@pytest.mark.parametrize("cfg", [GameConfig(11, 9, 5), GameConfig(9, 9, 4), GameConfig(9, 9, 4, Rule.EXACT),
                                 GameConfig(9, 9, 4, Rule.CARO), GameConfig(12, 8, 6)], ids=lambda c: c.label)
@pytest.mark.slow
def test_defence_against_open_line_matches_brute_force(cfg):
    k = cfg.win_length
    xs = [(3 + i, 4) for i in range(k - 2)]
    corners = [(0, 0), (cfg.width - 1, 0), (0, cfg.height - 1), (cfg.width - 1, cfg.height - 1)]
    b = board_of(cfg, xs, corners[: k - 2], to_move=O)
    ds = defence.defence_set(b)
    assert ds, "an open K-2 must produce a defence set"
    # Brute force: the moves after which X has no completing cell and no double-threat move.
    expect = set()
    # Cells farther than K from every X stone cannot touch X's lines: brute force the rest.
    near = {m for m in range(cfg.area)
            if any(max(abs(cfg.xy(m)[0] - x), abs(cfg.xy(m)[1] - y)) <= k for x, y in xs)}
    assert ds <= near
    for m in near:
        if b.is_empty(m):
            b.cells[cfg.padded(m)] = O
            if not bf_doubles(b, X) and not bf_completing(b, X):
                expect.add(m)
            b.cells[cfg.padded(m)] = 0
    fours = set(threats.four_moves(b, O))
    assert ds - fours <= expect
    assert ds & expect
    # What was left out of the brute-force set must lose to a VCF.
    for m in expect - ds:
        b.cells[cfg.padded(m)] = O
        assert solver.find_vcf(b, X) is not None
        b.cells[cfg.padded(m)] = 0


def test_candidate_moves():
    cfg = GameConfig(15, 15, 5)
    empty = Board(cfg)
    cands = defence.candidate_moves(empty)
    assert cands[0][0] == cfg.move(7, 7)
    assert abs(sum(p for _, p in cands) - 1.0) < 1e-9
    assert all(max(abs(x - 7), abs(y - 7)) <= 3 for x, y in (cfg.xy(m) for m, _ in cands))
    b = board_of(cfg, [(5, 5), (6, 5), (7, 5), (8, 5)], [(5, 6), (6, 6), (7, 6)], to_move=O)
    cands = defence.candidate_moves(b)
    moves = [m for m, _ in cands]
    # O must block one of X's completions or... X's open four ends top the list, then O's own four cells.
    assert set(moves[:2]) == mv(cfg, (4, 5), (9, 5))
    assert all(b.is_empty(m) for m in moves)
    assert all(min(max(abs(cfg.xy(m)[0] - x), abs(cfg.xy(m)[1] - y)) for x, y, _ in b.stones()) <= 2 for m in moves)
    assert len(defence.candidate_moves(b, limit=5)) == 5
    small = board_of(GameConfig(3, 3, 3), [(1, 1)], [], to_move=O)
    assert {m for m, _ in defence.candidate_moves(small)} == set(range(9)) - {4}


def test_bad_input_and_finished_games():
    cfg = GameConfig(7, 7, 4)
    b = board_of(cfg, [(0, 0)], [], to_move=O)
    for bad in (0, 3, -1, "x", None, True):
        with pytest.raises(ValueError):
            solver.find_vcf(b, bad)
        with pytest.raises(ValueError):
            threats.winning_moves(b, bad)
    won = Board(cfg)
    for m in (0, 7, 1, 8, 2, 9, 3):
        won.play(m)
    assert won.winner == X
    assert defence.tactical_move(won) is None
    assert defence.candidate_moves(won) == []
    assert defence.defence_set(won) is None
    assert threats.winning_moves(won, O) == []


def test_every_size_and_k_runs_and_restores():
    rng = random.Random(11)
    for w, h, k in [(3, 3, 2), (3, 3, 3), (4, 12, 4), (12, 4, 12), (64, 3, 3), (3, 64, 2), (20, 20, 6)]:
        for rule in ALL_RULES:
            cfg = GameConfig(w, h, k, rule)
            b = random_position(cfg, rng, min(cfg.area // 3, 20), rng.choice((X, O)))
            before = snapshot(b)
            t = defence.tactical_move(b, deadline=time.monotonic() + 0.5)
            if t is not None:
                assert b.is_empty(t[0])
                if t[1] == "win":
                    assert b.wins_if_played(t[0], b.to_move)
            ds = defence.defence_set(b, deadline=time.monotonic() + 0.5)
            assert ds is None or (ds and all(b.is_empty(m) for m in ds))
            for m, p in defence.candidate_moves(b):
                assert b.is_empty(m) and p > 0
            assert snapshot(b) == before


def test_budget_is_respected():
    cfg = GameConfig(15, 15, 5)
    b = random_position(cfg, random.Random(5), 30, X)
    t = time.monotonic()
    solver.find_vcf(b, X, deadline=time.monotonic() - 1)
    solver.find_vcf(b, X, max_nodes=1)
    assert time.monotonic() - t < 0.5


# VCT ------------------------------------------------------------------------------------------------


def bf_win(board: Board, a: int, n: int) -> bool:
    """Brute force: ``a`` (to move) completes a line within ``n`` own moves whatever the defender does."""
    cells, pad, area = board.cells, board.config.padded, board.config.area
    if bf_completing(board, a):
        return True
    if n <= 1:
        return False
    d = 3 - a
    # Move order only affects speed: double threats and fours first.
    doubles, fours = bf_doubles(board, a), bf_fours(board, a)
    order = sorted((m for m in range(area) if board.is_empty(m)), key=lambda m: (m not in doubles, m not in fours))
    for m in order:
        cells[pad(m)] = a
        try:
            if bf_completing(board, d):
                continue
            ok = True
            for r in range(area):
                if board.is_empty(r):
                    cells[pad(r)] = d
                    try:
                        ok = bf_win(board, a, n - 1)
                    finally:
                        cells[pad(r)] = 0
                    if not ok:
                        break
            if ok:
                return True
        finally:
            cells[pad(m)] = 0
    return False


@pytest.mark.slow
@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.value)
def test_vct_found_and_sound(rule):
    cfg = GameConfig(7, 7, 4, rule)
    # X's (3,2) makes two diagonal twos at once: no four anywhere, but a win in three moves.
    b = board_of(cfg, [(2, 1), (4, 1), (5, 5)], [(3, 1), (4, 4), (1, 5)], to_move=X)
    before = snapshot(b)
    assert solver.find_vcf(b, X) is None
    line = solver.find_vct(b, X, max_threes=1)
    assert snapshot(b) == before
    assert line == [cfg.move(3, 2)]
    assert bf_win(b, X, 3)
    assert defence.tactical_move(b, vct=True) == (cfg.move(3, 2), "vct")
    assert (defence.tactical_move(b) or (None, ""))[1] != "vct"
    # With the key cell taken by O nothing is left.
    b2 = board_of(cfg, [(2, 1), (4, 1), (5, 5)], [(3, 1), (3, 2), (1, 5)], to_move=X)
    assert solver.find_vct(b2, X, max_threes=1) is None


@pytest.mark.slow
def test_vct_lines_are_sound_on_random_positions():
    cfg = GameConfig(6, 6, 4)
    rng = random.Random(2)
    checked = 0
    for _ in range(40):
        a = rng.choice((X, O))
        b = random_position(cfg, rng, 6, a)
        if b.winning_cells(Player(3 - a)) or solver.find_vcf(b, a):
            continue
        line = solver.find_vct(b, a, max_threes=1)
        if line is None or len(line) > 1:
            continue
        checked += 1
        assert bf_win(b, a, 3), (b, line)
        if checked == 3:
            break
    assert checked >= 1


@pytest.mark.parametrize("cfg", [GameConfig(9, 9, 4), GameConfig(11, 11, 5, Rule.EXACT), GameConfig(9, 9, 4, Rule.CARO)],
                         ids=lambda c: c.label)
def test_defence_against_longer_vcf(cfg):
    """When the opponent's threat is a VCF longer than one move, every move of the defence set refutes it."""
    rng = random.Random(4)
    seen = exact = 0
    for _ in range(300):
        b = random_position(cfg, rng, 7 if cfg.win_length == 4 else 16, X)
        if b.winning_cells(Player(X)) or b.winning_cells(Player(O)):
            continue
        if threats.four_moves(b, X) or threats.double_threat_moves(b, O) or not solver.find_vcf(b, O):
            continue
        seen += 1
        before = snapshot(b)
        ds = defence.defence_set(b)
        assert snapshot(b) == before
        refuting = set()
        for m in range(cfg.area):
            if b.is_empty(m):
                b.cells[cfg.padded(m)] = X
                if solver.find_vcf(b, O) is None:
                    refuting.add(m)
                b.cells[cfg.padded(m)] = 0
        assert ds and ds <= refuting
        exact += ds == refuting
        if seen == 4:
            break
    assert seen >= 2 and exact >= 1


def test_guided_expansion_orders_candidates_by_priors():
    from engine.mnk.tree.engine import MnkEngine
    from engine.mnk.tree.options import MnkOptions

    cfg = GameConfig(15, 15, 5)
    b = board_of(cfg, [(7, 7), (8, 7)], [(7, 8)], to_move=O)
    tree = MnkEngine(cfg, MnkOptions.guided().with_values({"native.enabled": False})).tree
    verdict = tree.oracle.verdict(b, None, None)
    cells = list(b.cells)
    ex = tree.evaluator.expand(b, verdict)
    assert cells == b.cells
    assert ex.win_plies == 0 and len(ex.priors) == len(ex.moves) > 8
    assert list(ex.priors) == sorted(ex.priors, reverse=True)
    pri = dict(zip(ex.moves, ex.priors))
    # Stopping X's two (either end) ranks above a quiet cell two rows away.
    assert pri[cfg.move(6, 7)] > pri[cfg.move(7, 10)] and pri[cfg.move(9, 7)] > pri[cfg.move(7, 10)]


def bf_threes(board: Board, p: int) -> set[int] | None:
    """Brute force: moves (no win, no four) after which ``p`` has a double-threat move; None if it already has one."""
    if bf_doubles(board, p) or bf_completing(board, p):
        return None
    out = set()
    for m in range(board.config.area):
        if board.is_empty(m):
            board.cells[board.config.padded(m)] = p
            if not bf_completing(board, p) and bf_doubles(board, p):
                out.add(m)
            board.cells[board.config.padded(m)] = 0
    return out


@pytest.mark.parametrize("cfg,stones", [(GameConfig(7, 7, 4, r), 6) for r in ALL_RULES] + [(GameConfig(8, 8, 5, Rule.CARO), 10)],
                         ids=lambda v: v.label if isinstance(v, GameConfig) else str(v))
@pytest.mark.slow
def test_three_moves_match_brute_force(cfg, stones):
    rng = random.Random(1)
    checked = 0
    for _ in range(12):
        b = random_position(cfg, rng, stones, X)
        expect = bf_threes(b, X)
        if expect is None:
            continue
        checked += 1
        assert set(threats.three_moves(b, X)) == expect
    assert checked >= 3


def test_vct_finds_the_line_of_fewest_threes_and_proves_there_is_none_with_fewer():
    # From a game against pela (15x15, X to move): X wins starting (9, 2) with two threes, the
    # second not building on the line's stones.  The best-first search finds it whatever the
    # bound above two, and with one three it finishes without a win: a proof that none exists.
    cfg = GameConfig.square(15, 5)
    moves = [(6, 8), (6, 7), (5, 7), (5, 8), (7, 6), (7, 7), (6, 6), (4, 6), (8, 7), (9, 6), (8, 9), (8, 10),
             (8, 5), (8, 4), (9, 8), (10, 9), (8, 8), (8, 6), (7, 10), (6, 11), (9, 5), (7, 5), (10, 8), (7, 8),
             (9, 4), (10, 7), (11, 5), (12, 5), (9, 3), (10, 3)]
    b = Board(cfg)
    for x, y in moves:
        b.play(cfg.move(x, y))
    before = snapshot(b)
    assert solver.find_vcf(b, X) is None
    for threes in (2, 3, 5):
        line, finished = solver.probe_vct(b, X, max_nodes=300_000, max_threes=threes)
        assert snapshot(b) == before
        assert finished and line is not None and line[0] == cfg.move(9, 2)
    assert solver.probe_vct(b, X, max_nodes=300_000, max_threes=1) == (None, True)


@pytest.mark.parametrize("cfg,stones", [(GameConfig(15, 15, 5), 22), (GameConfig(11, 9, 4), 8),
                                        (GameConfig(15, 15, 5, Rule.RENJU), 22), (GameConfig(12, 12, 5, Rule.CARO), 14)],
                         ids=["15x15k5", "11x9k4", "renju", "caro"])
def test_best_first_and_depth_first_vct_agree_where_both_finish(cfg, stones):
    # The best-first search plays every three, the depth-first one only those building on the
    # line's stones after its first: a win the depth-first search proves is one the best-first
    # search proves too, and where the best-first search proves there is none, so does the other.
    rng = random.Random(9)
    seen = {"line": 0, "none": 0}
    for _ in range(16 if cfg.rule is Rule.CARO else 40):  # caro runs on the slower Python solver
        a = rng.choice((X, O))
        b = random_position(cfg, rng, stones, a)
        if b.winning_cells(Player(1)) or b.winning_cells(Player(2)):
            continue
        answers = []
        for search in (solver.DEPTH_FIRST, solver.BEST_FIRST):
            try:
                answers.append(solver._solve(LineState(cfg, b.cells), a, 5_000, None, threes=2,
                                             search=search))
            except solver._Abort:
                answers.append("abort")
        depth_first, best = answers
        if "abort" in answers:
            continue
        assert (depth_first is None) >= (best is None), (a, depth_first, best)
        # A line plays distinct empty cells.
        assert best is None or (len(set(best)) == len(best) and all(b.cells[c] == 0 for c in best))
        seen["line" if best else "none"] += 1
    assert seen["line"] >= 3 and seen["none"] >= 3, seen


@pytest.mark.parametrize("cfg", [GameConfig(15, 15, 5), GameConfig(11, 9, 4), GameConfig(12, 12, 5, Rule.CARO)],
                         ids=lambda c: c.label)
def test_three_candidates_related_to_the_line(cfg):
    # With the line's stones given, a three's cell must share a live window holding K-3 stones
    # of the attacker with one of them; without, every such window counts.
    rng = random.Random(4)
    k = cfg.win_length
    compared = 0
    for _ in range(20):
        b = random_position(cfg, rng, 24, X)
        st = LineState(cfg, b.cells)
        geom = st.geom
        mine = [c for c in geom.board_cells if b.cells[c] == X]
        related = rng.sample(mine, min(3, len(mine)))
        expect = set()
        for w, win in enumerate(geom.windows):
            if st.cnt[X][w] == k - 3 and st.cnt[O][w] == 0 and any(c in related for c in win):
                expect.update(c for c in win if b.cells[c] == 0)
        got = st.three_candidates(X, related)
        assert got == sorted(expect)
        assert set(got) <= set(st.three_candidates(X))
        compared += bool(expect) and set(got) != set(st.three_candidates(X))
    assert compared >= 3  # the restriction did drop candidates somewhere


@pytest.mark.slow
def test_vct_threes_after_the_first_build_on_the_line():
    # Every attacker move of a found line after its first is a four, a block of the
    # defender's four, or a three in a live window holding a stone the line played before it
    # (a depth-first run: the best-first search plays every three).
    cfg = GameConfig(15, 15, 5)
    rng = random.Random(6)
    k = cfg.win_length
    checked = 0
    for _ in range(80):
        a = rng.choice((X, O))
        b = random_position(cfg, rng, 26, a)
        if b.winning_cells(Player(1)) or b.winning_cells(Player(2)) or solver.find_vcf(b, a, max_nodes=5000):
            continue
        try:
            line = solver._solve(LineState(cfg, b.cells), a, 20000, None, threes=3)
        except solver._Abort:
            continue
        if line is None or len(line) < 5:
            continue
        checked += 1
        st = LineState(cfg, b.cells)
        played = []
        for i, c in enumerate(line[:-1]):
            if i % 2 == 0:
                builds = any(st.cnt[a][w] == k - 3 and st.cnt[3 - a][w] == 0
                             and any(x in played for x in st.geom.windows[w]) for w in st.geom.cell_windows[c])
                blocks = bool(st.completing(3 - a))  # the defender's four, stopped (any threat may do it)
                st.place(c, a)
                assert not i or builds or blocks or st.completing(a), (str(b), line, i)  # a three or a four
                played.append(c)
            else:
                st.place(c, 3 - a)
    assert checked >= 3
