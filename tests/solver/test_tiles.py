"""Tile notation: canonical output, shorthands, wrap-around shorthands, bad tokens, order, indices."""

from __future__ import annotations

import pytest

from solver.errors import NotationError
from solver.rules import RuleSet, Wrap
from solver.tiles import (
    JOKER,
    Tile,
    TileSyntaxError,
    format_counted,
    format_tiles,
    parse_token,
    tile,
    tile_points,
)

STANDARD = RuleSet()
AMERICAN = RuleSet(wrap=Wrap.AMERICAN)
FULL = RuleSet(wrap=Wrap.FULL)


def names(tiles: list[Tile]) -> list[str]:
    return [str(t) for t in tiles]


# --- single tiles: canonical output, case-insensitive input --------------------------------------

@pytest.mark.parametrize(
    ("token", "canonical"),
    [
        ("R7", "R7"),
        ("r7", "R7"),
        ("k1", "K1"),
        ("K13", "K13"),
        ("b10", "B10"),
        ("O1", "O1"),
        ("o13", "O13"),
        ("R07", "R7"),  # a leading zero is still the number 7
        ("  r7 ", "R7"),  # surrounding blanks are ignored
        ("J", "J"),
        ("j", "J"),
        ("joker", "J"),
        ("JOKER", "J"),
        ("JoKeR", "J"),
    ],
)
def test_single_tile_canonical(token: str, canonical: str) -> None:
    assert names(parse_token(token)) == [canonical]
    assert str(Tile.parse(token)) == canonical


@pytest.mark.parametrize(
    ("token", "colour", "number"),
    [("K1", 0, 1), ("B5", 1, 5), ("R7", 2, 7), ("O13", 3, 13)],
)
def test_colour_letters_map_to_indices(token: str, colour: int, number: int) -> None:
    t = Tile.parse(token)
    assert (t.colour, t.number) == (colour, number)
    assert not t.is_joker
    assert t.letter == token[0]


def test_joker_is_one_value() -> None:
    assert Tile.parse("J") == JOKER
    assert Tile.parse("joker") == JOKER
    assert JOKER.is_joker
    assert JOKER.letter == "J"
    assert str(JOKER) == "J"


def test_more_colours_add_letters() -> None:
    rules = RuleSet(colours=8)
    assert names([Tile.parse(tok, rules) for tok in ("g1", "P2", "w3", "C4")]) == ["G1", "P2", "W3", "C4"]
    assert Tile.parse("G1", rules).colour == 4
    assert Tile.parse("C4", rules).colour == 7


def test_more_numbers_allow_higher_tiles() -> None:
    rules = RuleSet(numbers=20)
    assert str(Tile.parse("r20", rules)) == "R20"


@pytest.mark.parametrize("t", ["K1", "B13", "R7", "O10", "J"])
def test_str_and_repr_round_trip(t: str) -> None:
    value = Tile.parse(t)
    assert str(value) == t
    assert repr(value) == f"Tile.parse({t!r})"
    assert eval(repr(value), {"Tile": Tile}) == value


# --- shorthands ----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("R4-7", ["R4", "R5", "R6", "R7"]),
        ("R4-R7", ["R4", "R5", "R6", "R7"]),
        ("r4-r7", ["R4", "R5", "R6", "R7"]),
        ("r4-7", ["R4", "R5", "R6", "R7"]),
        ("K11-13", ["K11", "K12", "K13"]),
        ("B1-3", ["B1", "B2", "B3"]),
        ("O5-5", ["O5"]),
        ("R1-13", [f"R{n}" for n in range(1, 14)]),
        ("KBR7", ["K7", "B7", "R7"]),
        ("kbr7", ["K7", "B7", "R7"]),
        ("KBRO1", ["K1", "B1", "R1", "O1"]),
        ("OB3", ["O3", "B3"]),
        ("rk13", ["R13", "K13"]),
    ],
)
def test_shorthands(token: str, expected: list[str]) -> None:
    assert names(parse_token(token)) == expected


@pytest.mark.parametrize("token", ["R4-7", "KBR7", "R4-5", "KB1"])
def test_shorthand_is_not_one_tile(token: str) -> None:
    with pytest.raises(TileSyntaxError) as err:
        Tile.parse(token)
    assert err.value.reason == "a shorthand for several tiles where one tile is expected"


# --- wrap-around shorthands: only when the rules let runs pass the top number -------------------

