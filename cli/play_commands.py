"""``rummikub play``: a game at the terminal against AI players (reading lines, printing; the
turn logic is cli.session's and solver.game.editor's)."""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from cli.errors import EXIT_BAD_INPUT, fail, guarded
from cli.options import (
    OutputPath,
    color_wanted,
    deal_options,
    explicit_rule_options,
    output_width,
    rule_options,
)
from cli.prompt import Prompt
from cli.render import (
    GLUE,
    commands_line,
    fit,
    fit_listing,
    render_hint,
    retrieved_text,
    tile_text,
    tiles_text,
    width_of,
)
from cli.session import HumanTurn, Reply, seat_names
from solver.game.editor import TIMER_RULES, TimerRule, TurnEditor, TurnTimer
from solver.game.engine import Game, GameConfig, Match, RoundResult, TurnRecord, followed, kept_in_place
from solver.game.players import Player
from solver.joker_account import Retrieved, account
from solver.melds import why_invalid
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.steps import plan_steps
from solver.tiles import Tile
from solver.wording import count

if TYPE_CHECKING:
    from solver.game.records import RecordWriter

LEVELS = ("easy", "medium", "hard")
HUMAN = 0  # the person plays seat 0: player 1


@click.command("play", short_help="Play Rummikub at the terminal against AI players.")
@click.option(
    "--opponents",
    metavar="LEVELS",
    default=None,
    help="The AI players, 1 to 3, by level: e.g. hard,medium (levels: easy, medium, hard).",
)
@click.option(
    "--players", type=click.IntRange(2, 4), default=None, help="Players in all, you included (with --ai)."
)
@click.option(
    "--ai",
    type=click.Choice(LEVELS),
    default="medium",
    show_default=True,
    help="Level of every AI player when --opponents is not given.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Same seed, same deal (default: a random seed, shown); a game record's seed deals its round again.",
)
@click.option("--rounds", type=click.IntRange(1, 100), default=1, show_default=True, help="Rounds to play.")
@click.option(
    "--turn-time",
    type=click.Choice(["40", "60"]),
    default=None,
    help="Seconds a turn. 40: out of time, the table is restored and you draw 1 penalty tile; "
    "60: the broken sets go back onto your rack and you draw 3.",
)
@deal_options
@click.option(
    "--rack-size",
    type=click.IntRange(1, 40),
    default=14,
    show_default=True,
    help="Tiles dealt to each player (fewer make a short game).",
)
@click.option("--record", "record_file", type=OutputPath("file"), metavar="FILE", help="Write the game record (JSON lines) here.")
@click.option("--force", is_flag=True, help="With --record: overwrite FILE if it exists.")
@rule_options
@click.option(
    "--color/--no-color",
    "color",
    default=None,
    help="Colour the tiles (default: on a terminal, unless NO_COLOR is set).",
)
@click.pass_context
def play(ctx: click.Context, /, **params: Any) -> None:
    """Play Rummikub at the terminal against 1-3 AI players (easy, medium, hard).

    You are player 1. On your turn type commands: lay R4 R5 R6 (a new set), add 2 R7 (onto set 2),
    move 3 R5 1 (a table tile from set 3 to set 1), take 2 R5 (a tile off set 2 into the workspace),
    split 2 R8, undo, redo, reset, done, draw, hint, quit. 'help' lists them all.
    """
    from solver.game.players import make_player

    if params["force"] and not params["record_file"]:
        raise click.UsageError("--force overwrites the --record file: give --record FILE too")
    if params["record_file"]:
        _refuse_record_paths(params["record_file"], params["rounds"], params["force"])
    if params["opponents"] is not None and ctx.get_parameter_source("ai") is not ParameterSource.DEFAULT:
        raise click.UsageError("--ai sets every AI's level when --opponents is not given: give one or the other")
    levels = _levels(params["opponents"], params["players"], params["ai"])
    config = _game_config(ctx, params, len(levels) + 1)
    names = seat_names(levels)
    ais = {seat: make_player(level) for seat, level in enumerate(levels, 1)}
    rule = TIMER_RULES[int(params["turn_time"])] if params["turn_time"] else None
    screen = Screen(color_wanted(params["color"]), names)
    deal = config.describe_deal()
    rounds = f"; {params['rounds']} rounds" if params["rounds"] > 1 else ""
    screen.echo(
        f"Rummikub: you against {', '.join(names[1:])}; seed {config.seed}; rules {config.rules.describe()}"
        f"{'; ' + deal if deal else ''}{rounds}."
    )
    if rule is not None:
        screen.echo(f"Turn timer: {rule.describe()}.")
    screen.echo("Type 'help' for the commands.")
    match = Match(config)
    prompt = Prompt(sys.stdin, output_width)  # CliRunner swaps stdin for the scripted input
    for round_number in range(1, params["rounds"] + 1):
        game = guarded(match.new_round)
        writer = None
        if params["record_file"]:
            from cli.session import record_path
            from solver.game.records import GameHeader, RecordWriter

            path = record_path(params["record_file"], round_number, params["rounds"])
            header = GameHeader.for_game(game, names, ["human"] + ["ai"] * len(levels))
            writer = guarded(lambda: RecordWriter(path, header))  # noqa: B023 - called at once
        try:
            screen.new_round()
            first = "you start" if game.first_player == HUMAN else f"{names[game.first_player]} starts"
            # Every round's own seed deals it again as the first round of `play --seed`.
            dealt = f" (seed {game.config.seed})" if round_number > 1 else ""
            screen.echo(f"Round {round_number}{dealt}: {first} (the highest tile in the draw).")
            try:
                result = _play_round(game, ais, screen, prompt, rule, round_number, writer)
            except KeyboardInterrupt:  # Ctrl-C twice at the prompt, or once while an AI thinks: left
                screen.abandoned(match)
                raise
        finally:
            if writer is not None:
                writer.close()
        if result is None:
            screen.abandoned(match)
            return
        match.add(result)
        screen.round_end(round_number, result, match)
    if params["rounds"] > 1:
        screen.final(match)


