"""Rules that allow more jokers than the smallest set holds: a position holding fewer is solved
on the fast formulations (its moves do not depend on jokers that are not there), exactly as the
set model solves it; and under a time limit, a move with the rack's jokers held back stands in
when the set model's search finds nothing."""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable
from typing import Any

import pytest

from solver.files import position_from_record
from solver.model import resolved_formulation
from solver.position import Position
from solver.solve import SolveOptions, solve
from solver.tiles import JOKER
from solver.validator import validate
from tests.paths import ROOT

HARD = ROOT / "bench" / "positions" / "hard.jsonl"
solve_module = importlib.import_module("solver.solve")  # the module (``solver.solve`` is also the function)


def hard(index: int, options: dict[str, str]) -> Position:
    return position_from_record(json.loads(HARD.read_text().splitlines()[index]), "hard", options)


def formulations_used(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    used: list[str] = []
    build: Callable[..., Any] = solve_module.build_model

    def spy(position: Position, objective: Any, formulation: str, *args: Any, **kwargs: Any) -> Any:
        used.append(resolved_formulation(position, formulation))
        return build(position, objective, formulation, *args, **kwargs)

    monkeypatch.setattr(solve_module, "build_model", spy)
    return used


@pytest.mark.parametrize("mode", ["free", "strict", "locked"])
@pytest.mark.parametrize("jokers", ["3", "5"])
def test_a_position_holding_fewer_jokers_than_the_rules_allow_is_solved_on_the_fast_models(
    monkeypatch: pytest.MonkeyPatch, mode: str, jokers: str
) -> None:
    position = hard(0, {"jokers": jokers, "joker-rules": mode})  # two jokers on the table, none on the rack
    used = formulations_used(monkeypatch)
    answer = solve(position)
    assert used and "sets" not in used
    assert answer.position.rules.jokers == int(jokers)  # the rules as given
    monkeypatch.undo()
    on_sets = solve(position, SolveOptions(formulation="sets"))
    assert (answer.tiles_played, answer.points_played, answer.kept_sets) == (
        on_sets.tiles_played,
        on_sets.points_played,
        on_sets.kept_sets,
    )


def test_the_rack_s_jokers_held_back_stand_in_when_the_set_model_finds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three jokers in a position whose rules allow three: the set model's search, stopped by the
    limit with nothing found (as on big positions), gives way to the best move without the rack's
    joker, found on the flow model."""
    table_jokers_only = hard(0, {"jokers": "3"})  # two on the table
    position = dataclasses.replace(table_jokers_only, rack=(*table_jokers_only.rack, JOKER))
    search = solve_module._search

    def stopped(at: Position, options: SolveOptions, *args: Any, **kwargs: Any) -> Any:
        if resolved_formulation(at, options.formulation) == "sets":
            return solve_module._no_move(at, False)
        return search(at, options, *args, **kwargs)

    monkeypatch.setattr(solve_module, "_search", stopped)
    answer = solve(position, SolveOptions(time_limit=5))
    assert answer.status == "time_limit" and answer.tiles_played > 0
    assert validate(position, [list(s.tiles) for s in answer.table]) == []
    assert not any(t.is_joker for t in answer.played)
