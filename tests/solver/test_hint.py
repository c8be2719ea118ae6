"""`rummikub hint`: three levels, from a nudge to the whole answer as steps."""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import solver.hint
import solver.steps
from cli.main import cli
from solver.hint import hint
from solver.position import Position
from solver.rules import JokerRules, Retrieval, RuleSet
from solver.solution import Solution, Status
from solver.solve import SolveOptions

POSITION = Position.from_strings("R5 B7 O7 K13", ["R4 J R6", "K1 K2 K3"])


def test_levels_reveal_more_and_more() -> None:
    one, two, three = (hint(POSITION, level).to_dict() for level in (1, 2, 3))
    assert one == {"level": 1, "status": "optimal", "tiles": 3, "points": 19}
    assert two["rack_tiles"] == ["B7", "R5", "O7"] and two["table_sets"] == ["R4 J R6"]
    assert "steps" not in two
    assert [s["action"] for s in three["steps"]] == ["retrieve", "lay"]
    assert three["tiles_moved"] == 1


def test_time_limit_bounds_both_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The move's search and the rearrangement's search (least moves) each get the limit."""
    limits: list[tuple[str, object]] = []

    def spy(label: str, real: Callable[..., Any], limit: Callable[[Any], object]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            limits.append((label, limit(args)))
            return real(*args, **kwargs)

        return call

    solve_module = importlib.import_module("solver.solve")  # `solver.solve` is the front door's function
    monkeypatch.setattr(solve_module, "_search", spy("search", solve_module._search, lambda a: a[1].time_limit))
    monkeypatch.setattr(solver.steps, "least_moves", spy("least_moves", solver.steps.least_moves, lambda a: a[4]))
    assert hint(POSITION, 3, SolveOptions(time_limit=4)).to_dict()["tiles"] == 3
    assert ("search", 4) in limits and ("least_moves", 4) in limits


def test_a_hint_the_time_limit_cut_short_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = solver.hint.solve

    def stopped(position: Position, options: SolveOptions) -> Solution:  # as a limit of 0.001 s ends it
        nothing = real(dataclasses.replace(position, rack=position.rack[-1:]), options)  # K13: no move
        return dataclasses.replace(nothing, position=position, status=Status.TIME_LIMIT)

    monkeypatch.setattr(solver.hint, "solve", stopped)
    assert hint(POSITION, 1).to_dict() == {"level": 1, "status": "time_limit", "tiles": 0, "points": 0}
    (tmp_path / "pos.txt").write_text("rack: R5 B7 O7 K13\ntable:\n  R4 J R6\n  K1 K2 K3\n")
    result = CliRunner().invoke(cli, ["hint", str(tmp_path / "pos.txt")])
    assert result.output == "Time limit reached before a move was found: no hint (try a longer --time-limit).\n"


def test_level_must_be_1_to_3() -> None:
    with pytest.raises(ValueError, match="hint level 4: levels are 1, 2 and 3"):
        hint(POSITION, 4)


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (1, "You can play 3 tiles (19 points).\n"),
        (2, "You can play 3 tiles (19 points).\nUse your B7 R5 O7.\nTable sets involved: R4 J R6.\n"),
    ],
)
def test_cli_text(level: int, expected: str) -> None:
    result = CliRunner().invoke(cli, ["hint", "puzzles/joker-retrieval.txt", "--level", str(level)])
    assert result.exit_code == 0 and result.stdout == expected


def test_cli_level_3_json_and_no_move() -> None:
    data = json.loads(CliRunner().invoke(cli, ["hint", "puzzles/split-run.txt", "--level", "3", "--json"]).stdout)
    assert data["tiles"] == 1 and data["tiles_moved"] == 0
    assert data["steps"][0]["action"] == "split"
    empty = CliRunner().invoke(cli, ["hint", "--rack", "-", "--level", "3", "--opened"], input="R1\n")
    assert empty.stdout == "No move this turn: draw a tile.\n"
    meld = CliRunner().invoke(cli, ["hint", "--rack", "-", "--level", "3"], input="R1 R2 R3\n")
    assert meld.stdout == (
        "No move this turn: draw a tile (this turn is the initial meld: new sets from\n"
        "    your rack worth at least 30 points).\n"
    )
    bad = CliRunner().invoke(cli, ["hint", "puzzles/joker-retrieval.txt", "--level", "4"])
    assert bad.exit_code == 2


@pytest.mark.parametrize(
    ("rules", "rack", "table", "involved"),
    [
        (RuleSet(numbers=6, joker_rules=JokerRules.STRICT, joker_retrieval=Retrieval.CLUB), "K1 B6 R6", ["J K2 K3 J K5"], ["J K2 K3 J K5"]),
        (RuleSet(), "K4 K1 K5 O8", ["J K2 K3", "K7 K8 K9 K10"], ["J K2 K3"]),
        (RuleSet(), "R3 B9 O9", ["R6 R5 J", "K9 R9 B9"], ["R5 R6 J", "K9 B9 R9"]),  # as the steps name them
    ],
)
def test_json_names_the_sets_involved_as_they_lie(rules: RuleSet, rack: str, table: list[str], involved: list[str]) -> None:
    # Sorted, "K2 K3 J K5 J" read as written says the jokers are K4 and K6: no set on the table.
    found = hint(Position.from_strings(rack, table, rules=rules), 2)
    assert found.to_dict()["table_sets"] == involved
