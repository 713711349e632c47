"""The m,n,k game (Gomoku and its family) as the referee judges it.

Moves are ``x,y`` cells (0-based, as the Gomocup protocol writes them); a line of
K (under the rule) or a full board ends the game.  Openings come from a file (the
``offset`` and ``pos`` lines c-gomoku-cli reads) or as random stones near the
centre.  A person types the column and row numbers shown on the board.
"""

from __future__ import annotations

import random
import re
from typing import Any, Sequence

from engine.mnk.board.rules import Board, GameConfig, Player, Rule, render, winning_line
from referee.games.base import End, GameRules, HumanInput, Illegal
from referee.games.verdicts import Termination

__all__ = ["MnkRules", "Forbidden", "parse_human_move", "HUMAN_HELP", "BOARD_LEGEND"]

_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
                 10: "ten"}

#: Shown under a board whose winning line is marked.
BOARD_LEGEND = "(lower case: the last move; on the final board of a won game, the winning line)"

#: How a person types a move (printed by ``help``, before the commands).
HUMAN_HELP = """\
  Type a move as two numbers, the column (x, across) then the row (y, down), as on the
  board's edges: "7,7" or "7 7" (0-based, like the Gomocup protocol)."""

_POS_RE = re.compile(r"([a-zA-Z])(\d{1,2})")
_INT_RE = re.compile(r"[+-]?\d+")
_HUMAN_MOVE_RE = re.compile(r"^\(?\s*(-?\d{1,6})\s*(?:,\s*|\s+)(-?\d{1,6})\s*\)?$")
_LETTER_MOVE_RE = re.compile(r"^[a-zA-Z]\s*\d{1,3}$")


def parse_human_move(text: str) -> tuple[int, int] | None:
    """``(x, y)`` from ``7,7``, ``7 7``, ``7, 7`` or ``(7,7)``; ``None`` for anything else.

    Letter forms such as ``h8`` are refused on purpose: renju notation counts
    rows from the bottom and from 1, c-gomoku-cli's ``pos`` lines from the top,
    so the same text would name different cells; the board shows numbers.
    """
    m = _HUMAN_MOVE_RE.match(text.strip())
    return None if m is None else (int(m.group(1)), int(m.group(2)))


class Forbidden(Illegal):
    """Black's move on a forbidden point under renju (the message names the point and the
    shape); the game ends with the ``forbidden`` verdict and white wins, and the records
    keep the point (``foul``) as the game's last move, marked as the foul."""

    termination = Termination.FORBIDDEN


