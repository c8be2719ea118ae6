"""Strict and locked jokers, exactly: every set that holds a table joker is an explicit column.

A *special set* column is one set of the table after the move with its tiles in place and, for
each table joker in it, its fate there (``solver.jokers``: a joker of set L under a reading of L):

- it *stays*: it stands for a tile of its role, and the column holds one of L's own numbered
  tiles, its *witness* (named in the column: each own tile is one physical tile);
- it was *retrieved* (by a real tile of its role, ``take``): the column holds none of L's own
  tiles, and under official retrieval two tiles from the rack (jokers from the rack, or tiles
  whose kinds were played: ``mark`` says which kinds, per set of jokers sharing the host).

Other joker places hold jokers from the rack. Sets holding no table joker are the formulation's
own (patterns, flow or candidate sets); the formulation places no table joker (its jokers are the
rack's). A set is listed only as long as it must be: a piece of ``min_set_size`` tiles or more at
either end holding nothing the set needs (a joker, a witness, a kind that may be a rack tile)
can be laid as a set of its own. Under locked rules a set none of whose jokers is retrieved lies
whole in one column, its *home*, holding all its own tiles; no column is the home of two sets.

Rows: each joker one fate (under the chosen reading), a retrieved one in one host; retrievals
by t no more than real t on the new table; a group's jokers take distinct colours; locked sets
in their homes unless a joker of theirs was retrieved, and a retrieving tile lent by a joker set
only once it is unlocked, the lenders in an order (``_lending_rows``); each set's own tile of a kind in a set
the rules allow (not a host of its jokers, not a copy a witness or a rack tile takes: a count of
copies per kind, and per pair of sets sharing a kind); hosts' rack tiles from what was played.
The rows about own tiles and rack tiles are lazy (``LinearModel.lazy``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations, product
from typing import Any, TypeVar

from solver.lp import INF, LinearModel
from solver.melds import Kind, run_numbers, run_starts
from solver.model.deadline import check_build_deadline
from solver.model.table_jokers import JokerSet, Terms, joker_sets
from solver.model.turn import KeptSets, add_kept_specials, tile_counts, tile_name
from solver.position import Position
from solver.rules import JokerRules, Retrieval
from solver.tiles import JOKER, Tile, tile

RETRIEVED = -1
ABSENT = -2  # a table joker's choice in a set: not in it (else a reading's index, or RETRIEVED)


@dataclass(frozen=True, order=True)
class Occupant:
    """A table joker in a special set: whose (``owner``: index into the joker sets, ``slot``:
    which of its jokers), and its fate: a stay under ``reading`` standing for ``tile``, or
    retrieved (``reading`` RETRIEVED)."""

    owner: int
    slot: int
    reading: int
    tile: Tile | None

    @property
    def stays(self) -> bool:
        return self.reading != RETRIEVED


@dataclass(frozen=True)
class Special:
    """One set holding table jokers: its tiles in order (jokers in place), who is in it."""

    tiles: tuple[Tile, ...]
    occupants: tuple[Occupant, ...]
    witnesses: tuple[tuple[int, Tile], ...]  # (owner, own tile of it pinned here)
    home: int  # the owner whose locked home this is, or -1
    rack_jokers: int  # jokers in it from the rack
    marks: tuple[Tile, ...]  # kinds in it that may be rack tiles (hosting only)

    @cached_property
    def hosts(self) -> frozenset[tuple[int, int]]:
        """The retrieved jokers in it, as (owner, slot)."""
        return frozenset((o.owner, o.slot) for o in self.occupants if not o.stays)


@dataclass(frozen=True)
class _Joker:
    owner: int
    slot: int


@dataclass
class ExactJokers:
    """The special set columns, for the decoder, and the terms counting those that leave an
    original table set as it was (the kept-sets tie-break)."""

    columns: list[tuple[int, Special]] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class SetBase:
    """The formulation's rows the special sets add to."""

    tile_rows: dict[int, int]  # tile index (the joker's too) -> the row every copy of it lies in
    played: dict[int, int]  # tile index -> r[t]
    kept: KeptSets


