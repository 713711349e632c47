"""One Monte Carlo tree search for every game of the interface in :mod:`engine.game`.

UCT with priors (progressive bias and widening), MCTS-Solver, batched leaf evaluation
with virtual loss, tree reuse by move history, and node / playout / deadline / tree-size
limits.  It knows a game only through a :class:`~engine.game.GameState`, an
:class:`~engine.game.Evaluator` and an optional :class:`~engine.game.Oracle`.

**Values.**  Every node stores, for each of its moves ``i``, ``n[i]`` = playouts through
that move (a leaf value counts as ``evaluator.weight`` playouts) and ``w[i]`` = their summed
score *for the player to move at this node* (the player who plays move ``i``).  So
``w[i] / n[i]`` is what move ``i`` is worth to the chooser and selection maximises it (plus
the exploration term).  A node's ``outcome`` is also for its own side to move.

**Selection** walks from the root with ``state.apply`` (and takes the moves back with
``state.undo``); no recursion anywhere.  Untried moves are tried first, in the order the
evaluator gave (best first); then UCT ``q + c * sqrt(ln N / n)``, whose exploration part is
refreshed for all moves at once only when ``N`` has grown by 10 %.  With ``widening`` > 0 a
node visited ``v`` times (in leaves) offers only its first ``widening * sqrt(v)`` moves.
Priors add a progressive bias ``b * p * R / (n + R)`` that fades as a move gets playouts
(``R`` = playouts per leaf, ``p`` the prior relative to the best move's).

**Implicit minimax** (``minimax`` = ``a`` > 0; Lanctot, Winands, Pepels and Sturtevant, "Monte
Carlo Tree Search with Heuristic Evaluations using Implicit Minimax Backups", 2014).  Every node
also keeps ``tau``: a new node's leaf value, then the best ``1 - tau`` of its valued children,
or its exact score once proven.  Selection reads a tried move's value as
``(1 - a) * w / n + a * (1 - tau(child))``, so a refutation found deep in the tree counts at once
instead of being averaged in over many playouts.

**Batches.**  One iteration selects up to ``leaves_per_batch`` leaves (virtual loss: ``n``
is raised at selection, ``w`` only at backpropagation, which spreads them) and values them
in one call of ``evaluator.values``.  Batches start small while the tree is small and
shrink near a deadline, from the measured cost of a leaf, so a deadline is overrun by
milliseconds at most.

**Proofs (MCTS-Solver).**  A node is proven when the oracle says so, when the game is over,
or from its children: one child lost for its mover makes the node a win; all children
proven make it a loss, or a draw if one draws.  A proven move is never selected again.
When the evaluator listed only some of the moves (``Expansion.complete`` false) and all of
those are proven lost, the node is widened to every legal move first, so pruning never makes
a false proof.

**Reuse.**  The tree is kept between searches; when the new root's history extends the old
root's by moves that are in the tree, that subtree becomes the root.
"""

from __future__ import annotations

import math
import threading
import time
from array import array
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .choice import Child, choose, mean
from ..game import Evaluator, GameError, GameState, Oracle, Outcome, Verdict
from .gcfreeze import older_objects_frozen
from .limits import Limits, SearchInfo, SearchResult
from .slices import INFO_PERIOD as _INFO_PERIOD

_UNKNOWN, _WIN, _LOSS, _DRAW = int(Outcome.UNKNOWN), int(Outcome.WIN), int(Outcome.LOSS), int(Outcome.DRAW)
_SCORE = {_WIN: 1.0, _LOSS: 0.0, _DRAW: 0.5}  # a proven node's score for its side to move
_EXCLUDED = -1e9  # selection score of a proven move: never selected again
_NONE: tuple = ()
_PV_LIMIT = 32


