"""Property-based fuzz tests of everything that reads user input: tokens, files, JSON records,
batch lines and the command line.

The contract under test (README, solver/errors.py): bad input raises only the library's own
errors (RummikubError subclasses), each with a non-empty one-line message naming where the
problem is; ``batch`` answers every line with one JSON line; the CLI exits 0 or 1 (2 for usage)
with a one-line ``Error: ...`` and never a traceback.

The section "Regressions" at the end pins down, deterministically, the bugs this file found
(exceptions escaping on huge JSON integers and deep nesting, a two-line message from a rule key
with a newline, a tile-count message that named no file).
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import cli, main
from solver.batch import BatchSettings, Outcome, answer_line, read_lines
from solver.errors import InputError, NotationError, RummikubError
from solver.file_io import decode_text
from solver.files import parse_position_text, parse_rack, parse_table, position_from_record
from solver.position import Position
from solver.rules import RuleSet, Wrap
from solver.tiles import Tile, parse_token

# Quick but not trivial: the whole file runs in well under a minute on a slow 2-core machine.
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MEDIUM = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

STANDARD = RuleSet()
RULE_VARIANTS = [
    STANDARD,
    RuleSet(wrap=Wrap.AMERICAN),
    RuleSet(wrap=Wrap.FULL),
    RuleSet(jokers=0),
    RuleSet(numbers=20, colours=8),
    RuleSet(numbers=9, colours=2, min_set_size=2),
]



# --------------------------------------------------------------------------- strategies


def to_bytes(text: str) -> bytes:
    """UTF-8, keeping lone surrogates (which st.characters() produces) as invalid bytes."""
    return text.encode("utf-8", "surrogatepass")


# Characters that matter to the notation, plus junk that has bitten parsers before: unicode digits
# (``\d`` matches them), letters whose upper case is ASCII or several letters, unicode spaces and
# line separators, the ellipsis the parser itself uses, quotes and the comment sign.
NOTATION_CHARS = "KBROJkbrojGPWCX" + "0123456789" + "-" * 3 + " " * 3 + ",;#\t"
JUNK_CHARS = "é٣١𝟕²ßﬀıſǰ…\u00a0\u2028\u2029\x85\u200b\ufeff'\"\\{}[]:=Ｒ７"


def soup_text(max_size: int = 24) -> st.SearchStrategy[str]:
    """Mostly notation characters, some unicode junk, now and then any character at all."""
    return st.text(
        alphabet=st.one_of(
            st.sampled_from(NOTATION_CHARS),
            st.sampled_from(JUNK_CHARS),
            st.characters(),
        ),
        max_size=max_size,
    )


@st.composite
def tile_like(draw: st.DrawFn) -> str:
    """Tokens close to real notation: ``R7``, ``r07``, ``KBR7``, ``R4-7``, ``R4-R7``, ``R12-1``, ``J``."""
    kind = draw(st.sampled_from(["tile", "group", "run", "joker", "odd"]))
    letters = st.sampled_from("KBROGPWCJXkbro")
    number = st.one_of(st.integers(0, 15).map(str), st.sampled_from(["007", "1" * 7, "٣", "𝟏𝟑", ""]))
    if kind == "joker":
        return draw(st.sampled_from(["J", "j", "joker", "JOKER", " J ", "J1", "JJ", "J-"]))
    if kind == "tile":
        return draw(letters) + draw(number)
    if kind == "group":
        return "".join(draw(st.lists(letters, min_size=1, max_size=5))) + draw(number)
    if kind == "run":
        end_letter = draw(st.one_of(st.just(""), letters))
        return f"{draw(letters)}{draw(number)}-{end_letter}{draw(number)}"
    return draw(letters) + draw(soup_text(6)) + draw(number)


def token() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=20), soup_text(), tile_like())


def line_of_tokens(max_tokens: int = 5) -> st.SearchStrategy[str]:
    sep = st.sampled_from([" ", ", ", ",", ";", "\t", "  "])
    return st.builds(
        lambda toks, s: s.join(toks),
        st.lists(st.one_of(tile_like(), tile_like(), soup_text(6)), max_size=max_tokens),
        sep,
    )


def any_text() -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=200),
        soup_text(200),
        st.lists(line_of_tokens(), max_size=6).map("\n".join),
    )


@st.composite
def position_soup(draw: st.DrawFn) -> str:
    """``key: value`` text: real keys (and some not), rack and table soup, indentation, comments."""
    keys = st.sampled_from(
        ["rack", "table", "opened", "rules", "id", "title", "notes", "Rack", "initial_meld", "x", " rack"]
    )
    values = st.one_of(
        line_of_tokens(),
        st.sampled_from(["", "yes", "no", "maybe", "wrap=american", "wrap=sideways", "numbers=x",
                         "jokers=0 wrap=full", "min-set-size=2", "colours=9", "bogus=1", "wrap"]),
        soup_text(12),
    )
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        lines.append(f"{draw(keys)}{draw(st.sampled_from([':', ': ', ' :', '']))}{draw(values)}")
        for _ in range(draw(st.integers(0, 2))):
            lines.append(draw(st.sampled_from(["  ", "\t", ""])) + draw(line_of_tokens()))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["# comment", "", "   ", "  # indented comment"])))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return newline.join(lines)


JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),  # JSON ints over 4300 digits: see the regression tests
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=10),
    tile_like(),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=8), inner, max_size=4),
    ),
    max_leaves=12,
)

RULE_KEYS = ["numbers", "colours", "colors", "copies", "jokers", "min-set-size", "min_set_size",
             "meld-threshold", "joker-in-meld", "continue-after-meld", "wrap", "joker-penalty", "joker-rules",
             "joker-retrieval"]


@st.composite
def rule_key(draw: st.DrawFn) -> str:
    """Real rule names in various spellings, padded with whitespace (line breaks included: the
    message must still be one line)."""
    if draw(st.integers(0, 4)) == 0:
        return draw(st.text(max_size=10))
    key = draw(st.sampled_from(RULE_KEYS))
    if draw(st.booleans()):
        key = key.upper()
    pad = st.text(alphabet=" \t\n\r\x85\u2028\u00a0", max_size=2)
    return draw(pad) + key + draw(pad)


def rule_values() -> st.SearchStrategy[Any]:
    return st.one_of(
        JSON_VALUES,
        st.sampled_from([0, 1, 2, 3, 13, 40, 41, -1, "3", " 4 ", "x", "yes", "no", "on", True, False,
                         "none", "american", "full", "AMERICAN", 2.5, None, [], {}]),
    )


def rack_values() -> st.SearchStrategy[Any]:
    return st.one_of(JSON_VALUES, line_of_tokens(), st.lists(st.one_of(tile_like(), JSON_SCALARS), max_size=6))


def table_values() -> st.SearchStrategy[Any]:
    one_set = st.one_of(
        line_of_tokens(),
        st.sampled_from(["R4 R5 R6", "K1 B1 R1", "R4 J R6", "O9-12", "KBR7", ["K1", "K2", "K3"], []]),
        st.lists(st.one_of(tile_like(), JSON_SCALARS), max_size=5),
    )
    return st.one_of(JSON_VALUES, st.lists(one_set, max_size=4))


RECORDS = st.one_of(
    JSON_VALUES,
    st.fixed_dictionaries(
        {},
        optional={
            "rack": rack_values(),
            "table": table_values(),
            "initial_meld": st.one_of(st.booleans(), JSON_VALUES),
            "opened": st.one_of(st.booleans(), JSON_VALUES),
            "rules": st.one_of(st.dictionaries(rule_key(), rule_values(), max_size=3), JSON_VALUES),
            "id": st.one_of(st.text(max_size=10), JSON_VALUES),
            "title": st.one_of(st.text(max_size=10), JSON_VALUES),
            "notes": st.one_of(st.text(max_size=10), JSON_VALUES),
            "extra": JSON_VALUES,
        },
    ),
)


# Small valid pieces, so that some batch lines and CLI runs get as far as the solver (kept small:
# every solve must stay fast).
VALID_SETS = ["R4 R5 R6", "K1 B1 R1", "R4 J R6", "O9 O10 O11 O12", "K7 B7 R7 O7", "B11 B12 B13"]
RACK_TILES = ["R1", "R2", "R3", "R7", "B7", "O7", "K13", "B5", "J", "O1", "R12", "R13"]
SMALL_RULES = [{}, {"wrap": "american"}, {"wrap": "full"}, {"jokers": 0}, {"joker-in-meld": "yes"},
               {"meld_threshold": 10}, {"wrap": "sideways"}, {"bogus": 1}, {"numbers": "x"}, "wrap=full"]
RACK_CHUNKS = ["R1 R2 R3", "R7 B7 O7", "J R12 R13", "K13 B13", "R3", "O1", "B5", "R7", "J", "K10 K11 K12"]


@st.composite
def small_record(draw: st.DrawFn) -> dict[str, Any]:
    """A batch record that is usually valid (short rack, a few real sets), sometimes spoilt."""
    record: dict[str, Any] = {}
    rack = " ".join(draw(st.lists(st.sampled_from(RACK_CHUNKS), max_size=3))).split()
    if draw(st.integers(0, 4)) == 0:
        rack.append(draw(tile_like()))
    record["rack"] = " ".join(rack) if draw(st.booleans()) else rack
    if draw(st.booleans()):
        table = draw(st.lists(st.sampled_from(VALID_SETS), max_size=3, unique=True))
        if draw(st.integers(0, 4)) == 0:
            table.append(draw(line_of_tokens(3)))
        record["table"] = [s if draw(st.booleans()) else s.split() for s in table]
    if draw(st.booleans()):
        record["initial_meld"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        record["opened"] = draw(st.one_of(st.booleans(), st.just("yes")))
    if draw(st.booleans()):
        record["rules"] = draw(st.sampled_from(SMALL_RULES))
    if draw(st.booleans()):
        record["id"] = draw(st.one_of(st.text(max_size=8), st.integers(0, 99), st.booleans()))
    return record


def small_line() -> st.SearchStrategy[bytes]:
    """One batch line (no newline): random bytes, JSON-ish soup, or a small record."""
    json_soup = st.text(alphabet=st.sampled_from('{}[]",:0123456789.-eE truefalsnul RKBOJ\\'), max_size=80)
    return st.one_of(
        st.binary(max_size=80),
        json_soup.map(to_bytes),
        small_record().map(lambda r: to_bytes(json.dumps(r))),
        small_record().map(lambda r: to_bytes(json.dumps(r, ensure_ascii=False))),
        RECORDS.map(lambda r: to_bytes(json.dumps(r))),
    ).map(lambda b: b.replace(b"\n", b" "))


# --------------------------------------------------------------------------- helpers


def check_message(err: BaseException, where: str | None = None) -> str:
    """A library error: a RummikubError whose message is one non-empty line naming ``where``."""
    assert isinstance(err, RummikubError), f"{type(err).__name__}: {err}"
    message = str(err)
    assert message.strip(), f"empty message from {type(err).__name__}"
    assert "\n" not in message and len(message.splitlines()) == 1, f"multi-line message: {message!r}"
    if where is not None:
        assert where in message, f"message does not name {where!r}: {message!r}"
    return message


def check_tiles(tiles: list[Tile], rules: RuleSet) -> None:
    assert tiles, "a token stands for at least one tile"
    for t in tiles:
        assert isinstance(t, Tile)
        if t.is_joker:
            assert rules.jokers > 0
        else:
            assert 1 <= t.number <= rules.numbers
            assert 0 <= t.colour < rules.colours
        # Round trip: the canonical text parses back to the same tile.
        assert parse_token(str(t), rules) == [t]
        assert Tile.parse(str(t), rules) == t


def check_cli_result(result: Result, errors_on_stdout: bool = False) -> None:
    """No traceback, no stray exception, exit 0/1/2, and every error one ``Error: ...`` line.

    ``batch`` reports bad lines on stdout (exit 1, stderr empty): ``errors_on_stdout``.
    """
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.stderr)
    if result.exit_code == 0:  # nothing on stderr but warnings, a line each (an empty rack, table)
        assert all(line.startswith("Warning: ") for line in result.stderr.splitlines()), result.stderr
        assert result.stderr.count("\n") <= 2, result.stderr
    if result.exit_code == 1 and not (errors_on_stdout and result.stderr == ""):
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and lines[0][7:].strip(), result.stderr
    for line in result.stderr.splitlines():
        if "Error" in line:
            assert line.startswith("Error: "), result.stderr


def expected_line_count(data: bytes) -> int | None:
    """How many answers ``batch`` owes for this input: one per line that is not blank, as
    read_lines splits it; None when the input is no text at all (one error for the whole file)."""
    try:
        return sum(1 for _ in read_lines(io.BytesIO(data)))
    except InputError:
        return None


# --------------------------------------------------------------------------- 1. tokens


@FAST
@given(text=token(), rules=st.sampled_from(RULE_VARIANTS))
def test_parse_token_returns_tiles_or_notation_error(text: str, rules: RuleSet) -> None:
    try:
        tiles = parse_token(text, rules)
    except NotationError as err:
        check_message(err)
        return
    check_tiles(tiles, rules)


@FAST
@given(text=token())
def test_parse_token_standard_rules_numbers_1_to_13(text: str) -> None:
    try:
        tiles = parse_token(text)
    except NotationError as err:
        check_message(err)
        return
    check_tiles(tiles, STANDARD)
    assert all(t.is_joker or 1 <= t.number <= 13 for t in tiles)


@FAST
@given(text=token(), rules=st.sampled_from(RULE_VARIANTS))
def test_tile_parse_returns_one_tile_or_notation_error(text: str, rules: RuleSet) -> None:
    try:
        t = Tile.parse(text, rules)
    except NotationError as err:
        check_message(err)
        return
    assert parse_token(text, rules) == [t]
    check_tiles([t], rules)


# --------------------------------------------------------------------------- 2. files

RACK_LABEL = "fuzz.txt"


@FAST
@given(data=st.one_of(
    st.binary(max_size=200),
    any_text().map(to_bytes),
    any_text().map(lambda s: b"\xef\xbb\xbf" + to_bytes(s)),
    st.text(max_size=50).map(lambda s: s.encode("utf-16", "surrogatepass")),
))
def test_decode_text_returns_str_or_input_error(data: bytes) -> None:
    where = "rack file fuzz.txt"
    try:
        text = decode_text(data, where)
    except InputError as err:
        check_message(err, where)
        return
    assert isinstance(text, str)
    assert "\x00" not in text


@FAST
@given(text=any_text(), rules=st.sampled_from(RULE_VARIANTS))
def test_parse_rack_random_text(text: str, rules: RuleSet) -> None:
    try:
        tiles = parse_rack(text, RACK_LABEL, rules)
    except RummikubError as err:
        check_message(err, f"rack file {RACK_LABEL}")
        return
    for t, where in tiles:
        assert where.startswith(f"rack file {RACK_LABEL} line ")
        check_tiles([t], rules)


@FAST
@given(text=any_text(), rules=st.sampled_from(RULE_VARIANTS))
def test_parse_table_random_text(text: str, rules: RuleSet) -> None:
    try:
        sets = parse_table(text, RACK_LABEL, rules)
    except RummikubError as err:
        check_message(err, f"table file {RACK_LABEL}")
        return
    for s in sets:
        assert len(s) >= rules.min_set_size


@st.composite
def table_soup(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.one_of(st.sampled_from(VALID_SETS), line_of_tokens(4)), max_size=5))
    return "\n".join(lines)


@FAST
@given(text=table_soup())
def test_parse_table_structured_soup(text: str) -> None:
    try:
        parse_table(text, RACK_LABEL, STANDARD)
    except RummikubError as err:
        check_message(err, f"table file {RACK_LABEL}")


@st.composite
def plausible_position(draw: st.DrawFn) -> str:
    """A position file that is usually valid, with now and then one spoilt line."""
    lines = [f"rack: {' '.join(draw(st.lists(st.sampled_from(RACK_CHUNKS), max_size=3)))}"]
    if draw(st.booleans()):
        lines.append(f"opened: {draw(st.sampled_from(['yes', 'no', 'n', 'TRUE', 'perhaps']))}")
    if draw(st.booleans()):
        lines.append(f"rules: {draw(st.sampled_from(['wrap=american', 'jokers=0', 'wrap=full copies=1', 'x']))}")
    sets = draw(st.lists(st.sampled_from(VALID_SETS), max_size=3, unique=True))
    if len(sets) > 0 or draw(st.booleans()):
        lines.append("table:")
        lines += [draw(st.sampled_from(["  ", "", "\t"])) + s for s in sets]
    if draw(st.integers(0, 3)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(line_of_tokens(3)))
    return "\n".join(lines)


POSITION_TEXTS = st.one_of(
    plausible_position(),
    any_text(),
    position_soup(),
    st.builds(lambda r, t: f"rack: {r}\ntable:\n  {t}", line_of_tokens(), line_of_tokens()),
    st.builds(lambda r, t: f"rack: {r}\ntable:\n  {t}", soup_text(), soup_text()),
)


@FAST
@given(text=POSITION_TEXTS)
def test_parse_position_text_random_text(text: str) -> None:
    try:
        position = parse_position_text(text, RACK_LABEL)
    except RummikubError as err:
        check_message(err, f"position file {RACK_LABEL}")
        return
    assert isinstance(position, Position)


# --------------------------------------------------------------------------- 3. JSON records


@FAST
@given(record=st.one_of(RECORDS, small_record()))
def test_position_from_record_random_json(record: Any) -> None:
    where = "record fuzz-7"
    try:
        position = position_from_record(record, where)
    except RummikubError as err:
        check_message(err, where)
        return
    assert isinstance(position, Position)
    assert isinstance(record, dict) and "rack" in record
    if "opened" in record:
        assert position.opened is record["opened"]
    elif "initial_meld" in record:
        assert position.opened is (not record["initial_meld"])
    else:  # unsaid: opened exactly when there are sets on the table
        assert position.opened is bool(position.table)


@FAST
@given(record=RECORDS.map(json.dumps))
def test_position_from_record_after_json_round_trip(record: str) -> None:
    """What the batch and position-file readers actually see: json.loads of the text."""
    where = "record fuzz-8"
    try:
        position_from_record(json.loads(record), where)
    except RummikubError as err:
        check_message(err, where)


# --------------------------------------------------------------------------- 4. batch lines


def check_answer(number: int, text: str, outcome: Outcome) -> dict[str, Any]:
    assert isinstance(text, str)
    assert "\n" not in text and len(text.splitlines()) == 1
    data = json.loads(text)
    assert isinstance(data, dict)
    assert isinstance(outcome, Outcome)
    if outcome is Outcome.ANSWERED:
        assert data["status"] in ("optimal", "no_move", "time_limit")
    else:
        assert set(data) == {"line", "error"}, data
        assert data["line"] == number
        assert isinstance(data["error"], str) and data["error"].strip()
        assert len(data["error"].splitlines()) == 1, data["error"]
    return data


@MEDIUM
@given(number=st.integers(1, 10**6), raw=small_line())
def test_answer_line_never_raises(number: int, raw: bytes) -> None:
    text, outcome = answer_line(number, raw, BatchSettings())
    check_answer(number, text, outcome)


@SLOW
@given(number=st.integers(1, 1000), record=small_record())
def test_answer_line_small_records(number: int, record: dict[str, Any]) -> None:
    text, outcome = answer_line(number, json.dumps(record).encode(), BatchSettings())
    check_answer(number, text, outcome)


def test_answer_line_too_long_and_empty() -> None:
    for raw in (None, b"", b"   ", b"\xef\xbb\xbf"):
        text, outcome = answer_line(3, raw, BatchSettings())
        assert outcome is Outcome.BAD_INPUT
        check_answer(3, text, outcome)


# --------------------------------------------------------------------------- 5. the CLI


def invoke(args: list[str], input: bytes | None = None) -> Result:
    result = CliRunner().invoke(cli, args, input=input)
    check_cli_result(result, errors_on_stdout=args[0] == "batch")
    return result


FILE_BYTES = st.one_of(
    st.binary(max_size=120),
    any_text().map(to_bytes),
    table_soup().map(to_bytes),
)


@SLOW
@given(rack=FILE_BYTES, table=FILE_BYTES, as_json=st.booleans())
def test_cli_solve_random_rack_and_table_files(rack: bytes, table: bytes, as_json: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rack_path, table_path = Path(tmp, "rack.txt"), Path(tmp, "table.txt")
        rack_path.write_bytes(rack)
        table_path.write_bytes(table)
        args = ["solve", "--rack", str(rack_path), "--table", str(table_path)]
        result = invoke([*args, "--json"] if as_json else args)
    if result.exit_code == 0 and as_json:
        assert json.loads(result.stdout)["status"] in ("optimal", "no_move", "time_limit")
    if result.exit_code == 1:
        assert "rack.txt" in result.stderr or "table.txt" in result.stderr, result.stderr


@SLOW
@given(rack=st.lists(st.sampled_from(RACK_TILES), max_size=6), table=table_soup(), as_json=st.booleans())
def test_cli_solve_plausible_rack_and_table_files(rack: list[str], table: str, as_json: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rack_path, table_path = Path(tmp, "rack.txt"), Path(tmp, "table.txt")
        rack_path.write_bytes(to_bytes(" ".join(rack)))
        table_path.write_bytes(to_bytes(table))
        args = ["solve", "--rack", str(rack_path), "--table", str(table_path)]
        invoke([*args, "--json"] if as_json else args)


@SLOW
@given(data=st.one_of(
    st.binary(max_size=300),
    st.lists(small_line(), max_size=4).map(b"\n".join),
    st.lists(small_line(), max_size=4).map(lambda lines: b"\r\n".join(lines) + b"\r\n"),
))
def test_cli_batch_random_stdin(data: bytes) -> None:
    result = invoke(["batch", "-"], input=data)
    out = result.stdout.splitlines()
    expected = expected_line_count(data)
    if expected is None:  # not text: one error for the whole input
        assert result.exit_code == 1 and out == [] and result.stderr.startswith("Error: batch file <stdin> is not")
        return
    assert len(out) == expected
    bad = 0
    for line in out:
        answer = json.loads(line)
        if "error" in answer:
            assert set(answer) == {"line", "error"} and answer["error"].startswith(f"line {answer['line']}: ")
            assert len(answer["error"].splitlines()) == 1
            bad += 1
    assert result.exit_code == (1 if bad else 0)
    assert result.stderr == ""


@SLOW
@given(content=st.one_of(
    POSITION_TEXTS.map(to_bytes),
    st.one_of(RECORDS, small_record()).map(lambda r: to_bytes(json.dumps(r, ensure_ascii=False))),
    st.binary(max_size=120),
), as_json=st.booleans())
def test_cli_solve_random_position_file(content: bytes, as_json: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "pos.txt")
        path.write_bytes(content)
        result = invoke(["solve", str(path), "--json"] if as_json else ["solve", str(path)])
    if result.exit_code == 0 and as_json:
        assert json.loads(result.stdout)["status"] in ("optimal", "no_move", "time_limit")
    if result.exit_code == 1:
        assert "pos.txt" in result.stderr, result.stderr


# --------------------------------------------------------------------------- 6. the console entry point


def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    """``rummikub ARGS`` through the real entry point: (exit status, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["rummikub", *args])
    try:
        main()
        status = 0
    except SystemExit as exit_:
        code = exit_.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
    out, err = capsys.readouterr()
    assert "Traceback" not in out and "Traceback" not in err
    for line in err.splitlines():
        assert line.startswith("Error: ") or (status == 0 and line.startswith("Warning: ")), err
    if status != 0 and not (args[0] == "batch" and err == ""):  # batch reports bad lines on stdout
        assert len(err.splitlines()) == 1, err
    return status, out, err


