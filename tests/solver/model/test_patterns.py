"""The pattern formulation: same optimum as the flow formulation, readable tables, clear limits."""

from __future__ import annotations

import dataclasses
import random

import pytest

from solver.errors import RulesError
from solver.model import build_model
from solver.position import Position
from solver.rules import RuleSet
from solver.solution import Objective, SetChange
from solver.solve import SolveOptions, solve
from solver.tiles import Tile, format_tiles, parse_token
from solver.validator import validate
from tests.strategies import random_position

VARIANTS = [
    {},
    {"wrap": "american"},
    {"jokers": 1},
    {"min-set-size": 4},
    {"colours": 5},
    {"copies": 3},
]


def _tiles(text: str, rules: RuleSet) -> tuple[Tile, ...]:
    return tuple(t for token in text.split() for t in parse_token(token, rules))


def _opened(rules: RuleSet, rack: str, table: list[str]) -> Position:
    return Position(_tiles(rack, rules), tuple(_tiles(s, rules) for s in table), True, rules)


def _rank(answer: object) -> tuple[int, int, int]:
    return (answer.tiles_played, answer.points_played, answer.kept_sets)  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(60))
def test_same_optimum_as_the_flow_model(seed: int) -> None:
    rnd = random.Random(seed)
    rules = RuleSet.from_options(VARIANTS[seed % len(VARIANTS)])
    position = random_position(rnd, rules, max_sets=rnd.randint(3, 16), max_rack=rnd.randint(3, 24), opened=True)
    for objective in (Objective.TILES, Objective.POINTS):
        patterns = solve(position, SolveOptions(objective=objective, backend="bnb", formulation="patterns"))
        flow = solve(position, SolveOptions(objective=objective, backend="bnb", formulation="flow"))
        assert _rank(patterns) == _rank(flow)
        assert validate(position, [list(s.tiles) for s in patterns.table]) == []


@pytest.mark.parametrize("seed", range(8))
def test_cpsat_on_the_pattern_model_agrees(seed: int) -> None:
    rnd = random.Random(1000 + seed)
    position = random_position(rnd, RuleSet(), max_sets=8, max_rack=12, opened=True)
    assert _rank(solve(position, SolveOptions(backend="cpsat", formulation="patterns"))) == _rank(solve(position))


def test_long_runs_come_back_whole() -> None:
    """Runs are columns of three to five tiles; the answer still shows an extended run as one."""
    position = _opened(RuleSet(), "R9 K1", ["R1 R2 R3 R4 R5 R6 R7 R8"])
    answer = solve(position, SolveOptions(formulation="patterns"))
    assert [format_tiles(s.tiles) for s in answer.table] == ["R1 R2 R3 R4 R5 R6 R7 R8 R9"]
    assert answer.table[0].change is SetChange.EXTENDED


def test_runs_over_the_top_under_american_wrap() -> None:
    position = _opened(RuleSet.from_options({"wrap": "american"}), "R1", ["R11 R12 R13"])
    answer = solve(position, SolveOptions(formulation="patterns"))
    assert answer.tiles_played == 1
    assert [format_tiles(s.tiles) for s in answer.table] == ["R11 R12 R13 R1"]


def test_jokers_take_a_place() -> None:
    position = _opened(RuleSet(), "J B9", ["R4 R5 R6", "K9 O9 R9"])
    answer = solve(position, SolveOptions(formulation="patterns"))
    assert answer.tiles_played == 2
    assert validate(position, [list(s.tiles) for s in answer.table]) == []


def test_auto_uses_patterns_after_the_meld_and_flow_for_it() -> None:
    opened = _opened(RuleSet(), "R7", ["R4 R5 R6"])
    assert build_model(opened).formulation == "patterns"
    assert build_model(dataclasses.replace(opened, opened=False)).formulation == "flow"


def test_patterns_refuse_the_initial_meld_and_full_wrap() -> None:
    position = _opened(RuleSet(), "R7", ["R4 R5 R6"])
    with pytest.raises(RulesError, match="after the initial meld"):
        build_model(dataclasses.replace(position, opened=False), formulation="patterns")
    full = dataclasses.replace(position, rules=RuleSet.from_options({"wrap": "full"}))
    with pytest.raises(RulesError, match="wrap none or american"):
        build_model(full, formulation="patterns")

