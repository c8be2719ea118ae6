"""Hints in three levels: how much can be played; with which tiles and table sets; the steps."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from solver.position import Position
from solver.solution import Solution, unchanged
from solver.solve import SolveOptions, solve
from solver.steps import Plan, best_steps, named_order
from solver.tiles import Tile, format_tiles, table_as_lists


@dataclass(frozen=True)
class Hint:
    level: int
    solution: Solution
    involved: tuple[tuple[Tile, ...], ...]  # table sets the best move changes, as they were (named as the steps name them)
    plan: Plan
    involved_at: tuple[int, ...] = ()  # where those sets are in the position's table (from 0)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "level": self.level,
            "status": self.solution.status.value,  # time_limit: a search the limit stopped, unproven
            "tiles": self.solution.tiles_played,
            "points": self.solution.points_played,
        }
        if self.level >= 2:
            data["rack_tiles"] = [str(t) for t in self.solution.played]
            data["table_sets"] = [format_tiles(s) for s in self.involved]
        if self.level >= 3:
            data["steps"] = [step.to_dict() for step in self.plan.steps]
            data["tiles_moved"] = self.plan.tiles_moved
            data["table"] = table_as_lists(s.tiles for s in self.solution.table)
        return data


def hint(position: Position, level: int, options: SolveOptions = SolveOptions()) -> Hint:
    """A hint of ``level`` (1-3); ``options.time_limit`` bounds each search (the move's, then the
    rearrangement's), as for ``solve``: under a limit, a move found in time."""
    if level not in (1, 2, 3):
        raise ValueError(f"hint level {level}: levels are 1, 2 and 3")
    # The answer arranged to move the fewest table tiles (see solver.least_moves).
    solution, plan = best_steps(solve(position, options), options.backend, options.time_limit)
    kept = set(unchanged(position.table, [s.tiles for s in solution.table]))
    at = tuple(i for i in range(len(position.table)) if i not in kept)
    # Each set as the steps name it: as it lies where that is a natural order (J R4 R5, not R4 R5 J).
    involved = tuple(named_order(position.table[i], Counter(position.table[i]), position.rules) for i in at)
    return Hint(level, solution, involved, plan, at)
