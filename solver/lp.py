"""What every backend takes and returns: a pure-integer linear program as plain data, its array
form, and the backend's result. Models build a ``LinearModel``; backends read it and answer with
a ``BackendResult``. Nothing here knows about tiles or Rummikub.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

INF = float("inf")


@dataclass
class LinearModel:
    """A pure-integer linear program, maximised. Rows are ``lo <= sum(coef * var) <= hi``.

    Its lists are written while the model is built (a caller may still set ``lower``/``upper``
    then); ``arrays()``, the first solve, freezes them.
    """

    names: list[str] = field(default_factory=list)
    lower: list[int] = field(default_factory=list)
    upper: list[int] = field(default_factory=list)
    rows: list[tuple[str, list[tuple[int, int]], float, float]] = field(default_factory=list)
    objective: list[tuple[int, int]] = field(default_factory=list)
    hint: list[int] = field(default_factory=list)  # a feasible solution: the move "play nothing"
    objective_bound: int = 0  # no solution can score more (helps CP-SAT prove optimality)
    # The objective's lexicographic parts, most important first (the weighted sum above ranks
    # solutions exactly like them); a backend may optimise them one after another instead.
    stages: list[list[tuple[int, int]]] = field(default_factory=list)
    # Only whether the stages reach these values (lexicographically) matters to the caller: a
    # backend optimising stage by stage may stop, unproven, once a stage falls short of its own.
    targets: tuple[int, ...] | None = None
    # A model derived from a template shares the template's columns in array form; only the
    # columns added afterwards (and bounds) are new. See derive() and arrays().
    _base: LpArrays | None = field(default=None, repr=False)
    _base_cols: int = 0
    _extra: list[tuple[int, int, int]] = field(default_factory=list, repr=False)  # (row, col, coef)
    _extra_blocks: list[Any] = field(default_factory=list, repr=False)  # the same, as (n, 3) arrays
    # Rows added after derive(), after the template's (numbered on from them).
    _extra_rows: list[tuple[str, list[tuple[int, int]], float, float]] = field(default_factory=list, repr=False)
    # Rows (by index) that rarely bind: a backend may leave them out of its LPs and add one only
    # when a solution breaks it (bnb does); the others solve them like any row.
    lazy: list[int] = field(default_factory=list)
    _bound_changes: dict[int, tuple[float, float]] = field(default_factory=dict, repr=False)
    _arrays: LpArrays | None = field(default=None, repr=False)
    _final_rows: list[tuple[str, list[tuple[int, int]], float, float]] | None = field(
        default=None, repr=False
    )

    def derive(self) -> LinearModel:
        """A copy to specialise for one position: its own column lists, the template's rows.

        Only bounds, the objective, new columns and new rows may change in the copy
        (set_row_bounds, add_to_row with new variables, row). Those changes are recorded rather
        than applied to the shared rows: arrays() builds on the template's arrays, and
        final_rows() applies them only for the backends that read rows one by one.
        """
        child = LinearModel(
            list(self.names),
            list(self.lower),
            list(self.upper),
            self.rows,  # shared with the template: never changed through the child
            list(self.objective),
            list(self.hint),
            self.objective_bound,
            [list(stage) for stage in self.stages],
        )
        child._base = self.arrays()
        child._base_cols = len(self.names)
        return child

    def set_row_bounds(self, i: int, lo: float, hi: float) -> None:
        assert i < len(self.rows), "only the template's rows change bounds"
        if self._base is None:
            name, terms, _, _ = self.rows[i]
            self.rows[i] = (name, terms, lo, hi)
        self._bound_changes[i] = (lo, hi)
        self._final_rows = None

    def add_to_row(self, i: int, terms: list[tuple[int, int]]) -> None:
        """Add terms of variables created after derive() to an existing row."""
        self.add_entries([(i, v, c) for v, c in terms])

    def add_entries(self, entries: list[tuple[int, int, int]]) -> None:
        """Add (row, column, coefficient) entries: in a derived model, for columns created after
        derive() (the template's rows are shared); in any model, to rows it added itself."""
        if self._base is None:
            for i, v, c in entries:
                name, terms, lo, hi = self.rows[i]
                self.rows[i] = (name, [*terms, (v, c)], lo, hi)
            self._arrays = None
            return
        first_own_row = len(self.rows)
        template = [(i, v, c) for i, v, c in entries if i < first_own_row]
        assert all(v >= self._base_cols for _, v, _ in template), (
            "only columns created after derive() may join a template's row"
        )
        self._extra += template
        for i, v, c in entries:
            if i >= first_own_row:
                name, terms, lo, hi = self._extra_rows[i - first_own_row]
                self._extra_rows[i - first_own_row] = (name, [*terms, (v, c)], lo, hi)
        self._final_rows = None

    def add_entry_block(self, entries: Any) -> None:
        """``add_entries`` for many entries at once, as an (n, 3) integer array of (row, column,
        coefficient): template rows only, columns created after derive()."""
        assert self._base is not None and (entries[:, 0] < len(self.rows)).all()
        assert (entries[:, 1] >= self._base_cols).all()
        self._extra_blocks.append(entries)
        self._final_rows = None

    def vars(self, names: list[str], upper: int | Sequence[int]) -> int:
        """Many variables at once (bounds 0..upper, one bound or one each; hint 0); returns the
        first one's index."""
        first = len(self.names)
        self.names += names
        self.lower += [0] * len(names)
        self.upper += [upper] * len(names) if isinstance(upper, int) else list(upper)
        self.hint += [0] * len(names)
        return first

    def _all_extra(self) -> list[tuple[int, int, int]]:
        return self._extra + [
            (int(i), int(v), int(c)) for block in self._extra_blocks for i, v, c in block.tolist()
        ]

    def final_rows(self) -> list[tuple[str, list[tuple[int, int]], float, float]]:
        """Every row with its terms and bounds, changes made after derive() included."""
        if self._base is None:
            return self.rows
        if self._final_rows is None:
            rows = list(self.rows)
            for i, (lo, hi) in self._bound_changes.items():
                name, terms, _, _ = rows[i]
                rows[i] = (name, terms, lo, hi)
            for i, v, c in self._all_extra():
                name, terms, lo, hi = rows[i]
                rows[i] = (name, [*terms, (v, c)], lo, hi)
            self._final_rows = rows + self._extra_rows
        return self._final_rows

    @property
    def row_count(self) -> int:
        return len(self.rows) + len(self._extra_rows)

    def arrays(self) -> LpArrays:
        """The model as numpy arrays (column-wise matrix), computed once."""
        if self._arrays is None:
            self._arrays = LpArrays.of(self)
        return self._arrays

    def var(self, name: str, upper: int, lower: int = 0, hint: int = 0) -> int:
        self.names.append(name)
        self.lower.append(lower)
        self.upper.append(upper)
        self.hint.append(hint)
        return len(self.names) - 1

    def row(self, name: str, terms: list[tuple[int, int]], lo: float, hi: float, lazy: bool = False) -> int:
        """Add a row; returns its index. A derived model keeps its own rows after the template's.
        ``lazy``: see ``LinearModel.lazy``."""
        # One entry per variable (some solvers reject repeats). Most rows repeat none and hold no
        # zero: then dict() and the checks do it in C (the relaxed joker models add thousands).
        merged = dict(terms)
        if len(merged) == len(terms) and 0 not in merged.values():
            entries = list(terms)
        else:
            merged = {}
            for v, c in terms:
                merged[v] = merged.get(v, 0) + c
            entries = [(v, c) for v, c in merged.items() if c]
        row = (name, entries, lo, hi)
        if self._base is None:
            self.rows.append(row)
            index = len(self.rows) - 1
        else:
            self._extra_rows.append(row)
            self._final_rows = None
            index = len(self.rows) + len(self._extra_rows) - 1
        self._arrays = None  # a row added after a solve: the next one sees it
        if lazy:
            self.lazy.append(index)
        return index

    def satisfied_by(self, values: Sequence[int]) -> bool:
        """Whether integral ``values`` keep every bound and row (lazy ones too)."""
        import numpy as np

        arrays = self.arrays()
        x = np.array(values, dtype=np.float64)
        columns = np.repeat(np.arange(len(x)), np.diff(arrays.start))
        activity = np.bincount(arrays.index, arrays.value * x[columns], len(arrays.row_lower))
        return bool(
            (x >= arrays.lower).all()
            and (x <= arrays.upper).all()
            and (activity >= arrays.row_lower).all()
            and (activity <= arrays.row_upper).all()
        )

    def to_lp_text(self) -> str:
        """A readable dump (CPLEX LP-like) for debugging a model by eye."""

        def expr(terms: list[tuple[int, int]]) -> str:
            return " ".join(f"{'+' if c >= 0 else '-'} {abs(c)} {self.names[v]}" for v, c in terms)

        lines = ["Maximize", f" obj: {expr(self.objective)}", "Subject To"]
        for name, terms, lo, hi in self.final_rows():
            if lo == hi:
                lines.append(f" {name}: {expr(terms)} = {lo:g}")
            else:
                if lo > -INF:
                    lines.append(f" {name}_lo: {expr(terms)} >= {lo:g}")
                if hi < INF:
                    lines.append(f" {name}_hi: {expr(terms)} <= {hi:g}")
        lines.append("Bounds")
        lines += [f" {lo} <= {n} <= {hi}" for n, lo, hi in zip(self.names, self.lower, self.upper)]
        lines += ["General", " " + " ".join(self.names), "End"]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class LpArrays:
    """A LinearModel in array form for matrix-based solvers: costs, bounds, CSC matrix."""

    cost: Any
    lower: Any
    upper: Any
    row_lower: Any
    row_upper: Any
    start: Any
    index: Any
    value: Any

    def split_rows(self, rows: list[int]) -> tuple[LpArrays, LpArrays]:
        """The arrays without those rows, and those rows alone (as arrays over every column)."""
        import numpy as np

        chosen = np.zeros(len(self.row_lower), dtype=bool)
        chosen[rows] = True
        return self._rows_where(~chosen), self._rows_where(chosen)

    def _rows_where(self, keep: Any) -> LpArrays:
        import numpy as np

        row_map = np.cumsum(keep) - 1
        entry_kept = keep[self.index]
        counts = np.bincount(
            np.repeat(np.arange(len(self.cost)), np.diff(self.start))[entry_kept], minlength=len(self.cost)
        )
        return LpArrays(
            cost=self.cost,
            lower=self.lower,
            upper=self.upper,
            row_lower=self.row_lower[keep],
            row_upper=self.row_upper[keep],
            start=np.concatenate([[0], np.cumsum(counts)]).astype(np.int32),
            index=row_map[self.index[entry_kept]].astype(np.int32),
            value=self.value[entry_kept],
        )

    def reduced(self) -> tuple[LpArrays, Any]:
        """Without the columns fixed at zero and the rows left empty: a smaller, equal problem.

        Returns the reduced arrays and the indices of the columns kept (to map values back).
        """
        import numpy as np

        kept_column = (self.upper != 0) | (self.lower != 0)
        keep = np.flatnonzero(kept_column)
        counts = np.diff(self.start)
        entries = np.flatnonzero(np.repeat(kept_column, counts))
        counts = counts[keep]
        rows_used = (self.row_lower > 0) | (self.row_upper < 0)  # empty, it would be infeasible
        rows_used[self.index[entries]] = True
        row_map = np.cumsum(rows_used) - 1
        reduced = LpArrays(
            cost=self.cost[keep],
            lower=self.lower[keep],
            upper=self.upper[keep],
            row_lower=self.row_lower[rows_used],
            row_upper=self.row_upper[rows_used],
            start=np.concatenate([[0], np.cumsum(counts)]).astype(np.int32),
            index=row_map[self.index[entries]].astype(np.int32),
            value=self.value[entries],
        )
        return reduced, keep

    @staticmethod
    def of(lp: LinearModel) -> LpArrays:
        import numpy as np  # lazily: numpy costs start-up time the CLI's text paths don't need

        n = len(lp.names)
        cost: Any = np.zeros(n)
        if lp.objective:
            scored, weights = zip(*lp.objective)
            # Integer weights: the float sums are exact.
            cost = np.bincount(scored, np.array(weights, dtype=np.float64), n)
        if lp._base is not None:
            row_lower, row_upper = lp._base.row_lower.copy(), lp._base.row_upper.copy()
            if lp._bound_changes:
                changed = list(lp._bound_changes)
                bounds = np.array(list(lp._bound_changes.values()), dtype=np.float64)
                row_lower[changed], row_upper[changed] = bounds[:, 0], bounds[:, 1]
            if lp._extra_rows:
                row_lower = np.concatenate([row_lower, [lo for _, _, lo, _ in lp._extra_rows]])
                row_upper = np.concatenate([row_upper, [hi for _, _, _, hi in lp._extra_rows]])
        else:
            row_lower = np.array([lo for _, _, lo, _ in lp.rows], dtype=np.float64)
            row_upper = np.array([hi for _, _, _, hi in lp.rows], dtype=np.float64)
        if lp._base is None:
            columns: list[list[tuple[int, int]]] = [[] for _ in range(n)]
            for r, (_, terms, _, _) in enumerate(lp.rows):
                for v, c in terms:
                    columns[v].append((r, c))
            first: list[int] = [0]
            index: list[int] = []
            value: list[int] = []
            for col in columns:
                index += [r for r, _ in col]
                value += [c for _, c in col]
                first.append(len(index))
            start = np.array(first, dtype=np.int32)
            idx = np.array(index, dtype=np.int32)
            val = np.array(value, dtype=np.float64)
        elif not lp._extra_rows:
            base = lp._base
            # The new columns' entries as (row, column, coefficient), column by column.
            extra = np.concatenate(
                [np.array(lp._extra, dtype=np.int64).reshape(-1, 3), *lp._extra_blocks]
            ).reshape(-1, 3)
            extra = extra[np.lexsort((extra[:, 0], extra[:, 1]))]
            counts = np.bincount(extra[:, 1] - lp._base_cols, minlength=n - lp._base_cols)
            start = np.concatenate([base.start, base.start[-1] + np.cumsum(counts)]).astype(np.int32)
            idx = np.concatenate([base.index, extra[:, 0].astype(np.int32)])
            val = np.concatenate([base.value, extra[:, 2].astype(np.float64)])
        else:
            # New rows reach the template's columns too: merge every entry, column by column.
            base = lp._base
            first_row = len(lp.rows)
            # The new rows' terms flattened in one pass (a tuple per entry cost twice as much).
            sizes = [len(terms) for _, terms, _, _ in lp._extra_rows]
            flat = np.fromiter(
                chain.from_iterable(chain.from_iterable(t for _, t, _, _ in lp._extra_rows)), dtype=np.int64
            )
            added = np.column_stack(
                [np.repeat(np.arange(first_row, first_row + len(sizes)), sizes), flat.reshape(-1, 2)]
            )
            extra = np.concatenate(
                [np.array(lp._extra, dtype=np.int64).reshape(-1, 3), added, *lp._extra_blocks]
            ).reshape(-1, 3)
            base_cols = np.repeat(np.arange(lp._base_cols), np.diff(base.start))
            rows_all = np.concatenate([base.index, extra[:, 0]])
            cols_all = np.concatenate([base_cols, extra[:, 1]])
            vals_all = np.concatenate([base.value, extra[:, 2].astype(np.float64)])
            order = np.lexsort((rows_all, cols_all))
            start = np.concatenate([[0], np.cumsum(np.bincount(cols_all, minlength=n))]).astype(np.int32)
            idx = rows_all[order].astype(np.int32)
            val = vals_all[order]
        return LpArrays(
            cost=cost,
            lower=np.array(lp.lower, dtype=np.float64),
            upper=np.array(lp.upper, dtype=np.float64),
            row_lower=row_lower,
            row_upper=row_upper,
            start=start,
            index=idx,
            value=val,
        )


@dataclass(frozen=True, slots=True)
class BackendResult:
    values: list[int] | None  # None: no solution found (only possible when a limit stopped it)
    optimal: bool  # proven optimal
    seconds: float  # time inside the solver
    build_seconds: float  # time turning the LinearModel into the solver's model


SolveFunction = Callable[[LinearModel, float | None], BackendResult]
