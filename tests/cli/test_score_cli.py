"""Tests of ``rummikub score`` (new, round, fix, show) through click's CliRunner.

Each test checks stdout, stderr and the exit status separately: 0 ok, 1 bad input (one line
"Error: ..." on stderr, the file left as it was), 2 usage error. Expected scores are worked out by
hand from docs/rules.md, "End of a round and scoring".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from cli.main import cli


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli, ["score", *args])
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def error(*args: str, code: int = 1) -> str:
    """The one-line error of a failing command (nothing on stdout)."""
    result = run(*args)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    if code == 1:
        assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


def shown(path: Path) -> dict[str, Any]:
    data = json.loads(ok("show", str(path), "--json"))
    assert isinstance(data, dict)
    return data


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """A new standard sheet for four players, A B C D."""
    path = tmp_path / "game.json"
    said = ok("new", str(path), "--players", "A,B,C,D")  # a long path breaks the line at 80 columns
    assert " ".join(said.split()) == f"{path}: A, B, C, D; standard scoring, joker 30."
    return path


@pytest.fixture
def club(tmp_path: Path) -> Path:
    """A new club sheet for Ann, Bob and Cy (joker 100)."""
    path = tmp_path / "club.json"
    ok("new", str(path), "--players", "Ann,Bob,Cy", "--scoring", "club")
    return path


# --------------------------------------------------------------------------- new


def test_new_refuses_to_overwrite_unless_forced(game: Path) -> None:
    before = game.read_text()
    ok("round", str(game), "--winner", "A", "--rack", "B=5", "--rack", "C=10", "--rack", "D=3")
    played = game.read_text()
    assert played != before
    message = error("new", str(game), "--players", "X,Y")
    assert message == f"Error: score file {game} already exists (use --force to overwrite it)\n"
    assert game.read_text() == played
    ok("new", str(game), "--players", "X,Y", "--force")
    assert shown(game)["players"] == ["X", "Y"] and shown(game)["rounds"] == []


@pytest.mark.parametrize(
    "args, code, problem",
    [
        (["--players", "Ann"], 1, "1 player, a game has 2 to 6"),
        (["--players", "A,B,C,D,E,F,G"], 1, "7 players"),
        (["--players", "Ann,ann"], 1, "player 'ann' is named twice"),
        (["--players", "A,B", "--joker-penalty", "40"], 2, "'40' is not one of"),
        (["--players", "A,B", "--scoring", "rummy"], 2, "'rummy' is not one of"),
        ([], 2, "Missing option '--players'"),
    ],
)
def test_new_errors(tmp_path: Path, args: list[str], code: int, problem: str) -> None:
    path = tmp_path / "g.json"
    assert problem in error("new", str(path), *args, code=code)
    assert not path.exists()


@pytest.mark.parametrize(
    "args, joker",
    [([], 30), (["--scoring", "club"], 100), (["--scoring", "club", "--joker-penalty", "50"], 50)],
)
def test_new_joker_penalty(tmp_path: Path, args: list[str], joker: int) -> None:
    path = tmp_path / "g.json"
    ok("new", str(path), "--players", "Ann,Bob", *args)
    assert shown(path)["joker_penalty"] == joker
    assert json.loads(path.read_text())["settings"]["joker_penalty"] == joker


# --------------------------------------------------------------------------- round and show


def test_rules_example_round(game: Path) -> None:
    # docs/rules.md: A wins; B holds 5, C 10, D 3 → A +18, B −5, C −10, D −3.
    out = ok("round", str(game), "--winner", "A", "--rack", "B=R5", "--rack", "C=K4 B6", "--rack", "D=3")
    assert out.splitlines()[0] == "Round 1: A wins."
    assert out.splitlines()[1].split() == ["A", "+18", "total", "18"]
    data = shown(game)
    assert data["rounds"][0]["scores"] == {"A": 18, "B": -5, "C": -10, "D": -3}
    assert data["rounds"][0]["racks"] == {"B": "R5", "C": "K4 B6", "D": 3}
    assert data["totals"] == {"A": 18, "B": -5, "C": -10, "D": -3}
    assert [s["player"] for s in data["standings"]] == ["A", "D", "B", "C"]
    assert "big_points" not in data


def test_a_whole_club_game(club: Path) -> None:
    f = str(club)
    ok("round", f, "--winner", "Ann", "--rack", "Bob=R5 K12 J", "--rack", "Cy=23")  # Bob 117
    # Blocked: Bob has the lowest rack (5); Ann loses 7-5, Cy never opened: flat 100.
    out = ok(
        "round",
        f,
        "--blocked",
        "--rack",
        "Ann=R3 R4",
        "--rack",
        "Bob=R2 R3",
        "--rack",
        "Cy=O13",
        "--never-opened",
        "Cy",
    )
    assert out.splitlines()[0] == "Round 2: Bob wins (blocked; Cy never opened)."
    ok("round", f, "--winner", "Bob", "--rack", "Ann=3", "--rack", "Cy=1", "--could-have-opened", "Cy")
    data = shown(club)
    assert [r["scores"] for r in data["rounds"]] == [
        {"Ann": 140, "Bob": -117, "Cy": -23},
        {"Ann": -2, "Bob": 102, "Cy": -100},
        {"Ann": -3, "Bob": 203, "Cy": -200},
    ]
    assert [r["running_totals"]["Bob"] for r in data["rounds"]] == [-117, -15, 188]
    assert data["big_points"] == {"Ann": 1, "Bob": 2, "Cy": 0}
    assert data["small_points"] == data["totals"] == {"Ann": 135, "Bob": 188, "Cy": -323}
    assert data["standings"] == [
        {"rank": 1, "player": "Bob", "total": 188, "big_points": 2, "small_points": 188},
        {"rank": 2, "player": "Ann", "total": 135, "big_points": 1, "small_points": 135},
        {"rank": 3, "player": "Cy", "total": -323, "big_points": 0, "small_points": -323},
    ]
    text = ok("show", f)
    lines = text.splitlines()
    assert lines[0] == "Ann, Bob, Cy: club scoring, joker 100; 3 rounds."
    assert lines[2].split() == ["Round", "Winner", "Ann", "Bob", "Cy"]
    assert lines[3].split() == ["1", "Ann", "+140", "(140)", "-117", "(-117)", "-23", "(-23)"]
    assert lines[4].split()[-2:] == ["never", "opened"] and "blocked" in lines[4]
    assert lines[6].split() == ["Big", "points", "1", "2", "0"]
    assert lines[7].split() == ["Small", "points", "135", "188", "-323"]
    assert "1. Bob  2 big, +188 small" in text


def test_blocked_round_standard_with_named_winner(game: Path) -> None:
    f = str(game)
    racks = ["--rack", "A=R2 R3", "--rack", "B=J", "--rack", "C=5", "--rack", "D=K13"]
    # A and C tie at 5: naming either settles the tie.
    ok("round", f, "--blocked", "--winner", "C", *racks)
    # Standard: everyone else loses the whole rack (joker 30).
    assert shown(game)["rounds"][0]["scores"] == {"A": -5, "B": -30, "C": 48, "D": -13}


def test_blocked_round_errors(game: Path) -> None:
    f = str(game)
    racks = ["--rack", "A=4", "--rack", "B=9", "--rack", "C=5", "--rack", "D=9"]
    assert error("round", f, "--blocked", "--winner", "B", *racks) == (
        "Error: --winner 'B': B's rack (9) is not the lowest in a blocked round (A has 4)\n"
    )
    tied = ["--rack", "A=4", "--rack", "B=4", "--rack", "C=5", "--rack", "D=9"]
    assert "A and B tie for the lowest rack (4): name the winner" in error("round", f, "--blocked", *tied)
    assert "--rack: missing for D (a blocked round needs every player's rack)" in error(
        "round", f, "--blocked", *racks[:6]
    )
    assert shown(game)["rounds"] == []


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--winner", "Ann", "--rack", "Bob=5", "--rack", "Bob=3", "--rack", "Cy=1"],
            "--rack 'Bob=3': Bob's rack is given twice",
        ),
        (
            ["--winner", "Ann", "--rack", "Bobby=5", "--rack", "Cy=1"],
            "--rack 'Bobby=5': unknown player 'Bobby' (players: Ann, Bob, Cy)",
        ),
        (
            ["--winner", "Zed", "--rack", "Bob=5", "--rack", "Cy=1"],
            "--winner 'Zed': unknown player (players: Ann, Bob, Cy)",
        ),
        (
            ["--winner", "Ann", "--rack", "Bob=R5 X12", "--rack", "Cy=1"],
            "--rack 'Bob=R5 X12': invalid tile 'X12': unknown colour 'X'",
        ),
        (
            ["--winner", "Ann", "--rack", "Bob=R14", "--rack", "Cy=1"],
            "--rack 'Bob=R14': invalid tile 'R14': numbers run 1..13",
        ),
        (
            ["--winner", "Ann", "--rack", "Bob 5", "--rack", "Cy=1"],
            "--rack 'Bob 5': write NAME=TILES or NAME=SUM",
        ),
        (["--winner", "Ann", "--rack", "Bob=5"], "--rack: missing for Cy"),
        (["--rack", "Bob=5", "--rack", "Cy=1"], "--winner: required: who emptied the rack"),
        (
            ["--winner", "Ann", "--rack", "Ann=2", "--rack", "Bob=5", "--rack", "Cy=1"],
            "--rack 'Ann=2': Ann won the round",
        ),
        (
            ["--winner", "Ann", "--rack", "Bob=5", "--rack", "Cy=1", "--never-opened", "Cy"],
            "--never-opened 'Cy': standard scoring has no never-opened penalty",
        ),
    ],
)
def test_round_errors(tmp_path: Path, args: list[str], message: str) -> None:
    path = tmp_path / "g.json"
    ok("new", str(path), "--players", "Ann,Bob,Cy")
    before = path.read_text()
    assert error("round", str(path), *args).startswith(f"Error: {message}")
    assert path.read_text() == before  # nothing was saved


def test_club_flag_errors(club: Path) -> None:
    f = str(club)
    racks = ["--winner", "Ann", "--rack", "Bob=5", "--rack", "Cy=1"]
    assert error("round", f, *racks, "--never-opened", "Cy", "--never-opened", "cy").startswith(
        "Error: --never-opened 'cy': Cy is named twice"
    )
    assert error("round", f, *racks, "--could-have-opened", "Ann").startswith(
        "Error: --could-have-opened 'Ann': Ann went out, so opened"
    )
    ok("round", f, *racks, "--never-opened", "Bob,Cy")
    assert shown(club)["rounds"][0]["never_opened"] == ["Bob", "Cy"]


# --------------------------------------------------------------------------- fix


def test_fix_replaces_a_round_and_keeps_the_others(game: Path) -> None:
    f = str(game)
    ok("round", f, "--winner", "A", "--rack", "B=5", "--rack", "C=10", "--rack", "D=3")
    ok("round", f, "--winner", "B", "--rack", "A=1", "--rack", "C=1", "--rack", "D=1")
    # Round 1's C really held 12.
    out = ok("fix", f, "1", "--winner", "A", "--rack", "B=5", "--rack", "C=12", "--rack", "D=3")
    assert out.splitlines()[0] == "Round 1 corrected: A wins."
    data = shown(game)
    assert [r["scores"]["A"] for r in data["rounds"]] == [20, -1]
    assert data["totals"] == {"A": 19, "B": -2, "C": -13, "D": -4}
    assert json.loads(game.read_text())["rounds"][0]["racks"]["C"] == 12


def test_fix_errors(game: Path) -> None:
    f = str(game)
    ok("round", f, "--winner", "A", "--rack", "B=5", "--rack", "C=10", "--rack", "D=3")
    before = game.read_text()
    racks = ["--winner", "A", "--rack", "B=5", "--rack", "C=10", "--rack", "D=3"]
    assert error("fix", f, "2", *racks) == "Error: round 2 does not exist (the sheet has rounds 1 to 1)\n"
    assert error("fix", f, "0", *racks).startswith("Error: round 0 does not exist")
    assert error("fix", f, "1", "--winner", "A", "--rack", "B=Q5").startswith(
        "Error: --rack 'B=Q5': invalid tile"
    )
    assert "'one' is not a valid integer" in error("fix", f, "one", *racks, code=2)
    assert game.read_text() == before


# --------------------------------------------------------------------------- the file


def test_reopen_and_continue(game: Path) -> None:
    f = str(game)
    ok("round", f, "--winner", "A", "--rack", "B=J", "--rack", "C=10", "--rack", "D=3")
    first = shown(game)
    # Every command reopens the file: a later round adds to what was saved.
    ok("round", f, "--winner", "D", "--rack", "A=1", "--rack", "B=1", "--rack", "C=1")
    second = shown(game)
    assert second["rounds"][0] == first["rounds"][0]
    assert second["totals"] == {"A": 42, "B": -31, "C": -11, "D": 0}


@pytest.mark.parametrize(
    "content, problem",
    [
        ("{not json", " line 1: not valid JSON: Expecting property name enclosed in double quotes at column 2"),
        ("[" * 100_000, ": not valid JSON: nested too deeply or too large a number"),
        ('{"format": "something-else"}', "is not a score sheet"),
        (
            '{"format": "rummikub-score-sheet", "version": 9, "settings": {}, "players": [], "rounds": []}',
            "format version 9 is not supported",
        ),
    ],
)
def test_corrupt_files(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "g.json"
    path.write_text(content)
    for command in (["show", str(path)], ["round", str(path), "--winner", "A", "--rack", "B=1"]):
        message = error(*command)
        assert message.startswith(f"Error: score file {path}") and problem in message
    assert path.read_text() == content


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    assert error("show", str(path)) == f"Error: cannot read score file {path}: no such file\n"
    assert not path.exists()


def test_hand_edited_file_is_rescored(game: Path) -> None:
    ok("round", str(game), "--winner", "A", "--rack", "B=5", "--rack", "C=10", "--rack", "D=3")
    game.write_text(game.read_text().replace('"C": 10', '"C": "R13"'))
    assert shown(game)["rounds"][0]["scores"] == {"A": 21, "B": -5, "C": -13, "D": -3}


def test_every_score_command_has_help() -> None:
    for command in ([], ["new"], ["round"], ["fix"], ["show"]):
        out = ok(*command, "--help")
        assert out.startswith("Usage: ")


def test_the_sheet_fits_80_columns(tmp_path: Path) -> None:
    three = tmp_path / "three.json"
    ok("new", str(three), "--players", "Ann,Bob,Cy", "--scoring", "club")
    ok("round", str(three), "--blocked", "--rack", "Ann=R3 R4", "--rack", "Bob=R2 R3", "--rack", "Cy=O13",
       "--never-opened", "Cy", "--could-have-opened", "Ann")
    six = tmp_path / "six.json"
    names = ["Alexandria", "Bartholomew", "Christopher", "Dominique", "Evangeline", "Fitzgerald"]
    ok("new", str(six), "--players", ",".join(names))
    ok("round", str(six), "--winner", "Alexandria", *[f"--rack={n}=R{i + 2}" for i, n in enumerate(names[1:])])
    for path in (three, six):
        shown = ok("show", str(path))
        assert max(len(line) for line in shown.splitlines()) <= 80, shown
        assert "Cy never opened; Ann could have opened" in shown if path is three else "Round 1: Alexandria wins." in shown


def test_wide_names_keep_the_columns_straight(tmp_path: Path) -> None:
    """A name in CJK characters takes two columns a character: the columns below it line up."""
    path = tmp_path / "wide.json"
    ok("new", str(path), "--players", "李明,Bob,Ann")
    ok("round", str(path), "--winner", "李明", "--rack", "Bob=R5", "--rack", "Ann=K13")
    table = ok("show", str(path)).splitlines()
    header = next(line for line in table if line.startswith("Round"))
    row = next(line for line in table if line.startswith("1 "))
    assert header.index("Bob") + len("Bob") + 1 == len(row.split("(-5)")[0]) + len("(-5)") + 1  # ends align
    assert "  1. 李明  +18" in table
