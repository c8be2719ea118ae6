"""Tests of the ``rummikub`` command line, through click's CliRunner.

Each test checks stdout, stderr and the exit status separately. Exit statuses: 0 ok (also "no
move" and time_limit), 1 bad input, 2 usage error, 3 backend failure, 4 internal error. An error
is one line "Error: ..." on stderr, and no traceback may ever reach the user.

Expected answers were worked out by hand from the rules (docs/rules.md).
"""

from __future__ import annotations

import json
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from cli import entry
from cli.main import cli, main
from solver.melds import is_valid
from solver.rules import RuleSet, Wrap
from solver.tiles import parse_token
from tests import paths

DATA = paths.DATA / "cli"
BACKENDS = ["bnb", "cbc", "cpsat", "highs"]
JSON_KEYS = {"status", "tiles_played", "points_played", "played", "rack", "table", "backend", "seconds"}


# --------------------------------------------------------------------------- helpers


def run(args: list[str], input: str | bytes | None = None) -> Result:
    """Invoke the CLI; whatever happens, no traceback and no stray Python exception."""
    result = CliRunner().invoke(cli, [str(a) for a in args], input=input)
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def solve_json(args: list[str], input: str | None = None) -> dict[str, Any]:
    """``solve --json``: exit 0, nothing on stderr, exactly one JSON line on stdout."""
    result = run(["solve", *args, "--json"], input)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.count("\n") == 1
    data = json.loads(result.stdout)
    assert set(data) >= JSON_KEYS
    return data


def write(directory: Path, name: str, content: str | bytes) -> str:
    path = directory / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(path)


def sets_multiset(table: list[list[str]] | list[str]) -> Counter:
    """A table as a multiset of sets (each set a sorted tuple): order of sets/tiles is free."""
    sets = [s.split() if isinstance(s, str) else s for s in table]
    return Counter(tuple(sorted(s)) for s in sets)


def tiles_multiset(items: list[str]) -> Counter:
    return Counter(str(t) for item in items for t in parse_token(item))


def check_move(data: dict[str, Any], rack: str, table: list[str], rules: RuleSet | None = None) -> None:
    """The JSON describes a legal whole-table answer: tiles are conserved and every set is valid."""
    rules = rules or RuleSet()
    before = tiles_multiset([t for s in table for t in s.split()])
    after = Counter(t for s in data["table"] for t in s)
    # The table after the move is the old table plus exactly the tiles played.
    assert after == before + Counter(data["played"])
    # The rack left plus the tiles played is the rack given.
    assert Counter(data["rack"]) + Counter(data["played"]) == tiles_multiset(rack.split())
    assert data["tiles_played"] == len(data["played"])
    for s in data["table"]:
        assert is_valid([parse_token(t, rules)[0] for t in s], rules), s
    if data["status"] == "no_move":
        assert data["played"] == []
        assert sets_multiset(data["table"]) == sets_multiset(table)


def position_args(tmp_path: Path, rack: str, table: list[str]) -> list[str]:
    args = ["--rack", write(tmp_path, "rack.txt", rack + "\n")]
    if table:
        args += ["--table", write(tmp_path, "table.txt", "\n".join(table) + "\n")]
    return args


# --------------------------------------------------------------------------- 1. solve: output


def test_text_output_is_plain_when_not_a_terminal(tmp_path: Path) -> None:
    # CliRunner's stdout is not a terminal: no ANSI codes, rack tiles marked [R5].
    result = run(["solve", *position_args(tmp_path, "R5 B7 O7", ["R4 J R6"])])
    assert result.exit_code == 0
    assert result.stderr == ""
    out = result.stdout
    assert "\x1b[" not in out
    assert "Best move: play 3 tiles (19 points):" in out
    for t in ("[R5]", "[B7]", "[O7]"):
        assert t in out
    assert "Table after the move (2 sets):" in out
    assert "R4 [R5] R6" in out  # the table tiles stay unmarked
    assert "Left on your rack (0): nothing" in out


def test_color_option_forces_ansi_and_no_color_removes_it(tmp_path: Path) -> None:
    args = ["solve", *position_args(tmp_path, "R5 B7 O7", ["R4 J R6"])]
    coloured = run([*args, "--color"])
    assert coloured.exit_code == 0 and "\x1b[" in coloured.stdout
    plain = run([*args, "--no-color"])
    assert plain.exit_code == 0 and "\x1b[" not in plain.stdout and "[R5]" in plain.stdout


