"""Strict and locked jokers on the pattern formulation, as a relaxation the validator completes.

The pattern formulation counts the jokers standing for each tile (``j[t]``) and lets the decoder
seat them. Here each joker of a table set L, under one reading of L (``solver.jokers``: ``read``
picks it), gets one fate:

- it *stays*: an explicit column holds it at its tile beside a tile of L (``_stay_sets``: a run
  from the joker to L's nearest own tile, or a group with one of L's colours), or, *loosely*, it
  stands for its tile in another explicit column (a host, another joker's set, a locked home:
  sets holding jokers of several table sets);
- it is *retrieved* by a real tile of its role (no more retrievals by a tile than real copies of
  it on the new table: the table's and those played); under official retrieval it then lies in a
  *host*; under club retrieval in any other set (relaxed here to any set: one of the jokers the
  formulation seats);
- under locked rules, while none of L's jokers is retrieved, L lies whole in one set, grown at
  most: an explicit column holding L's tiles, its jokers at their tiles, and what was laid at
  either end (``table_jokers.locked_homes``);
- or L stays exactly as it was (the kept-set column).

A host is an explicit column for the set retrieved jokers lie in: a run or a group with them at
their places and two tiles of kinds the rack holds (or jokers from the rack). Hosts come from a
table cached per rule set (``_host_table``): every run and group with one joker per retrieved
joker, less those that split into a smaller host and runs of their own (m tiles off an end, or
two hosts of one joker each: the same move, scored no lower). A run of ``2 * min_set_size`` tiles
or more stays seatless: it covers its tiles and its jokers are the formulation's ``j[t]`` on them
(a lazy row per host, and one per colour in the LP). Hall rows give every table set's retrieved
jokers hosts. Rows that rarely bind are lazy: a host's rack kinds were played, and a set's own
tiles without a second copy lie in its jokers' hosts only under other jokers. The jokers of a set
read as a group take distinct colours.

Every legal move satisfies these rows (each set holding table jokers maps to one of the columns,
the rest of its run to runs of their own), so the model's optimum bounds the rules' optimum from
above. Relaxed are the copies: whether the kinds that made a host rich were played, whether a
retrieved joker's host holds a tile of its old set, whether own tiles suffice for every staying
joker and locked set, where a loose stay sits. So ``solve`` judges the decoded move with the
validator's account: when an arrangement of the optimum passes, it is optimal under the rules;
when none does, ``solve`` repairs the answer (excludes its fates, solves again) and at last the
exact model decides (``solver.model.joker_sets``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from itertools import chain, combinations, permutations, product
from typing import Any

from solver.jokers import TableReading
from solver.lp import INF, LinearModel
from solver.melds import Kind, run_numbers
from solver.model.flow import flow_supported
from solver.model.run_flow import number_at, places
from solver.model.table_jokers import JokerSet, joker_sets, locked_homes
from solver.model.turn import KeptSets, add_kept_specials, set_key, tile_counts, tile_name
from solver.position import Position
from solver.rules import JokerRules, Retrieval, RuleSet
from solver.tiles import JOKER, Tile, tile

Terms = list[tuple[int, int]]
TileKey = tuple[int, ...]


@dataclass(frozen=True)
class FateBase:
    """The formulation's columns and rows that the fates attach to."""

    tile_rows: dict[int, int]  # tile index (the joker's too) -> the row every copy of it lies in
    jokers: dict[int, int]  # tile index -> j[t], the jokers standing for it
    played: dict[int, int]  # tile index -> r[t], copies played from the rack
    kept: KeptSets  # (column, the set as written) per distinct original set


@dataclass
class Fates:
    """What the fates add that the decoder reads: explicit sets, and sets jokers may be seated in."""

    sets: list[tuple[int, tuple[Tile, ...]]] = field(default_factory=list)  # (column, set with its jokers)
    seats: list[tuple[int, tuple[Tile, ...]]] = field(default_factory=list)  # (column, run its j[t] sit in)
    # Hosts, (column, shape in the rule set's host table): their tiles are made only for an answer.
    hosts: list[tuple[int, int]] = field(default_factory=list)
    seatless: list[tuple[int, int]] = field(default_factory=list)
    table: _HostTable | None = None
    kept: list[int] = field(default_factory=list)  # terms counting columns that leave an original set
    columns: list[int] = field(default_factory=list)  # the fates: stays, retrievals, homes, hosts
    rack_rows: _RackRows | None = None  # valid rows left out of the model, added when broken
    partial: bool = False  # hosts were left out (add_joker_fates' short_hosts): no bound

    def held(self, values: Sequence[int]) -> list[list[Tile]]:
        """The explicit sets of an answer (stays, homes, hosts with their jokers), as often as chosen."""
        found = [list(s) for v, s in self.sets for _ in range(values[v])]
        if self.table is not None:
            found += [list(self.table.tiles(i)) for v, i in self.hosts for _ in range(values[v])]
        return found

    def seated(self, values: Sequence[int]) -> list[list[Tile]]:
        """The seatless hosts of an answer, as often as chosen: runs whose jokers are the formulation's."""
        found = [list(s) for v, s in self.seats for _ in range(values[v])]
        if self.table is not None:
            found += [list(self.table.seatless_tiles(g)) for v, g in self.seatless for _ in range(values[v])]
        return found

    def cuts(self, values: Sequence[int]) -> list[tuple[str, Terms, float, float]]:
        """Rows of the rules left out of the model that an answer breaks (see _RackRows)."""
        return [] if self.rack_rows is None else self.rack_rows.broken(values)


