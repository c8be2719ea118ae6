"""Tiles moved and the least-moves arrangement: checked against brute force on small positions."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, product

import pytest

from solver.least_moves import least_moves, match, sets_broken
from solver.melds import Kind, best_reading, readings
from solver.position import Position
from solver.rules import RuleSet, Wrap
from solver.solve import solve
from solver.tiles import Tile, parse_token
from solver.validator import validate
from tests.strategies import random_position

Sets = Sequence[Sequence[Tile]]


def all_tables(tiles: Counter[Tile], rules: RuleSet) -> Iterator[list[list[Tile]]]:
    """Every way to lay all of ``tiles`` as valid sets (brute force, small heaps only)."""
    if not tiles:
        yield []
        return
    first = min(tiles.elements())
    rest = tiles - Counter([first])
    pool = sorted(rest.elements())
    seen: set[tuple[Tile, ...]] = set()
    for size in range(rules.min_set_size - 1, len(pool) + 1):
        for others in combinations(pool, size):
            if others in seen:
                continue
            seen.add(others)
            candidate = [first, *others]
            if best_reading(candidate, rules) is None:
                continue
            for table in all_tables(rest - Counter(others), rules):
                yield [candidate, *table]


def brute_moved(before: Sets, after: Sets, rules: RuleSet) -> int:
    """Tiles moved by the definition, trying every choice of bases and of tiles kept."""
    return brute_work(before, after, rules)[0]


def brute_work(before: Sets, after: Sets, rules: RuleSet) -> tuple[int, int]:
    """(tiles moved, sets broken), the least in that order over every choice of bases and of
    tiles kept: a set is broken when it loses a tile or is the base of two new sets."""
    kinds = [{r.kind for r in readings(s, rules)} for s in before]
    options: list[list[int | None]] = []
    for s in after:
        can_be = {r.kind for r in readings(s, rules)}
        shared = [
            i
            for i, old in enumerate(before)
            if kinds[i] & can_be and any(not t.is_joker for t in Counter(old) & Counter(s))
        ]
        options.append([None, *shared])
    size = sum(len(s) for s in before)
    best = (size, len(before))
    for bases in product(*options):
        total, broken = 0, 0
        for i, old in enumerate(before):
            parts = [after[j] for j, b in enumerate(bases) if b == i]
            if len(parts) > 1 and Kind.RUN not in kinds[i]:  # a group is never split
                total = -(10**6)
                break
            keep = _best_keep(old, parts) if parts else 0
            total += keep
            broken += len(parts) > 1 or keep < len(old)
        if total >= 0:
            best = min(best, (size - total, broken))
    return best


def _best_keep(old: Sequence[Tile], parts: list[Sequence[Tile]]) -> int:
    """Most tiles of ``old`` the parts keep: each tile in one part holding it, every part one
    numbered tile at least, jokers only where a numbered tile is kept."""
    best = -1
    for choice in product(*[[None, *range(len(parts))] for _ in old]):
        held = [Counter[Tile]() for _ in parts]
        for t, j in zip(old, choice):
            if j is not None:
                held[j][t] += 1
        if any(h - Counter(p) for h, p in zip(held, parts)):
            continue
        if any(not any(not t.is_joker for t in h) for h in held):
            continue
        best = max(best, sum(sum(h.values()) for h in held))
    return best if best >= 0 else -(10**6)  # parts that cannot all keep a tile are not bases


def small_positions(count: int, seed: int) -> Iterator[Position]:
    rnd = random.Random(seed)
    found = 0
    while found < count:
        rules = rnd.choice([RuleSet(), RuleSet(wrap=Wrap.AMERICAN), RuleSet(jokers=1)])
        position = random_position(rnd, rules, max_sets=4, max_rack=5, opened=True)
        answer = solve(position)
        size = len(answer.played) + sum(map(len, position.table))
        # Positions where the answer moves a table tile or breaks a set: something to find.
        found_bases = match(position.table, [s.tiles for s in answer.table], rules)
        if (
            answer.played
            and size <= 12
            and (found_bases.tiles_moved or sets_broken(position.table, found_bases.table))
        ):
            found += 1
            yield position


@pytest.mark.parametrize(
    "position", list(small_positions(32, seed=7)), ids=lambda p: "-".join(map(str, p.rack))
)
def test_least_moves_is_the_least_over_every_table(position: Position) -> None:
    answer = solve(position)
    after = [list(s.tiles) for s in answer.table]
    found = least_moves(position, after, answer.played)
    heap = Counter(t for s in after for t in s)
    least = min(brute_work(position.table, table, position.rules) for table in all_tables(heap, position.rules))
    # The fewest tiles moved, and of those the fewest sets broken (a puzzle's level reads both).
    assert (found.tiles_moved, sets_broken(position.table, found.table)) == least
    assert found.optimal
    # Its own count is right, it is legal and it holds exactly the same tiles.
    assert brute_moved(position.table, found.sets, position.rules) == found.tiles_moved
    assert validate(position, found.sets) == []
    assert Counter(t for s in found.sets for t in s) == heap


@pytest.mark.parametrize(
    ("rack", "table"),
    [
        ("R4 B9 B10", ["R1 R2 R3", "B6 B7 B8", "K5 B5 R5"]),  # extensions only
        ("O5 K10 K11 K12", ["K5 B5 R5", "R9 R10 R11"]),  # a fourth colour and a new set
        ("B8", ["B6 B7 B8 B9 B10"]),  # a split moves nothing
        ("R5", ["R2 R3 R4", "R6 R7 R8 R9"]),  # joining two runs with the tile between them
    ],
)
def test_nothing_moves_when_extending_is_enough(rack: str, table: list[str]) -> None:
    position = Position.from_strings(rack, table)
    answer = solve(position)
    found = least_moves(position, [s.tiles for s in answer.table], answer.played)
    assert found.tiles_moved == 0


@pytest.mark.parametrize(
    ("rack", "table", "answer"),
    [
        # Both ways move no tile; splitting B4 B5 J keeps B4 B5 B6 as it was, extending both
        # breaks nothing: a person's level-1 work (a generated "level 2" puzzle measured so).
        ("B2 B3 B3", ["B4 B5 B6", "B4 B5 J"], ["B2 B3 B4", "B3 J B5", "B4 B5 B6"]),
        ("R7", ["R8 R9 R10 R11", "R8 J J R11 R12"], ["R7 R8 J", "R8 R9 R10 R11", "R11 R12 J"]),
        ("B9", ["B7 B8 J B10 B11", "O5 J O7"], ["B7 B8 J", "B9 B10 B11", "O5 J O7"]),
        ("J", ["B6 B7 B8", "O6 O7 J O9 O10"], ["B6 B7 B8", "O6 O7 J", "O9 O10 J"]),
    ],
)
def test_extending_is_preferred_to_breaking_a_set(rack: str, table: list[str], answer: list[str]) -> None:
    position = Position.from_strings(rack, table)
    after = [[t for word in s.split() for t in parse_token(word, position.rules)] for s in answer]
    assert validate(position, after) == []
    found = least_moves(position, after, list(position.rack))
    assert (found.tiles_moved, sets_broken(position.table, found.table)) == (0, 0)


# Positions whose first optimal table (the solver's, or the obvious one) moves more than needed.
@pytest.mark.parametrize(
    ("rack", "table", "naive", "naive_moved", "least"),
    [
        # R5 R6 with R8 and a joker from the table (2 moved), or R5 R6 with the joker and the
        # 8s take K8 (1 moved: the joker).
        (
            "K8 R1 R5 R6",
            ["B8 R8 O8", "O4 O5 J J", "R1 R2 R3 R4 R5"],
            ["R1 R2 R3 R4 R5", "R5 R6 J R8", "O4 O5 J", "K8 B8 O8"],
            2,
            1,
        ),
        # Borrowing K7 K8 for a new run breaks the 7s and 8s; splitting K5-K8 with the rack's K7
        # and lending a joker moves only the joker.
        (
            "K7 B10 O6",
            ["R7 R9 J J", "K5 K6 K7 K8", "B6 B7 B8 B9", "O7 O8 O9"],
            ["K5 K6 K7 K8", "B6 B7 B8 J B10", "O6 J O8", "K7 R7 O7", "B9 R9 O9"],
            7,
            1,
        ),
        # The rebuild moves the whole group of 5s; taking only the joker is enough.
        (
            "K6 B3",
            ["K5 B5 R5 J", "K3 K4 J", "R5 R6 R7 R8", "K1 K2 K3"],
            ["K1 K2 K3", "K4 K5 K6", "R5 R6 R7 R8", "K3 B3 J", "B5 R5 J"],
            3,
            2,
        ),
    ],
)
def test_fewer_moves_than_the_naive_table(
    rack: str, table: list[str], naive: list[str], naive_moved: int, least: int
) -> None:
    position = Position.from_strings(rack, table)
    naive_table = [Position.from_strings(s).rack for s in naive]
    assert validate(position, naive_table) == []
    assert match(position.table, naive_table, position.rules).tiles_moved == naive_moved
    assert brute_moved(position.table, naive_table, position.rules) == naive_moved
    played = sorted((Counter(t for s in naive_table for t in s) - position.table_tiles).elements())
    found = least_moves(position, naive_table, played)
    assert found.tiles_moved == least
    assert validate(position, found.sets) == []


@pytest.mark.parametrize(
    ("before", "after", "moved"),
    [
        (["R4 J R6"], ["R4 R5 R6"], 1),  # the joker leaves, R4 and R6 stay
        (["K3 K4 K5"], ["K2 K3 K4", "K5 B5 R5"], 1),  # K5 joins a group
        (["K7 K8 K9", "B7 B8 B9", "R7 R8 R9"], ["K7 B7 R7", "K8 B8 R8 O8", "K9 B9 R9"], 9),
        (["K5 B5 R5"], ["K3 K4 K5", "B5 B6 B7", "R5 R6 R7"], 3),  # a group spread over runs
        (["K5 B5 R5 O5"], ["B5 R5 O5", "K5 K6 K7"], 1),  # a group trimmed
        (["R1 R2 R3 R4 R5 R6 R7"], ["R1 R2 R3", "R5 R6 R7", "K4 B4 R4"], 1),  # the middle tile
        (["R1 R2 R3", "R4 R5 R6"], ["R1 R2 R3 R4 R5 R6"], 3),  # joined: one run changes set
        (["B8 J J"], ["B8 R8 J J"], 0),  # one tile and two jokers may be declared a group
    ],
)
def test_tiles_moved_by_the_definition(before: list[str], after: list[str], moved: int) -> None:
    old = [Position.from_strings(s).rack for s in before]
    new = [Position.from_strings(s).rack for s in after]
    rules = RuleSet()
    assert match(old, new, rules).tiles_moved == moved
    assert brute_moved(old, new, rules) == moved


def test_initial_meld_keeps_the_answer() -> None:
    position = Position.from_strings("K10 K11 K12 R1", ["R2 R3 R4"], opened=False)
    answer = solve(position)
    found = least_moves(position, [s.tiles for s in answer.table], answer.played)
    assert found.tiles_moved == 0
    assert sorted(map(sorted, found.sets)) == sorted(sorted(s.tiles) for s in answer.table)


@pytest.mark.parametrize(
    ("rules", "rack", "table"),
    [
        (RuleSet(numbers=5, colours=1, copies=1, jokers=3, min_set_size=4), "K1 K4 J", ["J K2 K3 J K5"]),
        (RuleSet(numbers=13, colours=2, copies=1, jokers=3, min_set_size=4, wrap=Wrap.AMERICAN), "K12 B1 B5 J", ["K1 K2 J K4 K5 J"]),
    ],
)
def test_new_sets_keep_no_more_jokers_of_a_set_than_it_held(rules: RuleSet, rack: str, table: list[str]) -> None:
    """Two new sets each holding jokers of one old set and the rack's: the bases were taken
    without a choice (each tile looked claimed once, whatever the copies), the two kept three
    jokers of a set holding two, and `hint` stopped with an internal error."""
    from solver.hint import hint

    position = Position.from_strings(rack, table, rules=rules)
    found = least_moves(position, [list(s.tiles) for s in solve(position).table], solve(position).played)
    for i, old in enumerate(position.table):
        kept = Counter()
        for placed in found.table:
            if placed.base == i:
                kept += Counter(placed.kept)
        assert not kept - Counter(old)
    assert hint(position, 3).plan.steps
