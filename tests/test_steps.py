"""Steps a person can follow: replaying them on the old table must give exactly the new one."""

from __future__ import annotations

import json
from collections import Counter

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from cli.main import cli
from solver.position import Position
from solver.solve import solve
from solver.steps import Plan, plan_steps, replay
from solver.tiles import Tile
from tests.strategies import positions


def plan_for(position: Position) -> tuple[list[list[Tile]], Plan, list[Counter[Tile]]]:
    answer = solve(position)
    after = [list(s.tiles) for s in answer.table]
    plan = plan_steps(position.table, after, answer.played, position.rules)
    replayed = replay(position.table, plan, answer.played, position.rules)
    return after, plan, replayed


def same_table(replayed: list[Counter[Tile]], after: list[list[Tile]]) -> bool:
    return sorted(sorted(c.elements()) for c in replayed) == sorted(sorted(s) for s in after)


def test_joker_retrieval_steps() -> None:
    position = Position.from_strings("R5 B7 O7", ["R4 J R6", "K1 K2 K3"])
    after, plan, replayed = plan_for(position)
    assert same_table(replayed, after)
    assert [str(s) for s in plan.steps] == [
        "Move J from R4 J R6 to the new set B7 O7 J",
        "Add R5 from your rack to R4 R6",
        "Lay B7 O7 J (using J from the table)",
    ]
    assert plan.tiles_moved == 1


def test_split_moves_no_tile() -> None:
    position = Position.from_strings("B8", ["B6 B7 B8 B9 B10"])
    after, plan, replayed = plan_for(position)
    assert same_table(replayed, after)
    assert [s.action for s in plan.steps] == ["split", "add"]
    assert plan.tiles_moved == 0


def test_untouched_table_moves_nothing() -> None:
    position = Position.from_strings("K10 K11 K12", ["R1 R2 R3", "B5 R5 O5"])
    after, plan, replayed = plan_for(position)
    assert same_table(replayed, after)
    assert plan.tiles_moved == 0
    assert [s.action for s in plan.steps] == ["lay"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_sets=10, max_rack=16))
def test_steps_replay_to_the_new_table(position: Position) -> None:
    after, plan, replayed = plan_for(position)
    assert same_table(replayed, after)
    old = Counter(tuple(sorted(s)) for s in position.table)
    if not (old - Counter(tuple(sorted(s)) for s in after)):  # every table set still there
        assert plan.tiles_moved == 0


def test_cli_steps_json() -> None:
    result = CliRunner().invoke(cli, ["solve", "puzzles/group-swap.txt", "--steps", "--json"])
    data = json.loads(result.stdout)
    assert data["tiles_moved"] == 1
    assert data["steps"][0] == {"action": "move", "tiles": ["R7"], "from": "K7 B7 R7", "to": "R8 R9 R10"}
    text = CliRunner().invoke(cli, ["solve", "puzzles/group-swap.txt", "--steps"]).stdout
    assert "Steps (1 table tile change set):\n  1. Move R7 from K7 B7 R7 to R8 R9 R10" in text