@dataclass(frozen=True)
class _RackRows:
    """Per host: its rack tiles were played (``need`` of them among its kinds that the table holds
    too, a played copy for each, or jokers from the rack)."""

    columns: Any
    needs: Any
    real: Any  # hosts x numbered tiles
    played: dict[int, int]  # tile (the joker's too) -> r[t], for kinds on the table and the rack

    def broken(self, values: Sequence[int]) -> list[tuple[str, Terms, float, float]]:
        import numpy as np

        found = []
        chosen = np.flatnonzero(np.array([values[v] for v in self.columns.tolist()]) > 0)
        for k in chosen.tolist():
            v, need = int(self.columns[k]), int(self.needs[k])
            terms = [(r, 1) for t, r in self.played.items() if t >= self.real.shape[1] or self.real[k, t]]
            if sum(values[r] for r, _ in terms) < need * values[v]:
                found.append((f"host_{v}_rack", [*terms, (v, -need)], 0.0, INF))
        return found


def _key(tiles: Sequence[Tile], rules: RuleSet) -> TileKey:
    return set_key(tuple(tiles), rules)


@dataclass(frozen=True)
class _SetFacts:
    """What building a column asks of an explicit set's tiles."""

    label: str  # its tiles joined by '_', for column names
    counts: tuple[tuple[int, int], ...]  # (tile index, copies), jokers' too, as they first appear
    numbered: tuple[tuple[int, int], ...]  # the same without the jokers


@lru_cache(maxsize=65536)
def _facts(tiles: tuple[Tile, ...], rules: RuleSet) -> _SetFacts:
    """Cached: the same stays, homes and table sets recur in every model of a position (its
    short-host model and its whole one) and in many positions."""
    counts = Counter(t.index(rules) for t in tiles)
    return _SetFacts(
        "_".join(map(str, tiles)),
        tuple(counts.items()),
        tuple((t, n) for t, n in counts.items() if t != rules.joker_index),
    )


def add_joker_fates(lp: LinearModel, position: Position, base: FateBase, short_hosts: bool = False) -> Fates:
    """Add a fate for every table joker (see the module docstring); rows on ``lp``.

    ``short_hosts``: only the hosts of one joker that are not long runs (seatless), and each laid
    once. The model is then no relaxation (it misses some legal moves), but it is far smaller, and
    its legal answer at the free optimum's rank is optimal all the same (``solve`` tries it first).
    """
    build = _FateBuilder(lp, position, base)
    for s in joker_sets(lp, position, base.kept):
        build.add_table_set(s)
    build.add_retrieval_rows()
    hosts = build.add_hosts(short_hosts)
    build.add_loose_rows(hosts)
    build.add_kept(hosts)
    return build.fates


