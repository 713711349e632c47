"""The brain's state machine: protocol lines in, reply lines out, no I/O.

:meth:`Session.feed` takes one input line and its arrival time and returns a
:class:`Step`: lines to print, and possibly a :class:`SearchJob`.  The caller
runs the job (on a thread, so ``YXSTOP``/``END`` can interrupt it) and hands
the result to :meth:`Session.finish`, which returns the ``MESSAGE`` and move
lines.  While a job is out, the caller must not feed other lines (the loop
defers them); ``feed_now`` is a synchronous helper for tests and scripts.

Every bad command gets ``ERROR``/``UNKNOWN`` and leaves the state as it was.

Semantics worth knowing:

- BOARD/YXBOARD field 1 = my stone, 2 = the opponent's, 3 = a stone of a
  finished line in a continuous game (a blocked cell); I am the side to move.
  YXBOARD sets the position without moving; a following BEGIN thinks on it.
  A block is one command that ends at its ``DONE``: the move it asks for is timed
  from DONE's arrival, not BOARD's (a block typed or sent line by line does not
  lose the time it took to send).
- ``INFO rule``/``win_length`` sent after START apply at the next game command
  (GomocupJudge sends INFO after START); a rule or win length the brain cannot
  play (renju with K other than 5, renju with caro, K longer than the board) is
  reported there, never in reply to INFO.
- Renju (rule bit 4): the side with as many stones as the other is black (it moved
  first), as in every BOARD block; black never gets a forbidden point from the search,
  and a TURN or PLAY that puts black on one is refused with ``ERROR`` naming the reason.
- ``INFO max_node`` is a node limit per move; ``max_depth`` is accepted and
  ignored (no depth-limited search).
- ``INFO thread_num N`` sets the number of searching threads (at most the CPU
  count; ``--threads`` is the default) through the thinker factory's
  ``set_threads``.  It applies at once: the game's searcher
  is rebuilt (its tree is lost, so managers should send it before the game's
  first move, as they do).  Factories without ``set_threads`` ignore it.
- SWAP2BOARD: three opening stones, or the next move as white (never SWAP).
"""

from __future__ import annotations

import math
import operator
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from engine.search.limits import Limits, RootMove, SearchInfo, SearchResult
from engine.mnk.board.rules import MAX_SIDE, MIN_SIDE, Board, GameConfig, Player, Rule
from engine.timecontrol import DEFAULT_TURN_MS, MatchClock, TimeSettings, plan_move

from protocol import engines
from protocol.cliargs import package_version
from protocol.gomocup import analysis, wire, yixin
from protocol.gomocup.position import make_board, quick_move, rebuild
from protocol.gomocup.thinker import QuickThinker, Thinker, ThinkerFactory, rank_moves, search

#: Words that end a BOARD block early when they appear inside it (a lost DONE).
_BLOCK_BREAKERS = frozenset(
    {"START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "YXBOARD", "SWAP2BOARD", "INFO",
     "END", "ABOUT", "TAKEBACK", "PLAY", "YXSTOP", "STOP"}
)
#: Longest principal variation quoted in the MESSAGE line.
PV_SHOWN = 8
#: Live reports (``INFO show_detail``) are written at most this often, and carry at most
#: :data:`STREAM_LINES` lines, so a long think or a ranking of every move cannot flood the pipe.
STREAM_PERIOD_S = 0.5
STREAM_LINES = 20


@dataclass(frozen=True)
class SessionOptions:
    """Command-line settings: defaults the manager may override with INFO."""

    win_length: int = 5
    rule: Rule = Rule.FREESTYLE
    playouts: int | None = None
    nodes: int | None = None
    #: Turn time when the manager sends no time limit (None: search to the playout/node limit).
    default_turn_ms: int | None = DEFAULT_TURN_MS


@dataclass
class Ranking:
    """What an analysis job found: the search's result and its ranked root moves."""

    result: SearchResult
    moves: list[RootMove]


