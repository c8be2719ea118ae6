"""The least-moves integer program (``solver.least_moves``): the old table plus the tiles an
answer plays, arranged into valid sets that keep the most table tiles where they were.

In the style of the flow formulation (runs as flows over the numbers, groups as colour counts):

- a flow of *free* sets (built on no old set): every colour's runs, groups, jokers;
- per old run, a flow of runs of its colour: the runs built on it. Each holds variables ``k`` for
  the old run's numbered tiles it keeps. A run of that flow keeping nothing is simply a free run;
  jokers kept stay in one more single-run flow per joker of the old run, next to a kept tile;
- per old group, one group of its number, with ``k`` for the tiles it keeps;
- per old set, ``same``: the set stays exactly as it was (set aside whole).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

from solver.lp import INF, LinearModel
from solver.melds import Kind, best_reading, readings
from solver.model.run_flow import add_run_flow, number_at, places
from solver.rules import RuleSet
from solver.solution import unchanged
from solver.tiles import JOKER, Tile, tile

Sets = Sequence[Sequence[Tile]]
Terms = list[tuple[int, int]]
_Slots = dict[tuple[int, int], list[tuple[list[Tile], int]]]  # (colour, number) -> places in sets


def set_kinds(tiles: Sequence[Tile], rules: RuleSet) -> set[Kind]:
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


class RearrangementModel:
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
        kinds = set_kinds(old, self.rules)
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