class _FateBuilder:
    """The steps of add_joker_fates, and what they share while the fates are added."""

    def __init__(self, lp: LinearModel, position: Position, base: FateBase) -> None:
        self.lp = lp
        self.position = position
        self.base = base
        self.rules = rules = position.rules
        self.locked = rules.joker_rules is JokerRules.LOCKED
        self.rack, self.table = tile_counts(position)
        self.available = self.rack + self.table
        self.originals = {_key(s, rules) for s in position.table if JOKER in s}
        self.fates = Fates()
        self.covers: dict[int, set[int]] = defaultdict(set)  # tile -> explicit columns holding it (real or a hole)
        self.holes: dict[int, Terms] = defaultdict(list)  # tile -> explicit columns with a rack joker's hole there
        self.owner: dict[int, int] = {}  # column -> the table set whose joker it holds staying (or home)
        # (variable, tile, its set, tiles beside it of which a set holding it needs one)
        self.loose: list[tuple[int, int, int, frozenset[int]]] = []
        self.takes: dict[int, Terms] = defaultdict(list)  # tile -> jokers it retrieves
        self.retrieved_by_set: dict[int, Terms] = {}
        # (column, its holes, its kinds): homes a joker may go to
        self.host_homes: list[tuple[int, int, TileKey]] = []

    def explicit(self, v: int, tiles: tuple[Tile, ...], hole_kinds: Sequence[int] = ()) -> None:
        """Column ``v`` is the explicit set ``tiles`` (with a rack joker's hole at ``hole_kinds``)."""
        self.fates.sets.append((v, tiles))
        for t, _ in _facts(tiles, self.rules).numbered:
            self.covers[t].add(v)
        for t in hole_kinds:
            self.covers[t].add(v)
        for t in set(hole_kinds):
            self.holes[t].append((v, 1))

    def add_table_set(self, s: JokerSet) -> None:
        """The fates of one table set's jokers, under each of its readings."""
        mine: Terms = []
        for k, (reading, pick) in enumerate(zip(s.readings, s.picks)):
            self.add_reading(s, k, reading, pick, mine)
        self.retrieved_by_set[s.index] = mine

    def add_reading(self, s: JokerSet, k: int, reading: TableReading, pick: int, mine: Terms) -> None:
        """The fates of set ``s``'s jokers under its reading ``k`` (chosen by ``pick``); the columns
        retrieving them are added to ``mine``."""
        lp, rules = self.lp, self.rules
        name = f"joker_{s.index}_{k}"
        jokers = len(reading.roles)
        homes = self.add_homes(s, k, reading) if self.locked else []
        # Locked: a joker stays outside a home only once a joker of its set was retrieved.
        free_to_stay = not self.locked or jokers > 1
        stay: list[Terms] = [[] for _ in reading.roles]
        take: list[Terms] = [[] for _ in reading.roles]
        by_tile: dict[int, Terms] = defaultdict(list)  # a group's tiles, once each
        if free_to_stay:
            self.add_stays(s, name, reading, stay, by_tile)
        for q, role in enumerate(reading.roles):
            for t in role.options:
                index = t.index(rules)
                if free_to_stay:
                    v = lp.var(f"{name}_{q}_stays_loose_{t}", 1)
                    self.loose.append((v, index, s.index, _beside(s.written, reading, t, rules)))
                    self.fates.columns.append(v)
                    stay[q].append((v, 1))
                    by_tile[index].append((v, 1))
                if self.available[index]:
                    v = lp.var(f"{name}_{q}_retrieved_by_{t}", 1)
                    self.takes[index].append((v, 1))
                    self.fates.columns.append(v)
                    take[q].append((v, 1))
                    mine.append((v, 1))
                    by_tile[index].append((v, 1))
            # Each joker of the chosen reading has one fate; none of another reading.
            lp.row(f"{name}_{q}", [*stay[q], *take[q], *homes, (pick, -1)], 0, 0)
        if self.locked and jokers > 1:
            retrieved = [v for terms in take for v in terms]
            for q, terms in enumerate(stay):
                lp.row(f"{name}_{q}_unlocked", [*terms, *[(v, -c) for v, c in retrieved]], -INF, 0)
        if reading.kind is Kind.GROUP and jokers > 1:
            for index, terms in sorted(by_tile.items()):
                lp.row(f"{name}_distinct_{tile_name(index, rules)}", terms, -INF, 1)

    def add_homes(self, s: JokerSet, k: int, reading: TableReading) -> Terms:
        """Locked: the columns laying set ``s`` whole under reading ``k``, grown at most."""
        lp, rules = self.lp, self.rules
        jokers = len(reading.roles)
        homes: Terms = []
        for tiles in locked_homes(s.written, reading, rules, self.available):
            facts = _facts(tiles, rules)
            home = lp.var(f"home_{s.index}_{k}_{facts.label}", 1)
            homes.append((home, 1))
            self.fates.columns.append(home)
            lp.add_entries([(self.base.tile_rows[t], home, n) for t, n in facts.counts])
            added = sum(1 for t in tiles if t.is_joker) - jokers
            self.explicit(home, tiles, _hole_kinds(tiles, reading, rules) if added else ())
            self.owner[home] = s.index
            if added:
                self.host_homes.append((home, added, set_key(tiles, rules)))
        return homes

    def add_stays(
        self, s: JokerSet, name: str, reading: TableReading, stay: list[Terms], by_tile: dict[int, Terms]
    ) -> None:
        """The explicit columns holding jokers of ``s`` staying beside a tile of it; each adds to
        its jokers' ``stay`` terms and to ``by_tile``."""
        lp, rules, rows = self.lp, self.rules, self.base.tile_rows
        entries: list[tuple[int, int, int]] = []
        for tiles, held in _stay_sets(s.written, reading, rules, self.available, self.originals):
            facts = _facts(tiles, rules)
            v = lp.var(f"{name}_stays_{facts.label}", 1)
            entries += [(rows[t], v, n) for t, n in facts.numbered]
            entries.append((rows[rules.joker_index], v, len(held)))
            self.explicit(v, tiles)
            self.owner[v] = s.index
            self.fates.columns.append(v)
            for q, declared in held:
                stay[q].append((v, 1))
                by_tile[declared.index(rules)].append((v, 1))
        lp.add_entries(entries)

    def add_retrieval_rows(self) -> None:
        for index, terms in sorted(self.takes.items()):
            # A retrieved joker is replaced by a real tile: no more than are on the new table.
            played = [(self.base.played[index], -1)] if self.rack[index] else []
            self.lp.row(f"retrieve_{tile_name(index, self.rules)}", [*terms, *played], -INF, self.table[index])

    def add_hosts(self, short_hosts: bool) -> _Hosts | None:
        """Official retrieval: the hosts retrieved jokers lie in, and the rows giving each one."""
        position, rules = self.position, self.rules
        # Hosts hold at most as many jokers as may be retrieved.
        most = min(
            sum(position.table[i - 1].count(JOKER) for i, terms in self.retrieved_by_set.items() if terms),
            rules.jokers,
        )
        if not most or rules.joker_retrieval is not Retrieval.OFFICIAL:
            return None
        taken: dict[int, Terms] = defaultdict(list)
        for v, index, _, _ in self.loose:
            taken[index].append((v, 1))
        for index, terms in self.holes.items():
            taken[index] += [(x, -c) for x, c in terms]
        counts = (self.rack, self.table)
        hosts = _add_hosts(self.lp, position, counts, self.base, most, self.originals, self.fates, taken, short_hosts)
        self.fates.columns += hosts.columns.tolist()
        self.fates.rack_rows = _add_hosted(
            self.lp, position, counts, self.base, hosts, self.host_homes, self.retrieved_by_set
        )
        return hosts

    def add_loose_rows(self, hosts: _Hosts | None) -> None:
        for v, index, i, beside in self.loose:
            # Loosely staying: it stands for its tile, beside a tile of its set, in an explicit
            # column of another set's jokers, as one of the formulation's jokers there or a hole.
            near = set().union(*(self.covers[k] for k in beside)) if beside else set()
            holding = [(x, -1) for x in sorted(self.covers[index] & near) if self.owner.get(x) != i]
            if hosts is not None and beside:
                at = hosts.real[:, index] & hosts.real[:, sorted(beside)].any(axis=1)
                holding += [(x, -1) for x in hosts.columns[at].tolist()]
            self.lp.row(f"loose_{v}_held", [(v, 1), *holding], -INF, 0)
            j = [(self.base.jokers[index], -1)] if index in self.base.jokers else []
            self.lp.row(f"loose_{v}_seated", [(v, 1), *j, *[(x, -c) for x, c in self.holes[index]]], -INF, 0)

    def add_kept(self, hosts: _Hosts | None) -> None:
        # An explicit column may leave an original set as it was (kept, for the tie-break): homes,
        # stays, and hosts equal to a table set.
        rules, fates = self.rules, self.fates
        kept_keys = {_key(written, rules) for _, written in self.base.kept}
        candidates = [(v, t) for v, t in fates.sets if _key(t, rules) in kept_keys]
        if hosts is not None and fates.table is not None:
            candidates += [(v, fates.table.tiles(i)) for v, i in fates.hosts if v in hosts.originals]
        fates.kept = add_kept_specials(self.lp, rules, candidates, self.base.kept)


