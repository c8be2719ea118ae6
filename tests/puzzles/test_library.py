"""The puzzle library: every puzzle solves to its recorded optimum; the commands work."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from puzzles.library import Puzzle, library, load_puzzle, measure, write_puzzle
from solver.solve import solve
from solver.validator import validate

PUZZLES = library()


def test_library_is_bundled() -> None:
    assert len(PUZZLES) >= 6
    assert len({p.id for p in PUZZLES}) == len(PUZZLES)


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p.id for p in PUZZLES])
def test_puzzle_solves_to_its_recorded_optimum(puzzle: Puzzle) -> None:
    best = solve(puzzle.position)
    assert best.tiles_played == puzzle.answer_played
    # The recorded answer is legal and plays that many tiles.
    answer = [list(s) for s in puzzle.answer]
    assert validate(puzzle.position, answer) == []
    played = Counter(t for s in answer for t in s) - puzzle.position.table_tiles
    assert sum(played.values()) == puzzle.answer_played
    # The recorded difficulty is the measured one.
    assert measure(puzzle.position)[0].level == puzzle.difficulty


def test_to_dict_leaves_the_answer_out_on_request() -> None:
    puzzle = PUZZLES[0]
    hidden, shown = puzzle.to_dict(answer=False), puzzle.to_dict()
    assert "answer" not in hidden and hidden == {k: v for k, v in shown.items() if k != "answer"}
    assert shown["answer"]["tiles_played"] == puzzle.answer_played


def test_cli_list_show_check(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = json.loads(runner.invoke(cli, ["puzzles", "list", "--json"]).stdout)
    assert [p["id"] for p in listed] == [p.id for p in PUZZLES]
    assert all(set(p) == {"id", "title", "difficulty"} for p in listed)
    twos = json.loads(runner.invoke(cli, ["puzzles", "list", "--difficulty", "2", "--json"]).stdout)
    assert twos and all(p["difficulty"] == 2 for p in twos)
    shown = json.loads(runner.invoke(cli, ["puzzles", "show", "joker-retrieval", "--json"]).stdout)
    assert set(shown) == {"id", "title", "difficulty", "rack", "table", "initial_meld", "rules"}
    solved = json.loads(runner.invoke(cli, ["puzzles", "show", "joker-retrieval", "--json", "--answer"]).stdout)
    assert solved["answer"]["tiles_played"] == 3
    answer = tmp_path / "answer.txt"
    answer.write_text("R4 J R6 R5\nK1 K2 K3\n")
    checked = runner.invoke(cli, ["puzzles", "check", "joker-retrieval", "--answer", str(answer)])
    assert checked.exit_code == 5 and "Not optimal" in checked.stdout
    missing = runner.invoke(cli, ["puzzles", "show", "nope"])
    assert missing.exit_code == 1 and missing.stderr.startswith("Error: no puzzle 'nope'")


@pytest.mark.parametrize(
    ("asked", "closest"),
    [
        ("nosuch", "split-run, shift-run, group-swap"),  # nothing is close: still the three closest
        ("split-rn", "split-run, shift-run, meld-with-joker"),
        ("joker", "meld-with-joker, joker-retrieval, hold-back"),  # ids holding the word first
        ("big-5", "big-4, big-3, big-2"),
    ],
)
def test_an_unknown_puzzle_names_the_closest_ids(asked: str, closest: str) -> None:
    for command in (["puzzles", "show", asked], ["puzzles", "check", asked, "--answer", "-"]):
        result = CliRunner().invoke(cli, command, input="")
        assert result.exit_code == 1 and result.stdout == ""
        assert result.stderr == (
            f"Error: no puzzle {asked!r}; the closest: {closest} ('rummikub puzzles list' lists all {len(PUZZLES)})\n"
        )


@pytest.mark.parametrize("command", ["solve", "hint", "check"])
def test_a_puzzle_id_given_as_a_position_file(command: str) -> None:
    extra = ["--answer", "-"] if command == "check" else []
    result = CliRunner().invoke(cli, [command, "big-4", *extra], input="")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "Error: cannot read position file big-4: no such file; did you mean `rummikub puzzles show big-4`?\n"
    )
    near = CliRunner().invoke(cli, [command, "big4", *extra], input="")
    assert near.stderr == (
        "Error: cannot read position file big4: no such file (puzzles with a similar id: big-4, big-3,"
        " big-2; `rummikub puzzles show ID` shows one)\n"
    )
    far = CliRunner().invoke(cli, [command, "no/such/position.txt", *extra], input="")
    assert far.stderr == "Error: cannot read position file no/such/position.txt: no such file\n"


def test_record_writes_difficulty_and_answer(tmp_path: Path) -> None:
    path = tmp_path / "new.txt"
    path.write_text("id: new\ntitle: Two runs\nrack: R4 B9\ntable:\n  R1 R2 R3\n  B6 B7 B8\n")
    result = CliRunner().invoke(cli, ["puzzles", "record", str(path)])
    assert result.exit_code == 0
    puzzle = load_puzzle(str(path))
    assert (puzzle.difficulty, puzzle.answer_played) == (1, 2)
    again = CliRunner().invoke(cli, ["puzzles", "record", str(path)])  # idempotent
    assert again.exit_code == 0 and load_puzzle(str(path)) == puzzle


@pytest.mark.parametrize(("mark", "newline"), [(b"", b"\r\n"), (b"\xef\xbb\xbf", b"\n"), (b"\xef\xbb\xbf", b"\r\n")])
def test_record_keeps_the_files_line_endings_and_byte_order_mark(tmp_path: Path, mark: bytes, newline: bytes) -> None:
    path = tmp_path / "new.txt"
    lines = [b"# from a Windows editor", b"id: new", b"rack: R4 B9", b"table:", b"\tR1 R2 R3", b"\tB6 B7 B8"]
    path.write_bytes(mark + newline.join(lines) + newline)
    assert CliRunner().invoke(cli, ["puzzles", "record", str(path)]).exit_code == 0
    written = path.read_bytes()
    assert written.startswith(mark + newline.join(lines) + newline + b"difficulty: 1" + newline)
    assert written.count(newline) == len(written.splitlines()) and written.count(b"\xef\xbb\xbf") == len(mark) // 3


def test_record_refuses_standard_input() -> None:
    """It writes into the file it reads: standard input has no file to write into."""
    result = CliRunner().invoke(cli, ["puzzles", "record", "-"], input="rack: R4 B9\ntable:\n  R1 R2 R3\n")
    assert result.exit_code == 2
    assert result.stderr.endswith("Error: puzzles record writes into its FILE: give a path, not - (standard input)\n")


def _svg_tiles(path: Path) -> list[str]:
    """The tiles a picture draws, in order (each tile's <title>)."""
    import xml.etree.ElementTree as ET

    svg = "{http://www.w3.org/2000/svg}"
    groups = [g for g in ET.parse(path).getroot().iter(f"{svg}g") if "tile" in g.get("class", "")]
    return [str(g.findtext(f"{svg}title")) for g in groups]


def test_show_gives_the_answer_away_only_when_asked(tmp_path: Path) -> None:
    """Text, JSON and picture show the puzzle; --answer adds the recorded answer to all three."""
    puzzle = next(p for p in PUZZLES if p.id == "split-run")
    shown_tiles = [str(t) for t in puzzle.position.rack] + [str(t) for s in puzzle.position.table for t in s]
    runner = CliRunner()
    picture = tmp_path / "puzzle.svg"
    text = runner.invoke(cli, ["puzzles", "show", "split-run", "--svg", str(picture)])
    assert text.exit_code == 0 and text.stderr == ""
    assert "Answer" not in text.stdout and "[B8]" not in text.stdout
    assert _svg_tiles(picture) == shown_tiles  # the rack and the table, nothing after the move
    assert "after" not in picture.read_text()
    solved_picture = tmp_path / "answer.svg"
    solved = runner.invoke(cli, ["puzzles", "show", "split-run", "--answer", "--svg", str(solved_picture)])
    assert solved.exit_code == 0
    assert "Answer:\nBest move: play 1 tile (8 points): [B8]" in solved.stdout
    assert "  B6 B7 [B8]    rebuilt" in solved.stdout
    drawn = _svg_tiles(solved_picture)
    assert drawn[: len(shown_tiles)] == shown_tiles
    assert Counter(drawn[len(shown_tiles) :]) == Counter(str(t) for s in puzzle.answer for t in s)


def test_generated_puzzle_hides_its_answer_too() -> None:
    runner = CliRunner()
    shown = json.loads(runner.invoke(cli, ["puzzles", "generate", "--difficulty", "1", "--json"]).stdout)
    assert "answer" not in shown
    solved = json.loads(
        runner.invoke(cli, ["puzzles", "generate", "--difficulty", "1", "--json", "--answer"]).stdout
    )
    assert solved["answer"]["tiles_played"] >= 1
    assert {k: v for k, v in solved.items() if k != "answer"} == shown


def test_recorded_answer_as_a_solution_is_the_recorded_table() -> None:
    for puzzle in PUZZLES:
        answer = puzzle.answer_solution()
        assert answer.tiles_played == puzzle.answer_played
        assert sorted(sorted(s.tiles) for s in answer.table) == sorted(sorted(s) for s in puzzle.answer)
@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p.id for p in PUZZLES])
def test_a_puzzle_written_reads_back_as_the_same_puzzle(puzzle: Puzzle, tmp_path: Path) -> None:
    path = tmp_path / f"{puzzle.id}.txt"
    write_puzzle(puzzle, path)
    again = load_puzzle(str(path))
    assert again.to_dict() == puzzle.to_dict()
    assert again.position.notes.split() == puzzle.position.notes.split()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no side file left behind


GENERATED = [p for p in library() if p.id.startswith("gen-")]


@pytest.mark.parametrize("puzzle", GENERATED, ids=[p.id for p in GENERATED])
def test_a_bundled_generated_puzzle_is_its_seeds_puzzle(puzzle: Puzzle) -> None:
    """Its notes say `rummikub puzzles generate --difficulty L --seed S` made it: a change to the
    generator or the level measure that makes another puzzle from that seed shows here."""
    from puzzles.generate import generated_puzzle

    _, level, seed = puzzle.id.split("-")
    made = generated_puzzle(int(level), int(seed))
    assert (made.position.rack, made.position.table) == (puzzle.position.rack, puzzle.position.table)
    assert (made.difficulty, made.answer_played, made.answer) == (puzzle.difficulty, puzzle.answer_played, puzzle.answer)
