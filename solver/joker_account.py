"""Judging a move under the strict and locked joker rules: what happened to each table joker.

A move is legal for the table jokers if there is an *account* of it. Tiles are physical: every
numbered tile of a table set with jokers (its *own* tiles) ends in one set of the new table, and
the player may say which copy of a kind is which (copies of one kind are interchangeable), so an
account also says where each own tile went. Then every table joker, under one reading of its set
(``solver.jokers``), either

- *stays*: it lies in a set that still holds one of its set's own tiles and declares there a tile
  of its role (its set, extended, split or rebuilt around it); or
- is *retrieved*: a real tile of its role is on the new table in its stead (one such tile per
  retrieved joker), and the joker lies in *another* set, one holding none of its set's own tiles
  (never back into the set it left, extended or not), which under official retrieval holds at least
  two tiles from the player's rack (played numbered tiles, or jokers from the rack).

The jokers of a set read as a group stand for distinct colours, kept or retrieved. Under the
locked rules a table set none of whose jokers was retrieved lies whole, with its jokers, in one
set, and no two such sets in the same one (it may grow, not split or merge with another locked
set), and a tile retrieving a joker comes from the rack, a set without jokers, or a set one of
whose jokers was retrieved before it lends (``_lent_in_order``). The jokers involved are few, so
the account is found by plain search: where each table
joker went, then where each own tile and each rack tile a host needs went (a small matching per
kind). This module is the validator's (no solver).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, combinations, product

from solver.jokers import Role, assignments, numbered, run_declaring, table_readings, written_assignments
from solver.melds import Kind, is_valid
from solver.position import Position
from solver.rules import JokerRules, Retrieval
from solver.tiles import JOKER, Tile, format_tiles


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
    # What the jokers of each set after the move stand for in this account: (its index from 0,
    # the tiles, sorted). A set written so as to say otherwise would mean another move.
    declared: tuple[tuple[int, tuple[Tile, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class JokerProblem:
    code: str
    message: str
    tiles: tuple[Tile, ...]
    sets: tuple[int, ...] = ()  # the sets after the move it is about, where known (indices from 0)


def account(position: Position, new_table: Sequence[Sequence[Tile]]) -> JokerAccount | None:
    """An account of the move under the position's joker rules, or None if none exists.

    Free rules (and tables without jokers) always have the empty account.
    """
    if position.rules.joker_rules is JokerRules.FREE:
        return JokerAccount(())
    return _Search(position, new_table).run()


def written_problems(position: Position, new_table: Sequence[Sequence[Tile]]) -> list[JokerProblem]:
    """For a legal move written by a player: the sets whose written order makes a joker stand for
    another tile than the move needs (``R4 R5 R6 R7 J`` keeping the R3 of ``J R4 R5 R6``: as written
    the joker is R8, and the next turn reads it so). Empty when the move may stand as written."""
    rules = position.rules
    if not _judged(position):
        return []
    search = _Search(position, new_table)
    story = search.run()
    if story is None or search.run(written=frozenset(search.after_sets)) is not None:
        return []
    needed = dict(story.declared)
    out = []
    for j in search.after_sets:
        if search.run(written=frozenset({j})) is None:
            written = search.new_table[j]
            said = [r for r in table_readings(written, rules) if r.kind is Kind.RUN]
            as_written = format_tiles(said[0].run_jokers) if said else "another tile"
            run = run_declaring(written, needed[j], rules)
            how = f": write it {format_tiles(run.tiles)}" if run else ""
            out.append(
                JokerProblem(
                    "joker_written",
                    f"set {j + 1} '{format_tiles(written)}' as written has its joker stand for {as_written},"
                    f" not {format_tiles(needed[j])} as the move needs (a joker stands where it is written){how}",
                    (JOKER,),
                    (j,),
                )
            )
    return out or [
        JokerProblem(
            "joker_written",
            "the sets' written order makes their jokers stand for other tiles than the move needs",
            (JOKER,),
        )
    ]


def joker_problems(position: Position, new_table: Sequence[Sequence[Tile]]) -> list[JokerProblem]:
    """Why no account exists (empty if one does): every table joker moved without its tile, one
    by one, and the most basic rule the other table sets' jokers break (see ``_Search.diagnosis``).

    A joker in an invalid set stands for nothing yet: it is taken to stand for whatever would let
    the move pass, so that only what holds however the set is mended is said.
    """
    if not _judged(position):
        return []
    return _Search(position, new_table, unread=True).diagnosis()


def has_account(position: Position, new_table: Sequence[Sequence[Tile]]) -> bool:
    """Whether ``joker_problems`` finds nothing, told by the one search for an account (the
    diagnosis of a move without one runs several more)."""
    return not _judged(position) or _Search(position, new_table, unread=True).run() is not None


def _judged(position: Position) -> bool:
    """Whether the joker rules judge a move here at all: strict or locked, jokers on the table."""
    return position.rules.joker_rules is not JokerRules.FREE and any(JOKER in s for s in position.table)


class _Search:
    def __init__(self, position: Position, new_table: Sequence[Sequence[Tile]], unread: bool = False) -> None:
        """``unread``: the jokers of invalid sets may stand for any tile (otherwise such a set has
        no reading and no account exists)."""
        self.position = position
        self.rules = position.rules
        self.new_table = [list(s) for s in new_table]
        # Table sets with jokers, 1-based, with their readings and own (numbered) tiles.
        self.before = [
            (i, s, table_readings(s, self.rules)) for i, s in enumerate(position.table, 1) if JOKER in s
        ]
        self.own = [numbered(s) for _, s, _ in self.before]
        self.after_sets = [i for i, s in enumerate(self.new_table) if JOKER in s]
        self.unread = {i for i in self.after_sets if unread and not is_valid(self.new_table[i], self.rules)}
        self.kinds = [numbered(s) for s in self.new_table]
        self.own_kinds = {t for own in self.own for t in own}
        # Per new set, its jokers: each is one slot of whatever its jokers are declared to be.
        self.jokers_in = [s.count(JOKER) for s in self.new_table]
        after = Counter(chain.from_iterable(self.new_table))
        self.real_after = after.copy()
        del self.real_after[JOKER]
        self.played = after - position.table_tiles
        self.holding: dict[Tile, list[int]] = {}  # kind -> the new sets holding it
        for i, kinds in enumerate(self.kinds):
            for t in kinds:
                self.holding.setdefault(t, []).append(i)

    @cached_property
    def rack_kinds(self) -> list[list[Tile]]:
        """Per new set, its kinds of which tiles were played (a host's rack tiles are of these)."""
        return [[t for t in kinds if self.played[t]] for kinds in self.kinds]

    @cached_property
    def at_hand(self) -> Counter[Tile]:
        """Tiles any retrieval may take (locked jokers): the rack's and those of sets without jokers."""
        return self.played + Counter(chain.from_iterable(s for s in self.position.table if JOKER not in s))

    def run(
        self,
        another: bool = True,
        hosting: bool = True,
        locks: bool = True,
        written: frozenset[int] = frozenset(),
        lending: bool = True,
        spared: frozenset[int] = frozenset(),
    ) -> JokerAccount | None:
        """An account, or None. The flags drop rules, to find which one a move breaks:
        ``another`` (a retrieved joker goes into another set), ``hosting`` (official retrieval's
        two rack tiles), ``locks`` (locked sets only grow), ``lending`` (locked: a set lends a
        retrieving tile only once unlocked). ``written``: the sets after the move whose jokers
        stand for what their written order says (an answer as a player writes it). ``spared``:
        table sets (indices into ``before``) whose jokers are judged no further (already said to
        break a rule): they may lie anywhere, and their own tiles are any set's to lend."""
        hosting = hosting and self.rules.joker_retrieval is Retrieval.OFFICIAL
        locks = locks and self.rules.joker_rules is JokerRules.LOCKED
        options = [self._declarations(i, i in written) for i in self.after_sets]
        for readings in product(*(r[:1] if k in spared else r for k, (_, _, r) in enumerate(self.before))):
            roles = [(k, role) for k, reading in enumerate(readings) if k not in spared for role in reading.roles]
            groups = {k for k, reading in enumerate(readings) if reading.kind is Kind.GROUP}
            for declared in product(*options):
                slots = [(i, t) for i, d in zip(self.after_sets, declared) for t in d]
                for fate in self._fates(roles, slots, groups):
                    if self._holds(roles, slots, fate, another, hosting, locks, lending, spared):
                        return JokerAccount(
                            tuple(
                                Retrieved(self.before[owner][0], role, t, slots[j][0] + 1)
                                for (owner, role), (j, t, stays) in zip(roles, fate)
                                if not stays
                            ),
                            tuple(
                                (i, tuple(t for t in d if t is not None))
                                for i, d in zip(self.after_sets, declared)
                                if i not in self.unread  # an unread set declares nothing yet
                            ),
                        )
        return None

    def _declarations(self, i: int, written: bool) -> tuple[tuple[Tile | None, ...], ...]:
        """What the jokers of set ``i`` after the move may stand for; None: any tile (an unread set)."""
        if i in self.unread:
            return ((None,) * self.new_table[i].count(JOKER),)
        return (written_assignments if written else assignments)(self.new_table[i], self.rules)

    def _fates(
        self, roles: list[tuple[int, Role]], slots: list[tuple[int, Tile | None]], groups: set[int]
    ) -> Iterator[list[tuple[int, Tile, bool]]]:
        """Each role: the joker slot it lies in, and its tile: the one it declares there (it
        stays) or the real tile retrieving it. Staying is tried first; retrieving tiles are no
        more than the real tiles of that kind on the new table; a group's jokers take distinct
        tiles."""
        fate: list[tuple[int, Tile, bool]] = []
        used: set[int] = set()
        replacing: Counter[Tile] = Counter()
        taken: set[tuple[int, Tile]] = set()  # (group owner, tile) already stood for

        def extend(k: int) -> Iterator[list[tuple[int, Tile, bool]]]:
            if k == len(roles):
                yield list(fate)
                return
            owner, role = roles[k]
            for t in role.options:
                if owner in groups and (owner, t) in taken:
                    continue
                mark = {(owner, t)} if owner in groups else set()
                taken.update(mark)
                for j, (_, declared) in enumerate(slots):
                    if j not in used and declared in (t, None):
                        used.add(j)
                        fate.append((j, t, True))
                        yield from extend(k + 1)
                        fate.pop()
                        used.discard(j)
                if replacing[t] < self.real_after[t]:
                    replacing[t] += 1
                    for j in range(len(slots)):
                        if j not in used:
                            used.add(j)
                            fate.append((j, t, False))
                            yield from extend(k + 1)
                            fate.pop()
                            used.discard(j)
                    replacing[t] -= 1
                taken.difference_update(mark)

        yield from extend(0)

    def _holds(
        self,
        roles: list[tuple[int, Role]],
        slots: list[tuple[int, Tile | None]],
        fate: list[tuple[int, Tile, bool]],
        another: bool,
        hosting: bool,
        locks: bool,
        lending: bool = True,
        spared: frozenset[int] = frozenset(),
    ) -> bool:
        """Whether the own tiles and the rack tiles can be placed so that the fate holds: each
        staying joker beside an own tile of its set, each retrieved one in a set without any (if
        ``another``) and with two rack tiles (if ``hosting``), each locked set whole in a set of
        its own (if ``locks``)."""
        count = len(self.before)
        homes: list[set[int]] = [set() for _ in range(count)]
        hosts: list[set[int]] = [set() for _ in range(count)]
        table_jokers: dict[int, int] = {}  # new set -> the table jokers in it
        for (owner, _), (j, _, stays) in zip(roles, fate):
            i = slots[j][0]
            (homes if stays else hosts)[owner].add(i)
            table_jokers[i] = table_jokers.get(i, 0) + 1
        pinned: list[dict[Tile, int]] = [{} for _ in range(count)]  # own tile -> the set it must be in
        if locks and lending and not self._lent_in_order(roles, fate, spared):
            return False
        if locks:
            used_homes: set[int] = set()
            for k in range(count):
                if hosts[k] or k in spared:
                    continue  # a joker of it was retrieved: an ordinary set from now on
                if len(homes[k]) != 1:
                    return False
                home = next(iter(homes[k]))
                there = self.kinds[home]
                if home in used_homes or any(n > there[t] for t, n in self.own[k].items()):
                    return False
                used_homes.add(home)
                pinned[k] = {t: home for t in self.own[k]}
        if another and any(homes[k] & hosts[k] for k in range(count)):
            return False
        needs: dict[int, int] = {}
        if hosting:
            for i in set().union(*hosts):
                needs[i] = max(0, 2 - (self.jokers_in[i] - table_jokers[i]))
        return self._place(homes, hosts if another else [set() for _ in range(count)], pinned, needs)

    def _lent_in_order(
        self, roles: list[tuple[int, Role]], fate: list[tuple[int, Tile, bool]], spared: frozenset[int] = frozenset()
    ) -> bool:
        """Locked: whether the tiles retrieving jokers can be had in some order. A tile comes from
        the rack, a set without jokers, or a set a joker of which was retrieved before it lends
        (a set keeping its jokers lends nothing, not even for a moment). Doing whatever
        retrieval a tile is at hand for only ever frees more tiles, so trying in rounds decides."""
        pending = [(owner, t) for (owner, _), (_, t, stays) in zip(roles, fate) if not stays]
        if not pending:
            return True
        at_hand = self.at_hand.copy()
        unlocked = set(spared)
        for k in spared:
            at_hand.update(self.own[k])
        while pending:
            left = []
            for owner, t in pending:
                if at_hand[t] > 0:
                    at_hand[t] -= 1
                    if owner not in unlocked:
                        unlocked.add(owner)
                        at_hand.update(self.own[owner])
                else:
                    left.append((owner, t))
            if len(left) == len(pending):
                return False
            pending = left
        return True

    def _place(
        self,
        homes: list[set[int]],
        forbidden: list[set[int]],
        pinned: list[dict[Tile, int]],
        needs: dict[int, int],
    ) -> bool:
        """Choose a witness (an own tile) for every home, rack tiles for every host, then check
        kind by kind that the own tiles left fit where they may go."""
        witness_jobs = [(k, i) for k in range(len(homes)) for i in sorted(homes[k]) if not pinned[k]]
        host_jobs = sorted((i, n) for i, n in needs.items() if n)

        def witnesses(w: int) -> bool:
            if w == len(witness_jobs):
                return marks(0, [])
            k, i = witness_jobs[w]
            for t in self.own[k]:
                if t in pinned[k] or not self.kinds[i][t]:
                    continue
                pinned[k][t] = i
                if witnesses(w + 1):
                    pinned[k].pop(t)
                    return True
                pinned[k].pop(t)
            return False

        def marks(h: int, chosen: list[tuple[int, Tile]]) -> bool:
            # (host, kind) at most once each: a host marks distinct kinds, once per job.
            if h == len(host_jobs):
                return self._kinds_fit(forbidden, pinned, chosen)
            i, n = host_jobs[h]
            for pick in combinations(self.rack_kinds[i], n):
                chosen += [(i, t) for t in pick]
                if marks(h + 1, chosen):
                    return True
                del chosen[-n:]
            return False

        return witnesses(0)

    def _kinds_fit(
        self, forbidden: list[set[int]], pinned: list[dict[Tile, int]], marks: list[tuple[int, Tile]]
    ) -> bool:
        """Kind by kind: pinned own tiles and rack tiles within each set's copies and the rack's,
        and every other own tile in some set with a copy to spare that it may go to."""
        kinds = self.own_kinds | {t for _, t in marks}
        for t in kinds:
            room = {i: self.kinds[i][t] for i in self.holding.get(t, [])}
            rack = 0
            for i, mark in marks:
                if mark == t:
                    room[i] = room.get(i, 0) - 1
                    rack += 1
            if rack > self.played[t]:
                return False
            free: list[int] = []
            for k, own in enumerate(self.own):
                if not own[t]:
                    continue
                if t in pinned[k]:
                    room[pinned[k][t]] = room.get(pinned[k][t], 0) - 1
                else:
                    free.append(k)
            if any(n < 0 for n in room.values()) or not _matches(free, room, forbidden):
                return False
        return True

    # Diagnoses: which rule fails, in words a player can act on.

    def diagnosis(self) -> list[JokerProblem]:
        """Why no account exists (empty if there is one): the jokers moved without their tiles,
        one by one, and then the most basic rule the other table sets' jokers break (the rules
        dropped one by one, the last first)."""
        if self.run() is not None:
            return []
        if self.run(another=False, hosting=False, locks=False) is not None:
            return self.next_rule(frozenset())
        moved, spared = self.moved_problems()
        if spared and self.run(spared=spared) is None:
            moved += self.next_rule(spared)
        return moved

    def next_rule(self, spared: frozenset[int]) -> list[JokerProblem]:
        """The most basic rule the jokers of the table sets not ``spared`` break, where each of
        them keeps its tile or is replaced by it (empty where not even that holds)."""
        if self.run(another=False, hosting=False, locks=False, spared=spared) is None:
            return []
        if self.run(hosting=False, locks=False, spared=spared) is None:
            return [self.returned_problem(spared)]
        if self.run(locks=False, spared=spared) is None:
            return [self.hosting_problem()]
        if self.run(lending=False, spared=spared) is not None:
            return [self.lending_problem()]
        return [self.locked_problem(spared)]

    def moved_problems(self) -> tuple[list[JokerProblem], frozenset[int]]:
        """Each table joker that neither keeps its tile nor has it on the table: one problem per
        role (jokers of one group standing for the same colours together); and the table sets
        (indices into ``before``) those jokers came from."""
        lost: Counter[tuple[int, Role]] = Counter()
        for i, written, readings in self.before:
            core = set(numbered(written))
            homes = [j for j in self.after_sets if core & set(self.new_table[j])]
            declared = {t for j in homes for d in self._declarations(j, False) for t in d}
            if None in declared:  # an unread set holding its tiles might keep its jokers
                continue
            # A set read several ways (R2 J J: R3 R4, or two of the other 2s) loses, for sure,
            # only the jokers its kindest reading loses.
            kindest = min(
                (
                    [
                        role
                        for role in reading.roles
                        if not (set(role.options) & declared) and not any(self.real_after[t] for t in role.options)
                    ]
                    for reading in readings
                ),
                key=len,
            )
            for role in kindest:
                lost[i, role] += 1
        if not lost:
            what = ", ".join(f"table set {i} '{format_tiles(written)}'" for i, written, _ in self.before)
            return [
                JokerProblem(
                    "joker_moved",
                    f"the jokers of {what} cannot all keep their tiles or be replaced by them",
                    (JOKER,),
                )
            ], frozenset()
        out = []
        for (i, role), n in lost.items():
            jokers = "joker standing" if n == 1 else f"{n} jokers standing"
            tiles = " or ".join(str(t) for t in role.options)
            out.append(
                JokerProblem(
                    "joker_moved",
                    f"{jokers} for {role} (table set {i}) moved without being replaced by {tiles}",
                    (JOKER,) * n + role.options,
                )
            )
        sets = {i for i, _ in lost}
        return out, frozenset(k for k, (i, _, _) in enumerate(self.before) if i in sets)

    def returned_problem(self, spared: frozenset[int] = frozenset()) -> JokerProblem:
        """A joker could only be retrieved back into a set holding its old set's tiles."""
        # The set to name: first one where the tile a joker stood for is now, retrieving it.
        judged = [b for k, b in enumerate(self.before) if k not in spared]
        pairs = [(i, written, j, readings) for i, written, readings in judged for j in self.after_sets]
        pairs.sort(key=lambda p: not any(self.kinds[p[2]][t] for r in p[3][0].roles for t in r.options))
        for i, written, j, _ in pairs:
            if numbered(written) & self.kinds[j]:
                return JokerProblem(
                    "joker_retrieval",
                    f"the joker of table set {i} '{format_tiles(written)}' is back in a set with its old"
                    f" set's tiles ('{format_tiles(self.new_table[j])}') without standing for its tile:"
                    " a retrieved joker must go into another set",
                    (JOKER,),
                    (j,),
                )
        return JokerProblem(
            "joker_retrieval", "a retrieved joker must go into another set, not back into its own", (JOKER,)
        )

    def hosting_problem(self) -> JokerProblem:
        """Official retrieval failed. Which set holds the retrieved joker is not known, so a count
        of rack tiles is said only when every new set holding a joker has that count (a joker from
        the rack counts as a rack tile, so one played leaves the count unsaid)."""
        counts = {
            min(sum(min(n, self.played[t]) for t, n in numbered(self.new_table[i]).items()), 2)
            for i in self.after_sets
        }
        rack = "fewer than two rack tiles"
        if len(counts) == 1 and not self.played[JOKER] and counts != {2}:
            rack = "only one rack tile" if counts == {1} else "no rack tile"
        return JokerProblem(
            "joker_retrieval",
            f"retrieved joker played with {rack} in its new set"
            " (official retrieval: a new set with at least two tiles from the rack)",
            (JOKER,),
        )

    def lending_problem(self) -> JokerProblem:
        return JokerProblem(
            "locked_set_broken",
            "a joker is retrieved by a tile no set could lend when it was needed (joker-rules=locked: a"
            " set holding a joker lends no tile, not even for a moment, until a joker of it is retrieved)",
            (JOKER,),
        )

    def locked_problem(self, spared: frozenset[int] = frozenset()) -> JokerProblem:
        for k, (i, written, _) in enumerate(self.before):
            if k in spared:
                continue
            best: Counter[Tile] | None = None
            home = -1  # the new set holding a joker and the most of the locked set: what is left of it
            for j, s in enumerate(self.new_table):
                if JOKER in s:
                    gone = numbered(written) - numbered(s)
                    if best is None or sum(gone.values()) < sum(best.values()):
                        best, home = gone, j
            if best:
                tiles = tuple(sorted(best.elements()))
                return JokerProblem(
                    "locked_set_broken",
                    f"table set {i} '{format_tiles(written)}' holds a joker and may only grow until it is"
                    f" retrieved (joker-rules=locked): {format_tiles(tiles)} left it",
                    tiles,
                    (home,),
                )
        return JokerProblem(
            "locked_set_broken",
            "a table set holding a joker was split or merged (joker-rules=locked: it may only grow"
            " until its joker is retrieved)",
            (JOKER,),
        )


def _matches(owners: list[int], room: dict[int, int], forbidden: list[set[int]]) -> bool:
    """Whether each owner's tile can go to a set with room to spare, not one forbidden to it."""
    if not owners:
        return True
    k, rest = owners[0], owners[1:]
    for i, n in room.items():
        if n > 0 and i not in forbidden[k]:
            room[i] -= 1
            found = _matches(rest, room, forbidden)
            room[i] += 1
            if found:
                return True
    return False
