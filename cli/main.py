"""``rummikub``: parse options, call one library function, render. No game logic lives here."""

from __future__ import annotations

import contextlib
import errno
import importlib
import json
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from cli.errors import (
    EXIT_BACKEND,
    EXIT_BAD_INPUT,
    EXIT_CLOSED_PIPE,
    EXIT_ILLEGAL,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NOT_OPTIMAL,
    EXIT_OK,
    EXIT_UNPROVEN,
    closed_pipe_ends_quietly,
    fail,
    guarded,
)
from cli.options import (
    FiniteRange,
    OutputPath,
    executor_options,
    explicit_rule_options,
    opened_override,
    output_options,
    output_width,
    position_inputs,
    rule_options,
    rule_options_without,
    solve_options,
    solver_options,
    timing_option,
    turn_options,
    use_color,
    workers_from,
)
from cli.render import (
    render_arrangement,
    render_check,
    render_hint,
    render_solution,
    render_steps,
)
from solver.file_io import shown_path

if TYPE_CHECKING:
    from solver.position import Position


class _LazyGroup(click.Group):
    """A command group that imports some of its commands' modules on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _LAZY_COMMANDS and cmd_name not in self.commands:
            module, name = _LAZY_COMMANDS[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(module), name), cmd_name)
        return super().get_command(ctx, cmd_name)

    # Click would take a closed output pipe for an error, exit status 1; --help and the commands
    # themselves write, so both the parsing and the running end as closed_pipe_ends_quietly says.
    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with closed_pipe_ends_quietly():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with closed_pipe_ends_quietly():
            return super().invoke(ctx)


@click.group(
    cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.version_option(package_name="rummikub-analysis", prog_name="rummikub")
def cli() -> None:
    """Exact Rummikub move solver and analysis tool (an unofficial fan tool).

    Tiles: colour letter + number (K black, B blue, R red, O orange; 1-13), J joker.
    Shorthands: R4-7 (run R4 R5 R6 R7), KBR7 (group K7 B7 R7).
    """


@cli.command(short_help="Find the best move and the whole table after it.")
@position_inputs
@rule_options
@turn_options
@solver_options
@timing_option()
@output_options
@click.option("--svg", "svg_file", type=OutputPath("file"), metavar="FILE", help="Also draw the position and the answer as SVG.")
@click.option("--steps", is_flag=True, help="Also give the move as steps to carry out at the table.")
@click.option(
    "--dump-lp",
    "lp_file",
    type=OutputPath("file"),
    metavar="FILE",
    help="Also write the turn's integer program to FILE (LP format: HiGHS, CBC and CPLEX read it), for debugging.",
)
@click.pass_context
def solve(
    ctx: click.Context,
    /,
    position_file: str | None,
    rack_file: str | None,
    table_file: str | None,
    **params: Any,
) -> None:
    """Find the best move: which tiles to play and the whole table after the move.

    Give a POSITION_FILE (rack, table, whether opened, rules), or --rack and --table files.
    """
    from solver.solve import solve as solve_position

    position = _load_position(ctx, position_file, rack_file, table_file, params)
    options = solve_options(params)
    if params["lp_file"]:  # before the search: a solve that takes too long is what one debugs
        from solver.file_io import write_lp
        from solver.solve import lp_text

        guarded(lambda: write_lp(params["lp_file"], lp_text(position, options)))
    solution = guarded(lambda: solve_position(position, options))
    plan = None
    if params["steps"]:  # the same tiles played, arranged to move the fewest table tiles
        from solver.steps import best_steps

        solution, plan = guarded(lambda: best_steps(solution))
    if params["svg_file"]:
        from solver.svg import solution_svg, write_svg

        guarded(lambda: write_svg(params["svg_file"], solution_svg(solution)))
    if params["as_json"]:
        data = solution.to_dict(params["timing"])
        if plan is not None:
            data["steps"] = [step.to_dict() for step in plan.steps]
            data["tiles_moved"] = plan.tiles_moved
        click.echo(json.dumps(data))
    else:
        color = use_color(params)
        width = output_width()
        text = render_solution(solution, color, width=width)
        if plan is not None:
            text += "\n\n" + render_steps(plan, width)
        click.echo(text, color=color)


@cli.command(short_help="Judge a proposed answer: legal, and how far from the best.")
@position_inputs
@click.option(
    "--answer",
    "answer_file",
    required=True,
    metavar="ANSWER_FILE",
    help="The proposed table after the move, one set per line ('-': standard input).",
)
@rule_options
@turn_options
@solver_options
@output_options
@click.option("--show", is_flag=True, help="Also show an optimal move (hidden by default).")
@click.option("--svg", "svg_file", type=OutputPath("file"), metavar="FILE", help="Also draw the answer, violations marked, as SVG.")
@click.pass_context
def check(
    ctx: click.Context,
    /,
    position_file: str | None,
    rack_file: str | None,
    table_file: str | None,
    answer_file: str,
    **params: Any,
) -> None:
    """Judge a proposed answer: legal or not (every violation), and how far from the optimum.

    Exit status: 0 optimal, 5 legal but not optimal, 6 illegal, 7 legal and as good as the best
    move found but not proven optimal (--time-limit stopped the search; 1 bad input, as everywhere).
    """
    from solver.check import check_answer
    from solver.file_io import STDIN
    from solver.files import load_answer

    if answer_file == STDIN and STDIN in (position_file, rack_file, table_file):
        raise click.UsageError("only one input can be standard input (-)")
    position = _load_position(ctx, position_file, rack_file, table_file, params)
    answer = guarded(lambda: load_answer(answer_file, position.rules))
    report = guarded(lambda: check_answer(position, answer, solve_options(params)))
    if params["svg_file"]:
        from solver.svg import answer_svg, write_svg

        guarded(lambda: write_svg(params["svg_file"], answer_svg(report)))
    if params["as_json"]:
        click.echo(json.dumps(report.to_dict(params["show"])))
    else:
        color = use_color(params)
        click.echo(render_check(report, params["show"], color, output_width()), color=color)
    if not report.legal:
        ctx.exit(EXIT_ILLEGAL)
    if report.optimal is None:
        ctx.exit(EXIT_UNPROVEN)
    if not report.optimal:
        ctx.exit(EXIT_NOT_OPTIMAL)


# A heap of tiles has no table jokers standing for anything and no initial meld: the options that
# would change nothing in arrange are not offered.
ARRANGE_LEFT_OUT = ("joker-rules", "joker-retrieval", "meld-threshold", "joker-in-meld", "continue-after-meld", "joker-penalty")


@cli.command(short_help="Arrange a table's tiles in valid sets (repair a table).")
@click.argument("table_file", metavar="TABLE_FILE")
@click.option("--heap", is_flag=True, help="The tiles are a loose heap: no line is worth keeping.")
@rule_options_without(*ARRANGE_LEFT_OUT)
@click.option(
    "--backend",
    type=click.Choice(["bnb", "highs"]),
    default="bnb",
    show_default=True,
    help="Exact solver: bnb (fastest) or HiGHS's MIP solver.",
)
@click.option("--time-limit", type=FiniteRange(min=0.001), default=None, help="Seconds for the whole arrangement: building the model and the search.")
@timing_option("'seconds' in JSON output")
@output_options
@click.pass_context
def arrange(ctx: click.Context, /, table_file: str, heap: bool, **params: Any) -> None:
    """Repair a table: arrange all its tiles in valid sets, keeping as many given lines as possible.

    TABLE_FILE holds the tiles as lines (sets that may be invalid) or, with --heap, any way at all.
    If no arrangement holds every tile, it names the fewest tiles to take back.
    """
    from solver.arrange import arrange as arrange_tiles
    from solver.files import load_lines
    from solver.rules import RuleSet

    given = explicit_rule_options(ctx, params)
    rules = guarded(lambda: RuleSet.from_options(given))
    lines = guarded(lambda: load_lines(table_file, rules))
    if not lines:  # almost always the wrong file
        shown = shown_path(table_file)
        click.echo(f"Warning: the table file {shown} holds no tiles; is it the right file?", err=True)
    result = guarded(lambda: arrange_tiles(lines, rules, params["backend"], params["time_limit"], heap))
    if params["as_json"]:
        click.echo(json.dumps(result.to_dict(params["timing"])))
    else:
        color = use_color(params)
        click.echo(render_arrangement(result, color, output_width()), color=color)


@cli.command(short_help="A hint for a position, from a nudge to the whole move.")
@position_inputs
@click.option(
    "--level",
    type=click.IntRange(1, 3),
    metavar="1|2|3",
    default=1,
    show_default=True,
    help="1: how many tiles and points can be played; 2: which of your tiles and which table "
    "sets are involved; 3: the full answer as steps.",
)
@rule_options
@turn_options
@solver_options
@output_options
@click.pass_context
def hint(
    ctx: click.Context,
    /,
    position_file: str | None,
    rack_file: str | None,
    table_file: str | None,
    level: int,
    **params: Any,
) -> None:
    """A hint for the position, from a nudge (level 1) to the whole answer as steps (level 3)."""
    from solver.hint import hint as make_hint

    position = _load_position(ctx, position_file, rack_file, table_file, params)
    found = guarded(lambda: make_hint(position, level, solve_options(params)))
    if params["as_json"]:
        click.echo(json.dumps(found.to_dict()))
    else:
        color = use_color(params)
        click.echo(render_hint(found, color, width=output_width()), color=color)


def _load_position(
    ctx: click.Context,
    position_file: str | None,
    rack_file: str | None,
    table_file: str | None,
    params: dict[str, Any],
) -> Position:
    """The position from a position file or rack and table files, with the typed rule options."""
    from solver.file_io import STDIN
    from solver.files import load_position, load_rack_and_table
    from solver.rules import RuleSet

    overrides = explicit_rule_options(ctx, params)
    opened = opened_override(params["initial_meld"])
    if position_file is not None and (rack_file or table_file):
        raise click.UsageError("give either a POSITION_FILE or --rack/--table files, not both")
    if position_file is None and rack_file is None:
        raise click.UsageError("give a POSITION_FILE, or a rack with --rack RACK_FILE")
    if rack_file == STDIN and table_file == STDIN:
        raise click.UsageError("only one input can be standard input (-)")

    if position_file not in (None, STDIN) and not os.path.lexists(position_file):
        _no_such_position_file(position_file)

    def load() -> Position:
        if position_file is not None:
            return load_position(position_file, overrides, opened)
        assert rack_file is not None
        rules = RuleSet.from_options(overrides)
        return load_rack_and_table(rack_file, table_file, rules, opened)

    position = guarded(load)
    if rack_file is not None and not position.rack:  # almost always the wrong file
        shown = shown_path(rack_file)
        click.echo(f"Warning: the rack file {shown} holds no tiles; is it the right file?", err=True)
    if table_file is not None and not position.table:  # and the turn silently becomes an initial meld
        shown = shown_path(table_file)
        # One line, as an error is, and within 80 columns for a file name of 14 characters.
        meld = ": an initial meld" if not position.opened else ""
        click.echo(f"Warning: empty table file {shown}{meld}; is it the right file?", err=True)
    return position


def _no_such_position_file(name: str) -> None:
    """A position file that is not there: perhaps the user gave a puzzle's id (``solve big-4``)."""
    from puzzles.library import closest_ids

    close = guarded(lambda: closest_ids(name))
    if name in close:
        hint = f"; did you mean `rummikub puzzles show {name}`?"
    elif close:
        hint = f" (puzzles with a similar id: {', '.join(close)}; `rummikub puzzles show ID` shows one)"
    else:
        hint = ""
    raise fail(f"cannot read position file {name}: no such file{hint}", EXIT_BAD_INPUT)


