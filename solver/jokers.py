"""What a joker stands for under the strict and locked joker rules (docs/rules.md, "Jokers on the table").

A joker already on the table has a *role*: the tile it stands for, read from the table as given.
In a run that is the tile at its place in the written order (``R4 J R6``: R5); in a group it is a
missing colour of the group's number (either one in a group of three, the one in a group of four).
A set of one numbered tile and two jokers may have several readings (``K1 J J``: a run or a
group); each reading gives one role per joker. On the table after the move a joker *declares* a
tile: every way to declare the jokers of a set is one *assignment*. Both the validator and the
model builder rest on these two functions; this module knows nothing of solvers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from solver.melds import Kind, Reading, preferred, readings
from solver.rules import RuleSet
from solver.tiles import JOKER, Tile, tile


@dataclass(frozen=True, slots=True)
class Role:
    """The tiles one table joker may stand for: one in a run, the missing colours in a group."""

    options: tuple[Tile, ...]

    def __str__(self) -> str:
        return "/".join(str(t) for t in self.options)


@dataclass(frozen=True, slots=True)
class TableReading:
    """One way to read a table set with jokers: its kind, one role per joker, and the tiles the
    set stands for (a run's in ascending order; a group's own tiles, then what its jokers may be)."""

    kind: Kind
    roles: tuple[Role, ...]
    stands_for: tuple[Tile, ...]

    @property
    def run_jokers(self) -> tuple[Tile, ...]:
        """A run's jokers' tiles, in the order of its jokers (each joker of a run has one option)."""
        return tuple(role.options[0] for role in self.roles)


def table_readings(written: Sequence[Tile], rules: RuleSet) -> tuple[TableReading, ...]:
    """The readings of a table set as written: the written order settles runs where it can.

    A run reading counts if its numbered tiles sit at their places in the written order, read
    ascending (``R4 J J``: R5 and R6, not R3 and R2), or descending only where no run fits it
    ascending (``R6 R5 J``: R4); groups have no order. Only when no reading fits the order at all
    (``R12 R13 J``) does every valid reading count (there: R11).
    """
    return _table_readings(tuple(written), rules)


@lru_cache(maxsize=4096)
def _table_readings(written: tuple[Tile, ...], rules: RuleSet) -> tuple[TableReading, ...]:
    options = readings(written, rules)
    runs = [r for r in options if r.kind is Kind.RUN]
    in_order = [r for r in runs if _fits(r, written)] or [r for r in runs if _fits(r, written[::-1])]
    in_order += [r for r in options if r.kind is Kind.GROUP]
    chosen = in_order or options
    found: list[TableReading] = []
    for r in chosen:
        reading = TableReading(r.kind, _roles(r, written if r in in_order else None, rules), r.stands_for)
        if reading not in found:
            found.append(reading)
    return tuple(found)


def _fits(reading: Reading, order: tuple[Tile, ...]) -> bool:
    """Whether the run's tiles stand where ``order`` puts them, read ascending."""
    return all(t.is_joker or t == s for t, s in zip(order, reading.stands_for))


def keeps_places(reading: Reading, written: Sequence[Tile]) -> bool:
    """Whether each joker of ``written`` stands, in this reading, where the written order puts it:
    as many steps along the run from the nearest numbered tile before it (after it, for jokers
    that open the set) as it is written from that tile, in the direction the first two numbered
    tiles are written in (ascending with one numbered tile). An editor keeps
    these places when tiles join a set, so that its jokers go on standing for what they did
    (``R4 R5 R6 J`` given R3: ``R3 R4 R5 R6 J``, the joker still R7). Groups have no places."""
    if reading.kind is Kind.GROUP:
        return True
    place = {s: i for i, s in enumerate(reading.stands_for)}
    numbered = [place.get(t, -1) for t in written if not t.is_joker]
    # The direction the first two numbered tiles are written in; with one, ascending (as
    # table_readings reads it: R4 J J is R4 R5 R6).
    order = tuple(written) if len(numbered) < 2 or numbered[0] < numbered[1] else tuple(written[::-1])
    taken: set[int] = set()
    for i, t in enumerate(order):
        if not t.is_joker:
            continue
        at = _written_place(order, i, place)
        if at is None or not 0 <= at < len(reading.tiles) or not reading.tiles[at].is_joker or at in taken:
            return False
        taken.add(at)
    return True


