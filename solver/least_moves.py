"""Tiles moved by a move, and the arrangement of a move that moves the fewest table tiles.

**Tiles moved.** Each set of the new table is *built on* at most one set of the old table, its
*base*, and keeps some of the base's tiles, at least one of them numbered:

- a run is built on an old run of its colour; an old run may be the base of several new runs
  (it was split, each part keeping its own tiles);
- a group is built on an old group of its number; an old group is the base of one new set at most;
- a joker stays only together with a numbered tile of its old set.

A table tile is *unmoved* when it ends in a new set built on the set it was in, kept by it; every
other table tile *moves*. So a set that is extended, trimmed, split or has a tile swapped keeps its
remaining tiles unmoved, while a tile taken to another set, a retrieved joker, and the tiles of a
set broken up over other sets all move. The tiles moved by a new table are the fewest over every
choice of bases (``match``, a small integer program).

**Least moves.** ``least_moves`` keeps the tiles an optimal answer plays and rearranges the old
table plus those tiles into valid sets that move the fewest table tiles; then it keeps the most old
sets exactly as they were; runs built on one old run are joined where they touch (no needless
split). It is an integer program in the style of the flow formulation (runs as flows over the
numbers, groups as colour counts), solved by the solver's backends from the answer as a warm start:

- a flow of *free* sets (built on no old set): every colour's runs, groups, jokers;
- per old run, a flow of runs of its colour: the runs built on it. Each holds variables ``k`` for
  the old run's numbered tiles it keeps. A run of that flow keeping nothing is simply a free run;
  jokers kept stay in one more single-run flow per joker of the old run, next to a kept tile;
- per old group, one group of its number, with ``k`` for the tiles it keeps;
- per old set, ``same``: the set stays exactly as it was (set aside whole).

Exact for the rules the solver's flow formulation handles (no full wrap, fewer jokers than the
minimum set size) with table jokers free to move; otherwise (strict or locked jokers too), and
before the initial meld, the answer's own arrangement is kept.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from solver.backends import get_backend
from solver.errors import BackendError, ValidationFailure
from solver.jokers import table_readings
from solver.lp import INF, LinearModel
from solver.melds import Kind, best_reading, readings
from solver.model.flow import add_run_flow, number_at, places
from solver.position import Position
from solver.rules import JokerRules, RuleSet, Wrap
from solver.solution import unchanged
from solver.tiles import JOKER, Tile, tile
from solver.validator import validate

Sets = Sequence[Sequence[Tile]]
Terms = list[tuple[int, int]]
_Slots = dict[tuple[int, int], list[tuple[list[Tile], int]]]  # (colour, number) -> places in sets


@dataclass(frozen=True, slots=True)
class Placed:
    """One set of the new table: tiles in natural order, its base and the base's tiles it keeps."""

    tiles: tuple[Tile, ...]
    base: int | None  # index of the old table set it is built on
    kept: tuple[Tile, ...]  # the base's tiles that stay in it (unmoved)


@dataclass(frozen=True, slots=True)
class Rearrangement:
    table: tuple[Placed, ...]
    tiles_moved: int
    optimal: bool  # proven fewest (False when a time limit stopped the search or it did not run)
    seconds: float

    @property
    def sets(self) -> list[list[Tile]]:
        return [list(p.tiles) for p in self.table]


def supported(rules: RuleSet) -> bool:
    """Rules least_moves rearranges under (the others keep the answer's own arrangement)."""
    free_jokers = rules.joker_rules is JokerRules.FREE  # strict/locked: not modelled
    return rules.wrap is not Wrap.FULL and rules.jokers < rules.min_set_size and free_jokers