def _refuse_record_paths(record_file: str, rounds: int, force: bool) -> None:
    """A record that could not be written is refused before the game, not after it."""
    from cli.session import record_path

    for round_number in range(1, rounds + 1):
        path = record_path(record_file, round_number, rounds)
        if os.path.isdir(path):
            raise fail(f"record file {path} is a folder: give a file name for the record", EXIT_BAD_INPUT)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            why = "is a file, not a folder" if os.path.exists(folder) else "does not exist"
            raise fail(f"cannot write record {path}: the folder {folder} {why}", EXIT_BAD_INPUT)
        if os.path.lexists(path) and not force:
            raise fail(f"record file {path} already exists (use --force to overwrite it)", EXIT_BAD_INPUT)


def _game_config(ctx: click.Context, params: dict[str, Any], players: int) -> GameConfig:
    """The match's rules, deal and scoring from the options (a seed drawn if none was given)."""

    rules = guarded(lambda: RuleSet.from_options(explicit_rule_options(ctx, params)))
    seed = params["seed"] if params["seed"] is not None else random.SystemRandom().randrange(1_000_000)
    return guarded(
        lambda: GameConfig(
            rules=rules,
            players=players,
            seed=seed,
            redeal_three_pairs=params["redeal_three_pairs"],
            joker_each=params["joker_each"],
            scoring=params["scoring"],
            rack_size=params["rack_size"],
        )
    )


def _play_round(
    game: Game,
    ais: dict[int, Player],
    screen: Screen,
    prompt: Prompt,
    rule: TimerRule | None,
    round_number: int,
    writer: RecordWriter | None,
) -> RoundResult | None:
    """One round to its end, each turn shown and recorded; None if the player left it (quit)."""
    while not game.over:
        if game.seat == HUMAN:
            timer = TurnTimer(rule) if rule is not None else None
            record = _human_turn(game, screen, prompt, timer, round_number)
            if record is None:
                return None
        else:
            with screen.thinking(screen.names[game.seat]):
                record = guarded(lambda: _ai_move(game, ais))
            screen.ai_turn(record, game.rules)
        screen.table_now(game.table)
        if writer is not None:
            guarded(lambda: writer.turn(record))  # noqa: B023 - called at once
    result = game.result()
    if writer is not None:
        guarded(lambda: writer.result(result))
    return result


