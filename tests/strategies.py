"""Hypothesis strategies: random legal positions built from real sets and a shuffled pool."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import strategies as st

from solver.model.candidates import candidate_sets
from solver.position import Position
from solver.rules import RuleSet, Wrap
from solver.tiles import Tile, full_pool


def random_position(rnd: random.Random, rules: RuleSet, max_sets: int = 10, max_rack: int = 20,
                    opened: bool | None = None) -> Position:
    """A table of random valid sets (some merged into longer runs) and a random rack from the rest."""
    pool = Counter(full_pool(rules))
    cands = candidate_sets(rules)
    table: list[list[Tile]] = []
    for _ in range(rnd.randint(0, max_sets)):
        for _attempt in range(20):
            key = rnd.choice(cands.keys)
            tiles = [Tile.from_index(t, rules) for t in key]
            if not (Counter(tiles) - pool):
                pool -= Counter(tiles)
                table.append(tiles)
                break
    rest = list(pool.elements())
    rnd.shuffle(rest)
    rack = rest[: rnd.randint(0, max_rack)]
    return Position(
        rack=tuple(rack),
        table=tuple(tuple(s) for s in table),
        opened=rnd.random() < 0.75 if opened is None else opened,
        rules=rules,
    )


@st.composite
def rule_sets(draw: st.DrawFn) -> RuleSet:
    """Mostly the standard rules, sometimes a variant."""
    if draw(st.booleans()):
        return RuleSet()
    return RuleSet(
        jokers=draw(st.integers(0, 2)),
        wrap=draw(st.sampled_from(list(Wrap))),
        joker_in_meld=draw(st.booleans()),
        continue_after_meld=draw(st.booleans()),
        meld_threshold=draw(st.sampled_from([0, 10, 30])),
    )


@st.composite
def positions(draw: st.DrawFn, max_sets: int = 10, max_rack: int = 20) -> Position:
    rules = draw(rule_sets())
    seed = draw(st.integers(0, 2**32 - 1))
    return random_position(random.Random(seed), rules, max_sets, max_rack)
