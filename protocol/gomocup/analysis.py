"""What the brain shows of a search: the lines after a move, and the live stream that
Yixin-Board and other clients of Rapfi's output read (``INFO show_detail``).

Pure formatting: search reports in, text lines out (without the ``MESSAGE`` prefix where
a line is a message; :func:`protocol.gomocup.wire.message` adds it).

- While it thinks, :func:`progress` (at most twice a second), and after every move
  :func:`summary`, give the line ``depth D-S ev E n N n/ms R tm T pv
  H8 I9 …`` (the form Rapfi prints and client libraries such as pygomo-lib parse: ``D`` the
  principal line's length, ``S`` the deepest node, ``E`` the evaluation) and one with
  the win rate, playouts and why the search stopped (the summary's first line: the
  parsed form comes last, right before the move, where clients look for it).
- With ``INFO show_detail`` bit 2 set, :func:`info_block` streams, for each reported line,
  ``INFO PV i``, ``NUMPV``, ``DEPTH``, ``SELDEPTH``, ``NODES``, ``TOTALNODES``,
  ``TOTALTIME``, ``SPEED``, ``EVAL``, ``WINRATE``, ``BESTLINE x,y x,y …`` and ``INFO PV
  DONE`` -- Yixin-Board draws the win rate on each line's first move.  With bit 1,
  :func:`realtime` adds ``MESSAGE REALTIME REFRESH``/``BEST x,y`` (and ``LOST x,y`` for
  proven losses).  Either bit also turns on the per-depth rows of :func:`depth_row`
  (``Depth 12-19 | Eval 61 | Time 15ms | H8 I9``) and the multi-PV rows of :func:`pv_row`.

Evaluations are on Rapfi's scale, so that GUIs convert them the same way: a win rate ``p``
is ``EVAL_SCALE * ln(p / (1 - p))``, and a proven result is ``+M n``/``-M n`` (``n`` plies
in the line that proves it).
"""

from __future__ import annotations

import math
from typing import Sequence

from engine.mnk.board.rules import GameConfig
from engine.search.limits import RootMove, SearchInfo, SearchResult

#: Eval units per logit of the win rate (Rapfi's scaling factor): 200 is about 73 %.
EVAL_SCALE = 200.0
#: Largest evaluation shown for an unproven position.
EVAL_LIMIT = 3000
#: ``INFO show_detail`` bits.
REALTIME, DETAIL = 1, 2


def cell_name(cfg: GameConfig, move: int, board_view: bool = False) -> str:
    """A cell as the rows show it: column letter from ``A``, row number from 1 (``H8``);
    ``x,y`` on boards wider than 26 columns.  ``board_view``: as Yixin-Board labels its board,
    which sends the brain ``row,column`` from the top (letter from the second number, rows
    counted from the bottom)."""
    x, y = cfg.xy(move)
    if board_view:
        x, y = y, cfg.width - 1 - x
    return f"{chr(ord('A') + x)}{y + 1}" if cfg.width <= 26 else f"{x},{y}"


def cells_text(cfg: GameConfig, moves: Sequence[int], board_view: bool = False) -> str:
    """Moves as a row shows them, space-separated."""
    return " ".join(cell_name(cfg, m, board_view) for m in moves if 0 <= m < cfg.area)


def coords_text(cfg: GameConfig, moves: Sequence[int]) -> str:
    """Moves as the wire writes them (``x,y``), space-separated."""
    return " ".join("%d,%d" % cfg.xy(m) for m in moves if 0 <= m < cfg.area)


def eval_text(value: float, proven: str | None = None, plies: int = 0) -> str:
    """The evaluation of a win rate ``value`` (0..1 for the side to move): an integer, or
    ``+M n``/``-M n`` for a proven win/loss in ``n`` plies (written without the space)."""
    if proven == "win":
        return f"+M{max(1, plies)}"
    if proven == "loss":
        return f"-M{max(1, plies)}"
    if proven == "draw":
        return "0"
    p = min(1.0 - 1e-9, max(1e-9, value))
    return str(int(max(-EVAL_LIMIT, min(EVAL_LIMIT, round(EVAL_SCALE * math.log(p / (1.0 - p)))))))


def _speed(nodes: int, elapsed: float) -> int:
    """Nodes a second."""
    return int(nodes / elapsed) if elapsed > 0 else 0


