"""Set validity with reasons, readings of sets with jokers, display order and meld values."""

from __future__ import annotations

import pytest

from solver.melds import (
    Kind,
    best_reading,
    is_valid,
    readings,
    run_numbers,
    run_starts,
    why_invalid,
)
from solver.rules import RuleSet, Wrap
from solver.tiles import Tile, format_tiles, parse_token

STANDARD = RuleSet()
AMERICAN = RuleSet(wrap=Wrap.AMERICAN)
FULL = RuleSet(wrap=Wrap.FULL)


def T(text: str, rules: RuleSet = STANDARD) -> list[Tile]:
    return [t for tok in text.split() for t in parse_token(tok, rules)]


# --- valid sets --------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("R1 R2 R3", STANDARD),
        ("R11 R12 R13", STANDARD),
        ("R3 R1 R2", STANDARD),  # order as written does not matter
        ("R1-13", STANDARD),  # a run can be as long as 13
        ("K7 B7 R7", STANDARD),
        ("O7 K7 B7 R7", STANDARD),
        ("R4 J R6", STANDARD),
        ("J R2 R3", STANDARD),
        ("J J R5", STANDARD),
        ("K7 J O7", STANDARD),
        ("K7 J J J", STANDARD),
        ("J K1 J", STANDARD),
        ("R1 J J J J", RuleSet(jokers=4)),
        ("R12 R13 R1", AMERICAN),
        ("R11 R12 R13 R1", AMERICAN),
        ("R13 R1 J", AMERICAN),  # the joker is the 12
        ("R12 R13 R1", FULL),
        ("R13 R1 R2", FULL),
        ("R12 R13 R1 R2 R3", FULL),
        ("R1 R2", RuleSet(min_set_size=2)),
        ("K5 B5 R5 O5 G5", RuleSet(colours=5)),
    ],
)
def test_valid_sets(text: str, rules: RuleSet) -> None:
    tiles = T(text, rules)
    assert why_invalid(tiles, rules) is None
    assert is_valid(tiles, rules)
    assert best_reading(tiles, rules) is not None


# --- invalid sets, with the reason a person can act on ---------------------------------------

@pytest.mark.parametrize(
    ("text", "rules", "reason"),
    [
        ("R1 R2", STANDARD, "too short: 2 tiles, a set needs at least 3"),
        ("R1", STANDARD, "too short: 1 tile, a set needs at least 3"),
        ("J J", STANDARD, "too short: 2 tiles, a set needs at least 3"),
        ("", STANDARD, "too short: 0 tiles, a set needs at least 3"),
        ("R1 R2 R3", RuleSet(min_set_size=4), "too short: 3 tiles, a set needs at least 4"),
        ("J J J", RuleSet(jokers=3), "a set needs at least one numbered tile"),
        ("R7 B7 R7", STANDARD, "colour repeats in a group (R7 twice)"),
        ("K7 B7 R7 O7 B7", STANDARD, "colour repeats in a group (B7 twice)"),
        ("R7 R7 J", STANDARD, "colour repeats in a group (R7 twice)"),
        ("R5 R5 R6", STANDARD, "number repeats in a run (R5 twice)"),
        ("R1 R2 R4", STANDARD, "gap in run: R1 R2 R4 needs 1 tile in between, it has 0 jokers"),
        ("R1 J R5", STANDARD, "gap in run: R1 R5 needs 3 tiles in between, it has 1 joker"),
        ("R1 R2 J R6", STANDARD, "gap in run: R1 R2 R6 needs 3 tiles in between, it has 1 joker"),
        ("R1 J J R7", STANDARD, "gap in run: R1 R7 needs 5 tiles in between, it has 2 jokers"),
        ("R1 R3 R5", AMERICAN, "gap in run: R1 R3 R5 needs 2 tiles in between, it has 0 jokers"),
        ("R12 R13 R1", STANDARD, "runs may not wrap past 13 (rule wrap=none)"),
        ("R13 R1 J", STANDARD, "runs may not wrap past 13 (rule wrap=none)"),
        ("R13 R1 R2", STANDARD, "runs may not wrap past 13 (rule wrap=none)"),
        ("R13 R1 R2", AMERICAN, "only a 1 may follow 13, at the end of a run (rule wrap=american)"),
        ("R12 R13 R1 R2", AMERICAN, "only a 1 may follow 13, at the end of a run (rule wrap=american)"),
        ("R1 R2 R13 J", AMERICAN, "only a 1 may follow 13, at the end of a run (rule wrap=american)"),
        ("K7 B7 R7 O7 J", STANDARD, "too long for a group: 5 tiles, a group has at most 4"),
        ("K7 B7 R7 J", RuleSet(colours=3), "too long for a group: 4 tiles, a group has at most 3"),
        ("R1-13 J", STANDARD, "too long: a run has at most 13 tiles"),
        ("R1 B2 K3", STANDARD, "neither a run (colours differ) nor a group (numbers differ)"),
        ("R1 R2 B2", STANDARD, "neither a run (colours differ) nor a group (numbers differ)"),
        ("R5 B6 J", STANDARD, "neither a run (colours differ) nor a group (numbers differ)"),
    ],
)
def test_invalid_sets_with_reason(text: str, rules: RuleSet, reason: str) -> None:
    tiles = T(text, rules)
    assert best_reading(tiles, rules) is None
    assert readings(tiles, rules) == []
    assert not is_valid(tiles, rules)
    assert why_invalid(tiles, rules) == reason


