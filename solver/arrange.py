"""Repairing a table: a valid arrangement of all its tiles, keeping as many given lines as possible.

For the moment every family knows: the table was rearranged, time ran out or somebody made a mess,
and nobody remembers the sets. If no arrangement uses every tile, the answer is the fewest tiles to
take back (the time-limit penalty rule in docs/rules.md) and which, with the rest arranged. Solved as a
turn in which every tile is "on the rack" and the lines given are the sets to keep when possible:
most tiles placed, then the most value placed (the least taken back), then the most lines kept.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from solver.backends import get_backend
from solver.errors import ValidationFailure
from solver.melds import best_reading, why_invalid
from solver.model.deadline import BUILD_DEADLINE, BuildTimeLimit
from solver.model.flow import build_flow_model, flow_supported, with_jokers_present
from solver.model.sets import build_set_model
from solver.position import Position
from solver.rules import RuleSet
from solver.solution import Objective, sort_key, unchanged
from solver.tiles import JOKER, Tile, table_as_lists


@dataclass(frozen=True)
class Arrangement:
    lines: tuple[tuple[Tile, ...], ...]  # as given
    table: tuple[tuple[Tile, ...], ...]  # valid sets in natural order
    kept_lines: tuple[int, ...]  # numbers (from 1) of the given lines left exactly as they were
    take_back: tuple[Tile, ...]  # tiles no valid arrangement can hold
    optimal: bool
    seconds: float
    heap: bool = False  # the tiles were a loose heap: no line was worth keeping

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "status": "optimal" if self.optimal else "time_limit",
            "table": table_as_lists(self.table),
            "kept_lines": list(self.kept_lines),
            "take_back": [str(t) for t in self.take_back],
        }
        if timing:
            data["seconds"] = round(self.seconds, 6)
        return data


def arrange(
    lines: Sequence[Sequence[Tile]],
    rules: RuleSet,
    backend: str = "bnb",
    time_limit: float | None = None,
    heap: bool = False,
) -> Arrangement:
    """The best valid arrangement of every tile in ``lines`` (see the module docstring).

    ``heap``: the lines are no sets at all, only tiles (none is kept, ``kept_lines`` is empty).
    """
    started = time.perf_counter()
    tiles = tuple(t for line in lines for t in line)
    # The flow model where the rules allow it (fastest), as they do for fewer jokers than there
    # may be; the set model beyond (full wrap, as many jokers as the smallest set).
    model_rules = with_jokers_present(rules, tiles.count(JOKER))
    position = Position(rack=tiles, table=(), opened=True, rules=model_rules)
    wanted = [] if heap else [line for line in lines if why_invalid(list(line), rules) is None]
    build = build_flow_model if flow_supported(model_rules) else build_set_model
    token = BUILD_DEADLINE.set(None if time_limit is None else started + time_limit)
    try:
        model = build(position, Objective.TILES, keep=wanted)
    except BuildTimeLimit:  # out of time before a search: nothing arranged, nothing proven
        return Arrangement(
            tuple(tuple(line) for line in lines), (), (), tuple(sorted(tiles)), False, time.perf_counter() - started, heap
        )
    finally:
        BUILD_DEADLINE.reset(token)
    left = None if time_limit is None else max(time_limit - (time.perf_counter() - started), 0.001)
    result = get_backend(backend)(model.lp, left)
    values = result.values if result.values is not None else model.lp.hint
    sets, placed = model.decode(values)
    for s in sets:
        if best_reading(s, rules) is None:
            raise ValidationFailure(f"arrange produced an invalid set {[str(t) for t in s]}")
    take_back = Counter(tiles) - Counter(placed)
    if Counter(t for s in sets for t in s) != Counter(placed):
        raise ValidationFailure("arrange lost or invented tiles")
    # Which given lines stand exactly as they were (numbered from 1).
    kept = [] if heap else [i + 1 for i in unchanged(lines, sets)]
    shown = [best_reading(s, rules) for s in sets]
    table = sorted((r.tiles for r in shown if r is not None), key=lambda s: sort_key(s, rules))
    return Arrangement(
        lines=tuple(tuple(line) for line in lines),
        table=tuple(table),
        kept_lines=tuple(kept),
        take_back=tuple(sorted(take_back.elements())),
        optimal=result.optimal,
        seconds=time.perf_counter() - started,
        heap=heap,
    )
