"""The rule object: defaults from docs/rules.md, impossible values, option parsing, describe()."""

from __future__ import annotations

import re
from itertools import combinations

import pytest

from solver.errors import RulesError
from solver.rules import JokerRules, Retrieval, RuleSet, Wrap


def test_defaults_are_the_standard_game() -> None:
    rules = RuleSet()
    # docs/rules.md: numbers 1-13 in four colours, two copies, 2 jokers, sets of 3+, opening 30,
    # no joker in the initial meld, no continuing in the opening turn, no wrap-around.
    assert rules.numbers == 13
    assert rules.colours == 4
    assert rules.copies == 2
    assert rules.jokers == 2
    assert rules.min_set_size == 3
    assert rules.meld_threshold == 30
    assert rules.joker_in_meld is False
    assert rules.continue_after_meld is False
    assert rules.wrap is Wrap.NONE
    # A joker left on a rack costs 30 in the standard scoring.
    assert rules.joker_penalty == 30
    # 106 tiles in all.
    assert rules.numbers * rules.colours * rules.copies + rules.jokers == 106
    assert rules.colour_letters == "KBRO"
    assert rules.groups_possible


def test_rules_are_immutable_hashable_values() -> None:
    a = RuleSet(wrap="american")  # type: ignore[arg-type]
    b = RuleSet(wrap=Wrap.AMERICAN)
    assert a == b and hash(a) == hash(b)
    assert a.wrap is Wrap.AMERICAN
    with pytest.raises(AttributeError):
        a.jokers = 3  # type: ignore[misc]
    assert a.replace(jokers=1) == RuleSet(wrap=Wrap.AMERICAN, jokers=1)
    assert a.jokers == 2


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("numbers", 1),
        ("numbers", 0),
        ("numbers", -13),
        ("numbers", 41),
        ("numbers", "13"),
        ("numbers", 13.0),
        ("numbers", True),
        ("numbers", None),
        ("colours", 0),
        ("colours", 9),  # no letter for a ninth colour
        ("copies", 0),
        ("copies", 9),
        ("copies", -1),
        ("jokers", -1),
        ("jokers", 9),
        ("jokers", 1.5),
        ("min_set_size", 1),
        ("min_set_size", 0),
        ("min_set_size", 41),
        ("meld_threshold", -1),
        ("meld_threshold", 10_001),
        ("meld_threshold", "30"),
        ("joker_penalty", -1),
        ("joker_penalty", False),
        ("joker_in_meld", "yes"),
        ("joker_in_meld", 1),
        ("joker_in_meld", None),
        ("continue_after_meld", "no"),
        ("continue_after_meld", 0),
        ("wrap", "sideways"),
        ("wrap", ""),
        ("wrap", None),
        ("wrap", True),
    ],
)
def test_impossible_value_is_rejected(field: str, value: object) -> None:
    with pytest.raises(RulesError) as err:
        RuleSet(**{field: value})  # type: ignore[arg-type]
    assert f"invalid rule {field.replace('_', '-')}={value!r}:" in str(err.value)  # as the options spell it


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"numbers": 1}, "must be between 2 and 40"),
        ({"colours": 9}, "must be between 1 and 8"),
        ({"jokers": 9}, "must be between 0 and 8"),
        ({"numbers": "13"}, "must be a whole number"),
        ({"joker_in_meld": "yes"}, "must be true or false"),
        ({"wrap": "sideways"}, "must be none, american or full"),
    ],
)
def test_rejection_says_why(changes: dict[str, object], why: str) -> None:
    with pytest.raises(RulesError, match=re.escape(why)):
        RuleSet(**changes)  # type: ignore[arg-type]


def test_set_longer_than_any_run_or_group_is_impossible() -> None:
    with pytest.raises(RulesError) as err:
        RuleSet(numbers=4, colours=4, min_set_size=5)
    assert "invalid rule min-set-size=5:" in str(err.value)
    assert "no run (4 numbers) or group (4 colours) can be that long" in str(err.value)
    with pytest.raises(RulesError, match=re.escape("no run (4 numbers) or group (1 colour) can be")):
        RuleSet(numbers=4, colours=1, min_set_size=5)


@pytest.mark.parametrize(
    "changes",
    [
        {"numbers": 2},  # groups only
        {"numbers": 40, "colours": 8, "copies": 8, "jokers": 8},
        {"colours": 1},  # runs only
        {"min_set_size": 13},  # a 13-run is possible
        {"min_set_size": 2, "jokers": 0},
        {"numbers": 2, "min_set_size": 4},  # min > numbers but a 4-group is possible
        {"meld_threshold": 0},
        {"joker_penalty": 0},
    ],
)
def test_extreme_but_possible_rules_are_accepted(changes: dict[str, object]) -> None:
    rules = RuleSet(**changes)  # type: ignore[arg-type]
    for key, value in changes.items():
        assert getattr(rules, key) == value


