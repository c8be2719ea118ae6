"""The LP relaxations that bnb solves, behind one small interface, by one of two engines.

- ``simplex``: the project's own dense dual simplex (``_dualsimplex.c``, compiled at install).
  bnb's LPs are tiny (about 280 columns, 55 to 80 rows) and differ from the previous one by a
  few bounds, so a run costs 15-20 pivots; HiGHS adds 0.3-0.5 ms of fixed work to every run
  (checking the model, reading the CPU topology, reports), which this engine does not have.
- ``highs``: HiGHS's dual simplex through highspy: the engine for models over DENSE_ROWS rows
  and when the extension was not built (no C compiler at install), and the cross-check of the
  other in the tests.

The answers are used in ways that stay exact: an LP value is an upper bound on the model's
optimum (bnb rounds it with a slack; the simplex engine returns a bound that holds whatever its
numerical accuracy, see ``lagrangian_bound`` in the C file, and its "infeasible" comes with a
checked proof), and every integral solution is checked row by row in integers before it is
accepted.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from solver.backends.highs import _new_highs, pass_model, run
from solver.lp import LpArrays

ENGINES = ("simplex", "highs")
SOLVES = [0]  # LP solves so far in this process, by every engine (the bench's work measure)
TOLERANCE = 1e-6  # a solution vector this far outside its bounds is stale
# The simplex engine keeps a dense basis inverse: a pivot costs rows squared, a refactor rows
# cubed. The pattern model's 53 rows suit it; bigger models (an initial meld's flow model has 400
# rows and more) are cheaper on HiGHS.
DENSE_ROWS = 150


class LpFailure(Exception):
    """The engine could not solve an LP (numerical trouble, too many iterations)."""


class LpEngine(Protocol):
    """An LP ``max cost.x, row_lower <= A x <= row_upper, lower <= x <= upper`` kept loaded
    between solves; bounds may change within the first ones given, rows may be added."""

    kind: str  # "simplex" or "highs"

    def set_bounds(self, columns: Any, lower: Any, upper: Any) -> None: ...

    def set_cost(self, cost: Any) -> None: ...

    def add_row_at_least(self, coefficients: Any, lower: float) -> None: ...

    def solve(self) -> tuple[Any, float] | None:
        """The optimum and an upper bound on its value, or None if the LP is infeasible."""
        ...

    def basic_variables(self) -> Any:
        """Per basis position: a column, or ``-(1 + i)`` for row i's logical (``-activity``)."""
        ...

    def inverse_rows(self, positions: list[int]) -> Any:
        """Those rows of the basis inverse (over the logical convention above)."""
        ...

    def row_bounds(self) -> tuple[Any, Any]:
        """The rows' activity bounds as solved: finite where the engine tightened infinite ones
        to what the columns' first bounds imply (valid at every solution, so cuts may use them)."""
        ...

    def reduced_costs(self) -> Any | None:
        """Right after an optimal solve, the columns' reduced costs (maximising) behind its bound:
        moving column j one unit off the bound its sign picks lowers that bound by at least
        ``|r[j]|``. None if the engine's bound does not come with them."""
        ...


def available() -> bool:
    """Whether the compiled simplex engine is importable (it is optional at install)."""
    try:
        from solver.backends import _dualsimplex  # noqa: F401
    except ImportError:
        return False
    return True


def make_engine(arrays: LpArrays, kind: str = "auto") -> LpEngine:
    """The engine for these arrays: ``auto`` takes the simplex engine when it was built and the
    model is small enough for its dense inverse (see DENSE_ROWS)."""
    dense = len(arrays.row_lower) <= DENSE_ROWS
    if kind == "simplex" or (kind == "auto" and dense and available()):
        return SimplexEngine(arrays)
    if kind in ("auto", "highs"):
        return HighsEngine(arrays)
    raise ValueError(f"unknown LP engine {kind!r} (engines: auto, {', '.join(ENGINES)})")