def least_moves(
    position: Position,
    after: Sets,
    played: Sequence[Tile],
    backend: str = "bnb",
    time_limit: float | None = None,
) -> Rearrangement:
    """A new table with the old table's tiles and ``played`` that moves the fewest table tiles.

    ``after`` is a legal new table with exactly those tiles (an optimal answer); the search starts
    from it, so the result never moves more. Raises ValidationFailure if it would return an illegal
    table (a bug).
    """
    started = time.perf_counter()
    rules = position.rules
    answer = match(position.table, after, rules)
    # Nothing to gain; or an initial meld, whose sets of rack tiles this model does not keep apart.
    untouched = answer.tiles_moved == 0 and sets_broken(position.table, answer.table) == 0
    if untouched or not position.opened or not supported(rules):
        done = untouched or not (position.opened or rules.continue_after_meld)
        return Rearrangement(answer.table, answer.tiles_moved, done, time.perf_counter() - started)
    model = _Model(rules, [list(s) for s in position.table], Counter(played))
    lp = model.lp
    start = model.encode(after)
    lp.hint = start
    try:
        result = get_backend(backend)(lp, time_limit)
    except BackendError:
        if backend == "highs":
            raise
        result = get_backend("highs")(lp, time_limit)
    if result.values is None:
        return Rearrangement(answer.table, answer.tiles_moved, False, time.perf_counter() - started)
    sets = model.decode(result.values)
    found = match(position.table, sets, rules)
    if Counter(t for s in sets for t in s) != Counter(t for s in after for t in s):
        raise ValidationFailure("least_moves lost or invented tiles")
    problems = validate(position, sets)
    if problems:
        raise ValidationFailure(f"least_moves made an illegal table: {problems[0].message}")
    if found.tiles_moved > answer.tiles_moved:
        raise ValidationFailure("least_moves moved more tiles than the answer it started from")
    return Rearrangement(found.table, found.tiles_moved, result.optimal, time.perf_counter() - started)


def sets_broken(before: Sets, after: Sequence[Placed]) -> int:
    """Old sets that lose a tile or are split, with the new sets built on them as ``after`` says."""
    leaving = [Counter(s) for s in before]
    for p in after:
        if p.base is not None:
            leaving[p.base] -= Counter(p.kept)
    parts = Counter(p.base for p in after if p.base is not None)
    return sum(1 for i, gone in enumerate(leaving) if gone or parts[i] > 1)


def match(before: Sets, after: Sets, rules: RuleSet) -> Rearrangement:
    """The bases of the new table ``after`` that leave the most table tiles unmoved (exact)."""
    started = time.perf_counter()
    old = [Counter(s) for s in before]
    new = [Counter(s) for s in after]
    old_kinds = [_kinds(s, rules) for s in before]
    new_kinds = [_kinds(s, rules) for s in after]
    holders: dict[Tile, list[int]] = {}  # numbered tile -> old sets holding it
    for i, o in enumerate(old):
        for t in o:
            if not t.is_joker:
                holders.setdefault(t, []).append(i)
    # Candidate bases: an old set of a kind the new set can be, sharing a numbered tile with it.
    pairs: dict[tuple[int, int], Counter[Tile]] = {}
    for j, n in enumerate(new):
        for i in sorted({i for t in n if not t.is_joker for i in holders.get(t, [])}):
            if old_kinds[i] & new_kinds[j]:
                pairs[i, j] = old[i] & n
                if JOKER in pairs[i, j] and rules.joker_rules is not JokerRules.FREE:
                    _keep_standing_jokers(pairs[i, j], before[i], after[j], rules)
    claims = Counter((i, t) for (i, _), common in pairs.items() for t in common)
    clash = (
        len({j for _, j in pairs}) < len(pairs)  # a new set with two candidate bases
        or any(claims[i, t] > old[i][t] for i, t in claims)  # a tile two new sets could keep
        or any(Kind.RUN not in old_kinds[i] and n > 1 for i, n in Counter(i for i, _ in pairs).items())
    )
    chosen = (
        _best_bases(old, pairs, old_kinds, [_ordered(s, rules) for s in before], new)
        if clash
        else {j: (i, common) for (i, j), common in pairs.items()}
    )
    table = []
    for j, s in enumerate(after):
        base, keeps = chosen.get(j, (None, Counter()))
        table.append(Placed(_ordered(s, rules), base, tuple(sorted(keeps.elements()))))
    moved = sum(len(s) for s in before) - sum(len(p.kept) for p in table)
    return Rearrangement(tuple(table), moved, True, time.perf_counter() - started)