VALID_LINE = b'{"rack": ["R1", "R2", "R3"], "id": "after"}'
BIG_INT_LINE = b'{"rack": [], "id": ' + b"1" * 5000 + b"}"

NASTY = {
    "binary position file": (["solve", "{f}"], b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", 1),
    "binary rack file": (["solve", "--rack", "{f}"], bytes(range(256)), 1),
    "latin-1 rack file": (["solve", "--rack", "{f}"], "R1 R2 R3 café".encode("latin-1"), 1),
    "2 MB position file": (["solve", "{f}"], b"rack: " + b"R1 " * 700_000, 1),
    "2 MB line in batch": (["batch", "{f}"], b"x" * 2_000_000 + b"\n" + VALID_LINE + b"\n", 1),
    "2 MB JSON line in batch": (
        ["batch", "{f}"], b'{"rack": "' + b"R1 " * 700_000 + b'"}\n' + VALID_LINE + b"\n", 1),
    "rack with 500 tiles": (["solve", "--rack", "{f}"], b"R1 " * 500, 1),
    "position with 500 tiles": (["solve", "{f}"], b"rack: " + b"K2 " * 500, 1),
    "batch rack with 500 tiles": (
        ["batch", "{f}"], json.dumps({"rack": ["B3"] * 500}).encode() + b"\n" + VALID_LINE, 1),
    "empty position file": (["solve", "{f}"], b"", 1),
    "empty rack file": (["solve", "--rack", "{f}", "--json"], b"", 0),
    "empty batch file": (["batch", "{f}"], b"", 0),
    "only comments position file": (["solve", "{f}"], b"# one\n   # two\n#three", 1),
    "only comments rack file": (["solve", "--rack", "{f}", "--json"], b"# R1 R2 R3\n# J\n", 0),
    "only comments batch file": (["batch", "{f}"], b"# {}\n", 1),
    "NUL inside a rack token": (["solve", "--rack", "{f}"], b"R1 R\x002 R3", 1),
    "NUL inside a position token": (["solve", "{f}"], b"rack: R1 R\x002 R3\n", 1),
    "NUL inside a batch token": (["batch", "{f}"], b'{"rack": ["R\x001"]}\n' + VALID_LINE + b"\n", 1),
    "deep JSON in batch": (["batch", "{f}"], b"[" * 100_000 + b"\n" + VALID_LINE + b"\n", 1),
    "control character in table": (["solve", "--rack", "{f}", "--table", "{f}"], b"R1 R2 R3\x07", 1),
    "BOM and CRLF rack": (["solve", "--rack", "{f}", "--json"], b"\xef\xbb\xbfR1 R2\r\nR3\r\n", 0),
    "huge number token": (["solve", "--rack", "{f}"], b"R" + b"9" * 10_000, 1),
    "huge rule value": (["solve", "{f}"], b"rack: R1\nrules: numbers=" + b"9" * 10_000 + b"\n", 1),
    "directory as rack": (["solve", "--rack", "{dir}"], b"", 1),
    # Regressions: these exited 4 ("internal error") or printed a two-line error.
    "deep JSON position file": (["solve", "{f}"], b'{"rack": ' + b"[" * 100_000, 1),
    "huge integer in JSON position file": (["solve", "{f}"], b'{"rack": [], "id": ' + b"1" * 5000 + b"}", 1),
    "huge integer in a batch line": (["batch", "{f}"], BIG_INT_LINE + b"\n" + VALID_LINE + b"\n", 1),
    "newline in a JSON rule key": (
        ["solve", "{f}"], json.dumps({"rack": ["R1"], "rules": {"\nwrap": "x"}}).encode(), 1),
    "missing file": (["solve", "--rack", "{dir}/nope.txt"], b"", 1),
}

@pytest.mark.parametrize(
    ("args", "content", "status"),
    [pytest.param(args, content, status, id=name) for name, (args, content, status) in NASTY.items()],
)
def test_console_entry_point_nasty_inputs(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: list[str],
    content: bytes,
    status: int,
) -> None:
    path = tmp_path / "input.txt"
    path.write_bytes(content)
    argv = [a.format(f=path, dir=tmp_path) for a in args]
    code, out, err = run_main(monkeypatch, capsys, argv)
    assert code == status, (code, err)
    if args[0] == "batch":
        # One JSON answer per input line, in order, also after a bad line.
        lines = out.splitlines()
        assert len(lines) == (expected_line_count(content) or 0)  # None: one error for the file
        for line in lines:
            json.loads(line)
        if lines and (content.endswith(VALID_LINE + b"\n") or content.endswith(VALID_LINE)):
            assert json.loads(lines[-1]).get("id") == "after"
    elif status == 0:
        no_tiles = not b"".join(line.split(b"#")[0] for line in content.splitlines()).strip()
        empty_rack = "--rack" in args and no_tiles
        assert err == (f"Warning: the rack file {path} holds no tiles; is it the right file?\n" if empty_rack else "")
        json.loads(out)


def test_console_entry_point_usage_error_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["rummikub", "solve", "--no-such-option"])
    with pytest.raises(SystemExit) as exit_:
        main()
    out, err = capsys.readouterr()
    assert exit_.value.code == 2
    assert "Traceback" not in out + err
    assert err.splitlines()[-1].startswith("Error: ")


