"""Game records: Piskvork ``.psq`` and SGF (m,n,k), GGF (Reversi), and the ``results.jsonl`` log.

PSQ (what Piskvork's ``savePsq`` writes in tournament mode, and what we write):

    Piskvorky 15x15, 11:11, 0      header: size, "11:11" (the players' levels,
                                   meaningless here), 0 = the first-listed player began
    8,8,120                        one line per stone: x,y 1-based, then the think time in ms
    ...
    <name of the player who moved first>
    <name of the other player>
    <code>                         0 = normal end (line or full board), 15 = timeout
                                   (Piskvork's code), 1 = any other end (crash, illegal
                                   move, bad output, failed start, a human's resignation)

A renju foul (black's stone on a forbidden point, which loses) is the last stone line, as
in ``results.jsonl``'s ``moves`` (where ``"foul": true`` marks it) and the SGF (where the
move's comment says ``foul`` and ``MA`` marks the point with an X); the code is then 1.

Piskvork's PSQ has no field for the rule (its reader takes the header, the moves and the
two names only); the SGF's ``RU`` and ``results.jsonl``'s ``rule`` carry it.

SGF (as c-gomoku-cli writes it): ``GM[4]``, ``SZ`` (``w:h`` when not square),
``RU`` = the Gomocup rule bitmask (4 for renju), ``PB``/``PW`` (B = X = first colour),
``RE`` = ``B+1``/``W+1``/``0``, ``TE`` = the termination, ``GC`` = the reason and
the win length, and each move with its time in a comment (``C[123ms]``;
opening stones say ``C[opening]``).

GGF (Reversi, written by :func:`engine.reversi.board.ggf.format_ggf`, the one GGF writer):
``PB``/``PW`` (black moves first), ``RE`` black's disc differential (``+12``,
``-4``, ``0``; the whole board to the winner of a fault or resignation; no ``RE``
when there is no result), ``TE`` the termination, ``CO`` the reason, each move with
its think time in seconds (``F5//0.12``; none for the opening and forced passes).

``results.jsonl``: one JSON object per finished game, appended and flushed
(and fsynced) as soon as the game ends.

PGN (``--pgn FILE``, for rating tools such as BayesElo and Ordo, which read the tags):
one record a game, appended as it ends, with ``Event``, ``Site``, ``Date``, ``Round`` (the
game number), ``White`` (the side that moved first, as in chess) and ``Black``,
``Result`` (``1-0`` when the first mover won), ``Termination`` (the verdict),
``PlyCount`` and the game (``GameType``, board, rule); its movetext is the result alone,
with the reason as a comment (the moves are in the game's own records).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from engine.mnk.board.rules import Rule
from engine.reversi.board.ggf import GgfMove, format_ggf
from engine.reversi.board.rules import ReversiState
from referee.play.result import GameResult

__all__ = ["psq_text", "sgf_text", "ggf_text", "pgn_text", "append_pgn", "append_result", "read_results",
           "write_game_files", "write_match_file", "PSQ_CODES"]

#: PSQ trailer code for each termination (0 normal, 15 timeout like Piskvork, 1 other fault).
PSQ_CODES = {"line": 0, "full_board": 0, "draw_after": 0, "max_length": 0, "timeout": 15}


def _names_by_colour(r: GameResult) -> tuple[str, str]:
    """(name of X / first mover, name of O)."""
    return (r.engine1, r.engine2) if r.first == 1 else (r.engine2, r.engine1)


def psq_text(r: GameResult) -> str:
    """The game as a Piskvork ``.psq`` file."""
    x_name, o_name = _names_by_colour(r)
    lines = [f"Piskvorky {r.width}x{r.height}, 11:11, 0"]
    lines += [f"{x + 1},{y + 1},{ms}" for (x, y), ms in zip(r.moves, r.times_ms)]
    lines += [_one_line(x_name), _one_line(o_name), str(PSQ_CODES.get(r.termination, 1))]
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "?"


def _sgf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _sgf_coord(v: int) -> str:
    return "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[v]


def sgf_text(r: GameResult) -> str:
    """The game as SGF (``GM[4]``, the Gomoku game type)."""
    x_name, o_name = _names_by_colour(r)
    if r.termination == "abandoned":
        re_ = "Void"  # SGF's "no result": the game was not played out
    elif r.winner is None:
        re_ = "0"
    else:
        winner_is_x = (r.winner == "engine1") == (r.first == 1)
        re_ = "B+1" if winner_is_x else "W+1"
    size = str(r.width) if r.width == r.height else f"{r.width}:{r.height}"
    bits = Rule(r.rule).gomocup_bits
    head = (
        f"(;FF[4]GM[4]CA[UTF-8]AP[mnk-referee]SZ[{size}]RU[{bits}]"
        f"GN[game {r.game}]DT[{_sgf_escape(r.started[:10])}]"
        f"PB[{_sgf_escape(x_name)}]PW[{_sgf_escape(o_name)}]RE[{re_}]TE[{r.termination}]"
        f"GC[{_sgf_escape(f'{r.reason}; {r.win_length} in a row, {r.rule}')}]"
    )
    body = []
    for i, ((x, y), ms) in enumerate(zip(r.moves, r.times_ms)):
        colour = "B" if i % 2 == 0 else "W"
        note = "opening" if i < r.opening else f"{ms}ms"
        point = f"{_sgf_coord(x)}{_sgf_coord(y)}"
        if r.foul and i == len(r.moves) - 1:  # the foul that lost the game: commented and marked with an X
            body.append(f";{colour}[{point}]C[{_sgf_escape(f'{note}; foul, the game is lost: {r.reason}')}]MA[{point}]")
        else:
            body.append(f";{colour}[{point}]C[{note}]")
    return head + "".join(body) + ")\n"


def ggf_text(r: GameResult) -> str:
    """A Reversi game as GGF (one game, one line)."""
    black, white = _names_by_colour(r)
    start = ReversiState(r.width)
    state = start.clone()
    moves = []
    for i, (word, ms) in enumerate(zip(r.moves, r.times_ms)):
        move = state.text_to_move(word)
        forced = move == state.pass_move  # the referee passes for a side with no move
        seconds = None if i < r.opening or forced else ms / 1000.0
        moves.append(GgfMove(state.to_move, move, None, seconds))
        state.apply(move)
    tags = {"PC": "referee", "DT": r.started, "PB": _one_line(black), "PW": _one_line(white)}
    if r.disc_diff is not None:
        tags["RE"] = f"{r.disc_diff:+d}" if r.disc_diff else "0"
    tags["TE"] = r.termination
    tags["CO"] = _one_line(r.reason)
    return format_ggf(start, moves, tags) + "\n"


def pgn_text(r: GameResult, event: str = "referee match") -> str:
    """The game as one PGN record (tags and the result; see the module docstring)."""
    first, second = _names_by_colour(r)
    winner_first = None if r.winner is None else (r.winner == "engine1") == (r.first == 1)
    result = ("*" if r.termination == "abandoned" else "1/2-1/2") if r.winner is None else \
        "1-0" if winner_first else "0-1"
    date = (r.started[:10] or "????-??-??").replace("-", ".")
    board = f"{r.width}x{r.height}" + (f" k{r.win_length} {r.rule}" if r.game_type == "mnk" else "")
    tags = [("Event", event), ("Site", "?"), ("Date", date), ("Round", str(r.game)), ("White", first),
            ("Black", second), ("Result", result), ("Termination", r.termination),
            ("PlyCount", str(len(r.moves))), ("GameType", r.game_type), ("Board", board)]
    head = "\n".join(f'[{k} "{_pgn_escape(v)}"]' for k, v in tags)
    return f"{head}\n\n{{{_one_line(r.reason).replace('}', ')')}}} {result}\n\n"


def _pgn_escape(text: str) -> str:
    return _one_line(text).replace("\\", "\\\\").replace('"', '\\"')


def append_pgn(path: str | os.PathLike, r: GameResult) -> None:
    """Append one game's PGN record to ``path`` (a draw's and an abandoned game's too: a
    rating tool skips what it cannot use, and ``Termination`` says which is which)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(pgn_text(r))