@lru_cache(maxsize=4096)
def _beside(written: tuple[Tile, ...], reading: TableReading, declared: Tile, rules: RuleSet) -> frozenset[int]:
    """Tiles of a set of which one lies beside its joker declaring ``declared`` wherever it stays:
    in a run the nearest own tiles either side of each place of that tile, in a group its own
    tiles. Cached, as ``_stay_sets_of``."""
    own = {t for t in written if not t.is_joker}
    if reading.kind is Kind.GROUP:
        return frozenset(t.index(rules) for t in own)
    colour = declared.colour
    line = [tile(colour, number_at(p, rules)) for p in range(places(rules) + 1)]
    found: set[int] = set()
    for spot in (p for p in range(1, len(line)) if line[p] == declared):
        left = [t for t in line[1:spot] if t in own]
        right = [t for t in line[spot + 1 :] if t in own]
        found |= {t.index(rules) for t in [*left[-1:], *right[:1]]}
    return frozenset(found)


def _hole_kinds(tiles: Sequence[Tile], reading: TableReading, rules: RuleSet) -> list[int]:
    """The tiles a home's added jokers may stand for: a run's by their places, a group's missing
    colours."""
    if reading.kind is Kind.GROUP:
        number = reading.stands_for[0].number
        present = {t.colour for t in tiles if not t.is_joker}
        return [tile(c, number).index(rules) for c in range(rules.colours) if c not in present]
    colour = reading.stands_for[0].colour
    # The home holds the set's tiles at their places: one of them places the rest.
    first = reading.stands_for[0].number
    i, t = next((i, t) for i, t in enumerate(tiles) if t in reading.stands_for)
    start = first + reading.stands_for.index(t) - i
    return [tile(colour, number_at(start + i, rules)).index(rules) for i, t in enumerate(tiles) if t.is_joker]


def _stay_sets(
    written: Sequence[Tile],
    reading: TableReading,
    rules: RuleSet,
    available: Counter[int],
    originals: set[TileKey],
) -> tuple[tuple[tuple[Tile, ...], tuple[tuple[int, Tile], ...]], ...]:
    """Sets some jokers of a table set may stay in: (the set with those jokers at their tiles,
    (role, tile declared) per joker held). Cached: the short-host model and the whole one ask
    for the same (see ``_stay_sets_of``)."""
    return _stay_sets_of(
        tuple(written), reading, rules, tuple(sorted((t, n) for t, n in available.items() if n)), frozenset(originals)
    )


@lru_cache(maxsize=256)
def _stay_sets_of(
    written: tuple[Tile, ...],
    reading: TableReading,
    rules: RuleSet,
    counts: tuple[tuple[int, int], ...],
    originals: frozenset[TileKey],
) -> tuple[tuple[tuple[Tile, ...], tuple[tuple[int, Tile], ...]], ...]:
    """Sets some jokers of a table set may stay in: (the set with those jokers at their tiles,
    (role, tile declared) per joker held). Its other places are real tiles (or other jokers).

    A run holds the jokers' places and the nearest own tile beside them (its *core*); it grows
    at either end as long as the growth could not be a run of its own (m tiles or more off an
    end that still leaves the core in a run: the same move, scored no lower). A group holds the
    jokers' colours and one of the set's own colours at least.
    """
    available = Counter(dict(counts))
    found: list[tuple[tuple[Tile, ...], tuple[tuple[int, Tile], ...]]] = []
    m = rules.min_set_size
    room = rules.jokers
    roles = reading.roles
    if reading.kind is Kind.GROUP:
        number = reading.stands_for[0].number
        own = {t.colour for t in written if not t.is_joker}
        for size in range(1, len(roles) + 1):
            for held in combinations(range(len(roles)), size):
                for colours in permutations(range(rules.colours), size):
                    if any(tile(c, number) not in roles[q].options for q, c in zip(held, colours)):
                        continue
                    others = [c for c in range(rules.colours) if c not in colours]
                    for more in range(max(m - size, 1), len(others) + 1):
                        for real in combinations(others, more):
                            if not own & set(real):
                                continue
                            tiles = tuple(tile(c, number) for c in real)
                            if sum(1 for t in tiles if not available[t.index(rules)]) > room - size:
                                continue
                            declared = tuple((q, tile(c, number)) for q, c in zip(held, colours))
                            found.append(((*tiles, *(JOKER,) * size), declared))
        return tuple(found)
    colour = reading.stands_for[0].colour
    own = {t for t in written if not t.is_joker}
    seen: set[tuple[tuple[Tile, ...], tuple[tuple[int, Tile], ...]]] = set()
    last = places(rules)
    line = [tile(colour, number_at(p, rules)) for p in range(last + 1)]  # line[p]: the tile at place p
    # A joker's tile may lie at two places (under wrap=american a 1 also follows the top number).
    spots_of = [[p for p in range(1, last + 1) if line[p] == role.options[0]] for role in roles]
    for size in range(1, len(roles) + 1):
        for held in combinations(range(len(roles)), size):
            for chosen in product(*(spots_of[q] for q in held)):
                if len(set(chosen)) < size:
                    continue
                spots = dict(zip(chosen, held))
                lo, hi = min(spots), max(spots)
                cores = []
                if any(line[p] in own and p not in spots for p in range(lo + 1, hi)):
                    cores.append((lo, hi))
                left = [p for p in range(1, lo) if line[p] in own]
                right = [p for p in range(hi + 1, last + 1) if line[p] in own]
                if left:
                    cores.append((left[-1], hi))
                if right:
                    cores.append((lo, right[0]))
                _runs_around(cores, spots, line, held, roles, rules, available, originals, found, seen)
    return tuple(found)


