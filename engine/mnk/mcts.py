"""The search tree: UCT selection, MCTS-Solver, batched rollouts, tree reuse.

Value convention (the only place it is written down): every node stores, for
each of its children, ``n[i]`` = playouts through that move and ``w[i]`` =
their summed score *for the player to move at this node* (the player who
plays move ``i``): 1 per win, 0.5 per draw, 0 per loss.  So ``w[i] / n[i]``
is what choosing move ``i`` is worth to the chooser, and selection simply
maximises it (plus the exploration term).  A node's ``proven`` status is also
from the point of view of its own side to move (``WIN`` = the side to move
wins with best play).

Selection and backpropagation are loops over an explicit path (no
recursion).  Each loop iteration collects up to ``leaves_per_batch`` leaves
-- virtual loss (``n`` raised at selection, ``w`` only at backpropagation)
spreads them -- and evaluates them all in one vectorised rollout batch of
``rollouts_per_leaf`` playouts each.  The batch is kept small while the tree
is small and shrunk near a deadline (from the measured cost per leaf), so a
deadline is overrun by far less than 10 ms.  Untried moves are tried first,
in order; then UCT: ``q + c * sqrt(ln N / n)`` (scores kept per move and
refreshed in full when ``N`` has grown by 10 %).  In guided mode the
knowledge module's priors also give each move a progressive bias
``b * p * R / (n + R)`` that fades as the move gets playouts
(``EngineOptions.prior_bias``; ``R`` playouts per leaf).

Nodes carry the cheap exact knowledge: the cells where the side to move wins
at once (``wins``) and where the opponent would (``threats``), kept up to
date incrementally from the last move only.  A node with a win is a proven
win; facing two threats (freestyle/exact) a proven loss; facing one, its only
child is the block.  On large boards children are the empty cells near
stones, ordered adjacent-first then by distance to the centre; when all of
them are proven lost the node is widened to every empty cell before being
declared lost, so a proof never relies on the pruning.  A proven move is
never selected again; a node whose moves are all proven is proven (a win if
one move wins, else a draw if one draws, else a loss).

Tree reuse: the searcher keeps its tree; when the next position follows from
the old root by stones in the tree (in board-history order, else interleaved
by colour), that subtree becomes the root, else the tree is rebuilt.
"""

from __future__ import annotations

import math
import threading
import time
from array import array
from typing import Callable

import numpy as np

from .evaluation import LineEvaluator
from .knowledge import MoveKnowledge, Suggestion
from ..search.limits import Limits, SearchInfo, SearchResult
from .options import EngineOptions
from .rollout import RolloutKernel
from .rules import EMPTY, Board, GameConfig, Rule

UNKNOWN, WIN, LOSS, DRAW = 0, 1, 2, 3
PROVEN_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}
_EXCLUDED = -1e9  # selection value of a proven move (never selected again)
_EXACT = {WIN: 1.0, LOSS: 0.0, DRAW: 0.5}  # score of a proven node for its side to move
_NONE: tuple = ()
_MIN_BATCH = 8  # leaves per batch while the tree is small
_INFO_PERIOD = 0.25  # seconds between on_info reports


