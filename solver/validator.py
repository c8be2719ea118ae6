"""The independent validator: is a proposed table after the move legal for this position?

It reports every violation, each with a code, a message a person can act on and the tiles
involved, and it shares nothing with the model or the backends: only the set rules (melds).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from solver.melds import best_reading, why_invalid
from solver.position import Position
from solver.rules import RuleSet, Wrap
from solver.table_jokers import joker_problems
from solver.tiles import JOKER, Tile, format_tiles


@dataclass(frozen=True, slots=True)
class Violation:
    code: str
    message: str
    tiles: tuple[Tile, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "tiles": [str(t) for t in self.tiles]}


def played_tiles(position: Position, new_table: Sequence[Sequence[Tile]]) -> Counter[Tile]:
    """Tiles on the new table that were not on the old one (what the move lays from the rack)."""
    after = Counter(t for s in new_table for t in s)
    return after - position.table_tiles


def validate(position: Position, new_table: Sequence[Sequence[Tile]]) -> list[Violation]:
    """Every rule the proposed table breaks; an empty list means the move is legal."""
    rules = position.rules
    out: list[Violation] = []
    for i, s in enumerate(new_table, 1):
        reason = why_invalid(list(s), rules)
        if reason is not None:
            out.append(
                Violation("invalid_set", f"set {i} '{format_tiles(s)}' is invalid: {reason}", tuple(s))
            )

    before = position.table_tiles
    after = Counter(t for s in new_table for t in s)
    missing = before - after
    if missing:
        tiles = tuple(sorted(missing.elements()))
        out.append(
            Violation(
                "table_tile_missing",
                f"table tile{'s' if len(tiles) > 1 else ''} {format_tiles(tiles)} not on the table after the move"
                " (tiles may not go back to the rack)",
                tiles,
            )
        )
    played = after - before
    extra = played - Counter(position.rack)
    if extra:
        tiles = tuple(sorted(extra.elements()))
        out.append(
            Violation(
                "tile_not_available",
                f"{format_tiles(tiles)} neither on the table nor on the rack",
                tiles,
            )
        )
    rearranged = Counter(_key(s) for s in new_table) != Counter(_key(s) for s in position.table)
    if not played and rearranged and not missing:
        out.append(
            Violation(
                "no_tile_played",
                "the table was rearranged but no tile was played"
                " (a turn lays at least one tile from the rack; otherwise the player draws)",
            )
        )
    if not position.opened and (played or rearranged):
        out += _initial_meld_violations(position, new_table, played - extra)
    if not missing and not extra:
        out += [Violation(p.code, p.message, p.tiles) for p in joker_problems(position, new_table)]
    return out


def _initial_meld_violations(
    position: Position, new_table: Sequence[Sequence[Tile]], played: Counter[Tile]
) -> list[Violation]:
    rules = position.rules
    out: list[Violation] = []
    threshold = rules.meld_threshold
    if not rules.continue_after_meld:
        # The table stays as it was: every original set must still be there, untouched.
        remaining = Counter(_key(s) for s in new_table)
        for s in position.table:
            if remaining[_key(s)] > 0:
                remaining[_key(s)] -= 1
            else:
                out.append(
                    Violation(
                        "table_touched_before_opening",
                        f"table set '{format_tiles(s)}' changed before opening (initial meld: new sets from the rack only)",
                        tuple(s),
                    )
                )
        # The meld is what was laid from the rack: sets made of played tiles only.
        own = played.copy()
        new_sets = []
        for key, n in sorted(remaining.items()):
            for _ in range(n):
                if not (Counter(key) - own):
                    own -= Counter(key)
                    new_sets.append(list(key))
        if not rules.joker_in_meld:
            # Without continuing, everything laid is the meld.
            jokers = [t for t in played.elements() if t.is_joker]
            if jokers:
                out.append(
                    Violation(
                        "joker_in_meld",
                        "a joker may not be part of the initial meld (rule joker-in-meld=no)",
                        tuple(jokers),
                    )
                )
        value = sum(_value(s, position) for s in new_sets)
        if played and value < threshold:
            out.append(
                Violation(
                    "meld_below_threshold",
                    f"initial meld worth {value} points, needs at least {threshold}",
                    tuple(t for s in new_sets for t in s),
                )
            )
        return out
    # Continuing after the meld: the played tiles must hold sets of the player's own tiles worth
    # the threshold (laid first; the player may rearrange them afterwards with the rest).
    if not played:
        return out  # nothing laid: rearranging alone is reported as no_tile_played
    best = best_meld_value(played, position.rules, threshold)
    if best < threshold or (threshold == 0 and best_meld_sets(played, position.rules) == 0):
        out.append(
            Violation(
                "meld_below_threshold",
                f"the tiles played hold no initial meld worth {threshold} points"
                f" (best: {best}{'' if rules.joker_in_meld else ', jokers excluded: rule joker-in-meld=no'})",
                tuple(sorted(played.elements())),
            )
        )
    return out


def _key(s: Sequence[Tile]) -> tuple[Tile, ...]:
    return tuple(sorted(s))


def _value(s: Sequence[Tile], position: Position) -> int:
    reading = best_reading(s, position.rules)
    return reading.value if reading else 0


def _sets_within(tiles: Counter[Tile], rules: RuleSet) -> tuple[tuple[Counter[Tile], int], ...]:
    """Every valid set that can be formed from ``tiles`` (jokers only if the meld may hold them),
    as tile counts (shared from a cache: read them, never change them) and values."""
    return _sets_in(tuple(sorted(tiles.elements())), rules)


@lru_cache(maxsize=1024)
def _sets_in(multiset: tuple[Tile, ...], rules: RuleSet) -> tuple[tuple[Counter[Tile], int], ...]:
    """Cached by multiset: the opening shortcut and the validator ask about the same rack."""
    tiles = Counter(multiset)
    jokers = tiles[JOKER] if rules.joker_in_meld else 0
    numbered = sorted(t for t in tiles if not t.is_joker)
    found: dict[tuple[Tile, ...], int] = {}
    # Longer runs split into shorter ones of the same total value, so these lengths suffice.
    longest = max(rules.max_run_length, rules.colours)
    by_colour: dict[int, set[Tile]] = {}
    by_number: dict[int, set[Tile]] = {}
    for t in numbered:
        by_colour.setdefault(t.colour, set()).add(t)
        by_number.setdefault(t.number, set()).add(t)
    def subsets(family: list[Tile], runs: bool) -> Iterator[tuple[Tile, ...]]:
        if runs and rules.wrap is Wrap.NONE:
            # A run's tiles lie within `longest` consecutive numbers: pick the lowest, then others.
            for i, first in enumerate(family):
                near = [t for t in family[i + 1 :] if t.number - first.number < longest]
                for size in range(0, min(len(near), longest - 1) + 1):
                    for rest in combinations(near, size):
                        yield (first, *rest)
            return
        for size in range(1, min(len(family), longest) + 1):
            yield from combinations(family, size)

    families = [(sorted(f), True) for f in by_colour.values()] + [(sorted(f), False) for f in by_number.values()]
    for family, runs in families:
        for chosen in subsets(family, runs):
            size = len(chosen)
            for j in range(0, jokers + 1):
                if not rules.min_set_size <= size + j <= longest:
                    continue
                key = (*chosen, *([JOKER] * j))
                reading = best_reading(key, rules)
                if reading is not None:
                    found[key] = reading.value
    return tuple((Counter(key), value) for key, value in found.items())


def meld_value_bound(rack: Counter[Tile], rules: RuleSet) -> int:
    """An upper bound on any initial meld from these tiles: every tile that fits in some set."""
    usable: set[Tile] = set()
    for need, _ in _sets_within(rack, rules):
        usable |= set(need)
    top = rules.numbers
    return sum(top if t.is_joker else t.number * rack[t] for t in usable) + (
        top * (rack[JOKER] - 1) if JOKER in usable and rack[JOKER] > 1 else 0
    )


def best_meld_value(played: Counter[Tile], rules: RuleSet, goal: int) -> int:
    """Largest total value of disjoint valid sets formed from ``played`` (search stops at ``goal``)."""
    options = sorted(_sets_within(played, rules), key=lambda sv: -sv[1])
    best = 0

    def search(start: int, room: Counter[Tile], total: int) -> None:
        nonlocal best
        best = max(best, total)
        for i in range(start, len(options)):
            if best >= goal:
                return
            need, value = options[i]
            if not (need - room):
                search(i, room - need, total + value)

    search(0, played, 0)
    return best


def best_meld_sets(played: Counter[Tile], rules: RuleSet) -> int:
    """How many valid meld sets the played tiles can form (0 or more; used for threshold 0)."""
    return len(_sets_within(played, rules))
