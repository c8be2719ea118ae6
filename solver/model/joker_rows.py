"""The strict and locked joker rules as exact rows of the set formulation.

The set model counts copies ``x[s]`` of each candidate set; a set with jokers may declare them in
several ways (``solver.jokers.assignments``). Under strict rules those declarations matter, so a
set that can matter is split into one variable per declaration, ``x[s,a]`` (summing to ``x[s]``).
Every joker of a table set L (under the chosen reading of L) then either

- stays: ``g[r,s,a,t]`` puts it in a copy of ``(s,a)`` that declares its tile t and still holds
  a numbered tile of L ("its set, extended, split or rebuilt around it"); under locked rules the
  copy must hold all of L (it only grew), one copy per locked set; or
- is retrieved: ``ret[r,t]`` needs a real t on the new table for each joker it replaces, and
  (official retrieval) the joker lands in a *host* copy ``h[s,a]`` holding two rack tiles:
  ``u`` marks played numbered tiles of the copy as the rack's, ``p`` its other jokers from the rack,
  ``o`` the retrieved jokers' slots.

Slots are counted per class of identical copies: ``g + o + p <= (jokers of a declaring t) * x[s,a]``,
which is exact because copies of one class are interchangeable.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

from solver.backends.linear import INF, LinearModel
from solver.jokers import Role, TableReading, assignments, can_host, numbered, table_readings
from solver.melds import run_numbers, run_starts
from solver.model.candidates import TileKey
from solver.model.turn import set_name, tile_name
from solver.position import Position
from solver.rules import JokerRules, Retrieval, RuleSet
from solver.tiles import JOKER, Tile


def needs_joker_rows(position: Position) -> bool:
    """Whether the joker rules change this turn: strict or locked, jokers on a table that may change."""
    table_fixed = not position.opened and not position.rules.continue_after_meld
    return (
        position.rules.joker_rules is not JokerRules.FREE
        and not table_fixed
        and any(t.is_joker for s in position.table for t in s)
    )


def locked_homes(position: Position, available: Counter[int]) -> list[TileKey]:
    """Sets a locked table set may grow into: runs of any length and groups holding it whole.

    The candidate list stops at the longest run that cannot be split without loss; a locked set
    may not be split, so its longer extensions are added here (those the tiles allow, up to the
    length beyond which the extension could be cut off as a run of its own).
    """
    rules = position.rules
    found: set[TileKey] = set()
    joker = JOKER.index(rules)
    for written in position.table:
        if JOKER not in written:
            continue
        core = numbered(written)
        colours = {t.colour for t in core}
        if len(colours) != 1:
            continue  # a group: its homes are groups, all in the candidate list
        colour = colours.pop()
        own_jokers = len(written) - sum(core.values())
        spare = min(rules.jokers, available[joker]) - own_jokers
        # Longer homes need not be listed: a piece of m or more tiles beyond either end of the
        # locked set (with a numbered tile) can be laid as a run of its own instead.
        longest = len(written) + 2 * max(rules.min_set_size - 1, spare)
        for length in range(len(written), min(rules.numbers, longest) + 1):
            for start in run_starts(length, rules):
                seq = run_numbers(start, length, rules)
                assert seq is not None
                tiles = [Tile(colour, n) for n in seq]
                if core - Counter(tiles):
                    continue
                free = [t for t in tiles if t not in core]
                for extra_jokers in range(own_jokers, own_jokers + max(spare, 0) + 1):
                    for key in _fill(sorted(core.elements()), free, extra_jokers, rules):
                        if all(available[i] >= n for i, n in Counter(key).items()):
                            found.add(key)
    return sorted(found)


def _fill(core: list[Tile], free: list[Tile], jokers: int, rules: RuleSet) -> list[TileKey]:
    """Keys of a run: the core tiles, ``jokers`` jokers on free places, real tiles on the rest."""
    joker = JOKER.index(rules)
    if jokers > len(free):
        return []
    keys = []
    for holes in combinations(range(len(free)), jokers):
        tiles = core + [t for i, t in enumerate(free) if i not in holes]
        keys.append(tuple(sorted(t.index(rules) for t in tiles)) + (joker,) * jokers)
    return keys


def add_joker_rows(
    lp: LinearModel,
    position: Position,
    x_of: dict[TileKey, int],
    played: dict[int, int],
    table: Counter[int],
    rack: Counter[int],
    stay: bool = False,
) -> None:
    """Add the strict (or locked) joker rules to a set model whose set variables are ``x_of``.

    With ``stay`` no table joker may be retrieved: a smaller model of a subset of the legal moves
    (``solve`` tries it first; when it reaches the free optimum, that is the optimum).
    """
    jokers = _TableJokers.of(position, table, rack, stay)
    classes, hosts = _split_by_declaration(lp, jokers, x_of)
    fates = _joker_fates(lp, jokers, classes)
    _slot_rows(lp, jokers, classes, hosts, fates, played)


Declared = dict[TileKey, list[tuple[tuple[Tile, ...], int]]]  # set -> (declaration, its variable)
Hosts = list[tuple[TileKey, tuple[Tile, ...] | None, int]]  # (set, declaration or None, variable)


@dataclass(frozen=True)
class _TableJokers:
    """The table's jokers and what the rules let happen to them in this position."""

    rules: RuleSet
    before: list[tuple[int, tuple[Tile, ...], tuple[TableReading, ...]]]  # table sets holding jokers
    table: Counter[int]
    rack: Counter[int]
    can_retrieve: bool  # some tile that a table joker stands for is on the table or the rack

    @staticmethod
    def of(position: Position, table: Counter[int], rack: Counter[int], stay: bool) -> _TableJokers:
        rules = position.rules
        before = [(i, s, table_readings(s, rules)) for i, s in enumerate(position.table, 1) if JOKER in s]
        can_retrieve = not stay and any(
            table[t.index(rules)] + rack[t.index(rules)]
            for _, _, readings in before
            for reading in readings
            for role in reading.roles
            for t in role.options
        )
        return _TableJokers(rules, before, table, rack, can_retrieve)

    @property
    def locked(self) -> bool:
        return self.rules.joker_rules is JokerRules.LOCKED

    @property
    def official(self) -> bool:
        return self.rules.joker_retrieval is Retrieval.OFFICIAL


