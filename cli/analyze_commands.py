"""``rummikub analyze``: a game record judged turn by turn against the solver (parse, call, render)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from cli.errors import guarded
from cli.options import output_options, use_color
from cli.render import fit, ljust, set_text, tiles_text, width_of
from solver.backends import BACKENDS
from solver.game.analysis import Analysis, Label, TurnAnalysis
from solver.game.records import GameRecord
from solver.solution import Objective
from solver.wording import count

WIDTH = 80  # a terminal's columns

_LABEL_STYLE: dict[Label, dict[str, Any]] = {
    Label.BEST: {"fg": "green"},
    Label.INACCURACY: {"fg": "yellow"},
    Label.MISTAKE: {"fg": "magenta"},
    Label.BLUNDER: {"fg": "red", "bold": True},
    Label.ILLEGAL: {"fg": "red", "bold": True, "reverse": True},
}


@click.command("analyze", short_help="Judge every turn of a game record against the optimum.")
@click.argument("record_file", metavar="RECORD")
@click.option("--player", type=click.IntRange(min=1), default=None, help="Only this player's turns (from 1).")
@click.option(
    "--objective",
    type=click.Choice([o.value for o in Objective]),
    default="tiles",
    show_default=True,
    help="What the optimum maximises and the labels count: tiles or points missed.",
)
@click.option(
    "--backend",
    type=click.Choice(sorted(BACKENDS)),
    default="bnb",
    show_default=True,
    help="Exact solver for each turn's optimum.",
)
@output_options
def analyze(record_file: str, player: int | None, objective: str, backend: str, **params: Any) -> None:
    """Judge every turn of a game RECORD against the solver's one-turn optimum.

    Each turn gets a label by what it missed (tiles by default): best (nothing), inaccuracy (1),
    mistake (2-3), blunder (4 or more, or a missed opening or going-out); illegal for a recorded move
    that breaks a rule. Non-best turns show the better move; a summary per player follows.
    """
    from solver.game.analysis import analyze_file
    from solver.solve import SolveOptions

    progress = _progress if sys.stderr.isatty() and not params["as_json"] else None
    options = SolveOptions(Objective(objective), backend)
    result = guarded(lambda: analyze_file(record_file, options, player, progress))
    if progress is not None:
        click.echo("\r\033[K", nl=False, err=True)
    if params["as_json"]:
        click.echo(json.dumps(result.to_dict()))
        return
    color = use_color(params)
    click.echo(render_analysis(result, color), color=color)


def _progress(done: int, total: int) -> None:
    click.echo(f"\ranalysing turn {done + 1} of {total}", nl=False, err=True)


def _deal(record: GameRecord) -> str:
    deal = record.header.describe_deal()
    return f"; {deal}" if deal else ""


def render_analysis(result: Analysis, color: bool) -> str:
    """The turns as a table and the summary with a column per player, within 80 columns."""
    record = result.record
    names = {p.player: p.name for p in record.header.players}
    who = ", ".join(f"{p.player} {p.name}" for p in record.header.players)
    unit = result.objective.value
    lines = [
        fit(f"Game record {result.source}: players {who}; rules {record.rules.describe()}{_deal(record)}"),
        f"Each turn against the one-turn optimum by {unit}; missed = optimum - played",
        "(an illegal move, or a turn the timer ended, counts as none played); points in",
        "brackets.",
        "",
    ]
    header = ["turn", "player", "played", "optimal", "missed", "label"]
    rows: list[list[str]] = []
    notes: list[list[str]] = []
    for t in result.turns:
        label = click.style(t.label.value, **_LABEL_STYLE[t.label]) if color else t.label.value
        rows.append(
            [
                str(t.turn.turn),
                f"{t.turn.player} {names.get(t.turn.player, '')}".strip(),
                _played(t, color),
                f"{t.optimal_tiles} ({t.optimal_points})",
                f"{t.tiles_missed if t.legal else t.optimal_tiles} ({_signed(t)})",
                label,
            ]
        )
        notes.append(_notes(t, color))
    lines += _table(header, rows, notes)
    lines.append("")
    players = [f"{s.player} {s.name}" for s in result.summary]
    measures: list[tuple[str, list[str]]] = [
        ("turns", [str(s.turns) for s in result.summary]),
        *((label.value, [str(s.counts[label]) for s in result.summary]) for label in Label),
        ("tiles missed", [str(s.tiles_missed) for s in result.summary]),
        ("points missed", [str(s.points_missed) for s in result.summary]),
        ("accuracy", ["—" if s.accuracy is None else f"{s.accuracy:.1f}%" for s in result.summary]),
    ]
    summary = _table(["Summary", *players], [[name, *cells] for name, cells in measures], [])
    if max(width_of(x) for x in summary) > WIDTH:  # long names: the players by number, named above
        summary = _table(["Summary", *(str(s.player) for s in result.summary)], [[n, *c] for n, c in measures], [])
    lines += summary
    lines.append(fit(f"accuracy: {unit} played as a percentage of the optimum's {unit}, over the player's turns."))
    return "\n".join(lines)


def _played(t: TurnAnalysis, color: bool) -> str:
    turn = t.turn
    if turn.timed_out:  # the timer ended it: the table restored (or broken sets taken back)
        kept = f"{t.played_tiles} ({t.played_points}) {tiles_text(t.played, color)}, " if t.played else ""
        return kept + "out of time" + (f", penalty {tiles_text(turn.penalty, color)}" if turn.penalty else "")
    if not t.played:
        if turn.drew is None:
            return "passed (pool empty)"
        return f"drew {tiles_text([turn.drew], color)}"
    return f"{t.played_tiles} ({t.played_points}) {tiles_text(t.played, color)}"


def _signed(t: TurnAnalysis) -> str:
    return str(t.points_missed if t.legal else t.optimal_points)


def _notes(t: TurnAnalysis, color: bool) -> list[str]:
    out = [f"illegal: {v.message}" for v in t.violations]
    if t.reason:
        out.append(t.reason)
    if t.label is Label.BEST:
        return out
    best = t.best
    if not best.played:
        return out
    changed = t.changed_sets()
    kept = len(best.table) - len(changed)
    sets = " | ".join(set_text(s, color) for s in changed)
    rest = f" (+{count(kept, 'set')} unchanged)" if kept else ""
    # As in `solve`: in the sets, the tiles from the rack are highlighted (bracketed when plain).
    out.append(f"better: play {tiles_text(best.played, color)} -> {sets}{rest}")
    return out


def _table(header: list[str], rows: list[list[str]], notes: list[list[str]]) -> list[str]:
    """Columns padded by their visible width (colour codes take no room); the third column (the
    tiles played) wraps within what the others leave of 80 columns; notes under their row."""
    widths = [max(width_of(cell) for cell in column) for column in zip(header, *rows)]
    if len(widths) > 2:
        room = WIDTH - sum(widths) + widths[2] - 2 * (len(widths) - 1)
        widths[2] = max(min(widths[2], room), width_of(header[2]))

    def line(cells: list[str]) -> list[str]:
        parts = [fit(cell, widths[n], hang=0).split("\n") if n == 2 else [cell] for n, cell in enumerate(cells)]
        out = []
        for k in range(max(len(p) for p in parts)):
            padded = [(p[k] if k < len(p) else "") for p in parts]
            out.append("  ".join(ljust(c, w) for w, c in zip(widths, padded)).rstrip())
        return out

    out = line(header)
    for row, extra in zip(rows, notes or [[] for _ in rows]):
        out += line(row)
        out += [fit(f"      {note}", WIDTH, hang=4) for note in extra]
    return out
