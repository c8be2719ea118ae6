"""CP-SAT (OR-Tools) backend: single worker and a fixed seed, so answers are reproducible."""

from __future__ import annotations

import time

from solver.errors import BackendError
from solver.lp import INF, BackendResult, LinearModel


def solve_cpsat(lp: LinearModel, time_limit: float | None) -> BackendResult:
    try:
        from ortools.sat.python import cp_model
    except ImportError as err:  # pragma: no cover - ortools is a dependency
        raise BackendError(f"backend cpsat needs OR-Tools: {err}") from None

    started = time.perf_counter()
    model = cp_model.CpModel()
    xs = [model.new_int_var(lo, hi, name) for name, lo, hi in zip(lp.names, lp.lower, lp.upper)]
    for name, terms, lo, hi in lp.final_rows():
        expr = cp_model.LinearExpr.weighted_sum([xs[v] for v, _ in terms], [c for _, c in terms])
        if lo == hi:
            model.add(expr == int(lo)).with_name(name)
        else:
            if lo > -INF:
                model.add(expr >= int(lo)).with_name(name + "_lo")
            if hi < INF:
                model.add(expr <= int(hi)).with_name(name + "_hi")
    objective = cp_model.LinearExpr.weighted_sum(
        [xs[v] for v, _ in lp.objective], [c for _, c in lp.objective]
    )
    # The explicit bound keeps presolve from losing the rack-size limit on the objective.
    model.add(objective <= lp.objective_bound)
    model.maximize(objective)
    for var, value in zip(xs, lp.hint):
        model.add_hint(var, value)

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    # The LP relaxation of this model is tight; full linearisation lets a single worker prove
    # optimality on big tables in milliseconds where the default level took seconds.
    solver.parameters.linearization_level = 2
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = max(time_limit, 0.001)
    built = time.perf_counter()
    status = solver.solve(model)
    done = time.perf_counter()
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        values = [int(solver.value(x)) for x in xs]
        return BackendResult(values, status == cp_model.OPTIMAL, done - built, built - started)
    if status == cp_model.UNKNOWN and time_limit is not None:
        return BackendResult(None, False, done - built, built - started)
    raise BackendError(f"CP-SAT failed: status {solver.status_name(status)}")