def test_wrap_variants_on_the_same_tiles() -> None:
    twelve_one = T("R12 R13 R1")
    thirteen_two = T("R13 R1 R2")
    assert not is_valid(twelve_one, STANDARD)
    assert is_valid(twelve_one, AMERICAN)  # 12-13-1 is the American edition's run
    assert is_valid(twelve_one, FULL)
    assert not is_valid(thirteen_two, STANDARD)
    assert not is_valid(thirteen_two, AMERICAN)  # nothing may follow the 1
    assert is_valid(thirteen_two, FULL)


# --- run windows ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("start", "length", "rules", "numbers"),
    [
        (1, 3, STANDARD, [1, 2, 3]),
        (11, 3, STANDARD, [11, 12, 13]),
        (12, 3, STANDARD, None),
        (12, 3, AMERICAN, [12, 13, 1]),
        (13, 3, AMERICAN, None),
        (13, 3, FULL, [13, 1, 2]),
        (10, 5, FULL, [10, 11, 12, 13, 1]),
        (1, 13, STANDARD, list(range(1, 14))),
        (1, 14, FULL, None),
    ],
)
def test_run_numbers(start: int, length: int, rules: RuleSet, numbers: list[int] | None) -> None:
    assert run_numbers(start, length, rules) == numbers


@pytest.mark.parametrize(
    ("length", "rules", "starts"),
    [
        (3, STANDARD, list(range(1, 12))),
        (3, AMERICAN, list(range(1, 13))),
        (3, FULL, list(range(1, 14))),
        (13, STANDARD, [1]),
        (13, AMERICAN, [1, 2]),
        (14, FULL, []),
    ],
)
def test_run_starts(length: int, rules: RuleSet, starts: list[int]) -> None:
    assert list(run_starts(length, rules)) == starts


# --- best reading: display order, kind, value --------------------------------------------------