@dataclass
class _Fates:
    """What may become of each table joker: the rows' terms, gathered for the slot rows."""

    capacity: dict[tuple[int, Tile], list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    replacing: dict[Tile, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    retrieved: list[int] = field(default_factory=list)


def _split_by_declaration(lp: LinearModel, jokers: _TableJokers, x_of: dict[TileKey, int]) -> tuple[Declared, Hosts]:
    """Split the sets whose joker declarations matter: those a table joker could stay in, and
    (official retrieval) those that could host a retrieved joker next to two rack tiles."""
    rules, rack = jokers.rules, jokers.rack
    joker = rules.joker_index
    wanted = frozenset(
        t for _, _, readings in jokers.before for reading in readings for r in reading.roles for t in r.options
    )
    near_tiles = {t.index(rules) for _, s, _ in jokers.before for t in numbered(s)}
    own_counts: Counter[tuple[TileKey, tuple[Tile, ...]]] = Counter()
    for _, written, readings in jokers.before:
        own = _own_declaration(written, readings[0].roles, rules)
        if own is not None:
            own_counts[(own[0], own[1])] += 1
    classes: Declared = {}
    hosts: Hosts = []
    for key, x in x_of.items():
        count = key.count(joker)
        if not count:
            continue
        distinct = set(key)
        mine = sum(1 for i in distinct if i != joker and rack[i]) + min(rack[joker], count - 1)
        host = jokers.official and jokers.can_retrieve and mine >= 2
        if not (distinct & near_tiles):
            if host:
                hosts.append((key, None, x))
            continue
        options = _declarations(key, rules)
        if not any(wanted.intersection(a) for a in options):
            if host:  # no table joker can stay in it: how its jokers are declared doesn't matter
                hosts.append((key, None, x))
            continue
        split = []
        for a in options:
            # The "play nothing" hint: each table set keeps its own declaration.
            hint = own_counts[(key, a)]
            v = lp.var(f"x_{set_name(key, rules)}_as_{''.join(str(t) for t in a)}", lp.upper[x], hint=hint)
            split.append((a, v))
            if host:
                hosts.append((key, a, v))
        classes[key] = split
        lp.row(f"declare_{set_name(key, rules)}", [(x, 1)] + [(v, -1) for _, v in split], 0, 0)
    return classes, hosts


def _joker_fates(lp: LinearModel, jokers: _TableJokers, classes: Declared) -> _Fates:
    """Each joker of a table set, under the reading chosen for the set, stays in a split copy
    that declares its tile and keeps a numbered tile of its set, or is retrieved."""
    rules, table, rack = jokers.rules, jokers.table, jokers.rack
    held_of = {key: numbered([Tile.from_index(j, rules) for j in key]) for key in classes}
    fates = _Fates()
    hint_used: Counter[tuple[int, Tile]] = Counter()
    for i, written, readings in jokers.before:
        core = numbered(written)
        chooses: list[int | None] = [None]
        if len(readings) > 1:
            picks = [lp.var(f"reads_{i}_as_{k}", 1, hint=int(k == 0)) for k in range(len(readings))]
            lp.row(f"reading_{i}", [(c, 1) for c in picks], 1, 1)
            chooses = list(picks)
        for k, (reading, choose) in enumerate(zip(readings, chooses)):
            role_homes: list[dict[int, list[tuple[int, int]]]] = []  # per role: split variable -> its g
            mine_retrieved: list[int] = []
            gated: list[tuple[int, int]] = []  # locked: homes that don't hold the whole set
            own = _own_declaration(written, reading.roles, rules) if k == 0 else None
            for r, role in enumerate(reading.roles):
                name = f"joker_{i}_{k}_{r}"
                terms: list[tuple[int, int]] = []
                homes: dict[int, list[tuple[int, int]]] = defaultdict(list)
                for key, split in classes.items():
                    held = held_of[key]
                    if not (set(held) & set(core)):
                        continue  # it would leave its set: only retrieval takes it elsewhere
                    # Locked: the set may only grow, unless one of its jokers is retrieved.
                    unlocked_only = jokers.locked and bool(core - held)
                    for a, v in split:
                        for t in sorted(set(a) & set(role.options)):
                            hint = 0
                            if (
                                own is not None
                                and (key, a, t) == (own[0], own[1], own[2][r])
                                and hint_used[(v, t)] < a.count(t) * lp.hint[v]
                            ):
                                hint = 1
                                hint_used[(v, t)] += 1
                            g = lp.var(f"{name}_stays_in_{lp.names[v][2:]}_{t}", 1, hint=hint)
                            fates.capacity[(v, t)].append((g, 1))
                            terms.append((g, 1))
                            (gated if unlocked_only else homes[v]).append((g, 1))
                for t in role.options:
                    if not jokers.can_retrieve or table[t.index(rules)] + rack[t.index(rules)] == 0:
                        continue  # no such tile could replace it
                    ret = lp.var(f"{name}_retrieved_by_{t}", 1)
                    fates.replacing[t].append((ret, 1))
                    terms.append((ret, 1))
                    fates.retrieved.append(ret)
                    mine_retrieved.append(ret)
                # Each joker of the chosen reading stays or is retrieved; none of another reading.
                hi = 1 if choose is None else 0
                lp.row(name, terms + ([(choose, -1)] if choose is not None else []), hi, hi)
                role_homes.append(homes)
            if jokers.locked:
                _lock_rows(lp, f"locked_{i}_{k}", role_homes, mine_retrieved)
                if gated:
                    n = len(reading.roles)
                    lp.row(f"locked_{i}_{k}_unlocked", gated + [(x, -n) for x in mine_retrieved], -INF, 0)
    return fates


def _slot_rows(
    lp: LinearModel, jokers: _TableJokers, classes: Declared, hosts: Hosts, fates: _Fates, played: dict[int, int]
) -> None:
    """A copy declaring t holds as many staying or retrieved jokers there as it has jokers
    declaring t; a retrieved joker is replaced by a real tile it stood for."""
    rules = jokers.rules
    declared_of = {v: a for split in classes.values() for a, v in split}
    slots: dict[tuple[int, Tile], list[tuple[int, int]]] = defaultdict(list)
    if jokers.official and fates.retrieved:
        _host_rows(lp, hosts, fates.retrieved, played, jokers.rack, rules, slots)
    for v, t in sorted(set(fates.capacity) | set(slots)):
        a_count = declared_of[v].count(t)
        terms = fates.capacity.get((v, t), []) + slots.get((v, t), [])
        lp.row(f"slots_{lp.names[v]}_{t}", [*terms, (v, -a_count)], -INF, 0)
    # No more retrieved jokers replaced by t than there are t on the new table.
    for t, terms in sorted(fates.replacing.items()):
        ti = t.index(rules)
        extra = [(played[ti], -1)] if ti in played else []
        lp.row(f"replace_{tile_name(ti, rules)}", terms + extra, -INF, jokers.table[ti])


def _lock_rows(
    lp: LinearModel, name: str, role_homes: list[dict[int, list[tuple[int, int]]]], retrieved: list[int]
) -> None:
    """Locked: one copy per locked set, holding all its staying jokers; a set with several jokers
    keeps them together unless one was retrieved (which unlocks it)."""
    if not role_homes:
        return
    first = role_homes[0]
    for v, gs in first.items():
        lp.row(f"{name}_home_{lp.names[v]}", [*gs, (v, -1)], -INF, 0)
    for r, homes in enumerate(role_homes[1:], 1):
        for v in set(first) | set(homes):
            terms = first.get(v, []) + [(g, -c) for g, c in homes.get(v, [])]
            # |first - other| <= retrieved jokers of the set: equal while the set is locked.
            lp.row(f"{name}_together_{r}_{lp.names[v]}_a", terms + [(x, -1) for x in retrieved], -INF, 0)
            lp.row(f"{name}_together_{r}_{lp.names[v]}_b", terms + [(x, 1) for x in retrieved], 0, INF)


def _host_rows(
    lp: LinearModel,
    hosts: list[tuple[TileKey, tuple[Tile, ...] | None, int]],
    retrieved: list[int],
    played: dict[int, int],
    rack: Counter[int],
    rules: RuleSet,
    slots: dict[tuple[int, Tile], list[tuple[int, int]]],
) -> None:
    """Official retrieval: each retrieved joker lies in a host copy holding two rack tiles.

    A set no table joker can stay in is a host as a whole (``a`` None: its jokers' slots are
    counted together); a split set's slots are counted per declared tile, shared with ``g``.
    """
    joker = JOKER.index(rules)
    placed: list[tuple[int, int]] = []
    marks: dict[int, list[tuple[int, int]]] = defaultdict(list)
    rack_jokers: list[tuple[int, int]] = []
    for key, a, v in hosts:
        jokers = key.count(joker)
        declared = a if a is not None else (JOKER,) * jokers
        base = set_name(key, rules) + ("" if a is None else f"_as_{''.join(str(t) for t in a)}")
        ub = lp.upper[v]
        h = lp.var(f"host_{base}", ub)
        lp.row(f"host_{base}", [(h, 1), (v, -1)], -INF, 0)
        own: list[tuple[int, int]] = []
        for t in sorted(set(declared)):
            o = lp.var(f"retrieved_in_{base}_{t}", ub * declared.count(t))
            placed.append((o, 1))
            here = [(o, 1)]
            if rack[joker] and jokers > 1:
                p = lp.var(f"rack_joker_in_{base}_{t}", ub * declared.count(t))
                rack_jokers.append((p, 1))
                own.append((p, 1))
                here.append((p, 1))
            if a is not None:
                slots[(v, t)] += here
            lp.row(f"host_slots_{base}_{t}", [*here, (h, -declared.count(t))], -INF, 0)
        for i in sorted(set(key)):
            if i != joker and rack[i]:
                u = lp.var(f"rack_tile_{tile_name(i, rules)}_in_{base}", ub)
                lp.row(f"rack_tile_{tile_name(i, rules)}_in_{base}", [(u, 1), (h, -1)], -INF, 0)
                marks[i].append((u, 1))
                own.append((u, 1))
        # Two of the host copy's tiles came from the rack.
        lp.row(f"host_two_{base}", [*own, (h, -2)], 0, INF)
    for i, terms in sorted(marks.items()):
        lp.row(f"rack_marks_{tile_name(i, rules)}", [*terms, (played[i], -1)], -INF, 0)
    if rack_jokers:
        lp.row("rack_joker_marks", [*rack_jokers, (played[joker], -1)], -INF, 0)
    lp.row("retrieved_placed", placed + [(r, -1) for r in retrieved], 0, 0)


@lru_cache(maxsize=65536)
def _declarations(key: TileKey, rules: RuleSet) -> tuple[tuple[Tile, ...], ...]:
    return assignments([Tile.from_index(i, rules) for i in key], rules)


def _own_declaration(
    written: Sequence[Tile], roles: Sequence[Role], rules: RuleSet
) -> tuple[TileKey, tuple[Tile, ...], list[Tile]] | None:
    """The table set's key, a declaration of it serving its roles, and each role's tile there."""
    key = tuple(sorted(t.index(rules) for t in written))
    for a in assignments(written, rules):
        match = can_host(roles, a)
        if match is not None:
            return key, a, [a[j] for j in match]
    return None