# --- from_options -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"min-set-size": 4}, RuleSet(min_set_size=4)),
        ({"min_set_size": "4"}, RuleSet(min_set_size=4)),
        ({"Min-Set-Size": " 4 "}, RuleSet(min_set_size=4)),
        ({"meld-threshold": "0"}, RuleSet(meld_threshold=0)),
        ({"colors": 3}, RuleSet(colours=3)),
        ({"colours": "3"}, RuleSet(colours=3)),
        ({"wrap": "American"}, RuleSet(wrap=Wrap.AMERICAN)),
        ({"wrap": " FULL "}, RuleSet(wrap=Wrap.FULL)),
        ({"wrap": Wrap.NONE}, RuleSet()),
        ({"joker-penalty": 50, "jokers": 1}, RuleSet(joker_penalty=50, jokers=1)),
        ({}, RuleSet()),
    ],
)
def test_from_options(options: dict[str, object], expected: RuleSet) -> None:
    assert RuleSet.from_options(options) == expected


@pytest.mark.parametrize("text", ["yes", "YES", "true", "True", "on", "1", "y", True])
def test_from_options_yes(text: object) -> None:
    rules = RuleSet.from_options({"joker-in-meld": text, "continue_after_meld": text})
    assert rules.joker_in_meld is True
    assert rules.continue_after_meld is True


@pytest.mark.parametrize("text", ["no", "NO", "false", "off", "0", "n", False])
def test_from_options_no(text: object) -> None:
    base = RuleSet(joker_in_meld=True, continue_after_meld=True)
    rules = RuleSet.from_options({"joker_in_meld": text, "continue-after-meld": text}, base)
    assert rules.joker_in_meld is False
    assert rules.continue_after_meld is False


def test_from_options_keeps_the_base() -> None:
    base = RuleSet(wrap=Wrap.FULL, jokers=1)
    assert RuleSet.from_options({"jokers": 0}, base) == RuleSet(wrap=Wrap.FULL, jokers=0)
    assert RuleSet.from_options({}, base) == base


def test_from_options_unknown_key_names_it_and_lists_the_known_ones() -> None:
    with pytest.raises(RulesError) as err:
        RuleSet.from_options({"colour-blind": "yes"})
    message = str(err.value)
    assert message.startswith("unknown rule 'colour-blind': known rules are ")
    for key in ("numbers", "colours", "copies", "jokers", "min-set-size", "meld-threshold",
                "joker-in-meld", "continue-after-meld", "wrap", "joker-penalty"):
        assert key in message


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"joker-in-meld": "maybe"}, "invalid rule joker-in-meld='maybe': must be yes or no"),
        ({"jokers": "two"}, "invalid rule jokers='two': must be a whole number"),
        ({"jokers": "1.5"}, "invalid rule jokers='1.5': must be a whole number"),
        ({"jokers": "1_0"}, "invalid rule jokers='1_0': must be a whole number"),
        ({"jokers": "9" * 30}, "invalid rule jokers=" + "9" * 20 + "…: far too large"),
        ({"numbers": "\u0661\u0663"}, "invalid rule numbers='\u0661\u0663': must be a whole number"),
        ({"jokers": True}, "invalid rule jokers=True: must be a whole number"),
        ({"wrap": "sometimes"}, "invalid rule wrap='sometimes': must be none, american or full"),
        ({"jokers": "9"}, "invalid rule jokers=9: must be between 0 and 8"),
        ({"numbers": 1}, "invalid rule numbers=1: must be between 2 and 40"),
    ],
)
def test_from_options_bad_values(options: dict[str, object], expected: str) -> None:
    with pytest.raises(RulesError) as err:
        RuleSet.from_options(options)
    assert str(err.value) == expected


def test_from_options_range_error_names_the_field() -> None:
    with pytest.raises(RulesError) as err:
        RuleSet.from_options({"min-set-size": "1"})
    assert re.search(r"min[-_]set[-_]size=1\b", str(err.value))


# --- max_run_length ----------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, 5),  # standard: runs of 3..5 (den Hertog & Hulshof)
        ({"jokers": 0}, 5),
        ({"jokers": 1}, 5),
        ({"jokers": 3}, 7),
        ({"jokers": 4}, 9),
        ({"jokers": 8}, 13),  # capped by the numbers
        ({"min_set_size": 2, "jokers": 0}, 3),
        ({"min_set_size": 2, "jokers": 2}, 5),
        ({"min_set_size": 4}, 7),
        ({"min_set_size": 5}, 9),
        ({"numbers": 4}, 4),
        ({"numbers": 6, "colours": 3, "jokers": 1}, 5),
    ],
)
def test_max_run_length(changes: dict[str, object], expected: int) -> None:
    assert RuleSet(**changes).max_run_length == expected  # type: ignore[arg-type]


def _splits(length: int, jokers_at: set[int], m: int) -> bool:
    """Can a run with jokers at these positions be cut into two runs of >= m, each with a number?"""
    for cut in range(m, length - m + 1):
        left = [i for i in range(cut) if i not in jokers_at]
        right = [i for i in range(cut, length) if i not in jokers_at]
        if left and right:
            return True
    return False