def _runs_around(
    cores: list[tuple[int, int]],
    spots: dict[int, int],
    line: list[Tile],
    held: tuple[int, ...],
    roles: Sequence[Any],
    rules: RuleSet,
    available: Counter[int],
    originals: frozenset[TileKey],
    found: list[tuple[tuple[Tile, ...], tuple[tuple[int, Tile], ...]]],
    seen: set[tuple[tuple[Tile, ...], tuple[tuple[int, Tile], ...]]],
) -> None:
    """The runs holding a core (jokers at ``spots``), grown at either end short of a run of
    their own; each added to ``found`` once (``seen``: those found)."""
    m = rules.min_set_size
    last = len(line) - 1
    size = len(spots)
    declared = tuple((q, roles[q].options[0]) for q in sorted(held))
    lengths = {len(key) for key in originals}
    # Tiles with no copy at hand from place 1 up to each place (a joker must stand for each).
    short = [0] * (last + 2)
    for p in range(1, last + 1):
        short[p + 1] = short[p] + (p not in spots and not available[line[p].index(rules)])
    for core_lo, core_hi in cores:
        for a in range(1, core_lo + 1):
            for b in range(max(core_hi, a + m - 1), min(last, a + rules.numbers - 1) + 1):
                if run_numbers(a, b - a + 1, rules) is None:
                    continue
                if short[b + 1] - short[a] > rules.jokers - size:
                    continue
                # m tiles or more off an end that leave the core in a run of m or more: the
                # same move with that piece a run of its own (unless it is a table set as it was).
                dominated = (a + m <= core_lo and b - a + 1 - m >= m) or (
                    b - m >= core_hi and b - a + 1 - m >= m
                )
                if dominated and b - a + 1 not in lengths:
                    continue
                tiles = tuple(JOKER if p in spots else line[p] for p in range(a, b + 1))
                if dominated and _key(tiles, rules) not in originals:
                    continue
                if (tiles, declared) not in seen:
                    seen.add((tiles, declared))
                    found.append((tiles, declared))


