"""Solver backends behind one small interface: a LinearModel in, variable values out.

Each backend module imports its solver library lazily, so the CLI starts fast and a missing
library is a clear error rather than an import failure at start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from solver.errors import BackendError
from solver.model import LinearModel


@dataclass(frozen=True, slots=True)
class BackendResult:
    values: list[int] | None  # None: no solution found (only possible when a limit stopped it)
    optimal: bool  # proven optimal
    seconds: float  # time inside the solver
    build_seconds: float  # time turning the LinearModel into the solver's model


SolveFunction = Callable[[LinearModel, float | None], BackendResult]

BACKENDS = ("bnb", "highs", "cpsat", "cbc")


def get_backend(name: str) -> SolveFunction:
    """The solve function of a backend by name (``bnb``, ``highs``, ``cpsat``, ``cbc``)."""
    if name == "cpsat":
        from solver.backends.cpsat import solve_cpsat

        return solve_cpsat
    if name == "bnb":
        from solver.backends.bnb import solve_bnb

        return solve_bnb
    if name == "highs":
        from solver.backends.highs import solve_highs

        return solve_highs
    if name == "cbc":
        from solver.backends.cbc import solve_cbc

        return solve_cbc
    raise BackendError(f"unknown backend {name!r} (backends: {', '.join(BACKENDS)})")


def preload(name: str) -> None:
    """Import a backend's solver library now (before forking workers, say); errors wait for use."""
    modules = {
        "bnb": ("numpy", "highspy"),
        "highs": ("numpy", "highspy"),
        "cpsat": ("ortools.sat.python.cp_model",),
        "cbc": ("pulp",),
    }
    for module in modules.get(name, ()):
        try:
            importlib.import_module(module)
        except ImportError:
            return