def _ai_move(game: Game, ais: dict[int, Player]) -> TurnRecord:
    from solver.game.players import ai_turn

    return ai_turn(game, ais[game.seat])


def _levels(opponents: str | None, players: int | None, ai: str) -> list[str]:
    """The AI levels, seat 2 onwards, from --opponents or --players and --ai."""
    if opponents is None:
        return [ai] * ((players or 2) - 1)
    levels = [word.strip().lower() for word in opponents.split(",")]
    if "" in levels:  # ',hard': a seat left out is a typo, not one AI fewer
        raise click.BadParameter(f"an empty name between commas in {opponents!r}", param_hint="'--opponents'")
    bad = [word for word in levels if word not in LEVELS]
    if bad:
        raise click.BadParameter(
            f"unknown level {bad[0]!r} (levels: {', '.join(LEVELS)})", param_hint="'--opponents'"
        )
    if not 1 <= len(levels) <= 3:
        raise click.BadParameter(f"1 to 3 AI players, got {len(levels)}", param_hint="'--opponents'")
    if players is not None and players != len(levels) + 1:
        raise click.UsageError(
            f"--players {players} but --opponents names {count(len(levels), 'AI player')} ({len(levels) + 1} in all)"
        )
    return levels


def _human_turn(
    game: Game, screen: Screen, prompt: Prompt, timer: TurnTimer | None, round_number: int
) -> TurnRecord | None:
    """Read commands until the turn ends (its record) or the player quits (None)."""
    turn = HumanTurn(game, timer)
    screen.turn_start(game, turn.editor, round_number)
    while True:
        line = prompt.read(lambda: f"[{max(int(timer.left()), 0)} s] > " if timer is not None else "> ")
        if line is None:  # end of input: nobody is there to play on
            click.echo("")
            return None
        reply = turn.handle(line)
        screen.reply(reply, turn.editor)
        if reply.quit:
            return None
        if reply.ended is not None:
            screen.seen(table_seen(reply.ended, turn.editor.state.table))
            return reply.ended


def table_seen(record: TurnRecord, editing: Sequence[Sequence[Tile]]) -> Sequence[Sequence[Tile]]:
    """The table as the player last saw it at the end of their turn, numbered as they saw it: the
    sets as they laid them (emptied ones too), also when the timer ended the turn and its rule
    took sets back; a draw, or a time-out that put the table back (the 40-second rule), leaves the
    table as it was. The next turn says from it which numbers changed when the table was tidied."""
    restored = record.timed_out and list(map(list, record.table_after)) == list(map(list, record.table))
    return editing if (record.played or record.timed_out) and not restored else record.table_after


def _retrieved(record: TurnRecord, rules: RuleSet) -> tuple[Retrieved, ...]:
    """Under strict and locked jokers, the jokers an AI's move retrieved, as `solve` names them."""
    if rules.joker_rules is JokerRules.FREE or not any(t.is_joker for s in record.table for t in s):
        return ()
    position = Position(tuple(record.played), tuple(map(tuple, record.table)), True, rules)
    story = account(position, record.table_after)
    return story.retrieved if story is not None else ()


