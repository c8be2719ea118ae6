"""Strict and locked jokers on the pattern formulation, as a relaxation the validator completes.

The pattern formulation counts the jokers standing for each tile (``j[t]``) and lets the decoder
seat them. Here each joker of a table set L, under one reading of L (``solver.jokers``: ``read``
picks it), gets one fate, a binary per option:

- ``stay[t]``: it still stands for its tile t, as one of the ``j[t]`` jokers;
- ``take[t]``: a real t retrieves it (no more retrievals by t than real t on the new table: the
  table's copies and those played); under official retrieval it then lies in a *host*, else
  anywhere, as one of the jokers the formulation seats;
- ``home``: under locked rules, while none of L's jokers is retrieved, L lies whole in one set,
  grown at most: an explicit column holding L's tiles, its jokers at their tiles, and what was
  laid at either end (at most ``min_set_size - 1`` tiles: more can be laid as a run of its own);
- L stays exactly as it was (the kept-set column).

A host is an explicit column for the set a retrieved joker lies in: a run (any length) whose
tiles the column covers, one of them held by a seated joker, or a group with the joker as its own
tile; it must hold two tiles whose kinds were played (the player may say a played copy is the one
in the host). Rows a host needs only when it is chosen (a joker seated in it, its rack tiles) are
lazy (``LinearModel.lazy``). The jokers of a set read as a group take distinct colours.

Every legal move satisfies these rows, so the model's optimum bounds the rules' optimum from
above: *relaxed* are a staying joker's set holding a tile of its old set, a retrieved joker's set
holding none of them, and whether the joker seated in a host sits on one of its rack tiles. So
``solve`` judges the decoded move with the validator's account: when an arrangement of the optimum
passes, it is optimal under the rules; when none does, the exact model decides
(``solver.model.joker_sets``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations

from solver.backends.linear import INF, LinearModel
from solver.melds import Kind, run_numbers, run_starts
from solver.model.table_jokers import joker_sets, locked_homes
from solver.model.turn import KeptSets, add_kept_specials, tile_counts, tile_name
from solver.position import Position
from solver.rules import JokerRules, Retrieval, RuleSet
from solver.tiles import JOKER, Tile, tile

Terms = list[tuple[int, int]]


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
    seats: list[tuple[int, tuple[Tile, ...]]] = field(default_factory=list)  # (column, run a joker sits in)
    kept: list[int] = field(default_factory=list)  # terms counting columns that leave an original set


def add_joker_fates(lp: LinearModel, position: Position, base: FateBase) -> Fates:
    """Add a fate for every table joker (see the module docstring); rows on ``lp``."""
    rules = position.rules
    locked = rules.joker_rules is JokerRules.LOCKED
    rack, table = tile_counts(position)
    available = rack + table
    fates = Fates()
    stays: dict[int, Terms] = defaultdict(list)  # tile -> jokers staying as it
    takes: dict[int, Terms] = defaultdict(list)  # tile -> jokers it retrieves
    for s in joker_sets(lp, position, base.kept):
        for k, (reading, pick) in enumerate(zip(s.readings, s.picks)):
            name = f"joker_{s.index}_{k}"
            homes: Terms = []
            if locked:
                for tiles in locked_homes(s.written, reading, rules, available):
                    home = lp.var(f"home_{s.index}_{k}_{'_'.join(map(str, tiles))}", 1)
                    fates.sets.append((home, tiles))
                    homes.append((home, 1))
                    for t, n in Counter(t.index(rules) for t in tiles).items():
                        lp.add_to_row(base.tile_rows[t], [(home, n)])
            jokers = len(reading.roles)
            # Locked: a joker stays outside a home only once a joker of its set was retrieved.
            free_to_stay = not locked or jokers > 1
            mine_stay: list[Terms] = []
            mine_take: list[Terms] = []
            by_tile: dict[int, Terms] = defaultdict(list)  # a group's tiles, once each
            for q, role in enumerate(reading.roles):
                stay: Terms = []
                take: Terms = []
                for t in role.options:
                    index = t.index(rules)
                    if free_to_stay:
                        v = lp.var(f"{name}_{q}_stays_{t}", 1)
                        stays[index].append((v, 1))
                        stay.append((v, 1))
                        by_tile[index].append((v, 1))
                    if available[index]:
                        v = lp.var(f"{name}_{q}_retrieved_by_{t}", 1)
                        takes[index].append((v, 1))
                        take.append((v, 1))
                        by_tile[index].append((v, 1))
                # Each joker of the chosen reading has one fate; none of another reading.
                lp.row(f"{name}_{q}", [*stay, *take, *homes, (pick, -1)], 0, 0)
                mine_stay.append(stay)
                mine_take.append(take)
            if locked and jokers > 1:
                retrieved = [v for take in mine_take for v in take]
                for q, stay in enumerate(mine_stay):
                    lp.row(f"{name}_{q}_unlocked", [*stay, *[(v, -c) for v, c in retrieved]], -INF, 0)
            if reading.kind is Kind.GROUP and jokers > 1:
                for index, terms in sorted(by_tile.items()):
                    lp.row(f"{name}_distinct_{tile_name(index, rules)}", terms, -INF, 1)
    for index, terms in sorted(stays.items()):
        # Staying jokers are among the jokers standing for their tile.
        lp.row(f"stay_{tile_name(index, rules)}", [*terms, (base.jokers[index], -1)], -INF, 0)
    for index, terms in sorted(takes.items()):
        # A retrieved joker is replaced by a real tile: no more than are on the new table.
        played = [(base.played[index], -1)] if rack[index] else []
        lp.row(f"retrieve_{tile_name(index, rules)}", [*terms, *played], -INF, table[index])
    retrieved = [v for terms in takes.values() for v in terms]
    if retrieved and rules.joker_retrieval is Retrieval.OFFICIAL:
        _add_hosts(lp, position, base, retrieved, fates)
    # An explicit column with an original set's tiles leaves that set as it was (for the
    # tie-break); a run a joker is seated in may be one with the joker on any of its tiles.
    explicit = [*fates.sets, *[(v, t) for v, t in fates.seats if JOKER in t]]
    for v, tiles in fates.seats:
        if JOKER not in tiles:
            explicit += [(v, s) for s in position.table if _seats_as(tiles, s)]
    fates.kept = add_kept_specials(lp, rules, explicit, base.kept)
    return fates


def _seats_as(run: Sequence[Tile], written: Sequence[Tile]) -> bool:
    """Whether a run with one of its tiles held by a joker has a table set's tiles."""
    return len(run) == len(written) and sum(t.is_joker for t in written) == 1 and not (
        Counter(t for t in written if not t.is_joker) - Counter(run)
    )


