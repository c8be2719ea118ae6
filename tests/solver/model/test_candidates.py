"""The enumerated set list: pinned counts, validity and values, and a brute-force comparison.

The reference below is written from the rules (docs/rules.md), not from melds.py: a run is a window of
consecutive numbers in one colour (wrapping as the rule says), a group is one number in distinct
colours, a joker fills any hole, a set needs a numbered tile and at least ``min_set_size`` tiles.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement

import pytest

from solver.melds import best_reading
from solver.model.candidates import candidate_sets
from solver.rules import RuleSet, Wrap
from solver.tiles import Tile

Key = tuple[int, ...]


# --- an independent reference -----------------------------------------------------------------

def _windows(length: int, rules: RuleSet) -> list[list[int]]:
    """Number windows a run of this length may occupy."""
    n = rules.numbers
    if length > n:
        return []
    out = []
    for start in range(1, n + 1):
        seq = [start + i for i in range(length)]
        if seq[-1] <= n:
            out.append(seq)
        elif rules.wrap is Wrap.AMERICAN and seq[-1] == n + 1:
            out.append([*seq[:-1], 1])  # 12-13-1: a single 1 after the top number
        elif rules.wrap is Wrap.FULL:
            out.append([(k - 1) % n + 1 for k in seq])
    return out


def _reference(
    numbered: list[tuple[int, int]], jokers: int, rules: RuleSet, longest_run: int | None = None
) -> int | None:
    """Best meld value of (colour, number) tiles plus jokers, or None if no valid reading."""
    size = len(numbered) + jokers
    if size < rules.min_set_size or not numbered or jokers > rules.jokers:
        return None
    colours = [c for c, _ in numbered]
    numbers = [n for _, n in numbered]
    values = []
    one_colour = len(set(colours)) == 1 and len(set(numbers)) == len(numbers)
    if one_colour and (longest_run is None or size <= longest_run):
        values += [sum(w) for w in _windows(size, rules) if set(numbers) <= set(w)]
    if len(set(numbers)) == 1 and len(set(colours)) == len(colours) and size <= rules.colours:
        values.append(numbers[0] * size)
    return max(values) if values else None


def _key(numbered: list[tuple[int, int]], jokers: int, rules: RuleSet) -> Key:
    joker = rules.colours * rules.numbers
    return tuple(sorted(c * rules.numbers + n - 1 for c, n in numbered)) + (joker,) * jokers


def _decode(key: Key, rules: RuleSet) -> tuple[list[tuple[int, int]], int]:
    tiles = [Tile.from_index(i, rules) for i in key]
    return [(t.colour, t.number) for t in tiles if not t.is_joker], sum(t.is_joker for t in tiles)


def _expected_by_families(rules: RuleSet) -> dict[Key, int]:
    """Every valid set the list should hold: runs up to max_run_length, groups of any size.

    Only one-colour and one-number tile families can form sets, so enumerating subsets of those
    (plus jokers) reaches every valid set; anything else is invalid by definition.
    """
    expected: dict[Key, int] = {}
    families = [[(c, n) for n in range(1, rules.numbers + 1)] for c in range(rules.colours)]
    families += [[(c, n) for c in range(rules.colours)] for n in range(1, rules.numbers + 1)]
    longest = max(rules.max_run_length, rules.colours)
    for family in families:
        for k in range(1, min(len(family), longest) + 1):
            for chosen in combinations(family, k):
                for j in range(rules.jokers + 1):
                    value = _reference(list(chosen), j, rules, rules.max_run_length)
                    if value is not None:
                        expected[_key(list(chosen), j, rules)] = value
    return expected


def _as_dict(rules: RuleSet) -> dict[Key, int]:
    cands = candidate_sets(rules)
    return dict(zip(cands.keys, cands.values, strict=True))


# --- pinned counts --------------------------------------------------------------------------------

def test_standard_count_is_1173() -> None:
    # den Hertog & Hulshof: runs of 3..5 and groups of 3..4 with up to 2 jokers.
    # By hand: runs per colour 30 (no joker) + 91 (one) + 104 (two) = 225, x4 = 900;
    # groups per number 5 + 10 + 10 = 25, x13 = 325; the 52 sets "one tile + J J" are both.
    cands = candidate_sets(RuleSet())
    assert len(cands) == 1173
    assert len(cands.keys) == len(cands.values) == len(cands.jokers) == 1173


def test_standard_count_without_jokers_is_185() -> None:
    cands = candidate_sets(RuleSet())
    assert sum(1 for j in cands.jokers if j == 0) == 185  # 4 x (11+10+9) runs + 13 x 5 groups
    assert len(candidate_sets(RuleSet(jokers=0))) == 185


@pytest.mark.parametrize(
    ("rules", "count"),
    [
        (RuleSet(jokers=1), 679),  # 4 x (30 + 91) runs + 13 x (5 + 10) groups
        (RuleSet(jokers=0, wrap=Wrap.AMERICAN), 197),  # + one 12-13-1-style run per colour and length
        (RuleSet(jokers=0, wrap=Wrap.FULL), 221),  # 4 x 3 x 13 runs + 65 groups
        (RuleSet(numbers=6, colours=3, jokers=1), 135),  # 3 x (9 + 28) runs + 6 x (1 + 3) groups
    ],
    ids=lambda x: x.describe() if isinstance(x, RuleSet) else str(x),
)
def test_hand_counted_variants(rules: RuleSet, count: int) -> None:
    assert len(candidate_sets(rules)) == count


# --- every candidate: valid, right value, no duplicates ----------------------------------------

VARIANTS = [
    RuleSet(),
    RuleSet(jokers=0),
    RuleSet(jokers=1),
    RuleSet(wrap=Wrap.AMERICAN),
    RuleSet(wrap=Wrap.FULL),
    RuleSet(numbers=6, colours=3, jokers=1),
    RuleSet(numbers=5, colours=8, jokers=4),  # groups longer than any run
    RuleSet(numbers=10, min_set_size=4, wrap=Wrap.FULL),
    RuleSet(numbers=8, min_set_size=2, jokers=3),
    RuleSet(numbers=2, colours=3, jokers=1),  # groups only
    RuleSet(numbers=7, colours=1, jokers=2, wrap=Wrap.AMERICAN),  # runs only
    RuleSet(numbers=9, min_set_size=5),  # sets longer than any group: runs only
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.describe())
def test_candidates_are_valid_with_their_best_value(rules: RuleSet) -> None:
    cands = candidate_sets(rules)
    joker = rules.colours * rules.numbers
    assert len(set(cands.keys)) == len(cands.keys), "duplicate sets"
    assert list(cands.keys) == sorted(cands.keys)
    for i, key in enumerate(cands.keys):
        assert list(key) == sorted(key)
        assert cands.index[key] == i
        assert cands.jokers[i] == key.count(joker) <= rules.jokers
        numbered = [t for t in key if t != joker]
        assert len(set(numbered)) == len(numbered), "a set never holds two copies of one tile"
        tiles = [Tile.from_index(t, rules) for t in key]
        reading = best_reading(tiles, rules)
        assert reading is not None, tiles
        assert cands.values[i] == reading.value, tiles
    assert len(cands.index) == len(cands.keys)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.describe())
def test_candidates_match_the_reference(rules: RuleSet) -> None:
    expected = _expected_by_families(rules)
    got = _as_dict(rules)
    assert set(got) - set(expected) == set(), "sets that should not be there"
    assert set(expected) - set(got) == set(), "valid sets missing"
    assert got == expected


def test_brute_force_small_game() -> None:
    """numbers=6, colours=3, jokers=1: every multiset of up to 6 tiles, checked from first principles."""
    rules = RuleSet(numbers=6, colours=3, jokers=1)
    assert rules.max_run_length == 5 and rules.colours == 3
    kinds = [(c, n) for c in range(3) for n in range(1, 7)] + [None]  # None: the joker
    expected: dict[Key, int] = {}
    six_long: list[Key] = []
    for size in range(1, 7):
        for combo in combinations_with_replacement(kinds, size):
            numbered = [t for t in combo if t is not None]
            jokers = combo.count(None)
            value = _reference(numbered, jokers, rules)  # type: ignore[arg-type]
            if value is None:
                continue
            if size <= 5:
                expected[_key(numbered, jokers, rules)] = value  # type: ignore[arg-type]
            else:
                six_long.append(_key(numbered, jokers, rules))  # type: ignore[arg-type]
    got = _as_dict(rules)
    assert got == expected
    assert len(got) == 135
    # Valid 6-runs (1-6 in a colour, with or without the joker: 3 x (1 + 6)) are left out on
    # purpose: each splits into two listed 3-runs.
    assert len(six_long) == 21
    assert not set(six_long) & set(got)


# --- internal consistency across variants --------------------------------------------------------

def test_joker_free_part_does_not_depend_on_jokers() -> None:
    none = _as_dict(RuleSet(jokers=0))
    for jokers in (1, 2):
        cands = candidate_sets(RuleSet(jokers=jokers))
        free = {k: v for k, v, j in zip(cands.keys, cands.values, cands.jokers, strict=True) if j == 0}
        assert free == none


def test_more_jokers_only_add_sets() -> None:
    one, two = _as_dict(RuleSet(jokers=1)), _as_dict(RuleSet(jokers=2))
    assert set(one) < set(two)
    assert all(two[k] == v for k, v in one.items())
    joker = 52
    assert sum(1 for k in two if k.count(joker) == 2) == 1173 - 679


def test_wrap_variants_nest() -> None:
    none = _as_dict(RuleSet())
    american = _as_dict(RuleSet(wrap=Wrap.AMERICAN))
    full = _as_dict(RuleSet(wrap=Wrap.FULL))
    assert set(none) < set(american) < set(full)
    # More ways to read a set can only raise its best value (K1 J J: 6 -> 26 as 12-13-1).
    assert all(american[k] >= v for k, v in none.items())
    assert all(full[k] >= v for k, v in american.items())
    k1_jj = (0, 52, 52)
    assert (none[k1_jj], american[k1_jj], full[k1_jj]) == (6, 26, 26)


@pytest.mark.parametrize(
    ("tiles", "value"),
    [
        ("R1 R2 R3", 6),
        ("J R12 R13", 36),
        ("R13 J J", 39),  # group of 13s beats the run 11-12-13
        ("K1 J J", 6),
        ("K7 B7 R7 O7", 28),
        ("B9 B10 B11 B12 B13", 55),
    ],
)
def test_known_values(tiles: str, value: int) -> None:
    rules = RuleSet()
    key = tuple(sorted(Tile.parse(t).index(rules) for t in tiles.split()))
    cands = candidate_sets(rules)
    assert cands.values[cands.index[key]] == value


def test_runs_longer_than_five_are_not_listed() -> None:
    rules = RuleSet()
    cands = candidate_sets(rules)
    assert max(len(k) for k in cands.keys) == 5
    six = tuple(range(0, 6))  # K1..K6
    assert six not in cands.index
    counts = Counter(len(k) for k in cands.keys)
    assert set(counts) == {3, 4, 5}


def test_candidate_sets_is_cached_per_rule_object() -> None:
    assert candidate_sets(RuleSet()) is candidate_sets(RuleSet())
    assert candidate_sets(RuleSet(wrap="american")) is candidate_sets(RuleSet(wrap=Wrap.AMERICAN))  # type: ignore[arg-type]
