"""Gomory mixed-integer cuts from an optimal simplex tableau: a tighter LP for branch and bound.

Every variable of the turn model is integer with integer bounds, and every row has integer
coefficients and bounds, so a row's activity is an integer too. From the tableau row of a basic
variable with a fractional value, ``x_b + sum(a_j * z_j) = beta`` (the ``z_j`` are the nonbasic
variables and row activities shifted to be zero at their current bound), the Gomory mixed-integer
cut ``sum(g_j * z_j) >= 1`` holds for every integer solution and cuts the LP optimum off. Written
back in the model's columns it becomes a row ``pi @ x >= pi0``. Rows added by cuts have fractional
coefficients: their activities count as continuous in later rounds.

The cuts are valid for the model's integer points whatever the objective, so they stay for the
whole search. A cut only prunes; accepted solutions are still checked against the original rows.
Numerical safety: each cut is relaxed by a small margin, and cuts whose coefficients span too
many orders of magnitude are dropped.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from solver.backends.lp_engine import LpEngine
from solver.lp import LpArrays

FRACTION = 0.01  # a basic value this close to an integer makes no cut (numerically weak)
MIN_EFFICACY = 1e-3  # distance the LP optimum is cut off, relative to the cut's norm
MAX_RANGE = 1e4  # largest ratio of a cut's coefficients kept
MARGIN = 1e-7  # each cut is relaxed by this (times its size) against rounding errors
ZERO = 1e-9


class RowStore:
    """The rows of the LP as loaded in the solver: the model's, then rows added afterwards.

    Dense, with room reserved for the rows to come (copying the matrix per row costs more than
    the cut it adds).
    """

    def __init__(self, arrays: LpArrays, room: int = 32) -> None:
        rows, columns = len(arrays.row_lower), len(arrays.cost)
        self._matrix = np.zeros((rows + room, columns))
        self._matrix[arrays.index, np.repeat(np.arange(columns), np.diff(arrays.start))] = arrays.value
        self._lower = np.concatenate([arrays.row_lower, np.zeros(room)])
        self._upper = np.concatenate([arrays.row_upper, np.zeros(room)])
        # A row's activity is integer at every integer point, and shifts by an integer from its
        # bound, when its coefficients and bounds are integers (all of our models' rows; checked,
        # so that a future row with fractions still gets exact cuts).
        fractional = np.abs(arrays.value - np.round(arrays.value)) > ZERO
        self._integral = np.ones(rows + room, dtype=bool)
        self._integral[arrays.index[fractional]] = False
        for bound in (arrays.row_lower, arrays.row_upper):  # and its bounds are integers
            finite = np.isfinite(bound)
            self._integral[: rows][finite] &= np.abs(bound[finite] - np.round(bound[finite])) <= ZERO
        self.count = rows
        self.cuts = 0

    @property
    def matrix(self) -> Any:
        return self._matrix[: self.count]

    @property
    def lower(self) -> Any:
        return self._lower[: self.count]

    @property
    def upper(self) -> Any:
        return self._upper[: self.count]

    @property
    def integral(self) -> Any:
        return self._integral[: self.count]

    def add(self, row: Any, lower: float, upper: float, integral: bool) -> None:
        if self.count == len(self._lower):  # out of room: grow by half
            more = max(len(self._lower) // 2, 8)
            self._matrix = np.vstack([self._matrix, np.zeros((more, self._matrix.shape[1]))])
            self._lower = np.concatenate([self._lower, np.zeros(more)])
            self._upper = np.concatenate([self._upper, np.zeros(more)])
            self._integral = np.concatenate([self._integral, np.ones(more, dtype=bool)])
        i = self.count
        self._matrix[i], self._lower[i], self._upper[i], self._integral[i] = row, lower, upper, integral
        self.count += 1


def gomory_cuts(
    engine: LpEngine, rows: RowStore, x: Any, lower: Any, upper: Any, limit: int
) -> list[tuple[Any, float]]:
    """Up to ``limit`` violated Gomory mixed-integer cuts ``(pi, pi0)`` meaning ``pi @ x >= pi0``,
    most efficacious first, from the engine's current optimal basis (``x``: its solution;
    ``lower``/``upper``: the column bounds it was solved with, all integer).

    The rows' bounds are the engine's (``row_bounds``): a nonbasic logical may sit at a bound
    that the engine put in place of an infinite one, valid at every solution, and the shift of
    its term must start from there."""
    # The dense products below round differently on more BLAS threads (OpenBLAS splits the
    # sums), and a cut a hair apart led to another of equal optima (gen-3-11's answer): on one
    # thread, as the program and Dask's workers run, a library caller gets the same answers.
    with _blas().limit(limits=1, user_api="blas"):
        return _cuts(engine, rows, x, lower, upper, limit)


@cache
def _blas() -> ThreadpoolController:
    """The numeric libraries numpy loaded (found once: 4 ms; a limit then costs 20 us)."""
    return ThreadpoolController()


def _cuts(engine: LpEngine, rows: RowStore, x: Any, lower: Any, upper: Any, limit: int) -> list[tuple[Any, float]]:
    basic = engine.basic_variables()
    row_lower, row_upper = engine.row_bounds()
    activity = rows.matrix @ x
    n, m = len(x), len(rows.lower)
    basic_column = np.zeros(n, dtype=bool)
    basic_column[basic[basic >= 0]] = True
    basic_row = np.zeros(m, dtype=bool)
    basic_row[-basic[basic < 0] - 1] = True
    # Nonbasic columns sit at a bound; fixed ones (and equality rows) never move: no term.
    free_column = ~basic_column & (lower < upper)
    column_at_upper = x >= upper - 1e-9
    free_row = ~basic_row & (row_lower < row_upper)
    row_at_upper = np.isfinite(row_upper) & (activity >= row_upper - 1e-9)
    column_sign = np.where(column_at_upper, -1.0, 1.0)
    column_offset = np.where(column_at_upper, upper, lower)
    row_sign = np.where(row_at_upper, -1.0, 1.0)
    row_offset = np.where(row_at_upper, row_upper, row_lower)
    row_offset = np.where(free_row, row_offset, 0.0)  # keep infinities out of the sums

    fraction = x - np.floor(x)
    closeness = np.where(basic >= 0, np.minimum(fraction, 1 - fraction)[np.maximum(basic, 0)], 0.0)
    candidates = [int(i) for i in np.argsort(-closeness, kind="stable")[: limit + 3] if closeness[i] >= FRACTION]
    if not candidates:
        return []
    # Tableau rows over columns and row activities: x_b + reduced @ x - inverse @ activity = 0,
    # where reduced = inverse @ A (HiGHS's logical columns are +I for minus the activities).
    inverse = engine.inverse_rows(candidates)
    reduced = inverse @ rows.matrix
    f0 = fraction[basic[candidates]][:, None]
    a_col = np.where(free_column, reduced * column_sign, 0.0)
    a_row = np.where(free_row, -inverse * row_sign, 0.0)
    g_col = _integer_weights(a_col, f0)
    g_row = np.where(rows.integral, _integer_weights(a_row, f0), _continuous_weights(a_row, f0))
    # sum(g * z) >= 1 with z = sign * (value - offset), then activities written as columns.
    pis = g_col * column_sign + (g_row * row_sign) @ rows.matrix
    pi0s = 1.0 + g_col @ (column_sign * column_offset) + g_row @ (row_sign * row_offset)
    pis, pi0s, usable = _clean(pis, pi0s, lower, upper)
    norms = np.sqrt((pis * pis).sum(axis=1))
    efficacy = np.where(norms > 0, (pi0s - pis @ x) / np.where(norms > 0, norms, 1.0), 0.0)
    chosen = [int(i) for i in np.argsort(-efficacy, kind="stable") if usable[i] and efficacy[i] >= MIN_EFFICACY]
    return [(pis[i], float(pi0s[i])) for i in chosen[:limit]]


def _integer_weights(a: Any, f0: float) -> Any:
    f = a - np.floor(a)
    f = np.where((f < ZERO) | (f > 1 - ZERO), 0.0, f)
    return np.where(f <= f0, f / f0, (1 - f) / (1 - f0))


def _continuous_weights(a: Any, f0: float) -> Any:
    return np.where(a > 0, a / f0, -a / (1 - f0))


def _clean(pis: Any, pi0s: Any, lower: Any, upper: Any) -> tuple[Any, Any, Any]:
    """The cuts (one per row) with negligible coefficients dropped safely and a margin, and which
    of them are usable at all."""
    size = np.abs(pis).max(axis=1, initial=0.0)
    usable = (size >= ZERO) & np.isfinite(pi0s)
    tiny = (np.abs(pis) < (size / MAX_RANGE)[:, None]) & (pis != 0)
    # Dropping a term weakens the cut by at most its largest value over the bounds.
    worst = np.where(tiny, np.maximum(pis * lower, pis * upper), 0.0).sum(axis=1)
    pis = np.where(tiny, 0.0, pis)
    pi0s = np.where(usable, pi0s - worst, 0.0)
    pi0s = pi0s - MARGIN * (1.0 + np.abs(pi0s))
    return pis, pi0s, usable