def add_exact_jokers(lp: LinearModel, position: Position, base: SetBase) -> ExactJokers:
    """Add the special sets and their rows (see the module docstring)."""
    rules = position.rules
    rack, table = tile_counts(position)
    sets = joker_sets(lp, position, base.kept)
    jokers = [_Joker(o, q) for o, s in enumerate(sets) for q in range(s.jokers)]
    specials = _Generator(position, sets, jokers, rack, table).specials()
    exact = ExactJokers()
    stay_terms: dict[tuple[int, int, int], Terms] = defaultdict(list)  # (owner, slot, reading) -> stays
    host_terms: dict[tuple[int, int], Terms] = defaultdict(list)  # (owner, slot) -> hosts holding it
    stay_tiles: dict[tuple[int, int, int], Terms] = defaultdict(list)  # (owner, reading, tile) -> stays
    loose_stays: dict[tuple[int, int, int], Terms] = defaultdict(list)  # stays outside a locked home
    entries: list[tuple[int, int, int]] = []  # added at once: tens of thousands
    for n, special in enumerate(specials):
        v = lp.var(f"special_{n}_{'_'.join(map(str, special.tiles))}", 1)
        exact.columns.append((v, special))
        entries += [(base.tile_rows[t.index(rules)], v, c) for t, c in Counter(special.tiles).items()]
        for who in special.occupants:
            if who.stays:
                assert who.tile is not None
                stay_terms[(who.owner, who.slot, who.reading)].append((v, 1))
                stay_tiles[(who.owner, who.reading, who.tile.index(rules))].append((v, 1))
                if special.home != who.owner:
                    loose_stays[(who.owner, who.slot, who.reading)].append((v, 1))
            else:
                host_terms[(who.owner, who.slot)].append((v, 1))
    lp.add_entries(entries)
    takes: dict[int, Terms] = defaultdict(list)  # tile -> retrievals by it
    taken: dict[tuple[int, int], Terms] = defaultdict(list)  # (owner, slot) -> its retrievals
    taken_tiles: dict[tuple[int, int, int], Terms] = defaultdict(list)  # (owner, reading, tile)
    available = rack + table
    for o, s in enumerate(sets):
        for k, (reading, pick) in enumerate(zip(s.readings, s.picks)):
            for q, role in enumerate(reading.roles):
                take: Terms = []
                for t in role.options:
                    if available[t.index(rules)]:
                        v = lp.var(f"joker_{s.index}_{k}_{q}_retrieved_by_{t}", 1)
                        takes[t.index(rules)].append((v, 1))
                        take.append((v, 1))
                        taken_tiles[(o, k, t.index(rules))].append((v, 1))
                taken[(o, q)] += take
                # Each joker of the chosen reading has one fate; none of another reading.
                lp.row(f"joker_{s.index}_{k}_{q}", [*stay_terms[(o, q, k)], *take, (pick, -1)], 0, 0)
            if reading.kind is Kind.GROUP and s.jokers > 1:
                for index in sorted({t.index(rules) for r in reading.roles for t in r.options}):
                    terms = stay_tiles[(o, k, index)] + taken_tiles[(o, k, index)]
                    lp.row(f"joker_{s.index}_{k}_distinct_{tile_name(index, rules)}", terms, -INF, 1)
        for q in range(s.jokers):
            # A retrieved joker lies in one host.
            lp.row(f"joker_{s.index}_{q}_hosted", [*host_terms[(o, q)], *[(v, -c) for v, c in taken[(o, q)]]], 0, 0)
        if rules.joker_rules is JokerRules.LOCKED:
            retrieved = [term for q in range(s.jokers) for term in taken[(o, q)]]
            for k in range(len(s.readings)):
                for q in range(s.jokers):
                    # Locked: a joker stays outside its set's home only once a joker of it was retrieved.
                    lp.row(
                        f"joker_{s.index}_{k}_{q}_unlocked",
                        [*loose_stays[(o, q, k)], *[(v, -c) for v, c in retrieved]],
                        -INF,
                        0,
                    )
    for index, terms in sorted(takes.items()):
        # A retrieved joker is replaced by a real tile: no more than are on the new table.
        played = [(base.played[index], -1)] if rack[index] else []
        lp.row(f"retrieve_{tile_name(index, rules)}", [*terms, *played], -INF, table[index])
    if rules.joker_rules is JokerRules.LOCKED:
        _lending_rows(lp, position, sets, taken, taken_tiles, base, rack, table)
    exact.kept = add_kept_specials(lp, rules, [(v, sp.tiles) for v, sp in exact.columns], base.kept)
    marks: dict[int, list[tuple[int, frozenset[int]]]] = {}
    if rules.joker_retrieval is Retrieval.OFFICIAL:
        marks = _rack_tile_rows(lp, position, exact.columns, base)
    _own_tile_rows(lp, position, sets, exact.columns, base, rack, table, marks)
    return exact


