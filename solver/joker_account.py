"""Judging a move under the strict and locked joker rules: what happened to each table joker.

A move is legal for the table jokers if there is an *account* of it: every table joker either
still declares its tile (a role of ``solver.jokers``) somewhere on the new table, or was
*retrieved*: a real tile it stood for is on the new table in its stead and the joker itself lies
in a set that (official retrieval) holds at least two tiles from the player's rack. Under the
locked rules, each table set with a joker that was not retrieved must also reappear whole, grown
at most, in a set of its own. Tiles of one kind are interchangeable, so the account is a matching
over the few jokers involved, found by plain search. This module is the validator's (no solver).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from solver.jokers import Role, TableReading, assignments, numbered, table_readings
from solver.melds import is_valid
from solver.position import Position
from solver.rules import JokerRules, Retrieval
from solver.tiles import JOKER, Tile, format_tiles

RETRIEVED = -1  # a role's slot when its joker was retrieved


@dataclass(frozen=True, slots=True)
class Retrieved:
    """One retrieved joker: the table set it stood in (1-based), its role and the tile replacing it."""

    table_set: int
    role: Role
    tile: Tile
    new_set: int  # the set (1-based, in the new table) the joker went to

    def __str__(self) -> str:
        return f"the joker of table set {self.table_set} retrieved by {self.tile}"


@dataclass(frozen=True, slots=True)
class JokerAccount:
    """What became of every table joker: retrieved ones listed, the rest kept their tiles."""

    retrieved: tuple[Retrieved, ...]


@dataclass(frozen=True, slots=True)
class JokerProblem:
    code: str
    message: str
    tiles: tuple[Tile, ...]


def account(position: Position, new_table: Sequence[Sequence[Tile]]) -> JokerAccount | None:
    """An account of the move under the position's joker rules, or None if none exists.

    Free rules (and tables without jokers) always have the empty account.
    """
    if position.rules.joker_rules is JokerRules.FREE:
        return JokerAccount(())
    return _Search(position, new_table).run(hosting=True, locks=True)


def joker_problems(position: Position, new_table: Sequence[Sequence[Tile]]) -> list[JokerProblem]:
    """Why no account exists (empty if one does), most basic reason first."""
    rules = position.rules
    if rules.joker_rules is JokerRules.FREE or not any(t.is_joker for s in position.table for t in s):
        return []
    if not all(is_valid(s, rules) for s in new_table):
        return []  # invalid sets are reported on their own; jokers can't be read in them
    search = _Search(position, new_table)
    if search.run(hosting=True, locks=True) is not None:
        return []
    if search.run(hosting=False, locks=False) is None:
        return [search.moved_problem()]
    if search.run(hosting=True, locks=False) is None:
        return [search.hosting_problem()]
    return [search.locked_problem()]


class _Search:
    def __init__(self, position: Position, new_table: Sequence[Sequence[Tile]]) -> None:
        self.position = position
        self.rules = position.rules
        self.new_table = [list(s) for s in new_table]
        # Table sets with jokers, 1-based, with their readings.
        self.before = [
            (i, s, table_readings(s, self.rules)) for i, s in enumerate(position.table, 1) if JOKER in s
        ]
        self.after_sets = [i for i, s in enumerate(self.new_table) if JOKER in s]
        after = Counter(t for s in self.new_table for t in s)
        self.real_after = Counter({t: n for t, n in after.items() if not t.is_joker})
        self.played = after - position.table_tiles

    def run(self, hosting: bool, locks: bool) -> JokerAccount | None:
        official = self.rules.joker_retrieval is Retrieval.OFFICIAL
        locked = self.rules.joker_rules is JokerRules.LOCKED
        for readings in product(*(r for _, _, r in self.before)):
            roles = [(k, role) for k, reading in enumerate(readings) for role in reading.roles]
            for declared in product(*(assignments(self.new_table[i], self.rules) for i in self.after_sets)):
                slots = [(i, t) for i, d in zip(self.after_sets, declared) for t in d]
                for choice in self._choices(roles, slots):
                    if locks and locked and not self._locks_hold(readings, roles, slots, choice):
                        continue
                    found = self._retrievals(roles, slots, choice, hosting and official)
                    if found is not None:
                        return JokerAccount(found)
        return None

    def _choices(
        self, roles: list[tuple[int, Role]], slots: list[tuple[int, Tile]]
    ) -> Iterator[list[tuple[int, Tile]]]:
        """Each role: a slot (index) declaring one of its tiles, or RETRIEVED by one of its tiles,
        with retrieval tiles no more than the real tiles of that kind on the new table."""
        choice: list[tuple[int, Tile]] = []
        used: set[int] = set()
        replacing: Counter[Tile] = Counter()

        def extend(k: int) -> Iterator[list[tuple[int, Tile]]]:
            if k == len(roles):
                yield list(choice)
                return
            owner, role = roles[k]
            options = role.options
            core = set(numbered(self.before[owner][1]))
            for j, (i, t) in enumerate(slots):
                # It stays in its own set: one still holding a numbered tile of the set it was in.
                if j not in used and t in options and core & set(self.new_table[i]):
                    used.add(j)
                    choice.append((j, t))
                    yield from extend(k + 1)
                    choice.pop()
                    used.discard(j)
            for t in options:
                if replacing[t] < self.real_after[t]:
                    replacing[t] += 1
                    choice.append((RETRIEVED, t))
                    yield from extend(k + 1)
                    choice.pop()
                    replacing[t] -= 1

        yield from extend(0)

    def _locks_hold(
        self,
        readings: tuple[TableReading, ...],
        roles: list[tuple[int, Role]],
        slots: list[tuple[int, Tile]],
        choice: list[tuple[int, Tile]],
    ) -> bool:
        """Every locked set (no joker of it retrieved) lies whole, with its jokers, in a set of its own."""
        homes: set[int] = set()
        for k, (_, written, _) in enumerate(self.before):
            mine = [c for (owner, _), c in zip(roles, choice) if owner == k]
            if any(j == RETRIEVED for j, _ in mine):
                continue
            places = {slots[j][0] for j, _ in mine}
            if len(places) != 1:
                return False
            home = places.pop()
            if home in homes or numbered(written) - numbered(self.new_table[home]):
                return False
            homes.add(home)
        return True

    def _retrievals(
        self,
        roles: list[tuple[int, Role]],
        slots: list[tuple[int, Tile]],
        choice: list[tuple[int, Tile]],
        hosting: bool,
    ) -> tuple[Retrieved, ...] | None:
        """Place the retrieved jokers in the slots left free; with official retrieval each set
        receiving one needs two rack tiles (numbered tiles played, or jokers from the rack)."""
        taken = {j for j, _ in choice if j != RETRIEVED}
        free = [j for j in range(len(slots)) if j not in taken]
        retrieved = [(k, c) for k, c in enumerate(choice) if c[0] == RETRIEVED]
        if not retrieved:
            return ()
        for places in combinations(free, len(retrieved)):
            if hosting and not self._hosts_ok([slots[j][0] for j in places], free, places, slots):
                continue
            return tuple(
                Retrieved(self.before[roles[k][0]][0], roles[k][1], t, slots[j][0] + 1)
                for (k, (_, t)), j in zip(retrieved, places)
            )
        return None

    def _hosts_ok(
        self, hosts: list[int], free: list[int], places: tuple[int, ...], slots: list[tuple[int, Tile]]
    ) -> bool:
        """Each host set gets two rack tiles of its own: distinct played numbered tiles in it, or
        its other free joker slots filled from the rack, within what the player laid."""
        host_sets = sorted(set(hosts))
        spare_jokers = {i: sum(1 for j in free if j not in places and slots[j][0] == i) for i in host_sets}
        stock = Counter(self.played)

        def give(h: int) -> bool:
            if h == len(host_sets):
                return True
            i = host_sets[h]
            options = [t for t in numbered(self.new_table[i]) if stock[t] > 0]
            options += [JOKER] * min(spare_jokers[i], stock[JOKER])
            for pair in set(combinations(options, 2)):
                need = Counter(pair)
                if all(stock[t] >= n for t, n in need.items()):
                    stock.subtract(need)
                    if give(h + 1):
                        return True
                    stock.update(need)
            return False

        return give(0)

    # Diagnoses: which rule fails, in words a player can act on.

    def moved_problem(self) -> JokerProblem:
        lost: list[tuple[int, Role]] = []
        for i, written, readings in self.before:
            core = set(numbered(written))
            declared = {
                t
                for j in self.after_sets
                if core & set(self.new_table[j])
                for d in assignments(self.new_table[j], self.rules)
                for t in d
            }
            for role in readings[0].roles:
                if not (set(role.options) & declared) and not any(self.real_after[t] for t in role.options):
                    lost.append((i, role))
        if not lost:
            i, _, readings = self.before[0]
            lost = [(i, r) for r in readings[0].roles]
            what = ", ".join(f"{r} (table set {i})" for i, r in lost)
            return JokerProblem(
                "joker_moved",
                f"the table jokers standing for {what} cannot all keep their tiles or be replaced by them",
                (JOKER,),
            )
        i, role = lost[0]
        tiles = " or ".join(str(t) for t in role.options)
        return JokerProblem(
            "joker_moved",
            f"joker standing for {role} (table set {i}) moved without being replaced by {tiles}",
            (JOKER, *role.options),
        )

    def hosting_problem(self) -> JokerProblem:
        best = 0
        for i in self.after_sets:
            mine = sum(min(n, self.played[t]) for t, n in numbered(self.new_table[i]).items())
            best = max(best, min(mine, 2))
        rack = "one rack tile" if best == 1 else "no rack tile"  # best < 2, or hosting would work
        return JokerProblem(
            "joker_retrieval",
            f"retrieved joker played with only {rack} in its new set"
            " (official retrieval: a new set with at least two tiles from the rack)",
            (JOKER,),
        )

    def locked_problem(self) -> JokerProblem:
        for i, written, _ in self.before:
            best: Counter[Tile] | None = None
            for s in self.new_table:
                if JOKER in s:
                    gone = numbered(written) - numbered(s)
                    if best is None or sum(gone.values()) < sum(best.values()):
                        best = gone
            if best:
                tiles = tuple(sorted(best.elements()))
                return JokerProblem(
                    "locked_set_broken",
                    f"table set {i} '{format_tiles(written)}' holds a joker and may only grow until it is"
                    f" retrieved (joker-rules=locked): {format_tiles(tiles)} left it",
                    tiles,
                )
        return JokerProblem(
            "locked_set_broken",
            "a table set holding a joker was split or merged (joker-rules=locked: it may only grow"
            " until its joker is retrieved)",
            (JOKER,),
        )
