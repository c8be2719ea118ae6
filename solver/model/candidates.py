"""Every valid set, enumerated once per rule object (den Hertog & Hulshof's set list).

Runs of length ``min_set_size`` up to ``RuleSet.max_run_length`` (longer runs split into these
without loss) and groups, with every placement of up to ``rules.jokers`` jokers, deduplicated by
tile multiset, keeping the best meld value among a set's readings. Standard rules: 1173 sets,
185 of them without jokers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations

from solver.melds import run_numbers, run_starts
from solver.model.deadline import check_build_deadline
from solver.rules import RuleSet

TileKey = tuple[int, ...]  # a set as the sorted dense indices of its tiles (see Tile.index)


@dataclass(frozen=True, slots=True)
class CandidateSets:
    """The enumerated sets of one rule object, as plain data for model builders."""

    rules: RuleSet
    keys: tuple[TileKey, ...]
    values: tuple[int, ...]  # best meld value of each set
    jokers: tuple[int, ...]  # jokers in each set
    index: dict[TileKey, int]

    def __len__(self) -> int:
        return len(self.keys)


@cache
def candidate_sets(rules: RuleSet) -> CandidateSets:
    """All valid sets under ``rules`` (cached: built once per rule object; a time limit running
    out on the way raises BuildTimeLimit and caches nothing)."""
    best: dict[TileKey, int] = {}
    joker = rules.joker_index
    m = rules.min_set_size

    def offer(numbered: list[int], jokers: int, value: int) -> None:
        key = tuple(sorted(numbered)) + (joker,) * jokers
        if best.get(key, -1) < value:
            best[key] = value

    for colour in range(rules.colours):
        base = colour * rules.numbers - 1
        for length in range(m, rules.max_run_length + 1):
            check_build_deadline()  # many jokers under full wrap: over 100,000 sets
            for start in run_starts(length, rules):
                seq = run_numbers(start, length, rules)
                assert seq is not None
                value = sum(seq)
                for j in range(0, min(rules.jokers, length - 1) + 1):
                    for holes in combinations(range(length), j):
                        numbered = [base + seq[i] for i in range(length) if i not in holes]
                        offer(numbered, j, value)
    for number in range(1, rules.numbers + 1):
        check_build_deadline()
        for size in range(1, rules.colours + 1):
            for colours in combinations(range(rules.colours), size):
                numbered = [c * rules.numbers + number - 1 for c in colours]
                for j in range(0, rules.jokers + 1):
                    if m <= size + j <= rules.colours:
                        offer(numbered, j, number * (size + j))
    keys = tuple(sorted(best))
    return CandidateSets(
        rules=rules,
        keys=keys,
        values=tuple(best[k] for k in keys),
        jokers=tuple(k.count(joker) for k in keys),
        index={k: i for i, k in enumerate(keys)},
    )
