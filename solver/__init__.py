"""Rummikub optimal-move solver: the library's front door.

A position (rack, table, rules) in, the best move out, checked by an independent validator::

    from solver import Position, solve, validate

    position = Position.from_strings("R5 B7 O7", ["R4 J R6", "K1 K2 K3"])
    answer = solve(position)
    print(answer.tiles_played, [str(s) for s in answer.table])  # 3 ['K1 K2 K3', 'R4 R5 R6', ...]
    assert not validate(position, [s.tiles for s in answer.table])

Each name lives in the module that owns its concept (README, "Layout"); these are re-exported.
"""

from solver.errors import BackendError, NotationError, PositionError, RulesError, RummikubError
from solver.position import Position
from solver.rules import RuleSet, Wrap
from solver.solution import Objective, Solution
from solver.solve import SolveOptions, solve
from solver.tiles import Tile
from solver.validator import Violation, validate

__all__ = [
    "BackendError",
    "NotationError",
    "Objective",
    "Position",
    "PositionError",
    "RuleSet",
    "RulesError",
    "RummikubError",
    "Solution",
    "SolveOptions",
    "Tile",
    "Violation",
    "Wrap",
    "solve",
    "validate",
]