def write_game_files(out_dir: str | os.PathLike, r: GameResult) -> tuple[Path, ...]:
    """Write the game's records into ``out_dir``: ``game-NNNN.psq`` and ``game-NNNN.sgf``
    for m,n,k, ``game-NNNN.ggf`` for Reversi; return their paths."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    if r.game_type == "reversi":
        ggf = d / f"game-{r.game:04d}.ggf"
        ggf.write_text(ggf_text(r), encoding="utf-8")
        return (ggf,)
    psq = d / f"game-{r.game:04d}.psq"
    sgf = d / f"game-{r.game:04d}.sgf"
    psq.write_text(psq_text(r), encoding="utf-8")
    sgf.write_text(sgf_text(r), encoding="utf-8")
    return psq, sgf


#: The file that holds every game of a match, in game order, by game type (GGF and SGF
#: both take one game after another in a file; PSQ does not).
MATCH_FILES = {"reversi": ("match.ggf", "ggf"), "mnk": ("match.sgf", "sgf")}


def write_match_file(out_dir: str | os.PathLike, game_type: str, results_file: str = "results.jsonl") -> Path | None:
    """Gather the recorded games of ``out_dir`` (those in its results file, in game order) into
    one file, :data:`MATCH_FILES`; rewritten whole (through a temporary file) so that a resumed
    match's file holds every game once.  ``None`` when there is no game yet."""
    d = Path(out_dir)
    name, ext = MATCH_FILES[game_type]
    games = sorted({r["game"] for r in read_results(d / results_file)})
    parts = []
    for g in games:
        try:
            parts.append((d / f"game-{g:04d}.{ext}").read_text(encoding="utf-8").strip())
        except OSError:
            continue  # a game recorded before its file could be written: the results still hold it
    if not parts:
        return None
    tmp = d / f".{name}.tmp"
    tmp.write_text("\n".join(parts) + "\n", encoding="utf-8")
    os.replace(tmp, d / name)
    return d / name


def append_result(path: str | os.PathLike, r: GameResult | dict) -> None:
    """Append one game as a JSON line; flushed and fsynced so an interrupted match loses nothing."""
    obj = r.to_json() if isinstance(r, GameResult) else r
    line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
    with open(path, "a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def read_results(path: str | os.PathLike) -> list[dict]:
    """Every complete game object of a ``results.jsonl`` (a torn last line, or junk, is skipped)."""
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines: Iterable[str] = f.readlines()
    except FileNotFoundError:
        return []
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("game"), int) and "termination" in obj:
            out.append(obj)
    return out
