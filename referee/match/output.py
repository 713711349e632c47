"""Text shown to the person watching a match: boards, verdicts, progress and the summary."""

from __future__ import annotations

import math

from typing import Any

from engine.mnk.board.rules import GameConfig, Rule
from referee.play.game import MoveEvent
from referee.play.result import GameResult
from referee.games import rules_for
from referee.games.clock import TimeControl
from referee.match.pentanomial import Pairs, nelo_interval, pair_interval
from referee.match.stats import Sprt, Tally, elo_interval, los

__all__ = ["DISPLAYS", "rules_text", "who", "clock_text", "match_banner", "game_header",
           "move_line", "verdict_text", "progress_line", "summary_text", "pairs_text", "elo_parts", "endings_text", "elo_text",
           "tournament_banner", "tournament_progress"]

#: What ``referee --display`` offers: the board after every move, one line per move, one
#: block per game (final board and verdict), or nothing until the summary.
DISPLAYS = ("board", "moves", "games", "none")

_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
                 10: "ten"}


def rules_text(config: Any) -> str:
    """Board, win length and rule in words, e.g. ``15x15, five or more in a row (freestyle)``;
    for another game (Reversi) what its rules say of themselves."""
    if not isinstance(config, GameConfig):
        return rules_for(config).describe()
    k = _NUMBER_WORDS.get(config.win_length, str(config.win_length))
    board = f"{config.width}x{config.height}"
    if config.rule is Rule.EXACT:
        return f"{board}, exactly {k} in a row (exact: longer lines do not win)"
    if config.rule is Rule.CARO:
        return f"{board}, {k} or more in a row, not exactly {k} blocked at both ends (caro)"
    if config.rule is Rule.RENJU:
        return rules_for(config).describe()
    return f"{board}, {k} or more in a row (freestyle)"


def who(name: str, label: str) -> str:
    """A side as shown: ``name (engine1)`` for an engine, just the name for a human (label = name)."""
    return name if name == label else f"{name} ({label})"


def clock_text(tc: TimeControl, game: str | None = None, untimed: tuple[str, ...] = ()) -> str:
    """The time control in words, e.g. ``1000 ms a move (+1000 ms tolerance)``.

    With the ``game`` (``mnk``, ``reversi``) it also says where the clock comes from and what
    the engines are told: a Gomocup engine is sent the referee's times, which override its own
    time options (the manager's ``timeout_turn`` wins, as in Gomocup); NBoard has no move time
    to send, so a Reversi engine plays at its own settings (only a game clock is sent).
    ``untimed`` names the sides with no clock (a person), e.g. ``...; human untimed``.
    """
    parts = []
    if tc.turn_ms:
        parts.append(f"{tc.turn_ms} ms a move")
    if tc.match_ms:
        parts.append(f"{tc.match_ms} ms a game for each side")
    note = _clock_note(tc, game)
    text = " and ".join(parts) + f" (+{tc.tolerance_ms} ms tolerance{'; ' + note if note else ''})"
    if len(untimed) >= 2:
        return f"{' and '.join(untimed)}: untimed"
    if untimed:
        text = f"the engine: {text}; {untimed[0]}: untimed"
    return text


def _clock_note(tc: TimeControl, game: str | None) -> str:
    """Where the clock comes from and what the engines make of it (see :func:`clock_text`)."""
    options = " and ".join(o for o, ms in (("--turn-ms", tc.turn_ms), ("--match-ms", tc.match_ms)) if ms)
    if game == "mnk":
        return f"referee {options}: engines' own time options are overridden by the manager's"
    if game == "reversi":
        if tc.match_ms:
            return f"referee {options}: engines are sent the game clock, not a move time"
        return "referee --turn-ms, kept by the referee: NBoard sends no move time, engines play at their own settings"
    return ""


def match_banner(names: tuple[str, str], labels: tuple[str, str], games: int, config: Any,
                 tc_text: str) -> str:
    """The first line of a match: who plays, how many games, the rules and the clock."""
    return (f"match: {who(names[0], labels[0])} vs {who(names[1], labels[1])}, {games} game"
            f"{'s' if games != 1 else ''}; {rules_text(config)}; {tc_text}")


