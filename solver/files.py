"""Reading racks, tables and positions from files, standard input and JSON records.

Formats (documented in docs/formats.md):
- rack file: tiles separated by spaces, commas or newlines; ``#`` starts a comment;
- table file: one set per line, tiles separated by spaces or commas;
- position file: ``key: value`` lines (``title``, ``id``, ``opened``, ``rules``, ``rack``,
  ``table``, ``notes``); ``table:`` is followed by one set per line; or a JSON object with the
  batch record's fields.

Every error names the file, the line, the token and what is wrong, as one line. The files
themselves are read and written by :mod:`solver.file_io`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from solver.errors import InputError, NotationError, RulesError
from solver.file_io import STDIN, load_json, read_text
from solver.position import Located, Position, check_table_set, check_tile_counts, opened_unless_said
from solver.rules import RuleSet
from solver.tiles import Tile, TileSyntaxError, parse_token
from solver.wording import json_text

_SPLIT = re.compile(r"[\s,;]+")
_KEY = re.compile(r"^([A-Za-z][A-Za-z_-]*)\s*:(.*)$")
POSITION_KEYS = ("title", "id", "opened", "rules", "rack", "table", "notes")
FREE_TEXT = ("title", "id", "notes")  # keys whose value is text of any kind, '#3' included
_FREE_TEXT_COMMENT = re.compile(r"(?:^|(?<=\s))#(?=\s|$)")
# The fields of a position as one JSON object (a batch line, a JSON position file).
RECORD_FIELDS = ("rack", "table", "initial_meld", "opened", "rules", "id", "title", "notes")
# A puzzle's recorded answer (puzzles/library.py); a position file may carry it, solving ignores it.
PUZZLE_KEYS = (*POSITION_KEYS, "difficulty", "answer-played", "answer")
PUZZLE_JSON_FIELDS = ("difficulty", "answer")  # what `puzzles show --json` adds to a position


def _strip_comment(line: str) -> str:
    return line.split("#", 1)[0]


def parse_tokens(text: str, where: str, rules: RuleSet) -> list[Located]:
    """Tiles of one line (or one JSON string), each with its location."""
    out: list[Located] = []
    for token in _SPLIT.split(text.strip()):
        if not token:
            continue
        try:
            out.extend((t, where) for t in parse_token(token, rules))
        except TileSyntaxError as err:
            raise NotationError(err.located(where)) from None
    return out


def parse_rack(text: str, label: str, rules: RuleSet, kind: str = "rack file") -> list[Located]:
    tiles: list[Located] = []
    for number, line in enumerate(text.splitlines(), 1):
        tiles += parse_tokens(_strip_comment(line), f"{kind} {label} line {number}", rules)
    return tiles


def parse_table_line(line: str, where: str, rules: RuleSet) -> list[Located]:
    tiles = parse_tokens(line, where, rules)
    check_table_set([t for t, _ in tiles], rules, where)
    return tiles


def parse_table(text: str, label: str, rules: RuleSet, kind: str = "table file") -> list[list[Located]]:
    sets = []
    for number, line in enumerate(text.splitlines(), 1):
        line = _strip_comment(line)
        if line.strip():
            sets.append(parse_table_line(line, f"{kind} {label} line {number}", rules))
    return sets


def load_answer(path: str, rules: RuleSet) -> list[list[Tile]]:
    """A proposed table after the move: one set per line. Tiles must be tiles; the sets are
    not checked here (the validator reports invalid ones)."""
    text, label = read_text(path, "answer")
    sets = []
    for number, line in enumerate(text.splitlines(), 1):
        line = _strip_comment(line)
        if line.strip():
            sets.append(tiles_of(parse_tokens(line, f"answer file {label} line {number}", rules)))
    return sets


def load_lines(path: str, rules: RuleSet, what: str = "table") -> list[list[Tile]]:
    """Lines of tiles that need not be valid sets (a messed-up table), counts checked."""
    text, label = read_text(path, what)
    lines: list[list[Located]] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = _strip_comment(line)
        if line.strip():
            lines.append(parse_tokens(line, f"{what} file {label} line {number}", rules))
    check_tile_counts([e for line in lines for e in line], rules)
    return [tiles_of(line) for line in lines]


def _build(
    rack: list[Located],
    table: list[list[Located]],
    opened: bool | None,
    rules: RuleSet,
    **meta: str,
) -> Position:
    """The position, checked; ``opened`` None: as the table says (empty: the initial meld)."""
    check_tile_counts(rack + [e for s in table for e in s], rules)
    return Position(
        rack=tuple(t for t, _ in rack),
        table=tuple(tuple(t for t, _ in s) for s in table),
        opened=opened_unless_said(table, opened),
        rules=rules,
        **meta,
    )


def load_rack_and_table(
    rack_path: str, table_path: str | None, rules: RuleSet, opened: bool | None = None
) -> Position:
    """A position from a rack file and an optional table file; ``opened`` None: opened unless
    the table is empty (see :func:`~solver.position.opened_unless_said`)."""
    if rack_path == STDIN and table_path == STDIN:
        raise InputError("only one of the rack and table files can be standard input (-)")
    text, label = read_text(rack_path, "rack")
    rack = parse_rack(text, label, rules)
    table: list[list[Located]] = []
    if table_path is not None:
        text, label = read_text(table_path, "table")
        table = parse_table(text, label, rules)
    return _build(rack, table, opened, rules)


@dataclass
class _Field:
    line: int
    value: str
    more: list[tuple[int, str]]


def load_position(
    path: str, rule_overrides: Mapping[str, object] | None = None, opened: bool | None = None
) -> Position:
    """A position file (text or JSON). Explicit rule options and ``opened`` override the file;
    a file that does not say whether the player has opened is opened unless its table is empty."""
    text, label = read_text(path, "position")
    return position_from_text(text, label, rule_overrides, opened)


def position_from_text(
    text: str,
    label: str,
    rule_overrides: Mapping[str, object] | None = None,
    opened: bool | None = None,
) -> Position:
    """A position file's content (``key: value`` lines, or one JSON object), wherever it came
    from: a file on disk, or one uploaded to the web app. ``label`` names it in messages."""
    if text.lstrip().startswith(("{", "[")):  # JSON (a list is refused as JSON, not as a key line)
        where = f"position file {label}"
        record = load_json(text, where)
        recorded: dict[str, Any] = {}
        if isinstance(record, dict):  # a puzzle's JSON (puzzles show --json): its answer is no part of it
            recorded = {k: v for k, v in record.items() if k in PUZZLE_JSON_FIELDS}
            record = {k: v for k, v in record.items() if k not in PUZZLE_JSON_FIELDS}
        position = position_from_record(record, where, rule_overrides, opened)
        _check_puzzle_json(recorded, where, position.rules)  # left aside, but a typo is still a typo
        return position
    return parse_position_text(text, label, rule_overrides, opened)


def _check_puzzle_json(recorded: Mapping[str, Any], where: str, rules: RuleSet) -> None:
    """A puzzle's JSON ``difficulty`` (1-5) and ``answer`` (``{"tiles_played": N, "table": [...]}``)
    as ``puzzles show --json`` writes them, or InputError naming the field."""
    if "difficulty" in recorded:
        level = recorded["difficulty"]
        if type(level) is not int or not 1 <= level <= 5:
            raise InputError(f"{where}: 'difficulty' must be a whole number 1..5, got {json_text(level)}")
    if "answer" in recorded:
        answer = recorded["answer"]
        if not isinstance(answer, dict) or set(answer) != {"tiles_played", "table"}:
            raise InputError(f'{where}: \'answer\' must be {{"tiles_played": N, "table": [...]}}, as puzzles show --json writes it')
        played = answer["tiles_played"]
        if type(played) is not int or played < 0:
            raise InputError(f"{where}: answer 'tiles_played' must be a whole number, got {json_text(played)}")
        answer_from_record(answer["table"], f"answer table in {where}", rules)


def parse_position_text(
    text: str,
    label: str,
    rule_overrides: Mapping[str, object] | None = None,
    opened: bool | None = None,
) -> Position:
    fields = read_fields(text, label, PUZZLE_KEYS)
    recorded = {k: fields.pop(k) for k in PUZZLE_ONLY_KEYS if k in fields}
    position = position_from_fields(fields, label, rule_overrides, opened)
    # A puzzle's recorded answer is no part of the position, but a typo in it is still a typo.
    read_puzzle_record(recorded, f"position file {label}", position.rules)
    return position


PUZZLE_ONLY_KEYS = ("difficulty", "answer-played", "answer")


@dataclass(frozen=True)
class PuzzleRecord:
    """What a puzzle file adds to its position (None where a key is left out)."""

    difficulty: int | None
    answer_played: int | None
    answer: tuple[tuple[Tile, ...], ...] | None


def read_puzzle_record(recorded: Mapping[str, _Field], where: str, rules: RuleSet) -> PuzzleRecord:
    """A puzzle file's ``difficulty`` (1-5), ``answer-played`` (a whole number) and ``answer``
    (a set of tiles per line, not checked here), or InputError naming the line."""
    numbers: dict[str, int] = {}
    for key in ("difficulty", "answer-played"):
        if key not in recorded:
            continue
        value = recorded[key].value.strip()
        if not (value.isascii() and value.isdigit()):
            raise InputError(f"{where} line {recorded[key].line}: {key} must be a whole number, got {value[:20]!r}")
        numbers[key] = int(value)
    if "difficulty" in numbers and not 1 <= numbers["difficulty"] <= 5:
        raise InputError(f"{where} line {recorded['difficulty'].line}: difficulty runs 1..5")
    answer = None
    if "answer" in recorded:
        field = recorded["answer"]
        lines = ([(field.line, field.value)] if field.value else []) + field.more
        answer = tuple(tuple(tiles_of(parse_tokens(line, f"answer in {where} line {n}", rules))) for n, line in lines)
    return PuzzleRecord(numbers.get("difficulty"), numbers.get("answer-played"), answer)


def read_fields(text: str, label: str, keys: Sequence[str]) -> dict[str, _Field]:
    """The ``key: value`` lines of a position (or puzzle) file, continuation lines attached."""
    fields: dict[str, _Field] = {}
    current: _Field | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw).rstrip()
        if not line.strip():
            continue
        match = _KEY.match(line)
        if match is not None and not raw[0].isspace():
            free = match.group(1).lower() in FREE_TEXT
        else:  # a line going on: free text only after 'notes:'
            free = current is not None and current is fields.get("notes")
        if free:  # '#' touching a word is text there (title: Puzzle #3); '# ' starts a comment
            line = _FREE_TEXT_COMMENT.split(raw, 1)[0].rstrip()
            match = _KEY.match(line)
        if match and not raw[0].isspace():
            key = match.group(1).lower().replace("_", "-")
            if key not in keys:
                raise InputError(
                    f"position file {label} line {number}: unknown key {match.group(1)!r}"
                    f" (keys: {', '.join(keys)})"
                )
            if key in fields:
                raise InputError(
                    f"position file {label} line {number}: {key!r} given twice"
                    f" (first on line {fields[key].line})"
                )
            current = fields[key] = _Field(number, match.group(2).strip(), [])
        elif current is None:
            raise InputError(
                f"position file {label} line {number}: expected 'key: value' (such as 'rack: R4 R5'),"
                f" got {line.strip()[:40]!r}"
            )
        elif current is fields.get("notes") and not raw[0].isspace():
            # Free text swallows anything: only indented lines go on, so a mistyped key
            # ('opened no') is not taken for more notes.
            raise InputError(
                f"position file {label} line {number}: unexpected {line.strip()[:40]!r} after 'notes:'"
                " (notes go on on indented lines; a key is written 'key: value')"
            )
        else:
            current.more.append((number, line.strip()))
    return fields


def position_from_fields(
    fields: dict[str, _Field],
    label: str,
    rule_overrides: Mapping[str, object] | None = None,
    opened: bool | None = None,
) -> Position:
    where = f"position file {label}"
    for key in ("title", "id", "opened", "rules"):
        if key in fields and fields[key].more:
            n, extra = fields[key].more[0]
            raise InputError(f"{where} line {n}: unexpected {extra[:40]!r} after '{key}:'")
    if "rack" not in fields:
        raise InputError(f"{where}: no 'rack:' line (an empty rack is written 'rack:')")
    rules = _rules_from_text(fields.get("rules"), where, rule_overrides)
    if opened is None and "opened" in fields:
        opened = _yes_no(fields["opened"].value, f"{where} line {fields['opened'].line}", "opened")
    rack_field = fields["rack"]
    rack = parse_tokens(rack_field.value, f"rack in {where} line {rack_field.line}", rules)
    for n, line in rack_field.more:
        rack += parse_tokens(line, f"rack in {where} line {n}", rules)
    table: list[list[Located]] = []
    if "table" in fields:
        tf = fields["table"]
        lines = ([(tf.line, tf.value)] if tf.value else []) + tf.more
        table = [parse_table_line(line, f"table in {where} line {n}", rules) for n, line in lines]
    notes = (
        " ".join([fields["notes"].value] + [line for _, line in fields["notes"].more]).strip()
        if "notes" in fields
        else ""
    )
    return _build(
        rack,
        table,
        opened,
        rules,
        title=fields["title"].value if "title" in fields else "",
        id=fields["id"].value if "id" in fields else "",
        notes=notes,
    )


def _yes_no(text: str, where: str, key: str) -> bool:
    value = text.strip().lower()
    if value in ("yes", "true", "y", "1"):
        return True
    if value in ("no", "false", "n", "0"):
        return False
    raise InputError(f"{where}: {key} must be yes or no, got {text.strip()[:20]!r}")


def _rules_from_text(
    rules_field: _Field | None, where: str, overrides: Mapping[str, object] | None
) -> RuleSet:
    options: dict[str, object] = {}
    if rules_field is not None:
        for word in rules_field.value.split():
            key, sep, value = word.partition("=")
            if not sep or not key or not value:
                raise InputError(
                    f"{where} line {rules_field.line}: rule {word!r} is not key=value (such as wrap=american)"
                )
            if key in options:
                raise InputError(f"{where} line {rules_field.line}: rule {key!r} given twice")
            options[key] = value
    try:
        base = RuleSet.from_options(options)
    except RulesError as err:
        line = f" line {rules_field.line}" if rules_field else ""
        raise err.at(f"{where}{line}") from None
    return RuleSet.from_options(overrides or {}, base)


def position_from_record(
    record: Any,
    where: str,
    rule_overrides: Mapping[str, object] | None = None,
    opened: bool | None = None,
    parts_alone: bool = False,
) -> Position:
    """A position from a JSON object: ``{"rack": [...], "table": [[...], ...], "initial_meld": false}``.

    Also accepted: ``opened`` (the inverse of ``initial_meld``), ``rules`` (an object of rule
    options), ``id``, ``title`` and ``notes``. A rack or a set may be one string of tokens.
    Neither ``initial_meld`` nor ``opened`` given: opened unless the table is empty. Messages
    name ``where``, and the parts within it ("table set 2 in FILE line 3") unless ``parts_alone``
    (the record is the whole input, as a web request is: "table set 2").
    """
    def within(part: str) -> str:
        return part if parts_alone else f"{part} in {where}"

    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object with 'rack' and 'table'")
    unknown = sorted(set(record) - set(RECORD_FIELDS))
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0]!r} (fields: {', '.join(sorted(RECORD_FIELDS))})")
    if "rack" not in record:
        raise InputError(f"{where}: missing field 'rack'")
    file_rules = record.get("rules", {})
    if not isinstance(file_rules, dict):
        raise InputError(f'{where}: \'rules\' must be an object such as {{"wrap": "american"}}')
    try:
        rules = RuleSet.from_options(rule_overrides or {}, RuleSet.from_json(file_rules))
    except RulesError as err:
        raise err.at(where) from None
    if opened is None:
        if "initial_meld" in record:
            opened = not _json_bool(record["initial_meld"], where, "initial_meld")
        if "opened" in record:
            value = _json_bool(record["opened"], where, "opened")
            if opened is not None and value != opened:
                raise InputError(f"{where}: 'opened' and 'initial_meld' contradict each other")
            opened = value
    rack = _json_tiles(record["rack"], within("rack"), rules)
    raw_table = record.get("table", [])
    if not isinstance(raw_table, list):
        raise InputError(f"{where}: 'table' must be a list of sets")
    table = []
    for i, raw_set in enumerate(raw_table, 1):
        set_where = within(f"table set {i}")
        tiles = _json_tiles(raw_set, set_where, rules)
        check_table_set([t for t, _ in tiles], rules, set_where)
        table.append(tiles)
    for key in ("id", "title", "notes"):
        if not isinstance(record.get(key, ""), (str, int)) or isinstance(record.get(key), bool):
            raise InputError(f"{where}: '{key}' must be a string or a whole number")
    position = _build(rack, table, opened, rules)
    return dataclasses.replace(
        position,
        id=record.get("id", ""),  # as given: a JSON number stays a number in the answer
        title=str(record.get("title", "")),
        notes=str(record.get("notes", "")),
    )


def answer_from_record(value: Any, where: str, rules: RuleSet) -> list[list[Tile]]:
    """A proposed table after the move as JSON: a list of sets, each a list of tiles or one
    string. Tiles must be tiles; the sets are not checked here (the validator reports invalid
    ones), as for an answer file."""
    if not isinstance(value, list):
        raise InputError(f'{where}: expected a list of sets such as [["R4", "R5", "R6"]]')
    return [tiles_of(_json_tiles(raw, f"set {i} of {where}", rules)) for i, raw in enumerate(value, 1)]


def _json_bool(value: Any, where: str, key: str) -> bool:
    if isinstance(value, bool):
        return value
    raise InputError(f"{where}: '{key}' must be true or false, got {json_text(value)}")


def _json_tiles(value: Any, where: str, rules: RuleSet) -> list[Located]:
    if isinstance(value, str):
        return parse_tokens(value, where, rules)
    if not isinstance(value, list):
        raise InputError(f'{where}: expected a list of tiles such as ["R4", "R5"]')
    tiles: list[Located] = []
    for item in value:
        if not isinstance(item, str):
            raise InputError(f'{where}: {json_text(item)} is not a tile (tiles are strings like "R7")')
        tiles += parse_tokens(item, where, rules)
    return tiles


def tiles_of(located: Sequence[Located]) -> list[Tile]:
    return [t for t, _ in located]

