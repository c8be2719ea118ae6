"""``rummikub analyze``: a game record judged turn by turn against the solver (parse, call, render)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from cli.errors import guarded
from cli.options import output_options, use_color
from cli.render import set_text, tiles_text
from solver.game.analysis import Analysis, Label, TurnAnalysis
from solver.wording import count

_LABEL_STYLE: dict[Label, dict[str, Any]] = {
    Label.BEST: {"fg": "green"},
    Label.INACCURACY: {"fg": "yellow"},
    Label.MISTAKE: {"fg": "magenta"},
    Label.BLUNDER: {"fg": "red", "bold": True},
    Label.ILLEGAL: {"fg": "red", "bold": True, "reverse": True},
}


@click.command("analyze")
@click.argument("record_file", metavar="RECORD")
@click.option("--player", type=click.IntRange(min=1), default=None, help="Only this player's turns (from 1).")
@click.option(
    "--objective",
    type=click.Choice(["tiles", "points"]),
    default="tiles",
    show_default=True,
    help="What the optimum maximises and the labels count: tiles or points missed.",
)
@click.option(
    "--backend",
    type=click.Choice(["bnb", "cbc", "cpsat", "highs"]),
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
    from solver.solution import Objective
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


def render_analysis(result: Analysis, color: bool) -> str:
    record = result.record
    names = {p.player: p.name for p in record.header.players}
    who = ", ".join(f"{p.player} {p.name}" for p in record.header.players)
    unit = result.objective.value
    lines = [
        f"Game record {result.source}: players {who}; rules {record.rules.describe()}",
        f"Each turn against the one-turn optimum by {unit}; missed = optimum - played.",
        "",
    ]
    header = ["turn", "player", "played", "optimal", "missed", "label"]
    rows: list[list[str]] = []
    notes: list[list[str]] = []
    for t in result.turns:
        label = click.style(t.label.value, **_LABEL_STYLE[t.label]) if color else t.label.value
        if t.reason:
            label += f" ({t.reason})"
        rows.append(
            [
                str(t.turn.turn),
                f"{t.turn.player} {names.get(t.turn.player, '')}".strip(),
                _played(t, color),
                f"{t.optimal_tiles} ({t.optimal_points} pts)",
                f"{t.tiles_missed if t.legal else t.optimal_tiles} ({_signed(t)} pts)",
                label,
            ]
        )
        notes.append(_notes(t, color))
    lines += _table(header, rows, notes)
    lines.append("")
    lines.append("Summary")
    sheader = [
        "player",
        "turns",
        "best",
        "inaccuracy",
        "mistake",
        "blunder",
        "illegal",
        "tiles missed",
        "points missed",
        "accuracy",
    ]
    srows = [
        [
            f"{s.player} {s.name}",
            str(s.turns),
            *(str(s.counts[label]) for label in Label),
            str(s.tiles_missed),
            str(s.points_missed),
            f"{s.accuracy:.1f}%",
        ]
        for s in result.summary
    ]
    lines += _table(sheader, srows, [[] for _ in srows])
    lines.append(f"accuracy: {unit} played as a percentage of the optimum's {unit}, over the player's turns.")
    return "\n".join(lines)


def _played(t: TurnAnalysis, color: bool) -> str:
    if not t.played:
        return "drew" + (f" {tiles_text([t.turn.drew], color)}" if t.turn.drew is not None else "")
    return f"{t.played_tiles} ({t.played_points} pts) {tiles_text(t.played, color)}"


def _signed(t: TurnAnalysis) -> str:
    return str(t.points_missed if t.legal else t.optimal_points)


def _notes(t: TurnAnalysis, color: bool) -> list[str]:
    out = [f"illegal: {v.message}" for v in t.violations]
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
    """Columns padded by their visible width (colour codes take no room); notes under their row."""
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(click.unstyle(cell))) for w, cell in zip(widths, row)]

    def line(cells: list[str]) -> str:
        padded = [cell + " " * (w - len(click.unstyle(cell))) for w, cell in zip(widths, cells)]
        return "  ".join(padded).rstrip()

    out = [line(header)]
    for row, extra in zip(rows, notes):
        out.append(line(row))
        out += [f"      {note}" for note in extra]
    return out