def tournament_banner(names: list[str], tags: list[str], gauntlet: bool, pairings: int, per_pairing: int,
                      config: Any, tc_text: str) -> str:
    """The first lines of a tournament: its kind, games, rules and clock, then one line an engine."""
    kind = "gauntlet" if gauntlet else "round-robin"
    total = pairings * per_pairing
    head = (f"tournament: {kind} of {len(names)} engines, {pairings} pairings of {per_pairing} game"
            f"{'s' if per_pairing != 1 else ''}, {total} games; {rules_text(config)}; {tc_text}")
    return "\n".join([head] + [f"  {tag}: {name}" for name, tag in zip(names, tags)])


def tournament_progress(done: int, total: int, elapsed_s: float, played: int, *,
                        rate: float | None = None, workers: int | None = None) -> str:
    """``[done/total]``, games a second and the ETA of a running tournament (``played``: games
    finished by this run, resumed ones apart; a cluster gives its own ``rate`` and ``workers``)."""
    if rate is None:
        rate = played / elapsed_s if elapsed_s > 0 else 0.0
    eta = f"{(total - done) / rate:.0f}s" if rate > 0 else "?"
    farm = "" if workers is None else f"  {workers} worker{'s' if workers != 1 else ''}"
    return f"[{done}/{total}] {rate:.2f} games/s{farm}  elapsed {elapsed_s:.0f}s  ETA {eta}"


def game_header(game: int, total: int, x_name: str, o_name: str, config: Any = None,
                opening: list | None = None) -> str:
    """The lines that open a game: who plays X (moves first) and O, then the rules and the opening.

    For m,n,k ``opening`` holds ``(x, y)`` cells; for another game (Reversi) the
    opening's move ints, shown through its rules (the colours named as the game names them).
    """
    if config is not None and not isinstance(config, GameConfig):
        rules = rules_for(config)
        head = (f"=== game {game}/{total}: {rules.colour_name(1)} {x_name}  vs  "
                f"{rules.colour_name(2)} {o_name}")
        extra = rules.describe()
        if opening:
            state = rules.new_state()
            words = []
            for m in opening:
                words.append(rules.move_text(state, m))
                state.apply(m)
            extra += (f"; opening {' '.join(words)} ({len(opening)} plies), "
                      f"{rules.colour_name(state.to_move)} to move")
        return f"{head}\n    {extra}"
    head = f"=== game {game}/{total}: X {x_name}  vs  O {o_name}"
    if config is None:
        return head
    extra = rules_text(config)
    if opening:
        extra += (f"; opening {' '.join(f'{x},{y}' for x, y in opening)} ({len(opening)} stones), "
                  f"{'X' if len(opening) % 2 == 0 else 'O'} to move")
    return f"{head}\n    {extra}"


def move_line(ev: MoveEvent) -> str:
    """One move: ``game 1 move 12: name (X) 7,8  812 ms`` (``... (white) pass (forced)``
    when the referee passed for a side with no legal move)."""
    how = "(forced)" if ev.forced else f"{ev.ms} ms"
    colour = ev.rules.colour_name(ev.player)
    # a side the game tells apart by its label ("name (engine1)") keeps one pair of brackets
    side = f"{ev.seat_name[:-1]}, {colour})" if ev.seat_name.endswith(")") else f"{ev.seat_name} ({colour})"
    return f"game {ev.game} move {ev.ply}: {side} {ev.text}  {how}"


def verdict_text(r: GameResult, labels: tuple[str, str] = ("engine1", "engine2")) -> str:
    """One line: who won and why (``labels``: how engine1 and engine2 are called, e.g. ``human``)."""
    if r.winner is None:
        if r.termination == "abandoned":
            return f"game {r.game}: abandoned, not scored: {r.reason}"
        head = "draw" if r.termination != "interrupted" else "interrupted"
    else:
        i = 0 if r.winner == "engine1" else 1
        head = f"{who((r.engine1, r.engine2)[i], labels[i])} wins"
    unit = "stones" if r.game_type == "mnk" else "moves"
    return f"game {r.game}: {head} by {r.termination} after {len(r.moves)} {unit}: {r.reason}"


