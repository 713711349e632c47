"""The script runner's models of the game a transcript plays: they follow the lines sent
and the moves received, so that ``< move`` can be judged as a match would judge it.

:class:`GomocupModel` keeps the occupied cells (and judges renju's forbidden points for a
black engine); :class:`NboardModel` keeps the Reversi position a ``go`` is about.
"""

from __future__ import annotations

from engine.game import GameError
from engine.mnk.board.rules import Rule
from engine.reversi.board.ggf import parse_ggf, parse_move
from engine.reversi.board.rules import ReversiConfig, ReversiState
from referee.conformance.gomocup_renju_checks import renju_forbidden
from referee.conformance.session import Cells
from referee.engines.nboard_wire import parse_go_reply
from referee.games.base import Illegal
from referee.games.reversi import ReversiRules

__all__ = ["GomocupModel", "NboardModel"]


# The runner's model of the board -------------------------------------------------
class GomocupModel:
    """Follows the lines sent (START/RECTSTART/RESTART/TURN/BOARD/TAKEBACK) and the moves received."""

    def __init__(self) -> None:
        #: Occupied cells, valued 1 for the engine's stones, 2 for its opponent's, 3 for BOARD's
        #: field 3 (a blocked cell).
        self.cells = Cells(15)
        self.block: list[tuple[int, int, int]] | None = None  # stones of a BOARD block being sent
        #: The renju bit of the last ``INFO rule`` (it lasts across games, as in the brains).
        self.renju = False
        self.block_kind = ""
        #: The last command set a position with YXBOARD (its side to move is field 1).
        self.positioned = False
        # START/RECTSTART size waiting for the engine's OK (a refused size must not change the model)
        self.pending_size: tuple[int, int] | None = None

    def received(self, line: str) -> None:
        """A reply line: ``OK`` confirms a pending START/RECTSTART, anything else cancels it."""
        if self.pending_size is not None:
            if line.strip() == "OK":
                self.cells.reset(*self.pending_size)
            self.pending_size = None

    def sent(self, text: str) -> None:
        words = text.split()
        if not words:
            return
        head = words[0].upper()
        arg = "".join(words[1:])
        if self.block is not None:
            if head == "DONE":
                self.cells.reset()
                for x, y, f in self.block:
                    if self.cells.on_board(x, y):
                        self.cells.stones[(x, y)] = f if f in (1, 2, 3) else 1
                self.block = None
                self.positioned = self.block_kind == "YXBOARD"
                return
            parts = arg.split(",") if len(words) > 1 else text.strip().split(",")
            try:
                f = int(parts[2]) if len(parts) > 2 and parts[2].strip().isdigit() else 1  # SWAP2BOARD: no field
                self.block.append((int(parts[0]), int(parts[1]), f))
            except (ValueError, IndexError):
                pass  # a malformed stone line: the script is probably testing the engine's ERROR
            return
        try:
            if head == "START" and len(words) > 1:
                n = int(words[1])
                self.pending_size = (n, n)
            elif head == "RECTSTART" and len(words) > 1:
                w, h = (int(v) for v in arg.split(",")[:2])
                self.pending_size = (w, h)
            elif head == "RESTART":
                self.cells.reset()
            elif head in ("BOARD", "YXBOARD"):
                self.block, self.block_kind = [], head
            elif head == "TURN":
                x, y = (int(v) for v in arg.split(",")[:2])
                if self.positioned:
                    # TURN on a YXBOARD position is a move of its side to move (field 1 there),
                    # so the engine answers for the other side: its stones are the 2s.
                    self.cells.stones = {c: 3 - v if v in (1, 2) else v for c, v in self.cells.stones.items()}
                # A black opponent's forbidden point is refused by a renju engine: no stone.
                if self.cells.empty(x, y) and self._forbidden((x, y), 2) is None:
                    self.cells.stones[(x, y)] = 2
            elif head == "TAKEBACK":
                x, y = (int(v) for v in arg.split(",")[:2])
                self.cells.stones.pop((x, y), None)
            elif head == "INFO" and len(words) == 3 and words[1].lower() == "rule":
                self.renju = _is_renju(int(words[2]))
            if head in _MOVE_COMMANDS:
                self.positioned = False
        except ValueError:
            pass  # malformed on purpose: the model ignores it, the engine should answer ERROR

    def forbidden(self, mv: tuple[int, int]) -> str | None:
        """Why the engine's move ``mv`` is a forbidden point for black under renju, or ``None``."""
        return self._forbidden(mv, 1)

    def _forbidden(self, mv: tuple[int, int], mover: int) -> str | None:
        return renju_forbidden(self.cells, mv, mover) if self.renju else None


#: Commands after which a YXBOARD position no longer decides who the engine is.
_MOVE_COMMANDS = frozenset({"START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "PLAY", "TAKEBACK",
                            "SWAP2BOARD", "YXNBEST", "YXBALANCEONE", "YXBALANCETWO", "YXSEARCHDEFEND"})


def _is_renju(bits: int) -> bool:
    """Does ``INFO rule bits`` mean renju (bit 4, or 2 alone as in the Yixin protocol)?"""
    try:
        return Rule.from_gomocup_bits(bits) is Rule.RENJU
    except GameError:
        return False


class NboardModel:
    """Follows the ``set game`` and ``move`` lines sent: the position a ``go`` is about."""

    def __init__(self) -> None:
        self.state = ReversiState()

    def received(self, line: str) -> None:
        """Replies change nothing: an NBoard engine does not play the move it answers."""

    def sent(self, text: str) -> None:
        words = text.split(None, 2)
        try:
            if words[:2] == ["set", "game"] and len(words) == 3:
                self.state = parse_ggf(words[2]).position()
            elif words[:1] == ["move"] and len(words) == 2:
                move = parse_move(words[1], self.state)[0]
                if move in self.state.legal_moves():
                    self.state.apply(move)
        except GameError:
            pass  # malformed on purpose: the engine should say so in a status line

    def judge(self, line: str) -> str:
        """Empty when ``line`` is ``=== MOVE`` with a legal move here, else why not (the
        referee's own Reversi judgement, as in a match)."""
        reply = parse_go_reply(line)
        if reply is None:
            return "not a '=== MOVE' line"
        try:
            ReversiRules(ReversiConfig(self.state.n)).judge(self.state, reply[0])
        except Illegal as exc:
            return str(exc)
        return ""