@cli.command(short_help="Solve many positions: JSON lines in, JSON lines out.")
@click.argument("file", metavar="FILE")
@rule_options
@turn_options
@solver_options
@timing_option()
@executor_options
@click.option(
    "--skip",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="N",
    help="Leave out the first N positions (blank lines not counted): to go on after an interrupted "
    "run, N is the answers it wrote (--skip $(wc -l < out.jsonl) >> out.jsonl).",
)
@click.pass_context
def batch(ctx: click.Context, /, file: str, skip: int, **params: Any) -> None:
    """Solve many positions: JSON lines in (FILE, or '-' for standard input), one JSON line out each.

    Input line: {"rack": ["R1", ...], "table": [["R4", "R5", "R6"], ...], "initial_meld": false}.
    Output: the same object as `solve --json`, in input order (whatever the executor); a bad line
    gives {"line": N, "error": "..."} and the others are still answered.
    """
    import itertools

    from solver.batch import BatchSettings, Outcome, answer_lines, read_lines
    from solver.file_io import open_input
    from solver.wording import count

    settings = BatchSettings(
        rule_overrides=tuple(explicit_rule_options(ctx, params).items()),
        opened=opened_override(params["initial_meld"]),
        options=solve_options(params),
        timing=params["timing"],
    )
    workers = workers_from(ctx, params)
    worst = Outcome.ANSWERED
    stream = guarded(lambda: open_input(file, "batch file"))
    label = shown_path(file)

    read = 0  # positions read, the skipped ones too

    def counted(lines: Iterator[Any]) -> Iterator[Any]:
        nonlocal read
        for line in lines:
            read += 1
            yield line

    def answer_all() -> None:
        nonlocal worst
        lines = itertools.islice(counted(read_lines(stream, where=f"batch file {label}")), skip, None)
        for text, outcome in answer_lines(lines, settings, workers):
            sys.stdout.write(text + "\n")
            sys.stdout.flush()  # every finished answer is written, even if the run is interrupted
            worst = max(worst, outcome)

    try:
        guarded(answer_all)
    finally:
        if file != "-":  # standard input's reader may be in a read-ahead thread's hands
            stream.close()
    if read < skip:  # a resumed run's count off, or the wrong file
        click.echo(f"Warning: batch file {label} holds {count(read, 'position')}: --skip {skip} left out every one", err=True)
    codes = {
        Outcome.ANSWERED: EXIT_OK,
        Outcome.BAD_INPUT: EXIT_BAD_INPUT,
        Outcome.BACKEND_FAILED: EXIT_BACKEND,
        Outcome.INTERNAL_ERROR: EXIT_INTERNAL,
    }
    if worst != Outcome.ANSWERED:
        ctx.exit(codes[worst])


