"""A person playing one side at the terminal: the prompt, the commands, and the tries.

The move syntax is the game's (:meth:`referee.games.base.GameRules.read_human`:
``7,7`` for m,n,k, ``f5`` for Reversi); the commands are the same for every game.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Callable

from referee.games.clock import Turn
from referee.games.base import Position
from referee.seats.spec import HUMAN
from referee.games.verdicts import Termination
from referee.seats.base import Fault, InProcessSeat, UndoRequest

__all__ = ["HumanSeat", "COMMANDS_HELP"]

#: The commands a person may type at the move prompt (printed by ``help`` after the game's move syntax).
COMMANDS_HELP = """\
  Commands:
    help     this text
    undo     take back your last move and the engine's reply
    resign   give up this game (the match goes on)
    quit     give up this game and end the match (end of input, Ctrl-D, does the same)"""


class HumanSeat(InProcessSeat):
    """A person at the terminal: prompted for a move, prompted again on input that is not one.

    ``undo`` raises :class:`UndoRequest`; ``resign`` loses the game (termination
    ``resign``); ``quit`` and the end of input (Ctrl-D) lose it too and set
    :attr:`quit_requested`, which ends the match.  A move the rules forbid is
    refused with the reason; where the game limits the tries
    (:attr:`~referee.games.base.GameRules.human_tries`: three in Reversi) the
    last one loses by ``illegal_move``.  A person has no clock (the thinking time
    is recorded, never enforced).  The board is printed before each prompt when
    ``show_board`` is set, before the first one while no move has been shown, and after a
    take-back.
    """

    is_human = True

    def __init__(self, *, name: str = HUMAN, input_fn: Callable[[str], str] = input,
                 output: IO[str] | None = None, show_board: bool = False) -> None:
        super().__init__(name)
        self.show_board = show_board
        #: Set by ``quit`` or the end of input: the match should start no further game.
        self.quit_requested = False
        self._input = input_fn
        self._out = output if output is not None else sys.stdout
        self._undone = False  # a take-back: the board on the screen is no longer the game's

    def ask(self, pos: Position, turn: Turn):
        """Prompt until the person types a legal move (the game's reply for it) or a command."""
        rules, state = pos.rules, pos.state
        # Without show_board the match prints the board after every move: the person's first
        # prompt needs its own only while no move of this game has been played (else it is
        # on the screen already, the engine's first move shown), and after a take-back.
        fresh = len(pos.times_ms) == pos.opening
        if self.show_board or self._undone or fresh:
            self._say(rules.board_text(state, legal=True))
        self._undone = False
        hint = rules.turn_hint(state)
        if hint:
            self._say(f"  {hint}")
        self.sent_at = time.monotonic()
        refused: list[str] = []
        while True:
            try:
                text = self._input(f"{self.name} ({rules.colour_name(state.to_move)}) move, or 'help': ")
            except EOFError:
                self._say(f"\n  end of input: {self.name} resigns this game and the match ends")
                self.quit_requested = True
                raise Fault(Termination.RESIGN, f"{self.name} resigned (end of input) and ended the match") from None
            word = text.strip().lower()
            if word in ("help", "?", "h"):
                self._say(rules.human_help + "\n" + COMMANDS_HELP)
                continue
            if word == "undo":
                raise UndoRequest()
            if word == "resign":
                raise Fault(Termination.RESIGN, f"{self.name} resigned")
            if word in ("quit", "exit"):
                self.quit_requested = True
                raise Fault(Termination.RESIGN, f"{self.name} resigned (quit) and ended the match")
            got = rules.read_human(text, state)
            if got.problem:
                if got.illegal:
                    refused.append(text.strip())
                    if rules.human_tries is not None and len(refused) >= rules.human_tries:
                        self._say(f"  {got.problem}: that was the last try")
                        raise Fault(Termination.ILLEGAL_MOVE, f"{self.name} tried {len(refused)} illegal "
                                                              f"moves ({', '.join(refused)})")
                    if rules.human_tries is not None:
                        left = rules.human_tries - len(refused)
                        self._say(f"  {got.problem} ({left} {'try' if left == 1 else 'tries'} left)")
                        continue
                self._say(f"  {got.problem}")
                continue
            self.replied_at = time.monotonic()
            return got.reply, self.replied_at - self.sent_at

    def taken_back(self, done: bool) -> None:
        """Told by the game after ``undo``: ``done`` says whether any move was taken back."""
        if done:
            self._undone = True
            self._say("  taken back")
        else:
            self._say("  nothing to take back: you have not moved yet in this game")

    def _say(self, text: str) -> None:
        print(text, file=self._out, flush=True)
