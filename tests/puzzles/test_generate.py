"""The puzzle generator: measured difficulty, reproducible from the seed, unique answer, no giveaways."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from puzzles.generate import (
    find_puzzle,
    generated_puzzle,
    gives_away,
    needs_table,
    obvious_pair,
    unique_played,
)
from puzzles.library import library, measure
from solver.initial_meld import best_meld_sets
from solver.position import Position
from solver.solve import solve


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_generated_puzzle_has_the_difficulty_asked_for(level: int) -> None:
    puzzle = generated_puzzle(level, seed=11)
    assert puzzle.difficulty == level
    best = solve(puzzle.position)
    assert best.tiles_played == puzzle.answer_played
    difficulty = measure(puzzle.position)[0]
    assert difficulty.level == level
    assert unique_played(puzzle.position, best)
    if level < 5:
        assert best.tiles_played == len(puzzle.position.rack)  # only level 5 holds unplayable tiles
    if level >= 2:
        assert needs_table(puzzle.position, best)
        rules = puzzle.position.rules.replace(joker_in_meld=True)
        assert best_meld_sets(Counter(puzzle.position.rack), rules) == 0  # no giveaway
    if level >= 3:
        assert not obvious_pair(puzzle.position)
    if level == 5:
        assert difficulty.tiles_moved >= 7 or difficulty.sets_broken >= 4


def test_giveaways_are_recognised() -> None:
    # K8 and R8 on the rack with B8 free at the end of a run of four: seen at once.
    pair = Position.from_strings("K8 R8 B4", ["B5 B6 B7 B8"])
    assert obvious_pair(pair) and gives_away(pair, 3)
    assert not gives_away(pair, 2)
    # Not free: taking B8 from a run of three leaves two tiles.
    assert not obvious_pair(Position.from_strings("K8 R8", ["B6 B7 B8"]))
    # A rack that makes a set on its own.
    assert gives_away(Position.from_strings("K1 K2 K3 O9", ["B5 B6 B7"]), 2)


def test_same_seed_same_puzzle() -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "2", "--seed", "5", "--json"])
    second = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "2", "--seed", "5", "--json"])
    assert first.exit_code == 0 and first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert {"id", "title", "difficulty", "rack", "table", "initial_meld", "rules"} == set(data)  # no answer
    other = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "2", "--seed", "6", "--json"])
    assert other.stdout != first.stdout
    five = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "5", "--seed", "3", "--json"])
    assert five.exit_code == 0 and json.loads(five.stdout)["difficulty"] == 5


def test_a_generated_puzzle_is_found_again_by_its_id(tmp_path: Path) -> None:
    """`gen-LEVEL-SEED` names the generated puzzle wherever a puzzle id is taken (show, check, the
    web trainer); a bundled puzzle of that name stays the bundled one; a malformed one says why."""
    runner = CliRunner()
    made = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "2", "--seed", "-3", "--json", "--answer"])
    shown = runner.invoke(cli, ["puzzles", "show", "gen-2--3", "--json", "--answer"])
    assert shown.exit_code == 0 and shown.stdout == made.stdout
    assert find_puzzle("gen-2--3") == generated_puzzle(2, -3)
    answer = tmp_path / "answer.txt"
    answer.write_text("\n".join(" ".join(s) for s in json.loads(made.stdout)["answer"]["table"]) + "\n")
    checked = runner.invoke(cli, ["puzzles", "check", "gen-2--3", "--answer", str(answer)])
    assert checked.exit_code == 0 and "Optimal" in checked.stdout
    bundled = next(p for p in library() if p.id.startswith("gen-"))
    assert find_puzzle(bundled.id) == bundled
    for bad in ("gen-6-1", "gen-2-007", "gen-2-1234567890123456789"):  # one seed, one id: as generate names it
        wrong = runner.invoke(cli, ["puzzles", "show", bad])
        assert wrong.exit_code == 1 and wrong.stderr == (
            f"Error: no puzzle {bad!r}: a generated puzzle's id is gen-LEVEL-SEED, a level of 1-5 and a"
            " whole-number seed of up to 18 digits, no leading zero (as 'rummikub puzzles generate' names them)\n"
        )


def test_every_seed_generate_takes_makes_an_id_show_finds() -> None:
    runner = CliRunner()
    largest = "9" * 18
    made = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "1", "--seed", largest, "--json"])
    assert made.exit_code == 0 and json.loads(made.stdout)["id"] == f"gen-1-{largest}"
    assert runner.invoke(cli, ["puzzles", "show", f"gen-1-{largest}", "--json"]).stdout == made.stdout
    for seeds in (["--seed", "1" + largest], ["--seed", f"-1{largest}"]):
        assert runner.invoke(cli, ["puzzles", "generate", "--difficulty", "1", *seeds]).exit_code == 2
    past = runner.invoke(cli, ["puzzles", "generate", "--difficulty", "1", "--seed", largest, "--count", "2", "--out", "x"])
    assert past.exit_code == 2 and "goes past the largest seed" in past.stderr


def test_a_resumed_run_makes_only_the_puzzles_missing(tmp_path: Path) -> None:
    out = tmp_path / "made"
    runner = CliRunner()
    args = ["puzzles", "generate", "--difficulty", "1", "--seed", "20", "--count", "4", "--out", str(out)]
    assert runner.invoke(cli, args).exit_code == 0
    written = {p.name: p.read_bytes() for p in out.iterdir()}
    again = runner.invoke(cli, args)  # without --resume: the files there are not written over
    assert again.exit_code == 1 and f"Error: {out} already holds 4 of these puzzle files (gen-1-20.txt," in again.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == written
    (out / "gen-1-21.txt").unlink()
    (out / "gen-1-23.txt").unlink()
    resumed = runner.invoke(cli, [*args, "--resume"])
    assert resumed.exit_code == 0 and resumed.stdout == f"2 puzzles of difficulty 1 written to {out} (2 already there)\n"
    assert {p.name: p.read_bytes() for p in out.iterdir()} == written
    (out / "gen-1-20.txt").write_text((out / "gen-1-22.txt").read_text())  # not the puzzle of seed 20
    wrong = runner.invoke(cli, [*args, "--resume"])
    assert wrong.exit_code == 1 and wrong.stderr == (  # one line: no progress bar off a terminal
        f"Error: puzzle file {out / 'gen-1-20.txt'} is not the puzzle of seed 20 (its id is gen-1-22):"
        " give --out another folder\n"
    )
    # Edited by hand with its id kept: its rack no longer holds what its answer lays.
    (out / "gen-1-20.txt").write_bytes(written["gen-1-20.txt"])
    edited = written["gen-1-21.txt"].decode()
    rack = next(line for line in edited.splitlines() if line.startswith("rack: "))
    (out / "gen-1-21.txt").write_text(edited.replace(rack, "rack: R1 R2 R3"))
    tampered = runner.invoke(cli, [*args, "--resume"])
    assert tampered.exit_code == 1
    assert "gen-1-21.txt is not the puzzle of seed 21 (its answer is not legal)" in tampered.stderr
    # A recorded line edited: the reason names that line (it said "its answer plays 3 tiles, the
    # best move 3", "it measures level 1": what was right, not what was wrong).
    (out / "gen-1-21.txt").write_bytes(written["gen-1-21.txt"])
    played = next(line for line in edited.splitlines() if line.startswith("answer-played: "))
    for line, reason in ((played, f"it records answer-played: 9, its answer plays {played.split()[1]}"),
                         ("difficulty: 1", "it records difficulty: 2, level 1 asked for")):
        (out / "gen-1-21.txt").write_text(edited.replace(line, line.split(":")[0] + (": 9" if "played" in line else ": 2")))
        refused = runner.invoke(cli, [*args, "--resume"])
        assert refused.exit_code == 1 and f"gen-1-21.txt is not the puzzle of seed 21 ({reason})" in refused.stderr


@pytest.mark.parametrize(("level", "seed"), [(4, 1), (5, 28)])
def test_a_generated_table_is_written_as_players_write_it(level: int, seed: int) -> None:
    from puzzles.generate import generated_puzzle
    from solver.melds import natural_order

    puzzle = generated_puzzle(level, seed)
    rules = puzzle.position.rules
    assert any(t.is_joker for s in puzzle.position.table for t in s)  # the sets these seeds came out wrong
    assert all(tuple(s) == natural_order(s, rules) for s in puzzle.position.table)
