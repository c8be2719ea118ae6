"""Option sets shared by several commands, as decorators, and their translation for the library."""

from __future__ import annotations

import math
import os
import shutil
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from cli.errors import fail, guarded
from solver.backends import BACKENDS
from solver.executors import Workers, check_setup
from solver.solution import Objective
from solver.solve import FORMULATIONS, SolveOptions

F = TypeVar("F", bound=Callable[..., Any])


class FiniteRange(click.FloatRange):
    """A FloatRange that refuses nan and infinity: nan passes every comparison of a range, and
    would reach the solver or the server as a time limit (or days to keep) that means nothing."""

    name = "float range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class OutputPath(click.ParamType[str]):
    """Where to write a file or a folder: any name but an empty one (``--record "$OUT"`` with OUT
    unset would otherwise write nothing, or into the current folder, and say nothing)."""

    name = "path"

    def __init__(self, kind: str) -> None:
        self.kind = kind  # "file" or "folder", as the message names it

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not str(value).strip():
            self.fail(f"an empty {self.kind} name.", param, ctx)
        if value == "-":  # standard output carries the command's own answer
            self.fail(f"'-' is not a {self.kind} name here: give one.", param, ctx)
        return value


# CLI parameter name -> rule option name (RuleSet.from_options spelling).
RULE_PARAMS = {
    "numbers": "numbers",
    "colours": "colours",
    "copies": "copies",
    "jokers": "jokers",
    "min_set_size": "min-set-size",
    "meld_threshold": "meld-threshold",
    "joker_in_meld": "joker-in-meld",
    "continue_after_meld": "continue-after-meld",
    "wrap": "wrap",
    "joker_penalty": "joker-penalty",
    "joker_rules": "joker-rules",
    "joker_retrieval": "joker-retrieval",
}