def _fmt_elo(v: float) -> str:
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    return f"{v:+.1f}"


def elo_text(t: Tally, label: str = "engine1") -> str:
    """The Elo difference of ``label`` (engine1's side) and its 95 % interval, honest on few games.

    No game: ``n/a``.  Wins only or losses only have no point estimate (it
    would be infinite), so only the finite bound is given, e.g.
    ``< +254.8``; so is an interval with one bound the data do not give
    (``95 % interval: above +142.0``).  No figure is ever ``inf``.
    """
    if t.games == 0:
        return "Elo difference n/a (no games)"
    elo, lo, hi = elo_interval(t.wins, t.draws, t.losses)
    if math.isinf(elo):
        if elo < 0:
            return f"Elo difference < {_fmt_elo(hi)} (95 % bound; no estimate: {label} lost every game)"
        return f"Elo difference > {_fmt_elo(lo)} (95 % bound; no estimate: {label} won every game)"
    if math.isinf(lo) and math.isinf(hi):
        return f"Elo difference {_fmt_elo(elo)}  (too few games to bound it at 95 %)"
    if math.isinf(hi):
        return f"Elo difference {_fmt_elo(elo)}  (95 % interval: above {_fmt_elo(lo)})"
    if math.isinf(lo):
        return f"Elo difference {_fmt_elo(elo)}  (95 % interval: below {_fmt_elo(hi)})"
    return f"Elo difference {_fmt_elo(elo)}  (95 % interval {_fmt_elo(lo)} .. {_fmt_elo(hi)})"


def progress_line(t: Tally, total: int, elapsed_s: float, label: str = "engine1", *,
                  rate: float | None = None, workers: int | None = None, timing: bool = True) -> str:
    """``games done/total, W-D-L, score, ETA`` for a running match, from ``label``'s (engine1's) side.

    A cluster match also gives ``rate`` (games a second played by this run), from
    which the ETA is reckoned, and the number of ``workers`` connected.  Without
    ``timing`` (a person's match, whose pace is the person's) only the games and the score.
    """
    done = t.games
    if not timing:
        return f"[{done}/{total}] {label} +{t.wins} ={t.draws} -{t.losses}  score {t.score():.3f}"
    eta = elapsed_s / done * (total - done) if done else float("nan")
    if rate is not None:
        eta = (total - done) / rate if rate > 0 else float("nan")
    eta_txt = f"{eta:.0f}s" if done and not math.isnan(eta) else "?"
    farm = "" if rate is None else f"  {rate:.2f} games/s"
    farm += "" if workers is None else f"  {workers} worker{'s' if workers != 1 else ''}"
    return (f"[{done}/{total}] {label} +{t.wins} ={t.draws} -{t.losses}  "
            f"score {t.score():.3f}{farm}  elapsed {elapsed_s:.0f}s  ETA {eta_txt}")


def summary_text(name1: str, name2: str, t: Tally, sprt: Sprt | None = None,
                 labels: tuple[str, str] = ("engine1", "engine2"), colours: tuple[str, str] = ("X", "O"),
                 pairs: Pairs | None = None) -> str:
    """The end-of-match summary: W/D/L by colour, score, Elo ± 95 %, LOS, SPRT, from engine1's side.

    ``labels`` name the sides where the engine's own name would be ambiguous
    (``engine1``/``engine2``); a human's label is its name; ``colours`` name the first
    and second colour (``black``/``white`` in Reversi).  ``pairs`` (a match of
    colour-swapped pairs) adds the pentanomial counts, Elo and normalized Elo, and the
    SPRT is then the pairs'.
    """
    if t.games == 0:  # (an interrupted match): a score or an LOS of nothing would be made up
        return f"{who(name1, labels[0])} vs {who(name2, labels[1])}: no game finished"
    xw, xd, xl = t.as_x
    ow, od, ol = t.as_o
    lines = [
        f"{who(name1, labels[0])} vs {who(name2, labels[1])}: {t.games} game{'' if t.games == 1 else 's'}",
        f"  {labels[0]}: {t.wins} wins, {t.draws} draws, {t.losses} losses   score {t.score():.3f}",
        f"  as {colours[0]} (first): +{xw} ={xd} -{xl}    as {colours[1]} (second): +{ow} ={od} -{ol}",
        f"  {elo_text(t, labels[0])}",
        f"  LOS {100 * los(t.wins, t.losses):.1f} %",
    ]
    if pairs is not None and pairs.n:
        lines.append(pairs_text(pairs))
    if sprt is not None:
        paired = pairs is not None
        st = sprt.state_of_pairs(pairs.counts) if paired else sprt.state(t.wins, t.draws, t.losses)
        decision = {"H1": "H1 accepted", "H0": "H0 accepted", None: "continue"}[st.decision]
        lines.append(f"  SPRT ({'pentanomial' if paired else 'trinomial'}, {sprt.model} Elo) elo0={sprt.elo0:g} "
                     f"elo1={sprt.elo1:g} alpha={sprt.alpha:g} beta={sprt.beta:g}: "
                     f"LLR {st.llr:.3f} [{st.lower:.3f}, {st.upper:.3f}] {decision}")
    return "\n".join(lines)


