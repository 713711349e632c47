"""The Yixin protocol's extensions to Gomocup, as Yixin-Board sends them: which commands
exist, how their arguments arrive, and the answers that need no search.

Yixin-Board (the GUI of Yixin, Rapfi and other strong Gomoku/renju engines) writes these
lines besides the Gomocup ones.  Each falls in one of four kinds:

- analysis commands that think on the position last set (``YXNBEST n``, ``YXSEARCHDEFEND``,
  ``YXBALANCEONE b``, ``YXBALANCETWO b``): parsed by :mod:`protocol.gomocup.wire`, run by
  the session;
- questions answered at once (``YXSHOWINFO``, ``YXSHOWFORBID``, the hash table's
  ``YXSHOWHASHUSAGE``): :func:`show_info` and :func:`forbid_line` here, and the balance
  commands' pick from the search's ranking, :func:`balanced`;
- commands for things this brain does not have (an opening database, a transposition
  table, blocked cells, the special openings' steps).  They are read whole -- a block of
  ``x,y`` lines up to ``DONE``, or a file path on the next line -- and answered quietly:
  nothing for the database queries the GUI sends after every move (one line each would
  flood its log), one ``MESSAGE`` saying what was ignored otherwise.  Never ``UNKNOWN``:
  the GUI sends them in normal use.

Coordinates in every answer are the brain's ``x,y`` as in its moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.mnk.board.rules import Board, Player
from engine.search.limits import RootMove

from protocol.gomocup.analysis import EVAL_SCALE
from protocol.gomocup.position import quick_move

#: How a command's arguments arrive after its own line.
NONE, BLOCK, PATH = "none", "block", "path"


@dataclass(frozen=True)
class Quiet:
    """A Yixin command with nothing to do here.  ``follows``: :data:`NONE`, :data:`BLOCK`
    (``x,y`` lines up to ``DONE``) or :data:`PATH` (a file path on the next line unless
    it is on the command's own line); ``note``: the ``MESSAGE`` text to answer, or ``None``
    for silence."""

    word: str
    follows: str
    note: str | None


def _quiet(words: str, follows: str, note: str | None) -> dict[str, Quiet]:
    return {w: Quiet(w, follows, note) for w in words.split()}


_NO_DATABASE = "pbrain-mcts keeps no opening database: {word} ignored"
_NO_HASH = "pbrain-mcts keeps no transposition table (its search tree lives for one game): {word} ignored"

#: Every quiet command, by upper-case word.
QUIET: dict[str, Quiet] = {
    # Database queries come with every move while the GUI's "use database" is on: silence.
    **_quiet("YXQUERYDATABASEALL YXQUERYDATABASEALLT YXQUERYDATABASEONE YXQUERYDATABASETEXT", BLOCK, None),
    **_quiet("YXSETBESTMOVEDATABASE YXCLEARBESTMOVEDATABASE YXEDITTVDDATABASE YXEDITTEXTDATABASE "
             "YXEDITLABELDATABASE YXDELETEDATABASEONE YXDELETEDATABASEALL", BLOCK, _NO_DATABASE),
    **_quiet("YXSETDATABASE YXDBTOPOS YXDBTOTXTALL YXDBTOTXT YXTXTTODB YXLIBTODB YXDBSPLIT YXDBMERGE",
             PATH, _NO_DATABASE),
    **_quiet("YXSAVEDATABASE YXDBCHECK YXDBFIX", NONE, _NO_DATABASE),
    "YXHASHCLEAR": Quiet("YXHASHCLEAR", NONE, None),  # sent before every move by default
    **_quiet("YXHASHDUMP YXHASHLOAD", PATH, _NO_HASH),
    "YXSHOWHASHUSAGE": Quiet("YXSHOWHASHUSAGE", NONE, "Transposition table full: 0.0% (pbrain-mcts keeps none)"),
    **_quiet("YXBLOCK YXBLOCKUNDO YXBLOCKPATH YXBLOCKPATHUNDO", BLOCK,
             "pbrain-mcts does not exclude cells from its search: {word} ignored"),
    **_quiet("YXBLOCKRESET YXBLOCKPATHRESET", NONE, None),
    **_quiet("YXFORBID", NONE, "pbrain-mcts judges forbidden points by the renju rules only: {word} ignored"),
    **_quiet("YXSWAP2STEP1 YXSWAP2STEP2 YXSWAP2STEP3 YXSOOSORVSTEP1 YXSOOSORVSTEP2 YXSOOSORVSTEP4",
             NONE, "pbrain-mcts does not play the GUI's special openings ({word}); it plays swap2 through SWAP2BOARD"),
    **_quiet("YXSOOSORVSTEP3 YXSOOSORVSTEP5", BLOCK,
             "pbrain-mcts does not play the GUI's special openings ({word}); it plays swap2 through SWAP2BOARD"),
    **_quiet("YXDRAW YXRESIGN", NONE, "pbrain-mcts neither offers nor accepts draws or resignations: {word} ignored"),
    **_quiet("YXPRINTFEATURE", NONE, "pbrain-mcts has no feature dump: {word} ignored"),
}

#: ``INFO`` keys Yixin-Board sends that change nothing here (accepted silently, as all
#: unknown keys are); listed so that the documentation and tests name them.
IGNORED_INFO_KEYS = frozenset(
    {"caution_factor", "pondering", "vcthread", "usedatabase", "database_readonly", "nbestsym",
     "time_increment", "start_depth", "max_depth", "thread_split_depth", "checkmate", "hash_size"}
)

#: A balance move is chosen among root moves searched at least this share of the most
#: searched one (the values of barely searched moves are noise).
BALANCE_MIN_SHARE = 0.02

#: ``MESSAGE INFO MAX_HASH_SIZE k`` offers the GUI hash sizes up to 2**k KB (here 4 GB).
#: ``INFO hash_size`` itself changes nothing: it sizes an alpha-beta engine's transposition
#: table (64 MB by default), and as a cap on the search tree it would stop the tree within a
#: second; ``max_memory`` caps the tree.
MAX_HASH_SIZE_LOG2_KB = 22


def note_for(quiet: Quiet) -> str | None:
    """The ``MESSAGE`` text for a quiet command (``None``: answer nothing)."""
    return None if quiet.note is None else quiet.note.format(word=quiet.word)


def show_info(version: str, max_threads: int) -> list[str]:
    """``YXSHOWINFO``'s answer: the name and version, then the limits the GUI's settings
    offer (it shows its threads setting only once it has read ``MAX_THREAD_NUM``)."""
    return [f"pbrain-mcts {version}", f"INFO MAX_THREAD_NUM {max_threads}",
            f"INFO MAX_HASH_SIZE {MAX_HASH_SIZE_LOG2_KB}"]


def forbid_line(board: Board | None) -> str:
    """``YXSHOWFORBID``'s answer: ``FORBID`` then black's forbidden points as four digits
    each (``x`` then ``y``, two digits apiece) and a dot -- ``FORBID .`` when black is not
    to move, the rule is not renju, or no position is set."""
    cells = []
    if board is not None and board.to_move == Player.FIRST and not board.is_over:
        for move in board.forbidden_moves():
            x, y = board.config.xy(move)
            cells.append(f"{x:02d}{y:02d}")
    return "FORBID " + "".join(cells) + "."


def balanced(board: Board, ranked: list[RootMove], two: bool, bias: int) -> list[int]:
    """``YXBALANCEONE``/``TWO``'s answer from a ranking of ``board``'s moves: the move whose
    value for the side to move is nearest ``bias`` (eval units: 0 is an even game), and with
    ``two`` the opponent's best reply in that move's line after it."""
    target = 1.0 / (1.0 + math.exp(-bias / EVAL_SCALE))
    most = max(r.visits for r in ranked)
    pool = [r for r in ranked if r.proven is None and r.visits >= BALANCE_MIN_SHARE * most] or ranked
    best = min(pool, key=lambda r: (abs(r.value - target), -r.visits))
    if not two:
        return [best.move]
    after = board.copy()
    after.play(best.move)
    if after.is_over:
        return [best.move]
    reply = best.pv[1] if len(best.pv) > 1 and after.is_empty(best.pv[1]) else quick_move(after)
    return [best.move, reply]