def _search_line(cfg: GameConfig, pv: Sequence[int], depth: int, value: float, proven: str | None,
                 nodes: int, elapsed: float, shown: int, board_view: bool = False) -> str:
    """``depth D-S ev E n N n/ms R tm T pv H8 I9 …`` (Rapfi's form, which clients parse)."""
    pv = [m for m in pv if 0 <= m < cfg.area]
    line = (f"depth {len(pv)}-{max(depth, len(pv))} ev {eval_text(value, proven, len(pv))} n {nodes} "
            f"n/ms {_speed(nodes, elapsed) // 1000} tm {int(round(elapsed * 1000))}")
    return line + (f" pv {cells_text(cfg, pv[:shown], board_view)}" if pv else "")


def progress(cfg: GameConfig, info: SearchInfo, shown: int = 8, board_view: bool = False) -> str:
    """A search's progress in the summary's form: printed while it thinks, so that a client
    sees the search before the move (Rapfi prints one such line a depth)."""
    return _search_line(cfg, info.pv, info.depth, info.value, None, info.nodes, info.elapsed, shown, board_view)


def summary(result: SearchResult, cfg: GameConfig, budget: str, shown: int = 8,
            board_view: bool = False) -> list[str]:
    """The two lines printed (as MESSAGEs) with every move; ``budget`` says what the move
    was given (``"turn 1000 ms"``), ``shown`` how many moves of the line to quote."""
    line = _search_line(cfg, result.pv, result.depth, result.value, result.proven, result.nodes, result.elapsed,
                        shown, board_view)
    rest = [f"winrate {100.0 * result.value:.1f}%", f"playouts {result.playouts}"]
    if result.proven:
        rest.append(f"proven {result.proven}")
    rest.append(f"({budget})")
    if result.reason:
        rest.append(f"[{result.reason}]")
    return [" ".join(rest), line]  # the parsed form last: clients take the last line as the search's


def lines_of(info: SearchInfo) -> list[RootMove]:
    """The lines a report carries: its ranked root moves, else its one principal line."""
    if info.ranked:
        return info.ranked
    if not info.pv:
        return []
    return [RootMove(info.pv[0], info.value, float(info.playouts), None, None, list(info.pv), info.depth)]


def info_block(cfg: GameConfig, info: SearchInfo, lines: Sequence[RootMove]) -> list[str]:
    """The ``INFO`` stream of one report: a block per line, each ended by ``INFO PV DONE``.
    ``NODES`` (a line's) and ``TOTALNODES`` count playouts, the unit the root's statistics
    are kept in, so that a line's share of the search reads off directly."""
    ms = int(round(info.elapsed * 1000))
    out = []
    for i, r in enumerate(lines):
        out += [
            f"INFO PV {i}",
            f"INFO NUMPV {len(lines)}",
            f"INFO DEPTH {len(r.pv)}",
            f"INFO SELDEPTH {max(info.depth, len(r.pv))}",
            f"INFO NODES {int(r.visits)}",
            f"INFO TOTALNODES {info.playouts}",
            f"INFO TOTALTIME {ms}",
            f"INFO SPEED {_speed(info.playouts, info.elapsed)}",
            f"INFO EVAL {eval_text(r.value, r.proven, len(r.pv))}",
            f"INFO WINRATE {r.value:.4f}",
            f"INFO BESTLINE {coords_text(cfg, r.pv)}",
            "INFO PV DONE",
        ]
    return out


def realtime(cfg: GameConfig, lines: Sequence[RootMove]) -> list[str]:
    """``REALTIME`` messages (without the ``MESSAGE`` prefix): the moves proven lost, then
    a refresh and the best move."""
    out = [f"REALTIME LOST {coords_text(cfg, [r.move])}" for r in lines if r.proven == "loss"]
    if lines:
        out += ["REALTIME REFRESH", f"REALTIME BEST {coords_text(cfg, [lines[0].move])}"]
    return out


def depth_row(cfg: GameConfig, info: SearchInfo, board_view: bool = False) -> str:
    """The per-depth row: ``Depth D-S | Eval E | Time Tms | H8 I9 …`` (the best line)."""
    best = lines_of(info)
    pv = best[0].pv if best else []
    value, proven = (best[0].value, best[0].proven) if best else (info.value, None)
    return (f"Depth {len(pv)}-{max(info.depth, len(pv))} | Eval {eval_text(value, proven, len(pv))} | "
            f"Time {int(round(info.elapsed * 1000))}ms | {cells_text(cfg, pv, board_view)}")


def pv_row(cfg: GameConfig, index: int, r: RootMove, depth: int, board_view: bool = False) -> str:
    """One line of a multi-PV report: ``(i) Eval | D-S | H8 I9 …`` (``i`` from 1)."""
    return (f"({index + 1}) {eval_text(r.value, r.proven, len(r.pv))} | {len(r.pv)}-{max(depth, len(r.pv))} | "
            f"{cells_text(cfg, r.pv, board_view)}")