def _best_bases(
    old: list[Counter[Tile]],
    pairs: dict[tuple[int, int], Counter[Tile]],
    old_kinds: list[set[Kind]],
    old_order: list[tuple[Tile, ...]],
    new: list[Counter[Tile]],
) -> dict[int, tuple[int, Counter[Tile]]]:
    """When candidate bases compete: the choice keeping the most tiles, a small integer program;
    of those, the one breaking the fewest old sets (each kept whole by one new set), then the one
    basing the most new sets on an old set they repeat exactly, then the one
    keeping the most neighbours of an old run together (``old_order``: each old set in its natural
    order). A copy of a tile from the rack can stand in for the table's own, so several choices
    keep as many tiles: a set the answer leaves unchanged is then its own base, untouched by the
    steps, and a split is a plain cut where one will do (``O4 O5 J | O7 O8``, not ``O4 J`` and
    ``O5 O7 O8``)."""
    lp = LinearModel()
    chosen: dict[tuple[int, int], int] = {}
    kept: dict[tuple[int, int, Tile], int] = {}
    for (i, j), common in pairs.items():
        b = chosen[i, j] = lp.var(f"b_{i}_{j}", 1)
        numbered = []
        for t, c in common.items():
            k = kept[i, j, t] = lp.var(f"k_{i}_{j}_{t}", c)
            lp.row(f"keep_{i}_{j}_{t}", [(k, 1), (b, -c)], -INF, 0)
            if not t.is_joker:
                numbered.append((k, 1))
        lp.row(f"numbered_{i}_{j}", [*numbered, (b, -1)], 0, INF)
        if JOKER in common:  # a joker stays only with a kept numbered tile of its set
            lp.row(
                f"joker_{i}_{j}",
                [(kept[i, j, JOKER], 1), *[(k, -common[JOKER]) for k, _ in numbered]],
                -INF,
                0,
            )
    for j in {j for _, j in pairs}:
        lp.row(f"one_base_{j}", [(b, 1) for (_, jj), b in chosen.items() if jj == j], 0, 1)
    for i in {i for i, _ in pairs}:
        if Kind.RUN not in old_kinds[i]:  # a group is not split: the base of one new set at most
            lp.row(f"one_group_{i}", [(b, 1) for (ii, _), b in chosen.items() if ii == i], 0, 1)
        for t, c in old[i].items():
            terms = [(k, 1) for (ii, _, tt), k in kept.items() if ii == i and tt == t]
            if len(terms) > 1:
                lp.row(f"copies_{i}_{t}", terms, 0, c)
    neighbours: list[int] = []
    for (i, j), common in pairs.items():
        if Kind.RUN not in old_kinds[i]:
            continue
        for a, b in zip(old_order[i], old_order[i][1:]):
            if a in common and b in common:
                n = lp.var(f"n_{i}_{j}_{len(neighbours)}", 1)
                lp.row(f"n_{i}_{j}_{len(neighbours)}_a", [(n, 1), (kept[i, j, a], -1)], -INF, 0)
                lp.row(f"n_{i}_{j}_{len(neighbours)}_b", [(n, 1), (kept[i, j, b], -1)], -INF, 0)
                neighbours.append(n)
    kept_whole: Terms = []  # old set i kept whole (as it was, or grown) by new set j
    for i, j in chosen:
        u = lp.var(f"u_{i}_{j}", 1)
        size = sum(old[i].values())
        lp.row(f"u_{i}_{j}", [(u, size), *[(k, -1) for (ii, jj, _), k in kept.items() if (ii, jj) == (i, j)]], -INF, 0)
        kept_whole.append((u, 1))
    tiles = [(k, 1) for k in kept.values()]
    whole = [(b, 1) for (i, j), b in chosen.items() if old[i] == new[j]]
    together = [(n, 1) for n in neighbours]
    w_whole = len(together) + 1
    w_kept_whole = (len(whole) + 1) * w_whole
    w_tiles = (len(kept_whole) + 1) * w_kept_whole
    lp.objective = (
        [(k, w_tiles) for k, _ in tiles]
        + [(u, w_kept_whole) for u, _ in kept_whole]
        + [(b, w_whole) for b, _ in whole]
        + together
    )
    lp.stages = [tiles, kept_whole, whole, together]
    lp.hint = [0] * len(lp.names)
    values = get_backend("bnb")(lp, None).values
    assert values is not None
    out: dict[int, tuple[int, Counter[Tile]]] = {}
    for (i, j), b in chosen.items():
        if values[b]:
            out[j] = (i, Counter({t: values[kept[i, j, t]] for t in pairs[i, j] if values[kept[i, j, t]]}))
    return out