@dataclass(frozen=True)
class TreeSettings:
    """How the tree searches (the game decides these; see each game's options).

    - ``exploration``: the UCT constant ``c`` (values are in ``[0, 1]``, ``n`` counts playouts);
    - ``widening``: progressive widening factor (0: every move is tried once before any
      is tried twice);
    - ``prior_bias``: weight ``b`` of the priors' progressive bias (0: priors only order moves);
    - ``minimax``: weight ``a`` of the implicit minimax backup (0: none): a move's value is
      ``(1 - a) * w / n + a * m``, where ``m`` is the minimax of the leaf values below it;
    - ``leaves_per_batch``: leaves valued in one evaluator call once the tree has grown
      (``min_batch`` while it is small);
    - ``max_tree_nodes``: memory cap when ``Limits.max_tree_nodes`` is not given; at the cap
      the tree stops growing and keeps refining what it has;
    - ``reuse_tree``: keep the subtree of the position reached between searches.
    """

    exploration: float = 0.8
    widening: float = 0.0
    prior_bias: float = 0.0
    minimax: float = 0.0
    leaves_per_batch: int = 16
    min_batch: int = 8
    max_tree_nodes: int = 300_000
    reuse_tree: bool = True

    def __post_init__(self) -> None:
        for name in ("exploration", "widening", "prior_bias"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        if not 0 <= self.minimax <= 1:
            raise ValueError(f"minimax must be in [0, 1], got {self.minimax!r}")
        if self.leaves_per_batch < 1 or self.min_batch < 1:
            raise ValueError("leaves_per_batch and min_batch must be >= 1")
        if self.max_tree_nodes < 1:
            raise ValueError("max_tree_nodes must be >= 1")


def _tau(node: Node | None) -> float:
    """``node``'s implicit minimax value for its side to move (-1: not valued yet)."""
    if node is None:
        return -1.0
    return _SCORE[node.outcome] if node.outcome else node.tau


def _mixed(child: Node | None, q: float, mix: float) -> float:
    """A tried move's value ``q`` (its playouts' mean) mixed with its child's minimax value."""
    t = _tau(child)
    return q if t < 0 else q + mix * (1.0 - t - q)


def _back_up_tau(node: Node) -> None:
    """Set ``node.tau`` to the best of its valued children (kept when none is valued)."""
    best = -1.0
    for ch in node.children[: node.next_new]:
        t = _tau(ch)
        if t >= 0 and 1.0 - t > best:
            best = 1.0 - t
    if best >= 0:
        node.tau = best


class Node:
    """One position of the tree (values: see the module docstring).

    A node is created when a selection first reaches it; its moves are listed when a
    selection first passes through it, so the many leaves visited once stay small.
    """

    __slots__ = (
        "moves", "n", "w", "score", "cref", "tref", "excluded", "children", "next_new", "total",
        "outcome", "plies", "verdict", "complete", "size", "prior", "win_first", "tau",
    )

    def __init__(self, verdict: Verdict | None) -> None:
        # Until set_moves the per-move fields share empty tuples: most nodes are leaves.
        self.moves: list[int] | None = None
        self.n: array = _NONE  # playouts through each move
        self.w: array = _NONE  # their summed score for this node's side to move
        # UCT score of each tried move, kept up to date move by move; cref = c * sqrt(ln total)
        # is refreshed for all moves only when total has grown by 10 % (a lag under 2.5 %).
        self.score: np.ndarray | None = None
        self.cref = 0.0
        self.tref = 0.0  # refresh when total exceeds this
        self.excluded: list[int] = _NONE  # indices of proven moves
        self.children: list[Node | None] = _NONE
        self.next_new = 0  # moves are first tried in their listed order
        self.total = 0.0  # sum of n
        self.outcome = _UNKNOWN
        self.plies = 0  # once proven WIN/LOSS: plies to the end with best play
        self.verdict = verdict  # the oracle's, if any
        self.complete = True  # do the moves cover every legal move?
        self.size = 1  # nodes in the subtree rooted here (for the memory cap after reuse)
        self.prior: np.ndarray | None = None  # progressive bias per move
        self.win_first = False  # proven WIN by a verdict or an expansion: moves[0] wins
        # Implicit minimax: the leaf value below, backed up by max over the valued children,
        # for this node's side to move (-1 until valued).
        self.tau = -1.0

    def set_moves(self, moves: list[int]) -> None:
        """List ``moves`` (a list of ints the node then owns) with no statistics yet."""
        k = len(moves)
        self.moves = moves
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

    def child_stats(self) -> list[Child]:
        """The node's moves with their statistics, as :func:`engine.search.choice.choose` reads them."""
        out = []
        for i, m in enumerate(self.moves or ()):
            ch = self.children[i]
            outcome = Outcome(ch.outcome).flipped if ch is not None and ch.outcome else Outcome.UNKNOWN
            plies = ch.plies + 1 if ch is not None and ch.outcome else 0
            out.append(Child(m, self.n[i], self.w[i], outcome, plies))
        if self.win_first and out and out[0].outcome != Outcome.WIN:
            out[0] = out[0]._replace(outcome=Outcome.WIN, plies=max(1, self.plies))
        return out


class MCTS:
    """The search tree of one game, kept between searches for reuse.

    Not thread-safe: one search at a time.  ``rng`` (a ``numpy.random.Generator``) is
    handed to the evaluator only, so a seed plus a node or playout limit reproduces a
    search exactly.
    """

    def __init__(self, evaluator: Evaluator, oracle: Oracle | None = None,
                 settings: TreeSettings = TreeSettings(), rng: np.random.Generator | None = None) -> None:
        self.evaluator = evaluator
        self.oracle = oracle
        self.settings = settings
        self.rng = rng if rng is not None else np.random.default_rng()
        self.root: Node | None = None
        self.tree_nodes = 0  # nodes held by the tree
        self._state: GameState | None = None  # the root position; searches apply/undo on it
        self._history: list[int] = []  # the root's history (for reuse)

    # ------------------------------------------------------------------ root
    def reset(self) -> None:
        """Forget the tree."""
        self.root = None
        self._state = None
        self._history = []
        self.tree_nodes = 0

    def set_root(self, state: GameState) -> bool:
        """Make ``state`` (copied) the root; keep the subtree of the old tree when its
        history extends the old root's by moves in the tree.  True on reuse.
        :class:`GameError` when the game is over."""
        if state.is_terminal():
            raise GameError("the game is over: no move to search")
        history = list(state.history)
        node = self._reuse(history) if self.settings.reuse_tree else None
        reused = node is not None
        work = state.clone()
        if node is None:
            node = self._new_root(work)
            self.tree_nodes = 1
        else:
            self.tree_nodes = node.size  # the rest of the old tree is garbage now
        self.root = node
        self._state = work
        self._history = history
        if node.moves is None:
            self._expand(node, work)
        return reused

    def _reuse(self, history: list[int]) -> Node | None:
        old = self._history
        node = self.root
        if node is None or len(history) < len(old) or history[: len(old)] != old:
            return None
        for m in history[len(old):]:
            if node.moves is None or m not in node.moves:
                return None
            node = node.children[node.moves.index(m)]
            if node is None:
                return None
        return node

    def _new_root(self, state: GameState) -> Node:
        verdict = self.oracle.verdict(state, None, None) if self.oracle is not None else None
        node = Node(verdict)
        if verdict is not None and verdict.outcome:
            self._settle(node, verdict)
        return node

    def root_settled(self) -> bool:
        """Is the root decided before any search: proven, or its moves forced by the oracle?"""
        root = self.root
        return root is None or bool(root.outcome) or (root.verdict is not None and root.verdict.moves is not None)

    def root_moves(self) -> list[int]:
        """The root's moves in the tree's order (best-ordered first)."""
        return list(self.root.moves) if self.root is not None and self.root.moves is not None else []

    def drop_root_moves(self, drop: Sequence[int]) -> int:
        """Remove ``drop`` from the root's moves (e.g. moves a solver proved to lose);
        returns how many went.

        The kept moves keep their statistics (the tried ones move to the front, so
        "untried moves are the tail" still holds).  Nothing is removed from a proven root
        or when every move would go.  The root is then incomplete: if every kept move is
        later proven lost, it is widened to every legal move before it is called lost.
        """
        root = self.root
        if root is None or root.outcome or root.moves is None:
            return 0
        drop = {int(m) for m in drop}
        old = range(len(root.moves))
        keep = [i for i in old if root.moves[i] not in drop]
        if not keep or len(keep) == len(old):
            return 0
        tried = [i for i in keep if i < root.next_new]
        order = tried + [i for i in keep if i >= root.next_new]
        moves, n, w, children, prior = root.moves, root.n, root.w, root.children, root.prior
        root.set_moves([moves[i] for i in order])
        if prior is not None:
            root.prior = prior[order]
        for j, i in enumerate(order):
            root.n[j] = n[i]
            root.w[j] = w[i]
            root.children[j] = children[i]
            if children[i] is not None and children[i].outcome:
                root.excluded.append(j)
        root.next_new = len(tried)
        root.total = float(sum(root.n))
        root.complete = False
        if tried:
            self._refresh(root, len(tried))
        return len(old) - len(keep)

    # ------------------------------------------------------------------ search
    def search(
        self,
        limits: Limits,
        stop: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
        started: float | None = None,
        between: Callable[[bool], bool] | None = None,
    ) -> SearchResult:
        """Search from the root (see :meth:`set_root`) until a limit, ``stop`` or a proof.

        ``on_info`` gets a :class:`SearchInfo` a few times a second and once at the end;
        ``started`` (monotonic) is when the caller's clock for this move began.
        ``between(last)``, if given, is called between batches (``last`` False; it may
        change the root, e.g. drop moves, and returns True to end the search, reason
        ``"stop"``) and once after the last batch (``last`` True).
        """
        if self.root is None or self._state is None:
            raise GameError("no root position: call set_root first")
        with older_objects_frozen():
            return self._search(limits, stop, on_info, started, between)

    def _search(self, limits: Limits, stop: threading.Event | None, on_info: Callable[[SearchInfo], None] | None,
                started: float | None, between: Callable[[bool], bool] | None) -> SearchResult:
        """The body of :meth:`search`, with the older objects frozen for the garbage collector."""
        t0 = time.monotonic() if started is None else started
        root = self.root
        s = self.settings
        cap = limits.max_tree_nodes if limits.max_tree_nodes is not None else s.max_tree_nodes
        R = self.evaluator.weight
        playouts = nodes = counted = max_depth = 0
        next_info = t0 + _INFO_PERIOD
        reason = "proven"
        # Smoothed seconds per selected leaf (selection + its evaluation); the first guess
        # is pessimistic so that a short deadline is kept too.
        leaf_cost = 2e-4
        evaluate = self.evaluator.values
        self.evaluator.begin(self._state, limits.deadline)
        while not root.outcome:
            if (stop is not None and stop.is_set()) or (between is not None and between(False)):
                reason = "stop"
                break
            now = time.monotonic()
            if limits.deadline is not None and now >= limits.deadline:
                reason = "deadline"
                break
            if limits.nodes is not None and counted >= limits.nodes:
                reason = "nodes"
                break
            if limits.playouts is not None and playouts >= limits.playouts:
                reason = "playouts"
                break
            if on_info is not None and now >= next_info:
                next_info = now + _INFO_PERIOD
                on_info(self._info(playouts, nodes, max_depth, now - t0))
            # Few leaves per batch while the tree is small (virtual loss would spread them
            # too thin), up to ``leaves_per_batch`` once it has grown.
            want = min(s.leaves_per_batch, max(s.min_batch, self.tree_nodes // 32))
            if limits.playouts is not None:
                want = min(want, -(-(limits.playouts - playouts) // R))
            if limits.deadline is not None:
                want = max(1, min(want, int((limits.deadline - now) / leaf_cost)))
                watch = limits.deadline
            else:
                watch = None
            batch_start = now
            leaves = 0
            paths = []
            tokens = []
            for _ in range(want):
                if root.outcome or (limits.nodes is not None and counted >= limits.nodes):
                    break
                # A leaf can cost milliseconds (an oracle, a knowledge module): near the
                # deadline it is checked leaf by leaf.
                if watch is not None and leaves and time.monotonic() >= watch:
                    break
                path, value, token, created = self._select(R, cap)
                leaves += 1
                nodes += created
                # A leaf valued without a node (at the memory cap) counts towards the node
                # limit, so that the limit also ends a search whose tree has stopped growing.
                counted += created or token is not None
                self.tree_nodes += created
                if len(path) > max_depth:
                    max_depth = len(path)
                if value is not None:
                    self._backprop(path, value, R, True)
                else:
                    paths.append(path)
                    tokens.append(token)
            if paths:
                values = evaluate(tokens, self.rng)
                playouts += len(paths) * R
                for path, v in zip(paths, values):
                    self._backprop(path, R * float(v), R, False)
            if leaves:
                cost = (time.monotonic() - batch_start) / leaves
                leaf_cost = 0.7 * leaf_cost + 0.3 * cost
        if between is not None:
            between(True)
        elapsed = time.monotonic() - t0
        if on_info is not None:
            on_info(self._info(playouts, nodes, max_depth, elapsed))
        return self._result(playouts, nodes, max_depth, elapsed, reason)

    def _select(self, R: int, cap: int):
        """Walk from the root to a leaf, applying virtual loss.

        Returns ``(path, value, token, created)``: ``path`` lists ``(node, move index)``;
        ``value`` is the leaf's exact score for its side to move (times ``R``) when it is
        proven, else ``None`` and ``token`` is the evaluator's snapshot of the leaf.
        """
        state = self._state
        # With an oracle to judge each new node, the moves can be played unchecked.
        apply = state.push if self.oracle is not None else state.apply
        inv_sqrt_r = R ** -0.5
        inv_r = 1.0 / R
        widen = self.settings.widening
        mix = self.settings.minimax
        node = self.root
        path = []
        created = 0
        leaf = node
        while True:
            if node.outcome:
                break
            if node.moves is None:
                self._expand(node, state)
                if node.outcome:
                    break
            i = node.next_new
            untried = i < len(node.moves)
            if untried and widen and i and i >= widen * math.sqrt(node.total * inv_r):
                # Progressive widening: the next untried move waits, unless every tried one
                # is proven (then it is needed at once).
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
                node.next_new = i + 1
                node.n[i] = R
                node.score[i] = node.cref * inv_sqrt_r
                if node.prior is not None:
                    node.score[i] += 0.5 * node.prior[i]
            else:
                n_i = node.n[i] + R
                node.n[i] = n_i
                q = node.w[i] / n_i  # virtual loss until backprop
                if mix:
                    q = _mixed(node.children[i], q, mix)
                node.score[i] = q + node.cref * n_i ** -0.5
                if node.prior is not None:
                    node.score[i] += node.prior[i] * R / (n_i + R)
            node.total += R
            path.append((node, i))
            m = node.moves[i]
            apply(m)
            child = node.children[i]
            if child is None:
                if self.tree_nodes + created >= cap:
                    leaf = None  # at the memory cap: value the position without a node
                    break
                child = self._child(node, m, state)
                node.children[i] = child
                created += 1
                for entry in path:
                    entry[0].size += 1
                leaf = child
                break
            node = child
            leaf = node
        value = token = None
        if leaf is not None and leaf.outcome:
            value = _SCORE[leaf.outcome] * R
        else:
            token = self.evaluator.leaf(state)
        undo = state.undo
        for _ in path:
            undo()
        return path, value, token, created

    def _child(self, parent: Node, move: int, state: GameState) -> Node:
        """The node of ``state``, reached by ``move`` from ``parent``."""
        if self.oracle is not None:
            verdict = self.oracle.verdict(state, parent.verdict, move)
            node = Node(verdict)
            if verdict.outcome:
                self._settle(node, verdict)
            return node
        node = Node(None)
        if state.is_terminal():
            score = state.returns()[state.to_move - 1]
            node.outcome = _WIN if score > 0.5 else _LOSS if score < 0.5 else _DRAW
        return node

    @staticmethod
    def _settle(node: Node, verdict: Verdict) -> None:
        """Mark ``node`` proven as ``verdict`` says (its moves, if listed, kept for the PV)."""
        node.outcome = int(verdict.outcome)
        node.plies = verdict.plies
        if verdict.moves:
            node.set_moves([int(m) for m in verdict.moves])
            node.win_first = node.outcome == _WIN

    def _expand(self, node: Node, state: GameState) -> None:
        """List the moves of an unproven node whose position ``state`` holds."""
        verdict = node.verdict
        if verdict is not None and verdict.moves is not None:
            node.set_moves([int(m) for m in verdict.moves])  # the oracle's forced moves: nothing else need be tried
            return
        ex = self.evaluator.expand(state, verdict)
        moves = ex.moves
        if not len(moves):
            raise GameError("the evaluator listed no move at a position that is not over")
        node.set_moves(moves if type(moves) is list else [int(m) for m in moves])
        node.complete = ex.complete
        if ex.win_plies:
            node.outcome = _WIN
            node.plies = ex.win_plies
            node.win_first = True
            return
        bias = self.settings.prior_bias
        if ex.priors is not None and bias > 0 and len(ex.priors) == len(moves):
            pri = np.asarray(ex.priors, dtype=float)
            top = float(pri.max()) if len(pri) else 0.0
            if top > 0 and np.all(np.isfinite(pri)):
                node.prior = np.clip(pri / top, 0.0, 1.0) * bias

    def _refresh(self, node: Node, upto: int) -> None:
        """Recompute the UCT scores of the first ``upto`` (all tried) moves."""
        n = np.frombuffer(node.n, count=upto)
        cref = self.settings.exploration * math.sqrt(math.log(node.total))
        score = np.frombuffer(node.w, count=upto) / n
        mix = self.settings.minimax
        if mix:
            children = node.children
            for k in range(upto):
                score[k] = _mixed(children[k], score[k], mix)
        score += cref / np.sqrt(n)
        if node.prior is not None:
            R = self.evaluator.weight
            score += node.prior[:upto] * R / (n + R)
        del n  # release the buffer view: the array may be extended later
        for i in node.excluded:
            if i < upto:
                score[i] = _EXCLUDED
        node.score[:upto] = score
        node.cref = cref
        node.tref = node.total * 1.1

    def _backprop(self, path, value: float, R: int, proven_leaf: bool) -> None:
        """Add the leaf score ``value`` (for the leaf's side to move, times ``R``) along
        ``path``, flipping it at every level, and propagate proofs upwards."""
        v = value
        check = proven_leaf
        mix = self.settings.minimax
        if mix and path:
            node, i = path[-1]
            leaf = node.children[i]
            if leaf is not None and leaf.tau < 0:
                leaf.tau = value / R
        for j in range(len(path) - 1, -1, -1):
            node, i = path[j]
            v = R - v
            w = node.w[i] + v
            node.w[i] = w
            ch = node.children[i]
            if ch is None or not ch.outcome:
                n_i = node.n[i]
                q = w / n_i
                if mix:
                    q = _mixed(ch, q, mix)
                node.score[i] = q + node.cref * n_i ** -0.5
                if node.prior is not None:
                    node.score[i] += node.prior[i] * R / (n_i + R)
            if check:
                check = self._prove(path, j)
            if mix:
                _back_up_tau(node)

    def _prove(self, path, j: int) -> bool:
        """Update ``path[j]``'s node after its child may have been proven; True when the
        node itself became proven."""
        node, i = path[j]
        child = node.children[i]
        if child is None or not child.outcome:
            return False
        if child.outcome == _LOSS:
            plies = child.plies + 1
            if node.outcome != _WIN or plies < node.plies:
                node.outcome = _WIN
                node.plies = plies
            return True
        # A proven child's value is known exactly: never select it again, so every
        # iteration makes progress in the unproven part of the tree.
        node.score[i] = _EXCLUDED
        node.excluded.append(i)
        if node.next_new < len(node.moves):
            return False
        any_draw = False
        longest = 0
        for ch in node.children:
            if ch is None or not ch.outcome:
                return False
            if ch.outcome == _DRAW:
                any_draw = True
            elif ch.plies > longest:
                longest = ch.plies
        if not node.complete:
            self._widen(path, j)
            return False
        node.outcome = _DRAW if any_draw else _LOSS
        node.plies = 0 if any_draw else longest + 1
        return True

    def _widen(self, path, j: int) -> None:
        """Add every legal move not yet listed at ``path[j]``'s node (before proving a pruned
        node lost).  Rare: the position is reached again from the root."""
        node = path[j][0]
        state = self._state
        for k in range(j):
            parent, i = path[k]
            state.push(parent.moves[i]) if self.oracle is not None else state.apply(parent.moves[i])
        try:
            everything = self.evaluator.expand(state, node.verdict, everything=True).moves
        finally:
            for _ in range(j):
                state.undo()
        node.complete = True
        known = set(node.moves)
        extra = [int(m) for m in everything if int(m) not in known]
        if not extra:
            return
        k = len(extra)
        node.moves.extend(extra)
        node.n.extend(array("d", bytes(8 * k)))
        node.w.extend(array("d", bytes(8 * k)))
        node.score = np.concatenate((node.score, np.zeros(k)))
        if node.prior is not None:
            node.prior = np.concatenate((node.prior, np.zeros(k)))
        node.children.extend([None] * k)

    # ------------------------------------------------------------------ results
    def best_index(self, node: Node) -> int | None:
        """The index of the move to play at ``node`` (:func:`engine.search.choice.choose`)."""
        if node.moves is None or not node.moves:
            return None
        if node.win_first:
            return 0
        return choose(node.child_stats())

    def principal_variation(self, limit: int = _PV_LIMIT) -> list[int]:
        """Best moves from the root down the tree."""
        return self._follow(self.root, [], limit)

    def line(self, move: int, limit: int = _PV_LIMIT) -> list[int]:
        """The principal variation that starts with root move ``move`` (``[move]`` when the
        tree has not looked past it): each root move's own line in a multi-PV report."""
        root = self.root
        if root is None or root.moves is None or move not in root.moves:
            return [move]
        return self._follow(root.children[root.moves.index(move)], [move], limit)

    def _follow(self, node: Node | None, pv: list[int], limit: int) -> list[int]:
        """``pv`` extended by the best moves from ``node`` down, up to ``limit`` moves."""
        while node is not None and len(pv) < limit:
            i = self.best_index(node)
            if i is None:
                break
            pv.append(node.moves[i])
            node = node.children[i]
        return pv

    def root_children(self) -> list[Child]:
        """The root's moves with their statistics (for reports such as NBoard's hints)."""
        return self.root.child_stats() if self.root is not None and self.root.moves is not None else []

    def _root_value(self, i: int | None) -> float:
        root = self.root
        if root.outcome:
            return _SCORE[root.outcome]
        if i is None:
            return 0.5
        return mean(root.child_stats()[i])

    def _info(self, playouts: int, nodes: int, depth: int, elapsed: float) -> SearchInfo:
        i = self.best_index(self.root)
        return SearchInfo(playouts=playouts, nodes=nodes, depth=depth, value=self._root_value(i),
                          pv=self.principal_variation(), elapsed=elapsed)

    def _result(self, playouts: int, nodes: int, depth: int, elapsed: float, reason: str) -> SearchResult:
        root = self.root
        i = self.best_index(root)
        if i is None:
            raise GameError("no legal move")
        return SearchResult(
            move=root.moves[i],
            visits=int(root.n[i]),
            value=self._root_value(i),
            pv=self.principal_variation(),
            playouts=playouts,
            nodes=nodes,
            depth=depth,
            elapsed=elapsed,
            proven=Outcome(root.outcome).label,
            reason=reason,
        )