def _lending_rows(
    lp: LinearModel,
    position: Position,
    sets: list[JokerSet],
    taken: dict[tuple[int, int], Terms],
    taken_tiles: dict[tuple[int, int, int], Terms],
    base: SetBase,
    rack: Counter[int],
    table: Counter[int],
) -> None:
    """Locked: each tile retrieving a joker comes from the rack or a set without jokers (*at
    hand*), or is lent by another set with jokers, which lends only once a joker of it was
    retrieved (it is *unlocked*), and before: the sets lending to each other are in an order
    (``order``, Miller-Tucker-Zemlin). A set keeping its jokers lends nothing, not even a tile
    that comes back to it."""
    rules = position.rules
    count = len(sets)
    retrievals: dict[tuple[int, int], Terms] = defaultdict(list)  # (owner, tile) -> retrievals by it
    for (o, _, index), terms in taken_tiles.items():
        retrievals[(o, index)] += terms
    own = [Counter({t.index(rules): n for t, n in s.own.items()}) for s in sets]
    at_hand: dict[int, Terms] = defaultdict(list)
    lent: dict[tuple[int, int], Terms] = defaultdict(list)  # (lender, tile) -> its copies lent
    pairs: dict[tuple[int, int], int] = {}  # (lender, borrower) -> whether it lends to it
    for (o, index), terms in sorted(retrievals.items()):
        name = f"{sets[o].index}_{tile_name(index, rules)}"
        hand = lp.var(f"retrieve_{name}_at_hand", sets[o].jokers)
        at_hand[index].append((hand, 1))
        sources: Terms = [(hand, 1)]
        for lender in range(count):
            if lender == o or not own[lender][index]:
                continue
            x = lp.var(f"lend_{sets[lender].index}_{name}", own[lender][index])
            sources.append((x, 1))
            lent[(lender, index)].append((x, 1))
            if (lender, o) not in pairs:
                pairs[(lender, o)] = lp.var(f"lends_{sets[lender].index}_to_{sets[o].index}", 1)
            lp.row(f"lend_{sets[lender].index}_{name}_ordered", [(x, 1), (pairs[(lender, o)], -own[lender][index])], -INF, 0)
        lp.row(f"retrieve_{name}_sourced", [*terms, *[(v, -c) for v, c in sources]], 0, 0)
    for index, terms in sorted(at_hand.items()):
        played = [(base.played[index], -1)] if rack[index] else []
        free = table[index] - sum(o[index] for o in own)
        lp.row(f"retrieve_{tile_name(index, rules)}_at_hand", [*terms, *played], -INF, free)
    unlocked: dict[int, int] = {}
    for (lender, index), terms in sorted(lent.items()):
        if lender not in unlocked:
            u = unlocked[lender] = lp.var(f"joker_set_{sets[lender].index}_unlocked", 1)
            retrieved = [term for q in range(sets[lender].jokers) for term in taken[(lender, q)]]
            lp.row(f"joker_set_{sets[lender].index}_unlocked", [(u, 1), *[(v, -c) for v, c in retrieved]], -INF, 0)
        name = f"{sets[lender].index}_{tile_name(index, rules)}"
        lp.row(f"lend_{name}_unlocked", [*terms, (unlocked[lender], -own[lender][index])], -INF, 0)
    if pairs:
        order = {o: lp.var(f"joker_set_{sets[o].index}_order", count) for o in sorted({o for pair in pairs for o in pair})}
        for (lender, o), y in sorted(pairs.items()):
            lp.row(  # lending to o, the lender comes first
                f"lends_{sets[lender].index}_to_{sets[o].index}_before",
                [(order[o], 1), (order[lender], -1), (y, -(count + 1))],
                -count,
                INF,
            )