def _keep_standing_jokers(common: Counter[Tile], old: Sequence[Tile], new: Sequence[Tile], rules: RuleSet) -> None:
    """Under strict and locked jokers a joker stays in a set built on its old one only where it
    still stands for its tile (read as written, as the next turn reads it): one that stands for
    another tile there was retrieved, and its retrieval is a step of its own."""
    before, after = table_readings(old, rules), table_readings(new, rules)
    if not before or not after:
        common[JOKER] = 0
    elif before[0].kind is Kind.RUN or after[0].kind is Kind.RUN:
        stood, stands = Counter(before[0].run_jokers), Counter(after[0].run_jokers)
        common[JOKER] = min(common[JOKER], sum((stood & stands).values()))
    common += Counter()  # no joker kept: none left in the counter


def _kinds(tiles: Sequence[Tile], rules: RuleSet) -> set[Kind]:
    """What a set may be declared as: a run, a group, or (one numbered tile and jokers) either."""
    return {r.kind for r in readings(tiles, rules)}


def _joined(parts: list[list[Tile]], rules: RuleSet) -> list[list[Tile]]:
    """Runs built on one old run, joined where they touch: a split nobody needs is no split."""
    parts = [p for p in parts if p]
    joined = True
    while joined:
        joined = False
        for a, b in combinations(range(len(parts)), 2):
            if best_reading(parts[a] + parts[b], rules) is not None:
                parts[a] = parts[a] + parts.pop(b)
                joined = True
                break
    return parts


def _ordered(tiles: Sequence[Tile], rules: RuleSet) -> tuple[Tile, ...]:
    reading = best_reading(tiles, rules)
    return reading.tiles if reading is not None else tuple(sorted(tiles))


@dataclass
class _Runs:
    """One flow of runs of one colour: starts, mature runs, jokers, tiles used per number."""

    colour: int
    starts: dict[int, int] = field(default_factory=dict)  # position -> s
    mature: dict[int, int] = field(default_factory=dict)  # position -> u
    jokers: dict[int, int] = field(default_factory=dict)  # number -> j
    cover: dict[int, Terms] = field(default_factory=dict)  # number -> runs covering it


@dataclass
class _Groups:
    """Groups of every number: how many, and the tiles of each colour in them."""

    count: dict[int, int] = field(default_factory=dict)  # number -> G
    use: dict[tuple[int, int], int] = field(default_factory=dict)  # (colour, number) -> w
    jokers: dict[tuple[int, int], int] = field(default_factory=dict)  # (colour, number) -> j


@dataclass
class _OldGroup:
    number: int
    exists: int
    use: dict[int, int]  # colour -> w (0 or 1)
    jokers: int


