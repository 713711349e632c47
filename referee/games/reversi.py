"""Reversi (Othello) as the referee judges it.

Moves are squares as people and NBoard write them (``f5``; ``a1`` top-left; a pass
is ``PA``).  A side with no legal move is passed by the referee itself (engines are
not asked, so an engine's ``PA`` is always a pass with a legal move left: illegal).
The game ends when neither side can move; more discs wins, and the disc
differential gives the empty squares to the winner.  Openings come from a file of
move sequences (``f5d6c3d3c4``, XOT style, spaces allowed) or as random legal plies
from the start.  A person types squares and gets three tries for an illegal one.
"""

from __future__ import annotations

import random
import re
from typing import Any, Sequence

from engine.game import GameError
from engine.reversi.board.rules import BLACK, WHITE, ReversiConfig, ReversiState
from referee.games.base import End, GameRules, HumanInput, Illegal
from referee.games.verdicts import Termination

__all__ = ["ReversiRules", "HUMAN_HELP", "parse_moves"]

#: How a person types a move (printed by ``help``, before the commands).
HUMAN_HELP = """\
  Type a move as the square's column letter and row number, as on the board's edges:
  "f5" (a1 is the top-left corner). The legal moves are marked * on the board. When you
  have no legal move the referee passes for you. Three illegal moves lose the game."""

_SQUARE_RE = re.compile(r"^[a-z]\d{1,2}$")
_TOKEN_RE = re.compile(r"pass|pa|[a-z]\d{1,2}")


def parse_moves(text: str) -> list[str]:
    """The move words of a sequence such as ``f5d6c3`` or ``f5 d6 pass c3`` (lower case);
    ``ValueError`` when something else is in it."""
    compact = re.sub(r"\s+", "", text.lower())
    words = _TOKEN_RE.findall(compact)
    if "".join(words) != compact:
        raise ValueError(f"not a move sequence: {text.strip()!r} (squares like f5d6c3)")
    return words


