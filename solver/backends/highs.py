"""HiGHS backend (highspy), in-process: no solver process to start, so it suits many small solves.

A fresh Highs object per solve: re-solving a modified model has been seen to hand back the
previous solution vector, and a new object costs well under a millisecond.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from solver.backends import BackendResult
from solver.errors import BackendError
from solver.model import LinearModel

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


def solve_highs(lp: LinearModel, time_limit: float | None) -> BackendResult:
    try:
        import highspy
        import numpy as np
    except ImportError as err:  # pragma: no cover - highspy is a dependency
        raise BackendError(f"backend highs needs highspy: {err}") from None

    started = time.perf_counter()
    inf = highspy.kHighsInf
    n = len(lp.names)
    # Column-wise matrix from the rows.
    columns: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for r, (_, terms, _, _) in enumerate(lp.rows):
        for v, c in terms:
            columns[v].append((r, c))
    starts = [0]
    index: list[int] = []
    value: list[float] = []
    for col in columns:
        for r, c in col:
            index.append(r)
            value.append(c)
        starts.append(len(index))
    cost = [0.0] * n
    for v, c in lp.objective:
        cost[v] += c

    model = highspy.HighsLp()
    model.num_col_ = n
    model.num_row_ = len(lp.rows)
    model.sense_ = highspy.ObjSense.kMaximize
    model.col_cost_ = np.array(cost, dtype=np.float64)
    model.col_lower_ = np.array(lp.lower, dtype=np.float64)
    model.col_upper_ = np.array(lp.upper, dtype=np.float64)
    model.row_lower_ = np.array([max(lo, -inf) for _, _, lo, _ in lp.rows], dtype=np.float64)
    model.row_upper_ = np.array([min(hi, inf) for _, _, _, hi in lp.rows], dtype=np.float64)
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = np.array(starts, dtype=np.int32)
    model.a_matrix_.index_ = np.array(index, dtype=np.int32)
    model.a_matrix_.value_ = np.array(value, dtype=np.float64)
    model.integrality_ = [highspy.HighsVarType.kInteger] * n

    solver = _new_highs(highspy)
    solver.setOptionValue("output_flag", False)
    solver.setOptionValue("threads", 1)
    solver.setOptionValue("random_seed", 0)
    # The objective is integral: a gap under 1 proves optimality; no relative slack allowed.
    solver.setOptionValue("mip_rel_gap", 0.0)
    solver.setOptionValue("mip_abs_gap", 0.5)
    if time_limit is not None:
        solver.setOptionValue("time_limit", float(time_limit))
    solver.passModel(model)
    built = time.perf_counter()
    solver.run()
    done = time.perf_counter()
    status = solver.getModelStatus()
    info = solver.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    if status == highspy.HighsModelStatus.kOptimal and has_solution:
        values = [round(x) for x in solver.getSolution().col_value]
        return BackendResult(values, True, done - built, built - started)
    if status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kInterrupt):
        found = [round(x) for x in solver.getSolution().col_value] if has_solution else None
        return BackendResult(found, False, done - built, built - started)
    raise BackendError(f"HiGHS failed: status {solver.modelStatusToString(status)}")