def test_text_output_no_move(tmp_path: Path) -> None:
    result = run(["solve", *position_args(tmp_path, "R1 R2 R3 K5", []), "--initial-meld"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[:2] == [  # within 80 columns
        "No move: draw a tile (this turn is the initial meld: new sets from your rack",
        "    worth at least 30 points).",
    ]
    assert "Left on your rack (4): K5 R1 R2 R3" in result.stdout


# (rack, table, tiles played, points played) worked out by hand.
KNOWN = [
    # R5 goes between R4 and R6, freeing the joker for B7 O7 J.
    pytest.param("R5 B7 O7", ["R4 J R6"], 3, 19, id="joker-freed-by-R5"),
    # B10 O10 R10 stays a group without its joker, which is free to make K11 K12 J.
    pytest.param("K11 K12", ["B10 O10 R10 J"], 2, 23, id="free-joker-from-group"),
    # The run R3-R6 stays valid without its joker; B3 O3 J is a new group.
    pytest.param("B3 O3", ["R3 R4 R5 R6 J"], 2, 6, id="joker-off-run-end"),
    # docs/rules.md example: table R3 R4 R5, rack R2 B5 O5 -> R2 R3 R4 and R5 B5 O5.
    pytest.param("R2 B5 O5", ["R3 R4 R5"], 3, 12, id="rules-example-split"),
    # Nothing fits anywhere.
    pytest.param("K1 B9", ["R3 R4 R5"], 0, 0, id="nothing-fits"),
]


@pytest.mark.parametrize("rack, table, tiles, points", KNOWN)
def test_json_known_positions(tmp_path: Path, rack: str, table: list[str], tiles: int, points: int) -> None:
    data = solve_json(position_args(tmp_path, rack, table))
    assert data["tiles_played"] == tiles
    assert data["points_played"] == points
    assert data["status"] == ("optimal" if tiles else "no_move")
    assert data["backend"] == "bnb"  # the default backend
    assert isinstance(data["seconds"], (int, float)) and data["seconds"] >= 0
    check_move(data, rack, table)


def test_json_empty_rack_is_no_move(tmp_path: Path) -> None:
    # An empty rack file: nothing to play, the table stays as it was, exit 0 (and a warning).
    result = run(["solve", *position_args(tmp_path, "", ["R3 R4 R5 R6 J"]), "--json"])
    assert result.exit_code == 0 and result.stderr.startswith("Warning: the rack file ")
    data = json.loads(result.stdout)
    assert data["status"] == "no_move"
    assert data["tiles_played"] == 0 and data["played"] == [] and data["rack"] == []
    assert sets_multiset(data["table"]) == sets_multiset(["R3 R4 R5 R6 J"])


def test_initial_meld_plays_33_points(tmp_path: Path) -> None:
    # R10 R11 R12 = 33 >= 30; K1 K2 cannot form a set on their own.
    data = solve_json([*position_args(tmp_path, "R10 R11 R12 K1 K2", []), "--initial-meld"])
    assert data["status"] == "optimal"
    assert (data["tiles_played"], data["points_played"]) == (3, 33)
    assert sorted(data["played"]) == ["R10", "R11", "R12"]
    assert sorted(data["rack"]) == ["K1", "K2"]
    assert data["initial_meld"] is True


def test_initial_meld_below_threshold_is_no_move(tmp_path: Path) -> None:
    # R1 R2 R3 is only 6 points: not an opening, so draw.
    data = solve_json([*position_args(tmp_path, "R1 R2 R3 K5", []), "--initial-meld"])
    assert data["status"] == "no_move"
    assert data["tiles_played"] == 0
    assert sorted(data["rack"]) == ["K5", "R1", "R2", "R3"]
    assert data["table"] == []


def test_initial_meld_may_not_touch_the_table(tmp_path: Path) -> None:
    # Opened, R5 B7 O7 rebuilds R4 J R6; before opening the table is off limits (19 < 30 anyway).
    data = solve_json([*position_args(tmp_path, "R5 B7 O7", ["R4 J R6"]), "--initial-meld"])
    assert data["status"] == "no_move"
    assert sets_multiset(data["table"]) == sets_multiset(["R4 J R6"])


# --------------------------------------------------------------------------- 2. backends, objective


BACKEND_POSITIONS = [
    ("R5 B7 O7", ["R4 J R6"]),
    ("K11 K12", ["B10 O10 R10 J"]),
    ("B3 O3", ["R3 R4 R5 R6 J"]),
    ("R2 B5 O5", ["R3 R4 R5"]),
    ("K1 K2 K4 B13 R13 J", []),
    ("K7 B7 R8 O8", ["K8 B8 R8"]),
    ("R10 R11 B12 O12", ["K12 R12 B12", "R9 R10 R11"]),
]


@pytest.mark.parametrize("objective", ["tiles", "points"])
@pytest.mark.parametrize("rack, table", BACKEND_POSITIONS)
def test_backends_agree(tmp_path: Path, rack: str, table: list[str], objective: str) -> None:
    # Optimal answers may differ in shape but never in value.
    answers = []
    for backend in BACKENDS:
        data = solve_json([*position_args(tmp_path, rack, table), "--backend", backend,
                           "--objective", objective])
        assert data["backend"] == backend
        assert data["objective"] == objective
        check_move(data, rack, table)
        answers.append(data)
    # The objective is lexicographic (tiles, points, kept sets): every backend agrees on all three.
    values = {(a["status"], a["tiles_played"], a["points_played"], a["kept_sets"]) for a in answers}
    assert len(values) == 1, answers


def test_objective_points_prefers_value_over_count(tmp_path: Path, backend: str) -> None:
    # K1 K2 J K4 is 4 tiles (37 points: joker 30); B13 R13 J is 3 tiles but 56 points.
    args = [*position_args(tmp_path, "K1 K2 K4 B13 R13 J", []), "--opened", "--backend", backend]
    tiles = solve_json([*args, "--objective", "tiles"])
    assert (tiles["tiles_played"], tiles["points_played"]) == (4, 37)
    points = solve_json([*args, "--objective", "points"])
    assert (points["tiles_played"], points["points_played"]) == (3, 56)
    assert sorted(points["played"]) == ["B13", "J", "R13"]


def test_joker_penalty_changes_points_objective(tmp_path: Path) -> None:
    # With a joker worth 0, B13 R13 J is worth 26 and K1 K2 J K4 only 7: still 26 wins.
    data = solve_json([*position_args(tmp_path, "K1 K2 K4 B13 R13 J", []), "--opened", "--objective", "points",
                       "--joker-penalty", "0"])
    assert data["points_played"] == 26


# --------------------------------------------------------------------------- 3. position files


def test_position_file_with_every_key() -> None:
    data = solve_json([str(DATA / "wrap_american.txt")])
    assert data["id"] == "p1"
    assert data["status"] == "optimal"
    assert data["played"] == ["R11"] and data["rack"] == ["K5"]
    assert sets_multiset(data["table"]) == sets_multiset(["R11 R12 R13 R1", "K1 K2 K3"])
    check_move(data, "R11 K5", ["R12 R13 R1", "K1 K2 K3"], RuleSet(wrap=Wrap.AMERICAN))


def test_position_file_title_in_text_output() -> None:
    result = run(["solve", str(DATA / "wrap_american.txt")])
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.splitlines()[0] == "Wrap test"
    assert "[R11] R12 R13 R1" in result.stdout


def test_cli_rule_option_overrides_position_file() -> None:
    # The file says wrap=american; --wrap none makes its table set R12 R13 R1 invalid.
    result = run(["solve", str(DATA / "wrap_american.txt"), "--wrap", "none"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ")
    assert "R12 R13 R1" in result.stderr and "wrap_american.txt line 8" in result.stderr


def test_position_file_rules_apply_and_cli_threshold_overrides() -> None:
    path = str(DATA / "meld_threshold.txt")
    # File: meld-threshold=40, opened: no -> R10 R11 R12 (33) is not enough.
    assert solve_json([path])["status"] == "no_move"
    # Explicit --meld-threshold 30 wins over the file.
    data = solve_json([path, "--meld-threshold", "30"])
    assert (data["tiles_played"], data["points_played"]) == (3, 33)
    assert data["initial_meld"] is True


def test_opened_option_overrides_position_file() -> None:
    # File says opened: no; --opened lets the player play R10 R11 R12 without any threshold.
    data = solve_json([str(DATA / "meld_threshold.txt"), "--opened"])
    assert data["initial_meld"] is False
    assert data["tiles_played"] == 3


def test_initial_meld_option_overrides_opened_yes() -> None:
    # File says opened: yes; with --initial-meld R11 may not join the table run (and 11 < 30).
    data = solve_json([str(DATA / "wrap_american.txt"), "--initial-meld"])
    assert data["initial_meld"] is True
    assert data["status"] == "no_move"
    assert sets_multiset(data["table"]) == sets_multiset(["R12 R13 R1", "K1 K2 K3"])


def test_json_position_file() -> None:
    # Content starting with '{' is read as a JSON position.
    data = solve_json([str(DATA / "position.json")])
    assert data["id"] == "json-1"
    assert (data["tiles_played"], data["points_played"]) == (3, 19)
    check_move(data, "R5 B7 O7", ["R4 J R6"])


def test_a_puzzles_json_solves_as_a_position(tmp_path: Path) -> None:
    """puzzles show --json, answer and all, then solve of that file: the puzzle's position."""
    shown = run(["puzzles", "show", "big-1", "--json", "--answer"]).stdout
    (tmp_path / "p.json").write_text(shown)
    solved = json.loads(run(["solve", str(tmp_path / "p.json"), "--json"]).stdout)
    assert solved["id"] == "big-1" and solved["tiles_played"] == json.loads(shown)["answer"]["tiles_played"]


def test_json_position_file_rules_and_id(tmp_path: Path) -> None:
    path = write(tmp_path, "p.json", json.dumps(
        {"id": "j1", "rack": "R11", "table": [["R12", "R13", "R1"]], "rules": {"wrap": "american"}}))
    data = solve_json([path])
    assert data["id"] == "j1" and data["played"] == ["R11"]


def test_position_file_table_on_key_line_and_crlf_and_bom(tmp_path: Path) -> None:
    # A set may follow 'table:' on the same line; Windows line ends and a BOM are fine.
    text = "\ufeffrack: R5 B7 O7\r\ntable: R4 J R6\r\n"
    data = solve_json([write(tmp_path, "p.txt", text)])
    assert data["tiles_played"] == 3


def test_shorthands_in_rack(tmp_path: Path) -> None:
    # R1-3 is R1 R2 R3, KBO5 is K5 B5 O5: two new sets, six tiles.
    data = solve_json([write(tmp_path, "p.txt", "opened: yes\nrack: R1-3 KBO5\n")])
    assert data["tiles_played"] == 6 and data["points_played"] == 21


# --------------------------------------------------------------------------- 4. standard input


def test_rack_from_stdin(tmp_path: Path) -> None:
    table = write(tmp_path, "table.txt", "R4 J R6\n")
    data = solve_json(["--rack", "-", "--table", table], input="R5, B7\nO7\n")
    assert data["tiles_played"] == 3


def test_table_from_stdin(tmp_path: Path) -> None:
    rack = write(tmp_path, "rack.txt", "R5 B7 O7\n")
    data = solve_json(["--rack", rack, "--table", "-"], input="R4 J R6\n")
    assert data["tiles_played"] == 3
    check_move(data, "R5 B7 O7", ["R4 J R6"])


def test_position_file_from_stdin() -> None:
    data = solve_json(["-"], input="rack: R5 B7 O7\ntable:\n  R4 J R6\n")
    assert data["tiles_played"] == 3


def test_stdin_errors_are_labelled_stdin() -> None:
    result = run(["solve", "--rack", "-"], input="R5 X5\n")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("Error: ") and "<stdin>" in result.stderr and "'X5'" in result.stderr


def test_both_rack_and_table_from_stdin_is_an_error() -> None:
    result = run(["solve", "--rack", "-", "--table", "-"], input="R5\n")
    # Bad input or usage error: either way refused, one line, nothing on stdout.
    assert result.exit_code in (1, 2)
    assert result.stdout == ""
    assert "Error: " in result.stderr and "standard input" in result.stderr


# --------------------------------------------------------------------------- 5. batch


def test_batch_file_mixed_lines() -> None:
    result = run(["batch", str(DATA / "batch.jsonl")])
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == 5  # one answer per input line, in order; the blank line 4 is skipped
    assert out[0]["id"] == "a" and out[0]["tiles_played"] == 3 and out[0]["status"] == "optimal"
    assert out[1]["line"] == 2 and "JSON" in out[1]["error"]
    assert out[2]["line"] == 3 and "'X5'" in out[2]["error"]
    assert out[3]["line"] == 5 and "'foo'" in out[3]["error"] and "unknown field" in out[3]["error"]
    assert out[4]["id"] == 7 and out[4]["points_played"] == 33 and out[4]["initial_meld"] is True
    for bad in out[1:4]:
        assert set(bad) == {"line", "error"} and "\n" not in bad["error"]
        assert bad["error"].startswith(f"line {bad['line']}: ")
    # Some lines were bad: exit status 1, even though the good ones were answered.
    assert result.exit_code == 1


def test_batch_from_stdin_all_good_exits_0() -> None:
    lines = [
        {"id": "x", "rack": ["R5", "B7", "O7"], "table": [["R4", "J", "R6"]]},
        {"rack": ["K11", "K12"], "table": [["B10", "O10", "R10", "J"]]},
        {"rack": [], "table": []},
    ]
    result = run(["batch", "-"], input="".join(json.dumps(r) + "\n" for r in lines))
    assert result.exit_code == 0 and result.stderr == ""
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o.get("id") for o in out] == ["x", None, None]
    assert [o["tiles_played"] for o in out] == [3, 2, 0]
    assert out[2]["status"] == "no_move"
    for o in out:
        assert set(o) >= JSON_KEYS


@pytest.mark.parametrize("line, words", [
    pytest.param("{bad json", ["JSON"], id="bad-json"),
    pytest.param('{"rack": ["R14"]}', ["'R14'", "1..13"], id="bad-tile"),
    pytest.param('{"rack": ["R1"], "colour": 3}', ["unknown field", "'colour'"], id="unknown-field"),
    pytest.param("[1, 2]", ["JSON object"], id="not-an-object"),
    pytest.param('{"table": []}', ["rack"], id="no-rack"),
    pytest.param('{"rack": ["R1"], "table": [["R1", "R2", "R4"]]}', ["R1 R2 R4", "gap"], id="bad-set"),
    pytest.param('{"rack": ["R1"], "rules": {"wrap": "sideways"}}', ["sideways"], id="bad-rule"),
    pytest.param('{"rack": ["J", "J", "J"]}', ["too many jokers"], id="three-jokers"),
    pytest.param('{"rack": "R1", "rules": {"wrap": "full", "wrap": "none"}}', ["key 'wrap' appears twice"], id="key-twice"),
    pytest.param('{"rack": "R1", "rules": {"numbers": "13"}}', ['numbers="13": must be a whole number'], id="count-as-text"),
    pytest.param('{"rack": "R1", "rules": {"joker-in-meld": "no"}}', ['"no": must be true or false'], id="yes-no-as-text"),
    pytest.param('{"rack": "R1", "rules": {"wrap": 0}}', ["wrap=0: must be a string"], id="choice-as-number"),
])
def test_batch_bad_line_is_reported_and_others_answered(line: str, words: list[str]) -> None:
    good = '{"rack": ["R5", "B7", "O7"], "table": [["R4", "J", "R6"]]}'
    result = run(["batch", "-"], input=f"{good}\n{line}\n{good}\n")
    out = [json.loads(x) for x in result.stdout.splitlines()]
    assert len(out) == 3
    assert out[0]["tiles_played"] == 3 and out[2]["tiles_played"] == 3
    assert out[1]["line"] == 2
    for word in words:
        assert word in out[1]["error"]
    assert result.exit_code == 1


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'\x01\x02{"rack": ["R1"]}\n\x00\x01\n', "is not a text file (binary data at line 2, column 1)"),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, "is not a text file (binary data at line 3, column 1)"),
        ('{"title": "café", "rack": "R1"}\n{"rack": "R1"}\n'.encode("latin-1") * 50, "is not UTF-8 text"),
    ],
)
def test_batch_binary_or_not_utf8_file_is_one_error(tmp_path: Path, content: bytes, problem: str) -> None:
    """One error for the whole file, not one per line."""
    path = write(tmp_path, "lines.jsonl", content)
    result = run(["batch", path])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"Error: batch file {path} {problem}") and result.stderr.count("\n") == 1
    piped = run(["batch", "-"], input=content)
    assert piped.stdout == "" and piped.stderr.startswith(f"Error: batch file <stdin> {problem}")