def _own_tile_rows(
    lp: LinearModel,
    position: Position,
    sets: list[JokerSet],
    columns: list[tuple[int, Special]],
    base: SetBase,
    rack: Counter[int],
    table: Counter[int],
    marks: dict[int, list[tuple[int, frozenset[int]]]],
) -> None:
    """Each set's own tile of a kind lies in one set allowed to it: not a host of its jokers, and
    not a copy taken by another set's witness or by a rack tile. Per kind, the copies on the new
    table (the table's and those played) must leave one for every set owning it, alone and with
    each other set owning it (the matching's conditions for one or two owners). A set kept exactly
    as it was holds its own tiles."""
    rules = position.rules
    owners_of: dict[Tile, list[int]] = defaultdict(list)
    for o, s in enumerate(sets):
        for t in s.own:
            owners_of[t].append(o)
    holders: dict[Tile, list[tuple[int, Special]]] = defaultdict(list)  # kind -> columns holding it
    for v, sp in columns:
        for t in set(sp.tiles) & owners_of.keys():
            holders[t].append((v, sp))
    for t, owners in sorted(owners_of.items()):
        index = t.index(rules)
        # Each column holding the kind, with the owner its copy is pinned to (None: free) and
        # the owners whose jokers it hosts (their copies cannot be there).
        holding: list[tuple[int, int | None, set[int]]] = []
        for v, sp in holders[t]:
            pin = next((o for o, w in sp.witnesses if w == t), None)
            holding.append((v, pin, {o for o, _ in sp.hosts}))
        for o, s in enumerate(sets):
            if s.own[t]:
                holding += [(v, o, set()) for v, _ in s.kept]
        rack_marks = marks.get(index, [])  # (mark, owners of the jokers its host holds)
        copies = [(base.played[index], 1)] if rack[index] else []
        for o in owners:
            pins = [(v, 1) for v, pin, _ in holding if pin == o]
            if len(pins) > 1:
                lp.row(f"own_{tile_name(index, rules)}_{sets[o].index}_once", pins, -INF, 1, lazy=True)
        for size in (1, 2):
            for group in combinations(owners, size):
                closed = [
                    (v, 1)
                    for v, pin, hosted in holding
                    if (pin is not None and pin not in group) or (pin is None and set(group) <= hosted)
                ]
                closed += [(mark, 1) for mark, hosted in rack_marks if not set(group) <= hosted]
                if closed:
                    name = f"own_{tile_name(index, rules)}_{'_'.join(str(sets[o].index) for o in group)}"
                    terms = [*closed, *[(v, -c) for v, c in copies]]
                    lp.row(name, terms, -INF, table[index] - size, lazy=True)


def _rack_tile_rows(
    lp: LinearModel,
    position: Position,
    columns: list[tuple[int, Special]],
    base: SetBase,
) -> dict[int, list[tuple[int, frozenset[int]]]]:
    """Official retrieval: each host holds two rack tiles, jokers from the rack or tiles whose
    kind was played. ``mark[h,t]`` says the host of the retrieved jokers h holds a played t as a
    rack tile: no more marks of t than t played, none on a copy a witness pins (a column's
    ``marks`` leave those out). Returns the marks per kind, with the owners whose jokers their
    host holds."""
    rules = position.rules
    by_hosts: dict[frozenset[tuple[int, int]], list[tuple[int, Special]]] = defaultdict(list)
    for v, sp in columns:
        if sp.hosts:
            by_hosts[sp.hosts].append((v, sp))
    marks_of: dict[int, list[tuple[int, frozenset[int]]]] = defaultdict(list)
    for h, hosts in by_hosts.items():
        name = "_".join(f"{o}.{q}" for o, q in sorted(h))
        need: Terms = [(v, sp.rack_jokers - 2) for v, sp in hosts]  # its jokers from the rack count
        holders: dict[int, Terms] = defaultdict(list)  # kind -> the hosts that may hold it as a rack tile
        for v, sp in hosts:
            for index in sorted({t.index(rules) for t in sp.marks}):
                holders[index].append((v, -1))
        for index, held in sorted(holders.items()):
            mark = lp.var(f"mark_{name}_{tile_name(index, rules)}", 1)
            need.append((mark, 1))
            marks_of[index].append((mark, frozenset(o for o, _ in h)))
            lp.row(f"mark_{name}_{tile_name(index, rules)}_held", [(mark, 1), *held], -INF, 0)
        lp.row(f"rack_tiles_{name}", need, 0, INF)
    for index, found in sorted(marks_of.items()):
        terms = [(mark, 1) for mark, _ in found]
        lp.row(f"rack_marks_{tile_name(index, rules)}", [*terms, (base.played[index], -1)], -INF, 0, lazy=True)
    return marks_of


