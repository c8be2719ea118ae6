"""The table's jokers as the strict and locked models see them: the sets holding them, read.

Shared by the relaxation (``joker_fates``) and the exact model (``joker_sets``): each table set
with jokers, its readings (``solver.jokers``), its own numbered tiles, the kept-set terms saying
it stays exactly as it was, and the reading variables (one reading is chosen unless it is kept);
and the sets a locked set may grow into.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from solver.jokers import TableReading, numbered, table_readings
from solver.lp import LinearModel
from solver.melds import Kind, run_numbers, run_starts
from solver.model.turn import KeptSets, set_key
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.tiles import JOKER, Tile, tile

Terms = list[tuple[int, int]]


def needs_joker_rows(position: Position) -> bool:
    """Whether the joker rules change this turn: strict or locked, jokers on a table that may change."""
    table_fixed = not position.opened and not position.rules.continue_after_meld
    return (
        position.rules.joker_rules is not JokerRules.FREE
        and not table_fixed
        and any(t.is_joker for s in position.table for t in s)
    )


@dataclass(frozen=True)
class JokerSet:
    """A table set holding jokers, and the variables choosing how it is read."""

    index: int  # 1-based, as in the position's table
    written: tuple[Tile, ...]
    readings: tuple[TableReading, ...]
    own: Counter[Tile]  # its numbered tiles
    picks: tuple[int, ...]  # per reading, the binary choosing it
    kept: tuple[tuple[int, int], ...]  # terms saying it stays exactly as it was

    @property
    def jokers(self) -> int:
        return len(self.written) - sum(self.own.values())


def joker_sets(lp: LinearModel, position: Position, kept: KeptSets) -> list[JokerSet]:
    """Each table set with jokers, with a binary per reading: one reading is chosen unless the
    set stays exactly as it was (its kept-set column; identical sets share one, counting their
    copies, so each gets a binary of its own summing to it)."""
    rules = position.rules
    column = {set_key(written, rules): k for k, written in kept}
    members: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for i, written in enumerate(position.table, 1):
        if JOKER in written:
            members[set_key(written, rules)].append(i)
    kept_terms: dict[int, Terms] = {}
    for key, sets in members.items():
        k = column[key]
        if len(sets) == 1:
            kept_terms[sets[0]] = [(k, 1)]
            continue
        copies = [lp.var(f"kept_{i}", 1, hint=1) for i in sets]
        lp.row(f"kept_{'_'.join(map(str, sets))}", [(v, 1) for v in copies] + [(k, -1)], 0, 0)
        for i, v in zip(sets, copies):
            kept_terms[i] = [(v, 1)]
    found = []
    for i in sorted(kept_terms):
        written = tuple(position.table[i - 1])
        readings = table_readings(written, rules)
        picks = tuple(lp.var(f"read_{i}_{k}", 1) for k in range(len(readings)))
        # One reading, unless the set stays exactly as it was.
        lp.row(f"read_{i}", [(v, 1) for v in picks] + kept_terms[i], 1, 1)
        found.append(JokerSet(i, written, readings, numbered(written), picks, tuple(kept_terms[i])))
    return found


def locked_homes(
    written: Sequence[Tile], reading: TableReading, rules: RuleSet, available: Counter[int]
) -> list[tuple[Tile, ...]]:
    """Sets a locked set may grow into under one reading: it whole, its jokers at their tiles,
    with tiles (or jokers from the rack) added; not the set itself (kept covers that).

    A run grows by fewer than ``min_set_size`` tiles at either end: a longer piece can be laid
    as a run of its own beside it.
    """
    own = numbered(written)
    jokers = len(reading.roles)
    spare = rules.jokers - jokers  # jokers the rack could add
    found: list[tuple[Tile, ...]] = []

    def fits(tiles: Sequence[Tile]) -> bool:
        needed = Counter(t.index(rules) for t in tiles if not t.is_joker)
        return all(available[t] >= n for t, n in needed.items())

    if reading.kind is Kind.RUN:
        colour = reading.stands_for[0].colour
        numbers = [t.number for t in reading.stands_for]
        size = len(numbers)
        at = {t.number: t for t in written if not t.is_joker}
        for length in range(size + 1, min(rules.numbers, size + 2 * (rules.min_set_size - 1)) + 1):
            for start in run_starts(length, rules):
                seq = run_numbers(start, length, rules)
                assert seq is not None
                for left in range(min(length - size, rules.min_set_size - 1) + 1):
                    right = length - size - left
                    if seq[left : left + size] != numbers or right >= rules.min_set_size:
                        continue
                    added = [k for k in range(length) if not left <= k < left + size]
                    for extra in range(min(spare, len(added)) + 1):
                        for holes in combinations(added, extra):
                            tiles = tuple(
                                at.get(n, JOKER) if left <= k < left + size
                                else JOKER if k in holes
                                else tile(colour, n)
                                for k, n in enumerate(seq)
                            )
                            if fits(tiles) and tiles not in found:
                                found.append(tiles)
        return found
    number = reading.stands_for[0].number
    present = {t.colour for t in written if not t.is_joker}
    others = [c for c in range(rules.colours) if c not in present]
    for count in range(len(others) + 1):
        for colours in combinations(others, count):
            for extra in range(spare + 1):
                if len(written) + count + extra > rules.colours or count + extra == 0:
                    continue
                tiles = tuple(sorted(own.elements())) + tuple(tile(c, number) for c in colours)
                tiles += (JOKER,) * (jokers + extra)
                if fits(tiles):
                    found.append(tiles)
    return found
