"""HiGHS backend (highspy), in-process: no solver process to start, so it suits many small solves.

A fresh Highs object per solve: re-solving a modified model has been seen to hand back the
previous solution vector, and a new object costs well under a millisecond.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from solver.errors import BackendError
from solver.lp import BackendResult, LinearModel, LpArrays

_quiet = False


def _new_highs(highspy: Any) -> Any:
    """A Highs object; the first one in a process prints a banner to stdout, kept off our output."""
    global _quiet
    if _quiet:
        return highspy.Highs()
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            solver = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    _quiet = True
    return solver


def pass_model(highspy: Any, solver: Any, arrays: LpArrays, integer: bool = False) -> None:
    """Load a model in array form (maximise), every column integer or every one continuous.

    The array overload of passModel is several times faster than filling a HighsLp attribute by
    attribute, which costs a fifth of a millisecond on our models.
    """
    import numpy as np

    inf = highspy.kHighsInf
    n = len(arrays.cost)
    status = solver.passModel(
        n,
        len(arrays.row_lower),
        len(arrays.value),
        int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMaximize),
        0.0,
        arrays.cost,
        arrays.lower,
        arrays.upper,
        np.maximum(arrays.row_lower, -inf),
        np.minimum(arrays.row_upper, inf),
        arrays.start,
        arrays.index,
        arrays.value,
        np.full(n, 1 if integer else 0, dtype=np.int32),  # HighsVarType: 1 integer, 0 continuous
    )
    if status != highspy.HighsStatus.kOk:
        raise BackendError(f"HiGHS refused the model: {status}")


def expand(values: Any, keep: Any, n: int) -> list[int]:
    """Values of a reduced model's columns back on the full model's (dropped columns are 0)."""
    import numpy as np

    full = np.zeros(n, dtype=np.int64)
    full[keep] = np.rint(np.asarray(values, dtype=np.float64))
    result: list[int] = full.tolist()
    return result


def run(highspy: Any, solver: Any) -> None:
    """``solver.run()``, robust to another HiGHS user in the same process.

    HiGHS keeps one global thread scheduler; when other code (another library's HiGHS model)
    started it with a different thread count, run() refuses our ``threads=1`` without solving
    (status "Not Set"). Then the scheduler is reset and the solve tried once more.
    """
    solver.run()
    if solver.getModelStatus() == highspy.HighsModelStatus.kNotset:
        highspy.Highs.resetGlobalScheduler(True)
        solver.run()


def solve_highs(lp: LinearModel, time_limit: float | None) -> BackendResult:
    try:
        import highspy
    except ImportError as err:  # pragma: no cover - highspy is a dependency
        raise BackendError(f"backend highs needs highspy: {err}") from None

    started = time.perf_counter()
    arrays, keep = lp.arrays().reduced()
    if not len(keep):  # nothing can change: the starting move is the only one
        return BackendResult(list(lp.hint), True, 0.0, time.perf_counter() - started)
    solver = _new_highs(highspy)
    solver.setOptionValue("output_flag", False)
    solver.setOptionValue("threads", 1)
    # HiGHS's MIP presolve has declared feasible models of ours infeasible (a reduced
    # continue-after-meld model; the zero move satisfies it); without presolve it is right.
    solver.setOptionValue("presolve", "off")
    solver.setOptionValue("random_seed", 0)
    # The objective is integral: a gap under 1 proves optimality; no relative slack allowed.
    solver.setOptionValue("mip_rel_gap", 0.0)
    solver.setOptionValue("mip_abs_gap", 0.5)
    if time_limit is not None:
        solver.setOptionValue("time_limit", float(time_limit))
    pass_model(highspy, solver, arrays, integer=True)
    built = time.perf_counter()
    run(highspy, solver)
    done = time.perf_counter()
    status = solver.getModelStatus()
    info = solver.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    if status == highspy.HighsModelStatus.kOptimal and has_solution:
        values = expand(solver.getSolution().col_value, keep, len(lp.names))
        return BackendResult(values, True, done - built, built - started)
    if status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kInterrupt):
        found = expand(solver.getSolution().col_value, keep, len(lp.names)) if has_solution else None
        return BackendResult(found, False, done - built, built - started)
    raise BackendError(f"HiGHS failed: status {solver.modelStatusToString(status)}")