@pytest.mark.parametrize(
    "rules",
    [RuleSet(), RuleSet(jokers=0), RuleSet(jokers=3), RuleSet(jokers=4, min_set_size=2),
     RuleSet(min_set_size=4, jokers=1), RuleSet(numbers=20, jokers=5)],
    ids=lambda r: r.describe(),
)
def test_every_longer_run_splits_without_loss(rules: RuleSet) -> None:
    """The set list stops at max_run_length: every longer run must split into two shorter sets."""
    m = rules.min_set_size
    for length in range(rules.max_run_length + 1, rules.numbers + 1):
        for j in range(0, min(rules.jokers, length - 1) + 1):
            for where in combinations(range(length), j):
                assert _splits(length, set(where), m), (length, where)


# --- describe / to_dict -------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("rules", "text"),
    [
        (RuleSet(), "standard"),
        (RuleSet(wrap=Wrap.AMERICAN), "wrap=american"),
        (RuleSet(jokers=1, wrap=Wrap.FULL), "jokers=1 wrap=full"),
        (RuleSet(joker_in_meld=True, meld_threshold=0), "meld-threshold=0 joker-in-meld=yes"),
        (RuleSet(continue_after_meld=True), "continue-after-meld=yes"),
        (RuleSet(min_set_size=4, joker_penalty=100), "min-set-size=4 joker-penalty=100"),
        (RuleSet(numbers=10, colours=3, copies=1), "numbers=10 colours=3 copies=1"),
        (RuleSet(joker_in_meld=False, wrap=Wrap.NONE), "standard"),
    ],
)
def test_describe(rules: RuleSet, text: str) -> None:
    assert rules.describe() == text


@pytest.mark.parametrize(
    "rules",
    [RuleSet(), RuleSet(wrap=Wrap.AMERICAN, jokers=0), RuleSet(joker_in_meld=True, continue_after_meld=True),
     RuleSet(numbers=20, colours=8, copies=3, min_set_size=4, meld_threshold=50, joker_penalty=100),
     RuleSet(joker_rules=JokerRules.STRICT, joker_retrieval=Retrieval.CLUB), RuleSet(joker_rules=JokerRules.LOCKED)],
    ids=lambda r: r.describe(),
)
def test_describe_and_to_dict_round_trip(rules: RuleSet) -> None:
    assert RuleSet.from_options(rules.to_dict()) == rules
    words = [] if rules.describe() == "standard" else rules.describe().split()
    assert RuleSet.from_options(dict(w.split("=", 1) for w in words)) == rules


def test_to_dict_uses_hyphenated_names() -> None:
    assert RuleSet().to_dict() == {
        "numbers": 13,
        "colours": 4,
        "copies": 2,
        "jokers": 2,
        "min-set-size": 3,
        "meld-threshold": 30,
        "joker-in-meld": False,
        "continue-after-meld": False,
        "wrap": "none",
        "joker-penalty": 30,
        "joker-rules": "free",
        "joker-retrieval": "official",
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"joker-rules": "loose"}, "invalid rule joker-rules='loose': must be free or strict or locked"),
        ({"joker-retrieval": "house"}, "invalid rule joker-retrieval='house': must be official or club"),
    ],
)
def test_joker_rule_values_are_checked(options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError) as err:
        RuleSet.from_options(options)
    assert str(err.value) == message


def test_joker_rules_from_text() -> None:
    rules = RuleSet.from_options({"joker_rules": " Strict ", "joker-retrieval": "CLUB"})
    assert rules.joker_rules is JokerRules.STRICT and rules.joker_retrieval is Retrieval.CLUB
    assert rules.describe() == "joker-rules=strict joker-retrieval=club"


def test_a_cached_count_does_not_let_true_through() -> None:
    """Equal requests share one rule object, but True is not the count 1 (True == 1 in Python)."""
    assert RuleSet.from_options({"jokers": 1}).jokers == 1
    with pytest.raises(RulesError, match="must be a whole number"):
        RuleSet.from_options({"jokers": True})


@pytest.mark.parametrize("backend", ["bnb", "highs", "cbc", "cpsat"])
@pytest.mark.parametrize(
    ("rules", "opened", "formulation", "message"),
    [
        # An opening that goes on (bnb answered it by another path, past the check).
        (RuleSet(wrap=Wrap.FULL, continue_after_meld=True), False, "flow", "the flow formulation needs wrap none or american"),
        (RuleSet(joker_rules=JokerRules.STRICT), True, "flow", "the flow formulation has no strict or locked joker rules"),
        (RuleSet(), False, "patterns", "the patterns formulation is for turns after the initial meld"),
    ],
)
def test_every_backend_refuses_a_formulation_the_rules_are_beyond(
    rules: RuleSet, opened: bool, formulation: str, message: str, backend: str
) -> None:
    from solver.position import Position
    from solver.solve import SolveOptions, solve

    position = Position.from_strings("R10 R11 R12 K4", ["K5 K6 J"], opened, rules)
    with pytest.raises(RulesError, match=message):
        solve(position, SolveOptions(backend=backend, formulation=formulation))