@pytest.mark.parametrize(
    ("text", "rules", "shown", "kind", "value"),
    [
        # The joker goes where it is worth most: at the high end of 4-5 (4+5+6 = 15, not 3+4+5).
        ("R4 R5 J", STANDARD, "R4 R5 J", Kind.RUN, 15),
        ("J R5 R4", STANDARD, "R4 R5 J", Kind.RUN, 15),
        # Nothing above 13: the joker is the 11 (J-12-13 = 36, docs/rules.md).
        ("R12 R13 J", STANDARD, "J R12 R13", Kind.RUN, 36),
        ("R4 J R6", STANDARD, "R4 J R6", Kind.RUN, 15),
        ("R6 R4 J", STANDARD, "R4 J R6", Kind.RUN, 15),
        ("R1 R2 R3", STANDARD, "R1 R2 R3", Kind.RUN, 6),
        ("R1-13", STANDARD, " ".join(f"R{n}" for n in range(1, 14)), Kind.RUN, 91),
        # K1 J J: run 1-2-3 (6) beats the group of 1s (3).
        ("K1 J J", STANDARD, "K1 J J", Kind.RUN, 6),
        ("J K1 J", STANDARD, "K1 J J", Kind.RUN, 6),
        ("K1 J J J", STANDARD, "K1 J J J", Kind.RUN, 10),
        # R7 J J: run 7-8-9 (24) beats the group of 7s (21).
        ("R7 J J", STANDARD, "R7 J J", Kind.RUN, 24),
        # R13 J J: group of 13s (39) beats the run 11-12-13 (36).
        ("R13 J J", STANDARD, "R13 J J", Kind.GROUP, 39),
        ("R13 J J J", RuleSet(jokers=3), "R13 J J J", Kind.GROUP, 52),
        # K12 J J: run 11-12-13 and group both 36; the run is preferred on a tie.
        ("K12 J J", STANDARD, "J K12 J", Kind.RUN, 36),
        ("O7 K7 J", STANDARD, "K7 O7 J", Kind.GROUP, 21),
        ("O7 R7 B7 K7", STANDARD, "K7 B7 R7 O7", Kind.GROUP, 28),
        # American: 12-13-1 counts its numbers (12+13+1 = 26).
        ("R12 R13 R1", AMERICAN, "R12 R13 R1", Kind.RUN, 26),
        ("R1 R13 J", AMERICAN, "J R13 R1", Kind.RUN, 26),
        ("R12 R13 J", AMERICAN, "J R12 R13", Kind.RUN, 36),
        ("K1 J J", AMERICAN, "J J K1", Kind.RUN, 26),
        ("R1 R2 J", AMERICAN, "R1 R2 J", Kind.RUN, 6),
        # Full wrap: J R1 R2 as 13-1-2 (16) beats 1-2-3 (6).
        ("R1 R2 J", FULL, "J R1 R2", Kind.RUN, 16),
        ("R13 R1 R2", FULL, "R13 R1 R2", Kind.RUN, 16),
        ("R13 J J", FULL, "R13 J J", Kind.GROUP, 39),
    ],
)
def test_best_reading(text: str, rules: RuleSet, shown: str, kind: Kind, value: int) -> None:
    reading = best_reading(T(text, rules), rules)
    assert reading is not None
    assert str(reading) == shown
    assert format_tiles(reading.tiles) == shown
    assert reading.kind is kind
    assert reading.value == value


def test_reading_says_what_each_joker_stands_for() -> None:
    reading = best_reading(T("R12 R13 J"), STANDARD)
    assert reading is not None
    assert format_tiles(reading.stands_for) == "R11 R12 R13"
    assert reading.value == sum(t.number for t in reading.stands_for)

    group = best_reading(T("O7 K7 J"), STANDARD)
    assert group is not None
    stands = group.stands_for
    assert len(stands) == 3 and len({t.colour for t in stands}) == 3
    assert {t.number for t in stands} == {7}
    assert {str(t) for t in stands[:2]} == {"K7", "O7"}


def test_k1_joker_joker_has_both_readings() -> None:
    options = {(r.kind, r.value) for r in readings(T("K1 J J"), STANDARD)}
    assert options == {(Kind.RUN, 6), (Kind.GROUP, 3)}
    best = best_reading(T("K1 J J"), STANDARD)
    assert best is not None and best.value == 6


def test_all_run_readings_of_a_joker_run() -> None:
    # R4 R5 J: joker as 3 or as 6.
    values = sorted(r.value for r in readings(T("R4 R5 J"), STANDARD))
    assert values == [12, 15]
    # R5 J J: runs 3-5, 4-6, 5-7, plus the group of 5s.
    options = sorted((r.kind.value, r.value) for r in readings(T("R5 J J"), STANDARD))
    assert options == [("group", 15), ("run", 12), ("run", 15), ("run", 18)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("J R12 R13", 36),  # docs/rules.md: J-12-13 = 11+12+13
        ("R10 R11 R12", 33),
        ("R9 R10 R11", 30),
        ("K10 B10 O10", 30),
        ("K1 K2 K3 K4", 10),
        ("R8 J R10", 27),
        ("K1 J J", 6),
    ],
)
def test_meld_values(text: str, value: int) -> None:
    reading = best_reading(T(text), STANDARD)
    assert reading is not None and reading.value == value
