"""A run never repeats a number: under wrap=american a run may hold numbers+1 places' worth of
tiles only if it started at place 2, so every formulation bounds run lengths by the numbers."""

from __future__ import annotations

import random

import pytest

from solver.position import Position
from solver.rules import RuleSet, Wrap
from solver.solve import SolveOptions, solve
from tests.oracle import best_moves, random_position

ENGINES = [
    ("bnb", "auto"),
    ("bnb", "flow"),
    ("bnb", "sets"),
    ("highs", "auto"),
    ("cbc", "sets"),
    ("cpsat", "sets"),
]

# The reproductions: the flow and pattern models built R1 R2 R3 R1, R1..R13 R1, and an
# opening's rearranged R4 R1; the validator refused them (exit 4).
REPEATS = [
    ("R1", ["R1 R2 R3"], {"numbers": 3}, True, 0),
    ("R1 J", ["R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13"], {"min_set_size": 8}, True, 0),
    (
        "R2 R3 R1 J K3",
        ["R3 R4 R1"],
        {"numbers": 4, "colours": 3, "meld_threshold": 5, "joker_in_meld": True, "continue_after_meld": True},
        False,
        4,
    ),
]


@pytest.mark.parametrize(("rack", "table", "rules", "opened", "played"), REPEATS)
@pytest.mark.parametrize(("backend", "formulation"), ENGINES)
def test_runs_do_not_repeat_a_number(
    rack: str,
    table: list[str],
    rules: dict[str, object],
    opened: bool,
    played: int,
    backend: str,
    formulation: str,
) -> None:
    position = Position.from_strings(
        rack, table, opened=opened, rules=RuleSet.from_options({"wrap": "american", **rules})
    )
    if formulation == "flow" and not position.opened and not position.rules.continue_after_meld:
        pytest.skip("the flow model's opening without continuing is a different model")
    answer = solve(position, SolveOptions(backend=backend, formulation=formulation))  # validated inside
    assert answer.tiles_played == played


@pytest.mark.parametrize("seed", range(60))
def test_small_wrapping_rules_match_the_brute_force(seed: int) -> None:
    """Free rules, wrap american, 3 to 6 numbers: every engine plays what the oracle says."""
    rng = random.Random(seed)
    rules = RuleSet(
        numbers=rng.randint(3, 6),
        colours=rng.randint(1, 4),
        jokers=rng.randint(1, 2),
        copies=rng.randint(1, 2),
        wrap=Wrap.AMERICAN,
    )
    position = random_position(rng, rules, max_rack=4)
    best = best_moves(position).tiles
    for backend, formulation in ENGINES:
        answer = solve(position, SolveOptions(backend=backend, formulation=formulation))
        assert (answer.tiles_played, answer.points_played, answer.kept_sets) == best, (backend, formulation)
