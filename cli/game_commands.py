"""``rummikub selfplay`` and ``rummikub odds``: statistics from whole games (parse, call, render)."""

from __future__ import annotations

import json
import time
from typing import Any

import click

from cli.errors import EXIT_INTERRUPTED, collect, guarded
from cli.options import (
    OutputPath,
    deal_options,
    executor_options,
    explicit_rule_options,
    rule_options,
    rule_options_without,
    timing_option,
    workers_from,
)
from solver.rules import RuleSet
from solver.wording import count


def _rules(ctx: click.Context, params: dict[str, Any]) -> RuleSet:
    return guarded(lambda: RuleSet.from_options(explicit_rule_options(ctx, params)))


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _interval(pair: list[float]) -> str:
    return f"{100 * pair[0]:.1f}–{100 * pair[1]:.1f}%"


@click.command("selfplay", short_help="Play many games between AI players; report who wins.")
@click.option(
    "--games", type=click.IntRange(1, 10_000_000), default=100, show_default=True, help="Games to play."
)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Players per game.")
@click.option(
    "--ai",
    "ai",
    default="medium",
    show_default=True,
    metavar="AI[,AI...]",
    help="AI per player, comma-separated (easy, medium, hard); one name plays every seat.",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed: the same seed gives the same games."
)
@executor_options
@click.option("--record", "record_dir", type=OutputPath("folder"), metavar="DIR", help="Write one game record per game into DIR.")
@click.option(
    "--resume",
    is_flag=True,
    help="With --record DIR: read back the games whose records DIR already holds (an interrupted "
    "series, the same options) and play only the others; the report covers them all.",
)
@deal_options
@rule_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@timing_option("the time taken ('seconds', 'games_per_second')")
@click.pass_context
def selfplay(ctx: click.Context, /, **params: Any) -> None:
    """Play many games between AI players and report who wins.

    Win rates with 95% Wilson intervals, average points, turns per game, how often each AI has
    opened by its k-th turn, and the value of holding a joker. Games come in groups sharing one
    deal, each AI taking every seat, so no AI always starts first.

    Ctrl-C stops the series: the report then covers the games finished so far (exit status 130);
    with --record, --resume later goes on from there.
    """
    from solver.game.selfplay import Settings, parse_ais, run_games, summarize

    rules = _rules(ctx, params)
    ais = guarded(lambda: parse_ais(params["ai"], params["players"]))
    settings = Settings(
        ais=tuple(ais),
        games=params["games"],
        seed=params["seed"],
        rules=rules,
        scoring=params["scoring"],
        redeal_three_pairs=params["redeal_three_pairs"],
        joker_each=params["joker_each"],
        record_dir=params["record_dir"],
    )
    guarded(lambda: settings.config(0))  # refuse impossible rule/player combinations up front
    workers = workers_from(ctx, params)
    resume = params["resume"]
    if resume and settings.record_dir is None:
        raise click.UsageError("--resume needs --record DIR (the records of the games already played)")
    started = time.perf_counter()
    outcomes, interrupted = collect(
        lambda: run_games(settings, workers, resume), settings.games, "Playing", show_eta=True
    )
    if resume:
        read = sum(1 for o in outcomes if o.resumed)
        click.echo(f"Resumed: {read} of {count(settings.games, 'game')} read back from {settings.record_dir}.", err=True)
    if interrupted:
        click.echo(f"\nInterrupted after {len(outcomes)} of {settings.games} games.", err=True)
        if not outcomes:
            ctx.exit(EXIT_INTERRUPTED)
    seconds = time.perf_counter() - started if params["timing"] else 0.0  # 0: no time reported
    summary = summarize(outcomes, settings, seconds).to_dict()
    click.echo(json.dumps(summary) if params["as_json"] else render_selfplay(summary))
    if interrupted:
        ctx.exit(EXIT_INTERRUPTED)


