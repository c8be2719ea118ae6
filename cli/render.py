"""Text output for people: tiles in their colours on a terminal, plain text when piped."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import click

from solver.position import Position
from solver.solution import PlacedSet, SetChange, Solution, Status

if TYPE_CHECKING:  # annotations only: these modules load when their commands run
    from puzzles.library import Puzzle
    from solver.arrange import Arrangement
    from solver.check import CheckReport
    from solver.hint import Hint
    from solver.joker_account import Retrieved
    from solver.steps import Plan
from solver.tiles import Tile, format_counted, format_tiles
from solver.wording import count

# 256-colour codes: tiles look like tiles (light face, coloured number).
_FG = {"K": 16, "B": 21, "R": 160, "O": 166, "G": 28, "P": 91, "W": 244, "C": 30, "J": 127}
_FACE = 255  # a table tile
_RACK_FACE = 229  # a tile from the player's rack, highlighted

_CHANGE_NOTE = {
    SetChange.UNCHANGED: "unchanged",
    SetChange.EXTENDED: "extended",
    SetChange.NEW: "new",
    SetChange.REBUILT: "rebuilt",
}


# A word of styled text: styled runs (a coloured tile, with the spaces inside it) and plain
# non-space, with nothing between them but GLUE, a space fit never breaks a line at ("medium 4:
# 14" stays whole, and so do the tiles of a colour on a rack); it is printed as a space.
GLUE = "\u00a0"
_WORD = re.compile(r"(?:\x1b\[[0-9;]*m.*?\x1b\[0m|(?!\x1b)(?:\S|\u00a0))+|\s+")


def width_of(text: str) -> int:
    """Columns the text takes on a terminal: colour codes and combining marks take none, wide
    characters (most CJK, fullwidth forms) two."""
    plain = click.unstyle(text)
    if plain.isascii():
        return len(plain)
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in plain
    )


def ljust(text: str, width: int) -> str:
    """``text`` padded on the right to ``width`` terminal columns."""
    return text + " " * (width - width_of(text))


def rjust(text: str, width: int) -> str:
    """``text`` padded on the left to ``width`` terminal columns."""
    return " " * (width - width_of(text)) + text


def fit(text: str, width: int = 80, hang: int = 4) -> str:
    """Every line of ``text`` within ``width`` columns, broken between words (a coloured tile is
    one word), never inside one; a continued line is indented ``hang`` columns more than its
    first line."""
    out: list[str] = []
    for line in text.split("\n"):
        if width_of(line) <= width:
            out.append(line.replace(GLUE, " "))
            continue
        lead = len(line) - len(line.lstrip(" "))
        indent = " " * (lead + hang)
        current, gap = line[:lead], ""
        for word in _joined_closings(_WORD.findall(line[lead:])):
            if word.isspace():
                gap = word
                continue
            if width_of(current) > len(indent) and width_of(current + gap + word) > width:
                out.append(current)
                current, gap = indent, ""
            current += gap + word
            gap = ""
        out.append(current)
    return "\n".join(out).replace(GLUE, " ")


def fit_listing(text: str, width: int = 80) -> str:
    """A list of terms, each followed after two spaces or more by what it means, within ``width``
    columns: a long meaning goes on under itself, not under the term."""
    out = []
    for line in text.split("\n"):
        term = re.match(r"( *\S.*?  +)\S", line)
        lead = len(line) - len(line.lstrip(" "))
        out.append(fit(line, width, hang=len(term.group(1)) - lead if term else 4))
    return "\n".join(out)


def _joined_closings(words: list[str]) -> list[str]:
    """Words and gaps, a closing bracket or stop joined to the word before it (with the gap
    between): ``K8 ).`` breaks as one, never leaving ``).`` alone on a line."""
    out: list[str] = []
    for word in words:
        closing = not word.isspace() and word.strip(").,;:]") == ""
        if closing and len(out) >= 2 and out[-1].isspace():
            gap = out.pop()
            out[-1] += gap + word
        elif closing and out and not out[-1].isspace():  # right after a coloured tile: no gap
            out[-1] += word
        elif not word.isspace() and out and out[-1].strip("([") == "" and not out[-1].isspace():
            out[-1] += word  # an opening bracket right before a coloured tile goes with it
        else:
            out.append(word)
    return out


def tile_text(t: Tile, from_rack: bool = False, color: bool = True) -> str:
    text = str(t)
    if not color:
        return f"[{text}]" if from_rack else text
    return click.style(
        f" {text} ",
        fg=_FG[t.letter],
        bg=_RACK_FACE if from_rack else _FACE,
        bold=from_rack or None,
        underline=from_rack or None,
    )


def tiles_text(tiles: Iterable[Tile], color: bool, from_rack: bool = False) -> str:
    return " ".join(tile_text(t, from_rack, color) for t in tiles)


def set_text(s: PlacedSet, color: bool) -> str:
    return " ".join(tile_text(t, r, color) for t, r in zip(s.tiles, s.from_rack))


def render_solution(solution: Solution, color: bool, title: bool = True, width: int = 80) -> str:
    """The answer as text: the title (unless ``title`` is False), the move, the table after it
    (each set's change named), retrieved jokers, what is left on the rack; within ``width`` columns."""
    lines: list[str] = []
    pos = solution.position
    if pos.title and title:
        lines.append(fit(" ".join(pos.title.split()), width))  # one paragraph, whatever the file held
    n, pts = solution.tiles_played, solution.points_played
    played = tiles_text(solution.played, color, from_rack=True)
    meld = " (initial meld)" if not pos.opened and n else ""
    if solution.status is Status.NO_MOVE:
        lines.append(fit(f"No move: draw a tile{_meld_note(pos)}.", width))
    elif solution.status is Status.TIME_LIMIT:
        what = f"play {count(n, 'tile')} ({count(pts, 'point')}): {played}" if n else "no move found"
        lines.append(fit(f"Time limit reached; best found, not proven optimal: {what}{meld}", width))
    else:
        lines.append(fit(f"Best move{meld}: play {count(n, 'tile')} ({count(pts, 'point')}): {played}", width))
    if solution.table:
        lines.append("")
        lines.append(fit(f"Table after the move ({count(len(solution.table), 'set')}):", width))
        lines += _noted_sets(solution.table, color, width)
    for r in solution.retrieved:
        old = tiles_text(pos.table[r.table_set - 1], color)
        new = set_text(solution.table[r.new_set - 1], color)
        lines.append(fit(retrieved_text(r, f"table set {r.table_set} ({old})", new, color), width))
    left = solution.rack_left
    lines.append("")
    lines.append(fit(f"Left on your rack ({len(left)}): {tiles_text(left, color) if left else 'nothing'}", width))
    return "\n".join(lines)


def retrieved_text(r: Retrieved, old: str, new: str, color: bool) -> str:
    """A retrieved joker in words: the tile that took its place in ``old``, what it stood for
    there, and ``new``, the set it went to."""
    return (
        f"Joker retrieved: {tiles_text([r.tile], color)} takes the place of the joker in {old},"
        f" where it stood for {r.role}; the joker goes to {new}."
    )


def _meld_note(position: Position) -> str:
    """Why nothing can be played, when the turn is an initial meld (an empty table is one)."""
    if position.opened:
        return ""
    if not position.rules.meld_threshold:
        return " (this turn is the initial meld: new sets from your rack)"
    worth = count(position.rules.meld_threshold, "point")
    return f" (this turn is the initial meld: new sets from your rack worth at least {worth})"


def render_check(report: CheckReport, show: bool, color: bool, width: int = 80) -> str:
    """The verdict as the JSON gives it: legal or not (and why), what it plays, the optimum, within
    ``width`` columns."""
    lines: list[str] = []
    best = report.best
    optimum = f"{count(best.tiles_played, 'tile')} ({count(best.points_played, 'point')})"
    # Unproven: the time limit stopped the search for the optimum; only the best move found is known.
    the_best = "the best move" if report.proven else "the best move found within the time limit"
    if report.legal:
        n, pts = report.tiles_played, report.points_played
        lines.append(fit(f"Legal move: {count(n, 'tile')} ({count(pts, 'point')}) played.", width))
        tiles_first = report.objective.value == "tiles"
        other, best_other = (pts, best.points_played) if tiles_first else (n, best.tiles_played)
        if report.optimal and other != best_other:
            # As good by the objective; the best move's tie-break (the other measure) goes further.
            unit = "tile" if tiles_first else "point"
            then = count(best_other, "point" if tiles_first else "tile")
            lines.append(fit(f"Optimal: no move plays more {unit}s; the best of them plays {then}.", width))
        elif report.optimal:
            lines.append(fit(f"Optimal: the best move also plays {optimum}.", width))
        elif report.optimal is None:
            lines.append(fit(f"As good as {the_best} ({optimum}), or better; not proven optimal.", width))
        else:
            unit = "tile" if report.objective.value == "tiles" else "point"
            lines.append(fit(f"Not optimal: {the_best} plays {optimum}, {count(report.missed, unit)} more.", width))
    else:
        lines.append(fit(f"Illegal move ({count(len(report.violations), 'problem')}): it plays nothing.", width))
        for v in report.violations:
            said = fit(f"  - {v.message}", width).split("\n")
            tiles = f"[{format_counted(v.tiles, lambda t: tile_text(t, False, color))}]" if v.tiles else ""
            if tiles and width_of(f"{said[-1]} {tiles}") <= width:
                said[-1] += f" {tiles}"
            elif tiles:
                said += fit(f"      {tiles}", width, hang=1).split("\n")  # the tiles together, under the message
            lines += said
        if best.tiles_played:
            found = "" if report.proven else " found within the time limit"
            lines.append(fit(f"The best legal move{found} plays {optimum}.", width))
        else:
            if report.proven:
                lines.append(fit(f"No legal move plays a tile: draw one{_meld_note(report.position)}.", width))
            else:
                lines.append(fit("No legal move playing a tile was found within the time limit.", width))
    if show:
        lines.append("")
        lines.append(render_solution(best, color, width=width))
    return "\n".join(lines)


def render_arrangement(result: Arrangement, color: bool, width: int = 80) -> str:
    placed = sum(len(s) for s in result.table)
    total = placed + len(result.take_back)
    lines = []
    n = len(result.take_back)
    if not result.optimal:  # a search the limit stopped proves nothing about what cannot be done
        if total and n == total:  # nothing found: no arrangement, no advice
            return fit("Time limit reached before an arrangement was found (try a longer --time-limit).", width)
        found = f"all {count(total, 'tile')} fit" if not n else f"take back {n} of {count(total, 'tile')}"
        lines.append(fit(f"Time limit reached; best found, not proven the fewest to take back: {found}.", width))
    elif not n:
        lines.append(fit(f"All {count(total, 'tile')} fit in {count(len(result.table), 'valid set')}.", width))
    else:
        lines.append(fit(f"No arrangement holds all {count(total, 'tile')}: take back {n} (the fewest possible).", width))
    if result.lines and not result.heap:
        lines.append(fit(f"Lines kept as they were: {len(result.kept_lines)} of {len(result.lines)}.", width))
    if result.table:
        lines.append("")
    for s in result.table:
        lines.append(fit(f"  {tiles_text(s, color)}", width))
    if result.take_back:
        lines.append("")
        lines.append(fit(f"Take back: {tiles_text(result.take_back, color)}", width))
    return "\n".join(lines)


def _noted_sets(table: Sequence[PlacedSet], color: bool, width: int = 80) -> list[str]:
    """The sets, each with its change named in a column, within ``width``: a set too long for
    the column (a long run in colour) is broken between tiles and its note goes below."""
    shown = [set_text(s, color) for s in table]
    room = width - 2 - 3 - max(len(note) for note in _CHANGE_NOTE.values())
    column = min(max(width_of(text) for text in shown), room)
    out = []
    for s, text in zip(table, shown):
        note = _CHANGE_NOTE[s.change]
        pieces = fit(f"  {text}", 2 + column).split("\n")  # one line unless it is too long
        last = pieces.pop()
        out += pieces
        out.append(f"{last}{' ' * (2 + column - width_of(last) + 3)}{note}")
    return out


def render_steps(plan: Plan, width: int = 80) -> str:
    if not plan.steps:
        return "Steps: none (no tile is played)."
    lines = [fit(f"Steps ({count(plan.tiles_moved, 'table tile')} moved to another set):", width)]
    lines += [fit(f"  {n}. {step}", width) for n, step in enumerate(plan.steps, 1)]
    return "\n".join(lines)


def render_hint(found: Hint, color: bool, numbers: bool = False, pool_empty: bool = False, width: int = 80) -> str:
    """A hint: how much (1); with which tiles and table sets (2); the steps (3). ``numbers``: name
    the table sets by their numbers too (as ``play`` shows them); ``pool_empty``: in a game whose
    pool is empty no move means passing, not drawing. Within ``width`` columns."""
    best = found.solution
    n = best.tiles_played
    unproven = best.status is Status.TIME_LIMIT
    if not n:
        if unproven:  # a search the limit stopped proves nothing: never a false "no move"
            return fit("Time limit reached before a move was found: no hint (try a longer --time-limit).", width)
        if pool_empty:
            return fit(f"No move this turn: pass ('draw': the pool is empty){_meld_note(best.position)}.", width)
        return fit(f"No move this turn: draw a tile{_meld_note(best.position)}.", width)
    lines = [fit(f"You can play {count(n, 'tile')} ({count(best.points_played, 'point')}).", width)]
    if unproven:
        lines = [
            fit(
                f"You can play at least {count(n, 'tile')} ({count(best.points_played, 'point')}):"
                " the time limit stopped the search before it proved more impossible.",
                width,
            )
        ]
    if found.level >= 2:
        lines.append(fit(f"Use your {tiles_text(best.played, color)}.", width))
        if found.involved:
            shown = [tiles_text(s, color) for s in found.involved]
            if numbers:
                shown = [f"set {i + 1} ({text})" for i, text in zip(found.involved_at, shown)]
            lines.append(fit(f"Table sets involved: {'; '.join(shown)}.", width))
        else:
            lines.append("No table set needs to change.")
    if found.level >= 3:
        lines.append("")
        lines.append(render_steps(found.plan, width))
    return "\n".join(lines)


def commands_line(commands: Sequence[str], width: int = 80) -> str:
    """A hint's steps as commands to type, within ``width`` columns: on one line where it fits,
    else on several, each of whole commands (never broken inside one), each typeable as it stands
    (commands on a line run in order, and lines one after another do the same)."""
    lines: list[str] = []
    for command in [*commands, "done"]:
        joined = f"{lines[-1]}; {command}" if lines else command
        if lines and 2 + len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(command)
    one = f"To do it, type: {'; '.join([*commands, 'done'])}"
    if len(lines) == 1 and len(one) <= width:
        return one
    head = fit("To do it, type these lines (or all of them as one):", width)
    return "\n".join([head, *(f"  {line}" for line in lines)])


def render_puzzle(puzzle: Puzzle, answer: Solution | None = None) -> str:
    """The puzzle: rack, table, what is asked; its answer only when ``answer`` is given."""
    p = puzzle.position
    lines = [f"{puzzle.id}: {p.title} (difficulty {puzzle.difficulty})", f"Rack: {format_tiles(p.rack)}"]
    lines.append("Table:" if p.table else "Table: empty")
    lines += [f"  {format_tiles(s)}" for s in p.table]
    if not p.opened:
        lines.append("You have not opened yet: this turn is your initial meld.")
    if p.rules.describe() != "standard":
        lines.append(f"Rules: {p.rules.describe()}")
    n = puzzle.answer_played
    lines.append(
        f"Goal: play {count(n, 'tile')}."
        if n
        else "Goal: find out whether any tile can be played."
    )
    if answer is not None:
        lines += ["", "Answer:", render_solution(answer, False, title=False)]
    return "\n".join(lines)