class _Model:
    """The least-moves integer program for one position (see the module docstring)."""

    def __init__(self, rules: RuleSet, table: list[list[Tile]], played: Counter[Tile]) -> None:
        self.rules = rules
        self.table = table
        self.available: Counter[Tile] = Counter(t for s in table for t in s) + played
        self.jokers = self.available[JOKER]
        self.last = places(rules)
        self.lp = LinearModel()
        self.use: dict[Tile, Terms] = {t: [] for t in self.available}
        self.kept: Terms = []
        self.same: dict[int, int] = {}  # old set -> "stays exactly as it was"
        self.whole: Terms = []  # "old set i stays whole (as it was, or only grown)", one per way
        self.free_runs = [self._runs("f", c) for c in range(rules.colours)]
        self.free_groups = self._groups()
        self.old_runs: dict[int, list[_Runs]] = {}  # old run -> its flows (the last ones keep jokers)
        self.old_groups: dict[int, _OldGroup] = {}
        for i, old in enumerate(table):
            self._old_set(i, old)
        self._finish()

    # -- building -------------------------------------------------------------------------
    def _has(self, colour: int, number: int) -> bool:
        return self.available[tile(colour, number)] > 0

    def _runs(self, prefix: str, colour: int, single: bool = False) -> _Runs:
        """Runs of one colour as a flow (single: at most one run)."""
        lp, m, last = self.lp, self.rules.min_set_size, self.last
        most = 1 if single else self.rules.copies + self.rules.jokers
        real = [False] + [self._has(colour, number_at(p, self.rules)) for p in range(1, last + 1)]
        jokers = self.jokers
        start_upper: dict[int, int] = {}
        for p in range(1, last - m + 2):
            window = real[p : p + m]
            usable = any(window) and window.count(False) <= jokers
            start_upper[p] = most if usable else 0
        mature_upper: dict[int, int] = {}
        reach = False
        for p in range(m, last + 1):
            reach = (real[p] or jokers > 0) and (start_upper[p - m + 1] > 0 or reach)
            mature_upper[p] = most if reach else 0
        flow = add_run_flow(lp, prefix, f"{colour}_", m, start_upper, mature_upper, self.rules.numbers)
        runs = _Runs(colour, flow.starts, flow.mature)
        for p in range(1, last + 1):
            runs.cover.setdefault(number_at(p, self.rules), []).extend((v, 1) for v in flow.covering(p))
        if single:
            lp.row(f"{prefix}single{colour}", [(v, 1) for v in runs.starts.values()], 0, 1)
        for n, cover in runs.cover.items():
            t = tile(colour, n)
            if jokers:
                j = runs.jokers[n] = lp.var(f"{prefix}j{colour}_{n}", min(jokers, most))
                lp.row(f"{prefix}jfill{colour}_{n}", [(j, 1), *[(v, -c) for v, c in cover]], -INF, 0)
                self.use[JOKER].append((j, 1))
            if t in self.use:
                self.use[t] += cover + ([(runs.jokers[n], -1)] if jokers else [])
            elif jokers:  # no such tile: every run covering it holds a joker there
                lp.row(f"{prefix}jonly{colour}_{n}", [*cover, (runs.jokers[n], -1)], 0, 0)
            else:
                for v, _ in cover:
                    lp.upper[v] = 0
        return runs

    def _groups(self) -> _Groups:
        rules, lp, m = self.rules, self.lp, self.rules.min_set_size
        groups = _Groups()
        if not rules.groups_possible:
            return groups
        most = rules.copies + rules.jokers
        for n in range(1, rules.numbers + 1):
            present = sum(self._has(c, n) for c in range(rules.colours))
            upper = (
                (rules.copies * rules.colours + rules.jokers) // m
                if present and present + self.jokers >= m
                else 0
            )
            g = groups.count[n] = lp.var(f"G{n}", upper)
            members: Terms = []
            for c in range(rules.colours):
                t = tile(c, n)
                w = groups.use[c, n] = lp.var(
                    f"w{c}_{n}", most if upper and (t in self.use or self.jokers) else 0
                )
                lp.row(f"colour{c}_{n}", [(w, 1), (g, -1)], -INF, 0)  # a colour once per group
                members.append((w, 1))
                if self.jokers:
                    j = groups.jokers[c, n] = lp.var(f"gj{c}_{n}", self.jokers)
                    lp.row(f"gjfill{c}_{n}", [(j, 1), (w, -1)], -INF, 0)
                    self.use[JOKER].append((j, 1))
                if t in self.use:
                    self.use[t] += [(w, 1)] + ([(groups.jokers[c, n], -1)] if self.jokers else [])
                elif self.jokers:
                    lp.row(f"gjonly{c}_{n}", [(w, 1), (groups.jokers[c, n], -1)], 0, 0)
                else:
                    lp.upper[w] = 0
            lp.row(f"groupmin{n}", [*members, (g, -m)], 0, INF)
            lp.row(f"groupmax{n}", [*members, (g, -rules.colours)], -INF, 0)
        return groups

    def _old_set(self, i: int, old: list[Tile]) -> None:
        same = self.same[i] = self.lp.var(f"same{i}", 1)
        for t, c in Counter(old).items():
            self.use[t].append((same, c))
        self.kept.append((same, len(old)))
        self.whole.append((same, 1))
        kept: dict[Tile, Terms] = {}  # tile of the old set -> variables keeping it somewhere
        kinds = _kinds(old, self.rules)
        if Kind.RUN in kinds:
            self._old_run(i, old, kept)
        if Kind.GROUP in kinds:
            self._old_group(i, old, kept)
        # Each tile of the old set is kept once: set aside with it, or by one set built on it.
        for t, terms in kept.items():
            copies = old.count(t)
            self.lp.row(f"once{i}_{t}", [*terms, (same, copies)], -INF, copies)

    def _old_run(self, i: int, old: list[Tile], kept: dict[Tile, Terms]) -> None:
        """Runs built on old run i: one flow, plus a single-run flow per joker it may keep."""
        lp, rules = self.lp, self.rules
        numbered = [t for t in old if not t.is_joker]
        old_jokers = len(old) - len(numbered)
        colour = numbered[0].colour
        flows = [self._runs(f"o{i}_", colour)]
        flows += [self._runs(f"o{i}j{h}_", colour, single=True) for h in range(old_jokers)]
        self.old_runs[i] = flows
        # No run starting after the old run's last place can keep any of its tiles.
        last_place = max(
            self.last if t.number == 1 and self.last > rules.numbers else t.number for t in numbered
        )
        for h, flow in enumerate(flows):
            mine: Terms = []
            for t in numbered:
                k = lp.var(f"k{i}_{h}_{t}", 1)
                terms = [(k, 1), *[(v, -c) for v, c in flow.cover[t.number]]]
                if flow.jokers:
                    terms.append((flow.jokers[t.number], 1))
                lp.row(f"kept{i}_{h}_{t}", terms, -INF, 0)  # kept where a run holds the tile
                kept.setdefault(t, []).append((k, 1))
                mine.append((k, 1))
                self.kept.append((k, 1))
            # A run here that keeps nothing might as well be free: only runs that keep (fewer choices).
            starts = [(v, 1) for v in flow.starts.values()]
            lp.row(f"useful{i}_{h}", [*starts, *[(k, -1) for k, _ in mine]], -INF, 0)
            for p, v in flow.starts.items():
                if p > last_place:
                    lp.upper[v] = 0
            kj = None
            if h and flow.jokers:  # a joker flow keeps jokers, with a kept numbered tile
                kj = lp.var(f"kj{i}_{h}", old_jokers)
                lp.row(f"keptj{i}_{h}", [(kj, 1), *[(j, -1) for j in flow.jokers.values()]], -INF, 0)
                lp.row(f"keptjn{i}_{h}", [(kj, 1), *[(k, -old_jokers) for k, _ in mine]], -INF, 0)
                self.kept.append((kj, 1))
                kept.setdefault(JOKER, []).append((kj, 1))
            if old_jokers and kj is None:
                continue  # the jokers stay only in the joker flows: the old run cannot stay whole here
            # Whole here: one run of this flow keeps every tile of the old run.
            whole = lp.var(f"whole{i}_{h}", 1)
            for k, _ in mine:
                lp.row(f"wholek{i}_{h}_{k}", [(whole, 1), (k, -1)], -INF, 0)
            if kj is not None:
                lp.row(f"wholej{i}_{h}", [(whole, old_jokers), (kj, -1)], -INF, 0)
            most = sum(lp.upper[v] for v in flow.starts.values())
            lp.row(f"wholeone{i}_{h}", [*starts, (whole, most)], -INF, most + 1)
            self.whole.append((whole, 1))

    def _old_group(self, i: int, old: list[Tile], kept: dict[Tile, Terms]) -> None:
        """The one group built on old group i: which colours, how many jokers, what it keeps."""
        lp, rules = self.lp, self.rules
        numbered = [t for t in old if not t.is_joker]
        old_jokers = len(old) - len(numbered)
        number = numbered[0].number
        exists = lp.var(f"og{i}", 1)
        lp.row(f"ogaside{i}", [(exists, 1), (self.same[i], 1)], -INF, 1)
        use: dict[int, int] = {}
        members: Terms = []
        mine: Terms = []
        for c in range(rules.colours):
            t = tile(c, number)
            if t not in self.use:
                continue
            w = use[c] = lp.var(f"ow{i}_{c}", 1)
            lp.row(f"owg{i}_{c}", [(w, 1), (exists, -1)], -INF, 0)
            self.use[t].append((w, 1))
            members.append((w, 1))
            if t in numbered:
                k = lp.var(f"k{i}_{t}", 1)
                lp.row(f"kept{i}_{t}", [(k, 1), (w, -1)], -INF, 0)
                kept.setdefault(t, []).append((k, 1))
                mine.append((k, 1))
                self.kept.append((k, 1))
        jokers = lp.var(f"oj{i}", min(self.jokers, rules.colours - 1))
        if self.jokers:
            self.use[JOKER].append((jokers, 1))
        members.append((jokers, 1))
        lp.row(f"ogmin{i}", [*members, (exists, -rules.min_set_size)], 0, INF)
        lp.row(f"ogmax{i}", [*members, (exists, -rules.colours)], -INF, 0)
        whole = lp.var(f"owhole{i}", 1)  # the group built on it keeps every tile
        for k, _ in mine:
            lp.row(f"owholek{i}_{k}", [(whole, 1), (k, -1)], -INF, 0)
        if old_jokers:
            kj = lp.var(f"kj{i}", old_jokers)
            lp.row(f"keptj{i}", [(kj, 1), (jokers, -1)], -INF, 0)
            lp.row(f"keptjn{i}", [(kj, 1), *[(k, -old_jokers) for k, _ in mine]], -INF, 0)
            kept.setdefault(JOKER, []).append((kj, 1))
            self.kept.append((kj, 1))
            lp.row(f"owholej{i}", [(whole, old_jokers), (kj, -1)], -INF, 0)
        self.whole.append((whole, 1))
        self.old_groups[i] = _OldGroup(number, exists, use, jokers)

    def _finish(self) -> None:
        lp = self.lp
        # Every tile of the old table and every played tile ends in exactly one set.
        for t, terms in self.use.items():
            lp.row(f"tile_{t}", terms, self.available[t], self.available[t])
        same = [(v, 1) for v in self.same.values()]
        # Lexicographic: most tiles unmoved, then fewest old sets broken (most left whole: a
        # person's work, as puzzles measure it), then most old sets left exactly as they were.
        n = len(same)
        w_whole = n + 1
        w_kept = (n + 1) ** 2
        lp.objective = [(v, w_kept * c) for v, c in self.kept] + [(v, w_whole) for v, _ in self.whole] + same
        lp.objective_bound = w_kept * sum(len(s) for s in self.table) + w_whole * n + n
        lp.stages = [list(self.kept), list(self.whole), same]

    # -- the answer as a start, and decoding -----------------------------------------------
    def encode(self, after: Sets) -> list[int]:
        """The answer as values: old sets left as they were set aside, every other set free."""
        values = [0] * len(self.lp.names)
        kept = unchanged(self.table, after)
        for i in kept:
            values[self.same[i]] = 1
        rest = Counter(tuple(sorted(s)) for s in after) - Counter(tuple(sorted(self.table[i])) for i in kept)
        m = self.rules.min_set_size
        for key in rest.elements():
            reading = best_reading(key, self.rules)
            assert reading is not None, "the answer holds an invalid set"
            if reading.kind is Kind.RUN:
                runs = self.free_runs[reading.stands_for[0].colour]
                first = reading.stands_for[0].number
                positions = range(first, first + len(key))  # american: 13 then 14 (the 1)
                values[runs.starts[first]] += 1
                for p in positions[m - 1 :]:
                    values[runs.mature[p]] += 1
                for shown, meant in zip(reading.tiles, reading.stands_for):
                    if shown.is_joker:
                        values[runs.jokers[meant.number]] += 1
            else:
                n = reading.stands_for[0].number
                values[self.free_groups.count[n]] += 1
                for shown, meant in zip(reading.tiles, reading.stands_for):
                    values[self.free_groups.use[meant.colour, n]] += 1
                    if shown.is_joker:
                        values[self.free_groups.jokers[meant.colour, n]] += 1
        return values

    def decode(self, values: Sequence[int]) -> list[list[Tile]]:
        sets: list[list[Tile]] = [list(self.table[i]) for i, v in self.same.items() if values[v]]
        run_slots: _Slots = {}
        sets += self._decode_runs(self.free_runs, values, run_slots)
        self._place_jokers(run_slots, values, self.free_runs, None)
        group_slots: _Slots = {}
        sets += self._decode_groups(values, group_slots)
        self._place_jokers(group_slots, values, [], self.free_groups)
        for flows in self.old_runs.values():
            parts: list[list[Tile]] = []
            for flow in flows:
                own: _Slots = {}
                parts += self._decode_runs([flow], values, own)
                self._place_jokers(own, values, [flow], None)
            sets += _joined(parts, self.rules)
        for group in self.old_groups.values():
            if values[group.exists]:
                members = [tile(c, group.number) for c, w in group.use.items() if values[w]]
                sets.append(members + [JOKER] * values[group.jokers])
        return sets

    def _decode_runs(self, flows: list[_Runs], values: Sequence[int], slots: _Slots) -> list[list[Tile]]:
        m, last = self.rules.min_set_size, self.last
        sets: list[list[Tile]] = []
        for flow in flows:
            c = flow.colour
            active: list[list[int]] = []
            ended: list[list[int]] = []
            for p in range(1, last + 1):
                young = [run for run in active if len(run) < m]
                grown = sorted((run for run in active if len(run) >= m), key=len)
                reaching = values[flow.starts[p - m + 1]] if p - m + 1 in flow.starts else 0
                going_on = values[flow.mature[p]] - reaching if p in flow.mature else 0
                ended += grown[going_on:]
                starting = values[flow.starts[p]] if p in flow.starts else 0
                active = young + grown[:going_on] + [[] for _ in range(starting)]
                for run in active:
                    run.append(p)
            ended += active
            for run in ended:
                owner = [tile(c, number_at(p, self.rules)) for p in run]
                for i, p in enumerate(run):
                    slots.setdefault((c, number_at(p, self.rules)), []).append((owner, i))
                sets.append(owner)
        return sets

    def _decode_groups(self, values: Sequence[int], slots: _Slots) -> list[list[Tile]]:
        sets: list[list[Tile]] = []
        for n, g in self.free_groups.count.items():
            count = values[g]
            if not count:
                continue
            members: list[list[Tile]] = [[] for _ in range(count)]
            dealt = 0
            for c in range(self.rules.colours):
                for _ in range(values[self.free_groups.use[c, n]]):
                    members[dealt % count].append(tile(c, n))  # round robin: no colour twice
                    dealt += 1
            for group in members:
                for i, t in enumerate(group):
                    slots.setdefault((t.colour, n), []).append((group, i))
                sets.append(group)
        return sets

    @staticmethod
    def _place_jokers(
        slots: _Slots,
        values: Sequence[int],
        flows: list[_Runs],
        groups: _Groups | None,
    ) -> None:
        """Each slot holds as many jokers as the flows say; the rest hold the numbered tile."""
        for (c, n), owners in slots.items():
            jokers = sum(values[f.jokers[n]] for f in flows if f.colour == c and n in f.jokers)
            if groups is not None and (c, n) in groups.jokers:
                jokers += values[groups.jokers[c, n]]
            for owner, i in owners[:jokers]:
                owner[i] = JOKER
