"""The puzzle generator: measured difficulty, reproducible from the seed, unique answer."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.generate import generated_puzzle, needs_table, unique_played
from solver.puzzles import measure
from solver.solve import solve
from solver.validator import best_meld_sets


@pytest.mark.parametrize("level", [1, 2, 3])
def test_generated_puzzle_has_the_difficulty_asked_for(level: int) -> None:
    puzzle = generated_puzzle(level, seed=11)
    assert puzzle.difficulty == level
    best = solve(puzzle.position)
    assert best.tiles_played == puzzle.answer_played == len(puzzle.position.rack)
    assert measure(puzzle.position)[0].level == level
    assert unique_played(puzzle.position, best)
    if level >= 2:
        assert needs_table(puzzle.position, best)
        rules = puzzle.position.rules.replace(joker_in_meld=True)
        assert best_meld_sets(Counter(puzzle.position.rack), rules) == 0  # no giveaway


def test_same_seed_same_puzzle() -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "2", "--seed", "5", "--json"])
    second = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "2", "--seed", "5", "--json"])
    assert first.exit_code == 0 and first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert {"id", "title", "difficulty", "rack", "table", "initial_meld", "rules", "answer"} <= set(data)
    other = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "2", "--seed", "6", "--json"])
    assert other.stdout != first.stdout
