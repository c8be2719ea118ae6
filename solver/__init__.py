"""Rummikub optimal-move solver: notation, rules, set enumeration, validator and ILP backends.

The public entry points are re-exported here; each lives in the module that owns its concept.
"""

from solver.errors import BackendError, NotationError, PositionError, RulesError, RummikubError
from solver.rules import RuleSet, Wrap
from solver.tiles import Tile

__all__ = [
    "BackendError",
    "NotationError",
    "PositionError",
    "RuleSet",
    "RulesError",
    "RummikubError",
    "Tile",
    "Wrap",
]
