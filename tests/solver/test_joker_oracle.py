"""Every engine against the brute-force oracle (``tests/oracle.py``: every rack subset times every
partition of the tiles into valid sets, judged by the validator) on random small positions with
jokers on the table, under free, strict and locked jokers with both retrievals, and on small rule
sets (3 to 6 numbers, 1 to 4 colours, each wrap).

An answer must be legal (``solve`` validates it) and rank exactly as the oracle's optimum: tiles
or points, then the other, then the sets kept. A bigger one-off run: ``python -m tests.hunt``.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.backends import get_backend
from solver.model import build_model
from solver.model.flow import flow_supported
from solver.position import Position
from solver.rules import JokerRules, Retrieval, RuleSet, Wrap
from solver.solution import Objective
from tests.hunt import check, mode_name
from tests.oracle import JOKER_MODES, best_moves, random_position, small_rules

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)

# Positions per joker mode and engine: bnb's default path (free optimum, relaxation, repairs,
# exact model) most, the slower engines fewer. About a minute in all.
EXAMPLES = {
    "bnb-auto": 400,
    "bnb-sets": 100,
    "highs-auto": 100,
    "highs-sets": 60,
    "cbc-sets": 50,
    "cpsat-sets": 60,
}


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,  # the same positions every run: a failure is reproducible
        suppress_health_check=[HealthCheck.too_slow],
    )


def _engine_test(engine: str, joker_rules: JokerRules, retrieval: Retrieval) -> None:
    @_settings(EXAMPLES[engine])
    @given(seed=SEEDS)
    def run(seed: int) -> None:
        rng = random.Random(seed)
        rules = small_rules(rng, joker_rules, retrieval)
        position = random_position(rng, rules, max_sets=rng.choice([3, 4]), max_rack=rng.choice([2, 3, 4, 5, 6]))
        disagreements = check(position, (engine,))
        assert not disagreements, disagreements[0].to_json()

    run()


@pytest.mark.parametrize("engine", list(EXAMPLES))
@pytest.mark.parametrize(("joker_rules", "retrieval"), JOKER_MODES, ids=[mode_name(*m) for m in JOKER_MODES])
def test_engines_match_the_oracle(engine: str, joker_rules: JokerRules, retrieval: Retrieval) -> None:
    _engine_test(engine, joker_rules, retrieval)


@pytest.mark.parametrize(
    ("joker_rules", "retrieval"), JOKER_MODES[1:], ids=[mode_name(*m) for m in JOKER_MODES[1:]]
)
@_settings(250)
@given(seed=SEEDS)
def test_the_relaxation_never_falls_below_the_oracle(
    joker_rules: JokerRules, retrieval: Retrieval, seed: int
) -> None:
    """The pattern formulation's joker model is a relaxation: its optimum (tiles, points, kept
    sets) is never below the best legal move's. If it were, a legal arrangement of it could be
    returned as optimal while a better move exists (the repairs and the exact model would hide it
    only sometimes), so it is checked on its own."""
    rng = random.Random(seed)
    rules = small_rules(rng, joker_rules, retrieval)
    if not flow_supported(rules):
        rules = rules.replace(wrap=Wrap.NONE)
    position = random_position(rng, rules, max_sets=rng.choice([3, 4]), max_rack=rng.choice([2, 3, 4, 5, 6]))
    _relaxation_reaches_the_oracle(position)


def _relaxation_reaches_the_oracle(position: Position) -> None:
    best = best_moves(position)
    for objective in Objective:
        model = build_model(position, objective, "patterns")
        assert model.relaxed
        values = get_backend("bnb")(model.lp, None).values
        assert values is not None
        found = tuple(round(sum(c * values[v] for v, c in stage)) for stage in model.lp.stages)
        assert found >= best.rank(objective), position.to_dict()


def test_two_retrieved_jokers_may_each_go_into_a_copy_of_one_host() -> None:
    """K3 K3 retrieve both jokers of K1 K2 J, K1 K2 J; each goes into its own B1 B2 J (the
    relaxation once let a host be laid only once, and HiGHS, which has no free optimum to try
    first, played 3 tiles instead of 6)."""
    rules = RuleSet(numbers=3, colours=2, joker_rules=JokerRules.STRICT)
    position = Position.from_strings("K3 K3 B1 B1 B2 B2", ["K1 K2 J", "K1 K2 J"], rules=rules)
    _relaxation_reaches_the_oracle(position)
    assert not check(position, ("bnb-auto", "highs-auto"))
    # Locked, one colour: K2 and K3 retrieve the jokers of K1 J K3 and K1 K2 J; each goes into
    # one of two runs K1 K2 K3 J K5 (the joker K4, beside two rack tiles).
    rules = RuleSet(numbers=5, colours=1, joker_rules=JokerRules.LOCKED)
    position = Position.from_strings("K2 K3 K5 K5", ["K1 J K3", "K1 K2 J"], rules=rules)
    _relaxation_reaches_the_oracle(position)
    assert not check(position, ("bnb-auto", "highs-auto"))


@pytest.mark.parametrize(("joker_rules", "retrieval"), JOKER_MODES[1:], ids=[mode_name(*m) for m in JOKER_MODES[1:]])
@_settings(80)
@given(seed=SEEDS)
def test_the_exact_pattern_model_matches_the_oracle(joker_rules: JokerRules, retrieval: Retrieval, seed: int) -> None:
    """The exact model on the pattern formulation, which bnb falls back to when no repair of the
    relaxation's answer is legal (rarely: on its own here), decodes to the best legal move."""
    from solver.validator import validate

    rng = random.Random(seed)
    rules = small_rules(rng, joker_rules, retrieval)
    if not flow_supported(rules):
        rules = rules.replace(wrap=Wrap.NONE)
    position = random_position(rng, rules, max_rack=rng.choice([2, 3, 4, 5]))
    best = best_moves(position)
    for objective in Objective:
        model = build_model(position, objective, "patterns", exact=True)
        assert not model.relaxed
        result = get_backend("bnb")(model.lp, None)
        assert result.values is not None and result.optimal
        sets, played = model.decode(result.values)
        if not played:
            sets = [list(s) for s in position.table]
        assert validate(position, sets) == []
        found = tuple(round(sum(c * result.values[v] for v, c in stage)) for stage in model.lp.stages)
        assert found == best.rank(objective), position.to_dict()


SMALL_RULES = [
    (numbers, colours, wrap) for numbers in (3, 4, 5, 6) for colours in (1, 2, 3, 4) for wrap in Wrap
]


@pytest.mark.parametrize(
    ("numbers", "colours", "wrap"), SMALL_RULES, ids=[f"{n}x{c}-{w.value}" for n, c, w in SMALL_RULES]
)
def test_small_rule_sets_match_the_oracle(numbers: int, colours: int, wrap: Wrap) -> None:
    """Each small rule set under every joker mode: bnb's default path and CP-SAT on the set
    formulation (an independent engine), a few positions each."""
    rng = random.Random(numbers * 100 + colours * 10 + list(Wrap).index(wrap))
    for joker_rules, retrieval in JOKER_MODES:
        for _ in range(3):
            copies, jokers = rng.choice([1, 2]), rng.choice([1, 2])
            rules = RuleSet(
                numbers=numbers,
                colours=colours,
                copies=copies,
                jokers=jokers,
                wrap=wrap,
                joker_rules=joker_rules,
                joker_retrieval=retrieval,
            )
            position = random_position(rng, rules, max_rack=rng.choice([2, 3, 4]))
            disagreements = check(position, ("bnb-auto", "cpsat-sets"))
            assert not disagreements, disagreements[0].to_json()
