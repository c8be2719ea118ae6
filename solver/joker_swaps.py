"""Jokers swapped with the tiles they stand for: a table made legal under strict and locked jokers.

A free model cannot tell a joker from the tile it stands for: its answer may leave a table joker
standing for the wrong tile, away from its set's tiles, while a real copy of that tile sits in
another set. Swapping the two (both sets still valid) gives a table with the same tiles, which
the validator then judges. A swap never touches a set that is a table set as it was, so the
swapped table keeps no fewer sets: it scores no less than the table it came from.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, combinations, islice

from solver.jokers import assignments
from solver.melds import is_valid
from solver.position import Position
from solver.rules import RuleSet
from solver.tiles import JOKER, Tile
from solver.validator import is_legal

# At most this many swapped tables judged, out of the single swaps and at most SWAP_PAIRS pairs.
SWAP_TRIES = 6
SWAP_PAIRS = 60


Swap = tuple[int, int, Tile]  # (a, b, x): a joker of set a for the x of set b


def legal_by_swaps(position: Position, table: list[list[Tile]]) -> list[list[Tile]] | None:
    """``table`` made legal by one or two swaps of a joker with a real tile it stands for, none in
    a set that is a table set as it was; None if no swap tried does it."""
    rules = position.rules
    originals = {tuple(sorted(s)) for s in position.table}
    swappable = [tuple(sorted(s)) not in originals for s in table]
    singles = [(one, sets) for one, sets in joker_swaps(table, rules) if swappable[one[0]] and swappable[one[1]]]
    # A pair: the second swap made on the table the first one made (it may leave a set invalid).
    pairs = (swap(once, a, b, x, rules) for (_, once), ((a, b, x), _) in islice(combinations(singles, 2), SWAP_PAIRS))
    tried = 0
    for sets in chain((sets for _, sets in singles), pairs):
        if sets is None:
            continue
        tried += 1
        if is_legal(position, sets):
            return sets
        if tried == SWAP_TRIES:
            break
    return None


def joker_swaps(sets: list[list[Tile]], rules: RuleSet) -> Iterator[tuple[Swap, list[list[Tile]]]]:
    """Each swap of a joker of a set for a tile x it stands for in another set that leaves both
    valid, and the table it makes."""
    for a, here in enumerate(sets):
        if JOKER not in here:
            continue
        for x in sorted({x for d in assignments(here, rules) for x in d}):
            for b, there in enumerate(sets):
                swapped = swap(sets, a, b, x, rules) if b != a and x in there else None
                if swapped is not None:
                    yield (a, b, x), swapped


def swap(sets: list[list[Tile]], a: int, b: int, x: Tile, rules: RuleSet) -> list[list[Tile]] | None:
    """``sets`` with a joker of set a swapped with an x of set b, or None if that leaves either
    set invalid (or there is no such joker or tile)."""
    here, there = list(sets[a]), list(sets[b])
    if JOKER not in here or x not in there:
        return None
    here[here.index(JOKER)] = x
    there[there.index(x)] = JOKER
    if not (is_valid(here, rules) and is_valid(there, rules)):
        return None
    return [here if i == a else there if i == b else s for i, s in enumerate(sets)]
