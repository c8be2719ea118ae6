"""Solver backends behind one small interface (``solver.lp``): a LinearModel in, a BackendResult out.

``get_backend`` chooses one by name; the backends import ``solver.lp``, never this dispatcher.

Each backend module imports its solver library lazily, so the CLI starts fast and a missing
library is a clear error rather than an import failure at start-up.
"""

from __future__ import annotations

import importlib

from solver.errors import BackendError
from solver.lp import SolveFunction

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
    """Import a backend and its solver library now (before forking workers, say, or timing a
    first solve); errors wait for use."""
    modules = {
        "bnb": ("solver.backends.bnb", "numpy", "highspy"),
        "highs": ("solver.backends.highs", "numpy", "highspy"),
        "cpsat": ("solver.backends.cpsat", "ortools.sat.python.cp_model"),
        "cbc": ("solver.backends.cbc", "pulp"),
    }
    for module in modules.get(name, ()):
        try:
            importlib.import_module(module)
        except ImportError:
            return