class Tables:
    """Geometry derived from a :class:`GameConfig`, built once per engine.

    Cell sets are Python ints used as bitsets, with bit ``b`` standing for the
    cell of *centre rank* ``b`` (cells sorted by distance to the centre), so
    reading the bits in order yields cells centre-first.
    """

    def __init__(self, config: GameConfig, radius: int) -> None:
        self.config = config
        w, h = config.width, config.height
        area = config.area
        cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
        order = sorted(range(area), key=lambda m: ((m % w - cx) ** 2 + (m // w - cy) ** 2, m))
        self.cell_of_rank = np.array(order, dtype=np.intp)
        rank = [0] * area
        for r, m in enumerate(order):
            rank[m] = r
        self.bit = [1 << rank[m] for m in range(area)]
        self.full = (1 << area) - 1
        self.nbytes = (area + 7) // 8
        self.pad = [config.padded(m) for m in range(area)]
        comp = [-1] * config.padded_size
        for m, p in enumerate(self.pad):
            comp[p] = m
        self.comp = comp
        self.near1 = [self._disc(m, 1) for m in range(area)]
        self.near2 = [self._disc(m, max(radius, 1)) for m in range(area)]

    def _disc(self, m: int, radius: int) -> int:
        cfg = self.config
        x0, y0 = cfg.xy(m)
        mask = 0
        for y in range(max(0, y0 - radius), min(cfg.height, y0 + radius + 1)):
            for x in range(max(0, x0 - radius), min(cfg.width, x0 + radius + 1)):
                mask |= self.bit[y * cfg.width + x]
        return mask

    def moves_of(self, mask: int) -> np.ndarray:
        """Cells of a bitset as compact moves, centre-first."""
        if not mask:
            return np.empty(0, dtype=np.intp)
        raw = np.frombuffer(mask.to_bytes(self.nbytes, "little"), dtype=np.uint8)
        return self.cell_of_rank[np.flatnonzero(np.unpackbits(raw, bitorder="little"))]

    def mask_of(self, moves) -> int:
        bit = self.bit
        mask = 0
        for m in moves:
            mask |= bit[m]
        return mask

class Node:
    """One position of the tree (see the module docstring for the values).

    A node is created when a playout first reaches it (``moves`` is then
    ``None``); its children are listed when a selection first passes
    through it, so the many leaves visited only once stay cheap.
    """

    __slots__ = (
        "moves", "mlist", "n", "w", "score", "cref", "tref", "excluded", "children", "next_new", "total",
        "proven", "plies", "wins", "threats", "near1", "near", "complete", "size", "prior",
    )

    def __init__(self, wins: tuple[int, ...], threats: tuple[int, ...], near1: int, near: int) -> None:
        # Until set_moves the per-move fields share empty tuples: most nodes are
        # leaves, and this keeps them small.
        self.moves: np.ndarray | None = None
        self.mlist: list[int] = _NONE  # the same moves as Python ints (fast access)
        self.n: array = _NONE  # playouts through each move
        self.w: array = _NONE  # their summed score for this node's side to move
        # UCT score of each tried move, q + cref / sqrt(n), kept up to date move
        # by move; cref = c * sqrt(ln total) is refreshed for all moves at once
        # only when total has grown by 10 % (a lag of under 2.5 % in cref).
        self.score: np.ndarray | None = None
        self.cref = 0.0
        self.tref = 0.0  # refresh when total exceeds this
        self.excluded: list[int] = _NONE  # proven moves (score _EXCLUDED)
        self.children: list[Node | None] = _NONE
        self.next_new = 0  # children are first tried in the order of ``moves``
        self.total = 0.0  # sum of n
        self.proven = UNKNOWN
        self.plies = 0  # once proven WIN/LOSS: plies until the game ends with best play
        self.wins = wins  # cells where the side to move completes a line now
        self.threats = threats  # cells where the opponent would
        self.near1 = near1  # bitset: cells within distance 1 of a stone
        self.near = near  # bitset: cells within the candidate radius of a stone
        self.complete = True  # do the moves cover every empty cell?
        self.size = 1  # nodes in the subtree rooted here (for the memory cap after reuse)
        # Progressive bias per move (guided mode with priors): bias[i] * R / (n[i] + R)
        # is added to the move's UCT score, so it fades as the move gets playouts.
        self.prior: np.ndarray | None = None

    def set_moves(self, moves) -> None:
        k = len(moves)
        self.moves = np.asarray(moves, dtype=np.intp)
        self.mlist = self.moves.tolist()
        # array('d'): list-speed scalar access at a quarter of a list's memory.
        self.n = array("d", bytes(8 * k))
        self.w = array("d", bytes(8 * k))
        self.score = np.zeros(k)
        self.cref = 0.0
        self.tref = 0.0
        self.excluded = []
        self.children = [None] * k
        self.next_new = 0
        self.prior = None


def line_wins(config: GameConfig, cells: list[int], c: int, p: int, d: int) -> bool:
    """Would ``p`` playing the empty padded cell ``c`` complete a line along ``d``?"""
    lo = c - d
    while cells[lo] == p:
        lo -= d
    hi = c + d
    while cells[hi] == p:
        hi += d
    run = (hi - lo) // d - 1
    k = config.win_length
    if run < k:
        return False
    rule = config.rule
    if rule is Rule.FREESTYLE:
        return True
    if rule is Rule.EXACT:
        return run == k
    o = 3 - p
    return run > k or not (cells[lo] == o and cells[hi] == o)


def cell_wins(config: GameConfig, cells: list[int], c: int, p: int) -> bool:
    """Would ``p`` playing the empty padded cell ``c`` complete a line?"""
    for d in config.directions:
        if line_wins(config, cells, c, p, d):
            return True
    return False


def continuation(old, old_to_move: int, new, history, to_move: int) -> list[int] | None:
    """The moves that lead from the position ``old`` (``old_to_move`` to play) to ``new``
    (``to_move`` to play), alternating from ``old_to_move``, or ``None`` when ``new`` does not
    follow from ``old``.  Both positions are compact cell arrays (0 empty, 1 or 2 a stone).

    The new stones are taken in the order of ``history`` (the board's moves) when it holds
    them all and they alternate; otherwise (a BOARD command lists stones in any order) they
    are interleaved by colour.  Used for tree reuse by both searchers.
    """
    old = np.asarray(old)
    new = np.asarray(new)
    if np.any((old != 0) & (old != new)):
        return None  # a stone vanished or changed colour
    added = [int(m) for m in np.flatnonzero(old != new)]
    colour = {m: int(new[m]) for m in added}
    seq = [m for m in history if m in colour]
    alternates = len(seq) == len(added) and len(set(seq)) == len(seq) and all(
        colour[m] == (old_to_move if i % 2 == 0 else 3 - old_to_move) for i, m in enumerate(seq))
    if not alternates:
        mine = [m for m in added if colour[m] == old_to_move]
        theirs = [m for m in added if colour[m] != old_to_move]
        if len(mine) not in (len(theirs), len(theirs) + 1):
            return None
        seq = [m for pair in zip(mine, theirs) for m in pair] + mine[len(theirs):]
    player = old_to_move if len(seq) % 2 == 0 else 3 - old_to_move
    return seq if player == to_move else None


class Searcher:
    """MCTS over one game: holds the tree between searches for reuse.

    Not thread-safe; one search at a time.  ``rng`` feeds the rollouts only,
    so a seed plus node/playout limits reproduce the search exactly.
    """

    def __init__(self, config: GameConfig, options: EngineOptions, rng: np.random.Generator) -> None:
        self.config = config
        self.options = options
        self.rng = rng
        self.tables = Tables(config, options.candidate_radius)
        self.kernel = RolloutKernel(config)
        self.full_width = config.area <= options.full_width_area
        # Large boards: more playouts per leaf and more leaves per batch, which
        # amortises the fixed cost of a batch (48 measured best on 15x15).
        big = config.area > 100
        self.per_leaf = options.rollouts_per_leaf or (16 if big else 8)
        self.per_batch = options.leaves_per_batch or (48 if big else 16)
        self.knowledge: MoveKnowledge | None = options.knowledge if options.mode == "guided" else None
        self.knowledge_errors = 0  # exceptions raised by the knowledge module (then ignored)
        self.bias = options.prior_bias if self.knowledge is not None else 0.0
        # Static evaluation mixed into the leaf values (guided mode; see engine.mnk.evaluation).
        self.eval_weight = options.eval_weight if options.mode == "guided" else 0.0
        self.evaluator = LineEvaluator(config) if self.eval_weight > 0 else None
        self._prior: np.ndarray | None = None  # priors of the node being expanded (see _consult)
        self.root: Node | None = None
        self.root_arr: np.ndarray | None = None  # compact cells of the root position
        self.root_to_move = 1
        self.tree_nodes = 0  # nodes held by the tree
        # Working state of one search: the root position, on which the moves of
        # a path are played and taken back in place while descending.
        self._cells: list[int] = []
        self._occ0 = 0

    # ------------------------------------------------------------------ setup
    def reset(self) -> None:
        """Forget the tree."""
        self.root = None
        self.root_arr = None
        self.tree_nodes = 0

    def set_root(self, board: Board) -> bool:
        """Make ``board`` the root, reusing the subtree when the position follows
        from the previous root by moves in the tree.  Returns True on reuse."""
        arr = np.array(board.cells, dtype=np.int8)[np.array(self.tables.pad)]
        to_move = int(board.to_move)
        reused = self.options.reuse_tree and self.root is not None and self._reuse(board, arr, to_move)
        if not reused:
            self.root = self._root_node(board)
            self.tree_nodes = 1
        self.root_arr = arr
        self.root_to_move = to_move
        self._cells = [int(v) for v in board.cells]
        self._occ0 = self.tables.mask_of(int(m) for m in np.flatnonzero(arr))
        if self.root.moves is None:
            self._expand(self.root, self._occ0, to_move)
        return reused

    def root_settled(self) -> bool:
        """Is the root decided before any search (no root, proven, or a forced block)?"""
        return self.root is None or bool(self.root.proven) or bool(self.root.threats)

    def root_moves(self) -> list[int]:
        """The root's candidate moves in the tree's order (best-ordered first)."""
        return list(self.root.mlist) if self.root is not None else []

    def drop_root_moves(self, drop) -> int:
        """Remove the moves ``drop`` from the root's children (e.g. moves a
        threat solver proved to lose); returns how many were removed.

        Statistics of the kept children survive; the tried ones are moved to
        the front so that "untried moves are the tail" still holds.  Nothing
        is removed from a proven root or when every move would go.  The root
        is then incomplete: if all kept moves are later proven lost, it is
        widened to every empty cell before being declared lost.
        """
        root = self.root
        if root is None or root.proven or root.moves is None:
            return 0
        drop = set(int(m) for m in drop)
        old = list(range(len(root.mlist)))
        keep = [i for i in old if root.mlist[i] not in drop]
        if not keep or len(keep) == len(old):
            return 0
        tried = [i for i in keep if i < root.next_new]
        order = tried + [i for i in keep if i >= root.next_new]
        mlist, n, w, children, prior = root.mlist, root.n, root.w, root.children, root.prior
        root.set_moves([mlist[i] for i in order])
        if prior is not None:
            root.prior = prior[order]
        for j, i in enumerate(order):
            root.n[j] = n[i]
            root.w[j] = w[i]
            root.children[j] = children[i]
            ch = children[i]
            if ch is not None and ch.proven:
                root.excluded.append(j)
        root.next_new = len(tried)
        root.total = float(sum(root.n))
        root.complete = False
        if tried:
            # Scores of the tried moves (each has n > 0), as _select keeps them.
            self._refresh(root, len(tried))
        return len(old) - len(keep)

    def _reuse(self, board: Board, arr: np.ndarray, to_move: int) -> bool:
        old = self.root_arr
        if old is None or old.shape != arr.shape:
            return False
        seq = continuation(old, self.root_to_move, arr, board.history, to_move)
        if seq is None:
            return False
        node = self.root
        for m in seq:
            if node.moves is None:
                return False
            hit = np.flatnonzero(node.moves == m)
            if hit.size == 0:
                return False
            child = node.children[int(hit[0])]
            if child is None:
                return False
            node = child
        self.root = node
        self.tree_nodes = node.size  # the rest of the old tree is garbage now
        return True

    def _root_node(self, board: Board) -> Node:
        t = self.tables
        wins = tuple(board.winning_cells(board.to_move))
        threats = tuple(board.winning_cells(board.to_move.other))
        near1 = near = 0
        cells = board.cells
        for m in range(self.config.area):
            if cells[t.pad[m]] != EMPTY:
                near1 |= t.near1[m]
                near |= t.near2[m]
        return self._new_node(wins, threats, near1, near, board.empty_count)

    def _new_node(self, wins, threats, near1: int, near: int, empty_count: int) -> Node:
        """A node with its exact status; children are listed later by _expand."""
        node = Node(wins, threats, near1, near)
        if wins:
            node.proven = WIN
            node.plies = 1
            node.set_moves(sorted(wins))
        elif empty_count == 0:
            node.proven = DRAW
            node.set_moves([])
        elif len(threats) >= 2 and self.config.rule is not Rule.CARO:
            # One stone cannot fill two cells.  (Under caro a stone at the far
            # end of a line may also block it, so caro is left to the search.)
            node.proven = LOSS
            node.plies = 2
            node.set_moves(sorted(threats))
        return node

    def _expand(self, node: Node, occ: int, p: int, depth: int = 0) -> None:
        """List the children of an unproven node; the working cells must hold
        its position (``p`` to move, occupancy bitset ``occ``, ``depth`` plies
        below the root)."""
        t = self.tables
        threats = node.threats
        caro = self.config.rule is Rule.CARO
        if threats and not caro:
            node.set_moves(list(threats))  # the only move that does not lose at once
            return
        free = t.full & ~occ
        empty_count = free.bit_count()
        if self.full_width:
            moves = t.moves_of(free)
        else:
            first = node.near1 & free
            second = node.near & free & ~node.near1
            if second:
                moves = np.concatenate((t.moves_of(first), t.moves_of(second)))
            elif first:
                moves = t.moves_of(first)
            else:
                # No stone near any empty cell (the empty board): the centre first.
                moves = t.moves_of(free)[:1]
            node.complete = len(moves) == empty_count
        if caro and threats:
            rest = moves[~np.isin(moves, threats)]
            moves = np.concatenate((np.array(sorted(threats), dtype=np.intp), rest))
        kd = self.options.knowledge_depth
        self._prior = None
        if self.knowledge is not None and (not kd or depth <= kd):
            # Deeper nodes keep the cheap built-in knowledge: the module costs
            # milliseconds a call and would starve the tree.
            moves = self._consult(node, p, moves, empty_count)
            if node.proven:
                return
        node.set_moves(moves)
        if self._prior is not None and len(self._prior) == len(node.mlist):
            node.prior = self._prior
        self._prior = None

    def _consult(self, node: Node, p: int, moves: np.ndarray, empty_count: int) -> np.ndarray:
        """Ask the knowledge module; return the (possibly reordered) moves."""
        cells = self._cells
        try:
            sug = self.knowledge.suggest(self.config, cells, p, [int(m) for m in moves])
        except Exception:  # noqa: BLE001 - a faulty module must not end the game
            self.knowledge_errors += 1
            return moves
        if not isinstance(sug, Suggestion):
            return moves
        pad = self.tables.pad
        area = self.config.area

        def legal(m) -> bool:
            return isinstance(m, (int, np.integer)) and 0 <= m < area and cells[pad[m]] == EMPTY

        if sug.forced is not None and legal(sug.forced):
            node.complete = sug.proven_win or empty_count == 1
            if sug.proven_win:
                node.proven = WIN
                node.plies = 3  # a threat sequence of unknown length (an immediate win is caught earlier)
                node.set_moves([int(sug.forced)])
            return np.array([int(sug.forced)], dtype=np.intp)
        new = moves
        if sug.moves is not None:
            cand = [int(m) for m in sug.moves if legal(m)]
            if cand:
                new = np.array(list(dict.fromkeys(cand)), dtype=np.intp)
                node.complete = len(new) == empty_count
        if sug.priors is not None and len(sug.priors) == len(new):
            try:
                pri = np.asarray(sug.priors, dtype=float)
            except (TypeError, ValueError):
                return new
            if np.all(np.isfinite(pri)):
                order = np.argsort(-pri, kind="stable")
                new = new[order]
                top = float(pri[order[0]]) if len(order) else 0.0
                if self.bias > 0 and top > 0:
                    self._prior = np.clip(pri[order] / top, 0.0, 1.0) * self.bias
        return new

    # ------------------------------------------------------------------ search
    def search(
        self,
        limits: Limits,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
        started: float | None = None,
    ) -> SearchResult:
        """Search from the current root until a limit, ``stop``, or a proof."""
        t0 = time.monotonic() if started is None else started
        root = self.root
        cap = limits.max_tree_nodes if limits.max_tree_nodes is not None else self.options.max_tree_nodes
        R = self.per_leaf
        L = self.per_batch
        playouts = nodes = max_depth = 0
        next_info = t0 + _INFO_PERIOD
        reason = "proven"
        # Smoothed seconds per selected leaf (selection + its rollouts); the
        # first guess is pessimistic so that a short deadline is kept too.
        leaf_cost = 1e-6 * self.config.area
        root_arr = self.root_arr
        alternate = [self.root_to_move, 3 - self.root_to_move] * (self.config.area // 2 + 1)
        while not root.proven:
            if stop is not None and stop.is_set():
                reason = "stop"
                break
            now = time.monotonic()
            if limits.deadline is not None and now >= limits.deadline:
                reason = "deadline"
                break
            if limits.nodes is not None and nodes >= limits.nodes:
                reason = "nodes"
                break
            if limits.playouts is not None and playouts >= limits.playouts:
                reason = "playouts"
                break
            if on_info is not None and now >= next_info:
                next_info = now + _INFO_PERIOD
                on_info(self._info(playouts, nodes, max_depth, now - t0))
            # Few leaves per batch while the tree is small (virtual loss would
            # spread them too thin), up to ``L`` once it has grown.
            want = min(L, max(_MIN_BATCH, self.tree_nodes // 32))
            if limits.playouts is not None:
                want = min(want, -(-(limits.playouts - playouts) // R))
            if limits.deadline is not None:
                # Shrink the last batches so that the deadline is not overrun.
                want = max(1, min(want, int((limits.deadline - now) / leaf_cost)))
            batch_start = now
            leaves = 0
            paths = []
            movers = []
            rows: list[int] = []
            cols: list[int] = []
            vals: list[int] = []
            # A knowledge module can make one leaf cost milliseconds: then the
            # deadline is also checked leaf by leaf.
            watch = limits.deadline if self.knowledge is not None else None
            for _ in range(want):
                if root.proven or (limits.nodes is not None and nodes >= limits.nodes):
                    break
                if watch is not None and leaves and time.monotonic() >= watch:
                    break
                path, played, p, value, created = self._select(R, cap)
                leaves += 1
                nodes += created
                self.tree_nodes += created
                if len(path) > max_depth:
                    max_depth = len(path)
                if value is not None:
                    self._backprop(path, value, R, True)
                    continue
                depth = len(played)
                rows.extend([len(paths)] * depth)
                cols.extend(played)
                vals.extend(alternate[:depth])
                paths.append(path)
                movers.append(p)
            if paths:
                boards = np.repeat(root_arr[None, :], len(paths), axis=0)
                boards[rows, cols] = vals
                movers_arr = np.array(movers, dtype=np.int8)
                scores = self._leaf_scores(boards, movers_arr, R).tolist()
                # An evaluated leaf counts as R playouts (its weight in the tree), so
                # playout limits work the same with or without the static evaluation.
                playouts += boards.shape[0] * R
                for path, v in zip(paths, scores):
                    self._backprop(path, v, R, False)
            if leaves:
                cost = (time.monotonic() - batch_start) / leaves
                leaf_cost = 0.7 * leaf_cost + 0.3 * cost
        elapsed = time.monotonic() - t0
        if on_info is not None:
            on_info(self._info(playouts, nodes, max_depth, elapsed))
        return self._result(playouts, nodes, max_depth, elapsed, reason)

    def _leaf_scores(self, boards: np.ndarray, movers: np.ndarray, R: int) -> np.ndarray:
        """Scores (0..R, for each leaf's side to move) of a batch of leaf ``boards``.

        ``R`` random playouts each, the static evaluation scaled to ``R``, or
        the mix of the two set by ``eval_weight`` (at 1 no playout is run).
        """
        lam = self.eval_weight
        if lam >= 1.0:
            return R * self.evaluator.values(boards, movers)
        winners = self.kernel.run_boards(boards, movers, R, self.rng)
        wins = np.count_nonzero(winners == movers[:, None], axis=1)
        draws = np.count_nonzero(winners == 0, axis=1)
        scores = wins + 0.5 * draws
        if lam > 0.0:
            scores = (1.0 - lam) * scores + (lam * R) * self.evaluator.values(boards, movers)
        return scores

    def _select(self, R: int, cap: int):
        """Walk from the root to a leaf, applying virtual loss.

        Returns ``(path, played, to_move, value, created)``: ``path`` lists
        ``(node, child index, occupancy bitset at node)``, ``played`` the
        moves from the root (alternating, the root's side to move first), ``to_move`` the leaf's side to
        move.  ``value`` is ``None`` when the leaf needs rollouts, else its
        exact score for its side to move (scaled to ``R`` playouts).
        """
        t = self.tables
        pad = t.pad
        bit = t.bit
        cells = self._cells
        inv_sqrt_r = R ** -0.5
        inv_r = 1.0 / R
        widen = self.options.widening
        node = self.root
        p = self.root_to_move
        occ = self._occ0
        path = []
        played = []
        created = 0
        leaf = node
        while True:
            if node.proven:
                break
            if node.moves is None:
                self._expand(node, occ, p, len(path))
                if node.proven:
                    break
            i = node.next_new
            untried = i < len(node.mlist)
            if untried and widen and i and i >= widen * math.sqrt(node.total * inv_r):
                # Progressive widening: the next untried move waits, unless
                # every tried one is proven (then it is needed at once).
                if node.total > node.tref:
                    self._refresh(node, i)
                j = int(node.score[:i].argmax())
                if node.score[j] > _EXCLUDED / 2:
                    i = j
                    untried = False
            elif not untried:
                if node.total > node.tref:
                    self._refresh(node, i)
                i = int(node.score.argmax())
            if untried:
                # Untried moves in order (w is 0, so q is 0).
                node.next_new = i + 1
                node.n[i] = R
                node.score[i] = node.cref * inv_sqrt_r
                if node.prior is not None:
                    node.score[i] += 0.5 * node.prior[i]
            else:
                # Never a proven move here (their score is excluded).
                n_i = node.n[i] + R
                node.n[i] = n_i
                node.score[i] = node.w[i] / n_i + node.cref * n_i ** -0.5  # virtual loss until backprop
                if node.prior is not None:
                    node.score[i] += node.prior[i] * R / (n_i + R)
            node.total += R
            path.append((node, i, occ))
            m = node.mlist[i]
            cells[pad[m]] = p
            occ |= bit[m]
            played.append(m)
            child = node.children[i]
            p = 3 - p
            if child is None:
                if self.tree_nodes + created >= cap:
                    leaf = None
                    break
                child = self._child(node, m, p, occ)
                node.children[i] = child
                created += 1
                for entry in path:
                    entry[0].size += 1
                leaf = child
                break
            node = child
            leaf = node
        for m in played:
            cells[pad[m]] = EMPTY
        if leaf is not None and leaf.proven:
            return path, played, p, _EXACT[leaf.proven] * R, created
        if occ == t.full:
            return path, played, p, 0.5 * R, created
        return path, played, p, None, created

    def _refresh(self, node: Node, upto: int) -> None:
        """Recompute the UCT scores of the first ``upto`` (all tried) moves."""
        n = np.frombuffer(node.n, count=upto)
        cref = self.options.exploration * math.sqrt(math.log(node.total))
        score = np.frombuffer(node.w, count=upto) / n
        score += cref / np.sqrt(n)
        if node.prior is not None:
            score += node.prior[:upto] * self.per_leaf / (n + self.per_leaf)
        del n  # release the buffer view: the array may be extended later
        for i in node.excluded:
            if i < upto:
                score[i] = _EXCLUDED
        node.score[:upto] = score
        node.cref = cref
        node.tref = node.total * 1.1

    def _child(self, parent: Node, m: int, p: int, occ: int) -> Node:
        """Create the node reached by ``m`` (played by ``3 - p``; ``p`` to move)."""
        t = self.tables
        cfg = self.config
        cells = self._cells
        mover = 3 - p
        cm = t.pad[m]
        comp = t.comp
        # The mover had no immediate win at the parent (else it would be proven),
        # so every new win of the mover goes through m: per direction, only the
        # first empty cell past each end of m's run can be one (all distinct,
        # as lines through m meet only at m).
        threats = []
        k = cfg.win_length
        plain = cfg.rule is Rule.FREESTYLE
        for d in cfg.directions:
            hi = cm + d
            while cells[hi] == mover:
                hi += d
            lo = cm - d
            while cells[lo] == mover:
                lo -= d
            base = (hi - lo) // d  # run through m, plus the cell filled at one end
            if cells[hi] == EMPTY:
                e = hi + d
                while cells[e] == mover:
                    e += d
                run = base + (e - hi) // d - 1
                if run >= k and (plain or self._line_ok(run, cells[e], cells[lo], p)):
                    threats.append(comp[hi])
            if cells[lo] == EMPTY:
                e = lo - d
                while cells[e] == mover:
                    e -= d
                run = base + (lo - e) // d - 1
                if run >= k and (plain or self._line_ok(run, cells[e], cells[hi], p)):
                    threats.append(comp[lo])
        wins = [w for w in parent.threats if w != m]
        if wins and cfg.rule is Rule.CARO:
            wins = [w for w in wins if cell_wins(cfg, cells, t.pad[w], p)]
        return self._new_node(
            tuple(wins), tuple(threats), parent.near1 | t.near1[m], parent.near | t.near2[m],
            cfg.area - occ.bit_count(),
        )

    def _line_ok(self, run: int, end_a: int, end_b: int, opp: int) -> bool:
        """Does a run of ``run >= K`` stones, with the cells ``end_a``/``end_b``
        just beyond it, win under the exact or caro rule?"""
        if self.config.rule is Rule.EXACT:
            return run == self.config.win_length
        return run > self.config.win_length or not (end_a == opp and end_b == opp)

    def _backprop(self, path, value: float, R: int, proven_leaf: bool) -> None:
        """Add the leaf score ``value`` (for the leaf's side to move) along ``path``,
        flipping it at every level, and propagate proofs upwards."""
        v = value
        check = proven_leaf
        for j in range(len(path) - 1, -1, -1):
            node, i, occ = path[j]
            v = R - v
            w = node.w[i] + v
            node.w[i] = w
            ch = node.children[i]
            if ch is None or not ch.proven:
                n_i = node.n[i]
                node.score[i] = w / n_i + node.cref * n_i ** -0.5
                if node.prior is not None:
                    node.score[i] += node.prior[i] * R / (n_i + R)
            if check:
                check = self._prove(node, i, occ)

    def _prove(self, node: Node, i: int, occ: int) -> bool:
        """Update ``node`` after its child ``i`` may have been proven; return True
        when ``node`` itself became proven."""
        child = node.children[i]
        if child is None or not child.proven:
            return False
        if child.proven == LOSS:
            plies = child.plies + 1
            if node.proven != WIN or plies < node.plies:
                node.proven = WIN
                node.plies = plies
            return True
        # A proven child's value is known exactly: never select it again, so
        # every iteration makes progress in the unproven part of the tree.
        node.score[i] = _EXCLUDED
        node.excluded.append(i)
        if node.next_new < len(node.moves):
            return False
        any_draw = False
        longest = 0
        for ch in node.children:
            if ch is None or not ch.proven:
                return False
            if ch.proven == DRAW:
                any_draw = True
            elif ch.plies > longest:
                longest = ch.plies
        if not node.complete:
            self._widen(node, occ)
            return False
        node.proven = DRAW if any_draw else LOSS
        node.plies = 0 if any_draw else longest + 1
        return True

    def _widen(self, node: Node, occ: int) -> None:
        """Add every empty cell not yet a child (before proving a pruned node lost)."""
        t = self.tables
        rest = t.full & ~occ & ~t.mask_of(int(m) for m in node.moves)
        node.complete = True
        extra = t.moves_of(rest)
        k = len(extra)
        if not k:
            return
        node.moves = np.concatenate((node.moves, extra))
        node.mlist = node.moves.tolist()
        node.n.extend(array("d", bytes(8 * k)))
        node.w.extend(array("d", bytes(8 * k)))
        node.score = np.concatenate((node.score, np.zeros(k)))
        if node.prior is not None:
            node.prior = np.concatenate((node.prior, np.zeros(k)))
        node.children.extend([None] * k)

    # ------------------------------------------------------------------ results
    def best_index(self, node: Node) -> int | None:
        """The move to play at ``node``.

        A proven win at once (the fastest one known); else the most visited
        move not proven to lose (ties: higher mean value), replaced by a proven
        draw when that move's mean value is below a draw; when every move is
        proven to lose, the one that resists longest.
        """
        if node.moves is None or not len(node.moves):
            return None
        if node.proven == WIN and node.wins:
            return 0
        k = len(node.moves)
        draw = None
        win = None
        ok = np.ones(k, dtype=bool)
        plies = np.zeros(k)
        for i, ch in enumerate(node.children):
            if ch is None or not ch.proven:
                continue
            if ch.proven == LOSS:
                if win is None or ch.plies < node.children[win].plies:
                    win = i
            elif ch.proven == WIN:
                ok[i] = False
                plies[i] = ch.plies
            elif draw is None or node.n[i] > node.n[draw]:
                draw = i
        if win is not None:
            return win
        n = np.array(node.n)
        if not ok.any():
            return int((plies * 1e9 + n).argmax())
        if not n.any():
            return int(np.flatnonzero(ok)[0])
        q = np.divide(np.array(node.w), n, out=np.zeros(k), where=n > 0)
        key = np.where(ok, n, -1.0) + q * 1e-6
        best = int(key.argmax())
        if draw is not None and best != draw and q[best] < 0.5:
            return draw
        return best

    def principal_variation(self, limit: int = 32) -> list[int]:
        """Best moves from the root down the tree."""
        pv = []
        node = self.root
        while node is not None and len(pv) < limit:
            i = self.best_index(node)
            if i is None:
                break
            pv.append(int(node.moves[i]))
            node = node.children[i]
        return pv

    def _value_of(self, node: Node, i: int) -> float:
        ch = node.children[i]
        if ch is not None and ch.proven:
            return 1.0 - _EXACT[ch.proven]
        if node.proven == WIN and node.wins:
            return 1.0
        if node.n[i] > 0:
            return float(min(1.0, max(0.0, node.w[i] / node.n[i])))
        return 0.5

    def _info(self, playouts: int, nodes: int, depth: int, elapsed: float) -> SearchInfo:
        root = self.root
        i = self.best_index(root)
        value = self._value_of(root, i) if i is not None else 0.5
        return SearchInfo(playouts=playouts, nodes=nodes, depth=depth, value=value,
                          pv=self.principal_variation(), elapsed=elapsed)

    def _result(self, playouts: int, nodes: int, depth: int, elapsed: float, reason: str) -> SearchResult:
        root = self.root
        i = self.best_index(root)
        if i is None:
            raise ValueError("no legal move")
        value = _EXACT[root.proven] if root.proven else self._value_of(root, i)
        return SearchResult(
            move=int(root.moves[i]),
            visits=int(root.n[i]),
            value=value,
            pv=self.principal_variation(),
            playouts=playouts,
            nodes=nodes,
            depth=depth,
            elapsed=elapsed,
            proven=PROVEN_NAMES.get(root.proven),
            reason=reason,
        )

    def root_stats(self) -> list[tuple[int, float, float, str | None]]:
        """Statistics of the root's tried children, for merging several searches.

        One ``(move, n, w, proven)`` per child that has playouts or a proof:
        ``n`` playouts through the move, ``w`` their summed score for the
        root's side to move (so ``w / n`` is what the move is worth to it),
        ``proven`` ``"win"``/``"loss"``/``"draw"`` for that side when the
        move's outcome is proven, else ``None``.  An immediate win at the
        root is reported as a proven ``"win"`` even before it is tried.
        """
        root = self.root
        if root is None or root.moves is None:
            return []
        # A child's status is from its own side to move's view: flip it for the root's mover.
        flip = {WIN: "loss", LOSS: "win", DRAW: "draw"}
        wins = set(root.wins) if root.proven == WIN else set()
        stats = []
        for i, m in enumerate(root.mlist):
            ch = root.children[i] if i < len(root.children) else None
            proven = flip.get(ch.proven) if ch is not None else None
            if m in wins:
                proven = "win"
            n = float(root.n[i]) if i < len(root.n) else 0.0
            if n > 0 or proven is not None:
                stats.append((int(m), n, float(root.w[i]) if i < len(root.w) else 0.0, proven))
        return stats