@dataclass
class SearchJob:
    """A search the caller must run: ``thinker.search(board, limits, stop)``, or for an
    analysis command (``kind`` other than ``"move"``) a ranking of ``count`` moves.

    ``board`` is a private copy.  ``arrival`` is when the command arrived.  The caller may
    set ``on_info`` (called on the search thread a few times a second) before running it.
    """

    board: Board
    limits: Limits
    thinker: Thinker
    arrival: float
    reason: str
    #: When the move becomes late (see ``engine.timecontrol.MovePlan``); ``None``: never.
    hard_deadline: float | None = None
    #: ``"move"``, or a :class:`protocol.gomocup.wire.Analyse` kind.
    kind: str = "move"
    count: int | None = 1
    bias: int = 0
    on_info: Callable[[SearchInfo], None] | None = None
    #: When the last live report was written (the session throttles them).
    streamed_at: float = -math.inf
    last_row: tuple = ()

    def run(self, stop: threading.Event | None = None) -> SearchResult | Ranking:
        """Run the search (on any thread)."""
        if self.kind == "move":
            return search(self.thinker, self.board, self.limits, stop, self.on_info)
        return Ranking(*rank_moves(self.thinker, self.board, self.limits, self.count, stop, self.on_info))


@dataclass
class Step:
    """What one input line produced."""

    lines: list[str] = field(default_factory=list)
    job: SearchJob | None = None
    quit: bool = False
    #: A new game began: call :meth:`Session.prepare` (builds the engine) before replying.
    prepare: bool = False


@dataclass
class _Block:
    """A BOARD / YXBOARD / SWAP2BOARD block being read (its move is asked for, and timed,
    when its ``DONE`` arrives)."""

    kind: str
    stones: list[tuple[int, int, int]] = field(default_factory=list)
    problem: str | None = None


