"""Reading racks, tables and positions: formats, JSON records and one-line errors with locations."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from solver.errors import InputError, NotationError, PositionError, RulesError, RummikubError
from solver.file_io import write_whole
from solver.files import (
    answer_from_record,
    load_position,
    load_rack_and_table,
    parse_position_text,
    position_from_record,
    position_from_text,
)
from solver.position import Position
from solver.rules import RuleSet, Wrap
from solver.tiles import Tile, format_tiles


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in a fresh directory so files can be named briefly (labels in messages are as given)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(name: str, content: str | bytes) -> str:
    if isinstance(content, bytes):
        Path(name).write_bytes(content)
    else:
        Path(name).write_text(content, encoding="utf-8")
    return name


def text(tiles: tuple[Tile, ...]) -> str:
    return format_tiles(tiles)


def table(pos: Position) -> list[str]:
    return [format_tiles(s) for s in pos.table]


def message(exc: pytest.ExceptionInfo[BaseException]) -> str:
    return str(exc.value)


# --- rack and table files ---------------------------------------------------------------------

def test_rack_and_table_files() -> None:
    write("r.txt", "# my rack\nr4 R5, B7;O7\n\nKBR9  # a group shorthand\nR1-3\nJ\n")
    write("t.txt", "R10 R11 R12\n# comment line\n\nK7, B7, R7\nJ R2 R3  # a joker\n")
    pos = load_rack_and_table("r.txt", "t.txt", RuleSet(), opened=True)
    assert text(pos.rack) == "K9 B7 B9 R1 R2 R3 R4 R5 R9 O7 J"  # sorted
    assert table(pos) == ["R10 R11 R12", "K7 B7 R7", "J R2 R3"]  # kept as written
    assert pos.opened is True


def test_rack_file_alone_and_not_opened() -> None:
    write("r.txt", "R4 R5\n")
    pos = load_rack_and_table("r.txt", None, RuleSet(), opened=False)
    assert text(pos.rack) == "R4 R5"
    assert pos.table == ()
    assert pos.opened is False


def test_empty_rack_file() -> None:
    write("r.txt", "# nothing yet\n")
    assert load_rack_and_table("r.txt", None, RuleSet(), True).rack == ()


def test_bad_tile_in_rack_file_names_file_line_and_token() -> None:
    write("r.txt", "R4 R5\nR14\n")
    with pytest.raises(NotationError) as err:
        load_rack_and_table("r.txt", None, RuleSet(), True)
    assert message(err) == "invalid tile 'R14' in rack file r.txt line 2: numbers run 1..13"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("R4\n\n  x5 R6\n", "invalid tile 'x5' in rack file r.txt line 3: unknown colour 'X' (colours are K B R O)"),
        ("K\n", "invalid tile 'K' in rack file r.txt line 1: missing number after colour K"),
        ("R1 J5\n", "invalid tile 'J5' in rack file r.txt line 1: a joker is written J, without a number"),
        ("R1 # R99 is a comment\nR7-4\n",
         "invalid tile 'R7-4' in rack file r.txt line 2: runs do not wrap past 13 (rule wrap=none);"
         " a run from R4 to R7 is written R4-7"),
    ],
)
def test_rack_file_errors(content: str, expected: str) -> None:
    write("r.txt", content)
    with pytest.raises(NotationError) as err:
        load_rack_and_table("r.txt", None, RuleSet(), True)
    assert message(err) == expected


def test_rack_file_uses_the_rules() -> None:
    write("r.txt", "R12-1 G5\n")
    with pytest.raises(NotationError):
        load_rack_and_table("r.txt", None, RuleSet(), True)
    pos = load_rack_and_table("r.txt", None, RuleSet(wrap=Wrap.AMERICAN, colours=5), True)
    assert text(pos.rack) == "R1 R12 R13 G5"


def test_bad_tile_in_table_file() -> None:
    write("r.txt", "R4\n")
    write("t.txt", "R1 R2 R3\nK7 B7 X7\n")
    with pytest.raises(NotationError) as err:
        load_rack_and_table("r.txt", "t.txt", RuleSet(), True)
    assert message(err) == "invalid tile 'X7' in table file t.txt line 2: unknown colour 'X' (colours are K B R O)"


def test_invalid_set_in_table_file() -> None:
    write("r.txt", "R4\n")
    write("t.txt", "K7 B7 R7\n\nR1 R2 R4\n")
    with pytest.raises(PositionError) as err:
        load_rack_and_table("r.txt", "t.txt", RuleSet(), True)
    assert message(err) == (
        "invalid set 'R1 R2 R4' in table file t.txt line 3: gap in run: R1 R2 R4 needs 1 tile in between,"
        " it has 0 jokers"
    )


def test_table_set_too_short() -> None:
    write("r.txt", "R4\n")
    write("t.txt", "R1 R2\n")
    with pytest.raises(PositionError) as err:
        load_rack_and_table("r.txt", "t.txt", RuleSet(), True)
    assert message(err) == "invalid set 'R1 R2' in table file t.txt line 1: too short: 2 tiles, a set needs at least 3"


# --- too many copies, with every location ---------------------------------------------------------

def test_too_many_copies_across_rack_and_table() -> None:
    write("r.txt", "R5 R5\n")
    write("t.txt", "K1 K2 K3\nR5 R6 R7\n")
    with pytest.raises(PositionError) as err:
        load_rack_and_table("r.txt", "t.txt", RuleSet(), True)
    assert message(err) == (
        "too many copies of R5: 3 (in rack file r.txt line 1, table file t.txt line 2), the rules allow 2"
    )


def test_too_many_jokers() -> None:
    write("r.txt", "J\nR1\nJ\n")
    write("t.txt", "R4 J R6\n")
    with pytest.raises(PositionError) as err:
        load_rack_and_table("r.txt", "t.txt", RuleSet(), True)
    assert message(err) == (
        "too many jokers: 3 (in rack file r.txt line 1, rack file r.txt line 3, table file t.txt line 1),"
        " the rules allow 2"
    )


def test_copies_rule() -> None:
    write("r.txt", "R5 R5\n")
    with pytest.raises(PositionError, match=r"too many copies of R5: 2 \(in rack file r.txt line 1\), the rules allow 1"):
        load_rack_and_table("r.txt", None, RuleSet(copies=1), True)
    assert len(load_rack_and_table("r.txt", None, RuleSet(), True).rack) == 2


def test_many_locations_are_shortened() -> None:
    write("r.txt", "R5\nR5\nR5\nR5\nR5\n")
    with pytest.raises(PositionError) as err:
        load_rack_and_table("r.txt", None, RuleSet(copies=1), True)
    assert message(err) == (
        "too many copies of R5: 5 (in rack file r.txt line 1, rack file r.txt line 2, rack file r.txt line 3,"
        " rack file r.txt line 4, …), the rules allow 1"
    )


def test_position_object_checks_copies_too() -> None:
    with pytest.raises(PositionError) as err:
        Position.from_strings("R5 R5", ["R5 R6 R7"])
    assert message(err) == "too many copies of R5: 3 (in rack, table set 1), the rules allow 2"
    with pytest.raises(PositionError) as err:
        Position.from_strings("R5", ["R5 R6 R8"])
    assert message(err).startswith("invalid set 'R5 R6 R8' in table set 1: gap in run")


# --- unreadable files ---------------------------------------------------------------------------

def test_missing_files() -> None:
    write("r.txt", "R4\n")
    with pytest.raises(InputError) as err:
        load_rack_and_table("nope.txt", None, RuleSet(), True)
    assert message(err) == "cannot read rack file nope.txt: no such file"
    with pytest.raises(InputError) as err:
        load_rack_and_table("r.txt", "gone.txt", RuleSet(), True)
    assert message(err) == "cannot read table file gone.txt: no such file"
    with pytest.raises(InputError) as err:
        load_position("missing.txt")
    assert message(err) == "cannot read position file missing.txt: no such file"


def test_directory_instead_of_file() -> None:
    Path("d").mkdir()
    with pytest.raises(InputError) as err:
        load_rack_and_table("d", None, RuleSet(), True)
    assert message(err) == "cannot read rack file d: it is a directory"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"R4\x00R5", "rack file b.bin is not a text file (binary data at column 3)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "rack file b.bin is not a text file (binary data at line 3, column 1)"),
        (b"R4 \xff R5", "rack file b.bin is not UTF-8 text (byte 0xff at column 4)"),
        (b"R4\nR5 \xe9\n", "rack file b.bin is not UTF-8 text (byte 0xe9 at line 2, column 4)"),
        (b"\xef\xbb\xbfR4 \xff", "rack file b.bin is not UTF-8 text (byte 0xff at column 4)"),  # BOM unseen
        (b"R4 \x07", "rack file b.bin is not a text file (control character '\\x07' at column 4)"),
    ],
)
def test_binary_rack_file(content: bytes, expected: str) -> None:
    write("b.bin", content)
    with pytest.raises(InputError) as err:
        load_rack_and_table("b.bin", None, RuleSet(), True)
    assert message(err) == expected


def test_binary_position_file() -> None:
    write("p.bin", b"rack: R4\x00")
    with pytest.raises(InputError) as err:
        load_position("p.bin")
    assert message(err) == "position file p.bin is not a text file (binary data at column 9)"


def test_too_large_file() -> None:
    write("big.txt", "R4 " * 400_000)
    with pytest.raises(InputError) as err:
        load_rack_and_table("big.txt", None, RuleSet(), True)
    assert message(err) == "rack file big.txt is too large (over 1,000,000 bytes)"


def test_utf8_bom_and_crlf_are_fine() -> None:
    write("r.txt", "\ufeffR4 R5\r\nR6\r\n".encode())
    assert text(load_rack_and_table("r.txt", None, RuleSet(), True).rack) == "R4 R5 R6"
    write("p.txt", "\ufefftitle: T\r\nrack: R4\r\n  R5\r\ntable:\r\n  R1 R2 R3\r\n".encode())
    pos = load_position("p.txt")
    assert (pos.title, text(pos.rack), table(pos)) == ("T", "R4 R5", ["R1 R2 R3"])


def test_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"R4 R5\nR14\n")))
    with pytest.raises(NotationError) as err:
        load_rack_and_table("-", None, RuleSet(), True)
    assert message(err) == "invalid tile 'R14' in rack file <stdin> line 2: numbers run 1..13"


def test_only_one_standard_input() -> None:
    with pytest.raises(InputError) as err:
        load_rack_and_table("-", "-", RuleSet(), True)
    assert message(err) == "only one of the rack and table files can be standard input (-)"


# --- position text format -----------------------------------------------------------------------

FULL_TEXT = """\
# A position using every key.
title: Wrap test   # trailing comment
id: p1
opened: no
rules: wrap=american jokers=1 meld-threshold=25
rack: R11 K5
  B7, O7
