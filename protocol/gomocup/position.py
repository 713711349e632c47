"""Positions the protocol builds: BOARD blocks, rule changes mid-game, and a quick move.

A BOARD field of 3 marks a stone of a finished winning line in continuous
games (Gomocup rule bit 2).  It belongs to nobody and cannot be played on, so
it is stored as a blocked cell (``Board.block``) with the same value as the
board's sentinel border (:data:`engine.mnk.board.rules.BORDER`): lines stop at it exactly
as at the edge.
"""

from __future__ import annotations

from engine.mnk.board.rules import BORDER, EMPTY, Board, GameConfig, Player


def make_board(
    config: GameConfig,
    stones: list[tuple[int, int, Player]],
    blocked: list[tuple[int, int]],
    to_move: Player,
    check_counts: bool = True,
) -> Board:
    """A position from stones and blocked cells; ``ValueError`` when impossible.

    Stone counts are checked (by ``Board.from_stones``) only when asked and no
    cell is blocked: a blocked winning line removes stones of one side from
    the count.  A position where somebody already has a line is refused always.
    """
    if check_counts and not blocked:
        return Board.from_stones(config, [(x, y, int(p)) for x, y, p in stones], to_move=to_move)
    board = Board(config, to_move=to_move)
    seen: set[int] = set()
    for x, y, p in stones:
        move = config.move(x, y)
        if move in seen:
            raise ValueError(f"two stones on {x},{y}")
        seen.add(move)
        board.place(move, int(p))
    for x, y in blocked:
        move = config.move(x, y)
        if move in seen:
            raise ValueError(f"two stones on {x},{y}")
        seen.add(move)
        board.block(move)
    winner = board.scan_winner()
    if winner is not None:
        raise ValueError(f"the game is already over: {winner.name} has a line")
    return board


def blocked_cells(board: Board) -> list[tuple[int, int]]:
    """Cells marked blocked by :func:`make_board`."""
    cfg = board.config
    return [cfg.xy(m) for m in range(cfg.area) if board.cells[cfg.padded(m)] == BORDER]


def rebuild(board: Board, config: GameConfig) -> Board:
    """The same position under another configuration (a rule or win length changed).

    The win test scans the final position: replaying the history would judge
    lines before the stones that block them (caro) or extend them (exact) exist.
    """
    if (config.width, config.height) != (board.config.width, board.config.height):
        raise ValueError("the board size cannot change during a game")
    new = make_board(config, board.stones(), blocked_cells(board), board.to_move, check_counts=False)
    # Keep the real move order for TAKEBACK and tree reuse.
    placed = set(new.history)
    new.history = [m for m in board.history if m in placed] + [m for m in new.history if m not in board.history]
    return new


def _neighbours(board: Board) -> list[int]:
    """Empty cells next to a stone (8-neighbourhood), in index order."""
    cfg = board.config
    out = []
    for m in range(cfg.area):
        if board.cells[cfg.padded(m)] != EMPTY:
            continue
        x, y = cfg.xy(m)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if (dx or dy) and cfg.on_board(x + dx, y + dy) and board.at(x + dx, y + dy) in (1, 2):
                    out.append(m)
                    break
            else:
                continue
            break
    return out


def quick_move(board: Board) -> int:
    """A sound instant move (no search): win now, else block, else near the stones and centre.

    Used when a search is impossible or failed, so the brain never misplays
    silently; under renju black never gets a forbidden point (unless nothing else is
    empty).  Raises ``ValueError`` when the board has no empty cell.
    """
    cfg = board.config
    empty = [m for m in range(cfg.area) if board.cells[cfg.padded(m)] == EMPTY]
    if not empty:
        raise ValueError("no empty cell")
    if board.to_move == Player.FIRST:
        # Renju: black's forbidden points are no moves (a five is never forbidden).
        empty = [m for m in empty if board.forbidden(m) is None] or empty
    allowed = set(empty)
    near = [m for m in _neighbours(board) if m in allowed] or empty
    me = board.to_move
    for player in (me, me.other):
        for m in near:
            if board.wins_if_played(m, player):
                return m
    cx, cy = (cfg.width - 1) / 2, (cfg.height - 1) / 2

    def centrality(m: int) -> tuple[float, int]:
        x, y = cfg.xy(m)
        return (abs(x - cx) + abs(y - cy), m)

    return min(near, key=centrality)
