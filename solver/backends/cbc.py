"""CBC backend through PuLP (PuLP bundles the CBC binary). Single-threaded, so deterministic."""

from __future__ import annotations

import time
import warnings

from solver.errors import BackendError
from solver.lp import INF, BackendResult, LinearModel


def solve_cbc(lp: LinearModel, time_limit: float | None) -> BackendResult:
    try:
        import pulp
    except ImportError as err:  # pragma: no cover - pulp is a dependency
        raise BackendError(f"backend cbc needs PuLP: {err}") from None

    started = time.perf_counter()
    prob = pulp.LpProblem("rummikub_turn", pulp.LpMaximize)
    xs = [
        prob.add_variable(name, lowBound=lo, upBound=hi, cat=pulp.LpInteger)
        for name, lo, hi in zip(lp.names, lp.lower, lp.upper)
    ]
    prob += pulp.LpAffineExpression([(xs[v], c) for v, c in lp.objective]), "objective"
    for name, terms, lo, hi in lp.final_rows():
        expr = pulp.LpAffineExpression([(xs[v], c) for v, c in terms])
        if lo == hi:
            prob += pulp.LpConstraint(expr, pulp.LpConstraintEQ, name, lo)
        else:
            if lo > -INF:
                prob += pulp.LpConstraint(expr, pulp.LpConstraintGE, name + "_lo", lo)
            if hi < INF:
                prob += pulp.LpConstraint(expr, pulp.LpConstraintLE, name + "_hi", hi)
    for var, value in zip(xs, lp.hint):
        var.setInitialValue(value)
    options = {"msg": False, "warmStart": True, "gapRel": 0.0, "gapAbs": 0.5}
    if time_limit is not None:
        options["timeLimit"] = max(time_limit, 0.01)
    with warnings.catch_warnings():
        # PuLP 3.x warns that the bundled CBC moves to an extra in 4.0; 3.x is pinned.
        warnings.simplefilter("ignore", DeprecationWarning)
        solver = pulp.PULP_CBC_CMD(**options)
    built = time.perf_counter()
    try:
        prob.solve(solver)
    except pulp.PulpSolverError as err:
        stopped = time.perf_counter() - built
        if time_limit is not None and stopped >= time_limit:
            # The bundled CBC crashes (segmentation fault) when its time runs out while it is
            # still processing the MIP start: measured at 0.01-0.02 s on game-size models. Only
            # the time was up: nothing found in it.
            return BackendResult(None, False, stopped, built - started)
        raise BackendError(f"CBC failed: {_one_line(str(err))}") from None
    done = time.perf_counter()
    if prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        values = [round(x.value() or 0) for x in xs]
        optimal = prob.sol_status == pulp.LpSolutionOptimal and prob.status == pulp.LpStatusOptimal
        return BackendResult(values, optimal, done - built, built - started)
    if time_limit is not None and prob.status in (pulp.LpStatusNotSolved, pulp.LpStatusInfeasible):
        # Stopped by the limit before a solution: CBC then reports "infeasible", but every
        # model has the zero move, so it only means nothing was found in time.
        return BackendResult(None, False, done - built, built - started)
    raise BackendError(f"CBC failed: status {pulp.LpStatus[prob.status]}")


def _one_line(message: str) -> str:
    """PuLP's message without the path it runs on (it ends "…details/…/cbc", with no space)."""
    return message.split("use msg=True")[0].rstrip(" ,") or message