table: R12 R13 R1
  K1 K2 K3

  # a comment between sets
K8 B8 R8
notes: american wrap lets R11 join;
  K5 stays on the rack
"""


def test_position_text_every_key() -> None:
    pos = load_position(write("p.txt", FULL_TEXT))
    assert pos.title == "Wrap test"
    assert pos.id == "p1"
    assert pos.opened is False
    assert pos.rules == RuleSet(wrap=Wrap.AMERICAN, jokers=1, meld_threshold=25)
    assert text(pos.rack) == "K5 B7 R11 O7"
    assert table(pos) == ["R12 R13 R1", "K1 K2 K3", "K8 B8 R8"]
    assert pos.notes == "american wrap lets R11 join; K5 stays on the rack"


def test_position_text_minimal() -> None:
    pos = load_position(write("p.txt", "rack: R4 R5\n"))
    assert text(pos.rack) == "R4 R5"
    assert pos.table == ()
    assert pos.opened is False  # unsaid, with an empty table: the initial meld
    assert pos.rules == RuleSet()
    assert (pos.title, pos.id, pos.notes) == ("", "", "")


def test_position_text_empty_rack_and_keys_any_case() -> None:
    pos = load_position(write("p.txt", "Rack:\nTABLE:\n  R1 R2 R3\nOpened: Yes\n"))
    assert pos.rack == ()
    assert table(pos) == ["R1 R2 R3"]
    assert pos.opened is True


@pytest.mark.parametrize(("value", "opened"), [("yes", True), ("no", False), ("true", True), ("false", False),
                                               ("Y", True), ("n", False), ("1", True), ("0", False)])
def test_position_text_opened_values(value: str, opened: bool) -> None:
    assert load_position(write("p.txt", f"opened: {value}\nrack: R4\n")).opened is opened


def test_position_text_continuation_lines() -> None:
    content = "rack: R1\n  R2 R3\n\tR4\nR5\ntable:\n R7 R8 R9\nK10 B10 O10\nnotes: one\n two\n\tthree\n"
    pos = parse_position_text(content, "p.txt")
    assert text(pos.rack) == "R1 R2 R3 R4 R5"
    assert table(pos) == ["R7 R8 R9", "K10 B10 O10"]
    assert pos.notes == "one two three"


def test_notes_go_on_only_on_indented_lines() -> None:
    # Free text would swallow a mistyped key: 'opened no' must not become part of the notes.
    content = "rack: R10 R11 R12\ntable:\n  K1 K2 K3\nnotes: I have not opened\nopened no\n"
    with pytest.raises(InputError, match=r"p.txt line 5: unexpected 'opened no' after 'notes:' \(notes go on on indented"):
        parse_position_text(content, "p.txt")


def test_position_text_overrides() -> None:
    write("p.txt", "opened: yes\nrules: wrap=american jokers=1\nrack: R4\n")
    pos = load_position("p.txt", {"wrap": "full"}, opened=False)
    assert pos.rules == RuleSet(wrap=Wrap.FULL, jokers=1)  # the file's other rules stay
    assert pos.opened is False


def test_position_text_tiles_follow_the_file_rules() -> None:
    pos = load_position(write("p.txt", "rules: numbers=20 colours=5\nrack: R20 G3\n"))
    assert text(pos.rack) == "R20 G3"
    with pytest.raises(NotationError):
        load_position(write("q.txt", "rack: R20\n"))


@pytest.mark.parametrize(
    ("content", "error", "expected"),
    [
        ("rack: R4\ncolour: red\n", InputError,
         "position file p.txt line 2: unknown key 'colour' (keys: title, id, opened, rules, rack, table, notes, difficulty, answer-played, answer)"),
        ("rack: R4\n\n# c\nrack: R5\n", InputError, "position file p.txt line 4: 'rack' given twice (first on line 1)"),
        ("title: a\nrack: R4\nTitle: b\n", InputError,
         "position file p.txt line 3: 'title' given twice (first on line 1)"),
        ("title: x\nid: 3\n", InputError, "position file p.txt: no 'rack:' line (an empty rack is written 'rack:')"),
        ("", InputError, "position file p.txt: no 'rack:' line (an empty rack is written 'rack:')"),
        ("R4 R5\nrack: R4\n", InputError,
         "position file p.txt line 1: expected 'key: value' (such as 'rack: R4 R5'), got 'R4 R5'"),
        ("title: x\n  more title\nrack: R4\n", InputError,
         "position file p.txt line 2: unexpected 'more title' after 'title:'"),
        ("rack: R4\nrules: jokers=1\n  wrap=full\n", InputError,
         "position file p.txt line 3: unexpected 'wrap=full' after 'rules:'"),
        ("rack: R4\nopened: maybe\n", InputError, "position file p.txt line 2: opened must be yes or no, got 'maybe'"),
        ("rack: R4\nrules: wrap\n", InputError,
         "position file p.txt line 2: rule 'wrap' is not key=value (such as wrap=american)"),
        ("rack: R4\nrules: jokers=x\n", RulesError,
         "position file p.txt line 2: invalid rule jokers='x': must be a whole number"),
        ("rack: R4\nrules: wrap=sideways\n", RulesError,
         "position file p.txt line 2: invalid rule wrap='sideways': must be none, american or full"),
        ("rules: jokers=9\nrack: R4\n", RulesError,
         "position file p.txt line 1: invalid rule jokers=9: must be between 0 and 8"),
        ("rack: R4\nrules: speed=fast\n", RulesError,
         "position file p.txt line 2: unknown rule 'speed': known rules are numbers, colours, copies, jokers,"
         " min-set-size, meld-threshold, joker-in-meld, continue-after-meld, wrap, joker-penalty, joker-rules,"
         " joker-retrieval"),
        ("rack: R4\n  R14\n", NotationError, "invalid tile 'R14' in rack in position file p.txt line 2: numbers run 1..13"),
        ("rack: R4\ntable: R1 R2 R3\n  K1 Q1 B1\n", NotationError,
         "invalid tile 'Q1' in table in position file p.txt line 3: unknown colour 'Q' (colours are K B R O)"),
        ("rack: R4\ntable:\n  R1 R2 R3\n  R1 R2 R4\n", PositionError,
         "invalid set 'R1 R2 R4' in table in position file p.txt line 4: gap in run: R1 R2 R4 needs 1 tile in"
         " between, it has 0 jokers"),
        ("rack: R1 R1\ntable:\n  R1 R2 R3\n", PositionError,
         "too many copies of R1: 3 (in rack in position file p.txt line 1, table in position file p.txt line 3),"
         " the rules allow 2"),
        ("rack: J\n  J J\n", PositionError,
         "too many jokers: 3 (in rack in position file p.txt line 1, rack in position file p.txt line 2),"
         " the rules allow 2"),
    ],
)
def test_position_text_errors(content: str, error: type[Exception], expected: str) -> None:
    write("p.txt", content)
    with pytest.raises(error) as err:
        load_position("p.txt")
    assert message(err) == expected


# --- JSON records ---------------------------------------------------------------------------------

def test_a_json_lines_file_given_for_one_json_value_says_so() -> None:
    """A game record (JSON lines) given as a position file: the second value is named as such,
    not as 'Extra data'."""
    text = '{"type": "game", "version": 1}\n{"type": "turn"}\n'
    with pytest.raises(InputError) as caught:
        position_from_text(text, "rec.jsonl")
    assert str(caught.value) == (
        "position file rec.jsonl line 2: not valid JSON: a second JSON value starts at column 1"
        " (this file holds one JSON value, not one a line)"
    )


def test_json_position_file() -> None:
    record = {
        "id": "json-1",
        "title": "JSON position",
        "rack": ["R5", "b7", "O7"],
        "table": [["R4", "J", "R6"], "K1 K2 K3", ["R10-12"]],
        "initial_meld": False,
        "rules": {"wrap": "american", "joker-in-meld": True, "meld_threshold": 40},
        "notes": "n",
    }
    pos = load_position(write("p.json", json.dumps(record, indent=2)))
    assert (pos.id, pos.title, pos.notes) == ("json-1", "JSON position", "n")
    assert text(pos.rack) == "B7 R5 O7"
    assert table(pos) == ["R4 J R6", "K1 K2 K3", "R10 R11 R12"]
    assert pos.opened is True
    assert pos.rules == RuleSet(wrap=Wrap.AMERICAN, joker_in_meld=True, meld_threshold=40)


@pytest.mark.parametrize(
    ("fields", "opened"),
    [
        ({}, False),  # unsaid, with an empty table: the initial meld
        ({"table": ["R1 R2 R3"]}, True),  # unsaid, with sets on the table: opened
        ({"opened": True}, True),  # said: an empty table does not override it
        ({"initial_meld": True}, False),
        ({"initial_meld": False}, True),
        ({"opened": False}, False),
        ({"opened": True}, True),
        ({"initial_meld": False, "opened": True}, True),
    ],
)
def test_json_initial_meld_and_opened(fields: dict[str, bool], opened: bool) -> None:
    assert position_from_record({"rack": "R4", **fields}, "p").opened is opened


def test_json_consistent_initial_meld_and_opened_false() -> None:
    # Both say "not opened yet": no contradiction.
    assert position_from_record({"rack": "R1", "initial_meld": True, "opened": False}, "p").opened is False


@pytest.mark.parametrize(("initial_meld", "opened"), [(True, True), (False, False)])
def test_json_contradicting_initial_meld_and_opened(initial_meld: bool, opened: bool) -> None:
    with pytest.raises(InputError, match="'opened' and 'initial_meld' contradict each other"):
        position_from_record({"rack": "R1", "initial_meld": initial_meld, "opened": opened}, "p")


def test_json_string_rack_and_id_number() -> None:
    pos = position_from_record({"id": 7, "rack": "R10 R11 R12, K1;K2", "initial_meld": True}, "batch line 6")
    assert pos.id == 7  # as given, so an answer echoes a number
    assert text(pos.rack) == "K1 K2 R10 R11 R12"
    assert pos.opened is False


def test_json_overrides() -> None:
    record = {"rack": "R4", "rules": {"wrap": "american", "jokers": 1}, "initial_meld": True}
    pos = position_from_record(record, "p", {"jokers": 0}, opened=True)
    assert pos.rules == RuleSet(wrap=Wrap.AMERICAN, jokers=0)
    assert pos.opened is True


@pytest.mark.parametrize(
    ("record", "error", "expected"),
    [
        ({"rack": "R1", "foo": 1}, InputError,
         "position file p.json: unknown field 'foo' (fields: id, initial_meld, notes, opened, rack, rules, table,"
         " title)"),
        ({"rack": "R1", "initialMeld": True}, InputError,
         "position file p.json: unknown field 'initialMeld' (fields: id, initial_meld, notes, opened, rack, rules,"
         " table, title)"),
        ({"table": []}, InputError, "position file p.json: missing field 'rack'"),
        ({"rack": ["R14"]}, NotationError, "invalid tile 'R14' in rack in position file p.json: numbers run 1..13"),
        ({"rack": "R1 R2 KK7"}, NotationError,
         "invalid tile 'KK7' in rack in position file p.json: a colour repeats in the group shorthand"),
        ({"rack": [], "table": [["R1", "R2", "R3"], ["K5", "X5", "B5"]]}, NotationError,
         "invalid tile 'X5' in table set 2 in position file p.json: unknown colour 'X' (colours are K B R O)"),
        ({"rack": [5]}, InputError, 'rack in position file p.json: 5 is not a tile (tiles are strings like "R7")'),
        ({"rack": {"R": 5}}, InputError,
         'rack in position file p.json: expected a list of tiles such as ["R4", "R5"]'),
        ({"rack": [], "table": "R1 R2 R3"}, InputError, "position file p.json: 'table' must be a list of sets"),
        ({"rack": [], "table": [["R1", "R2", "R4"]]}, PositionError,
         "invalid set 'R1 R2 R4' in table set 1 in position file p.json: gap in run: R1 R2 R4 needs 1 tile in"
         " between, it has 0 jokers"),
        ({"rack": "R5 R5", "table": ["R5 R6 R7"]}, PositionError,
         "too many copies of R5: 3 (in rack in position file p.json, table set 1 in position file p.json),"
         " the rules allow 2"),
        ({"rack": "R1", "initial_meld": "yes"}, InputError,
         "position file p.json: 'initial_meld' must be true or false, got \"yes\""),
        ({"rack": "R1", "opened": 1}, InputError, "position file p.json: 'opened' must be true or false, got 1"),
        ({"rack": "R1", "rules": "wrap=american"}, InputError,
         "position file p.json: 'rules' must be an object such as {\"wrap\": \"american\"}"),
        ({"rack": "R1", "rules": {"jokers": 9}}, RulesError,
         "position file p.json: invalid rule jokers=9: must be between 0 and 8"),
        ({"rack": "R1", "rules": {"colour": 3}}, RulesError,
         "position file p.json: unknown rule 'colour': known rules are numbers, colours, copies, jokers,"
         " min-set-size, meld-threshold, joker-in-meld, continue-after-meld, wrap, joker-penalty, joker-rules,"
         " joker-retrieval"),
        ({"rack": "R1", "title": ["x"]}, InputError, "position file p.json: 'title' must be a string or a whole number"),
        ({"rack": "R1", "id": True}, InputError, "position file p.json: 'id' must be a string or a whole number"),
        (["R1"], InputError, "position file p.json: expected a JSON object with 'rack' and 'table'"),
    ],
)
def test_json_record_errors(record: object, error: type[Exception], expected: str) -> None:
    with pytest.raises(error) as err:
        position_from_record(record, "position file p.json")
    assert message(err) == expected


def test_json_file_errors_name_the_file() -> None:
    write("p.json", '{"rack": "R4",\n "table": [}\n')
    with pytest.raises(InputError) as err:
        load_position("p.json")
    assert message(err).startswith("position file p.json line 2: not valid JSON: ")
    write("q.json", '{"rack": ["R4", "R0"]}')
    with pytest.raises(NotationError) as err:
        load_position("q.json")
    assert message(err) == "invalid tile 'R0' in rack in position file q.json: numbers run 1..13"


def test_json_tiles_follow_the_record_rules() -> None:
    pos = load_position(write("p.json", '{"rack": "R4", "table": [["J", "R1", "R2"]], "rules": {"wrap": "full"}}'))
    assert pos.rules.wrap is Wrap.FULL
    assert table(pos) == ["J R1 R2"]
    with pytest.raises(PositionError, match="runs may not wrap past 13"):
        position_from_record({"rack": "R4", "table": [["R13", "R1", "R2"]]}, "p")


def test_position_to_dict_reads_back() -> None:
    pos = load_position(write("p.txt", FULL_TEXT))
    again = position_from_record(pos.to_dict(), "p")
    assert again == pos


# --- content without a file (the web app's uploads) -----------------------------------------------

def test_position_from_text_reads_both_formats_like_a_file() -> None:
    from_file = load_position(write("p.txt", FULL_TEXT))
    assert position_from_text(FULL_TEXT, "upload.txt") == from_file
    as_json = json.dumps(from_file.to_dict())
    assert position_from_text("\n  " + as_json, "upload.json") == from_file


def test_position_from_text_names_the_label_and_applies_overrides() -> None:
    with pytest.raises(NotationError) as err:
        position_from_text("rack: R4 R44\n", "upload.txt")
    assert message(err) == "invalid tile 'R44' in rack in position file upload.txt line 1: numbers run 1..13"
    with pytest.raises(InputError) as err:
        position_from_text('{"rack": [}', "upload.json")
    assert message(err).startswith("position file upload.json line 1: not valid JSON: ")
    pos = position_from_text('{"rack": "R4", "initial_meld": true}', "u", {"wrap": "full"}, opened=True)
    assert (pos.rules.wrap, pos.opened) == (Wrap.FULL, True)


def test_answer_from_record_keeps_invalid_sets_and_expands_shorthands() -> None:
    rules = RuleSet()
    answer = answer_from_record([["R4", "J", "R6"], "KBR7", ["R1", "R2"], []], "answer", rules)
    assert [text(s) for s in answer] == ["R4 J R6", "K7 B7 R7", "R1 R2", ""]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("R4 R5 R6", 'answer: expected a list of sets such as [["R4", "R5", "R6"]]'),
        ([["R4", "R5", "R6"], ["R14"]], "invalid tile 'R14' in set 2 of answer: numbers run 1..13"),
        ([["R4", 5]], 'set 1 of answer: 5 is not a tile (tiles are strings like "R7")'),
        ([{"R": 4}], 'set 1 of answer: expected a list of tiles such as ["R4", "R5"]'),
    ],
)
def test_answer_from_record_errors(value: object, expected: str) -> None:
    with pytest.raises(RummikubError) as err:
        answer_from_record(value, "answer", RuleSet())
    assert message(err) == expected


@pytest.mark.parametrize(
    ("content", "said", "opened"),
    [
        ("rack: R4 R5\n", None, False),  # no table, unsaid: the initial meld
        ("rack: R4 R5\ntable:\n  R1 R2 R3\n", None, True),  # sets on the table: opened
        ("opened: yes\nrack: R4 R5\n", None, True),  # the file says so
        ("rack: R4 R5\n", True, True),  # --opened says so
        ("rack: R4 R5\ntable:\n  R1 R2 R3\n", False, False),  # --initial-meld says so
    ],
)
def test_an_empty_table_is_the_initial_meld_unless_said(content: str, said: bool | None, opened: bool) -> None:
    assert load_position(write("p.txt", content), opened=said).opened is opened


@pytest.mark.parametrize(("table", "said", "opened"), [(None, None, False), ("R1 R2 R3\n", None, True),
                                                       (None, True, True), ("R1 R2 R3\n", False, False)])
def test_rack_and_table_files_decide_opened_the_same_way(
    table: str | None, said: bool | None, opened: bool
) -> None:
    table_path = write("t.txt", table) if table is not None else None
    assert load_rack_and_table(write("r.txt", "R4 R5\n"), table_path, RuleSet(), said).opened is opened
def test_a_file_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "gen-1-1.txt"
    target.write_text("the old puzzle\n")
    real_write = Path.write_text

    def half_then_interrupt(self: Path, text: str, **kwargs: object) -> int:
        real_write(self, text[:5], encoding="utf-8")
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_text", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_whole(target, "the new puzzle\n", "puzzle file")
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no side file left
    assert target.read_text() == "the old puzzle\n"  # the old file untouched, not half of the new
    write_whole(target, "the new puzzle\n", "puzzle file")
    assert target.read_text() == "the new puzzle\n"
    with pytest.raises(InputError, match=r"cannot write puzzle file .*/no/such/dir/x\.txt: no such folder$"):
        write_whole(tmp_path / "no" / "such" / "dir" / "x.txt", "x", "puzzle file")


def test_writes_say_why_in_the_words_reads_use(tmp_path: Path) -> None:
    from solver.game.records import RecordWriter

    # "it is a directory" as a read says, not the system's "Is a directory".
    with pytest.raises(InputError) as err:
        write_whole(tmp_path, "x", "puzzle file")
    assert message(err) == f"cannot write puzzle file {tmp_path}: it is a directory"
    with pytest.raises(InputError) as err:
        RecordWriter(tmp_path, {"version": 1})
    assert message(err) == f"cannot write record {tmp_path}: it is a directory"
    with pytest.raises(InputError) as err:
        RecordWriter(tmp_path / "gone" / "r.jsonl", {"version": 1})
    assert message(err) == f"cannot write record {tmp_path / 'gone' / 'r.jsonl'}: no such folder"


def test_a_json_list_is_refused_as_json() -> None:
    with pytest.raises(InputError) as err:
        position_from_text('["R1"]', "p.json")
    assert message(err) == "position file p.json: expected a JSON object with 'rack' and 'table'"  # not "expected 'key: value'"


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"difficulty": "hard"}, "'difficulty' must be a whole number 1..5, got \"hard\""),
        ({"answer": "garbage"}, "'answer' must be {\"tiles_played\": N, \"table\": [...]}"),
        ({"answer": {"tiles_played": 1, "table": [["X9"]]}}, "invalid tile 'X9' in set 1 of answer table"),
    ],
)
def test_a_puzzles_json_answer_is_read_though_left_aside(change: dict[str, Any], said: str) -> None:
    good = {"rack": ["R1"], "table": [["R2", "R3", "R4"]], "difficulty": 1,
            "answer": {"tiles_played": 1, "table": [["R1", "R2", "R3", "R4"]]}}
    assert position_from_text(json.dumps(good), "p.json").rack == (Tile.parse("R1"),)
    with pytest.raises(RummikubError) as err:
        position_from_text(json.dumps({**good, **change}), "p.json")
    assert said in message(err)


def test_a_control_character_on_a_later_batch_line_is_that_lines_error(tmp_path: Path) -> None:
    # A short file was refused whole (the first 8 kB decided), line 1's answer lost.
    from solver.batch import read_lines

    for bad in ("\x1b", "\x00"):  # a control character, binary data
        with open(write("h.jsonl", '{"rack":["R1"]}\n{"rack":["R1' + bad + '"]}\n'), "rb") as stream:
            lines = list(read_lines(stream))
        assert [n for n, _ in lines] == [1, 2]


def test_hash_touching_a_word_is_text_in_title_id_and_notes() -> None:
    text = (
        "# a comment line\n"
        "title: Puzzle #3: the R5 trick\n"
        "id: p#1\n"
        "rack: R5 #my rack\n"
        "table:\n"
        "  R6 R7 R8 # a run\n"
        "  # a comment line among the sets\n"
        "notes: see #3\n"
        "  and #4 # a comment\n"
    )
    position = position_from_text(text, "hash.txt")
    assert (position.title, position.id, position.notes) == ("Puzzle #3: the R5 trick", "p#1", "see #3 and #4")
    assert format_tiles(position.rack) == "R5" and [format_tiles(s) for s in position.table] == ["R6 R7 R8"]
