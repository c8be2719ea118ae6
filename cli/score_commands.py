"""``rummikub score``: the score sheet of a game at a real table (new, round, fix, show).

Thin: parse the options, call solver.game.scoresheet, render. The sheet lives in a file, so that every
step is one command (scriptable, testable) and a game can be reopened at any time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import click

from cli.errors import EXIT_BAD_INPUT, fail, guarded
from cli.render import fit, ljust, rjust, width_of
from solver.game.scoresheet import JOKER_PENALTIES, Results, Round, RoundError, Scoring, Sheet
from solver.wording import count

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def _guarded(action: Callable[[], T]) -> T:
    """Library errors as one-line messages (exit 1); a round's error names the option it came from."""
    def named() -> T:
        try:
            return action()
        except RoundError as err:
            raise fail(err.located("--" + err.field), EXIT_BAD_INPUT) from None

    return guarded(named)


def round_options(func: F) -> F:
    """What happened in one round: the winner, what was left on the racks, the club penalties."""
    decorators = [
        click.option(
            "--winner",
            metavar="NAME",
            help="Who emptied the rack. In a --blocked round: who had the lowest rack (left out: "
            "worked out from the racks).",
        ),
        click.option(
            "--rack",
            "racks",
            multiple=True,
            metavar="NAME=RACK",
            help="What was left on a player's rack: the tiles ('Bob=R5 K12 J') or their sum "
            "('Bob=23'). Repeat for every player but the winner (a --blocked round: every player).",
        ),
        click.option(
            "--never-opened",
            multiple=True,
            metavar="NAME",
            help="Club scoring: this player never opened and loses 100 instead of the rack "
            "(repeatable, or comma-separated).",
        ),
        click.option(
            "--could-have-opened",
            multiple=True,
            metavar="NAME",
            help="Club scoring: this player held 30 points to open and did not; loses 200 instead "
            "of the rack (repeatable, or comma-separated).",
        ),
        click.option(
            "--blocked",
            is_flag=True,
            help="The pool ran out and nobody could play: the lowest rack wins (club scoring: the "
            "others lose only the difference to the winner's rack).",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@click.group(short_help="Keep the score of a game played at a real table.")
def score() -> None:
    """Keep the score of a game played at a real table: 2-6 players, standard or club scoring.

    Start a sheet with `score new`, enter each round with `score round`, correct one with
    `score fix`, and see the running totals and standings with `score show`. The sheet is a
    JSON file that keeps every round as entered.
    """


@score.command("new", short_help="Start a score sheet in FILE.")
@click.argument("file", metavar="FILE")
@click.option(
    "--players", required=True, metavar="NAMES", help="The players in seat order: 'Ann,Bob,Cy' (2-6)."
)
@click.option(
    "--scoring",
    type=click.Choice([s.value for s in Scoring]),
    default=Scoring.STANDARD.value,
    show_default=True,
    help="standard: the winner takes the sum of the others' racks; club: also big points (1 per "
    "round won, ranked first), never-opened penalties and blocked rounds scored by difference.",
)
@click.option(
    "--joker-penalty",
    type=click.Choice([str(p) for p in JOKER_PENALTIES]),
    default=None,
    help="What a joker left on a rack costs (default: 30; with --scoring club 100).",
)
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
def new_command(file: str, players: str, scoring: str, joker_penalty: str | None, force: bool) -> None:
    """Start a score sheet in FILE (refused if FILE exists, unless --force)."""
    from solver.game.scoresheet import new_sheet, save

    penalty = None if joker_penalty is None else int(joker_penalty)
    sheet = _guarded(lambda: new_sheet(players, scoring, penalty))
    _guarded(lambda: save(sheet, file, overwrite=force))
    settings = sheet.settings
    click.echo(
        fit(f"{file}: {', '.join(sheet.players)}; {settings.scoring.value} scoring, joker {settings.joker_penalty}.")
    )


@score.command("round", short_help="Enter the next round and show the scores.")
@click.argument("file", metavar="FILE")
@round_options
def round_command(file: str, **entry: Any) -> None:
    """Enter the next round into the sheet FILE and show its scores and the running totals.

    Example: rummikub score round game.json --winner Ann --rack "Bob=R5 K12 J" --rack Cy=23
    """
    from solver.game.scoresheet import load, save

    sheet = _guarded(lambda: load(file))
    sheet = sheet.with_round(_entered_round(sheet, entry))
    _guarded(lambda: save(sheet, file))
    click.echo(render_round(sheet.results(), len(sheet.rounds)))


@score.command("fix", short_help="Correct a past round.")
@click.argument("file", metavar="FILE")
@click.argument("number", metavar="ROUND", type=int)
@round_options
def fix_command(file: str, number: int, **entry: Any) -> None:
    """Correct a past round: replace round ROUND (from 1) of FILE with the round as given.

    Give the whole round again, as for `score round`; the totals are recomputed.
    """
    from solver.game.scoresheet import load, save

    sheet = _guarded(lambda: load(file))
    _guarded(lambda: sheet.check_round_number(number))
    sheet = sheet.with_round_replaced(number, _entered_round(sheet, entry))
    _guarded(lambda: save(sheet, file))
    click.echo(render_round(sheet.results(), number, "corrected"))


@score.command("show", short_help="Show the sheet: every round, running totals, standings.")
@click.argument("file", metavar="FILE")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
def show_command(file: str, as_json: bool) -> None:
    """Show the sheet FILE: every round with running totals, big/small points (club), standings."""
    from solver.game.scoresheet import load

    results = _guarded(lambda: load(file)).results()
    if as_json:
        click.echo(json.dumps(results.to_dict(), ensure_ascii=False))
    else:
        click.echo(render_sheet(results))


def _entered_round(sheet: Sheet, entry: dict[str, Any]) -> Round:
    from solver.game.scoresheet import round_from_options

    return _guarded(
        lambda: round_from_options(
            sheet.players,
            sheet.settings,
            winner=entry["winner"],
            racks=entry["racks"],
            never_opened=entry["never_opened"],
            could_have_opened=entry["could_have_opened"],
            blocked=entry["blocked"],
        )
    )


# --------------------------------------------------------------------------- rendering


def _notes(rnd: Round) -> str:
    notes = ["blocked"] if rnd.blocked else []
    notes += [f"{p} never opened" for p in rnd.never_opened]
    notes += [f"{p} could have opened" for p in rnd.could_have_opened]
    return "; ".join(notes)


def render_round(results: Results, number: int, what: str = "") -> str:
    """One round's scores with everybody's running total (and big points on the club sheet)."""
    sheet = results.sheet
    rnd, score = sheet.rounds[number - 1], results.rounds[number - 1]
    club = sheet.settings.scoring is Scoring.CLUB
    # Big points after this round (the totals after it are in results.running).
    big = {p: sum(1 for s in results.rounds[:number] if s.winner == p) for p in sheet.players}
    notes = _notes(rnd)
    head = f"Round {number}{' ' + what if what else ''}: {score.winner} wins{f' ({notes})' if notes else ''}."
    width = max(width_of(p) for p in sheet.players)
    lines = [fit(head)]
    for p in sheet.players:
        line = f"  {ljust(p, width)}  {score.scores[p]:>+5}   total {results.running[number - 1][p]:>5}"
        if club:
            line += f"   big points {big[p]}"
        lines.append(line)
    return "\n".join(lines)


def _rounds_by_player(results: Results, footer: list[tuple[str, dict[str, int]]]) -> list[str]:
    """The sheet's table turned for a narrow terminal: each round as render_round shows it, then
    the totals a player per line."""
    sheet = results.sheet
    width = max(width_of(p) for p in sheet.players)
    out: list[str] = []
    for number, (rnd, score, running) in enumerate(zip(sheet.rounds, results.rounds, results.running), start=1):
        notes = _notes(rnd)
        out.append(fit(f"Round {number}: {score.winner} wins{f' ({notes})' if notes else ''}."))
        out += [f"  {ljust(p, width)}  {score.scores[p]:>+5} ({running[p]})" for p in sheet.players]
    if not sheet.rounds:
        out.append("(no rounds yet)")
    for name, per_player in footer:
        out.append(f"{name}:")
        out += [f"  {ljust(p, width)}  {per_player[p]:>5}" for p in sheet.players]
    return out


def render_sheet(results: Results) -> str:
    """The score sheet as a table: a row per round (score and running total), then the standings."""
    sheet = results.sheet
    settings = sheet.settings
    club = settings.scoring is Scoring.CLUB
    lines = [
        fit(
            f"{', '.join(sheet.players)}: {settings.scoring.value} scoring, joker {settings.joker_penalty}; "
            f"{count(len(sheet.rounds), 'round')}."
        )
    ]
    cells = [
        [f"{s.scores[p]:+d} ({running[p]})" for p in sheet.players]
        for s, running in zip(results.rounds, results.running)
    ]
    footer = [("Big points", results.big_points), ("Small points", results.totals)] if club else []
    footer = footer or [("Total", results.totals)]
    winner_width = max([len("Winner"), *(width_of(s.winner) for s in results.rounds)])
    # The footer's labels span the round and winner columns.
    lead_width = max([len("Round") + 2 + winner_width, *(len(name) for name, _ in footer)])
    label_width = lead_width - 2 - winner_width
    widths = [max([width_of(p), *(len(row[i]) for row in cells)]) for i, p in enumerate(sheet.players)]

    def row(label: str, winner: str, values: list[str], notes: str = "") -> str:
        text = f"{label:<{label_width}}  {ljust(winner, winner_width)}"
        text += "".join(f"  {rjust(v, w)}" for v, w in zip(values, widths))
        return (text + ("  " + notes if notes else "")).rstrip()

    table = [row("Round", "Winner", list(sheet.players))]
    for number, (rnd, score, values) in enumerate(zip(sheet.rounds, results.rounds, cells), start=1):
        notes = _notes(rnd)
        line = row(str(number), score.winner, values, notes)
        if width_of(line) <= 80:
            table.append(line)
        else:  # the notes under the round, within 80 columns
            table.append(row(str(number), score.winner, values))
            table += fit(f"{'':<{lead_width}}  {notes}", hang=0).split("\n")
    if not sheet.rounds:
        table.append("(no rounds yet)")
    for name, per_player in footer:
        values = [str(per_player[p]) for p in sheet.players]
        table.append(f"{name:<{lead_width}}" + "".join(f"  {v:>{w}}" for v, w in zip(values, widths)))
    if max(width_of(line) for line in table) > 80:  # too many players, or long names: round by round
        table = _rounds_by_player(results, footer)
    lines += ["", *table, ""]
    lines.append("Standings (big points, then small points):" if club else "Standings:")
    name_width = max(width_of(p) for p in sheet.players)
    for s in results.standings:
        detail = f"{s.big_points} big, {s.total:+d} small" if club else f"{s.total:+d}"
        lines.append(f"  {s.rank}. {ljust(s.player, name_width)}  {detail}")
    lines.append("")
    lines.append("Each round: the round's score (running total in brackets).")
    return "\n".join(lines)