def _written_place(order: tuple[Tile, ...], i: int, place: dict[Tile, int]) -> int | None:
    """Where the joker at ``order[i]`` stands in a run whose tiles are at ``place``."""
    before = [k for k in range(i) if not order[k].is_joker]
    if before:
        k = before[-1]
        return place[order[k]] + i - k if order[k] in place else None
    after = [k for k in range(i + 1, len(order)) if not order[k].is_joker]
    if after:
        k = after[0]
        return place[order[k]] - (k - i) if order[k] in place else None
    return None


def _roles(reading: Reading, written: tuple[Tile, ...] | None, rules: RuleSet) -> tuple[Role, ...]:
    if reading.kind is Kind.GROUP:
        numbered = [t for t in reading.tiles if not t.is_joker]
        present = {t.colour for t in numbered}
        number = numbered[0].number
        missing = tuple(tile(c, number) for c in range(rules.colours) if c not in present)
        return tuple(Role(missing) for t in reading.tiles if t.is_joker)
    if written is not None:
        stands = reading.stands_for
        order = written if all(t.is_joker or t == s for t, s in zip(written, stands)) else written[::-1]
        return tuple(Role((s,)) for t, s in zip(order, stands) if t.is_joker)
    return tuple(Role((s,)) for t, s in zip(reading.tiles, reading.stands_for) if t.is_joker)


def declares(reading: TableReading, tiles: tuple[Tile, ...]) -> bool:
    """Whether a set read this way may have its jokers stand for ``tiles`` (sorted)."""
    if reading.kind is Kind.GROUP:  # any distinct missing colours
        return len(set(tiles)) == len(tiles) and all(t in reading.roles[0].options for t in tiles)
    return tuple(sorted(reading.run_jokers)) == tiles


def run_declaring(tiles: Sequence[Tile], declared: tuple[Tile, ...], rules: RuleSet) -> Reading | None:
    """The run reading of ``tiles`` (the one a player would declare, of several) whose jokers
    stand for ``declared`` (sorted), if there is one: how to write the set so it says that."""
    fitting = [
        r
        for r in readings(tiles, rules)
        if r.kind is Kind.RUN
        and tuple(sorted(s for t, s in zip(r.tiles, r.stands_for) if t.is_joker)) == declared
    ]
    return preferred(fitting) if fitting else None


def written_assignments(written: Sequence[Tile], rules: RuleSet) -> tuple[tuple[Tile, ...], ...]:
    """The assignments of a set after the move that its written order allows (read as a table
    set is: the answer becomes the next turn's table)."""
    readings = table_readings(written, rules)
    return tuple(a for a in assignments(written, rules) if any(declares(r, a) for r in readings))


def assignments(tiles: Sequence[Tile], rules: RuleSet) -> tuple[tuple[Tile, ...], ...]:
    """Every way to declare the jokers of a set on the table after the move (sorted tuples).

    A group's jokers may declare any distinct missing colours; a run's jokers the tiles at their
    places. Empty for an invalid set; ``((),)`` for a valid set without jokers.
    """
    return _assignments(tuple(sorted(tiles)), rules)


@lru_cache(maxsize=65536)
def _assignments(tiles: tuple[Tile, ...], rules: RuleSet) -> tuple[tuple[Tile, ...], ...]:
    found: list[tuple[Tile, ...]] = []
    jokers = sum(1 for t in tiles if t.is_joker)
    for r in readings(tiles, rules):
        if r.kind is Kind.RUN:
            options = [tuple(sorted(s for t, s in zip(r.tiles, r.stands_for) if t.is_joker))]
        else:
            present = {t.colour for t in tiles if not t.is_joker}
            number = next(t.number for t in tiles if not t.is_joker)
            missing = [tile(c, number) for c in range(rules.colours) if c not in present]
            options = [tuple(sorted(c)) for c in combinations(missing, jokers)]
        for option in options:
            if option not in found:
                found.append(option)
    return tuple(found)


def numbered(tiles: Sequence[Tile]) -> Counter[Tile]:
    found = Counter(tiles)  # counted in C, then the jokers dropped: the validator counts every set
    del found[JOKER]
    return found
