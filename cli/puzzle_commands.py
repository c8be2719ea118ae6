"""``rummikub puzzles``: list, show, check, generate and record the library's puzzles."""

from __future__ import annotations

import codecs
import contextlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click
from click.core import ParameterSource

from cli.errors import (
    EXIT_BAD_INPUT,
    EXIT_ILLEGAL,
    EXIT_INTERRUPTED,
    EXIT_NOT_OPTIMAL,
    collect,
    fail,
    guarded,
)
from cli.options import OutputPath, executor_options, workers_from
from cli.render import fit, render_check, render_puzzle
from solver.wording import count

if TYPE_CHECKING:  # annotations only: the library loads when a command runs
    from puzzles.library import Puzzle

# Seeds of up to 18 digits: a generated puzzle's id, gen-LEVEL-SEED, names its seed that way
# (puzzles.generate.GENERATED_ID), so that every puzzle made can be shown and checked again.
LARGEST_SEED = 10**18 - 1

F = TypeVar("F", bound=Callable[..., Any])


@click.group(short_help="The puzzle library: list, show, check, record, generate.")
def puzzles() -> None:
    """The puzzle library: list, show and check puzzles; record a new puzzle's answer; generate new ones."""


@puzzles.command("list")
@click.option(
    "--difficulty", type=click.IntRange(1, 5), default=None, help="Only puzzles of this difficulty."
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of text.")
def puzzles_list(difficulty: int | None, as_json: bool) -> None:
    """The bundled puzzles: id, difficulty (1-5, measured) and title."""
    from puzzles.library import library

    found = [p for p in guarded(library) if difficulty is None or p.difficulty == difficulty]
    if as_json:
        click.echo(json.dumps([p.summary() for p in found]))
        return
    for p in found:
        click.echo(fit(f"{p.id:24} {'*' * p.difficulty:5}  {p.position.title}", hang=32))


def answer_option(func: F) -> F:
    return click.option(
        "--answer",
        "with_answer",
        is_flag=True,
        help="Also give the answer (in the text, the JSON and the picture alike).",
    )(func)


def show_puzzle(puzzle: Puzzle, with_answer: bool, as_json: bool, svg_file: str | None) -> None:
    """A puzzle as text or JSON, and as a picture; its answer only when asked for."""
    from solver.svg import position_svg, solution_svg, write_svg

    answer = guarded(puzzle.answer_solution) if with_answer else None
    if svg_file:
        title = puzzle.position.title
        picture = position_svg(puzzle.position, title) if answer is None else solution_svg(answer, title)
        guarded(lambda: write_svg(svg_file, picture))
    click.echo(json.dumps(puzzle.to_dict(with_answer)) if as_json else render_puzzle(puzzle, answer))


@puzzles.command("show", short_help="Show a puzzle: rack, table and goal (the answer if asked).")
@click.argument("puzzle_id", metavar="ID")
@answer_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option("--svg", "svg_file", type=OutputPath("file"), metavar="FILE", help="Also draw the puzzle as SVG (with --answer: and its answer).")
def puzzles_show(puzzle_id: str, with_answer: bool, as_json: bool, svg_file: str | None) -> None:
    """Show a puzzle: rack, table and goal; the answer only with --answer."""
    from puzzles.generate import find_puzzle

    show_puzzle(guarded(lambda: find_puzzle(puzzle_id)), with_answer, as_json, svg_file)


@puzzles.command("check", short_help="Check your answer to a puzzle.")
@click.argument("puzzle_id", metavar="ID")
@click.option(
    "--answer",
    "answer_file",
    required=True,
    metavar="ANSWER_FILE",
    help="Your table after the move, one set per line ('-': standard input).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.pass_context
def puzzles_check(ctx: click.Context, /, puzzle_id: str, answer_file: str, as_json: bool) -> None:
    """Check your answer to a puzzle (exit status as for `rummikub check`)."""
    from puzzles.generate import find_puzzle
    from solver.check import check_answer
    from solver.files import load_answer

    puzzle = guarded(lambda: find_puzzle(puzzle_id))
    answer = guarded(lambda: load_answer(answer_file, puzzle.position.rules))
    report = guarded(lambda: check_answer(puzzle.position, answer))
    if as_json:
        click.echo(json.dumps(report.to_dict()))
    else:
        click.echo(render_check(report, False, False))
    if not report.legal:
        ctx.exit(EXIT_ILLEGAL)
    if not report.optimal:
        ctx.exit(EXIT_NOT_OPTIMAL)


@puzzles.command("generate", short_help="Create new puzzles of a measured difficulty.")
@click.option("--difficulty", type=click.IntRange(1, 5), required=True, help="Measured difficulty, 1-5.")
@click.option(
    "--seed",
    type=click.IntRange(-LARGEST_SEED, LARGEST_SEED),
    default=0,
    show_default=True,
    help="Same seed, same puzzle (up to 18 digits: the puzzle's id gen-LEVEL-SEED names it).",
)
@click.option(
    "--count",
    "how_many",
    type=click.IntRange(1, 10_000_000),
    default=1,
    show_default=True,
    help="Puzzles to make, from seeds SEED, SEED+1, ... (more than one needs --out).",
)
@click.option("--out", "out_dir", type=OutputPath("folder"), metavar="DIR", help="Write each puzzle into DIR as a puzzle file, gen-D-SEED.txt.")
@click.option(
    "--resume", is_flag=True, help="With --out DIR: leave the puzzles DIR already holds and make only the others."
)
@executor_options
@answer_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (as `puzzles show --json`).")
@click.option("--svg", "svg_file", type=OutputPath("file"), metavar="FILE", help="Also draw the puzzle as SVG (with --answer: and its answer).")
@click.pass_context
def puzzles_generate(
    ctx: click.Context,
    /,
    difficulty: int,
    seed: int,
    how_many: int,
    out_dir: str | None,
    resume: bool,
    with_answer: bool,
    as_json: bool,
    svg_file: str | None,
    **params: Any,
) -> None:
    """Create new puzzles of a measured difficulty, each with a unique optimal set of tiles to play.

    One puzzle is shown; with --out DIR, --count puzzles are written into DIR as puzzle files
    (whole, as each is made, answer included), each recording the seed it came from. Ctrl-C
    stops the run: the files written so far are complete (exit status 130), and --resume goes on.
    """
    if out_dir is None:
        typed = [n for n in ("executor", "scheduler", "jobs") if ctx.get_parameter_source(n) is ParameterSource.COMMANDLINE]
        given = (["count"] if how_many > 1 else []) + typed + (["resume"] if resume else [])
        if given:  # each of these is about the files of a run
            named = ", ".join(f"--{name}" for name in given)
            raise click.UsageError(f"{named} need{'s' if len(given) == 1 else ''} --out DIR: the puzzles are written as files")
        from puzzles.generate import generated_puzzle

        show_puzzle(guarded(lambda: generated_puzzle(difficulty, seed)), with_answer, as_json, svg_file)
        return
    if as_json or svg_file or with_answer:
        raise click.UsageError("--json, --svg and --answer show one puzzle: leave out --out, or read the files written")
    if seed + how_many - 1 > LARGEST_SEED:
        raise click.UsageError(f"--seed {seed} --count {how_many} goes past the largest seed, {LARGEST_SEED}")
    from puzzles.generate import write_generated

    workers = workers_from(ctx, params)
    made, interrupted = collect(
        lambda: write_generated(difficulty, range(seed, seed + how_many), out_dir, workers, resume),
        how_many,
        "Generating",
    )
    written = sum(1 for m in made if m.error is None and not m.kept)
    kept = sum(1 for m in made if m.kept)
    failed = [(m.seed, m.error) for m in made if m.error is not None]
    there = f" ({kept} already there)" if resume else ""
    click.echo(f"{count(written, 'puzzle')} of difficulty {difficulty} written to {out_dir}{there}")
    for failed_seed, why in sorted(failed):
        click.echo(f"No puzzle from seed {failed_seed}: {why}", err=True)
    if interrupted:
        click.echo(f"Interrupted after {written + kept + len(failed)} of {how_many} seeds.", err=True)
        ctx.exit(EXIT_INTERRUPTED)
    if failed:
        ctx.exit(EXIT_BAD_INPUT)


@puzzles.command("record", short_help="Measure a puzzle file's difficulty and record its answer.")
@click.argument("puzzle_file", metavar="FILE")
def puzzles_record(puzzle_file: str) -> None:
    """Measure a puzzle file's difficulty and write it, with an optimal answer, into the file."""
    from puzzles.library import measure, recorded_text
    from solver.file_io import read_text, write_whole
    from solver.files import load_position

    if puzzle_file == "-":
        raise click.UsageError("puzzles record writes into its FILE: give a path, not - (standard input)")
    text, _ = guarded(lambda: read_text(puzzle_file, "puzzle"))
    if text.lstrip().startswith("{"):
        raise fail(
            f"puzzle file {puzzle_file} is JSON: a puzzle's answer is recorded in a text position file"
            " (key: value lines, docs/formats.md); the file is left as it was",
            EXIT_BAD_INPUT,
        )
    position = guarded(lambda: load_position(puzzle_file))
    difficulty, solution, _ = guarded(lambda: measure(position))
    with contextlib.suppress(OSError), open(puzzle_file, "rb") as raw:
        if raw.read(3) == codecs.BOM_UTF8:  # read_text reads past it; the file keeps it
            text = "\ufeff" + text
    guarded(lambda: write_whole(puzzle_file, recorded_text(text, difficulty, solution), "puzzle file"))
    click.echo(
        f"{puzzle_file}: difficulty {difficulty.level} ({count(difficulty.tiles_moved, 'table tile')} moved, "
        f"{count(difficulty.sets_broken, 'set')} broken, {count(difficulty.steps, 'step')}); "
        f"the answer plays {count(solution.tiles_played, 'tile')}"
    )