class _Line:
    """A run's kinds in order, and what the generator asks of each place, worked out once."""

    def __init__(self, generator: _Generator, kinds: list[Tile]) -> None:
        rules = generator.rules
        index = [t.index(rules) for t in kinds]
        self.kinds = kinds
        self.missing = {p for p, k in enumerate(index) if not generator.available[k]}  # only jokers fit
        self.in_rack = [bool(generator.rack[k]) for k in index]
        self.owned = [[bool(s.own[t]) for t in kinds] for s in generator.sets]  # per set, per place


class _Generator:
    """Enumerates the special sets of a position."""

    def __init__(
        self,
        position: Position,
        sets: list[JokerSet],
        jokers: list[_Joker],
        rack: Counter[int],
        table: Counter[int],
    ) -> None:
        self.rules = rules = position.rules
        self.sets = sets
        self.jokers = jokers
        self.rack = rack
        self.available = rack + table
        self.rack_jokers = rack[rules.joker_index]
        self.locked = rules.joker_rules is JokerRules.LOCKED
        self.official = rules.joker_retrieval is Retrieval.OFFICIAL
        self.found: dict[tuple[object, ...], Special] = {}

    def specials(self) -> list[Special]:
        for colour in range(self.rules.colours):
            self._runs(colour)
        if self.rules.groups_possible:
            for number in range(1, self.rules.numbers + 1):
                self._groups(number)
        return list(self.found.values())

    # -- runs -----------------------------------------------------------------------------

    def _runs(self, colour: int) -> None:
        rules = self.rules
        for length in range(rules.min_set_size, rules.numbers + 1):
            for start in run_starts(length, rules):
                numbers = run_numbers(start, length, rules)
                assert numbers is not None
                self._run(colour, tuple(numbers))

    def _run(self, colour: int, numbers: tuple[int, ...]) -> None:
        line = _Line(self, [tile(colour, n) for n in numbers])
        if len(line.missing) > len(self.jokers) + self.rack_jokers:
            return  # more places than jokers that no copy can fill
        at = {n: p for p, n in enumerate(numbers)}
        # Per table joker: absent, staying on its role's place (under a run reading of this
        # colour), or retrieved (seated later).
        options: list[list[tuple[int, int, Tile | None]]] = []  # (reading, place, tile)
        for joker in self.jokers:
            s = self.sets[joker.owner]
            mine: list[tuple[int, int, Tile | None]] = [(ABSENT, -1, None), (RETRIEVED, -1, None)]
            for k, reading in enumerate(s.readings):
                if reading.kind is Kind.RUN and reading.stands_for[0].colour == colour:
                    t = reading.roles[joker.slot].options[0]
                    if t.number in at:
                        mine.append((k, at[t.number], t))
            options.append(mine)
        # Places no copy can fill must hold jokers: checked at each step of the choices (they
        # run to tens of thousands), and only choices that may still fill them followed.
        for _, stays, retrieved in _fates(self.jokers, options):
            places = [c[1] for _, c in stays]
            unfilled = line.missing.difference(places)
            if len(unfilled) > len(retrieved) + self.rack_jokers:
                continue
            free = [p for p in range(len(numbers)) if p not in places]
            for seats in combinations(free, len(retrieved)):
                if len(unfilled.difference(seats)) > self.rack_jokers:
                    continue
                left = [p for p in free if p not in seats]
                for extra in range(min(self.rack_jokers, len(left)) + 1):
                    for holes in combinations(left, extra):
                        jokers = {*places, *seats, *holes}
                        if line.missing <= jokers:
                            self._run_with(line, stays, list(zip(retrieved, seats)), holes, jokers)

    def _run_with(
        self,
        line: _Line,
        stays: list[tuple[_Joker, tuple[int, int, Tile | None]]],
        retrieved: list[tuple[_Joker, int]],
        holes: tuple[int, ...],
        jokers: set[int],
    ) -> None:
        """One choice of what sits where in a run (``jokers``: the places of all its jokers):
        check it and name its witnesses."""
        check_build_deadline()  # the choices multiply under long runs, full wrap, many jokers
        kinds = line.kinds
        if len(jokers) >= len(kinds):
            return  # a set needs a numbered tile
        reals = [p for p in range(len(kinds)) if p not in jokers]
        owners = sorted({j.owner for j, _ in stays})
        choices = []
        for o in owners:
            own = [p for p in reals if line.owned[o][p]]
            if not own:
                return
            choices.append(own)
        tiles: tuple[Tile, ...] = ()
        occupants: tuple[Occupant, ...] = ()
        for witnesses in product(*choices):
            if len({kinds[p] for p in witnesses}) != len(witnesses):
                continue  # one copy of a kind in a set: one owner's
            marks = tuple(kinds[p] for p in reals if p not in witnesses and line.in_rack[p])
            if retrieved and self.official and len(marks) + len(holes) < 2:
                continue
            # Only as long as needed: each end piece of min_set_size or more holds something
            # (a joker, a witness, a possible rack tile; a locked set's own tiles).
            needed = jokers | set(witnesses)
            if retrieved and self.official:
                needed |= {p for p in reals if kinds[p] in marks}
            if self.locked:
                needed |= {p for p in reals if any(line.owned[o][p] for o in owners)}
            if not self._needs_whole(len(kinds), needed):
                continue
            if not tiles:  # the same for every choice of witnesses
                tiles = tuple(JOKER if p in jokers else kinds[p] for p in range(len(kinds)))
                occupants = tuple(
                    sorted(
                        [Occupant(j.owner, j.slot, c[0], c[2]) for j, c in stays]
                        + [Occupant(j.owner, j.slot, RETRIEVED, None) for j, _ in retrieved]
                    )
                )
            pins = tuple((o, kinds[p]) for o, p in zip(owners, witnesses))
            self._add(tiles, occupants, pins, -1, len(holes), marks if retrieved else ())

    def _needs_whole(self, length: int, needed: set[int]) -> bool:
        """Whether a run of this length must be listed whole: neither end piece beyond what it
        needs can be laid as a run of its own (min_set_size long, leaving as much)."""
        m = self.rules.min_set_size
        if not needed:
            return False
        left, right = min(needed), length - 1 - max(needed)
        return not (left >= m and length - left >= m) and not (right >= m and length - right >= m)

    # -- groups ---------------------------------------------------------------------------

    def _groups(self, number: int) -> None:
        rules = self.rules
        options: list[list[tuple[int, Tile | None]]] = []  # (reading, tile)
        for joker in self.jokers:
            s = self.sets[joker.owner]
            mine: list[tuple[int, Tile | None]] = [(ABSENT, None), (RETRIEVED, None)]
            for k, reading in enumerate(s.readings):
                if reading.kind is Kind.GROUP and reading.stands_for[0].number == number:
                    mine += [(k, t) for t in reading.roles[joker.slot].options]
            options.append(mine)
        colours = range(rules.colours)
        for present, stays, retrieved in _fates(self.jokers, options):
            taken = {c[1].colour for _, c in stays if c[1] is not None}
            for count in range(1, rules.colours + 1):
                for reals in combinations([c for c in colours if c not in taken], count):
                    for extra in range(self.rack_jokers + 1):
                        size = count + present + extra
                        if size < rules.min_set_size or size > rules.colours:
                            continue
                        self._group_with(number, reals, stays, retrieved, extra)

    def _group_with(
        self,
        number: int,
        reals: tuple[int, ...],
        stays: list[tuple[_Joker, tuple[int, Tile | None]]],
        retrieved: list[_Joker],
        extra: int,
    ) -> None:
        check_build_deadline()
        rules = self.rules
        kinds = [tile(c, number) for c in reals]
        if any(not self.available[t.index(rules)] for t in kinds):
            return
        owners = sorted({j.owner for j, _ in stays})
        choices = []
        for o in owners:
            own = [t for t in kinds if self.sets[o].own[t]]
            if not own:
                return
            choices.append(own)
        for witnesses in product(*choices):
            if len(set(witnesses)) != len(witnesses):
                continue
            marks = tuple(t for t in kinds if t not in witnesses and self.rack[t.index(rules)])
            if retrieved and self.official and len(marks) + extra < 2:
                continue
            tiles = (*kinds, *([JOKER] * (len(stays) + len(retrieved) + extra)))
            occupants = tuple(
                sorted(
                    [Occupant(j.owner, j.slot, c[0], c[1]) for j, c in stays]
                    + [Occupant(j.owner, j.slot, RETRIEVED, None) for j in retrieved]
                )
            )
            pins = tuple(zip(owners, witnesses))
            self._add(tiles, occupants, pins, -1, extra, marks if retrieved else ())

    def _add(
        self,
        tiles: tuple[Tile, ...],
        occupants: tuple[Occupant, ...],
        witnesses: tuple[tuple[int, Tile], ...],
        home: int,
        rack_jokers: int,
        marks: tuple[Tile, ...],
    ) -> None:
        """Record a special set (once); under locked rules, mark a home (see below)."""
        if self.locked:
            # A set holding a locked set whole (all its jokers staying, all its tiles) is its
            # home, holding all its own tiles; two sets may not merge into one home.
            counts = Counter(tiles)
            whole = [
                o
                for o, s in enumerate(self.sets)
                if sum(1 for x in occupants if x.owner == o and x.stays) == s.jokers
                and all(counts[t] >= n for t, n in s.own.items())
            ]
            if len(whole) > 1:
                return
            if whole:
                home = whole[0]
                witnesses = tuple(sorted({(o, t) for o, t in witnesses if o != home} | {(home, t) for t in self.sets[home].own}))
                marks = tuple(t for t in marks if not self.sets[home].own[t])
        key = (tiles, occupants, witnesses, home)
        if key not in self.found:
            self.found[key] = Special(tiles, occupants, witnesses, home, rack_jokers, marks)