@pytest.mark.parametrize("good_lines", [1, 100, 1000])
def test_batch_a_later_line_not_utf8_is_that_lines_error_wherever_it_falls(tmp_path: Path, good_lines: int) -> None:
    good = b'{"rack": "R1 R2 R3", "table": ["K1 K2 K3"]}\n'
    path = write(tmp_path, "lines.jsonl", good * good_lines + '{"title": "café", "rack": "R1"}\n'.encode("latin-1") + good)
    result = run(["batch", path])
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.exit_code == 1 and len(out) == good_lines + 2
    assert out[good_lines] == {"line": good_lines + 1, "error": f"line {good_lines + 1}: not UTF-8 text (byte 0xe9 at column 15)"}
    assert all(o["tiles_played"] == 3 for i, o in enumerate(out) if i != good_lines)


def test_batch_skip_goes_on_after_an_interrupted_run(tmp_path: Path) -> None:
    """--skip N leaves out the first N positions (blank lines not counted), so the answers of a
    run stopped after N lines and of the run that goes on make the whole run's answers."""
    batch = tmp_path / "in.jsonl"
    batch.write_text(
        '{"rack":"R5 B7 O7","table":["R4 J R6"]}\n\n{"rack":"R1","table":[]}\nnot json\n{"rack":"K1 K2 K3","table":[]}\n'
    )
    whole = run(["batch", batch, "--no-timing"]).stdout.splitlines()
    assert len(whole) == 4
    for skip in range(5):
        rest = run(["batch", batch, "--no-timing", "--skip", skip])
        assert rest.stdout.splitlines() == whole[skip:]
        assert rest.exit_code == (1 if skip <= 2 else 0)  # the bad line keeps its number, line 4
    assert '"line": 4' in whole[2]
    beyond = run(["batch", batch, "--no-timing", "--skip", 5])
    assert beyond.exit_code == 0 and beyond.stdout == ""
    assert beyond.stderr == f"Warning: batch file {batch} holds 4 positions: --skip 5 left out every one\n"


def test_batch_skips_blank_lines_and_shapes_every_error(tmp_path: Path) -> None:
    lines = [
        "",
        '{"rack": "R1", "table": ["R2 R3 R4"]}',
        "   ",
        '{"rack": "X1"}',
        '{"rack": "R1", "table": ["R1 R2"]}',
        "{bad",
        '{"rack": ["J", "J", "J"]}',
        "\t",
        '{"rack": "R1", "table": ["R1 R2 R3", "R1 R2 R3"]}',
        '{"rack": "R1", "colour": 1}',
        "[1]",
        "",
    ]
    result = run(["batch", "-", "--no-timing"], input="\r\n".join(lines))
    assert result.exit_code == 1 and result.stderr == ""
    out = [json.loads(x) for x in result.stdout.splitlines()]
    assert out[0]["tiles_played"] == 1
    errors = out[1:]
    assert [e["line"] for e in errors] == [4, 5, 6, 7, 9, 10, 11]
    for e in errors:
        assert set(e) == {"line", "error"}
        assert e["error"].startswith(f"line {e['line']}: ") and e["error"].count(f"line {e['line']}") == 1
    assert errors[0]["error"] == "line 4: invalid tile 'X1' in rack: unknown colour 'X' (colours are K B R O)"
    assert errors[1]["error"] == "line 5: invalid set 'R1 R2' in table set 1: too short: 2 tiles, a set needs at least 3"


def test_batch_echoes_each_id_as_given() -> None:
    lines = '{"id": 7, "rack": "R1"}\n{"id": "7", "rack": "R1"}\n{"rack": "R1"}\n'
    result = run(["batch", "-"], input=lines)
    assert [json.loads(x).get("id") for x in result.stdout.splitlines()] == [7, "7", None]