# --------------------------------------------------------------------------- Regressions


def test_huge_json_integer_in_batch_line_is_a_bad_line() -> None:
    """json.loads raises ValueError (not JSONDecodeError) for an integer over 4300 digits."""
    text, outcome = answer_line(1, BIG_INT_LINE, BatchSettings())
    assert outcome is Outcome.BAD_INPUT
    check_answer(1, text, outcome)


@pytest.mark.parametrize("key", ["\nwrap", "wrap\n", "\r\nWRAP", "\u2028wrap", "\x85jokers"])
def test_rule_key_with_line_break_gives_one_line_message(key: str) -> None:
    where = "record fuzz"
    with pytest.raises(RummikubError) as err:
        position_from_record({"rack": [], "rules": {key: "x"}}, where)
    check_message(err.value, where)


@pytest.mark.parametrize("where_kind", ["position text", "record"])
def test_too_many_tiles_message_names_the_source(where_kind: str) -> None:
    with pytest.raises(RummikubError) as err:
        if where_kind == "position text":
            parse_position_text("rack: " + "R1-13 " * 9, RACK_LABEL)
        else:
            position_from_record({"rack": "R1-13 " * 9}, "record fuzz")
    check_message(err.value, f"position file {RACK_LABEL}" if where_kind == "position text" else "record fuzz")