def position_inputs(func: F) -> F:
    """A position: a POSITION_FILE argument, or --rack and --table files."""
    decorators = [
        click.argument("position_file", required=False, metavar="[POSITION_FILE]"),
        click.option(
            "--rack",
            "rack_file",
            metavar="RACK_FILE",
            help="Rack file: tiles separated by spaces, commas, semicolons or newlines ('-': standard input).",
        ),
        click.option(
            "--table",
            "table_file",
            metavar="TABLE_FILE",
            help="Table file: one set per line ('-': standard input). Omitted: an empty table "
            "(so the initial meld, unless --opened).",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


# The rule options, each with the rule it sets (RuleSet.from_options spelling).
_RULE_OPTIONS: list[tuple[str, Callable[[Any], Any]]] = [
    (
        "numbers",
        click.option(
            "--numbers",
            type=click.IntRange(2, 40),
            default=13,
            show_default=True,
            help="Tile numbers run 1..N.",
        ),
    ),
    (
        "colours",
        click.option(
            "--colours",
            "--colors",
            "colours",
            type=click.IntRange(1, 8),
            default=4,
            show_default=True,
            help="Number of colours (K B R O, then G P W C).",
        ),
    ),
    (
        "copies",
        click.option(
            "--copies",
            type=click.IntRange(1, 8),
            default=2,
            show_default=True,
            help="Copies of each numbered tile.",
        ),
    ),
    (
        "jokers",
        click.option(
            "--jokers", type=click.IntRange(0, 8), default=2, show_default=True, help="Jokers in the game."
        ),
    ),
    (
        "min-set-size",
        click.option(
            "--min-set-size",
            type=click.IntRange(2, 40),
            default=3,
            show_default=True,
            help="Fewest tiles in a set.",
        ),
    ),
    (
        "meld-threshold",
        click.option(
            "--meld-threshold",
            type=click.IntRange(0, 10_000),
            default=30,
            show_default=True,
            help="Points the initial meld needs.",
        ),
    ),
    (
        "joker-in-meld",
        click.option(
            "--joker-in-meld/--no-joker-in-meld",
            default=False,
            show_default=True,
            help="May a joker be part of the initial meld?",
        ),
    ),
    (
        "continue-after-meld",
        click.option(
            "--continue-after-meld/--no-continue-after-meld",
            default=False,
            show_default=True,
            help="After the initial meld, may the player go on with the table in the same turn?",
        ),
    ),
    (
        "wrap",
        click.option(
            "--wrap",
            type=click.Choice(["none", "american", "full"]),
            default="none",
            show_default=True,
            help="Runs past the top number: none; american (12-13-1 at the end only); full.",
        ),
    ),
    (
        "joker-penalty",
        click.option(
            "--joker-penalty",
            type=click.IntRange(0, 10_000),
            default=30,
            show_default=True,
            help="A joker's points: what it costs left on a rack when a round ends (and its value for "
            "--objective points, where a command has it).",
        ),
    ),
    (
        "joker-rules",
        click.option(
            "--joker-rules",
            type=click.Choice(["free", "strict", "locked"]),
            default="free",
            show_default=True,
            help="Table jokers: free (move like any tile); strict (keep standing for their tile until "
            "that tile retrieves them); locked (strict, and a set holding one may only grow).",
        ),
    ),
    (
        "joker-retrieval",
        click.option(
            "--joker-retrieval",
            type=click.Choice(["official", "club"]),
            default="official",
            show_default=True,
            help="A retrieved joker goes into another set, never back into its own: one holding two "
            "rack tiles (official), or any other (club: the player plays a rack tile that turn).",
        ),
    ),
]


def rule_options(func: F) -> F:
    """The rule variants (defaults: the standard game); a position file's rules apply unless overridden."""
    return rule_options_without()(func)


def rule_options_without(*left_out: str) -> Callable[[F], F]:
    """The rule options but ``left_out`` (rule names): for a command they would change nothing in,
    so that its --help offers only what it takes and click refuses the others."""

    def apply(func: F) -> F:
        for name, decorator in reversed(_RULE_OPTIONS):
            if name not in left_out:
                func = decorator(func)
        return func

    return apply


def turn_options(func: F) -> F:
    """Whether this turn is the player's initial meld."""
    return click.option(
        "--initial-meld/--opened",
        "initial_meld",
        default=None,
        help="The player has not opened yet: this turn must be the initial meld (--opened: has "
        "opened). Default: what the position file says; otherwise opened when there are sets on the "
        "table, the initial meld when the table is empty.",
    )(func)


MAX_JOBS = 256  # worker processes: more than any machine here has cores; a larger --jobs is a typo


def solver_options(func: F) -> F:
    decorators = [
        click.option(
            "--objective",
            type=click.Choice([o.value for o in Objective]),
            default="tiles",
            show_default=True,
            help="tiles: most rack tiles played; points: largest value played (a joker counts "
            "--joker-penalty).",
        ),
        click.option(
            "--backend",
            type=click.Choice(sorted(BACKENDS)),
            default="bnb",
            show_default=True,
            help="Exact solver: bnb (branch and bound, fastest; its LPs run on the project's own "
            "compiled dual simplex, or on HiGHS for large models and where that was not built), CBC "
            "(through PuLP), CP-SAT (OR-Tools) or HiGHS's MIP solver.",
        ),
        click.option(
            "--formulation",
            type=click.Choice(FORMULATIONS),
            default="auto",
            show_default=True,
            help="The integer program: sets (a variable per possible set), flow (runs as flows "
            "over the numbers) or patterns (a variable per short run and group; after the initial "
            "meld); auto: patterns, or flow for an initial meld, for bnb and highs; sets for cbc "
            "and cpsat.",
        ),
        click.option(
            "--time-limit",
            type=FiniteRange(min=0.001),
            default=None,
            help="Seconds for the search; stopped early, the best move found is shown "
            "with status time_limit.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def timing_option(what: str = "the solve time ('seconds') in JSON output") -> Callable[[F], F]:
    """``--timing/--no-timing``, for the commands whose output reports the time taken (``what``)."""
    return click.option(
        "--timing/--no-timing",
        default=True,
        show_default=True,
        help=f"Include {what}; --no-timing makes the output byte-identical from run to run.",
    )


def solve_options(params: dict[str, Any]) -> SolveOptions:
    """The options of ``solver_options`` as the one value the library takes."""
    return SolveOptions(
        objective=Objective(params["objective"]),
        backend=params["backend"],
        time_limit=params["time_limit"],
        formulation=params["formulation"],
    )


def deal_options(func: F) -> F:
    """How rounds are dealt and scored, for every command that plays them (play, selfplay)."""
    decorators = [
        click.option(
            "--scoring",
            type=click.Choice(["standard", "club"]),
            default="standard",
            show_default=True,
            help="standard: the winner gets the others' rack values; club: the club sheet (big and "
            "small points, a joker 100, never-opened penalties).",
        ),
        click.option(
            "--redeal-three-pairs/--no-redeal-three-pairs",
            default=False,
            show_default=True,
            help="Club variant: a deal giving a player three duplicate pairs is dealt again.",
        ),
        click.option(
            "--joker-each/--no-joker-each",
            default=False,
            show_default=True,
            help="Tournament variant: every player starts with one joker.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def output_options(func: F) -> F:
    """--json, and colours for the text output."""
    decorators = [
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text."),
        click.option(
            "--color/--no-color",
            "color",
            default=None,
            help="Colour the tiles (default: on a terminal, unless NO_COLOR is set).",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def use_color(params: dict[str, Any]) -> bool:
    """Colours as asked (--color/--no-color), else not when NO_COLOR is set to anything
    (no-color.org), else only when printing to a terminal."""
    return color_wanted(params["color"])


def color_wanted(asked: bool | None) -> bool:
    if asked is not None:
        return asked
    if os.environ.get("NO_COLOR"):
        return False
    return on_terminal()


def on_terminal() -> bool:
    return sys.stdout.isatty()


PIPED_WIDTH = 80  # text into a file or a pipe: the same bytes whatever the terminal
MIN_WIDTH = 40  # a narrower terminal gets lines this wide, which it wraps itself


def output_width() -> int:
    """Columns for text meant for a person: at a terminal, its width (COLUMNS, when set, says
    it), at least MIN_WIDTH; into a file or a pipe, always PIPED_WIDTH."""
    if not on_terminal():
        return PIPED_WIDTH
    return max(shutil.get_terminal_size((PIPED_WIDTH, 24)).columns, MIN_WIDTH)


def explicit_rule_options(ctx: click.Context, params: dict[str, Any]) -> dict[str, object]:
    """Rule options the user actually typed (so a position file's own rules stay in force otherwise)."""
    chosen: dict[str, object] = {}
    for param, rule in RULE_PARAMS.items():
        if ctx.get_parameter_source(param) not in (ParameterSource.DEFAULT, None):
            chosen[rule] = params[param]
    return chosen


def opened_override(initial_meld: bool | None) -> bool | None:
    return None if initial_meld is None else not initial_meld


def executor_options(func: F) -> F:
    """Where bulk work runs: --executor, --scheduler, --jobs."""
    decorators = [
        click.option(
            "--executor",
            type=click.Choice(["local", "dask"]),
            default="local",
            show_default=True,
            help="local: this machine's processes; dask: a Dask cluster (the optional extra "
            "rummikub-analysis[dask]). Results do not depend on it.",
        ),
        click.option(
            "--scheduler",
            metavar="ADDRESS",
            envvar="RUMMIKUB_DASK_SCHEDULER",
            help="With --executor dask: the scheduler of a running cluster (tcp://HOST:8786; "
            "env RUMMIKUB_DASK_SCHEDULER). Without it, a cluster of --jobs workers on this machine.",
        ),
        click.option(
            "--jobs",
            type=click.IntRange(0, MAX_JOBS),
            default=1,
            show_default=True,
            help="Worker processes, local or of a Dask cluster started here (0: one per CPU). "
            "Results do not depend on it.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def workers_from(ctx: click.Context, params: dict[str, Any]) -> Workers:
    """The executor options as one value (a scheduler from the environment applies to dask only)."""
    executor, scheduler = params["executor"], params["scheduler"]
    if executor == "local":
        if scheduler and ctx.get_parameter_source("scheduler") is not ParameterSource.ENVIRONMENT:
            raise click.UsageError("--scheduler needs --executor dask")
        scheduler = None
    from_env = ctx.get_parameter_source("scheduler") is ParameterSource.ENVIRONMENT
    if scheduler is not None and not scheduler.strip():  # '' would quietly start a local cluster
        given = "RUMMIKUB_DASK_SCHEDULER is set but empty" if from_env else "--scheduler is empty"
        raise click.UsageError(f"{given}: give a scheduler's address, tcp://HOST:PORT")
    jobs = params["jobs"] or os.cpu_count() or 1
    workers = Workers(executor=executor, jobs=jobs, scheduler=scheduler or None)
    try:
        guarded(lambda: check_setup(workers))  # before any progress bar: a bad setup is one line
    except click.ClickException as err:
        if not (from_env and executor == "dask"):
            raise
        raise fail(f"{err.message} (from RUMMIKUB_DASK_SCHEDULER)", err.exit_code) from None  # whose address
    return workers