@pytest.mark.parametrize("token", ["R12-1", "R13-1", "R12-R1", "R11-2", "R7-4"])
def test_wrap_shorthand_refused_without_wrap(token: str) -> None:
    with pytest.raises(TileSyntaxError) as err:
        parse_token(token, STANDARD)
    # R7-4 reads as a run written backwards (4 tiles, against 11 wrapped); the others as wraps.
    backwards = "; a run from R4 to R7 is written R4-7" if token == "R7-4" else ""
    assert err.value.reason == f"runs do not wrap past 13 (rule wrap=none){backwards}"


@pytest.mark.parametrize(
    ("token", "rules", "expected"),
    [
        ("R12-1", AMERICAN, ["R12", "R13", "R1"]),
        ("R12-R1", AMERICAN, ["R12", "R13", "R1"]),
        ("r11-1", AMERICAN, ["R11", "R12", "R13", "R1"]),
        ("R13-1", AMERICAN, ["R13", "R1"]),
        ("R12-1", FULL, ["R12", "R13", "R1"]),
        ("R11-2", FULL, ["R11", "R12", "R13", "R1", "R2"]),
        ("K13-3", FULL, ["K13", "K1", "K2", "K3"]),
        ("R7-4", FULL, ["R7", "R8", "R9", "R10", "R11", "R12", "R13", "R1", "R2", "R3", "R4"]),
        ("B5-2", RuleSet(numbers=6, wrap=Wrap.FULL), ["B5", "B6", "B1", "B2"]),
    ],
)
def test_wrap_shorthand_allowed_with_wrap(token: str, rules: RuleSet, expected: list[str]) -> None:
    assert names(parse_token(token, rules)) == expected


@pytest.mark.parametrize("token", ["R12-2", "R7-4"])
def test_american_shorthand_refuses_runs_past_the_1(token: str) -> None:
    with pytest.raises(NotationError):
        parse_token(token, AMERICAN)


# --- bad tokens: exact reasons --------------------------------------------------------------------

@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("X5", "unknown colour 'X' (colours are K B R O)"),
        ("x5", "unknown colour 'X' (colours are K B R O)"),
        ("G5", "unknown colour 'G' (colours are K B R O)"),
        ("R14", "numbers run 1..13"),
        ("R0", "numbers run 1..13"),
        ("R1234567", "numbers run 1..13"),
        ("K", "missing number after colour K"),
        ("r", "missing number after colour R"),
        ("5", "missing colour before 5 (colours are K B R O)"),
        ("13", "missing colour before 13 (colours are K B R O)"),
        ("J5", "a joker is written J, without a number"),
        ("j13", "a joker is written J, without a number"),
        ("KJ5", "a joker is written J, without a number"),
        ("KK7", "a colour repeats in the group shorthand"),
        ("KBK7", "a colour repeats in the group shorthand"),
        ("R7-4", "runs do not wrap past 13 (rule wrap=none); a run from R4 to R7 is written R4-7"),
        ("hello", "not a tile (write a colour K B R O and a number, like R7, or J)"),
        ("R7x", "not a tile (write a colour K B R O and a number, like R7, or J)"),
        ("", "not a tile (write a colour K B R O and a number, like R7, or J)"),
        ("KB4-6", "a run shorthand has one colour (write R4-7)"),
        ("R4-B7", "a run shorthand has one colour at both ends (write R4-R7)"),
        ("R4-14", "numbers run 1..13"),
        ("R0-3", "numbers run 1..13"),
        # Only ASCII digits are numbers: Python's int() reads other scripts' digits too (R1٣ as R13).
        ("R\u0663", "not a tile (write a colour K B R O and a number, like R7, or J)"),
        ("R1\u0663", "not a tile (write a colour K B R O and a number, like R7, or J)"),
        ("R\uff15", "not a tile (write a colour K B R O and a number, like R7, or J)"),
        ("\u0663", "not a tile (write a colour K B R O and a number, like R7, or J)"),
    ],
)
def test_bad_tokens(token: str, reason: str) -> None:
    with pytest.raises(TileSyntaxError) as err:
        parse_token(token)
    assert err.value.reason == reason
    assert err.value.token == token
    assert str(err.value) == f"invalid tile {token!r}: {reason}"
    # One exception family for every notation problem, usable as a ValueError too.
    assert isinstance(err.value, NotationError)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    ("token", "rules", "reason"),
    [
        ("J", RuleSet(jokers=0), "these rules have no jokers (rule jokers=0)"),
        ("joker", RuleSet(jokers=0), "these rules have no jokers (rule jokers=0)"),
        ("O5", RuleSet(colours=3), "unknown colour 'O' (colours are K B R)"),
        ("KBR7", RuleSet(colours=2), "unknown colour 'R' (colours are K B)"),
        ("R7", RuleSet(numbers=6), "numbers run 1..6"),
        ("R21", RuleSet(numbers=20), "numbers run 1..20"),
        ("5", RuleSet(colours=2), "missing colour before 5 (colours are K B)"),
    ],
)
def test_bad_tokens_depend_on_rules(token: str, rules: RuleSet, reason: str) -> None:
    with pytest.raises(TileSyntaxError) as err:
        parse_token(token, rules)
    assert err.value.reason == reason


