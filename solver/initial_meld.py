"""The initial meld's arithmetic: which sets a rack's own tiles can form, and what they are worth.

Shared by the validator (is a proposed opening worth the threshold?), the solver's opening
shortcuts (can this rack open at all?) and the puzzle generator (does a rack give a meld away?).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from itertools import combinations

from solver.melds import best_reading
from solver.rules import RuleSet, Wrap
from solver.tiles import JOKER, Tile


def meld_sets(tiles: Counter[Tile], rules: RuleSet) -> tuple[tuple[Counter[Tile], int], ...]:
    """Every valid set that can be formed from ``tiles`` (jokers only if the meld may hold them),
    as tile counts (shared from a cache: read them, never change them) and values."""
    return _meld_sets_in(tuple(sorted(tiles.elements())), rules)


@lru_cache(maxsize=1024)
def _meld_sets_in(multiset: tuple[Tile, ...], rules: RuleSet) -> tuple[tuple[Counter[Tile], int], ...]:
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
    for need, _ in meld_sets(rack, rules):
        usable |= set(need)
    top = rules.numbers
    return sum(top if t.is_joker else t.number * rack[t] for t in usable) + (
        top * (rack[JOKER] - 1) if JOKER in usable and rack[JOKER] > 1 else 0
    )


def best_meld_value(played: Counter[Tile], rules: RuleSet, goal: int) -> int:
    """Largest total value of disjoint valid sets formed from ``played`` (search stops at ``goal``)."""
    options = sorted(meld_sets(played, rules), key=lambda sv: -sv[1])
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


def a_meld(played: Counter[Tile], rules: RuleSet) -> list[Counter[Tile]] | None:
    """Disjoint valid sets of ``played`` worth the meld threshold (at least one set), the most
    valuable first; None if there are none."""
    options = sorted(meld_sets(played, rules), key=lambda sv: -sv[1])
    goal = rules.meld_threshold
    chosen: list[Counter[Tile]] = []

    def search(start: int, room: Counter[Tile], total: int) -> bool:
        if chosen and total >= goal:
            return True
        for i in range(start, len(options)):
            need, value = options[i]
            if not (need - room):
                chosen.append(need)
                if search(i, room - need, total + value):
                    return True
                chosen.pop()
        return False

    return [Counter(s) for s in chosen] if search(0, played, 0) else None


def best_meld_sets(played: Counter[Tile], rules: RuleSet) -> int:
    """How many valid meld sets the played tiles can form (0 or more; used for threshold 0)."""
    return len(meld_sets(played, rules))
