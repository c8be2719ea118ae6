"""A round rebuilt from its record: every kind of turn replays to the same game, and a record that
does not follow from its seed is refused at the first turn that differs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.errors import InputError
from solver.game.editor import TIMER_RULES, Command, TurnEditor, time_out
from solver.game.engine import Game, GameConfig
from solver.game.players import ai_turn, make_player
from solver.game.records import GameHeader, parse_record, record_lines
from solver.game.replay import config_of, replay
from solver.rules import RuleSet
from solver.tiles import Tile

SMALL = RuleSet(numbers=7)


def record_text(game: Game, kinds: list[str] | None = None) -> str:
    names = [f"p{i + 1}" for i in range(game.players)]
    result = game.result() if game.over else None
    return "\n".join(record_lines(GameHeader.for_game(game, names, kinds), game.history, result))


def ai_game(config: GameConfig, levels: list[str], turns: int | None = None) -> Game:
    game = Game.new(config)
    players = [make_player(level) for level in levels]
    while not game.over and (turns is None or len(game.history) < turns):
        ai_turn(game, players[game.seat])
    return game


@pytest.mark.parametrize(
    ("config", "levels"),
    [
        (GameConfig(SMALL, 2, seed=4), ["easy", "medium"]),
        (GameConfig(RuleSet(), 3, seed=11, scoring="club", rack_size=8), ["hard", "easy", "medium"]),
        (GameConfig(RuleSet(), 2, seed=2, joker_each=True, redeal_three_pairs=True), ["medium"] * 2),
        (GameConfig(RuleSet(), 4, seed=6, rack_size=10), ["medium", "easy", "hard", "easy"]),
    ],
)
def test_a_whole_round_replays_to_the_same_game(config: GameConfig, levels: list[str]) -> None:
    game = ai_game(config, levels)
    assert game.over
    again = replay(parse_record(record_text(game)))
    assert again.history == game.history
    assert again.result() == game.result()
    assert (again.racks, again.table, again.opened, again.pool_size) == (
        game.racks,
        game.table,
        game.opened,
        game.pool_size,
    )


def test_an_unfinished_round_replays_to_where_it_stood_and_plays_on_alike() -> None:
    config = GameConfig(SMALL, 3, seed=9)
    game = ai_game(config, ["medium"] * 3, turns=7)
    again = replay(parse_record(record_text(game)))
    assert not again.over and again.seat == game.seat and again.turn == game.turn
    # The pool's order is rebuilt too: the next draws are the same tiles.
    assert again.draw() == game.draw()


def test_timer_penalties_replay_both_rules() -> None:
    game = Game.new(GameConfig(SMALL, 2, seed=21, rack_size=10))
    for seconds in (40, 60, 40, 60):
        editor = TurnEditor(game.position())
        time_out(game, editor, TIMER_RULES[seconds])
    game.draw()
    # Under the 60-second rule a broken table set goes back to the rack with the penalty tiles.
    opened = Game.new(GameConfig(RuleSet(numbers=7, meld_threshold=10), 2, seed=21, rack_size=10))
    medium = make_player("medium")
    while not (opened.opened[opened.seat] and opened.table):
        ai_turn(opened, medium)
    editor = TurnEditor(opened.position())
    editor.apply(Command("take", 0, (editor.state.table[0][0],)))
    broken = time_out(opened, editor, TIMER_RULES[60])
    assert len(broken.penalty) == 3 and len(broken.table_after) == len(broken.table) - 1
    for played in (game, opened):
        again = replay(parse_record(record_text(played)))
        assert again.history == played.history
        assert any(turn.penalty for turn in again.history)


def test_the_config_comes_from_the_header() -> None:
    game = Game.new(GameConfig(SMALL, 2, seed=5, scoring="club", joker_each=True, rack_size=9))
    header = GameHeader.for_game(game, ["a", "b"])
    assert config_of(header) == game.config


def lines_of(game: Game) -> list[dict[str, object]]:
    return [json.loads(line) for line in record_text(game).splitlines()]


def text_of(lines: list[dict[str, object]]) -> str:
    return "\n".join(json.dumps(line) for line in lines)


def test_a_record_that_does_not_follow_from_its_seed_is_refused() -> None:
    game = ai_game(GameConfig(SMALL, 2, seed=4), ["medium", "medium"])
    lines = lines_of(game)
    draws = [i for i, line in enumerate(lines) if line.get("type") == "turn" and line.get("drew")]
    assert draws
    # The record up to a draw (nothing after it to contradict the tile), with another tile drawn:
    # the reader cannot tell, the seed can.
    changed = [dict(line) for line in lines[: draws[0] + 1]]
    drawn = Tile.parse(str(changed[-1]["drew"]), SMALL)
    other = next(t for t in ("K1", "B2", "R3", "O4") if Tile.parse(t, SMALL) != drawn)
    changed[-1] = {**changed[-1], "drew": other}
    turn = changed[-1]["turn"]
    with pytest.raises(InputError, match=rf"record <record> turn {turn} does not follow from the seed and the turns before it: 'drew' is '{other}' in the record"):
        replay(parse_record(text_of(changed)))
    # Another seed deals other racks: the first turn already differs.
    header = {**lines[0], "seed": 5}
    with pytest.raises(InputError, match="does not follow from"):
        replay(parse_record(text_of([header, *lines[1:]])))


def test_a_result_that_the_turns_do_not_give_is_refused() -> None:
    """Made in memory (the reader checks a result against the racks already; replay checks it
    against the game)."""
    game = ai_game(GameConfig(SMALL, 2, seed=4), ["medium", "medium"])
    record = parse_record(record_text(game))
    assert record.result is not None
    swapped = dataclasses.replace(record.result, scores=record.result.scores[::-1])
    with pytest.raises(InputError, match="its result does not follow from its turns"):
        replay(dataclasses.replace(record, result=swapped))
    with pytest.raises(InputError, match="its round is not over"):
        replay(dataclasses.replace(record, turns=record.turns[:3]))


def test_a_bad_deal_in_the_header_is_one_line() -> None:
    game = Game.new(GameConfig(SMALL, 2, seed=4))
    header = GameHeader.for_game(game, ["a", "b"])
    bad = dataclasses.replace(header, deal={"rack_size": 40})
    with pytest.raises(InputError, match="the record's game line: 2 players × 40 tiles need 80 tiles"):
        config_of(bad)
    with pytest.raises(InputError, match="'joker_each' must be true or false"):
        config_of(dataclasses.replace(header, deal={"joker_each": "yes"}))


def test_a_time_out_with_an_empty_pool_is_still_a_time_out_in_the_record() -> None:
    """Out of time under the 60-second rule with the pool empty: no penalty tile, but a broken set
    went back to the rack; the record says it was the timer (not a play that lost table tiles)."""
    game = Game.new(GameConfig(RuleSet(numbers=7, meld_threshold=10), 2, seed=1, rack_size=10))
    easy = make_player("easy")  # it never rearranges, so the pool runs out before the round ends
    while game.pool_size or not (game.opened[game.seat] and any(len(s) == 3 for s in game.table)):
        assert not game.over, "this seed ends before the pool is empty"
        ai_turn(game, easy)
    editor = TurnEditor(game.position())
    three = next(i for i, s in enumerate(editor.state.table) if len(s) == 3)
    editor.apply(Command("take", three, (editor.state.table[three][0],)))
    turn = time_out(game, editor, TIMER_RULES[60])
    assert turn.timed_out and not turn.penalty and len(turn.table_after) == len(turn.table) - 1
    record = parse_record(record_text(game))
    assert record.turns[-1].timed_out and record.turns[-1] == turn
    assert replay(record).history == game.history
    from solver.game.analysis import analyze

    assert analyze(record).turns[-1].label.value != "illegal"


def test_a_record_replays_with_its_sets_where_it_placed_them() -> None:
    # A record keeps the order its version of the game placed the sets in: replayed, the table is
    # that order, whatever the placing does now (records of older versions stay readable).
    config = GameConfig(SMALL, 2, seed=4)
    game = ai_game(config, ["easy", "medium"])
    last = max(i for i, turn in enumerate(game.history) if turn.played and len(turn.table_after) > 1)
    lines = [json.loads(line) for line in record_text(game).splitlines()[: last + 2]]
    lines[-1]["table_after"] = lines[-1]["table_after"][::-1]
    again = replay(parse_record("\n".join(json.dumps(line) for line in lines)))
    assert [[str(t) for t in s] for s in again.table] == lines[-1]["table_after"]


def test_analyze_names_a_turn_the_timer_ended_and_a_pass(tmp_path: Path) -> None:
    game = Game.new(GameConfig(SMALL, 2, seed=21, rack_size=10))
    time_out(game, TurnEditor(game.position()), TIMER_RULES[40])
    game.draw()
    path = tmp_path / "t.jsonl"
    path.write_text(record_text(game) + "\n")
    shown = CliRunner().invoke(cli, ["analyze", str(path), "--no-color"])
    assert shown.exit_code == 0, shown.output
    penalty = " ".join(str(t) for t in game.history[0].penalty)
    assert f"out of time, penalty {penalty}" in shown.output
    data = json.loads(CliRunner().invoke(cli, ["analyze", str(path), "--json"]).output)
    first = data["turns"][0]
    assert first["timed_out"] is True and first["penalty"] == penalty.split()