class ReversiRules(GameRules):
    """The referee's view of a Reversi configuration (:class:`engine.reversi.board.rules.ReversiConfig`)."""

    game_type = "reversi"
    protocol = "NBoard"
    human_tries = 3
    opening_unit = "random legal plies from the start"
    human_help = HUMAN_HELP

    config: ReversiConfig

    def new_state(self) -> ReversiState:
        return ReversiState(self.config.size)

    def colour_name(self, player: int) -> str:
        return "black" if player == BLACK else "white"

    def size_text(self) -> str:
        n = self.config.size
        return f"{n}x{n}"

    def describe(self) -> str:
        return (f"{self.size_text()} Reversi, most discs wins (empty squares to the winner); "
                f"X black moves first")

    # Moves ---------------------------------------------------------------------------
    def judge(self, state: ReversiState, reply: str) -> int:
        text = str(reply).strip()
        try:
            move = state.text_to_move(text)
        except GameError:
            n = state.n
            if _SQUARE_RE.match(text.lower()):
                raise Illegal(f"played {text}, off the {n}x{n} board") from None
            raise Illegal(f"answered {text!r}, which is not a square") from None
        if move == state.pass_move:
            if state.move_mask():
                raise Illegal(f"passed with legal moves left ({self._legal_text(state)})")
            return move  # the referee passes forced sides itself; kept for completeness
        name = state.move_to_text(move)
        if (state.black | state.white) >> move & 1:
            raise Illegal(f"played {name}, which is occupied")
        if not state.flips(move):
            raise Illegal(f"played {name}, which flips nothing (legal: {self._legal_text(state)})")
        return move

    def forced_pass(self, state: ReversiState) -> int | None:
        if state.legal_moves() == [state.pass_move]:
            return state.pass_move
        return None

    def is_pass(self, state: ReversiState, move: int) -> bool:
        return move == state.pass_move

    def reply_for(self, state: ReversiState, move: int) -> str:
        return state.move_to_text(move)

    def move_text(self, state: ReversiState, move: int) -> str:
        return state.move_to_text(move)

    def record_of(self, state: ReversiState, move: int) -> str:
        return state.move_to_text(move)

    def replay(self, moves: Sequence[Any]) -> ReversiState:
        state = self.new_state()
        for text in moves:
            state.apply(state.text_to_move(text))
        return state

    def flipped_by_last(self, state: ReversiState) -> list[int]:
        if not state.history or state.history[-1] == state.pass_move:
            return []
        before = state.clone()
        before.undo()
        return before.flips(state.history[-1])

    # The end -------------------------------------------------------------------------
    def outcome(self, state: ReversiState, names: dict[int, str]) -> End | None:
        if not state.is_terminal():
            return None
        b, w = state.discs()
        d = state.disc_differential()
        counts = f"neither side can move: black {b}, white {w}"
        if d == 0:
            return End(Termination.DISCS, f"{counts}; a draw", None)
        winner = BLACK if d > 0 else WHITE
        e = state.empties()
        empties = f" (the {e} empty square{'s' if e != 1 else ''} counted for the winner)" if e else ""
        return End(Termination.DISCS,
                   f"{counts}; {names[winner]} ({self.colour_name(winner)}) wins by {abs(d)}{empties}", winner)

    def result_fields(self, state: ReversiState, end: End | None = None) -> dict[str, Any]:
        """Board size and the disc score: ``discs`` [black, white] on the final board, and
        ``disc_diff`` from black's side as GGF's ``RE`` gives it: the final disc differential
        when the board decided, the whole board for the winner of a fault or resignation,
        ``None`` when there is no result."""
        n = state.n
        diff = None
        if end is not None:
            if end.termination is Termination.DISCS:
                diff = state.disc_differential()
            elif end.winner is not None:
                diff = state.area if end.winner == BLACK else -state.area
        return {"game_type": self.game_type, "width": n, "height": n, "win_length": None, "rule": None,
                "discs": list(state.discs()), "disc_diff": diff}

    def record_key(self, obj: dict) -> tuple:
        return (obj.get("game_type", "mnk"), obj.get("width"), obj.get("height"))

    def current_key(self) -> tuple:
        n = self.config.size
        return ("reversi", n, n)

    # Text ------------------------------------------------------------------------------
    def board_text(self, state: ReversiState, legal: bool = False) -> str:
        """The board (``X`` black, ``O`` white; ``*`` the legal moves when ``legal``), the
        last move in brackets, the discs it flipped in lower case, who moves, the counts."""
        last = state.history[-1] if state.history else None
        text = state.render(marks=legal, last=last if last != state.pass_move else None,
                            flipped=self.flipped_by_last(state))
        return text + self._last_words(state)

    def final_board_text(self, state: ReversiState) -> str:
        return self.board_text(state, legal=False)

    def turn_hint(self, state: ReversiState) -> str:
        return f"legal moves (marked *): {self._legal_text(state)}"

    def _last_words(self, state: ReversiState) -> str:
        if not state.history:
            return ""
        last = state.history[-1]
        who = self.colour_name(WHITE if state.to_move == BLACK else BLACK) if last != state.pass_move else None
        if last == state.pass_move:
            passer = self.colour_name(BLACK if state.to_move == WHITE else WHITE)
            return f"\nlast move: {passer} passed (no legal move)"
        flips = " ".join(state.move_to_text(s) for s in self.flipped_by_last(state))
        return f"\nlast move: {who} {state.move_to_text(last)} [in brackets], flipped {flips} (lower case)"

    @staticmethod
    def _legal_text(state: ReversiState) -> str:
        return " ".join(state.move_to_text(m) for m in state.legal_moves()) or "none"

    # Openings --------------------------------------------------------------------------
    def parse_opening(self, text: str) -> list[int]:
        """A move sequence from the start (``f5d6c3d3c4``, spaces allowed; a pass left
        out where a side must pass is put back)."""
        line = text.strip()
        state = self.new_state()
        for word in parse_moves(line):
            try:
                move = state.text_to_move(word)
                if move != state.pass_move and self.forced_pass(state) is not None:
                    state.apply(state.pass_move)
                state.apply(move)
            except GameError as exc:
                raise ValueError(f"{word} after {len(state.history)} moves: {exc}, in {line!r}") from None
        if state.is_terminal():
            raise ValueError(f"opening {line!r} already ends the game")
        return list(state.history)

    def random_opening(self, plies: int, rng: random.Random) -> list[int]:
        """``plies`` uniformly random legal moves from the start (a forced pass counts as
        one) that leave the game open."""
        if plies <= 0:
            return []
        if plies >= self.new_state().empties():
            raise ValueError(f"a {plies}-ply opening does not fit a {self.size_text()} board")
        for _ in range(1000):
            state = self.new_state()
            for _ in range(plies):
                moves = state.legal_moves()
                if not moves:
                    break
                state.apply(rng.choice(moves))
            if not state.is_terminal():
                return list(state.history)
        raise ValueError(f"could not draw a {plies}-ply opening that leaves the game open")

    def default_random_plies(self) -> tuple[int, int]:
        """4 to 6 random plies (8,200 different lines at 6 from the 8x8 start): two
        deterministic engines then play a different game in every pair, and the
        colour-swapped pairs cancel an unbalanced start; 2 on the 4x4 board, where the
        whole game is 12 moves."""
        return (2, 2) if self.config.size <= 4 else (4, 6)

    # A person's moves ------------------------------------------------------------------
    def read_human(self, text: str, state: ReversiState) -> HumanInput:
        word = "".join(text.split()).lower()
        legal = self._legal_text(state)
        if word in ("pass", "pa"):
            return HumanInput(problem=f"you have legal moves, so you may not pass: {legal}", illegal=True)
        if not _SQUARE_RE.match(word):
            return HumanInput(problem="type a square as its column letter and row number, like f5 "
                                      "('help' for more)")
        try:
            move = state.text_to_move(word)
        except GameError:
            return HumanInput(problem=f"{word} is off the {self.size_text()} board; legal: {legal}",
                              illegal=True)
        if (state.black | state.white) >> move & 1:
            return HumanInput(problem=f"{word} is occupied; legal: {legal}", illegal=True)
        if not state.flips(move):
            return HumanInput(problem=f"{word} flips nothing; legal: {legal}", illegal=True)
        return HumanInput(reply=word)