@dataclass(frozen=True)
class _Shape:
    """A host's shape: its real kinds, and where its joker is: a place of a run (``seat``), a
    tile of its own (a group, or a run whose joker's place is fixed), or seated by ``j`` on one
    of its tiles (a long run, ``seat`` -1 and ``run``)."""

    kinds: tuple[int, ...]
    run: bool
    name: str
    seat: int = -1  # place of the joker in a run with a fixed seat (its kind is left out of kinds)
    order: tuple[int, ...] = ()  # a run's kinds in order, the seat's kind included


@cache
def _host_shapes(rules: RuleSet) -> tuple[_Shape, ...]:
    """Every run (any length: the joker may sit far from the rack tiles) and every group that can
    take a joker, for a rule set."""
    shapes = []
    letters = rules.colour_letters
    for c in range(rules.colours):
        for length in range(rules.min_set_size, rules.numbers + 1):
            for start in run_starts(length, rules):
                seq = run_numbers(start, length, rules)
                assert seq is not None
                kinds = tuple(tile(c, n).index(rules) for n in seq)
                if length < 2 * rules.min_set_size:
                    for seat in range(length):
                        real = kinds[:seat] + kinds[seat + 1 :]
                        shapes.append(_Shape(real, False, f"host_{letters[c]}{start}_{length}_{seat}", seat, kinds))
                else:
                    shapes.append(_Shape(kinds, True, f"host_{letters[c]}{start}_{length}", -1, kinds))
    if rules.groups_possible:
        for n in range(1, rules.numbers + 1):
            for size in range(1, rules.colours):
                for colours in combinations(range(rules.colours), size):
                    kinds = tuple(tile(c, n).index(rules) for c in colours)
                    shapes.append(_Shape(kinds, False, f"host_{n}_{''.join(letters[c] for c in colours)}"))
    return tuple(shapes)