class SimplexEngine:
    kind = "simplex"

    def __init__(self, arrays: LpArrays) -> None:
        import numpy as np

        from solver.backends._dualsimplex import Simplex

        self._np = np
        self._n = len(arrays.cost)
        f64 = self._f64
        self._simplex = Simplex(
            self._n,
            len(arrays.row_lower),
            self._i32(arrays.start),
            self._i32(arrays.index),
            f64(arrays.value),
            f64(arrays.cost),
            f64(arrays.lower),
            f64(arrays.upper),
            f64(arrays.row_lower),
            f64(arrays.row_upper),
        )

    # The extension reads plain C arrays: contiguous, of exactly these types.
    def _f64(self, a: Any) -> Any:
        return self._np.ascontiguousarray(a, dtype=self._np.float64)

    def _i32(self, a: Any) -> Any:
        return self._np.ascontiguousarray(a, dtype=self._np.int32)

    def set_bounds(self, columns: Any, lower: Any, upper: Any) -> None:
        self._simplex.set_bounds(self._i32(columns), self._f64(lower), self._f64(upper))

    def set_cost(self, cost: Any) -> None:
        self._simplex.set_cost(self._f64(cost))

    def add_row_at_least(self, coefficients: Any, lower: float) -> None:
        self._simplex.add_row(self._f64(coefficients), lower, math.inf)

    def solve(self) -> tuple[Any, float] | None:
        SOLVES[0] += 1
        status = self._simplex.solve()
        if status == 1:
            return None
        if status != 0:
            raise LpFailure("the simplex engine failed on an LP")
        x = self._np.empty(self._n)
        self._simplex.solution(x)
        return x, float(self._simplex.bound)

    def basic_variables(self) -> Any:
        out = self._np.empty(self._simplex.rows, dtype=self._np.int32)
        self._simplex.basic_variables(out)
        return out

    def inverse_rows(self, positions: list[int]) -> Any:
        out = self._np.empty((len(positions), self._simplex.rows))
        for k, p in enumerate(positions):
            self._simplex.inverse_row(p, out[k])
        return out

    def row_bounds(self) -> tuple[Any, Any]:
        m = self._simplex.rows
        lower, upper = self._np.empty(m), self._np.empty(m)
        self._simplex.row_bounds(lower, upper)
        return lower, upper

    def reduced_costs(self) -> Any | None:
        out = self._np.empty(self._n)
        self._simplex.reduced_costs(out)
        return -out  # the extension minimises


_HIGHS: Any = None


class HighsEngine:
    """HiGHS's LP solver, one per process, emptied for each model (creating one costs 0.4 ms).

    clearModel() drops the model, basis and solution, so no state carries over; a solution
    vector outside the bounds (HiGHS has handed back a previous solve's) is solved afresh.
    """

    kind = "highs"

    def __init__(self, arrays: LpArrays) -> None:
        global _HIGHS
        import highspy
        import numpy as np

        self._np, self._highspy = np, highspy
        if _HIGHS is None:
            _HIGHS = _new_highs(highspy)
            for option, value in (
                ("output_flag", False),
                ("presolve", "off"),  # tiny LPs: presolve costs more than it saves, per node
                ("threads", 1),
                ("random_seed", 0),
            ):
                _HIGHS.setOptionValue(option, value)
        else:
            _HIGHS.clearModel()
        self._solver = _HIGHS
        pass_model(highspy, self._solver, arrays)
        self._lower, self._upper = arrays.lower.copy(), arrays.upper.copy()
        self._cost = arrays.cost
        self._row_lower, self._row_upper = list(arrays.row_lower), list(arrays.row_upper)

    def set_bounds(self, columns: Any, lower: Any, upper: Any) -> None:
        columns = self._np.asarray(columns, dtype=self._np.int32)
        self._solver.changeColsBounds(len(columns), columns, lower, upper)
        self._lower[columns], self._upper[columns] = lower, upper

    def set_cost(self, cost: Any) -> None:
        n = len(cost)
        self._solver.changeColsCost(n, self._np.arange(n, dtype=self._np.int32), cost)
        self._cost = cost

    def add_row_at_least(self, coefficients: Any, lower: float) -> None:
        nonzero = self._np.flatnonzero(coefficients).astype(self._np.int32)
        self._solver.addRow(lower, self._highspy.kHighsInf, len(nonzero), nonzero, coefficients[nonzero])
        self._row_lower.append(lower)
        self._row_upper.append(math.inf)

    def solve(self) -> tuple[Any, float] | None:
        np, status_of = self._np, self._highspy.HighsModelStatus
        for _attempt in range(2):
            SOLVES[0] += 1
            run(self._highspy, self._solver)
            status = self._solver.getModelStatus()
            if status == status_of.kInfeasible:
                return None
            if status != status_of.kOptimal:
                raise LpFailure(f"HiGHS: {self._solver.modelStatusToString(status)}")
            x = np.asarray(self._solver.getSolution().col_value)
            if not ((x < self._lower - TOLERANCE).any() or (x > self._upper + TOLERANCE).any()):
                return x, float(self._cost @ x)
            self._solver.clearSolver()  # a stale solution vector: solve this LP afresh, once
        raise LpFailure("HiGHS returned a solution outside the bounds twice")

    def basic_variables(self) -> Any:
        return self._np.asarray(self._solver.getBasicVariables()[1])

    def inverse_rows(self, positions: list[int]) -> Any:
        return self._np.array([self._solver.getBasisInverseRow(p)[1] for p in positions])

    def row_bounds(self) -> tuple[Any, Any]:
        return self._np.array(self._row_lower), self._np.array(self._row_upper)

    def reduced_costs(self) -> Any | None:
        return None  # its bound is the solution's value, within HiGHS's tolerances: no margin to fix by