def test_solve_json_echoes_a_number_id_as_a_number(tmp_path: Path) -> None:
    for given in (7, 0, "7"):
        (tmp_path / "p.json").write_text(json.dumps({"id": given, "rack": "R1", "opened": True}))
        assert json.loads(run(["solve", str(tmp_path / "p.json"), "--json"]).stdout)["id"] == given


def test_batch_options_apply_to_every_line() -> None:
    # --wrap american makes R12 R13 R1 legal for the line; --backend is echoed.
    line = '{"rack": ["R11"], "table": [["R12", "R13", "R1"]]}\n'
    result = run(["batch", "-", "--wrap", "american", "--backend", "cpsat"], input=line)
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["played"] == ["R11"] and data["backend"] == "cpsat"


@pytest.mark.parametrize("make, words", [
    pytest.param(lambda d: str(d / "missing.jsonl"), ["missing.jsonl", "no such file"], id="missing"),
    pytest.param(lambda d: str(d), ["directory"], id="directory"),
])
def test_batch_unreadable_file(tmp_path: Path, make: Any, words: list[str]) -> None:
    result = run(["batch", make(tmp_path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    for word in words:
        assert word in result.stderr


# --------------------------------------------------------------------------- 6. bad input


# Each case: files to create (name -> text/bytes; None: a directory), the solve arguments, and
# words the single-line error must contain (file, line, token, reason).
BAD_INPUT = [
    pytest.param({"rack.txt": "X5"}, ["--rack", "rack.txt"],
                 ["rack file rack.txt line 1", "'X5'", "unknown colour"], id="X5"),
    pytest.param({"rack.txt": "R14"}, ["--rack", "rack.txt"],
                 ["rack file rack.txt line 1", "'R14'", "1..13"], id="R14"),
    pytest.param({"rack.txt": "R0"}, ["--rack", "rack.txt"],
                 ["rack file rack.txt line 1", "'R0'", "1..13"], id="R0"),
    pytest.param({"rack.txt": "K"}, ["--rack", "rack.txt"],
                 ["rack file rack.txt line 1", "'K'", "missing number"], id="lone-K"),
    pytest.param({"rack.txt": "R1 R2\n# comment\nB4 J5\n"}, ["--rack", "rack.txt"],
                 ["rack file rack.txt line 3", "'J5'", "joker"], id="token-on-line-3"),
    pytest.param({"rack.txt": "R1", "table.txt": "R4 R5 R6\nK1 Q2 K3\n"},
                 ["--rack", "rack.txt", "--table", "table.txt"],
                 ["table file table.txt line 2", "'Q2'", "unknown colour"], id="bad-table-tile"),
    pytest.param({"rack.txt": "R7 R7", "table.txt": "R6 R7 R8"},
                 ["--rack", "rack.txt", "--table", "table.txt"],
                 ["too many copies of R7", "rack.txt", "table.txt", "allow 2"], id="three-R7"),
    pytest.param({"rack.txt": "J J J"}, ["--rack", "rack.txt"],
                 ["too many jokers", "rack.txt", "allow 2"], id="three-jokers"),
    pytest.param({"rack.txt": "J", "table.txt": "R1 R2 J\nK5 B5 J\n"},
                 ["--rack", "rack.txt", "--table", "table.txt"],
                 ["too many jokers", "rack.txt", "table.txt"], id="three-jokers-rack-and-table"),
    pytest.param({"rack.txt": "R5", "table.txt": "R1 R2 R4"}, ["--rack", "rack.txt", "--table", "table.txt"],
                 ["invalid set 'R1 R2 R4'", "table file table.txt line 1", "gap"], id="gap-in-run"),
    pytest.param({"rack.txt": "R5", "table.txt": "R7 B7 R7"}, ["--rack", "rack.txt", "--table", "table.txt"],
                 ["'R7 B7 R7'", "table.txt line 1", "repeats"], id="colour-repeats"),
    pytest.param({"rack.txt": "R5", "table.txt": "R1 B2 O3"}, ["--rack", "rack.txt", "--table", "table.txt"],
                 ["'R1 B2 O3'", "table.txt line 1", "neither a run"], id="mixed-run"),
    pytest.param({"rack.txt": "R5", "table.txt": "R4 R5"}, ["--rack", "rack.txt", "--table", "table.txt"],
                 ["'R4 R5'", "table.txt line 1", "too short"], id="too-short"),
    pytest.param({"rack.txt": "R5", "table.txt": "R12 R13 R1"}, ["--rack", "rack.txt", "--table", "table.txt"],
                 ["'R12 R13 R1'", "table file table.txt line 1", "wrap"], id="wrap-default-rules"),
    pytest.param({"rack.txt": "R5", "table.txt": "R13 R1 R2"},
                 ["--rack", "rack.txt", "--table", "table.txt", "--wrap", "american"],
                 ["'R13 R1 R2'", "table.txt line 1", "american"], id="wrap-13-1-2-american"),
    pytest.param({"rack.txt": b"R1 R2\x00R3"}, ["--rack", "rack.txt"],
                 ["rack file rack.txt", "not a text file"], id="binary"),
    pytest.param({"rack.txt": b"R1 \xff\xfe R2"}, ["--rack", "rack.txt"],
                 ["rack file rack.txt", "not UTF-8"], id="not-utf8"),
    pytest.param({}, ["--rack", "missing.txt"], ["rack file missing.txt", "no such file"], id="missing-rack"),
    pytest.param({"rack.txt": "R1"}, ["--rack", "rack.txt", "--table", "nope.txt"],
                 ["table file nope.txt", "no such file"], id="missing-table"),
    pytest.param({"adir": None}, ["--rack", "adir"], ["rack file adir", "directory"], id="directory"),
    pytest.param({}, ["missing.txt"], ["position file missing.txt", "no such file"], id="missing-position"),
    pytest.param({"pos.txt": "rules: wrap=sideways\nrack: R1\n"}, ["pos.txt"],
                 ["position file pos.txt line 1", "sideways", "none, american or full"], id="bad-rules-line"),
    pytest.param({"pos.txt": "rack: R1\nrules: wrap\n"}, ["pos.txt"],
                 ["position file pos.txt line 2", "'wrap'", "key=value"], id="rule-not-key-value"),
    pytest.param({"pos.txt": "rack: R1\nrules: speed=3\n"}, ["pos.txt"],
                 ["position file pos.txt line 2", "'speed'", "unknown rule"], id="unknown-rule"),
    pytest.param({"pos.txt": "title: x\nfoo: bar\nrack: R1\n"}, ["pos.txt"],
                 ["position file pos.txt line 2", "'foo'", "unknown key"], id="unknown-key"),
    pytest.param({"pos.txt": "rack: R1\nrack: R2\n"}, ["pos.txt"],
                 ["position file pos.txt line 2", "'rack' given twice"], id="key-twice"),
    pytest.param({"pos.txt": "title: no rack here\n"}, ["pos.txt"],
                 ["position file pos.txt", "no 'rack:'"], id="no-rack"),
    pytest.param({"pos.txt": "opened: maybe\nrack: R1\n"}, ["pos.txt"],
                 ["position file pos.txt line 1", "'maybe'", "yes or no"], id="opened-maybe"),
    pytest.param({"pos.txt": "rack: R5\ntable:\n  R4 R5 R6\n  R1 R2 R4\n"}, ["pos.txt"],
                 ["'R1 R2 R4'", "position file pos.txt line 4", "gap"], id="position-bad-set-line-4"),
    pytest.param({"pos.txt": "rack: R5\n  B7 Z7\n"}, ["pos.txt"],
                 ["position file pos.txt line 2", "'Z7'"], id="position-rack-continued"),
    pytest.param({"pos.txt": "R5 B7\n"}, ["pos.txt"],
                 ["position file pos.txt line 1", "key: value"], id="position-no-key"),
    pytest.param({"pos.json": '{"rack": ["R5"], bad}'}, ["pos.json"],
                 ["position file pos.json line 1", "not valid JSON"], id="position-bad-json"),
    pytest.param({"pos.json": '{"rack": "R1 R2 R3 R10", "rack": "K1"}'}, ["pos.json"],
                 ["position file pos.json", "key 'rack' appears twice in one object"], id="position-json-key-twice"),
    pytest.param({"pos.txt": "opened: yes\nrules: wrap=full wrap=none\nrack: R12 R13 R1\n"}, ["pos.txt"],
                 ["position file pos.txt line 2", "rule 'wrap' given twice"], id="rule-twice"),
    pytest.param({"pos.json": '{"rack": "R1", "rules": {"min-set-size": 3, "min_set_size": 4}}'}, ["pos.json"],
                 ["position file pos.json", "rule 'min_set_size' given twice (as 'min-set-size')"], id="rule-twice-spelt-two-ways"),
    pytest.param({"pos.json": '{"rack": ["R5"], "speed": 1}'}, ["pos.json"],
                 ["position file pos.json", "'speed'", "unknown field"], id="position-json-unknown-field"),
    pytest.param({"rack.txt": "R1"}, ["--rack", "rack.txt", "--min-set-size", "20"],
                 ["min-set-size"], id="impossible-rules"),
]


@pytest.mark.parametrize("files, args, words", BAD_INPUT)
def test_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   files: dict[str, str | bytes | None], args: list[str], words: list[str]) -> None:
    monkeypatch.chdir(tmp_path)  # relative names, so messages can be matched exactly
    for name, content in files.items():
        if content is None:
            (tmp_path / name).mkdir()
        else:
            write(tmp_path, name, content)
    result = run(["solve", *args])
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ")
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n")  # exactly one line
    for word in words:
        assert word in result.stderr, f"{word!r} not in {result.stderr!r}"


def test_wrap_around_run_valid_under_american(tmp_path: Path) -> None:
    # The same table that is refused by default is fine with --wrap american; R11 extends it.
    args = [*position_args(tmp_path, "R11", ["R12 R13 R1"]), "--wrap", "american"]
    data = solve_json(args)
    assert data["played"] == ["R11"]
    check_move(data, "R11", ["R12 R13 R1"], RuleSet(wrap=Wrap.AMERICAN))


# Rule variants from docs/rules.md, by hand: (rack, table, options, tiles played).
VARIANTS = [
    # J K12 K13 counts 11+12+13 = 36 when a joker may be in the initial meld ...
    pytest.param("K12 K13 J", [], ["--initial-meld", "--joker-in-meld"], 3, id="joker-in-meld"),
    # ... and is not allowed by default.
    pytest.param("K12 K13 J", [], ["--initial-meld"], 0, id="no-joker-in-meld-default"),
    # K8 K9 J is at most 8+9+10 = 27 < 30.
    pytest.param("K8 K9 J", [], ["--initial-meld", "--joker-in-meld"], 0, id="joker-meld-below-30"),
    # After opening with R10-12, K4 may join K1-K3 only with --continue-after-meld.
    pytest.param("R10 R11 R12 K4", ["K1 K2 K3"], ["--initial-meld"], 3, id="no-continue-default"),
    pytest.param("R10 R11 R12 K4", ["K1 K2 K3"], ["--initial-meld", "--continue-after-meld"], 4,
                 id="continue-after-meld"),
    # docs/rules.md: split a run by inserting a tile (B6-10 + B8 -> B6-8, B8-10).
    pytest.param("B8", ["B6 B7 B8 B9 B10"], [], 1, id="split-run"),
    # Sets of two with --min-set-size 2.
    pytest.param("K1 K2", [], ["--opened", "--min-set-size", "2"], 2, id="min-set-size-2"),
    pytest.param("K1 K2", [], ["--opened"], 0, id="min-set-size-3-default"),
]


@pytest.mark.parametrize("rack, table, options, tiles", VARIANTS)
def test_rule_variants(tmp_path: Path, backend: str, rack: str, table: list[str], options: list[str],
                       tiles: int) -> None:
    data = solve_json([*position_args(tmp_path, rack, table), "--backend", backend, *options])
    assert data["tiles_played"] == tiles
    assert data["status"] == ("optimal" if tiles else "no_move")


def test_wrap_full_allows_13_1_2(tmp_path: Path) -> None:
    data = solve_json([*position_args(tmp_path, "R3", ["R13 R1 R2"]), "--wrap", "full"])
    assert data["played"] == ["R3"]


# --------------------------------------------------------------------------- 7. usage errors


@pytest.mark.parametrize("args", [
    pytest.param(["solve"], id="no-arguments"),
    pytest.param(["solve", "pos.txt", "--rack", "rack.txt"], id="file-and-rack"),
    pytest.param(["solve", "pos.txt", "--table", "rack.txt"], id="file-and-table"),
    pytest.param(["solve", "--rack", "rack.txt", "--objective", "foo"], id="objective-foo"),
    pytest.param(["solve", "--rack", "rack.txt", "--backend", "gurobi"], id="backend-unknown"),
    pytest.param(["solve", "--rack", "rack.txt", "--time-limit", "0"], id="time-limit-0"),
    pytest.param(["solve", "--rack", "rack.txt", "--time-limit", "soon"], id="time-limit-text"),
    # nan passes every comparison of a range: refused by name, as infinity is.
    pytest.param(["solve", "--rack", "rack.txt", "--time-limit", "nan"], id="time-limit-nan"),
    pytest.param(["batch", "pos.txt", "--time-limit", "inf"], id="time-limit-inf"),
    pytest.param(["serve", "--keep-days", "nan"], id="keep-days-nan"),
    pytest.param(["serve", "--time-limit", "NaN"], id="serve-time-limit-nan"),
    pytest.param(["solve", "--rack", "rack.txt", "--numbers", "99"], id="numbers-out-of-range"),
    pytest.param(["solve", "--rack", "rack.txt", "--wrap", "sideways"], id="wrap-sideways"),
    pytest.param(["solve", "--rack", "rack.txt", "--bogus"], id="unknown-option"),
    pytest.param(["batch"], id="batch-no-file"),
    pytest.param(["frobnicate"], id="unknown-command"),
])
def test_usage_errors_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "rack.txt", "R5\n")
    write(tmp_path, "pos.txt", "rack: R5\n")
    result = run(args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Error: " in result.stderr


# --------------------------------------------------------------------------- 8. help


def _commands(group: click.Group, path: list[str]) -> list[tuple[list[str], click.Command]]:
    found = [(path, group)]
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += _commands(command, [*path, name])
        else:
            found.append(([*path, name], command))
    return found


ALL_COMMANDS = _commands(cli, [])


def test_there_are_commands_to_walk() -> None:
    names = {" ".join(p) for p, _ in ALL_COMMANDS}
    assert {"", "solve", "batch"} <= names


@pytest.mark.parametrize("path, command", ALL_COMMANDS,
                         ids=[" ".join(p) or "rummikub" for p, _ in ALL_COMMANDS])
def test_every_command_has_help(path: list[str], command: click.Command) -> None:
    assert (command.help or "").strip(), f"no help text for {path}"
    for flag in ("--help", "-h"):
        result = run([*path, flag])
        assert result.exit_code == 0 and result.stderr == ""
        assert "Usage:" in result.stdout
        # The help text is shown (click re-wraps it, so compare words).
        assert " ".join(command.help.split()[:8]) in " ".join(result.stdout.split())
    # Every option is documented too.
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert param.help or param.name in ("help", "version"), f"{path} {param.name}"


def test_version() -> None:
    result = run(["--version"])
    assert result.exit_code == 0 and "rummikub" in result.stdout


# --------------------------------------------------------------------------- 9. time limit


def test_time_limit_small_position_is_optimal(tmp_path: Path, backend: str) -> None:
    data = solve_json([*position_args(tmp_path, "R5 B7 O7", ["R4 J R6"]), "--time-limit", "5",
                       "--backend", backend])
    assert data["status"] == "optimal"
    assert data["tiles_played"] == 3


# --------------------------------------------------------------------------- 10. determinism


@pytest.mark.parametrize("rack, table", [
    ("K1 K2 K3 B3 R3", []),  # two equally good answers: the same one must come back
    ("R5 B7 O7", ["R4 J R6"]),
])
def test_same_solve_twice_gives_same_json(tmp_path: Path, backend: str, rack: str, table: list[str]) -> None:
    args = [*position_args(tmp_path, rack, table), "--backend", backend]
    first, second = solve_json(args), solve_json(args)
    first.pop("seconds")
    second.pop("seconds")
    assert first == second


def test_same_text_output_twice(tmp_path: Path) -> None:
    args = ["solve", *position_args(tmp_path, "K1 K2 K3 B3 R3", ["R4 J R6"])]
    assert run(args).stdout == run(args).stdout


# --------------------------------------------------------------------------- JSON records: opened / initial_meld


@pytest.mark.parametrize("record", [
    pytest.param({"rack": "R10 R11 R12", "initial_meld": True}, id="initial_meld-true"),
    pytest.param({"rack": "R10 R11 R12", "opened": False}, id="opened-false"),
    pytest.param({"rack": "R10 R11 R12", "opened": False, "initial_meld": True}, id="both-consistent"),
])
def test_batch_record_not_opened(record: dict[str, Any]) -> None:
    result = run(["batch", "-"], input=json.dumps(record) + "\n")
    data = json.loads(result.stdout)
    assert data.get("initial_meld") is True, data
    assert result.exit_code == 0


def test_batch_record_contradictory_opened_is_refused() -> None:
    record = {"rack": "R10 R11 R12", "opened": True, "initial_meld": True}
    result = run(["batch", "-"], input=json.dumps(record) + "\n")
    data = json.loads(result.stdout)
    assert "contradict" in data.get("error", ""), data
    assert result.exit_code == 1


# --------------------------------------------------------------------------- the real entry point


def run_entry_point(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> int:
    """``rummikub ARGS`` as the console script runs it (cli.main:main, not CliRunner)."""
    monkeypatch.setattr(sys, "argv", ["rummikub", *args])
    try:
        main()
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


class _LoadingInterrupted(types.ModuleType):
    """``cli.main`` as Ctrl-C finds it while its imports still run."""

    def __getattr__(self, name: str) -> object:
        raise KeyboardInterrupt


def test_ctrl_c_while_the_program_loads_leaves_quietly(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "cli.main", _LoadingInterrupted("cli.main"))
    with pytest.raises(SystemExit) as exit_:
        entry.main()
    assert exit_.value.code == 130
    assert capsys.readouterr() == ("", "Interrupted.\n")


def test_entry_point_bad_input_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    rack = write(tmp_path, "rack.txt", "X5\n")
    assert run_entry_point(monkeypatch, ["solve", "--rack", rack]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("Error: ") and "'X5'" in err and "Traceback" not in err


def test_entry_point_usage_error_exit_2(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert run_entry_point(monkeypatch, ["solve"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Error: " in err


def test_entry_point_batch_with_bad_line_exits_1(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code = run_entry_point(monkeypatch, ["batch", str(DATA / "batch.jsonl")])
    out, _ = capsys.readouterr()
    assert len(out.splitlines()) == 5  # every line answered (the blank one skipped) ...
    assert code == 1  # ... and the bad ones reported in the exit status


# --------------------------------------------------------------------------- counts and their nouns


def test_one_of_everything_is_singular(tmp_path: Path) -> None:
    """One tile, one point, one set, one table tile: never "1 tiles" or "1 sets"."""
    rack = write(tmp_path, "rack.txt", "R1\n")
    table = write(tmp_path, "table.txt", "R2 R3 R4\n")
    result = run(["solve", "--rack", rack, "--table", table, "--opened", "--no-color"])
    assert result.exit_code == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "Best move: play 1 tile (1 point): [R1]"
    assert "Table after the move (1 set):" in lines
    hint = run(["hint", "--rack", rack, "--table", table, "--opened"])
    assert hint.stdout == "You can play 1 tile (1 point).\n"


def test_steps_count_the_tiles_moved_in_the_singular(tmp_path: Path) -> None:
    result = run(["solve", paths.ROOT / "puzzles" / "group-swap.txt", "--steps", "--no-color"])
    assert result.exit_code == 0
    assert "Steps (1 table tile moved to another set):" in result.stdout


# --------------------------------------------------------------------------- an empty table is the initial meld


def test_empty_table_is_the_initial_meld_in_solve_hint_check_and_batch(tmp_path: Path) -> None:
    """Nobody who has opened has an empty table: R1 R2 R3 (6 points) is no opening."""
    rack = write(tmp_path, "rack.txt", "R1 R2 R3 K5\n")
    solved = solve_json(["--rack", rack])
    assert (solved["status"], solved["initial_meld"], solved["tiles_played"]) == ("no_move", True, 0)
    assert solve_json(["--rack", rack, "--opened"])["tiles_played"] == 3  # --opened: as before
    hinted = run(["hint", "--rack", rack, "--json"])
    assert hinted.exit_code == 0 and json.loads(hinted.stdout)["tiles"] == 0
    answer = write(tmp_path, "answer.txt", "R1 R2 R3\n")
    checked = run(["check", "--rack", rack, "--answer", answer, "--json"])
    assert checked.exit_code == 6  # illegal: a 6-point initial meld
    assert [v["code"] for v in json.loads(checked.stdout)["violations"]] == ["meld_below_threshold"]
    assert run(["check", "--rack", rack, "--answer", answer, "--opened"]).exit_code == 0
    lines = '{"rack": "R1 R2 R3 K5"}\n{"rack": "R1 R2 R3 K5", "opened": true}\n{"rack": "R1", "table": ["R2 R3 R4"]}\n'
    batch = run(["batch", "-", "--no-timing"], input=lines)
    assert batch.exit_code == 0 and batch.stderr == ""
    answers = [json.loads(line) for line in batch.stdout.splitlines()]
    assert [(a["initial_meld"], a["tiles_played"]) for a in answers] == [(True, 0), (False, 3), (False, 1)]
    opened = run(["batch", "-", "--no-timing", "--opened"], input=lines.splitlines()[0] + "\n")
    assert json.loads(opened.stdout)["tiles_played"] == 3


def test_help_texts_say_what_the_program_does() -> None:
    solve_help = " ".join(run(["solve", "--help"]).stdout.split())
    assert "over HiGHS LPs" not in solve_help
    assert "bnb (branch and bound, fastest; its LPs run on the project's own compiled dual simplex" in solve_help
    assert "the initial meld when the table is empty" in solve_help
    hint_help = " ".join(run(["hint", "--help"]).stdout.split())
    assert "--level 1|2|3" in hint_help and "[default: 1;" in hint_help


# --------------------------------------------------------------------------- NO_COLOR (no-color.org)


@pytest.mark.parametrize(
    ("no_color", "args", "coloured"),
    [
        (None, [], True),  # a terminal: colours
        ("1", [], False),  # NO_COLOR set to anything: none
        ("0", [], False),
        ("", [], True),  # set but empty: as if unset
        ("1", ["--color"], True),  # asked for explicitly: colours all the same
        (None, ["--no-color"], False),
    ],
)
@pytest.mark.parametrize("command", ["solve", "play"])
def test_no_color_turns_colour_off_unless_asked(
    monkeypatch: pytest.MonkeyPatch, command: str, no_color: str | None, args: list[str], coloured: bool
) -> None:
    monkeypatch.setattr("cli.options.on_terminal", lambda: True)  # as on a terminal
    env = {"NO_COLOR": no_color}
    if command == "solve":
        invoked = ["solve", str(paths.ROOT / "puzzles" / "split-run.txt"), *args]
        text = None
    else:
        invoked = ["play", "--seed", "3", *args]
        text = "quit\n"
    result = CliRunner().invoke(cli, invoked, input=text, env=env, color=True)
    assert result.exit_code == 0, result.output
    assert ("\x1b[" in result.stdout) is coloured


# --------------------------------------------------------------------------- an empty rack file


@pytest.mark.parametrize("command", ["solve", "hint", "check"])
def test_an_empty_rack_file_is_warned_about(tmp_path: Path, command: str) -> None:
    rack = write(tmp_path, "rack.txt", "# nothing here\n\n")
    table = write(tmp_path, "table.txt", "R1 R2 R3\n")
    extra = ["--answer", table] if command == "check" else []
    result = run([command, "--rack", rack, "--table", table, *extra])
    assert result.exit_code == 0  # a warning, not an error
    assert result.stderr == f"Warning: the rack file {rack} holds no tiles; is it the right file?\n"
    assert result.stdout  # the answer is still given
    from_stdin = run([command, "--rack", "-", "--table", table, *extra], input="")
    assert from_stdin.stderr == "Warning: the rack file <stdin> holds no tiles; is it the right file?\n"
    full = run([command, "--rack", write(tmp_path, "full.txt", "R4\n"), "--table", table, *extra])
    assert full.stderr == ""


@pytest.mark.parametrize("command", ["solve", "hint", "check"])
def test_an_empty_table_file_is_warned_about(tmp_path: Path, command: str) -> None:
    # An empty table makes the turn an initial meld: a wrong file changed the whole answer, unsaid.
    rack = write(tmp_path, "rack.txt", "R10 R11 R12\n")
    table = write(tmp_path, "table.txt", "\n# nothing\n")
    extra = ["--answer", write(tmp_path, "answer.txt", "R10 R11 R12\n")] if command == "check" else []
    result = run([command, "--rack", rack, "--table", table, *extra])
    assert result.exit_code == 0
    assert result.stderr == f"Warning: empty table file {table}: an initial meld; is it the right file?\n"
    assert len(result.stderr.replace(table, "emptytable.txt")) <= 81
    assert result.stdout
    opened = run([command, "--rack", rack, "--table", table, "--opened", *extra])
    assert opened.stderr == f"Warning: empty table file {table}; is it the right file?\n"


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "puzzles/big-4.txt", "--steps", "--no-color"],
        ["solve", "puzzles/big-4.txt", "--steps", "--color"],
        ["hint", "puzzles/big-4.txt", "--level", "3", "--color"],
        ["puzzles", "list"],
        ["puzzles", "show", "big-4", "--answer"],
    ],
)
def test_text_output_fits_80_columns(args: list[str]) -> None:
    """Long steps, hints and titles break between words (the steps of big-4 reached 140 columns)."""
    args = [str(paths.ROOT / a) if a.startswith("puzzles/") else a for a in args]
    result = run(args)
    assert result.exit_code == 0, result.stderr
    assert max(len(click.unstyle(line)) for line in result.stdout.splitlines()) <= 80


def test_svg_never_writes_over_a_file_that_is_not_a_picture(tmp_path: Path) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_text((paths.ROOT / "puzzles" / "split-run.txt").read_text())
    before = mine.read_bytes()
    result = run(["solve", str(mine), "--svg", str(mine)])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {mine} exists and is not an SVG picture: not overwritten (give --svg another file)\n"
    assert mine.read_bytes() == before
    picture = tmp_path / "answer.svg"
    assert run(["solve", str(mine), "--svg", str(picture)]).exit_code == 0
    assert run(["solve", str(mine), "--svg", str(picture)]).exit_code == 0  # a picture is redrawn
    assert picture.read_text().startswith("<svg") and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    page = tmp_path / "page.html"  # text that only mentions <svg is not a picture
    page.write_text('<!doctype html>\n<html><body><svg width="10"></svg><p>my notes</p></body></html>\n')
    assert run(["solve", str(mine), "--svg", str(page)]).exit_code == 1 and "my notes" in page.read_text()
    empty = tmp_path / "empty.svg"  # nothing to lose (mktemp --suffix=.svg)
    empty.write_text("")
    assert run(["solve", str(mine), "--svg", str(empty)]).exit_code == 0 and empty.read_text().startswith("<svg")
    (tmp_path / "pics").mkdir()
    real = tmp_path / "pics" / "real.svg"
    real.write_text('<?xml version="1.0"?>\n<!-- old -->\n<svg></svg>\n')
    real.chmod(0o600)
    link = tmp_path / "link.svg"
    link.symlink_to(real)
    assert run(["solve", str(mine), "--svg", str(link)]).exit_code == 0
    assert link.is_symlink() and real.read_text().startswith("<svg") and real.stat().st_mode & 0o777 == 0o600


def test_puzzles_record_leaves_a_json_position_file_as_it_was(tmp_path: Path) -> None:
    pos = tmp_path / "pos.json"
    pos.write_text('{"rack": ["R5","B7","O7"], "table": [["R4","J","R6"]]}\n')
    before = pos.read_bytes()
    result = run(["puzzles", "record", str(pos)])
    assert result.exit_code == 1 and "is JSON: a puzzle's answer is recorded in a text position file" in result.stderr
    assert pos.read_bytes() == before and run(["solve", str(pos)]).exit_code == 0


@pytest.mark.parametrize("color", ["--color", "--no-color"])
def test_a_long_answer_fits_80_columns(tmp_path: Path, color: str) -> None:
    # A 13-tile run in colour (each tile a padded block) and an opening of nine tiles.
    wide = tmp_path / "wide.txt"
    wide.write_text("opened: yes\nrack: R13 B13 O13 K12\ntable:\n  K1-13\n  R1-12\n  B1-12\n  O1-12\n")
    meld = tmp_path / "meld.txt"
    meld.write_text("opened: no\nrack: K6 K12 B6 B8 B8 B12 R3 R4 R5 R5 R6 O8 O10 O12\n")
    for path in (wide, meld):
        result = run(["solve", str(path), color])
        assert result.exit_code == 0
        lines = click.unstyle(result.stdout).splitlines()
        assert max(len(line) for line in lines) <= 80, lines
        if path is wide:
            notes = [line.split()[-1] for line in lines if line.endswith(("unchanged", "rebuilt", "new"))]
            assert notes == ["unchanged", "rebuilt", "rebuilt", "unchanged", "rebuilt", "new"]  # each set's note kept


@pytest.mark.parametrize("command", ["solve", "hint", "check"])
def test_two_inputs_from_standard_input_are_a_usage_error(command: str, tmp_path: Path) -> None:
    answer = ["--answer", str(tmp_path / "a.txt")] if command == "check" else []
    result = run([command, "--rack", "-", "--table", "-", *answer], input="R1\n")
    assert result.exit_code == 2 and result.stderr.endswith("Error: only one input can be standard input (-)\n")


def test_a_long_rack_left_fits_80_columns(tmp_path: Path) -> None:
    rack = "K1 K3 K5 K7 K9 K11 K13 B2 B4 B6 B8 B10 B12 R1 R3 R5 R7 R9 R11 R13 O2 O4"
    result = run(["solve", *position_args(tmp_path, rack, ["O10 O11 O12"]), "--no-color"])
    assert result.exit_code == 0
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    assert "Left on your rack (22): K1 K3 K5" in result.stdout


def test_a_long_title_wraps_within_80_columns(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text("title: " + "a long title " * 10 + "\nrack: R1 R2 R3\n")
    out = run(["solve", str(path)]).stdout
    assert max(len(line) for line in out.splitlines()) <= 80 and out.startswith("a long title a long")


@pytest.mark.parametrize(
    ("position", "options"),
    [
        ('{"rack": "R4 R5 K7 B7 J", "table": ["R1 R2 R3", "O7 B7 K7"]}', []),
        ('{"rack": "R4 R5 K7 B7 J", "table": ["R1 R2 R3", "O7 B7 K7"]}', ["--objective", "points", "--formulation", "sets"]),
        ('{"rack": "K10 K11 K12 R1 O1 B1 B2"}', []),  # the initial meld
        ('{"rack": "B7 R5 O7", "table": ["R4 J R6", "K1 K2 K3"]}', ["--joker-rules", "strict"]),
    ],
)
def test_dump_lp_writes_the_model_another_solver_reads(tmp_path: Path, position: str, options: list[str]) -> None:
    import highspy

    from solver.backends import get_backend
    from solver.files import position_from_text
    from solver.model import build_model
    from solver.solve import SolveOptions

    lp_file = tmp_path / "turn.lp"
    result = run(["solve", write(tmp_path, "p.json", position), "--dump-lp", lp_file, *options])
    assert result.exit_code == 0, result.stderr
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    assert highs.readModel(str(lp_file)) == highspy.HighsStatus.kOk
    highs.run()
    assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal
    # The file is the model the solver solves: the same optimum.
    args = dict(zip(options[::2], options[1::2]))
    rules = {"joker_rules": args["--joker-rules"]} if "--joker-rules" in args else {}
    read = position_from_text(position, "p.json", rules)
    chosen = SolveOptions(objective=args.get("--objective", "tiles"), formulation=args.get("--formulation", "auto"))
    model = build_model(read, chosen.objective, chosen.formulation, exact=True)
    values = get_backend("bnb")(model.lp, None).values
    assert values is not None
    assert round(highs.getInfo().objective_function_value) == sum(c * values[v] for v, c in model.lp.objective)


def test_dump_lp_writes_the_model_the_chosen_backend_solves(tmp_path: Path) -> None:
    # CBC and CP-SAT solve the set model when the formulation is auto; bnb the pattern model.
    position = write(tmp_path, "p.json", '{"rack": "R4 R5 K7 B7 J", "table": ["R1 R2 R3", "O7 B7 K7"]}')
    dumped = {}
    for name, options in {"cbc": ["--backend", "cbc"], "cbc sets": ["--backend", "cbc", "--formulation", "sets"],
                          "cpsat": ["--backend", "cpsat"], "bnb": []}.items():
        lp_file = tmp_path / f"{name}.lp"
        result = run(["solve", position, "--dump-lp", lp_file, *options])
        assert result.exit_code == 0, result.stderr
        dumped[name] = lp_file.read_text()
    assert dumped["cbc"] == dumped["cbc sets"] == dumped["cpsat"]
    assert dumped["bnb"] != dumped["cbc"]


def test_dump_lp_never_overwrites_a_file_that_is_not_an_lp(tmp_path: Path) -> None:
    text = '{"rack": "R4 R5 R6"}'
    position = write(tmp_path, "p.json", text)
    result = run(["solve", position, "--dump-lp", position])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {position} exists and is not an LP file: not overwritten (give --dump-lp another file)\n"
    assert Path(position).read_text() == text
    lp_file = tmp_path / "turn.lp"
    for _ in range(2):  # an LP file written before is replaced
        assert run(["solve", position, "--dump-lp", lp_file]).exit_code == 0
    assert lp_file.read_text().startswith("Maximize")


def test_dump_lp_names_a_file_it_cannot_write(tmp_path: Path) -> None:
    result = run(["solve", write(tmp_path, "p.json", '{"rack": "R4"}'), "--dump-lp", tmp_path / "no" / "turn.lp"])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: cannot write LP ") and "turn.lp" in result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["solve", paths.ROOT / "puzzles" / "split-run.txt", "--svg", ""], "'--svg': an empty file name"),
        (["solve", paths.ROOT / "puzzles" / "split-run.txt", "--dump-lp", " "], "'--dump-lp': an empty file name"),
        (["check", paths.ROOT / "puzzles" / "split-run.txt", "--svg", ""], "'--svg': an empty file name"),
        (["puzzles", "show", "split-run", "--svg", ""], "'--svg': an empty file name"),
        (["play", "--seed", "1", "--record", ""], "'--record': an empty file name"),
        (["selfplay", "--games", "2", "--record", ""], "'--record': an empty folder name"),
        (["puzzles", "generate", "--difficulty", "1", "--count", "2", "--out", ""], "'--out': an empty folder name"),
        (["serve", "--games-dir", ""], "'--games-dir': an empty folder name"),
        (["solve", paths.ROOT / "puzzles" / "split-run.txt", "--svg", "-"], "'--svg': '-' is not a file name here"),
    ],
)
def test_an_empty_output_name_is_refused(args: list[Any], said: str) -> None:
    # As `--record "$OUT"` with OUT unset: it wrote nothing, or into the current folder, silently.
    result = run(args)
    assert result.exit_code == 2 and said in result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["puzzles", "generate", "--difficulty", "1", "--count", "2", "--out"], "puzzle folder"),
        (["selfplay", "--games", "1", "--record"], "record folder"),
    ],
)
def test_an_output_folder_that_is_a_file_says_so(tmp_path: Path, args: list[Any], said: str) -> None:
    taken = write(tmp_path, "taken.txt", "a file")
    result = run([*args, taken])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {said} {taken} is a file, not a folder\n"


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ("difficulty: hard\n", "position file {f} line 4: difficulty must be a whole number, got 'hard'"),
        ("difficulty: 9\n", "position file {f} line 4: difficulty runs 1..5"),
        ("answer:\n  R1 R2 X9\n", "invalid tile 'X9' in answer in position file {f} line 5"),
    ],
)
def test_a_puzzles_recorded_answer_is_read_by_solve_too(tmp_path: Path, extra: str, said: str) -> None:
    # solve leaves a puzzle's answer aside, but a typo in it is not ignored (formats.md).
    f = write(tmp_path, "p.txt", "rack: R1\ntable:\n  R2 R3 R4\n" + extra)
    result = run(["solve", f])
    assert result.exit_code == 1 and said.format(f=f) in result.stderr