def elo_parts(elo: float, lo: float, hi: float, every: str = "game") -> tuple[str, str]:
    """An Elo figure and its 95 % interval in words, never infinite (the pairs' line and the
    standings): ``("+12.3", "95 % -40.1 .. +64.0")``, ``("+5.0", "95 % above -20.1")``,
    ``("> +70.4", "won every game")``, ``("+5.0", "too few games to bound it")``; ``every``
    names what was counted (``game``, ``pair``)."""
    if math.isinf(elo):
        bound = lo if elo > 0 else hi
        figure = "n/a" if math.isinf(bound) else f"{'>' if elo > 0 else '<'} {_fmt_elo(bound)}"
        return figure, f"{'won' if elo > 0 else 'lost'} every {every}"
    if math.isinf(lo) and math.isinf(hi):
        return _fmt_elo(elo), f"too few {every}s to bound it"
    if math.isinf(hi):
        return _fmt_elo(elo), f"95 % above {_fmt_elo(lo)}"
    if math.isinf(lo):
        return _fmt_elo(elo), f"95 % below {_fmt_elo(hi)}"
    return _fmt_elo(elo), f"95 % {_fmt_elo(lo)} .. {_fmt_elo(hi)}"


def pairs_text(pairs: Pairs) -> str:
    """The pentanomial line: the pairs' outcomes (engine1's points), Elo and normalized Elo with
    their 95 % intervals from the pairs' variance."""
    elo, lo, hi = pair_interval(pairs.counts)
    nelo, nlo, nhi = nelo_interval(pairs.counts)

    def bounded(v: float, a: float, b: float) -> str:
        figure, words = elo_parts(v, a, b, "pair")
        return f"{figure} ({words})"

    return (f"  {pairs.n} pair{'s' if pairs.n != 1 else ''} LL LD WL+DD WD WW: "
            f"{' '.join(str(c) for c in pairs.counts)}   Elo {bounded(elo, lo, hi)}   "
            f"nElo {bounded(nelo, nlo, nhi)}")


def endings_text(results, labels: Any = ("engine1", "engine2")) -> str:
    """How the games ended, e.g. ``line 7, timeout 2 (engine2 at fault)`` (``labels``: how the
    sides are called, or in a tournament a function giving them for each game)."""
    counts: dict[str, int] = {}
    faulty: dict[str, set[str]] = {}
    for r in results:
        counts[r.termination] = counts.get(r.termination, 0) + 1
        if r.termination not in ("line", "full_board", "discs", "interrupted") and r.winner is not None:
            sides = labels(r) if callable(labels) else labels
            faulty.setdefault(r.termination, set()).add(sides[1] if r.winner == "engine1" else sides[0])
    parts = []
    for term, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        losers = faulty.get(term)
        how = "resigned" if term == "resign" else "at fault"  # giving up is no fault
        parts.append(f"{term} {n}" + (f" ({' and '.join(sorted(losers))} {how})" if losers else ""))
    return ", ".join(parts)