def special_sets(values: Sequence[int], exact: ExactJokers) -> list[list[Tile]]:
    """The special sets an answer lays, as tile lists."""
    return [list(sp.tiles) for v, sp in exact.columns for _ in range(values[v])]


Fate = TypeVar("Fate", bound=tuple[Any, ...])


def _fates(
    jokers: Sequence[_Joker], options: Sequence[Sequence[Fate]]
) -> Iterator[tuple[int, list[tuple[_Joker, Fate]], list[_Joker]]]:
    """Each table joker absent from a set, staying in it (a reading's index first, then its
    place or tile: distinct among the staying) or retrieved into it; a set's jokers never both
    stay and are retrieved (a stay needs its set's tile there, a retrieved joker none). Yields
    how many are in the set, the staying ones with their choice, and the retrieved ones."""
    for choice in product(*options):
        present = [(j, c) for j, c in zip(jokers, choice) if c[0] != ABSENT]
        if not present:
            continue
        stays = [(j, c) for j, c in present if c[0] >= 0]
        retrieved = [j for j, c in present if c[0] == RETRIEVED]
        where = [c[1] for _, c in stays]
        if len(set(where)) != len(where):
            continue
        if {j.owner for j, _ in stays} & {j.owner for j in retrieved}:
            continue
        yield len(present), stays, retrieved
