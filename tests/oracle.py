"""A brute-force oracle for small positions: every move, judged by the independent validator.

A move is a subset of the rack laid together with the table's tiles as a partition into valid
sets. The oracle tries every subset of the rack and every partition of the table's tiles plus that
subset, asks ``solver.validator.validate`` about each, and keeps what the objective ranks: tiles
(or points), then the other, then the original table sets kept exactly. It shares nothing with the
models or the backends, so it can judge them; it is exponential, so only for small positions
(a dozen tiles or so).

``random_position`` draws such positions, with jokers on the table, under any small rule set.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from solver.melds import is_valid, readings, run_numbers, run_starts
from solver.position import Position
from solver.rules import JokerRules, Retrieval, RuleSet, Wrap
from solver.solution import Objective, unchanged
from solver.tiles import JOKER, Tile, points, tile
from solver.validator import validate

Rank = tuple[int, int, int]  # what the objective ranks, most important first


@dataclass(frozen=True, slots=True)
class Best:
    """The optimum by each objective: (tiles, points, kept sets) and (points, tiles, kept sets)."""

    tiles: Rank
    points: Rank

    def rank(self, objective: Objective) -> Rank:
        return self.tiles if objective is Objective.TILES else self.points


def partitions(pool: Counter[Tile], rules: RuleSet) -> Iterator[list[tuple[Tile, ...]]]:
    """Every partition of the multiset ``pool`` into valid sets (each partition once)."""
    yield from _partitions(tuple(sorted(pool.elements())), rules)


def _partitions(pool: tuple[Tile, ...], rules: RuleSet) -> Iterator[list[tuple[Tile, ...]]]:
    if not pool:
        yield []
        return
    # The set holding the first tile (jokers sort last: a set needs a numbered tile anyway).
    first, rest = pool[0], pool[1:]
    # Only tiles of its colour (a run) or number (a group), and jokers, can share its set.
    fits = tuple(t for t in rest if t.is_joker or t.colour == first.colour or t.number == first.number)
    longest = max(rules.numbers, rules.colours)
    for others in _subsets(fits):
        group = (first, *others)
        if not rules.min_set_size <= len(group) <= longest or not is_valid(group, rules):
            continue
        left = Counter(rest)
        left.subtract(others)
        for tail in _partitions(tuple(sorted(left.elements())), rules):
            yield [group, *tail]


@lru_cache(maxsize=65536)
def _subsets(tiles: tuple[Tile, ...]) -> tuple[tuple[Tile, ...], ...]:
    """Every sub-multiset of the sorted ``tiles``, each once, as sorted tuples."""
    found: list[tuple[Tile, ...]] = [()]
    for t, n in sorted(Counter(tiles).items()):
        found = [s + (t,) * k for s in found for k in range(n + 1)]
    return tuple(found)


def best_moves(position: Position) -> Best:
    """The optimum of ``position`` by both objectives, from every legal move."""
    rules = position.rules
    table = position.table_tiles
    no_move = (0, 0, len(position.table))
    found: dict[tuple[Tile, ...], int] = {}  # played subset -> most kept sets among its legal moves
    for subset in _subsets(tuple(sorted(position.rack))):
        if not subset:
            continue
        kept = -1
        for partition in partitions(table + Counter(subset), rules):
            if validate(position, partition):
                continue
            kept = max(kept, len(unchanged(position.table, partition)))
            if kept == len(position.table):
                break
        if kept >= 0:
            found[subset] = kept
    by_tiles, by_points = no_move, no_move
    for subset, kept in found.items():
        value = points(subset, rules)
        by_tiles = max(by_tiles, (len(subset), value, kept))
        by_points = max(by_points, (value, len(subset), kept))
    return Best(by_tiles, by_points)


def rank_of(tiles: int, value: int, kept: int, objective: Objective) -> Rank:
    return (tiles, value, kept) if objective is Objective.TILES else (value, tiles, kept)


# Random small positions with jokers on the table.

JOKER_MODES = (
    (JokerRules.FREE, Retrieval.OFFICIAL),
    (JokerRules.STRICT, Retrieval.OFFICIAL),
    (JokerRules.STRICT, Retrieval.CLUB),
    (JokerRules.LOCKED, Retrieval.OFFICIAL),
    (JokerRules.LOCKED, Retrieval.CLUB),
)


def small_rules(rng: random.Random, joker_rules: JokerRules, retrieval: Retrieval) -> RuleSet:
    """A small rule set: 3-7 numbers, 1-4 colours, any wrap, one or two copies and jokers."""
    return RuleSet(
        numbers=rng.choice([3, 4, 5, 6, 6, 7, 7]),
        colours=rng.choice([1, 2, 3, 4, 4]),
        copies=rng.choice([1, 2, 2]),
        jokers=rng.choice([1, 2, 2]),
        wrap=rng.choice([Wrap.NONE, Wrap.NONE, Wrap.AMERICAN, Wrap.FULL]),
        joker_rules=joker_rules,
        joker_retrieval=retrieval,
    )


def _random_set(rng: random.Random, rules: RuleSet) -> list[Tile]:
    if rules.groups_possible and rng.random() < 0.4:
        number = rng.randint(1, rules.numbers)
        size = rng.randint(rules.min_set_size, rules.colours)
        return [tile(c, number) for c in rng.sample(range(rules.colours), size)]
    colour = rng.randrange(rules.colours)
    length = rng.choice([rules.min_set_size] * 3 + [rules.min_set_size + 1, rules.min_set_size + 2])
    length = min(length, rules.numbers)
    start = rng.choice(list(run_starts(length, rules)))
    numbers = run_numbers(start, length, rules)
    assert numbers is not None
    return [tile(colour, n) for n in numbers]


def random_position(
    rng: random.Random, rules: RuleSet, max_sets: int = 3, max_rack: int = 4, max_tiles: int = 13
) -> Position:
    """One to ``max_sets`` valid table sets, most with a joker, and a rack of tiles near them."""
    pool: Counter[Tile] = Counter(
        {tile(c, n): rules.copies for c in range(rules.colours) for n in range(1, rules.numbers + 1)}
    )
    pool[JOKER] = rules.jokers
    while True:
        left = pool.copy()
        sets: list[list[Tile]] = []
        for _ in range(rng.randint(1, max_sets)):
            s = _random_set(rng, rules)
            if Counter(s) - left:
                continue
            left -= Counter(s)
            sets.append(s)
        # Jokers replace tiles of the sets (the set stays valid: a joker stands for the tile).
        for s in sets:
            for _ in range(2):
                if left[JOKER] and rng.random() < 0.6:
                    i = rng.randrange(len(s))
                    if s[i].is_joker:
                        continue
                    left[s[i]] += 1
                    s[i] = JOKER
                    left[JOKER] -= 1
        sets = [s for s in sets if any(not t.is_joker for t in s) and readings(s, rules)]
        if not sets or not any(JOKER in s for s in sets):
            continue
        if sum(len(s) for s in sets) > max_tiles - 1:
            continue
        near = [t for s in sets for t in s if not t.is_joker] or [tile(0, 1)]
        rack: list[Tile] = []
        size = rng.randint(1, max_rack)
        for _ in range(30):
            if len(rack) >= size:
                break
            base = rng.choice(near)
            roll = rng.random()
            if roll < 0.45:
                number = (base.number + rng.choice([-2, -1, 1, 2]) - 1) % rules.numbers + 1
                candidate = tile(base.colour, number)
            elif roll < 0.9:
                candidate = tile(rng.randrange(rules.colours), base.number)
            else:
                candidate = JOKER
            if left[candidate] > 0:
                left[candidate] -= 1
                rack.append(candidate)
        if not rack or sum(len(s) for s in sets) + len(rack) > max_tiles:
            continue
        rng.shuffle(rack)
        # Written orders vary: a run may be written backwards (its jokers keep their places).
        written = [s[::-1] if rng.random() < 0.2 else s for s in sets]
        return Position(tuple(rack), tuple(tuple(s) for s in written), True, rules)