@pytest.mark.parametrize("group", [[], ["puzzles"], ["score"]])
def test_command_lists_say_whole_sentences(group: list[str]) -> None:
    """Click cuts a long first sentence at the width with '...': each command has a short help."""
    listing = run([*group, "--help"]).stdout.split("Commands:")[1]
    assert "..." not in listing and all(len(line) <= 80 for line in listing.splitlines())


def test_answers_do_not_depend_on_the_numeric_libraries_threads() -> None:
    """gen-3-11's recorded answer differed with one OpenBLAS thread (a Dask worker's nanny sets it)
    from the default of one per core: the program now runs the numeric libraries on one thread."""
    import os
    import subprocess

    from tests.interrupt import COMMAND

    args = [*COMMAND, "puzzles", "generate", "--difficulty", "3", "--seed", "11", "--answer"]
    default = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    outputs = [
        subprocess.run(args, env=env, capture_output=True, check=True).stdout
        for env in (default, {**default, "OPENBLAS_NUM_THREADS": "1"})
    ]
    assert outputs[0] == outputs[1]


def test_a_lone_surrogate_in_json_is_bad_input_not_an_internal_error(tmp_path: Path) -> None:
    # JSON may escape half a UTF-16 pair; no text holds it, and printing the title failed (exit 4).
    position = write(tmp_path, "p.json", '{"rack": "R5",\n "title": "\\ud800"}')
    result = run(["solve", position])
    assert result.exit_code == 1
    assert result.stderr == f"Error: position file {position} line 2: \\ud800 is half a character (a lone UTF-16 surrogate), not text\n"
    lines = write(tmp_path, "b.jsonl", '{"rack": "R5 R6 R7", "opened": true}\n{"rack": "R5", "id": "\\udc00"}\n')
    batch = run(["batch", lines])
    assert batch.exit_code == 1  # the other line answered
    first, second = batch.stdout.splitlines()
    assert json.loads(first)["tiles_played"] == 3
    assert json.loads(second) == {"line": 2, "error": "line 2: \\udc00 is half a character (a lone UTF-16 surrogate), not text"}