def test_error_location_wording() -> None:
    with pytest.raises(TileSyntaxError) as err:
        parse_token("R14")
    assert err.value.located("rack file r.txt line 2") == (
        "invalid tile 'R14' in rack file r.txt line 2: numbers run 1..13"
    )


def test_huge_token_is_shortened_in_message() -> None:
    token = "R" + "1" * 100
    with pytest.raises(TileSyntaxError) as err:
        parse_token(token)
    assert err.value.reason == "numbers run 1..13"
    assert len(str(err.value)) < 120
    assert err.value.token == token[:40] + "…"


# --- ordering -------------------------------------------------------------------------------------

def test_sorting_is_colour_major_then_number_jokers_last() -> None:
    tiles = [Tile.parse(t) for t in ["J", "O1", "R13", "J", "K13", "B1", "K1", "R2"]]
    assert format_tiles(sorted(tiles)) == "K1 K13 B1 R2 R13 O1 J J"


@pytest.mark.parametrize(
    ("low", "high"),
    [("K1", "K2"), ("K13", "B1"), ("B13", "R1"), ("R13", "O1"), ("O13", "J"), ("K1", "J")],
)
def test_tile_order_pairs(low: str, high: str) -> None:
    a, b = Tile.parse(low), Tile.parse(high)
    assert a < b and b > a and a != b


def test_tiles_are_hashable_values() -> None:
    assert Tile.parse("r7") == tile(2, 7)
    assert len({Tile.parse("R7"), Tile.parse("r7"), tile(2, 7)}) == 1


# --- dense indices --------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("token", "index"),
    [("K1", 0), ("K13", 12), ("B1", 13), ("R7", 32), ("O13", 51), ("J", 52)],
)
def test_standard_indices(token: str, index: int) -> None:
    assert Tile.parse(token).index(STANDARD) == index
    assert Tile.from_index(index, STANDARD) == Tile.parse(token)


RULE_VARIANTS = [
    RuleSet(),
    RuleSet(jokers=0),
    RuleSet(numbers=6, colours=3, jokers=1),
    RuleSet(numbers=2, colours=1, min_set_size=2),
    RuleSet(numbers=40, colours=8, jokers=8, copies=8),
    RuleSet(wrap=Wrap.FULL),
]


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=lambda r: r.describe())
def test_index_round_trip_for_every_tile(rules: RuleSet) -> None:
    everything = [tile(c, n) for c in range(rules.colours) for n in range(1, rules.numbers + 1)] + [JOKER]
    indices = [t.index(rules) for t in everything]
    # Dense: numbered tiles colour-major 0..C*N-1, the joker at C*N.
    assert indices == list(range(rules.colours * rules.numbers + 1))
    assert JOKER.index(rules) == rules.colours * rules.numbers
    for t, i in zip(everything, indices, strict=True):
        assert Tile.from_index(i, rules) == t
    # Index order is the sort order of tiles.
    assert sorted(everything) == everything


def test_every_token_round_trips_through_text() -> None:
    rules = RuleSet(numbers=13, colours=8)
    for c in range(rules.colours):
        for n in range(1, rules.numbers + 1):
            t = tile(c, n)
            assert Tile.parse(str(t), rules) == t
            assert Tile.parse(str(t).lower(), rules) == t


# --- small helpers ---------------------------------------------------------------------------------

def test_format_tiles() -> None:
    assert format_tiles([*parse_token("R4-6"), JOKER]) == "R4 R5 R6 J"
    assert format_tiles([]) == ""


def test_tile_points() -> None:
    assert tile_points(Tile.parse("R7"), STANDARD) == 7
    assert tile_points(Tile.parse("K13"), STANDARD) == 13
    assert tile_points(JOKER, STANDARD) == 30
    assert tile_points(JOKER, RuleSet(joker_penalty=50)) == 50


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("R4 R5 R6", "R4 R5 R6"),
        ("J J J", "J J J"),  # three in a row stay as they are
        ("B8 B8 B8 B8", "B8 ×4"),
        ("R1 B8 B8 B8 B8 B8 R1 R1", "R1 B8 ×5 R1 R1"),
        ("", ""),
    ],
)
def test_format_counted(text: str, written: str) -> None:
    assert format_counted([Tile.parse(t) for t in text.split()]) == written