class MnkRules(GameRules):
    """The referee's view of an m,n,k configuration (:class:`engine.mnk.board.rules.GameConfig`)."""

    game_type = "mnk"
    protocol = "Gomocup"
    human_tries = None  # an occupied or off-board cell is simply asked again
    opening_unit = "stones near the centre"
    human_help = HUMAN_HELP
    board_legend = BOARD_LEGEND

    config: GameConfig

    def new_state(self) -> Board:
        return Board(self.config)

    def colour_name(self, player: int) -> str:
        return "X" if player == Player.FIRST else "O"

    def size_text(self) -> str:
        return f"{self.config.width}x{self.config.height}"

    def describe(self) -> str:
        """Board, win length and rule, e.g. ``15x15, five or more in a row (freestyle)``."""
        cfg = self.config
        k = _NUMBER_WORDS.get(cfg.win_length, str(cfg.win_length))
        board = self.size_text()
        if cfg.rule is Rule.EXACT:
            return f"{board}, exactly {k} in a row (exact: longer lines do not win)"
        if cfg.rule is Rule.CARO:
            return f"{board}, {k} or more in a row, not exactly {k} blocked at both ends (caro)"
        if cfg.rule is Rule.RENJU:
            return (f"{board}, renju: black (X) wins with exactly {k} and may not make an overline, "
                    f"a double four or a double three; white (O) wins with {k} or more")
        return f"{board}, {k} or more in a row (freestyle)"

    # Moves ---------------------------------------------------------------------------
    def judge(self, state: Board, reply: tuple[int, int]) -> int:
        cfg = self.config
        x, y = reply
        if not cfg.on_board(x, y):
            raise Illegal(f"played {x},{y}, off the {cfg.width}x{cfg.height} board")
        move = cfg.move(x, y)
        if not state.is_empty(move):
            raise Illegal(f"played {x},{y}, which is occupied")
        if state.to_move == Player.FIRST:
            why = state.forbidden(move)
            if why is not None:
                raise Forbidden(f"played {x},{y}: black's {x},{y} is {_article(why)} {why}, forbidden under renju",
                                foul=move)
        return move

    def reply_for(self, state: Board, move: int) -> tuple[int, int]:
        return self.config.xy(move)

    def move_text(self, state: Board, move: int) -> str:
        x, y = self.config.xy(move)
        return f"{x},{y}"

    def record_of(self, state: Board, move: int) -> list[int]:
        return list(self.config.xy(move))

    def replay(self, moves: Sequence[Any]) -> Board:
        board = Board(self.config)
        for i, (x, y) in enumerate(moves):
            move = self.config.move(x, y)
            if i == len(moves) - 1 and board.to_move == Player.FIRST and board.forbidden(move):
                break  # the recorded foul that lost the game: black's stone on a forbidden point
            board.play(move)
        return board

    # The end -------------------------------------------------------------------------
    def outcome(self, state: Board, names: dict[int, str]) -> End | None:
        if state.winner is not None:
            cfg = self.config
            x, y = cfg.xy(state.history[-1])
            rule = "" if cfg.rule is Rule.FREESTYLE else f" ({cfg.rule.value} rule)"
            return End(Termination.LINE,
                       f"{names[state.winner]} completed {cfg.win_length} in a row{rule} with {x},{y}",
                       int(state.winner))
        if state.is_full:
            return End(Termination.FULL_BOARD, "the board is full: a draw", None)
        return None

    def result_fields(self, state: Board, end: End | None = None) -> dict[str, Any]:
        cfg = self.config
        return {"game_type": self.game_type, "width": cfg.width, "height": cfg.height,
                "win_length": cfg.win_length, "rule": cfg.rule.value}

    def record_key(self, obj: dict) -> tuple:
        return (obj.get("game_type", "mnk"), obj.get("width"), obj.get("height"), obj.get("win_length"),
                obj.get("rule"))

    def current_key(self) -> tuple:
        cfg = self.config
        return ("mnk", cfg.width, cfg.height, cfg.win_length, cfg.rule.value)

    # Text ------------------------------------------------------------------------------
    def board_text(self, state: Board, legal: bool = False) -> str:
        """Column numbers on top, row numbers on the left (the protocol's ``x,y``); X moved
        first; the last move in lower case."""
        return render(state, state.history[-1] if state.history else None)

    def final_board_text(self, state: Board) -> str:
        """A completed line marked, else the last move (as :attr:`board_legend` says)."""
        last = state.history[-1] if state.history else None
        line = winning_line(state, last) if last is not None and state.winner is not None else []
        if line:
            return render(state, None, line)
        return render(state, last)

    # Openings --------------------------------------------------------------------------
    def parse_opening(self, text: str) -> list[int]:
        """An ``offset`` line (``0,0, 1,-1``: x,y from the centre) or a ``pos`` line
        (``h8i9j7``: letter = column from a, number = row from 1); stones alternate from X."""
        config = self.config
        line = text.strip()
        if not line:
            return []
        if any(c.isalpha() for c in line):
            compact = re.sub(r"\s+", "", line)
            pairs = _POS_RE.findall(compact)
            if not pairs or "".join(a + b for a, b in pairs) != compact:
                raise ValueError(f"not a pos opening: {line!r}")
            cells = [(ord(a.lower()) - ord("a"), int(b) - 1) for a, b in pairs]
        else:
            if re.search(r"[^\d\s,+-]", line):
                raise ValueError(f"not an offset opening: {line!r}")
            nums = [int(n) for n in _INT_RE.findall(line)]
            if len(nums) % 2:
                raise ValueError(f"odd number of coordinates in {line!r}")
            cx, cy = config.width // 2, config.height // 2
            cells = [(cx + nums[i], cy + nums[i + 1]) for i in range(0, len(nums), 2)]
        board = Board(config)
        moves = []
        for x, y in cells:
            if not config.on_board(x, y):
                raise ValueError(f"{x},{y} is off the {config.width}x{config.height} board in {line!r}")
            m = config.move(x, y)
            if not board.is_empty(m):
                raise ValueError(f"{x},{y} appears twice in {line!r}")
            board.play(m)
            if board.is_over:
                raise ValueError(f"opening {line!r} already ends the game")
            moves.append(m)
        return moves

    def random_opening(self, plies: int, rng: random.Random) -> list[int]:
        """``plies`` random stones in a central square (just large enough), with no line completed."""
        config = self.config
        if plies <= 0:
            return []
        if plies >= config.area:
            raise ValueError(f"a {plies}-stone opening does not fit a {config.width}x{config.height} board")
        side = 3
        while side * side < 3 * plies and side < max(config.width, config.height):
            side += 2
        x0 = max(0, (config.width - side) // 2)
        y0 = max(0, (config.height - side) // 2)
        cells = [config.move(x, y)
                 for y in range(y0, min(config.height, y0 + side))
                 for x in range(x0, min(config.width, x0 + side))]
        if len(cells) <= plies:
            cells = list(range(config.area))
        for _ in range(1000):
            board = Board(config)
            picks = rng.sample(cells, plies)
            ok = True
            for m in picks:
                board.play(m)
                if board.is_over:
                    ok = False
                    break
            if ok:
                return picks
        raise ValueError(f"could not draw a {plies}-stone opening without a finished line")

    def default_random_plies(self) -> tuple[int, int]:
        """A few stones near the centre: enough for two deterministic engines to play a
        different game in every pair: 2 to 4 stones for five (or more) in a row, only 2
        for shorter lines, where each extra stone weighs more (on 9x9 with four in a row,
        two X stones placed at random before X moves decide most games)."""
        return (2, 4) if self.config.win_length >= 5 else (2, 2)

    # A person's moves ------------------------------------------------------------------
    def turn_hint(self, state: Board) -> str:
        """Under renju, black's forbidden points and why (shown before black's prompt)."""
        if state.to_move != Player.FIRST:
            return ""
        cfg = self.config
        points = [f"{x},{y} ({state.forbidden(m)})" for m in state.forbidden_moves() for x, y in [cfg.xy(m)]]
        return "forbidden for black here: " + ", ".join(points) if points else ""

    def read_human(self, text: str, state: Board) -> HumanInput:
        cfg = self.config
        move = parse_human_move(text)
        if move is None:
            if _LETTER_MOVE_RE.match(text.strip()):
                return HumanInput(problem="letters are not used here: type the column and row numbers "
                                          "shown on the board, like 7,7 or 7 7")
            return HumanInput(problem="please type two numbers, column then row, like 7,7 or 7 7 "
                                      "('help' for more)")
        x, y = move
        if not cfg.on_board(x, y):
            return HumanInput(problem=f"{x},{y} is off the {cfg.width}x{cfg.height} board "
                                      f"(0..{cfg.width - 1}, 0..{cfg.height - 1})", illegal=True)
        if not state.is_empty(cfg.move(x, y)):
            return HumanInput(problem=f"{x},{y} is occupied", illegal=True)
        if state.to_move == Player.FIRST:
            why = state.forbidden(cfg.move(x, y))
            if why is not None:
                return HumanInput(problem=f"{x},{y} is forbidden for black (renju): {_article(why)} {why}; "
                                          "choose another point", illegal=True)
        return HumanInput(reply=move)


def _article(reason: str) -> str:
    """``an`` before ``overline``, ``a`` before the doubles."""
    return "an" if reason[0] in "aeiou" else "a"