# --------------------------------------------------------------------------- the terminal's width


def _words_of(text: str) -> list[str]:
    return click.unstyle(text).split()


@pytest.mark.parametrize("color", ["--no-color", "--color"])
def test_text_output_fits_the_terminals_width_and_a_pipe_keeps_80(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, color: str
) -> None:
    """solve, check, hint and arrange: at a terminal within its width (COLUMNS; 40 at least),
    broken only between words; into a pipe the same 80-column bytes whatever COLUMNS says."""
    from cli.render import width_of

    big = str(paths.ROOT / "puzzles" / "big-2.txt")
    answer = tmp_path / "answer.txt"
    answer.write_text("K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13\nR5 R6\n")
    table = tmp_path / "table.txt"
    table.write_text("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 K7 B7 O7 O8 O9 O10 O11 O12 O13 B1 B2 B3 B4 B5\n")
    commands = [
        ["solve", big, "--steps"],
        ["check", big, "--answer", str(answer), "--show"],
        ["hint", big, "--level", "3"],
        ["arrange", str(table), "--heap"],
    ]
    def run(args: list[str], columns: str | None, terminal: bool) -> str:
        monkeypatch.setattr("cli.options.on_terminal", lambda: terminal)
        done = CliRunner().invoke(cli, [*args, color], env={"COLUMNS": columns}, color=True)
        assert done.exit_code in (0, 6), (args, done.output)  # 6: check's answer is illegal
        return done.stdout

    saved = 0
    for args in commands:

        piped = run(args, None, terminal=False)
        assert max(map(width_of, piped.splitlines())) <= 80
        assert run(args, "50", terminal=False) == piped
        for columns, fits in (("50", 50), ("64", 64), ("30", 40)):
            shown = run(args, columns, terminal=True)
            assert max(map(width_of, shown.splitlines())) <= fits, (args, columns, shown)
            assert _words_of(shown) == _words_of(piped), (args, columns)
            for line in shown.splitlines():  # a coloured tile whole on its line
                assert line.count("\x1b[0m") == len([m for m in line.split("\x1b[") if m.startswith("38;5")])
        wide = run(args, "160", terminal=True)
        assert _words_of(wide) == _words_of(piped) and len(wide.splitlines()) <= len(piped.splitlines()), args
        saved += len(piped.splitlines()) - len(wide.splitlines())
    assert saved > 0 or color == "--no-color"  # the room used: lines of coloured tiles no longer wrap