class Session:
    """One brain process's protocol state (see the module docstring)."""

    def __init__(
        self,
        options: SessionOptions = SessionOptions(),
        thinker_factory: ThinkerFactory | None = None,
        clock=time.monotonic,
    ) -> None:
        self.options = options
        self._factory = thinker_factory
        self._now = clock
        self._win_length = options.win_length
        self._rule = options.rule
        self._rule_error: str | None = None
        self._size: tuple[int, int] | None = None
        self._board: Board | None = None
        self._me: Player | None = None
        self._block: _Block | None = None
        self._time = TimeSettings()
        self._clock = MatchClock()
        self._info_nodes: int | None = None
        self._thinker: Thinker | None = None
        self._thinker_config: GameConfig | None = None
        self._job: SearchJob | None = None
        self._notes: list[str] = []
        #: ``INFO show_detail`` bits (:data:`analysis.REALTIME`, :data:`analysis.DETAIL`).
        self._detail = 0
        #: Yixin-Board is the manager (it sent YXSHOWINFO): rows name cells as its board does.
        self._board_view = False
        #: A quiet command whose file path comes on the next line.
        self._path_for: yixin.Quiet | None = None
        #: The position was set without saying who the brain is (YXBOARD, an analysis):
        #: BEGIN thinks on it, TURN is a move of the side to move.
        self._positioned = False
        self.folder: str | None = None
        self.game_type: int | None = None
        #: The last ``INFO thread_num`` received (``None``: never sent).
        self.thread_num: int | None = None

    # Introspection (tests, loop) -------------------------------------------------
    @property
    def board(self) -> Board | None:
        """The current position (do not mutate)."""
        return self._board

    @property
    def in_block(self) -> bool:
        """True while inside a BOARD-like block (lines there are stones, not commands)."""
        return self._block is not None

    @property
    def time_settings(self) -> TimeSettings:
        """Time and memory limits the manager has sent so far."""
        return self._time

    # Main entry points -------------------------------------------------------------
    def feed(self, line: str, arrival: float | None = None) -> Step:
        """Handle one input line (CR/LF and surrounding blanks are ignored)."""
        if arrival is None:
            arrival = self._now()
        text = line.strip()
        if not text:
            return Step()
        try:
            if self._path_for is not None:
                quiet, self._path_for = self._path_for, None
                return self._quiet_done(quiet)
            if self._block is not None:
                return self._block_line(text, arrival)
            return self._dispatch(wire.parse_command(text), arrival)
        except wire.WireError as exc:
            return Step([exc.reply])

    def finish(
        self, job: SearchJob, result: SearchResult | None, failure: str | None = None, abandoned: bool = False
    ) -> list[str]:
        """Lines for a finished search: a MESSAGE and the move, which is played on the board.

        ``failure`` (or a result whose move is not legal) makes the brain play
        :func:`quick_move` instead and say so; a search never silently misplays.
        ``abandoned`` means the search is still running somewhere: its searcher
        is dropped so that the next move does not share it.
        """
        if job is not self._job or self._board is None:
            return []
        self._job = None
        if abandoned and self._thinker is job.thinker:
            self._thinker = None
        lines = [wire.message(n) for n in self._notes]
        self._notes.clear()
        if job.kind != "move":
            return self._finish_analysis(job, result, failure, lines)
        board = self._board
        move = result.move if result is not None else None
        try:
            move = operator.index(move)  # numpy integers are fine, anything else is not
        except TypeError:
            pass
        if failure is None and not _playable(board, move):
            failure = f"search returned an illegal move {move!r}"
        if failure is not None:
            # Same MESSAGE format as a normal move (a GUI log or a test reads one shape).
            move = quick_move(board)
            result = SearchResult(move=move, pv=[move], elapsed=max(0.0, self._now() - job.arrival),
                                  reason=f"search failed ({failure}); playing a quick move")
        return self._conclude(job, result, [move], lines)

    def _conclude(self, job: SearchJob, result: SearchResult, moves: list[int], lines: list[str],
                  ranked: list[RootMove] | None = None) -> list[str]:
        """``lines``, then the search's last report (``INFO show_detail``: never throttled
        away), its summary and the move line; ``moves`` are played and the time charged."""
        board = self._board
        cfg = board.config
        if self._detail:
            lines += self._report_lines(job, _final_info(result, ranked), True)
        lines += [wire.message(t) for t in analysis.summary(result, cfg, job.reason, PV_SHOWN, self._board_view)]
        for move in moves:
            if _forced_foul(board, move):
                # Renju, and every empty cell is forbidden for black: the protocol has no pass, so
                # black plays a foul for the manager to judge (an ERROR would give it no move).
                board.push(move)
            else:
                board.play(move)
        self._clock.charge((self._now() - job.arrival) * 1000.0)
        lines.append(" ".join(wire.format_move(*cfg.xy(m)) for m in moves))
        return lines

    def feed_now(self, line: str, arrival: float | None = None, stop: threading.Event | None = None) -> list[str]:
        """``feed`` and, if a search is asked for, run it here; return all lines."""
        step = self.feed(line, arrival)
        lines = list(step.lines)
        if step.job is not None:
            try:
                result, failure = step.job.run(stop), None
            except Exception as exc:  # noqa: BLE001 - any engine failure falls back to a quick move
                result, failure = None, f"{type(exc).__name__}: {exc}"
            lines += self.finish(step.job, result, failure)
        return lines

    def prepare(self) -> list[str]:
        """Build the searcher for the current game now (after START, before the first move).

        Returns MESSAGE lines when the engine cannot be built.
        """
        if self._board is not None:
            self._get_thinker(self._board.config)
        out = [wire.message(n) for n in self._notes]
        self._notes.clear()
        return out

    def wait_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the current searcher to be built; True when ready."""
        wait = getattr(self._thinker, "wait", None)
        return True if wait is None else bool(wait(max(0.0, timeout)))

    # Dispatch --------------------------------------------------------------------------
    def _dispatch(self, cmd: wire.Command, arrival: float) -> Step:
        if isinstance(cmd, wire.About):
            return Step([self._about()])
        if isinstance(cmd, wire.End):
            return Step(quit=True)
        if isinstance(cmd, wire.Info):
            # prepare: the searcher was dropped (thread_num changed) and is rebuilt now.
            return Step(prepare=self._info(cmd.key, cmd.value))
        if isinstance(cmd, wire.Stop):
            return Step()  # nothing is running: nothing to stop
        if isinstance(cmd, wire.Start):
            return self._start(cmd.width, cmd.height)
        if isinstance(cmd, wire.Restart):
            if self._size is None:
                raise wire.error("RESTART before any START: no board size known")
            return self._start(*self._size)
        if isinstance(cmd, wire.Done):
            raise wire.error("DONE without BOARD")
        if isinstance(cmd, wire.BlockStart):
            # Always read the block to its DONE, so a refused position (no START, renju)
            # gets one ERROR instead of one per stone line.
            self._block = _Block(cmd.kind)
            return Step()
        if isinstance(cmd, wire.Begin):
            return self._begin(arrival)
        if isinstance(cmd, wire.Turn):
            return self._turn(cmd.x, cmd.y, arrival)
        if isinstance(cmd, wire.Takeback):
            return self._takeback(cmd.x, cmd.y)
        if isinstance(cmd, wire.Play):
            return self._play(cmd.x, cmd.y)
        if isinstance(cmd, wire.Analyse):
            return self._analyse(cmd, arrival)
        if isinstance(cmd, wire.ShowInfo):
            self._board_view = True
            threads = engines.EngineFactory.clamp_threads(1 << 16)
            return Step([wire.message(t) for t in yixin.show_info(package_version(), threads)])
        if isinstance(cmd, wire.ShowForbid):
            return Step([yixin.forbid_line(self._sync() if self._size is not None else None)])
        if isinstance(cmd, wire.Quiet):
            return self._quiet(cmd)
        raise wire.unknown(f"command {type(cmd).__name__}")

    def _about(self) -> str:
        return wire.format_about(
            {"name": "pbrain-mcts", "version": package_version(), "author": "mnk-mcts developers",
             "country": "n/a", "www": "n/a",
             "description": "Monte Carlo tree search for m,n,k-games (INFO win_length K)"}
        )

    # Game setup ----------------------------------------------------------------------------
    def _config(self, width: int, height: int) -> GameConfig:
        if self._rule_error:
            raise wire.error(self._rule_error)
        try:
            return GameConfig(width, height, self._win_length, self._rule)
        except ValueError as exc:
            raise wire.error(str(exc)) from None

    def _start(self, width: int, height: int) -> Step:
        """A new game: the old one is gone whatever happens.  Only the board size is checked
        here; a win length or rule this brain cannot play on that board is reported at the
        next BEGIN/TURN/BOARD (managers send START first, then INFO)."""
        self._size = None
        self._board = None
        self._me = None
        self._positioned = False
        self._block = None
        self._thinker = None  # a fresh searcher (and tree) per game
        for name, side in (("width", width), ("height", height)):
            if not MIN_SIDE <= side <= MAX_SIDE:
                raise wire.error(f"unsupported board {name} {side}: this brain plays {MIN_SIDE}..{MAX_SIDE}")
        self._size = (width, height)
        self._clock.start(self._time.match_ms)
        try:
            self._board = Board(self._config(width, height))
        except wire.WireError:
            pass  # said at the next move command, when the INFO lines have arrived
        return Step(["OK"], prepare=True)

    def _sync(self) -> Board:
        """The current board, built or rebuilt if INFO changed the rule or win length since START."""
        if self._size is None:
            raise wire.error("no game in progress: send START first")
        config = self._config(*self._size)
        if self._board is None:
            self._board = Board(config)
        elif config != self._board.config:
            try:
                self._board = rebuild(self._board, config)
            except ValueError as exc:
                raise wire.error(f"cannot switch to {config.label}: {exc}") from None
        return self._board

    # Moves ---------------------------------------------------------------------------------
    def _cell(self, board: Board, x: int, y: int, what: str) -> int:
        cfg = board.config
        if not cfg.on_board(x, y):
            raise wire.error(f"{what} {x},{y} is off the {cfg.width}x{cfg.height} board")
        move = cfg.move(x, y)
        if not board.is_empty(move):
            raise wire.error(f"{what} {x},{y} is occupied")
        return move

    def _think(self, board: Board, arrival: float, kind: str = "move", count: int | None = 1, bias: int = 0) -> Step:
        if board.is_over:
            why = "the board is full" if board.winner is None else f"{board.winner.name} has already won"
            raise wire.error(f"no move possible: {why}")
        plan = plan_move(
            self._time,
            arrival=arrival,
            time_left_ms=self._clock.left_ms,
            empty_cells=board.empty_count,
            playouts=self.options.playouts,
            nodes=self._info_nodes if self._info_nodes is not None else self.options.nodes,
            default_turn_ms=self.options.default_turn_ms,
        )
        # After an analysis the GUI may place the moves or not: no side is claimed then.
        self._me = board.to_move if kind == "move" else None
        self._positioned = kind != "move"
        job = SearchJob(board.copy(), plan.limits, self._get_thinker(board.config), arrival, plan.reason,
                        plan.hard_deadline, kind, count, bias)
        self._job = job
        return Step(job=job)

    def _analyse(self, cmd: wire.Analyse, arrival: float) -> Step:
        """YXNBEST / YXSEARCHDEFEND / YXBALANCEONE / YXBALANCETWO on the current position."""
        board = self._sync()
        count = None if cmd.kind in ("defend", "balance1", "balance2") else cmd.count
        return self._think(board, arrival, cmd.kind, count, cmd.bias)

    def _begin(self, arrival: float) -> Step:
        board = self._sync()
        # BEGIN is for the empty board; after YXBOARD (a position set) it means "think".
        if board.stone_count and not (self._positioned or self._me is not None and board.to_move == self._me):
            raise wire.error(f"BEGIN on a board with {board.stone_count} stones: use BOARD")
        return self._think(board, arrival)

    def _turn(self, x: int, y: int, arrival: float) -> Step:
        board = self._sync()
        if board.is_over:
            raise wire.error(f"TURN {x},{y}: the game is already over")
        move = self._cell(board, x, y, "TURN")
        if self._me is not None and board.to_move == self._me:
            raise wire.error(f"TURN {x},{y}: it is my move, not the opponent's")
        self._allowed(board, move, x, y, "TURN")
        board.play(move)
        if board.is_over:
            board.undo()
            why = "completes a line" if board.wins_if_played(move, board.to_move) else "fills the board"
            raise wire.error(f"TURN {x},{y} {why}: the game is over, no move to answer")
        return self._think(board, arrival)

    def _takeback(self, x: int, y: int) -> Step:
        board = self._sync()
        cfg = board.config
        if not cfg.on_board(x, y):
            raise wire.error(f"TAKEBACK {x},{y} is off the {cfg.width}x{cfg.height} board")
        move = cfg.move(x, y)
        if board[move] not in (1, 2):
            raise wire.error(f"TAKEBACK {x},{y}: there is no stone there")
        board.remove(move)
        return Step(["OK"])

    def _play(self, x: int, y: int) -> Step:
        board = self._sync()
        if board.is_over:
            raise wire.error(f"PLAY {x},{y}: the game is already over")
        if self._me is not None and board.to_move != self._me:
            raise wire.error(f"PLAY {x},{y}: it is the opponent's move")
        move = self._cell(board, x, y, "PLAY")
        self._allowed(board, move, x, y, "PLAY")
        self._me = board.to_move
        self._positioned = False
        board.play(move)
        return Step([wire.format_move(x, y)])

    @staticmethod
    def _allowed(board: Board, move: int, x: int, y: int, what: str) -> None:
        """Refuse black's forbidden point under renju (``ERROR`` with the reason)."""
        if board.to_move == Player.FIRST:
            why = board.forbidden(move)
            if why is not None:
                raise wire.error(f"{what} {x},{y} is forbidden for black (renju): {why}")

    # Blocks ------------------------------------------------------------------------------------
    def _block_line(self, text: str, arrival: float) -> Step:
        block = self._block
        assert block is not None
        word = wire.command_word(text)
        if word == "DONE":
            # The command is complete only now: a manager (or a person) may send the block
            # line by line, and the move's time starts when it has all of it.
            self._block = None
            return self._block_done(block, arrival)
        if not wire.looks_like_board_line(text) and word in _BLOCK_BREAKERS:
            # A lost DONE: report the block, then obey the command.
            self._block = None
            step = self.feed(text, arrival)
            step.lines.insert(0, f"ERROR {block.kind} block ended by {word} without DONE; position unchanged")
            return step
        if block.problem is not None or block.kind in yixin.QUIET:
            return Step()  # keep swallowing lines until DONE
        try:
            if block.kind == "SWAP2BOARD":  # swap2 stones are plain x,y in the order played
                x, y = wire.parse_ints(text, 2, "a SWAP2BOARD line (x,y)")
                f = 0
            else:
                x, y, f = wire.parse_board_line(text)
        except wire.WireError:
            want = "x,y" if block.kind == "SWAP2BOARD" else "x,y,field"
            block.problem = f"bad line {wire.quote(text)} (want {want})"
            return Step()
        cfg = self._board.config if self._board is not None else None
        area = cfg.area if cfg is not None else 64 * 64
        if len(block.stones) >= area:
            block.problem = f"more than {area} stones"
        else:
            block.stones.append((x, y, f))
        return Step()

    def _block_done(self, block: _Block, arrival: float) -> Step:
        kind = block.kind
        if kind in yixin.QUIET:
            return self._quiet_done(yixin.QUIET[kind])
        if block.problem is not None:
            raise wire.error(f"{kind}: {block.problem}; position unchanged")
        board = self._sync()
        cfg = board.config
        for x, y, f in block.stones:
            if not cfg.on_board(x, y):
                raise wire.error(f"{kind}: {x},{y} is off the {cfg.width}x{cfg.height} board; position unchanged")
        if kind == "SWAP2BOARD":
            return self._swap2(cfg, [(x, y) for x, y, _ in block.stones], arrival)
        for x, y, f in block.stones:
            if f not in (1, 2, 3):
                raise wire.error(f"{kind}: {x},{y},{f}: field must be 1 (mine), 2 (opponent) or 3; position unchanged")
        own = sum(1 for s in block.stones if s[2] == 1)
        opp = sum(1 for s in block.stones if s[2] == 2)
        blocked = [(x, y) for x, y, f in block.stones if f == 3]
        if blocked:
            me = Player.FIRST if own >= opp else Player.SECOND
        elif own == opp:
            me = Player.FIRST
        elif own + 1 == opp:
            me = Player.SECOND
        else:
            raise wire.error(
                f"{kind}: impossible stone counts ({own} mine, {opp} opponent's; "
                "I must be to move); position unchanged"
            )
        stones = [(x, y, me if f == 1 else me.other) for x, y, f in block.stones if f != 3]
        try:
            new = make_board(cfg, stones, blocked, me)
        except ValueError as exc:
            raise wire.error(f"{kind}: {exc}; position unchanged") from None
        if new.is_over:
            raise wire.error(f"{kind}: the board is full; position unchanged")
        self._board = new
        if kind == "YXBOARD":
            # A position to analyse or to go on from: whoever is to move may move next
            # (Yixin-Board sends YXBOARD then TURN with the person's move on it).
            self._me, self._positioned = None, True
            return Step()
        self._me, self._positioned = me, False
        return self._think(new, arrival)

    def _swap2(self, cfg: GameConfig, cells: list[tuple[int, int]], arrival: float) -> Step:
        """The swap2 opening (Gomocup 2020 extension), answered in the simplest sound way.

        0 stones: place the first three (black, white, black) near the centre.
        3 or 5 stones (in play order, black first): keep white and play the
        next move (options "stay" / "play the 6th move"), found by the search.
        Never ``SWAP`` and never two more stones: the brain has no opening book
        to judge a position's balance.
        """
        if len(cells) not in (0, 3, 5):
            raise wire.error(f"SWAP2BOARD: want 0, 3 or 5 stones, got {len(cells)}; position unchanged")
        if not cells:
            cx, cy = cfg.width // 2, cfg.height // 2
            opening = [(cx, cy, Player.FIRST), (cx + 1, cy + 1, Player.SECOND), (cx - 1, cy, Player.FIRST)]
            try:
                self._board = make_board(cfg, opening, [], Player.SECOND)
            except ValueError as exc:
                raise wire.error(f"SWAP2BOARD: no opening for {cfg.label}: {exc}") from None
            self._me = None  # the opponent chooses a colour next
            return Step([" ".join(wire.format_move(x, y) for x, y, _ in opening)])
        stones = [(x, y, Player.FIRST if i % 2 == 0 else Player.SECOND) for i, (x, y) in enumerate(cells)]
        try:
            new = make_board(cfg, stones, [], Player.SECOND)
        except ValueError as exc:
            raise wire.error(f"SWAP2BOARD: {exc}; position unchanged") from None
        self._board = new
        return self._think(new, arrival)

    # INFO ------------------------------------------------------------------------------------------
    def _info(self, key: str, value: str) -> bool:
        """Apply one INFO key; bad values and unknown keys are ignored (INFO never replies).

        Returns True when the game's searcher must be rebuilt (``thread_num`` changed).
        """
        try:
            number = wire.parse_int(value, key) if value else None
        except wire.WireError:
            number = None
        if key == "folder":
            self.folder = value
            return False
        if number is None:
            return False
        if key == "thread_num":
            return self._threads(number)
        if key == "timeout_turn" and number >= 0:
            self._time = replace(self._time, turn_ms=number)
        elif key == "timeout_match" and number >= 0:
            self._time = replace(self._time, match_ms=number)
            if self._board is not None and not self._board.history:
                self._clock.start(number)  # sent right after START (GomocupJudge)
        elif key == "time_left":
            self._clock.set_left(number)
        elif key == "max_memory" and number >= 0:
            self._time = replace(self._time, memory_bytes=number)
        elif key == "show_detail":
            self._detail = number & (analysis.REALTIME | analysis.DETAIL)
        elif key == "game_type":
            self.game_type = number
        elif key == "rule":
            try:
                self._rule = Rule.from_gomocup_bits(number)
                self._rule_error = None
            except ValueError as exc:
                self._rule_error = f"rule {number}: {exc}"
        elif key == "win_length":
            self._win_length = number  # validated with the board size at the next game command
        elif key == "max_node":
            self._info_nodes = number if number > 0 else None
        # max_depth, evaluate and unknown keys: accepted, nothing to do.
        return False

    def _threads(self, number: int) -> bool:
        """``INFO thread_num``: tell the factory; drop the current searcher when the count changed."""
        if number < 1:
            return False
        self.thread_num = number
        set_threads = getattr(self._factory, "set_threads", None)
        if set_threads is None or not set_threads(number):
            return False
        if self._job is not None:
            return False  # never drop a searcher in use; the next game gets the new count
        self._thinker = None
        return self._board is not None

    # Search -------------------------------------------------------------------------------------------
    def _get_thinker(self, config: GameConfig) -> Thinker:
        if self._thinker is None or self._thinker_config != config:
            thinker: Thinker
            if self._factory is None:
                thinker = QuickThinker()
            else:
                try:
                    thinker = self._factory(config)
                except Exception as exc:  # noqa: BLE001 - no engine: still play, and say why
                    self._notes.append(f"engine unavailable ({type(exc).__name__}: {exc}); quick moves only")
                    self._factory = None  # it would fail the same way for every game
                    thinker = QuickThinker()
            self._thinker, self._thinker_config = thinker, config
        return self._thinker

    # Yixin commands ----------------------------------------------------------------------------
    def _quiet(self, cmd: wire.Quiet) -> Step:
        """A command this brain has nothing to do for: read its arguments, answer quietly."""
        quiet = yixin.QUIET[cmd.word]
        if quiet.follows == yixin.BLOCK:
            self._block = _Block(cmd.word)
            return Step()
        if quiet.follows == yixin.PATH and not cmd.rest:
            self._path_for = quiet  # the GUI sends the file's path on the next line
            return Step()
        return self._quiet_done(quiet)

    @staticmethod
    def _quiet_done(quiet: yixin.Quiet) -> Step:
        note = yixin.note_for(quiet)
        return Step([] if note is None else [wire.message(note)])

    # Live reports ---------------------------------------------------------------------------------
    def wants_reports(self, job: SearchJob) -> bool:
        """Should ``job`` report while it searches?  (Always: a progress line at least.)"""
        return job is self._job

    def report(self, job: SearchJob, info: SearchInfo, final: bool = False) -> list[str]:
        """The live lines for one search report: the progress MESSAGE, or with
        ``INFO show_detail`` the INFO/REALTIME stream; throttled to one every
        :data:`STREAM_PERIOD_S` unless ``final``; empty when there is nothing new."""
        if job is not self._job:
            return []
        now = self._now()
        if not final and now - job.streamed_at < STREAM_PERIOD_S:
            return []
        job.streamed_at = now
        if self._detail:
            return self._report_lines(job, info, final)
        if not info.pv or self._ending_soon(job, info, now):
            return []
        return [wire.message(analysis.progress(job.board.config, info, PV_SHOWN, self._board_view))]

    @staticmethod
    def _ending_soon(job: SearchJob, info: SearchInfo, now: float) -> bool:
        """Is the search about to end (its summary, in the same form, would repeat this report)?"""
        limits = job.limits
        if limits.deadline is not None and now >= limits.deadline - STREAM_PERIOD_S / 2:
            return True
        return limits.nodes is not None and info.nodes >= limits.nodes

    def _report_lines(self, job: SearchJob, info: SearchInfo, final: bool) -> list[str]:
        cfg = job.board.config
        lines = analysis.lines_of(info)
        if not final:
            lines = lines[:STREAM_LINES]
        out = []
        if self._detail & analysis.DETAIL:
            out += analysis.info_block(cfg, info, lines)
        if self._detail & analysis.REALTIME:
            out += [wire.message(t) for t in analysis.realtime(cfg, lines)]
        row = (len(lines[0].pv), lines[0].move) if lines else ()
        if row and row != job.last_row:
            job.last_row = row
            out.append(wire.message(analysis.depth_row(cfg, info, self._board_view)))
        return out

    def _finish_analysis(self, job: SearchJob, outcome, failure: str | None, lines: list[str]) -> list[str]:
        """Lines for a finished analysis: its rows and report, then the move (two for balance
        two), played on the board."""
        board = self._board
        ranked = outcome.moves if isinstance(outcome, Ranking) else []
        ranked = [r for r in ranked if isinstance(r.move, int) and board.is_empty(r.move)]
        if failure is not None or not ranked:
            move = quick_move(board)
            lines.append(wire.message(f"analysis failed ({failure or 'no move ranked'}); playing a quick move"))
            ranked = [RootMove(move, pv=[move])]
        result = outcome.result if isinstance(outcome, Ranking) else SearchResult(move=ranked[0].move)
        shown = ranked if job.count is None else ranked[: job.count]
        if job.kind in ("nbest", "defend"):
            picked = [ranked[0].move]
            for i, r in enumerate(shown[:STREAM_LINES] if job.kind == "defend" else shown):
                lines.append(wire.message(analysis.pv_row(board.config, i, r, result.depth, self._board_view)))
        else:
            picked = yixin.balanced(board, ranked, job.kind == "balance2", job.bias)
        return self._conclude(job, result, picked, lines, shown)

def _final_info(result: SearchResult, ranked: list[RootMove] | None = None) -> SearchInfo:
    """A finished search as its last progress report."""
    return SearchInfo(result.playouts, result.nodes, result.depth, result.value, list(result.pv),
                      result.elapsed, list(ranked or []))


def _forced_foul(board: Board, move: int) -> bool:
    """Is ``move`` black's forbidden point (renju) with every empty cell forbidden, so that
    black has nothing else to play?"""
    return board.to_move is Player.FIRST and board.forbidden(move) is not None and not board.legal_moves()


def _playable(board: Board, move) -> bool:
    """May the side to move play ``move`` (a compact index)?  An empty cell, and under renju
    not black's forbidden point unless it is a forced foul (see :meth:`Session._conclude`)."""
    if not isinstance(move, int) or not board.is_empty(move):
        return False
    return board.to_move is not Player.FIRST or board.forbidden(move) is None or _forced_foul(board, move)
