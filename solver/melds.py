"""What makes a set valid: runs and groups, the readings of a set with jokers, and why not.

A *set* here is a multiset of tiles; its *readings* are the ways a player may declare it (which
run or group it is, and what each joker stands for). The validator and the candidate-set
enumeration both rest on this module; it knows nothing of solvers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from solver.rules import RuleSet, Wrap
from solver.tiles import JOKER, Tile, format_tiles, tile
from solver.wording import count


class Kind(StrEnum):
    RUN = "run"
    GROUP = "group"


@dataclass(frozen=True, slots=True)
class Reading:
    """One way to declare a set: its kind, tiles in natural order, what each position stands for."""

    kind: Kind
    tiles: tuple[Tile, ...]  # display order: runs ascending with jokers in place, groups by colour
    stands_for: tuple[Tile, ...]  # the numbered tile each position represents
    value: int  # meld value: a joker counts the number it stands for

    def __str__(self) -> str:
        return format_tiles(self.tiles)


def run_numbers(start: int, length: int, rules: RuleSet) -> list[int] | None:
    """The numbers of a run of ``length`` from ``start``, or None if the rules forbid it."""
    n = rules.numbers
    if length > n:
        return None
    end = start + length - 1
    if end <= n:
        return list(range(start, end + 1))
    if rules.wrap is Wrap.AMERICAN and end == n + 1:
        return [*list(range(start, n + 1)), 1]
    if rules.wrap is Wrap.FULL:
        return [(start + i - 1) % n + 1 for i in range(length)]
    return None


def run_starts(length: int, rules: RuleSet) -> range:
    """Every start number from which a run of this length may be laid."""
    n = rules.numbers
    if length > n:
        return range(0)
    if rules.wrap is Wrap.FULL:
        return range(1, n + 1)
    if rules.wrap is Wrap.AMERICAN:
        return range(1, n - length + 3)
    return range(1, n - length + 2)


def readings(tiles: Iterable[Tile], rules: RuleSet) -> list[Reading]:
    """Every valid reading of the multiset ``tiles`` (empty when the set is invalid)."""
    return list(_readings(tuple(sorted(tiles)), rules))


@lru_cache(maxsize=65536)
def _readings(tiles: tuple[Tile, ...], rules: RuleSet) -> tuple[Reading, ...]:
    """Cached by multiset: the same few hundred sets come back in every position of a game."""
    size = len(tiles)
    numbered = sorted(t for t in tiles if not t.is_joker)
    jokers = size - len(numbered)
    if size < rules.min_set_size or not numbered:
        return ()
    found: list[Reading] = []
    colours = {t.colour for t in numbered}
    numbers = {t.number for t in numbered}
    if len(colours) == 1 and len(numbers) == len(numbered):
        colour = numbered[0].colour
        for start in run_starts(size, rules):
            seq = run_numbers(start, size, rules)
            if seq is None or not numbers <= set(seq):
                continue
            stands = tuple(tile(colour, k) for k in seq)
            shown = tuple(s if s.number in numbers else JOKER for s in stands)
            found.append(Reading(Kind.RUN, shown, stands, sum(seq)))
    if len(numbers) == 1 and len(colours) == len(numbered) and size <= rules.colours:
        number = numbered[0].number
        missing = [tile(c, number) for c in range(rules.colours) if c not in colours]
        stands = tuple(numbered) + tuple(missing[:jokers])
        shown = tuple(numbered) + (JOKER,) * jokers
        found.append(Reading(Kind.GROUP, shown, stands, number * size))
    return tuple(found)


def best_reading(tiles: Iterable[Tile], rules: RuleSet) -> Reading | None:
    """The reading a player would declare: highest meld value, then a run, then the lowest start."""
    return _best(tuple(sorted(tiles)), rules)


@lru_cache(maxsize=65536)
def _best(tiles: tuple[Tile, ...], rules: RuleSet) -> Reading | None:
    options = _readings(tiles, rules)
    return preferred(options) if options else None


def preferred(options: Sequence[Reading]) -> Reading:
    """Of a set's readings, the one a player would declare (see best_reading)."""
    return max(options, key=lambda r: (r.value, r.kind is Kind.RUN, -r.stands_for[0].number))


def natural_order(tiles: Iterable[Tile], rules: RuleSet) -> tuple[Tile, ...]:
    """A set as a player writes it: its best reading's order (a run ascending with each joker
    where it stands), sorted when it is not a set."""
    tiles = tuple(tiles)
    reading = best_reading(tiles, rules)
    return reading.tiles if reading else tuple(sorted(tiles))


def order_as_laid(tiles: Iterable[Tile], rules: RuleSet) -> tuple[Tile, ...]:
    """A table set's tiles as they lie where that is one of its readings (``R2 .. R13 R1`` under
    american wrap, which is also ``R1 .. R13``), else in natural order."""
    tiles = tuple(tiles)
    if any(r.tiles == tiles for r in readings(tiles, rules)):
        return tiles
    return natural_order(tiles, rules)


def is_valid(tiles: Iterable[Tile], rules: RuleSet) -> bool:
    return best_reading(tiles, rules) is not None


def why_invalid(tiles: Sequence[Tile], rules: RuleSet) -> str | None:
    """None for a valid set, else a short reason a person can act on."""
    if best_reading(tiles, rules) is not None:
        return None
    size = len(tiles)
    numbered = sorted(t for t in tiles if not t.is_joker)
    jokers = size - len(numbered)
    if size < rules.min_set_size:
        return f"too short: {count(size, 'tile')}, a set needs at least {rules.min_set_size}"
    if not numbered:
        return "a set needs at least one numbered tile"
    colours = Counter(t.colour for t in numbered)
    numbers = Counter(t.number for t in numbered)
    if len(numbers) == 1:  # a group attempt
        repeated = [t for t, k in Counter(numbered).items() if k > 1]
        if repeated:
            return f"colour repeats in a group ({repeated[0]} twice)"
        return f"too long for a group: {size} tiles, a group has at most {rules.colours}"
    if len(colours) == 1:  # a run attempt
        repeated = [t for t, k in Counter(numbered).items() if k > 1]
        if repeated:
            return f"number repeats in a run ({repeated[0]} twice)"
        if size > rules.numbers:
            return f"too long: a run has at most {rules.numbers} tiles"
        wraps = rules.wrap is not Wrap.FULL and bool(readings(tiles, rules.replace(wrap=Wrap.FULL)))
        span = numbered[-1].number - numbered[0].number + 1
        if span > size and not wraps:
            missing = span - len(numbered)
            return (
                f"gap in run: {format_tiles(numbered)} needs {count(missing, 'tile')}"
                f" in between, it has {count(jokers, 'joker')}"
            )
        if rules.wrap is Wrap.NONE:
            return f"runs may not wrap past {rules.numbers} (rule wrap=none)"
        if rules.wrap is Wrap.AMERICAN:
            return f"only a 1 may follow {rules.numbers}, at the end of a run (rule wrap=american)"
        return "not a run"  # pragma: no cover - every other shape is covered above
    return "neither a run (colours differ) nor a group (numbers differ)"
