"""A move as steps a person can carry out at the table, one after another.

The new table comes with its bases (``least_moves``): which old set each new set is built on and
which of its tiles stay. Everything else is a tile that moves (from an old set to the set it
joins) or a rack tile. The steps, in an order that can be followed:

1. ``split``: cut an old run into the parts that stay together (where: between which tiles);
2. ``retrieve``: put a rack tile in a joker's place (the exact tile it stands for) and take the
   joker; ``swap``: put a rack tile of another colour in a group and take one of its tiles;
3. ``take``: take tiles off an end of a run, or out of a group; ``move``: take tiles from
   anywhere else (the middle of a run, a set broken up) — both to the set they join, or put
   aside for a new set laid in step 5;
4. ``add``: add rack tiles to a set;
5. ``lay``: lay a new set (rack tiles and the table tiles put aside for it).

Every step names its tiles and the sets as the person sees them at that moment (their tiles in
natural order). In JSON a step is ``{"action", "tiles", "from", "to"}``: ``from`` is the set the
tiles leave ("rack" for add and lay); ``to`` is where they go — a set, ``the new set X`` (put
aside until X is laid), or for a split the parts separated by `` | ``. For ``retrieve`` and
``swap`` the tiles are [rack tile, tile taken]: the rack tile goes into ``from``, the tile taken
goes to ``to``; a joker retrieved by a table tile (``tile_from``, the set it comes from) is
retrieved before any other step, as are all under locked jokers (``_FirstRetrievals``; a locked
set lends its tile only once its own jokers are out). A retrieved joker put into a run lies at
the end it stays at, and the steps after name the run so.
``tiles_moved`` counts table tiles that end in another set (see ``least_moves``; one borrowed and
put back does not); ``replay`` carries the steps out on the old table and must end with exactly
the new one.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from solver.initial_meld import a_meld
from solver.joker_account import Retrieved, account
from solver.jokers import run_declaring, table_readings
from solver.least_moves import Placed, Rearrangement, least_moves, match, sets_broken
from solver.melds import Kind, best_reading, natural_order, order_as_laid, readings
from solver.rules import JokerRules, RuleSet
from solver.tiles import JOKER, Tile, format_tiles, parse_token, table_as_lists

if TYPE_CHECKING:
    from solver.solution import PlacedSet, Solution

Sets = Sequence[Sequence[Tile]]
NEW = "the new set "  # prefix of a destination that is laid later

ACTIONS = ("split", "retrieve", "swap", "take", "move", "add", "lay")


@dataclass(frozen=True)
class Step:
    action: str  # one of ACTIONS
    tiles: tuple[Tile, ...]
    source: str  # the set the tiles leave, or "rack"
    target: str  # where they go (split: the parts, separated by " | ")
    # split: where it is cut; take: "end" of a run, "group" or "last" tiles; lay: sources;
    # retrieve: the table set the tile comes from (none: the rack)
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {"action": self.action, "tiles": [str(t) for t in self.tiles], "from": self.source, "to": self.target}
        if self.action == "retrieve" and self.detail:
            out["tile_from"] = self.detail
        return out

    def __str__(self) -> str:
        return self.describe()

    def describe(self, rack: str = "your rack") -> str:
        """The step in words; ``rack`` names whose rack the tiles come from ("its rack" for an AI)."""
        tiles = format_tiles(self.tiles)
        them = "them" if len(self.tiles) > 1 else "it"
        put = (
            f"keep {them} for {self.target}"
            if self.target.startswith(NEW)
            else f"put {them} in {self.target}"
        )
        if self.action == "split":
            parts = self.target.split(" | ")
            return f"Split {self.source} {self.detail} into {', '.join(parts[:-1])} and {parts[-1]}"
        if self.action == "retrieve":
            new, joker = self.tiles
            lender = self.detail or rack  # a table set lends the tile
            return f"Put {new} from {lender} in place of the {joker} in {self.source}; {_then(joker, self.target)}"
        if self.action == "swap":
            new, old = self.tiles
            return f"Swap {new} from {rack} for {old} in {self.source}; {_then(old, self.target)}"
        if self.action == "take":
            if self.detail == "last":
                return f"Take the last of that set, {tiles}, and {put}"
            off = "out of" if self.detail == "group" else "off the end of"
            return f"Take {tiles} {off} {self.source} and {put}"
        if self.action == "move":
            return f"Move {tiles} from {self.source} and {put}"
        if self.action == "add":
            return f"Add {tiles} from {rack} to {self.target}"
        return f"Lay {self.target}" + (f" ({self.detail.replace('your rack', rack)})" if self.detail else "")


def _then(tile: Tile, target: str) -> str:
    if target.startswith(NEW):
        return f"keep the {tile} for {target}"
    return f"put the {tile} in {target}"


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    tiles_moved: int
    sets_broken: int = 0  # old sets that lose a tile or are split
    rack_parts: tuple[tuple[Tile, ...], ...] = ()  # per set of the new table planned, its rack tiles


def set_text(tiles: Sequence[Tile] | Counter[Tile], rules: RuleSet) -> str:
    """A set as a person sees it: its tiles in natural order (sorted when it is not a set yet)."""
    return format_tiles(natural_order(tiles.elements() if isinstance(tiles, Counter) else tiles, rules))


def tiles_named(text: str, rules: RuleSet) -> tuple[Tile, ...]:
    """The tiles of a set as a step names it (``J B8 B9``), in that order."""
    return tuple(t for word in text.split() for t in parse_token(word, rules))


def renamed(written: Sequence[Tile], tiles: Counter[Tile], rules: RuleSet) -> str:
    """A set as a person sees it, grown or trimmed from how it was ``written`` (see ``named_order``)."""
    return format_tiles(named_order(written, tiles, rules))


def named_order(written: Sequence[Tile], tiles: Counter[Tile], rules: RuleSet) -> tuple[Tile, ...]:
    """The tiles of a set in the order a person reads them, grown or trimmed from how it was
    ``written``: under strict and locked jokers its jokers keep standing for what they stood for
    there (its order says so: ``J R5 R6 R7 R8 R9`` less R8 is ``J R5 R6 R7 R9``, not
    ``R5 R6 R7 J R9``); else, and where that cannot be, in natural order. A set unchanged keeps its
    written order where that is one of its natural orders (``J R4 R5``, the joker R3, not
    ``R4 R5 J``, whatever the joker rules)."""
    if Counter(written) == tiles:
        options = readings(list(written), rules)
        if not options or any(r.tiles == tuple(written) for r in options):  # no set yet: as it lies
            return tuple(written)
    if rules.joker_rules is JokerRules.FREE or not tiles[JOKER]:
        return natural_order(tiles.elements(), rules)
    if Counter(written) == tiles:
        return tuple(written)
    said = [r for r in table_readings(written, rules) if r.kind is Kind.RUN] if written else []
    if said and len(said[0].roles) == tiles[JOKER]:
        run = run_declaring(list(tiles.elements()), tuple(sorted(said[0].run_jokers)), rules)
        if run is not None:
            return tuple(run.tiles)
    if written and not (tiles - Counter(written)):  # only trimmed: the rest as it lies
        left = tiles.copy()
        kept = []
        for t in written:
            if left[t] > 0:
                kept.append(t)
                left[t] -= 1
        return tuple(kept)
    return natural_order(tiles.elements(), rules)


def best_steps(
    solution: Solution, backend: str = "bnb", time_limit: float | None = None
) -> tuple[Solution, Plan]:
    """The solution rearranged to move the fewest table tiles, and its steps.

    Stopped by ``time_limit`` (seconds for the rearrangement's search), the steps are those of
    the best arrangement found: still the same tiles played, perhaps more table tiles moved."""
    from solver.solution import SetChange, describe_table, joker_story

    position = solution.position
    after = [list(s.tiles) for s in solution.table]
    if not position.opened and position.rules.continue_after_meld and solution.played:
        # An opening that goes on: the meld first, only then the table (as the steps of a turn).
        return solution, plan_steps(position.table, after, solution.played, position.rules, opening=True)
    found = least_moves(position, after, solution.played, backend, time_limit)
    table, retrieved = joker_story(position, describe_table(position, found.sets, solution.played))
    better = dataclasses.replace(
        solution,
        table=table,
        kept_sets=sum(1 for s in table if s.change is SetChange.UNCHANGED),
        retrieved=retrieved,  # its sets are numbered in this arrangement
    )
    written = [p.tiles for p in table]
    steps = plan(position.table, found, solution.played, position.rules, written, retrieved, table)
    # The rack tiles marked where the steps bring them (copies of a tile are alike; a split keeps
    # the table's own tiles where they lie).
    better = dataclasses.replace(better, table=_marked(better.table, found.table, steps.rack_parts))
    return better, steps


def _marked(table: Sequence[PlacedSet], planned: Sequence[Placed], rack_parts: Sequence[Sequence[Tile]]) -> tuple[PlacedSet, ...]:
    """``table`` with each set's rack tiles those of the planned set of the same tiles."""
    parts: dict[tuple[Tile, ...], list[Counter[Tile]]] = {}
    for p, part in zip(planned, rack_parts):
        parts.setdefault(_key(p.tiles), []).append(Counter(part))
    out = []
    for placed in table:
        waiting = parts.get(_key(placed.tiles))
        if not waiting:
            out.append(placed)
            continue
        mine = waiting.pop(0)
        flags = []
        for t in placed.tiles:
            flags.append(mine[t] > 0)
            mine[t] -= 1
        out.append(dataclasses.replace(placed, from_rack=tuple(flags)))
    return tuple(out)


def plan_steps(before: Sets, after: Sets, played: Sequence[Tile], rules: RuleSet, opening: bool = False) -> Plan:
    """Steps turning the table ``before`` into ``after`` (as given) with the ``played`` rack tiles.

    ``opening``: the turn is an initial meld that goes on after it (rule continue-after-meld): no
    table tile may move before the meld is down, so the steps lay a meld of the played tiles
    first, then turn the table with the meld on it into ``after``."""
    if opening:
        meld = _meld_of(after, played, rules)
        if meld is not None:  # always, for a legal opening
            laid = [natural_order(s.elements(), rules) for s in meld]
            first = tuple(Step("lay", s, "rack", set_text(s, rules)) for s in laid)
            rest = Counter(played) - sum(meld, Counter())
            table = [*map(list, before), *map(list, laid)]
            then = plan(table, match(table, after, rules), sorted(rest.elements()), rules, after)
            steps = first + then.steps
            # The meld's tiles are the player's own: moved on later, they are no table tiles moved.
            return dataclasses.replace(then, steps=steps, tiles_moved=_tiles_moved(before, steps, played, rules))
    found = match(before, after, rules)
    return plan(before, found, played, rules, after, _retrievals(before, after, played, rules))


def _retrievals(before: Sets, after: Sets, played: Sequence[Tile], rules: RuleSet) -> tuple[Retrieved, ...]:
    """Which tile retrieved which table joker in a legal move (strict and locked jokers; sets
    numbered as ``after``): the steps retrieve those jokers first, as best_steps's do."""
    if rules.joker_rules is JokerRules.FREE or not any(JOKER in s for s in before):
        return ()
    from solver.position import Position

    position = Position(tuple(played), tuple(tuple(s) for s in before), True, rules)
    story = account(position, [list(s) for s in after])
    return story.retrieved if story is not None else ()


def _meld_of(after: Sets, played: Sequence[Tile], rules: RuleSet) -> list[Counter[Tile]] | None:
    """The meld to lay first: the new sets of rack tiles alone that ``after`` holds, if they are
    one (laid first, they never move again); else any meld the played tiles hold."""
    rack = Counter(played)
    own: list[Counter[Tile]] = []
    for s in after:
        tiles = Counter(s)
        if tiles <= rack and (rules.joker_in_meld or JOKER not in tiles):
            own.append(tiles)
            rack -= tiles
    worth = sum(reading.value for s in own if (reading := best_reading(list(s.elements()), rules)))
    if own and worth >= rules.meld_threshold:
        return own
    return a_meld(Counter(played), rules)


def plan(
    before: Sets,
    found: Rearrangement,
    played: Sequence[Tile],
    rules: RuleSet,
    written: Sets | None = None,
    retrieved: Sequence[Retrieved] = (),
    shown: Sequence[PlacedSet] = (),
) -> Plan:
    """Steps turning ``before`` into the rearrangement ``found`` with the ``played`` rack tiles.
    ``written``: its sets as the answer writes them (under strict and locked jokers the order
    says what a joker stands for, so a new set is named so), set for set; ``retrieved``: the
    answer's retrieval story (sets numbered as ``before`` and ``found``), whose jokers the steps
    carry where it says (jokers are alike, but under official retrieval where one goes matters);
    ``shown``: the table as the answer shows it, its rack tiles marked: where copies of a tile
    are alike, the steps bring the rack's copy to the set it is marked in."""
    after = found.table
    marks = _rack_marks(after, shown)
    if written is not None and rules.joker_rules is not JokerRules.FREE:
        after = tuple(
            dataclasses.replace(p, tiles=tuple(w)) if JOKER in w and Counter(w) == Counter(p.tiles) else p
            for p, w in zip(after, written)
        )
    homes = [(r.table_set - 1, r.new_set - 1) for r in retrieved]
    tries: tuple[Callable[[], Plan | None], ...] = (
        lambda: _retrieving_first(before, after, played, rules, retrieved, marks, eager=False),
        lambda: _Planner(before, after, played, rules, homes, marks).run(),
        lambda: _retrieving_first(before, after, played, rules, retrieved, marks, eager=True),
    )
    goal = [p.tiles for p in after]
    plans = []
    for attempt in tries:
        found_plan = attempt()
        if found_plan is not None and _reaches(before, found_plan, played, rules, goal, locks=True):
            return found_plan
        plans.append(found_plan)
    for found_plan in plans:  # none keeps every locked set whole while it holds its joker
        if found_plan is not None and _reaches(before, found_plan, played, rules, goal, locks=False):
            return found_plan
    # Steps a person could not follow, whatever comes first: every changed set taken apart and
    # laid anew.
    return _Planner(before, after, played, rules, homes, marks).plain()


def _retrieving_first(
    before: Sets,
    after: Sequence[Placed],
    played: Sequence[Tile],
    rules: RuleSet,
    retrieved: Sequence[Retrieved],
    marks: Sequence[Counter[Tile]],
    eager: bool,
) -> Plan | None:
    """Steps that retrieve jokers first (see ``_FirstRetrievals``; ``eager``: also a joker going
    to a set built on its own), then the planner's; None if none comes first or they go wrong."""
    first = _FirstRetrievals(before, after, played, rules, eager).run(retrieved)
    if not first.steps or first.stuck:
        return None
    try:
        return first.then(_Planner(first.table, first.after, sorted(first.rack.elements()), rules, first.homes, marks, first))
    except ValueError:  # the table the retrievals leave is one the planner cannot go on from
        return None


def _rack_marks(after: Sequence[Placed], shown: Sequence[PlacedSet]) -> list[Counter[Tile]]:
    """The rack tiles ``shown`` marks in each set of ``after`` (matched by their tiles; none for
    a set ``shown`` lacks)."""
    marks: dict[tuple[Tile, ...], list[Counter[Tile]]] = {}
    for placed in shown:
        marks.setdefault(_key(placed.tiles), []).append(Counter(t for t, mine in zip(placed.tiles, placed.from_rack) if mine))
    return [(marks.get(_key(p.tiles)) or [Counter()]).pop(0) for p in after]


def _reaches(before: Sets, found: Plan, played: Sequence[Tile], rules: RuleSet, after: Sets, locks: bool) -> bool:
    """Whether the steps can be carried out as named (``locks``: keeping locked sets whole while
    they hold their jokers) and end in the table ``after``."""
    try:
        reached = replay(before, found, played, rules, locks)
    except StepsGoWrong:
        return False
    return Counter(_key(s) for s in reached) == Counter(_key(s) for s in after if s)


def _key(tiles: Counter[Tile] | Sequence[Tile]) -> tuple[Tile, ...]:
    return tuple(sorted(tiles.elements() if isinstance(tiles, Counter) else tiles))


def _shown(tiles: list[Tile], rules: RuleSet) -> str:
    """Tiles of a set as a person sees them: under strict and locked jokers a set holding a
    joker in the order given, which says what its jokers stand for (``J B8 B9``, not
    ``B8 B9 J``); else in natural order."""
    if rules.joker_rules is not JokerRules.FREE and JOKER in tiles:
        return format_tiles(tiles)
    return set_text(tiles, rules)


RACK = -1  # a retrieving tile that comes from the rack, not a table set


class _FirstRetrievals:
    """The table jokers retrieved before anything else moves, as a person must where the joker's
    set is locked (it may not lose a tile before), where the tile comes from another table set
    (put in the joker's place, then on where it goes: back into its own set, if it stays there)
    or where a rack tile frees the joker and then moves on. Each is a ``retrieve`` step on the
    old table; the rest (``homes``: their old and new sets) the planner does among its steps.
    Afterwards ``table`` is the table the planner goes on from, ``after`` its sets with the bases
    and tiles kept that hold there, ``aside`` the jokers put aside for a new set."""

    def __init__(self, before: Sets, after: Sequence[Placed], played: Sequence[Tile], rules: RuleSet, eager: bool) -> None:
        self.rules = rules
        self.eager = eager
        self.names = before
        self.table = [list(s) for s in before]
        self.after = list(after)
        self.rack = Counter(played)
        self.steps: list[Step] = []
        self.homes: list[tuple[int, int]] = []
        self.aside: dict[int, Counter[Tile]] = {}
        self.laid: list[tuple[int, Tile]] = []  # (old set, rack tile) put in a joker's place
        self.apart: set[int] = set()  # new sets a joker goes to that were built on its own set
        self.written = [list(s) for s in before]  # each old set as it lies now (a joker put in where it stands)
        self.locked = [Counter(s)[JOKER] if rules.joker_rules is JokerRules.LOCKED else 0 for s in before]
        self.stuck = False  # locked sets lending each other the tiles that retrieve their jokers

    def run(self, retrieved: Sequence[Retrieved]) -> _FirstRetrievals:
        """Each retrieval in the story's order, except that a locked set lends a tile only once its
        jokers are out: a retrieval waiting for that comes after the one that frees its lender."""
        waiting = list(retrieved)
        while waiting:
            ready = next((r for r in waiting if self._can_go(r)), None)
            if ready is None:
                self.stuck = True
                return self
            waiting.remove(ready)
            i, j = ready.table_set - 1, ready.new_set - 1
            lender = self._lender(i, ready.tile) if self._goes_first(i, j, ready.tile) else None
            if lender is None or JOKER not in self.table[i]:
                self.homes.append((i, j))
            else:
                self._retrieve(i, j, ready.tile, lender)
        return self

    def _can_go(self, r: Retrieved) -> bool:
        """Whether retrieval ``r`` can be done now: not by a tile of a set still locked by a joker."""
        i, j = r.table_set - 1, r.new_set - 1
        if not self._goes_first(i, j, r.tile) or JOKER not in self.table[i]:
            return True
        lender = self._lender(i, r.tile)
        return lender is None or lender == RACK or not self.locked[lender]

    def _goes_first(self, i: int, j: int, tile: Tile) -> bool:
        """Whether the joker of set i, going to new set j, is retrieved by ``tile`` first: under
        locked jokers, by a table tile, by a rack tile that moves on, or (``eager``) to a set built
        on its own."""
        if self.rules.joker_rules is JokerRules.LOCKED or not self.rack[tile] or (self.eager and self.after[j].base == i):
            return True
        return not any(p.base == i and _needs(p)[tile] > 0 for p in self.after)

    def _lender(self, i: int, tile: Tile) -> int | None:
        """Where the retrieving tile comes from: the rack, else a table set holding it (one
        without a joker first, then one the tile leaves anyway)."""
        if self.rack[tile]:
            return RACK
        holders = [k for k, s in enumerate(self.table) if k != i and tile in s]
        stays = {k: sum(Counter(p.kept)[tile] for p in self.after if p.base == k) for k in holders}
        return min(holders, key=lambda k: (self.locked[k] > 0, JOKER in self.table[k], stays[k]), default=None)

    def _retrieve(self, i: int, j: int, tile: Tile, lender: int) -> None:
        source, detail = self._name(i), "" if lender == RACK else self._name(lender)
        if lender == RACK:
            self.rack[tile] -= 1
            self.laid.append((i, tile))
        else:
            self.table[lender].remove(tile)
            self._clamp(lender)
        self._swap_in(i, tile)
        self.locked[i] = max(0, self.locked[i] - 1)
        self.steps.append(Step("retrieve", (tile, JOKER), source, self._send_joker(i, j), detail))

    def _swap_in(self, i: int, tile: Tile) -> None:
        """``tile`` in the place of the joker of set i it stands for; kept there if a set built on
        set i takes it."""
        readings = table_readings(self.table[i], self.rules)
        jokers = [n for n, t in enumerate(self.table[i]) if t.is_joker]
        roles = readings[0].roles if readings else ()
        at = next((n for n, role in zip(jokers, roles) if tile in role.options), jokers[0])
        self.table[i][at] = tile
        self._clamp(i)
        for n, p in enumerate(self.after):
            if p.base == i and _needs(p)[tile] > 0:
                self.after[n] = dataclasses.replace(p, kept=tuple(sorted((*p.kept, tile))))
                break

    def _send_joker(self, i: int, j: int) -> str:
        """Where the joker goes (the step's target): into the old set its new set is built on,
        if that is not its own; else put aside, its new set laid anew."""
        p = self.after[j]
        b = p.base
        if b is not None and b != i:
            target = self._name(b)
            self.table[b] = _with_joker(self.table[b], p.tiles)
            if _reads_as(self.table[b], self.rules):
                # Where it will stay (J B7 … B12, the B6, for B5 J B7 B8): the steps name it so.
                self.written[b] = list(self.table[b])
            kept = (Counter(p.kept) + Counter([JOKER])) & Counter(p.tiles)  # in place of one of its own
            self.after[j] = dataclasses.replace(p, kept=tuple(sorted(kept.elements())))
            return target
        self.aside.setdefault(j, Counter())[JOKER] += 1
        if b == i:  # not back with its own set's tiles: copies from the rack go with it
            self.apart.add(j)
        if b is not None:
            self.after[j] = dataclasses.replace(p, base=None, kept=())
        return NEW + _shown(list(p.tiles), self.rules)

    def _clamp(self, k: int) -> None:
        """The tiles the sets built on set k keep, cut to what it still holds."""
        have = Counter(self.table[k])
        for n, p in enumerate(self.after):
            if p.base == k:
                keep = Counter(p.kept) & have
                have -= keep
                self.after[n] = dataclasses.replace(p, kept=tuple(sorted(keep.elements())))

    def _name(self, k: int) -> str:
        return renamed(self.written[k], Counter(self.table[k]), self.rules)

    def then(self, planner: _Planner) -> Plan:
        """These steps, then the planner's from the table they leave."""
        rest = planner.run()
        parts = [Counter(part) for part in rest.rack_parts]
        for i, tile in self.laid:  # where each rack tile put in a joker's place ends
            homes = [j for j, p in enumerate(planner.after) if p.base == i and Counter(p.kept)[tile]]
            homes += [m for (k, m), tiles in planner.flows.items() if k == i and tiles[tile] > 0]
            if homes:
                parts[homes[0]][tile] += 1
        steps = (*self.steps, *rest.steps)
        rack_parts = tuple(tuple(sorted(part.elements())) for part in parts)
        return Plan(steps, _tiles_moved(self.names, steps, [*self.rack.elements(), *(t for _, t in self.laid)], self.rules), rest.sets_broken, rack_parts)


def _with_joker(tiles: Sequence[Tile], written: Sequence[Tile]) -> list[Tile]:
    """``tiles`` with a joker where the set ``written`` has it: before the tile that follows it
    there (``R6 R7 R8`` for ``J R6 R7 R8 R9``: ``J R6 R7 R8``), else after the one before it."""
    at = list(written).index(JOKER)
    later = [t for t in written[at:] if not t.is_joker and t in tiles]
    earlier = [t for t in written[:at] if not t.is_joker and t in tiles]
    where = list(tiles).index(later[0]) if later else (list(tiles).index(earlier[-1]) + 1 if earlier else len(tiles))
    return [*tiles[:where], JOKER, *tiles[where:]]


def _needs(p: Placed) -> Counter[Tile]:
    """The tiles a new set gets from elsewhere (not kept from its base)."""
    return Counter(p.tiles) - Counter(p.kept)


def _tiles_moved(before: Sets, steps: Sequence[Step], played: Sequence[Tile], rules: RuleSet) -> int:
    """The table tiles the steps leave in a set not built on their own (-1: they go wrong)."""
    table = _Replay(before, played, rules)
    try:
        for step in steps:
            table.carry_out(step)
    except StepsGoWrong:
        return -1
    return table.tiles_moved()


class _Planner:
    """Builds the steps, following the table as it changes so that every set is named as seen."""

    def __init__(
        self,
        before: Sets,
        after: Sequence[Placed],
        played: Sequence[Tile],
        rules: RuleSet,
        joker_homes: Sequence[tuple[int, int]] = (),
        rack_marks: Sequence[Counter[Tile]] = (),
        first: _FirstRetrievals | None = None,
    ) -> None:
        """``first``: the retrievals done before, whose table ``before`` is: the jokers they put
        aside for a new set, the old sets as they then lie (which name them), the new sets built on a
        joker's own set (which take the rack's copies of its tiles first)."""
        self.rules = rules
        self.joker_homes = joker_homes  # (old set, new set) of each retrieved joker, as the story says
        self.rack_marks = rack_marks  # per new set, the rack tiles the table shown marks in it
        self.apart = set() if first is None else first.apart
        self.before = [list(s) for s in before]
        self.names = [list(s) for s in (before if first is None else first.written)]
        self.after = list(after)
        self.steps: list[Step] = []
        self.moved = 0
        # Live sets on the table: id -> tiles. Old set i starts as id i; split parts get new ids.
        self.live: dict[int, Counter[Tile]] = {i: Counter(s) for i, s in enumerate(self.before)}
        self.next_id = len(self.before)
        self.order: dict[int, list[Tile]] = {}  # an old run's own tiles left in it, in order
        self.written: dict[int, list[Tile]] = {}  # a split part as the split step names it
        self.outgoing: dict[int, Counter[Tile]] = {}  # live set -> its old set's tiles still to go
        self.holder: dict[int, int] = {}  # new set -> the live set it is built on
        self.pieces: dict[int, list[int]] = {}  # old set -> live sets made of its tiles
        self.aside = {} if first is None else {j: tiles.copy() for j, tiles in first.aside.items()}  # new set laid later -> table tiles put aside
        leaving = [Counter(s) for s in self.before]
        arriving: list[Counter[Tile]] = []
        for p in self.after:
            if p.base is not None:
                leaving[p.base] -= Counter(p.kept)
            arriving.append(Counter(p.tiles) - Counter(p.kept) - self.aside.get(len(arriving), Counter()))
        self.leaving = leaving
        self.broken = sets_broken(self.before, self.after)
        self.flows = self._sources(leaving, arriving, Counter(played))
        # Per new set, the rack tiles it gets (the steps spend the flows as they go).
        self.rack_parts = tuple(
            tuple(sorted(self.flows.get((None, j), Counter()).elements())) for j in range(len(self.after))
        )

    # -- which tile comes from where --------------------------------------------------------
    def _sources(
        self, leaving: list[Counter[Tile]], arriving: list[Counter[Tile]], rack: Counter[Tile]
    ) -> dict[tuple[int | None, int], Counter[Tile]]:
        """Tiles from each old set (None: the rack) to each new set. Tiles of a kind are
        interchangeable, so the choice only shapes the steps: rack tiles first where they free a
        joker or swap a group tile, then table tiles in the largest lots, then the rack."""
        leaving = [c.copy() for c in leaving]
        need = [c.copy() for c in arriving]
        rack = rack.copy()
        flows: dict[tuple[int | None, int], Counter[Tile]] = {}

        def send(src: int | None, j: int, tiles: Counter[Tile]) -> None:
            if tiles:
                flows.setdefault((src, j), Counter()).update(tiles)
                need[j] -= tiles
                if src is None:
                    rack.subtract(tiles)
                else:
                    leaving[src] -= tiles

        for j, p in enumerate(self.after):
            if p.base is not None:
                for new, _ in self._exchanges(p.base, need[j] & rack):
                    send(None, j, Counter([new]))
        for i, j in self.joker_homes:
            if 0 <= i < len(leaving) and 0 <= j < len(need) and leaving[i][JOKER] > 0 and need[j][JOKER] > 0:
                send(i, j, Counter([JOKER]))
        # Table tiles where the table shown has no rack copy first (copies are alike: the steps
        # and the brackets then tell the same story), then wherever they fit.
        marked = [*self.rack_marks, *[Counter[Tile]()] * (len(need) - len(self.rack_marks))]
        # A set a retrieved joker goes to, built on its own old set, takes the rack's copies first.
        apart = [Counter(p.tiles) if j in self.apart else Counter[Tile]() for j, p in enumerate(self.after)]
        for marks in ([m | a for m, a in zip(marked, apart)], apart):
            pairs = sorted(
                ((sum((lv & (need[j] - marks[j])).values()), i, j) for i, lv in enumerate(leaving) for j in range(len(need))),
                key=lambda x: (-x[0], x[1], x[2]),
            )
            for _, i, j in pairs:
                send(i, j, leaving[i] & (need[j] - marks[j]))
        for j in range(len(need)):
            send(None, j, need[j] & +rack)
        for j in range(len(need)):
            for i in range(len(leaving)):
                send(i, j, leaving[i] & need[j])
        if any(need) or any(leaving) or +rack:
            raise ValueError("the new table does not hold exactly the old table and the played tiles")
        return flows

    def _exchanges(self, i: int, offered: Counter[Tile]) -> list[tuple[Tile, Tile]]:
        """(rack tile, tile it frees) pairs for old set i: a joker's exact tile, or in a group
        another colour of its number for a tile that leaves."""
        old = self.before[i]
        roles = self._joker_roles(old)
        if roles is None:
            return []
        kind, number, meanings = roles
        offered = +offered
        out: list[tuple[Tile, Tile]] = []
        leaving = self.leaving[i].copy()
        present = {t.colour for t in old if not t.is_joker}  # a group's colours as it will be
        for meant in meanings:
            if leaving[JOKER] <= 0:
                break
            if kind is Kind.RUN:
                options = [t for t in meant if offered[t]]
            else:
                options = [t for t in sorted(+offered) if t.number == number and t.colour not in present]
            if options:
                out.append((options[0], JOKER))
                offered[options[0]] -= 1
                leaving[JOKER] -= 1
                present.add(options[0].colour)
        if kind is Kind.GROUP:
            for gone in sorted(t for t in leaving.elements() if not t.is_joker):
                options = [t for t in sorted(+offered) if t.number == number and t.colour not in present]
                if options:
                    out.append((options[0], gone))
                    offered[options[0]] -= 1
                    present.add(options[0].colour)
        return out

    def _run_order(self, old: Sequence[Tile]) -> tuple[Kind | None, list[Tile]]:
        """An old set's kind and its tiles in the order it is read: under strict and locked jokers
        as written (``J B9 B10 B11 B12``: the joker B8 first), else its best reading (sorted
        when it is no set)."""
        if self.rules.joker_rules is not JokerRules.FREE and JOKER in old:
            written = table_readings(old, self.rules)
            if written and written[0].kind is Kind.RUN:
                roles = Counter(written[0].run_jokers)
                return Kind.RUN, [JOKER if roles[t] else t for t in written[0].stands_for]
        # As it lies where that is a reading (R2 .. R13 R1 under american wrap, not R1 .. R13).
        laid = order_as_laid(old, self.rules)
        reading = next((r for r in readings(laid, self.rules) if r.tiles == laid), None)
        return (reading.kind, list(laid)) if reading else (None, sorted(old))

    def _joker_roles(self, old: Sequence[Tile]) -> tuple[Kind, int, list[tuple[Tile, ...]]] | None:
        """An old set's kind, number (a group's) and what each of its jokers stands for: under
        strict and locked jokers as the set is written (``R12 R13 J`` under american wrap: R1),
        as the rules read it; else its best reading. None for an invalid set."""
        if self.rules.joker_rules is not JokerRules.FREE:
            written = table_readings(old, self.rules)
            if not written:
                return None
            first = written[0]
            return first.kind, first.stands_for[0].number, [role.options for role in first.roles]
        reading = best_reading(old, self.rules)
        if reading is None:
            return None
        meanings: list[tuple[Tile, ...]] = [
            (meant,) for shown, meant in zip(reading.tiles, reading.stands_for) if shown.is_joker
        ]
        return reading.kind, reading.stands_for[0].number, meanings

    # -- naming ----------------------------------------------------------------------------
    def _name(self, live: int) -> str:
        written = self.names[live] if live < len(self.names) else self.written.get(live)
        return renamed(written or (), self.live[live], self.rules)

    def _destination(self, j: int) -> str:
        if j in self.holder:
            return self._name(self.holder[j])
        return NEW + self._new_name(j)

    def _new_name(self, j: int) -> str:
        return _shown(list(self.after[j].tiles), self.rules)

    def _deliver(self, j: int, tiles: Counter[Tile]) -> None:
        if j in self.holder:
            self.live[self.holder[j]].update(tiles)
        else:
            self.aside.setdefault(j, Counter()).update(tiles)

    # -- the steps -------------------------------------------------------------------------
    def run(self) -> Plan:
        self._split()
        self._exchange()
        self._take()
        self._add()
        self._lay()
        return Plan(tuple(self.steps), self.moved, self.broken, self.rack_parts)

    def plain(self) -> Plan:
        """Steps that always hold. An old set the answer keeps whole (perhaps grown) stays, and gets
        what it gains; every other old set the move changes has its tiles moved out, to the sets
        that hold them (put aside for a new one until it is laid); then the new sets are laid."""
        kept_whole = {
            p.base: j
            for j, p in enumerate(self.after)
            if p.base is not None and Counter(p.kept) == Counter(self.before[p.base])
        }
        now = {i: Counter(self.before[i]) for i in kept_whole}  # what a set kept whole holds so far
        gone: dict[int, Counter[Tile]] = {}  # new set -> the table tiles put aside for it
        for i, old in enumerate(self.before):
            if i in kept_whole:
                continue
            left = Counter(old)
            for j, p in enumerate(self.after):
                tiles = self.flows.get((i, j), Counter()) + (Counter(p.kept) if p.base == i else Counter())
                if not tiles:
                    continue
                home = p.base if p.base in kept_whole else None
                if home is not None:  # into a set that stays, as it stands now
                    target = renamed(self.before[home], now[home], self.rules)
                    now[home] += tiles
                else:
                    target = NEW + self._new_name(j)
                    gone.setdefault(j, Counter()).update(tiles)
                self.steps.append(Step("move", natural_order(tiles.elements(), self.rules), renamed(old, left, self.rules), target))
                self.moved += sum(tiles.values())
                left -= tiles
        for i, j in kept_whole.items():
            mine = Counter(self.after[j].tiles) - now[i]
            if mine:
                shown = renamed(self.before[i], now[i], self.rules)
                self.steps.append(Step("add", natural_order(mine.elements(), self.rules), "rack", shown))
        for j, p in enumerate(self.after):
            if j in kept_whole.values():
                continue
            from_table = gone.get(j, Counter())
            rack_part = Counter(p.tiles) - from_table
            detail = ", ".join(
                part
                for part in (
                    f"{format_tiles(sorted(rack_part.elements()))} from your rack" if rack_part else "",
                    f"{format_tiles(sorted(from_table.elements()))} put aside above" if from_table else "",
                )
                if part
            )
            self.steps.append(Step("lay", tuple(p.tiles), "rack", self._new_name(j), detail))
        return Plan(tuple(self.steps), self.moved, len(self.before) - len(kept_whole), self.rack_parts)

    def _split(self) -> None:
        parts_of: dict[int, list[int]] = {}
        for j, p in enumerate(self.after):
            if p.base is not None:
                parts_of.setdefault(p.base, []).append(j)
        for i, old in enumerate(self.before):
            parts = parts_of.get(i, [])
            kind, ordered = self._run_order(old)
            if len(parts) <= 1:
                self.outgoing[i] = Counter(old) - Counter(self.after[parts[0]].kept if parts else ())
                if parts:
                    self.holder[parts[0]] = i
                if kind is Kind.RUN:
                    self.order[i] = ordered
                continue
            # Label each tile of the old run with the part keeping it (None: it leaves).
            want = {j: Counter(self.after[j].kept) for j in parts}
            labels: list[int | None] = []
            for t in ordered:
                owner = next((j for j in parts if want[j][t] > 0), None)
                if owner is not None:
                    want[owner][t] -= 1
                labels.append(owner)
            # Cut where the next part starts; leaving tiles stay with the piece before them.
            blocks: list[tuple[int | None, list[Tile]]] = []
            for t, label in zip(ordered, labels):
                if blocks and (label is None or blocks[-1][0] in (None, label)):
                    if blocks[-1][0] is None:
                        blocks[-1] = (label, blocks[-1][1])
                    blocks[-1][1].append(t)
                else:
                    blocks.append((label, [t]))
            merged: dict[int, list[Tile]] = {}
            for label, tiles in blocks:
                assert label is not None  # every run with parts keeps some tile
                merged.setdefault(label, []).extend(tiles)
            contiguous = len(merged) == len(blocks)
            # Each part as it lies (R13 R1 under american wrap: not a set yet, and not "R1 R13").
            shown = [
                format_tiles(named_order(tiles, Counter(tiles), self.rules))
                for tiles in ([t for _, t in blocks] if contiguous else merged.values())
            ]
            if contiguous:
                cuts = [f"{blocks[k][1][-1]} and {blocks[k + 1][1][0]}" for k in range(len(blocks) - 1)]
                detail = "between " + ", and between ".join(cuts)
            else:
                detail = "apart"
            self.steps.append(Step("split", tuple(ordered), self._name(i), " | ".join(shown), detail))
            del self.live[i]
            self.pieces[i] = []
            for label, tiles in merged.items():
                live = self.next_id
                self.next_id += 1
                self.live[live] = Counter(tiles)
                self.outgoing[live] = Counter(tiles) - Counter(self.after[label].kept)
                self.order[live] = list(tiles)  # in the run's order
                self.written[live] = list(tiles)
                self.holder[label] = live
                self.pieces[i].append(live)

    def _exchange(self) -> None:
        """Retrieve jokers and swap group tiles with rack tiles, where the answer does that."""
        for (src, j), tiles in list(self.flows.items()):
            base = self.after[j].base
            if src is not None or base is None:
                continue
            for new, old in self._exchanges(base, tiles):
                dest = next((jj for (s, jj), t in self.flows.items() if s == base and t[old] > 0), None)
                live = self.holder[j]  # the rack tile goes where the freed tile is
                if dest is None or self.outgoing[live][old] <= 0:
                    continue
                self.leaving[base][old] -= 1
                self.outgoing[live][old] -= 1
                action = "retrieve" if old.is_joker else "swap"
                source = self._name(live)
                self.live[live][old] -= 1
                self.live[live] = +self.live[live]
                self.live[live][new] += 1
                if live in self.order and old in self.order[live]:
                    at = self.order[live].index(old)
                    self.order[live][at] = new  # the rack tile takes the place in the run
                # Named after the exchange: the freed tile may go back into the set it left, now changed.
                self.steps.append(Step(action, (new, old), source, self._destination(dest)))
                self._deliver(dest, Counter([old]))
                self.moved += 1
                self.flows[None, j][new] -= 1
                self.flows[base, dest][old] -= 1

    def _take(self) -> None:
        for i in range(len(self.before)):
            out = {j: +tiles for (src, j), tiles in self.flows.items() if src == i and +tiles}
            while out:
                step = self._next_take(i, out)
                live, j, tiles, action, detail = step
                if action == "take" and tiles == self.live[live]:
                    detail = "last"  # the set is gone after this
                self.steps.append(
                    Step(
                        action,
                        tuple(sorted(tiles.elements())),
                        self._name(live),
                        self._destination(j),
                        detail,
                    )
                )
                self.live[live] = self.live[live] - tiles
                self.outgoing[live] = self.outgoing[live] - tiles
                if live in self.order:
                    gone = tiles.copy()
                    kept_order = []
                    for t in self.order[live]:
                        if gone[t] > 0:
                            gone[t] -= 1
                        else:
                            kept_order.append(t)
                    self.order[live] = kept_order
                self._deliver(j, tiles)
                self.moved += sum(tiles.values())
                out[j] = out[j] - tiles
                if not out[j]:
                    del out[j]
                if not self.live[live] and live not in self.holder.values():
                    del self.live[live]

    def _next_take(self, i: int, out: dict[int, Counter[Tile]]) -> tuple[int, int, Counter[Tile], str, str]:
        """The next tiles to take from old set i: off an end if any may go, else from the middle."""
        for live in self.pieces.get(i, [i]):
            if live not in self.live:
                continue
            order = self.order.get(live)
            takeable = self.outgoing[live]  # not the tiles the set keeps, nor those it gained
            if order is None:  # a group: any of its tiles can be taken out
                for j, tiles in out.items():
                    here = tiles & takeable
                    if here:
                        return live, j, here, "take", "group"
                continue
            for end in (order, order[::-1]):
                lot: Counter[Tile] = Counter()
                dest: int | None = None
                for t in end:
                    goes = [
                        j
                        for j, tiles in out.items()
                        if (tiles - lot)[t] > 0 and (takeable - lot)[t] > 0 and dest in (None, j)
                    ]
                    if not goes:
                        break
                    dest = goes[0]
                    lot[t] += 1
                if dest is not None and lot and _at_an_end(self.live[live], lot, self.rules):
                    return live, dest, lot, "take", "end"
        for live in self.pieces.get(i, [i]):
            if live not in self.live:
                continue
            for j, tiles in out.items():
                here = tiles & self.outgoing[live]
                if here:
                    return live, j, here, "move", ""
        raise ValueError(f"tiles of table set {i + 1} to move are not on the table")

    def _add(self) -> None:
        for (src, j), tiles in sorted(self.flows.items(), key=lambda f: f[0][1]):
            if src is None and +tiles and j in self.holder:
                self.steps.append(
                    Step("add", tuple(sorted((+tiles).elements())), "rack", self._destination(j))
                )
                self.live[self.holder[j]].update(+tiles)

    def _lay(self) -> None:
        for j, p in enumerate(self.after):
            if j in self.holder:
                continue
            from_table = self.aside.pop(j, Counter())
            shown = self._new_name(j)
            detail = ""
            if from_table:
                rack_part = Counter(p.tiles) - from_table
                detail = (
                    f"{format_tiles(sorted(rack_part.elements()))} from your rack, " if rack_part else ""
                ) + (f"{format_tiles(sorted(from_table.elements()))} put aside above")
            self.steps.append(Step("lay", tuple(p.tiles), "rack", shown, detail))


@dataclass(frozen=True)
class TableAt:
    """The table as it stands after one step: its sets (tiles in natural order, old sets where
    they were, new ones after them), the sets the step changed (indices into ``sets``) and the
    table tiles put aside for a new set not laid yet (that set's name, the tiles)."""

    sets: tuple[tuple[Tile, ...], ...]
    changed: tuple[int, ...]
    aside: tuple[tuple[str, tuple[Tile, ...]], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": table_as_lists(self.sets),
            "changed": list(self.changed),
            "aside": [{"for": target, "tiles": [str(t) for t in tiles]} for target, tiles in self.aside],
        }


def tables_after_steps(
    before: Sets, plan: Plan, played: Sequence[Tile], rules: RuleSet, written: Sets = ()
) -> list[TableAt]:
    """The table after each step of ``plan`` (one entry per step), so that the steps can be shown
    one at a time; the last one is the new table. ``written``: the new table as the answer writes
    it, whose order a set holding strict jokers keeps (``J B8 B9``: the joker is the B7)."""
    strict = rules.joker_rules is not JokerRules.FREE
    known = [*written, *before]

    def shown(tiles: Counter[Tile], called: str) -> tuple[Tile, ...]:
        if strict and tiles[JOKER]:
            # As written in the answer or on the old table, else as the step named it.
            for order in (*known, tiles_named(called, rules)):
                if Counter(order) == tiles:
                    return tuple(order)
        return natural_order(tiles.elements(), rules)

    return [
        TableAt(
            tuple(shown(s, called) for s, called in zip(table, names) if s),
            tuple(sorted({_live_index(table, k) for k in changed if table[k]})),
            tuple((target, tuple(sorted(tiles.elements()))) for target, tiles in aside.items()),
        )
        for table, changed, aside, names in _replayed(before, plan, played, rules)
    ]


def _live_index(table: list[Counter[Tile]], k: int) -> int:
    """Index of set ``k`` among the sets that are not empty (an emptied set is not shown)."""
    return sum(1 for s in table[:k] if s)


class StepsGoWrong(Exception):
    """Steps that cannot be carried out as they are named (``replay`` says which and why)."""


def _require(holds: bool, problem: str) -> None:
    if not holds:
        raise StepsGoWrong(problem)


def replay(before: Sets, plan: Plan, played: Sequence[Tile], rules: RuleSet, locks: bool = False) -> list[Counter[Tile]]:
    """Carry the steps out on the old table, finding each set by the name the step uses.

    Checks what a person would notice: a step taking tiles a set does not hold, rack tiles the
    rack does not hold, tiles "off the end" that are not at an end, tiles left in hand; and with
    ``locks`` under locked jokers a set split or losing a tile while it holds a table joker not
    yet retrieved (which no steps avoid where the answer itself has a locked set lend a tile).
    Raises StepsGoWrong for the first.
    """
    table: list[Counter[Tile]] = [Counter(s) for s in before]
    for after, _, _, _ in _replayed(before, plan, played, rules, locks):
        table = after
    return [s for s in table if s]


def _replayed(
    before: Sets, plan: Plan, played: Sequence[Tile], rules: RuleSet, locks: bool = False
) -> Iterator[tuple[list[Counter[Tile]], set[int], dict[str, Counter[Tile]], list[str]]]:
    """After each step: the sets (an emptied set stays, empty, so indices hold), the indices the
    step changed, the tiles put aside, each set's name as the steps call it. The checks of
    ``replay`` run as it goes (``locks``: that of locked jokers too); the last ones after the
    last step."""
    table = _Replay(before, played, rules, locks)
    for step in plan.steps:
        changed = table.carry_out(step)
        yield (
            [s for _, s in table.sets],
            changed,
            {target: Counter(t for t, _ in tiles.elements()) for target, tiles in table.aside.items()},
            [n for n, _ in table.sets],
        )
    _require(not table.aside, "table tiles left in hand")
    _require(not table.rack, "played tiles left on the rack")
    moved = table.tiles_moved()
    _require(moved == plan.tiles_moved, f"the steps move {moved} table tiles, the plan says {plan.tiles_moved}")


Tagged = tuple[Tile, int | None]  # a tile and the old set it started in (None: the rack)
FREED = -1  # the "old set" of a tile a retrieve or swap took out: it counts as moved anywhere


class _Replay:
    """The table as steps change it. Sets are named as the plan names them: an old set as
    written, and when it changes as it was written, grown or trimmed (``renamed``; ``origin``
    keeps that writing). Each tile is tagged with the old set it started in, and each set with
    the old set it is built on (its ``lineage``; None for a set laid), so that the table tiles
    moved are those ending in a set not built on their own: a tile borrowed and put back is not.
    ``locks``: under locked jokers, no set may be split or lose a tile while it holds a table
    joker not yet retrieved."""

    def __init__(self, before: Sets, played: Sequence[Tile], rules: RuleSet, locks: bool = False) -> None:
        self.rules = rules
        self.locks = locks and rules.joker_rules is JokerRules.LOCKED
        self.sets = [(renamed(s, Counter(s), rules), Counter(s)) for s in before]
        self.origin: list[Sequence[Tile]] = [list(s) for s in before]
        self.tags: list[Counter[Tagged]] = [Counter((t, i) for t in s) for i, s in enumerate(before)]
        self.lineage: list[int | None] = list(range(len(before)))
        self.rack = Counter(played)
        self.aside: dict[str, Counter[Tagged]] = {}

    def tiles_moved(self) -> int:
        return sum(n for k, tags in enumerate(self.tags) for (_, o), n in tags.items() if o not in (None, self.lineage[k]))

    def find(self, called: str, holding: Counter[Tile]) -> int:
        for k, (n, s) in enumerate(self.sets):
            if n == called and not (holding - s):
                return k
        # A joker retrieved and put into a set lies at whichever end the steps go on to show it.
        named = tiles_named(called, self.rules)
        for k, (_, s) in enumerate(self.sets):
            if s == Counter(named) and self.tags[k][JOKER, FREED] and not (holding - s) and _reads_as(named, self.rules):
                self.origin[k] = named
                self.change(k, s)
                return k
        raise StepsGoWrong(f"no set {called!r} holding {format_tiles(sorted(holding.elements()))}")

    def unlocked(self, k: int, step: Step) -> None:
        """Under locked jokers set k may lose a tile only once its table jokers are retrieved."""
        held = any(t.is_joker and origin not in (None, FREED) for t, origin in +self.tags[k])
        _require(not (self.locks and held), f"takes from a set that still holds its joker (locked jokers): {step}")

    def take(self, k: int, tiles: Counter[Tile]) -> Counter[Tagged]:
        """``tiles`` off set k, tiles from other sets first (a borrowed tile goes on, its own stay)."""
        out: Counter[Tagged] = Counter()
        for t, n in tiles.items():
            tags = sorted((tag for tag in self.tags[k] if tag[0] == t), key=lambda tag: tag[1] == self.lineage[k])
            for tag in tags:
                got = min(n, self.tags[k][tag])
                out[tag] += got
                n -= got
        self.tags[k] -= out
        self.change(k, self.sets[k][1] - tiles)
        return out

    def put(self, k: int, tagged: Counter[Tagged]) -> None:
        self.tags[k] += tagged
        self.change(k, self.sets[k][1] + Counter(t for t, _ in tagged.elements()))

    def change(self, k: int, tiles: Counter[Tile]) -> None:
        self.sets[k] = (renamed(self.origin[k], tiles, self.rules), tiles)

    def deliver(self, target: str, tagged: Counter[Tagged]) -> set[int]:
        if target.startswith(NEW):
            self.aside.setdefault(target.removeprefix(NEW), Counter()).update(tagged)
            return set()
        k = self.find(target, Counter())
        self.put(k, tagged)
        return {k}

    def from_rack(self, tiles: Counter[Tile], step: Step) -> Counter[Tagged]:
        _require(not (tiles - self.rack), f"uses what the rack does not hold: {step}")
        self.rack -= tiles
        return Counter({(t, None): n for t, n in tiles.items()})

    def carry_out(self, step: Step) -> set[int]:
        """Carry out one step; the indices of the sets it changed."""
        tiles = Counter(step.tiles)
        if step.action == "split":
            return self.split(step, tiles)
        if step.action in ("retrieve", "swap"):
            return self.exchange(step)
        if step.action in ("take", "move"):
            k = self.find(step.source, tiles)
            self.unlocked(k, step)
            if step.action == "take":
                _require(_at_an_end(self.sets[k][1], tiles, self.rules), f"takes tiles that are not at an end: {step}")
            return {k} | self.deliver(step.target, self.take(k, tiles))
        if step.action == "add":
            return self.deliver(step.target, self.from_rack(tiles, step))
        _require(step.action == "lay", f"unknown action {step.action!r}")
        return self.lay(step, tiles)

    def split(self, step: Step, tiles: Counter[Tile]) -> set[int]:
        k = self.find(step.source, tiles)
        self.unlocked(k, step)
        whole = self.sets[k][1].copy()  # earlier snapshots hold the set itself
        _require(whole == tiles, f"split names the wrong tiles: {step}")
        pieces = step.target.split(" | ")
        parts = []
        for piece in pieces:
            part = Counter(tiles_named(piece, self.rules))
            _require(not (part - whole), f"split takes what the set does not hold: {step}")
            whole -= part
            parts.append((piece, part))
        _require(not whole, f"split leaves tiles out: {step}")
        tags = [self.take(k, part) for _, part in parts]
        self.sets[k : k + 1] = parts  # the parts where the run was
        self.origin[k : k + 1] = [tiles_named(piece, self.rules) for piece in pieces]
        self.tags[k : k + 1] = tags
        self.lineage[k : k + 1] = [self.lineage[k]] * len(parts)
        return set(range(k, k + len(parts)))

    def exchange(self, step: Step) -> set[int]:
        """A retrieve or swap: the new tile (from the rack, or for a retrieve from the table set
        the step's detail names) in the old one's place, the old one to the step's target."""
        new, old = step.tiles
        k = self.find(step.source, Counter([old]))
        if step.action == "retrieve":
            _require(old.is_joker, f"retrieves a tile that is not a joker: {step}")
        else:
            _require(new.number == old.number and new.colour != old.colour, f"not a group swap: {step}")
            self.unlocked(k, step)
        changed = {k}
        if step.action == "retrieve" and step.detail:
            lender = self.find(step.detail, Counter([new]))
            self.unlocked(lender, step)
            coming = self.take(lender, Counter([new]))
            changed.add(lender)
        else:
            coming = self.from_rack(Counter([new]), step)
        self.take(k, Counter([old]))
        freed: Counter[Tagged] = Counter({(old, FREED): 1})  # moved, wherever it goes (a joker retrieved moves)
        self.put(k, coming)
        return changed | self.deliver(step.target, freed)

    def lay(self, step: Step, tiles: Counter[Tile]) -> set[int]:
        laid = Counter(tiles_named(step.target, self.rules))
        _require(laid == tiles, f"lays other tiles than it names: {step}")
        # Table tiles put aside for it (two new sets may look the same: each takes its share).
        waiting = self.aside.get(step.target, Counter())
        put: Counter[Tagged] = Counter()
        for tag, n in waiting.items():
            put[tag] = min(n, (laid - Counter(t for t, _ in put.elements()))[tag[0]])
        put = +put
        waiting -= put
        if not waiting:
            self.aside.pop(step.target, None)
        mine = self.from_rack(laid - Counter(t for t, _ in put.elements()), step)
        self.sets.append((step.target, laid))
        self.origin.append(tiles_named(step.target, self.rules))
        self.tags.append(put + mine)
        self.lineage.append(None)
        return {len(self.sets) - 1}


def _reads_as(tiles: Sequence[Tile], rules: RuleSet) -> bool:
    """Whether ``tiles`` in this order are a set as the rules read it."""
    return any(r.tiles == tuple(tiles) for r in readings(list(tiles), rules))


def _at_an_end(tiles: Counter[Tile], taken: Counter[Tile], rules: RuleSet) -> bool:
    """Whether ``taken`` can come off one end of the run ``tiles``, or out of a group."""
    reading = best_reading(tiles.elements(), rules)
    if reading is None:
        return True  # a set already being rebuilt: the person sees loose tiles
    if reading.kind is Kind.GROUP:
        return True
    n = sum(taken.values())
    return any(Counter(end) == taken for end in (reading.tiles[:n], reading.tiles[len(reading.tiles) - n :]))