@dataclass(frozen=True)
class _HostTable:
    """Every run and group that can hold retrieved jokers, for one rule set, as arrays: a row per
    shape (its real tiles and its jokers' places), and which smaller shapes dominate it. Long
    runs also belong to a seatless shape (their tiles, how many jokers)."""

    rules: RuleSet
    kinds: list[tuple[int, ...]]  # per shape: its tiles in order (a run's by place), jokers' included
    seats: list[tuple[int, ...]]  # per shape: where its jokers are in ``kinds``
    starts: list[int]  # per shape: a run's first place, 0 for a group
    real: Any  # shapes x numbered tiles, 0/1: the real tiles a shape holds
    count: Any  # jokers per shape
    seatless: Any  # per shape: its seatless shape (a long run), or -1
    trim: Any  # (shape, smaller shape): m tiles off an end, the jokers still inside
    split: Any  # (shape, left, right): two hosts of one joker each
    seatless_real: Any  # seatless shapes x numbered tiles: every tile of the run
    seatless_count: Any
    seatless_kinds: list[tuple[int, ...]]
    seatless_starts: list[int]

    @cached_property
    def seatless_real_float(self) -> Any:
        """``seatless_real`` for products, as ``real_float``."""
        return self.seatless_real.astype(float)

    @cached_property
    def real_float(self) -> Any:
        """``real`` for products: numpy multiplies floats far faster than integers."""
        return self.real.astype(float)

    @cached_property
    def by_key(self) -> dict[TileKey, list[int]]:
        """The shapes by their tiles (sorted tile indices, jokers as the joker's)."""
        found: dict[TileKey, list[int]] = defaultdict(list)
        joker = self.rules.joker_index
        for i, (kinds, seats) in enumerate(zip(self.kinds, self.seats)):
            held = sorted(k for p, k in enumerate(kinds) if p not in seats)
            found[(*held, *(joker,) * len(seats))].append(i)
        return dict(found)

    @cached_property
    def names(self) -> Any:
        """Every shape's column name, as an object array (picked by index, thousands a model)."""
        import numpy as np

        return np.array([self._name(i) for i in range(len(self.kinds))], dtype=object)

    def _name(self, i: int) -> str:
        rules, kinds = self.rules, self.kinds[i]
        letters = rules.colour_letters
        seats = "_".join(map(str, self.seats[i]))
        if self.starts[i]:
            return f"host_{letters[kinds[0] // rules.numbers]}{self.starts[i]}_{len(kinds)}_{seats}"
        colours = "".join(letters[k // rules.numbers] for k in kinds)
        return f"host_{kinds[0] % rules.numbers + 1}_{colours}_{seats}"

    def tiles(self, i: int) -> tuple[Tile, ...]:
        seats = self.seats[i]
        return tuple(
            JOKER if p in seats else Tile.from_index(k, self.rules) for p, k in enumerate(self.kinds[i])
        )

    @cached_property
    def seatless_names(self) -> list[str]:
        """Per seatless shape, its column's name (a few hundred, asked for by every model)."""
        letters, numbers = self.rules.colour_letters, self.rules.numbers
        return [
            f"host_{letters[kinds[0] // numbers]}{start}_{len(kinds)}_jokers_{count}"
            for kinds, start, count in zip(
                self.seatless_kinds, self.seatless_starts, self.seatless_count.tolist()
            )
        ]

    def seatless_tiles(self, g: int) -> tuple[Tile, ...]:
        return tuple(Tile.from_index(k, self.rules) for k in self.seatless_kinds[g])

    def equal_to(self, key: TileKey) -> list[int]:
        """The shapes holding exactly these tiles (sorted tile indices, jokers as the joker's):
        from ``by_key`` once it is built (``warm_host_table``), else found for this key alone
        and kept (a process solving one position reads a few dozen keys of thousands)."""
        if "by_key" in vars(self):
            return self.by_key.get(key, [])
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._shapes_holding(key)
        return found

    @cached_property
    def _found(self) -> dict[TileKey, list[int]]:
        return {}

    @cached_property
    def _real_count(self) -> Any:
        return self.real.sum(axis=1)

    def _shapes_holding(self, key: TileKey) -> list[int]:
        """``by_key[key]`` without the index: the shapes with these jokers and exactly these real
        tiles (a shape holds distinct tiles, so a key repeating one matches none)."""
        import numpy as np

        joker = self.rules.joker_index
        held = [t for t in key if t != joker]
        if len(set(held)) != len(held):
            return []
        alike = np.flatnonzero((self.count == len(key) - len(held)) & (self._real_count == len(held)))
        chosen = alike[self.real[np.ix_(alike, np.array(held, dtype=np.int64))].all(axis=1)]
        return [int(i) for i in chosen]

    def names_of(self, shapes: Any) -> Any:
        """The column names of these shapes (an object array): from ``names`` once it is built,
        else named one by one and kept."""
        import numpy as np

        if "names" in vars(self):
            return self.names[shapes]
        known = self._named
        for i in shapes.tolist():
            if i not in known:
                known[i] = self._name(i)
        return np.array([known[i] for i in shapes.tolist()], dtype=object)

    @cached_property
    def _named(self) -> dict[int, str]:
        return {}


def warm_host_table(rules: RuleSet) -> None:
    """Build the rule set's host table and its index by tiles now, once per process (on this
    machine 50-150 ms): a process solving many positions pays it before its first solve that
    needs it, not inside that solve. Only the pattern formulation's relaxation has hosts: under
    other rules (as many jokers as the smallest set holds, full wrap) there is nothing to build."""
    official = rules.joker_retrieval is Retrieval.OFFICIAL
    if rules.joker_rules is not JokerRules.FREE and official and flow_supported(rules):
        table = _host_table(rules)
        # Cached properties: reading them builds them.
        table.by_key, table.names, table.real_float, table.seatless_real_float  # noqa: B018


@cache
def _host_table(rules: RuleSet) -> _HostTable:
    import numpy as np

    m, joker = rules.min_set_size, rules.joker_index
    kinds: list[tuple[int, ...]] = []
    seats: list[tuple[int, ...]] = []
    starts: list[int] = []
    index: dict[tuple[int, int, int, tuple[int, ...]], int] = {}  # (colour, first place, length, seats)
    trim: list[tuple[int, int]] = []
    split: list[tuple[int, int, int]] = []
    seatless: list[int] = []
    seatless_of: dict[tuple[tuple[int, ...], int], int] = {}
    seatless_starts: list[int] = []
    for c in range(rules.colours):
        line = [c * rules.numbers + number_at(p, rules) - 1 for p in range(places(rules) + 1)]
        for length in range(m, rules.numbers + 1):
            for a in range(1, places(rules) - length + 2):
                seq = tuple(line[a : a + length])
                for size in range(1, min(rules.jokers, length - 1) + 1):
                    group = -1
                    if length >= 2 * m:
                        group = seatless_of.setdefault((seq, size), len(seatless_of))
                        if group == len(seatless_starts):
                            seatless_starts.append(a)
                    for chosen in combinations(range(length), size):
                        index[(c, a, length, chosen)] = len(kinds)
                        kinds.append(seq)
                        seats.append(chosen)
                        starts.append(a)
                        seatless.append(group)
    for (c, a, length, chosen), i in index.items():
        if length - m >= m:
            if chosen[0] >= m:
                trim.append((i, index[(c, a + m, length - m, tuple(p - m for p in chosen))]))
            if chosen[-1] < length - m:
                trim.append((i, index[(c, a, length - m, chosen)]))
        if len(chosen) == 2:
            for x in range(max(m, chosen[0] + 1), min(length - m, chosen[1]) + 1):
                left = index[(c, a, x, chosen[:1])]
                right = index[(c, a + x, length - x, (chosen[1] - x,))]
                split.append((i, left, right))
    if rules.groups_possible:
        for n in range(rules.numbers):
            for size in range(m, rules.colours + 1):
                for colours in combinations(range(rules.colours), size):
                    seq = tuple(c * rules.numbers + n for c in colours)
                    for jokers in range(1, min(rules.jokers, size - 1) + 1):
                        for chosen in combinations(range(size), jokers):
                            kinds.append(seq)
                            seats.append(chosen)
                            starts.append(0)
                            seatless.append(-1)
    # Each shape's tiles, then its jokers' places cleared (a run's or group's tiles are distinct).
    shapes = np.arange(len(kinds))
    real = np.zeros((len(kinds), joker), dtype=np.int32)
    real[np.repeat(shapes, [len(seq) for seq in kinds]), list(chain.from_iterable(kinds))] = 1
    count = np.array([len(chosen) for chosen in seats])
    real[np.repeat(shapes, count), [seq[p] for seq, chosen in zip(kinds, seats) for p in chosen]] = 0
    seatless_kinds = [seq for seq, _ in seatless_of]
    seatless_real = np.zeros((len(seatless_of), joker), dtype=np.int32)
    for (seq, _), g in seatless_of.items():
        seatless_real[g, list(seq)] = 1
    return _HostTable(
        rules,
        kinds,
        seats,
        starts,
        real,
        count,
        np.array(seatless, dtype=np.int64),
        np.array(trim, dtype=np.int64).reshape(-1, 2),
        np.array(split, dtype=np.int64).reshape(-1, 3),
        seatless_real,
        np.array([size for _, size in seatless_of], dtype=np.int64),
        seatless_kinds,
        seatless_starts,
    )


@dataclass(frozen=True)
class _Shapes:
    """The hosts one position needs (see ``_host_shapes``), as read-only arrays."""

    seated: Any  # shapes in the host table with their jokers at their places
    seatless: Any  # seatless shapes (long runs)
    seated_copies: Any  # per seated shape, how often it may be laid (``_copies``)
    seatless_copies: Any
    seated_names: Any  # per seated shape, its column's name (an object array)


def _host_shapes(
    position: Position, counts: tuple[Counter[int], Counter[int]], most: int, originals: set[TileKey]
) -> _Shapes:
    """The hosts this position needs: shapes with their jokers at their places (the short ones
    and any equal to a table set), and seatless long runs, with how often each may be laid.
    Cached: the short-host model and the whole one ask for the same."""
    rack, table = counts
    return _host_shapes_of(
        position.rules,
        tuple(sorted((t, n) for t, n in rack.items() if n)),
        tuple(sorted((t, n) for t, n in table.items() if n)),
        most,
        frozenset(originals),
    )


@lru_cache(maxsize=16)
def _host_shapes_of(
    rules: RuleSet,
    rack_counts: tuple[tuple[int, int], ...],
    table_counts: tuple[tuple[int, int], ...],
    most: int,
    originals: frozenset[TileKey],
) -> _Shapes:
    import numpy as np

    host = _host_table(rules)
    rack, table = Counter(dict(rack_counts)), Counter(dict(table_counts))
    joker = rules.joker_index
    rich = np.array([1 if rack[t] else 0 for t in range(joker)], dtype=np.float64)
    absent = np.array([0 if rack[t] or table[t] else 1 for t in range(joker)], dtype=np.float64)
    # Two tiles from the rack (a rack joker counts), other jokers for the tiles not there.
    fits = (host.real_float @ rich + rack[joker] >= 2) & (host.real_float @ absent <= rules.jokers - host.count)
    fits &= host.count <= most
    smaller = np.bincount(host.trim[:, 0], fits[host.trim[:, 1]], len(fits))
    smaller += np.bincount(host.split[:, 0], fits[host.split[:, 1]] & fits[host.split[:, 2]], len(fits))
    dominated = smaller > 0
    protected = np.zeros(len(fits), dtype=bool)
    for key in originals:
        protected[host.equal_to(key)] = True
    chosen = fits & (~dominated | protected)
    long = host.seatless >= 0
    seated = np.flatnonzero(chosen & (~long | protected))
    # Sorted distinct shapes: np.unique would import numpy.ma on its first call (20 ms).
    loose = host.seatless[chosen & long & ~protected]
    seatless = np.flatnonzero(np.bincount(loose, minlength=len(host.seatless_count)))
    shapes = _Shapes(
        seated,
        seatless,
        _copies(rules, rack, table, host.real_float, seated, host.count[seated], most),
        _copies(rules, rack, table, host.seatless_real_float, seatless, host.seatless_count[seatless], most),
        host.names_of(seated),
    )
    for array in vars(shapes).values():
        array.flags.writeable = False
    return shapes


def _copies(
    rules: RuleSet, rack: Counter[int], table: Counter[int], real: Any, shapes: Any, count: Any, most: int
) -> Any:
    """How often each of ``shapes`` (rows of the float table ``real``) may be laid: c copies hold
    c * count retrieved jokers (at most ``most``); a tile with fewer than c copies on the table
    and the rack needs a joker of its own in each copy short of one (all jokers at most); and each
    copy holds two rack tiles (the rack's copies of its kinds, and jokers from the rack, 2c in
    all). Products over the whole table, then picked: faster than copying the rows out."""
    import numpy as np

    available = np.array([rack[t] + table[t] for t in range(rules.joker_index)])
    in_rack = np.array([rack[t] for t in range(rules.joker_index)])
    copies = np.ones(len(count), dtype=np.int64)
    for c in range(2, most + 1):
        short = (real @ np.maximum(0, c - available))[shapes]
        rich = (real @ np.minimum(in_rack, c))[shapes] + rack[rules.joker_index] >= 2 * c
        copies[(c * count <= most) & (c * count + short <= rules.jokers) & rich] = c
    return copies


@dataclass(frozen=True)
class _Hosts:
    """The host columns of one model: column, jokers hosted, real tiles (a seatless run: all its
    tiles), whether seatless."""

    columns: Any
    count: Any  # retrieved jokers it holds (a twin: in both its sets)
    real: Any
    seatless: Any
    copies: Any  # sets it lays: 1, or 2 and more for a twin
    originals: set[int]  # columns equal to a table set holding jokers


def _add_hosts(
    lp: LinearModel,
    position: Position,
    counts: tuple[Counter[int], Counter[int]],
    base: FateBase,
    most: int,
    originals: set[TileKey],
    fates: Fates,
    taken: dict[int, Terms],
    short_only: bool = False,
) -> _Hosts:
    """Official retrieval: the host columns (see the module docstring). ``taken``: per tile, the
    terms of jokers standing for it that are not a host's (a staying joker loosely there, less a
    home's holes), which a seatless host's jokers cannot be. ``short_only``: see add_joker_fates."""
    import numpy as np

    rules = position.rules
    host = _host_table(rules)
    needed = _host_shapes(position, counts, most, originals)
    seated, seatless = needed.seated, needed.seatless
    # A host may be laid more than once (two copies of B1 B2 J, each taking a retrieved joker),
    # as often as its tiles and the jokers allow: a *twin* column lays it that often at once (a
    # bound of 2 on the host's own column made bnb's LPs far weaker: 1.1 s against 0.1 s).
    copies, loose_copies = needed.seated_copies.copy(), needed.seatless_copies
    seated_names = needed.seated_names
    if short_only:
        fates.partial = bool(len(seatless)) or bool((host.count[seated] > 1).any())
        single = host.count[seated] == 1
        seated, copies, seated_names = seated[single], copies[single], seated_names[single]
        seatless, loose_copies = seatless[:0], loose_copies[:0]
        fates.partial |= bool((copies > 1).any())
        copies[:] = 1
    joker = rules.joker_index
    row_of = np.array([base.tile_rows[t] for t in range(joker)], dtype=np.int64)
    twins = np.flatnonzero(copies > 1)
    shapes = np.concatenate([seated, seated[twins]])
    times = np.concatenate([np.ones(len(seated), dtype=np.int64), copies[twins]])
    names = seated_names.tolist()
    names += [f"{name}_times_{c}" for name, c in zip(seated_names[twins].tolist(), copies[twins].tolist())]
    first = lp.vars(names, 1)
    columns = np.arange(first, first + len(shapes))
    count = host.count[shapes] * times
    real = host.real[shapes]
    at, kind = np.nonzero(real)
    blocks = [
        np.stack([row_of[kind], columns[at], times[at]], axis=1),
        np.stack([np.full(len(shapes), base.tile_rows[joker]), columns, count], axis=1),
    ]
    fates.table = host
    fates.hosts += [(v, i) for v, i, c in zip(columns.tolist(), shapes.tolist(), times.tolist()) for _ in range(c)]
    loose_count = host.seatless_count[seatless]
    first = lp.vars(
        [host.seatless_names[g] for g in seatless.tolist()],
        loose_copies.tolist(),
    )
    loose_columns = np.arange(first, first + len(seatless))
    loose_real = host.seatless_real[seatless]
    at, kind = np.nonzero(loose_real)
    # Its jokers are the formulation's j[t] on its tiles (which it covers at every place).
    blocks.append(np.stack([row_of[kind], loose_columns[at], np.ones(len(at), dtype=np.int64)], axis=1))
    lp.add_entry_block(np.concatenate(blocks))
    # Per tile: the formulation's jokers on it, and the other jokers there (``taken``) subtracted.
    standing = [(base.jokers[k], 1) for k in range(joker)]
    others = [[(x, -c) for x, c in taken.get(k, [])] for k in range(joker)]
    for v, g, n in zip(loose_columns.tolist(), seatless.tolist(), loose_count.tolist()):
        kinds = host.seatless_kinds[g]
        terms = [
            (v, -n),
            *map(standing.__getitem__, kinds),
            *chain.from_iterable(map(others.__getitem__, kinds)),
        ]
        lp.row(f"{host.seatless_names[g]}_seated", terms, 0, INF, lazy=True)
        fates.seatless.append((v, g))
    # The same per colour, kept in the LP: seatless hosts of a colour hold that many of the
    # formulation's jokers on its tiles (their rows per host join only when broken).
    by_colour: dict[int, Terms] = defaultdict(list)
    for v, g, n in zip(loose_columns.tolist(), seatless.tolist(), loose_count.tolist()):
        by_colour[host.seatless_kinds[g][0] // rules.numbers].append((v, -n))
    for c, terms in sorted(by_colour.items()):
        kinds = range(c * rules.numbers, (c + 1) * rules.numbers)
        jokers = [(base.jokers[k], 1) for k in kinds]
        lp.row(
            f"seated_{c}", [*terms, *jokers, *[(x, -n) for k in kinds for x, n in taken.get(k, [])]], 0, INF
        )
    column_of = dict(zip(seated.tolist(), columns.tolist()))  # the single hosts (twins after them)
    same = {column_of[i] for key in originals for i in host.equal_to(key) if i in column_of}
    return _Hosts(
        np.concatenate([columns, loose_columns]),
        np.concatenate([count, loose_count]),
        np.concatenate([real, loose_real]).astype(bool),
        np.concatenate([np.zeros(len(columns), dtype=bool), np.ones(len(loose_columns), dtype=bool)]),
        np.concatenate([times, np.ones(len(loose_columns), dtype=np.int64)]),
        same,
    )


def _add_hosted(
    lp: LinearModel,
    position: Position,
    counts: tuple[Counter[int], Counter[int]],
    base: FateBase,
    hosts: _Hosts,
    homes: list[tuple[int, int, TileKey]],
    retrieved_by_set: dict[int, Terms],
) -> _RackRows | None:
    """Every retrieved joker has a host: a Hall row per group of table sets, each set's jokers
    in hosts holding none of its own tiles that have no other copy (a seatless host's jokers may
    stand on them). A locked home grown with jokers and two rack tiles may host one too."""
    import numpy as np

    rules = position.rules
    joker = rules.joker_index
    rack, table = counts
    sets = [i for i, terms in retrieved_by_set.items() if terms]
    fits: dict[int, Any] = {}
    extra: dict[int, Terms] = {}
    single_of: dict[int, list[int]] = {}
    for i in sets:
        single = [
            t.index(rules)
            for t in position.table[i - 1]
            if not t.is_joker and rack[t.index(rules)] + table[t.index(rules)] < 2
        ]
        single_of[i] = single
        clash = hosts.real[:, single].sum(axis=1) if single else np.zeros(len(hosts.columns), dtype=np.int64)
        # Other jokers may stand on such tiles (a seatless host's own jokers too).
        fits[i] = clash <= rules.jokers - np.where(hosts.seatless, 0, hosts.count)
        extra[i] = [
            (v, added)
            for v, added, key in homes
            if sum(1 for k in key if k != joker and rack[k]) + rack[joker] >= 2 and not set(key) & set(single)
        ]
    # A host's two rack tiles were played (kinds on the table too need a played copy to say it
    # is the rack's; not so for a home, which may be only its set's home): in sum in the LP, per
    # host only when an answer breaks it (``Fates.rack_rows``: hundreds of rows that rarely bind).
    automatic = np.array([bool(rack[t] and not table[t]) for t in range(joker)])
    linked = [t for t in range(joker) if rack[t] and table[t]]
    needs = (2 - hosts.real[:, automatic].sum(axis=1)) * hosts.copies
    needy = needs > 0
    rack_rows = None
    if needy.any():
        claims = list(zip(hosts.columns[needy].tolist(), needs[needy].tolist()))
        supply = [(base.played[t], -1) for t in linked] + ([(base.played[joker], -1)] if rack[joker] else [])
        lp.row("hosts_rack", [*claims, *supply], -INF, 0)
        played = {t: base.played[t] for t in linked}
        if rack[joker]:
            played[joker] = base.played[joker]
        rack_rows = _RackRows(hosts.columns[needy], needs[needy], hosts.real[needy], played)
    # When one table set's jokers are the only ones retrieved, its own tiles with no other copy
    # lie in a host only under other jokers (lazy: they rarely bind).
    if len(sets) == 1:
        for t in sorted(single_of[sets[0]]):
            inside = hosts.real[:, t]
            terms = list(zip(hosts.columns[inside].tolist(), hosts.copies[inside].tolist()))
            lp.row(f"host_own_{t}", [*terms, (base.jokers[t], -1)], -INF, 0, lazy=True)
    for size in range(1, len(sets) + 1):
        for group in combinations(sets, size):
            usable = np.logical_or.reduce([fits[i] for i in group])
            terms = list(zip(hosts.columns[usable].tolist(), hosts.count[usable].tolist()))
            terms += sorted({term for i in group for term in extra[i]})
            wanted = [(v, -c) for i in group for v, c in retrieved_by_set[i]]
            lp.row(f"hosted_{'_'.join(map(str, group))}", [*terms, *wanted], 0, INF)
    return rack_rows
