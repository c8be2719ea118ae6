"""A move as steps a person can carry out at the table, one after another.

The table after the move is matched to the table before it: each new set is built on the old set
it shares most tiles with (its base; a run split in two is the base of both parts), and every other
tile comes from the rack or from an old set it leaves. The steps, in an order that can be followed:

1. ``split``: split an old set into the parts that stay together (and what is left to move away);
2. ``move``: move table tiles from the set they are in to the set they join (an old set, or a new
   set laid in step 4 — they are put aside until then);
3. ``add``: add rack tiles to a set;
4. ``lay``: lay a new set (rack tiles and any table tiles put aside for it).

Sets are named as the person sees them at that moment (their tiles in natural order).
``tiles_moved`` counts table tiles that change set; a split moves none. ``replay`` carries the
steps out on the old table and must end with exactly the new one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from solver.melds import best_reading
from solver.rules import RuleSet
from solver.tiles import Tile, format_tiles

Sets = Sequence[Sequence[Tile]]


@dataclass(frozen=True)
class Step:
    action: str  # split, move, add, lay
    tiles: tuple[Tile, ...]
    source: str  # the set the tiles come from, or "rack"
    target: str  # the set they go to (split: the parts, separated by " | ")

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "tiles": [str(t) for t in self.tiles],
            "from": self.source,
            "to": self.target,
        }

    def __str__(self) -> str:
        tiles = format_tiles(self.tiles)
        if self.action == "split":
            return f"Split {self.source} into {self.target.replace(' | ', ' and ')}"
        if self.action == "move":
            return f"Move {tiles} from {self.source} to {self.target}"
        if self.action == "add":
            return f"Add {tiles} from your rack to {self.target}"
        return f"Lay {self.target}" + (f" (using {tiles} from the table)" if self.tiles else "")


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    tiles_moved: int


def name(tiles: Sequence[Tile] | Counter[Tile], rules: RuleSet) -> str:
    """A set as a person sees it: its tiles in natural order (sorted when it is not a set yet)."""
    items = list(tiles.elements()) if isinstance(tiles, Counter) else list(tiles)
    reading = best_reading(items, rules)
    return format_tiles(reading.tiles if reading else sorted(items))


def plan_steps(before: Sets, after: Sets, played: Sequence[Tile], rules: RuleSet) -> Plan:
    """Steps turning the table ``before`` into ``after`` with the ``played`` rack tiles."""
    old = [Counter(s) for s in before]
    new = [Counter(s) for s in after]
    left = [o.copy() for o in old]  # tiles of each old set not yet given a place
    base: list[int | None] = [None] * len(new)
    kept: list[Counter[Tile]] = [Counter() for _ in new]
    # Biggest overlaps first, so exact copies and extensions keep their own old set.
    pairs = sorted(
        ((sum((o & n).values()), -i, -j) for i, o in enumerate(old) for j, n in enumerate(new)), reverse=True
    )
    for overlap, i, j in pairs:
        i, j = -i, -j
        share = left[i] & new[j]
        if overlap and base[j] is None and sum(share.values()) > 1:
            base[j], kept[j] = i, share
            left[i] -= share
    rack = Counter(played)
    from_rack: list[Counter[Tile]] = []
    for j, n in enumerate(new):
        from_rack.append((n - kept[j]) & rack)
        rack -= from_rack[j]
    moves: list[tuple[int, int, Counter[Tile]]] = []  # (old set, new set, tiles)
    for j, n in enumerate(new):
        need = n - kept[j] - from_rack[j]
        for i in range(len(old)):
            take = left[i] & need
            if take:
                moves.append((i, j, take))
                left[i] -= take
                need -= take
        if need:
            raise ValueError(
                f"the new table holds tiles from nowhere: {format_tiles(sorted(need.elements()))}"
            )
    # Each step names the sets as they look at that moment; `state` follows the table as it goes.
    state: dict[int, Counter[Tile]] = {i: o.copy() for i, o in enumerate(old)}
    holder: dict[int, int] = {}  # new set -> the set (id in state) it is built on
    steps: list[Step] = []
    for i in range(len(old)):
        parts = [j for j in range(len(new)) if base[j] == i]
        if len(parts) > 1:
            rest = old[i] - sum((kept[j] for j in parts), Counter())
            shown = [name(kept[j], rules) for j in parts] + ([name(rest, rules)] if rest else [])
            steps.append(
                Step("split", tuple(sorted(old[i].elements())), name(state[i], rules), " | ".join(shown))
            )
            for j in parts:
                holder[j] = len(state) + len(old)
                state[holder[j]] = kept[j].copy()
            state[i] = rest
        elif parts:
            holder[parts[0]] = i
    aside: dict[int, Counter[Tile]] = {}

    def where(j: int) -> str:
        if j in holder:
            return name(state[holder[j]], rules)
        return f"the new set {name(new[j], rules)}"

    for i, j, tiles in moves:
        steps.append(Step("move", tuple(sorted(tiles.elements())), name(state[i], rules), where(j)))
        state[i] = state[i] - tiles
        if j in holder:
            state[holder[j]].update(tiles)
        else:
            aside.setdefault(j, Counter()).update(tiles)
    for j in range(len(new)):
        if from_rack[j] and j in holder:
            steps.append(Step("add", tuple(sorted(from_rack[j].elements())), "rack", where(j)))
            state[holder[j]].update(from_rack[j])
    for j in range(len(new)):
        if j not in holder:
            table_tiles = tuple(sorted(aside.get(j, Counter()).elements()))
            steps.append(Step("lay", table_tiles, "rack", name(new[j], rules)))
    return Plan(tuple(steps), sum(sum(tiles.values()) for _, _, tiles in moves))


def replay(before: Sets, plan: Plan, played: Sequence[Tile], rules: RuleSet) -> list[Counter[Tile]]:
    """Carry the steps out on the old table, finding each set by the name the step uses."""
    table: list[tuple[str, Counter[Tile]]] = [(name(s, rules), Counter(s)) for s in before]
    rack = Counter(played)
    aside: dict[str, Counter[Tile]] = {}

    def take_set(called: str, holding: Counter[Tile]) -> int:
        for k, (n, s) in enumerate(table):
            if n == called and not (holding - s):
                return k
        raise AssertionError(f"no set {called!r} holding {holding}")

    def parse(text: str) -> Counter[Tile]:
        from solver.tiles import parse_token

        return Counter(t for tok in text.split() for t in parse_token(tok, rules))

    for step in plan.steps:
        tiles = Counter(step.tiles)
        if step.action == "split":
            _, whole = table.pop(take_set(step.source, tiles))
            for piece in step.target.split(" | "):
                part = parse(piece)
                assert not (part - whole), f"split takes what the set does not hold: {step}"
                whole -= part
                table.append((piece, part))
            assert not whole, f"split leaves tiles out: {step}"
        elif step.action == "move":
            k = take_set(step.source, tiles)
            rest = table[k][1] - tiles
            table[k] = (name(rest, rules), rest)
            if step.target.startswith("the new set "):
                aside.setdefault(step.target.removeprefix("the new set "), Counter()).update(tiles)
            else:
                k = take_set(step.target, Counter())
                grown = table[k][1] + tiles
                table[k] = (name(grown, rules), grown)
        elif step.action == "add":
            assert not (tiles - rack), f"adds what the rack does not hold: {step}"
            rack -= tiles
            k = take_set(step.target, Counter())
            grown = table[k][1] + tiles
            table[k] = (name(grown, rules), grown)
        else:
            laid = parse(step.target)
            from_table = aside.pop(step.target, Counter())
            assert from_table == tiles, f"lays table tiles not put aside: {step}"
            assert not (laid - from_table - rack), f"lays what the rack does not hold: {step}"
            rack -= laid - from_table
            table.append((step.target, laid))
    assert not aside and not rack, "tiles left in hand or on the rack"
    return [s for _, s in table if s]