def render_selfplay(data: dict[str, Any]) -> str:
    """The self-play summary as text."""
    names = data["ais"]
    width = max(6, *(len(n) for n in names))
    lines = [
        f"{count(data['games'], 'game')}, {count(data['players'], 'player')}, seed {data['seed']}, "
        f"{data['scoring']} scoring"
        + (f", {data['games_per_second']:.2f} games/s" if "games_per_second" in data else ""),
        "",
        f"{'AI':<{width}}  {'wins':>6}  {'win rate':>8}  {'95% interval':>13}  {'avg points':>10}  opened by turn 1/2/3/5/10",
    ]
    for name in names:
        row = data["per_ai"][name]
        opened = " ".join(f"{100 * v:.0f}%" for v in row["opened_by_turn"].values())
        lines.append(
            f"{name:<{width}}  {row['wins']:>6}  {_percent(row['win_rate']):>8}  "
            f"{_interval(row['win_rate_95']):>13}  {row['average_points']:>10.1f}  {opened}"
        )
    low, high = data["turns_per_game_95"]
    lines += [
        "",
        f"Turns per game: {data['turns_per_game']:.1f} (95%: {low:.1f}–{high:.1f}); "
        f"blocked rounds: {data['blocked']}; tied: {data['ties']}",
    ]
    joker = data["joker_value"]
    if "difference" in joker:
        with_j, without = joker["with_joker"], joker["without_joker"]
        lines += [  # three lines, to fit 80 columns
            f"Holding a joker: players dealt one won {_percent(with_j['win_rate'])} ({_interval(with_j['win_rate_95'])}),",
            f"  players dealt none {_percent(without['win_rate'])} ({_interval(without['win_rate_95'])});",
            f"  difference {100 * joker['difference']:+.1f} percentage points "
            f"(95%: {100 * joker['difference_95'][0]:+.1f} to {100 * joker['difference_95'][1]:+.1f})",
        ]
    return "\n".join(lines)


@click.command("odds", short_help="The odds of being able to open within k turns of a deal.")
@click.option(
    "--deals", type=click.IntRange(1, 10_000_000), default=1000, show_default=True, help="Racks to deal."
)
@click.option(
    "--turns",
    type=click.IntRange(1, 50),
    default=10,
    show_default=True,
    help="Turns to follow each rack for.",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed: the same seed gives the same deals."
)
@executor_options
@rule_options_without("joker-rules", "joker-retrieval", "joker-in-meld")  # no table; both meld variants
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.pass_context
def odds(ctx: click.Context, /, deals: int, turns: int, seed: int, as_json: bool, **params: Any) -> None:
    """The odds of being able to open within k turns from a 14-tile deal.

    Each deal draws one tile a turn until it holds an initial meld (--meld-threshold), under both
    meld variants (no joker in the meld, joker in the meld), for every deal and split by whether
    the deal held a joker, with 95% Wilson intervals.

    Ctrl-C stops the dealing: the report then covers the deals done so far (exit status 130).
    """
    from solver.game.selfplay import OddsSettings, odds_report, odds_variants, run_deals

    rules = _rules(ctx, params)
    settings = OddsSettings(rules=rules, deals=deals, turns=turns, seed=seed)
    guarded(lambda: odds_variants(settings))  # refuse impossible settings up front
    workers = workers_from(ctx, params)
    done, interrupted = collect(lambda: run_deals(settings, workers), deals, "Dealing")
    if interrupted:
        click.echo(f"\nInterrupted after {len(done)} of {deals} deals.", err=True)
        if not done:
            ctx.exit(EXIT_INTERRUPTED)
    result = odds_report(settings, done)
    click.echo(json.dumps(result) if as_json else render_odds(result))
    if interrupted:
        ctx.exit(EXIT_INTERRUPTED)


def render_odds(data: dict[str, Any]) -> str:
    threshold = data["rules"]["meld-threshold"]
    lines = [
        f"Odds of holding an initial meld ({count(threshold, 'point')}) by turn k, {count(data['deals'], 'deal')}, "
        f"seed {data['seed']}"
    ]
    for label, entry in data["variants"].items():
        lines += ["", f"{label}:"]
        columns = [key for key in ("all", "with_joker", "without_joker") if entry[key]["deals"]]
        titles = {"all": "every deal", "with_joker": "joker dealt", "without_joker": "no joker dealt"}
        # Three columns of 22 fit 80 columns: "100.0% (100.0–100.0%)" is 21 wide.
        lines.append("  turn  " + "  ".join(f"{titles[c]:>22}" for c in columns))
        lines.append("        " + "  ".join(f"{'(' + count(entry[c]['deals'], 'deal') + ')':>22}" for c in columns))
        for k in range(data["turns"]):
            cells = []
            for c in columns:
                row = entry[c]["by_turn"][k]
                cells.append(f"{_percent(row['odds']):>6} ({_interval(row['odds_95'])})".rjust(22))
            lines.append(f"  {k + 1:>4}  " + "  ".join(cells))
    return "\n".join(lines)