class Screen:
    """Everything ``play`` prints, within ``width`` columns; None: the terminal's as each line is
    printed (a window resized mid-game is followed), 80 into a pipe."""

    def __init__(self, color: bool, names: list[str], width: int | None = None) -> None:
        self.color = color
        self.names = names
        self._width = width
        # The table as you left it (numbered as you saw it), then each table the game placed
        # after a turn since: what follows a set from place to place.
        self.tables: list[list[list[Tile]]] = []
        self.pool_empty = False  # at the turn's start: a hint with no move then says to pass

    @property
    def width(self) -> int:
        return self._width if self._width is not None else output_width()

    def echo(self, text: str = "", hang: int = 4) -> None:
        click.echo(fit(text, self.width, hang), color=self.color)

    def new_round(self) -> None:
        self.tables = [[]]  # the empty table you saw before anyone moved: a set laid since is new
        self.echo("")

    def seen(self, table: Sequence[Sequence[Tile]]) -> None:
        """The table as you left it, numbered as you saw it (sets emptied this turn kept empty)."""
        self.tables = [[list(s) for s in table]]

    def table_now(self, table: Sequence[Sequence[Tile]]) -> None:
        """The table after a turn, as the game placed it."""
        self.tables.append([list(s) for s in table])

    def turn_start(self, game: Game, editor: TurnEditor, round_number: int) -> None:
        others = ", ".join(
            f"{self.names[seat]}: {len(game.racks[seat])}".replace(" ", GLUE) for seat in range(game.players) if seat != HUMAN
        )
        self.pool_empty = game.pool_size == 0
        self.echo("")
        self.echo(f"Round {round_number}, turn {game.turn}: your turn. Pool: {count(game.pool_size, 'tile')}.")
        self.echo(f"Tiles on the other racks: {others}.")
        if not game.opened[HUMAN]:
            threshold = game.rules.meld_threshold
            worth = f" worth at least {count(threshold, 'point')}" if threshold else ""
            self.echo(f"Not opened yet: lay new sets from your rack{worth}.")
        self._renumbered(editor)
        self.state(editor, changed=self._changed(editor))

    def _changed(self, editor: TurnEditor) -> set[int]:
        """Set numbers (from 1) of the sets that are not as you left them at your last turn."""
        kept = kept_in_place([*self.tables, editor.table()], editor.rules) if self.tables else set()
        return {number for number, _ in editor.numbered() if number - 1 not in kept}

    def _renumbered(self, editor: TurnEditor) -> None:
        """Say so when a set you left has another number now (a set before it was broken up)."""
        if not self.tables:
            return
        went = followed([*self.tables, editor.table()], editor.rules)
        moved = [f"{old + 1}->{at + 1}" for old, at in sorted(went.items()) if at != old]
        if moved:
            self.echo(f"Set numbers closed up where a set was broken up: {', '.join(moved)}.")

    def state(self, editor: TurnEditor, changed: set[int] | None = None) -> None:
        numbered = editor.numbered()
        if not numbered:
            self.echo("Table: empty")
        else:
            mark = " (* changed since your last turn)" if changed else ""
            self.echo(f"Table{mark}:")
            width = len(str(len(editor.state.table)))
            for number, pieces in numbered:
                shown = " ".join(tile_text(t, own, self.color) for t, own in pieces)
                label = f"*{number}" if changed and number in changed else str(number)
                reason = why_invalid([t for t, _ in pieces], editor.rules)
                note = f"   <- not valid: {reason}" if reason else ""
                # A long set goes on under its first tile.
                self.echo(f" {label:>{width + 1}}: {shown}{note}", hang=width + 3)
        s = editor.state
        if s.workspace:
            loose = " ".join(tile_text(t, own, self.color) for t, own in zip(s.workspace, s.own_loose))
            self.echo(f"Workspace: {loose}")
        self.echo(f"Your rack ({len(s.rack)}): {self._rack(s.rack)}")

    def _rack(self, rack: tuple[Tile, ...]) -> str:
        if not rack:
            return "empty"
        # One group per colour, so a run in the making is easy to spot; a group that fits on a
        # line is not broken across two.
        groups: dict[str, list[Tile]] = {}
        for t in rack:
            groups.setdefault(t.letter, []).append(t)
        shown = []
        for group in groups.values():
            words = [tile_text(t, color=self.color) for t in group]
            glued = GLUE.join(words)
            shown.append(glued if width_of(glued) <= self.width - 8 else " ".join(words))
        return "  ".join(shown)

    def reply(self, reply: Reply, editor: TurnEditor) -> None:
        if reply.error:
            click.echo(fit(reply.message, self.width))
            return
        for part in reply.parts or (reply,):
            if part.message and part.listing:
                click.echo(fit_listing(part.message, self.width))
            elif part.message:
                self.echo(part.message)
            if part.hint is not None:
                self.echo(render_hint(part.hint, self.color, True, self.pool_empty, self.width))
                if part.commands and part.hint.level >= 3:
                    click.echo(commands_line(part.commands, self.width))
        if reply.show and reply.ended is None:
            self.state(editor)

    @contextmanager
    def thinking(self, name: str) -> Iterator[None]:
        """At a terminal, "NAME is thinking…" while an AI chooses (some rule sets take seconds),
        wiped once it has; nothing in a pipe or a log."""
        shown = sys.stdout.isatty()
        said = f"{name} is thinking…"
        if shown:
            click.echo(said, nl=False)
        try:
            yield
        finally:
            if shown:
                click.echo("\r" + " " * width_of(said) + "\r", nl=False)

    def ai_turn(self, record: TurnRecord, rules: RuleSet) -> None:
        """What an AI did: the tiles it played, and the steps it took on the table."""
        name = self.names[record.seat]
        if not record.played:
            self.echo(f"{name} drew a tile." if record.drew is not None else f"{name} passed (the pool is empty).")
            return
        opened = " (opening)" if not record.opened else ""
        played = tiles_text(record.played, self.color, from_rack=True)
        self.echo(f"{name} played {count(len(record.played), 'tile')}{opened}: {played}")
        # How: the same steps `solve --steps` gives, each set named as it looks at that moment.
        opening = not record.opened and rules.continue_after_meld  # the meld down first
        plan = plan_steps(record.table, record.table_after, record.played, rules, opening=opening)
        for n, step in enumerate(plan.steps, 1):
            self.echo(f"  {n}. {step.describe('its rack')}")
        for r in _retrieved(record, rules):  # the steps may not show which tile freed a joker
            old = tiles_text(record.table[r.table_set - 1], self.color)
            new = tiles_text(record.table_after[r.new_set - 1], self.color)
            self.echo(f"  {retrieved_text(r, old, new, self.color)}")

    def round_end(self, round_number: int, result: RoundResult, match: Match) -> None:
        self.echo("")
        if result.winner is not None:
            you = result.winner == HUMAN
            if result.reason == "rack_empty":
                how = "emptied your rack: you win" if you else "emptied the rack and wins"
            else:
                how = "have the lowest rack: you win" if you else "has the lowest rack and wins"
                how += " (the pool is empty and everybody passed)"
            self.echo(f"Round {round_number} over: {self.names[result.winner]} {how}.")
        else:
            tied = ", ".join(self.names[s] for s in result.winners)
            self.echo(f"Round {round_number} over: blocked, a tie between {tied}.")
        totals = match.totals
        big_points = ", big points" if result.big else ""
        self.echo(f"Scores (round, total{big_points}, rack left):")
        for seat, name in enumerate(self.names):
            rack = tiles_text(result.racks[seat], self.color) if result.racks[seat] else "-"
            big = f" {match.big_totals[seat]:>3}" if result.big else ""
            figures = f"  {name:10} {result.scores[seat]:>+5} {totals[seat]:>+6}{big}   "
            # A long rack goes on under its column, where that leaves room for a few tiles.
            hang = len(figures) - 2 if self.width - len(figures) >= 12 else 4
            self.echo(figures + rack, hang)

    def abandoned(self, match: Match) -> None:
        """The game left mid-round: the standings of the rounds finished, if any."""
        if not match.results:
            self.echo("Game abandoned.")
            return
        club = match.config.scoring == "club"
        standings = ", ".join(
            f"{k}. {self.names[seat]} ({f'{match.big_totals[seat]} big, ' if club else ''}{match.totals[seat]:+})"
            for k, seat in enumerate(match.standings(), 1)
        )
        self.echo(f"Game abandoned; standings after {count(len(match.results), 'round')}: {standings}")

    def final(self, match: Match) -> None:
        self.echo("")
        order = match.standings()
        self.echo("Final standings: " + ", ".join(f"{k}. {self.names[s]}" for k, s in enumerate(order, 1)))