_FULL = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)  # a write that found no room


def main() -> None:
    """Console entry point: no traceback ever reaches the user."""
    try:
        status = cli.main(standalone_mode=False)
        # Without standalone mode click returns ctx.exit()'s status instead of exiting.
        if isinstance(status, int) and status:
            sys.exit(status)
    except click.exceptions.Abort:
        click.echo("Interrupted.", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as err:
        err.show()
        sys.exit(err.exit_code)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:  # an error message to a closed pipe: nobody is there to read it
        sys.exit(EXIT_CLOSED_PIPE)
    except OSError as err:  # the machine's, not a bug: standard output on a full disk, a dead terminal
        # Files are read and written with their names in the message: what is left is the output.
        if err.filename:
            said = f"{err.filename}: {err.strerror or err}"
        elif err.errno in _FULL:
            said = f"cannot write standard output: {err.strerror}"
        else:
            said = f"cannot read or write: {err.strerror or err}"
        with contextlib.suppress(OSError):
            click.echo(f"Error: {said}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except Exception as err:  # a bug: say so in one line, never a traceback
        click.echo(f"Error: internal error (please report): {type(err).__name__}: {err}", err=True)
        sys.exit(EXIT_INTERNAL)


# Commands in their own modules, imported only when run (or listed by --help): `rummikub solve`
# need not load the game engine, the score sheet or the analysis.
_LAZY_COMMANDS = {
    "analyze": "cli.analyze_commands:analyze",
    "score": "cli.score_commands:score",
    "play": "cli.play_commands:play",
    "selfplay": "cli.game_commands:selfplay",
    "odds": "cli.game_commands:odds",
    "puzzles": "cli.puzzle_commands:puzzles",
    "serve": "cli.serve_commands:serve",
}