def _add_hosts(lp: LinearModel, position: Position, base: FateBase, retrieved: Terms, fates: Fates) -> None:
    """Official retrieval: every retrieved joker lies in a host holding two rack tiles."""
    rules = position.rules
    rack, table = tile_counts(position)
    available = rack + table
    joker = rules.joker_index
    hosts: Terms = []
    rack_jokers = rack[joker]
    covering: dict[int, list[int]] = defaultdict(list)  # tile -> hosts a second joker may share there
    for shape in _host_shapes(rules):
        missing = sum(1 for k in shape.kinds if not available[k])
        # Other jokers (a seated one of a run, more from the table or the rack) stand in for the
        # tiles that are not there; two tiles came from the rack (a joker from the rack counts).
        room = rules.jokers - (0 if shape.run else 1)
        if missing > room or sum(1 for k in shape.kinds if rack[k]) + rack_jokers < 2:
            continue
        if not shape.run and shape.seat < 0 and len(shape.kinds) + rules.jokers < rules.min_set_size:
            continue
        v = lp.var(shape.name, 1)
        hosts.append((v, 1))
        if shape.run or shape.seat >= 0:
            for k in shape.kinds:
                covering[k].append(v)
        else:
            number = shape.kinds[0] % rules.numbers
            for c in range(rules.colours):
                if c * rules.numbers + number not in shape.kinds:
                    covering[c * rules.numbers + number].append(v)
        tiles = tuple(Tile.from_index(k, rules) for k in shape.kinds)
        entries = [(base.tile_rows[k], v, 1) for k in shape.kinds]
        if shape.run:
            fates.seats.append((v, tiles))
            # A joker seated in it (the formulation's j[t]: any joker standing for one of its tiles).
            lp.row(f"{shape.name}_seated", [(v, -1), *[(base.jokers[k], 1) for k in shape.kinds]], 0, INF, lazy=True)
        else:
            entries.append((base.tile_rows[joker], v, 1))
            # Other jokers may be seated on its tiles too (several retrieved jokers in one set).
            if shape.seat >= 0:
                order = [Tile.from_index(k, rules) for k in shape.order]
                order[shape.seat] = JOKER
                fates.seats.append((v, tuple(order)))
            else:
                fates.seats.append((v, (*tiles, JOKER)))
        lp.add_entries(entries)
        # Two of its tiles came from the rack: kinds not on the table before were all played; of
        # the others, a copy played (r) may be said to be the one here.
        auto = sum(1 for k in shape.kinds if rack[k] and not table[k]) + rack_jokers
        linked = [(base.played[k], 1) for k in shape.kinds if rack[k] and table[k]]
        if auto < 2:
            lp.row(f"{shape.name}_rack", [(v, auto - 2), *linked], 0, INF, lazy=True)
    # Every retrieved joker has a host: its own (a run's seated joker, a group's own), or it
    # shares one, seated on a tile a chosen host covers (a run's tile, a group's missing colour).
    shared: Terms = []
    if rules.jokers > 1:
        for t, j in sorted(base.jokers.items()):
            near = covering.get(t, [])
            if not near:
                continue
            y = lp.var(f"shares_host_{Tile.from_index(t, rules)}", rules.jokers - 1)
            shared.append((y, 1))
            lp.row(f"shares_host_{Tile.from_index(t, rules)}_seated", [(y, 1), (j, -1)], -INF, 0, lazy=True)
            lp.row(f"shares_host_{Tile.from_index(t, rules)}_covered", [(y, 1), *[(v, -(rules.jokers - 1)) for v in near]], -INF, 0, lazy=True)
    lp.row("hosted", [*hosts, *shared, *[(v, -c) for v, c in retrieved]], 0, INF)
