"""Branch and bound over LP relaxations, in-process: the fastest exact backend.

The flow model's LP relaxation is nearly always integral at the root or a few branches away,
so a plain depth-first branch and bound over warm-started dual simplex solves beats a general
MIP solver's set-up cost many times over. The LPs are solved by one of the engines of
``lp_engine.py``: the project's compiled dual simplex for models up to 150 rows, HiGHS otherwise. The
objective's lexicographic parts (``stages``) are optimised one after another, each with small
integer coefficients whose LP bound, rounded down, prunes hard; each optimum is then fixed by a
row before the next part. Each part searches by level (see ``branch_and_bound``). Gomory cuts
(``gomory.py``) tighten a part's root LP when it is fractional: before its search on HiGHS, and
on the compiled engine only for a search that runs long (see CUT_ROUNDS).

It stays exact: a node is pruned only when its LP bound, rounded down, cannot beat the best
solution found; an integral LP solution is checked row by row in integers before it is accepted;
anything unexpected (a numerical failure, a stale solution vector, too many nodes) hands the
model to HiGHS's own MIP solver.
"""

from __future__ import annotations

import math
import time
from importlib.util import find_spec
from typing import Any

from solver.backends.gomory import RowStore, gomory_cuts
from solver.backends.highs import expand, solve_highs
from solver.backends.lp_engine import LpEngine, LpFailure, make_engine
from solver.errors import BackendError
from solver.lp import BackendResult, LinearModel, LpArrays

# Gomory cuts at the root of each part of the objective (not the one-shot weighted search), by
# LP engine. On HiGHS a round saves more LP solves than it costs; every cut row makes later
# solves a little slower, hence the small budget. On the compiled simplex an LP solve costs less
# than making a round of cuts, and every row makes its pivots dearer: no cuts up front.
# (The measurements behind these settings: bench/results/speed.md.)
CUT_ROUNDS = {"simplex": 0, "highs": 2}
# ...but a part whose search runs past this many nodes gets the cuts after all and searches again
# from the best move found (the few long searches, of 50-150 LP solves, are where cuts pay).
CUTS_AFTER_NODES: dict[str, int | None] = {"simplex": 45, "highs": None}
ESCALATED_CUT_ROUNDS = 2
CUTS_PER_ROUND = 5
MAX_CUTS = 15
NODE_LIMIT = 400  # then HiGHS's MIP solver takes over (cuts and heuristics pay off there)
QUICK_NODES = 7  # nodes for the one-shot weighted search before solving part by part (the fewest LP solves)
# A dive before the first part's search: that search starts from the play-nothing move and, on
# big positions, would meet its first move only after a dozen nodes or more.
DIVE_NODES = 15
DIVE_FIX_GAP = 0.3  # each step fixes every variable this close to an integer (at least one)
TOLERANCE = 1e-6
LP_ENGINE = "auto"  # see lp_engine.py: the compiled simplex when built, else HiGHS
# An LP bound is rounded down only after adding this slack. HiGHS returns optima with dual
# infeasibilities up to its 1e-7 tolerance (60% of the solves on the bench sets had some), so a
# computed bound may lie below the true one by up to 1e-7 times the sum of the columns' ranges:
# about 1e-4 on our models. Rounding 15.99995 down to 15 could prune a node holding a 16. A
# larger slack only prunes less, and these LPs' fractional bounds are far from integers.
BOUND_SLACK = 1e-3


class _GiveUp(Exception):
    """The LP solver misbehaved or the tree grew too big: let HiGHS's MIP solver finish."""


class _OutOfTime(Exception):
    pass


class _ShortOfTargets(Exception):
    """A stage's optimum fell short of its target (LinearModel.targets): the rest does not matter."""


class _TooBig(Exception):
    """The tree outgrew its node budget; carries the best solution found so far."""

    def __init__(self, best_x: Any) -> None:
        self.best_x = best_x


def solve_bnb(lp: LinearModel, time_limit: float | None) -> BackendResult:
    if find_spec("numpy") is None:  # pragma: no cover - numpy comes with highspy, a dependency
        raise BackendError("backend bnb needs numpy (pip install numpy)")

    started = time.perf_counter()
    everything = lp.arrays()
    lazy: LpArrays | None = None
    if lp.lazy:
        everything, lazy = everything.split_rows(lp.lazy)
    arrays, keep = everything.reduced()
    if len(keep) == 0:  # nothing can change: the starting move is the only one
        return BackendResult(list(lp.hint), True, 0.0, time.perf_counter() - started)
    engine = make_engine(arrays, LP_ENGINE)
    built = time.perf_counter()
    # The limit is for the search: a process's first solve also loads numpy and the LP engine
    # here, which would otherwise use up a short limit before the first node.
    search = _Search(lp, arrays, keep, engine, None if time_limit is None else built + time_limit, lazy)
    if not search.feasible(search.best_x):
        raise BackendError("bnb: the model's starting move is infeasible (a bug)")
    try:
        if not search.weighted():
            search.by_stages()
    except (_OutOfTime, _ShortOfTargets):  # the best move found so far, unproven
        return _result(expand(search.best_x, keep, len(lp.names)), False, started, built)
    except (_GiveUp, _TooBig):
        return _fallback(lp, search.deadline, started)
    return _result(expand(search.best_x, keep, len(lp.names)), True, started, built)


def bound_of(value: float) -> int:
    """What an LP's optimal value promises at most, in integers (see BOUND_SLACK)."""
    return math.floor(value + BOUND_SLACK)


class _Search:
    """One model's search: the LP engine kept warm across every step, the rows fixed so far."""

    def __init__(
        self,
        lp: LinearModel,
        arrays: LpArrays,
        keep: Any,
        engine: LpEngine,
        deadline: float | None,
        lazy: LpArrays | None = None,
    ) -> None:
        import numpy as np

        self.lp = lp
        self.arrays = arrays
        self.keep = keep
        self.n = n = len(keep)
        self.engine = engine
        self.deadline = deadline
        # The best move so far, as the steps below return it (a step stopped by the time limit
        # leaves it as it was): the play-nothing move at first.
        self.best_x: Any = np.array(lp.hint, dtype=np.float64)[keep]
        # In an initial meld, decide first whether the player opens and with which tiles: the
        # meld's sets follow from those, and branching on them first keeps the tree small.
        self.priority = np.zeros(n)
        if "opens" in lp.names:
            names = [lp.names[v] for v in keep.tolist()]
            self.priority = np.array([2.0 if v == "opens" else 1.0 if v.startswith("r_") else 0.0 for v in names])
        self.column_of_entry = np.repeat(np.arange(n), np.diff(arrays.start))
        self.all_columns = np.arange(n, dtype=np.int32)
        self.position_of = np.full(len(lp.names), -1, dtype=np.int64)
        self.position_of[keep] = np.arange(n)
        self.fixed: list[tuple[Any, int]] = []  # (stage cost vector, its optimum): rows added so far
        self.rows: RowStore | None = None  # the LP's rows, kept once cuts are made
        # Lazy rows (LinearModel.lazy) over the kept columns, as (row, column, coefficient)
        # entries with their bounds; each joins the LP once a candidate breaks it.
        self.lazy_entries: Any = None
        self.lazy_lower: Any = None
        self.lazy_upper: Any = None
        self.lazy_added: Any = None
        self.lazy_rows: list[tuple[Any, float, float]] = []  # joined so far: (coefficients, lo, hi)
        # Every row added to the LP after the model's, in order, as the engine holds them (a
        # coefficient vector and a lower bound): the cut store mirrors them one for one.
        self.added: list[tuple[Any, float, bool]] = []  # (coefficients, lower, integral)
        if lazy is not None and len(lazy.row_lower):
            entry_column = np.repeat(np.arange(len(lazy.cost)), np.diff(lazy.start))
            kept = self.position_of[entry_column] >= 0  # a dropped column is fixed at zero
            self.lazy_entries = (lazy.index[kept], self.position_of[entry_column[kept]], lazy.value[kept])
            self.lazy_lower, self.lazy_upper = lazy.row_lower, lazy.row_upper
            self.lazy_added = np.zeros(len(lazy.row_lower), dtype=bool)

    # -- the two ways through -------------------------------------------------------------

    def weighted(self) -> bool:
        """Usually the weighted objective's relaxation is integral or nearly: one short search.
        Whether it proved the best move optimal."""
        weighted = self.cost_of(self.lp.objective)
        self.engine.set_cost(weighted)
        try:
            self.best_x = self.branch_and_bound(weighted, self.best_x, QUICK_NODES)
            return True
        except _TooBig as partial:
            self.best_x = partial.best_x
            self.restore_root_bounds()  # a search leaves its last node's bounds
            return False

    def by_stages(self) -> None:
        """Optimise the lexicographic parts one after another: tighter bounds per part."""
        targets = self.lp.targets
        for number, stage in enumerate(self.lp.stages):
            cost = self.cost_of(stage)
            self.engine.set_cost(cost)
            if targets is not None:
                # Short of the target even at the root: no search can reach it.
                solved = self.lp_solution()
                if solved is None or solved[1] < targets[number]:
                    raise _ShortOfTargets
            self.stage(cost, first=number == 0)
            value = round(float(cost @ self.best_x))
            if targets is not None and value < targets[number]:
                raise _ShortOfTargets
            if targets is not None and value > targets[number]:
                targets = None  # past it: the move ranks above the targets whatever follows
            # Later stages may not lose what this one won.
            self.add_row(cost, value)
            self.fixed.append((cost, value))

    def stage(self, cost: Any, first: bool) -> None:
        """The best move for one part of the objective: cuts, a dive (first part), the search."""
        settled, self.best_x = self.strengthen(cost, self.best_x, CUT_ROUNDS[self.engine.kind])
        if not settled and first:
            self.best_x, settled = self.dive(cost, self.best_x)
        if settled:
            return
        # Branch first on the variables this stage scores (which sets to keep, say).
        focus = self.priority + 4.0 * (cost != 0)
        budget = CUTS_AFTER_NODES[self.engine.kind]
        try:
            self.best_x = self.branch_and_bound(cost, self.best_x, budget or NODE_LIMIT, focus, by_level=True)
        except _TooBig as partial:
            if budget is None:
                raise
            # A long search: here cuts pay for themselves. Tighten the root, search again.
            self.best_x = partial.best_x
            self.restore_root_bounds()
            settled, self.best_x = self.strengthen(cost, self.best_x, ESCALATED_CUT_ROUNDS)
            if not settled:  # strengthen solves at the root bounds and leaves them
                self.best_x = self.branch_and_bound(cost, self.best_x, NODE_LIMIT, focus, by_level=True)
        self.restore_root_bounds()

    # -- the steps --------------------------------------------------------------------------

    def branch_and_bound(
        self, cost: Any, best_x: Any, node_limit: int = NODE_LIMIT, priority: Any = None, by_level: bool = False
    ) -> Any:
        """The integral x maximising cost (depth first, pruning by the rounded-down LP bound).

        ``by_level``: search depth first only among nodes whose bound reaches a level, at first
        the root's bound; nodes below it wait. When none is left at the level, no move scores it,
        and the search goes on with the waiting nodes at the highest bound among them. A move at
        the root's bound, found early, prunes every waiting node at once; a plain dive would
        first settle for lesser moves and explore beneath them.

        The LP is left at the bounds of the last node solved: a caller that solves again
        restores the root's bounds first.
        """
        import numpy as np

        arrays, engine = self.arrays, self.engine
        priority = self.priority if priority is None else priority
        best = round(float(cost @ best_x))
        # Nodes as (a bound on them: their parent's, rounded down; lower; upper; their LP solution
        # and its bound if already solved). A node whose bound cannot beat the best found is
        # dropped unsolved.
        stack: list[tuple[float, Any, Any, Any]] = [(math.inf, arrays.lower.copy(), arrays.upper.copy(), None)]
        waiting: list[tuple[int, Any, Any, Any]] = []  # solved nodes below the level, as above
        level = -math.inf  # nodes bounded below it wait; by level, the root sets it
        current_lower, current_upper = arrays.lower, arrays.upper
        nodes = 0
        while True:
            if not stack:
                waiting = [node for node in waiting if node[0] > best]
                if not waiting:
                    break
                level = max(node[0] for node in waiting)
                stack = [node for node in waiting if node[0] == level]
                waiting = [node for node in waiting if node[0] < level]
            parent_bound, lower, upper, solved = stack.pop()
            if parent_bound <= best:
                continue
            if solved is None:  # else a waiting node, solved before
                self.check_time()
                nodes += 1
                if nodes > node_limit:
                    raise _TooBig(best_x)
                # Change only the bounds that differ from the last node, so the LP stays warm.
                changed = np.flatnonzero((lower != current_lower) | (upper != current_upper)).astype(np.int32)
                if len(changed):
                    engine.set_bounds(changed, lower[changed], upper[changed])
                current_lower, current_upper = lower, upper
                # Reduced-cost fixing once a part is fixed: the later parts prove gaps of a point or
                # two, where it fixes many columns; in the first part it changed the searches more
                # than it shortened them (bench/results/speed.md).
                solved = self.lp_solution(reduced=bool(self.fixed))
                if solved is None:
                    continue  # infeasible
            x, bound = solved[:2]
            if bound <= best:
                continue  # even the relaxation cannot beat the best found
            if by_level and nodes == 1:
                level = bound
            rounded = np.round(x)
            gaps = np.abs(x - rounded)
            j = int(np.argmax(gaps + priority * (gaps > TOLERANCE)))
            if gaps[j] <= TOLERANCE:
                value = round(float(cost @ rounded))
                if value > best and self.join_broken_lazy_rows(rounded):
                    stack.append((bound, lower, upper, None))  # its LP changed: solve it again
                    continue
                if value > best and self.feasible(rounded):
                    best, best_x = value, rounded
                continue
            if bound < level:
                waiting.append((bound, lower, upper, solved))
                continue
            lower, upper = self.fix_by_reduced_costs(solved, lower, upper, best)
            # Branch on the most fractional variable; explore the nearer side first, but by
            # level the up side of a scored variable (play the tile, keep the set): a move
            # at the level mostly rounds those up.
            floor_j = math.floor(x[j])
            down_upper = upper.copy()
            down_upper[j] = floor_j
            up_lower = lower.copy()
            up_lower[j] = floor_j + 1
            down, up = (bound, lower, down_upper, None), (bound, up_lower, upper, None)
            up_first = x[j] - floor_j >= 0.5 or (by_level and cost[j] > 0)
            stack += [down, up] if up_first else [up, down]
        return best_x

    def dive(self, cost: Any, best_x: Any) -> tuple[Any, bool]:
        """A move at the root's bound, if a quick dive meets one, else ``best_x``; and whether
        that move settles the stage (its value reaches the bound of the root LP, cuts and all).

        Solve, fix the variables nearly integral at their rounded values, solve again, until
        the LP is integral (a move, once it checks out row by row) or its bound falls below the
        root's. No backtracking: a heuristic, whose answer the search then only has to prove.
        """
        import numpy as np

        lower, upper = self.arrays.lower.copy(), self.arrays.upper.copy()
        best = round(float(cost @ best_x))
        target = None
        try:
            for _ in range(DIVE_NODES):
                self.check_time()
                solved = self.lp_solution()
                if solved is None:
                    break
                x, bound = solved
                target = bound if target is None else target
                if bound < target or bound <= best:
                    break
                rounded = np.round(x)
                gaps = np.abs(x - rounded)
                fractional = gaps > TOLERANCE
                if not fractional.any():
                    if self.join_broken_lazy_rows(rounded):
                        continue  # solve again with them
                    if self.feasible(rounded):
                        # At the root's own bound, the search would only repeat the root.
                        return rounded, round(float(cost @ rounded)) >= target
                    break
                fix = fractional & (gaps <= DIVE_FIX_GAP)
                if not fix.any():
                    fix[int(np.argmin(np.where(fractional, gaps, 1.0)))] = True
                at = np.flatnonzero(fix).astype(np.int32)
                lower[at] = upper[at] = rounded[at]
                self.engine.set_bounds(at, lower[at], upper[at])
        finally:
            self.restore_root_bounds()
        return best_x, False

    def strengthen(self, cost: Any, best_x: Any, rounds: int) -> tuple[bool, Any]:
        """Add Gomory cuts while the root LP is fractional and could still beat the best found.

        Returns whether the root LP settled the stage, and the best solution: a root that
        cannot beat it, or an integral root, needs no search (nor the search's first solve,
        which would repeat this one).
        """
        import numpy as np

        arrays = self.arrays
        # The bounds alone may settle it: every rack tile played leaves no more points to win.
        scored = cost != 0
        c = cost[scored]
        box = float(np.maximum(c * arrays.upper[scored], c * arrays.lower[scored]).sum())
        if math.isfinite(box) and bound_of(box) <= round(float(cost @ best_x)):
            return True, best_x
        for _ in range(rounds):
            self.check_time()
            if self.rows is not None and self.rows.cuts >= MAX_CUTS:
                return False, best_x
            solved = self.lp_solution()
            if solved is None or solved[1] <= round(float(cost @ best_x)):
                return True, best_x
            x = solved[0]
            rounded = np.round(x)
            if (np.abs(x - rounded) <= TOLERANCE).all():
                if self.join_broken_lazy_rows(rounded):
                    return False, best_x  # the search solves it again with them
                if round(float(cost @ rounded)) > round(float(cost @ best_x)) and self.feasible(rounded):
                    return True, rounded
                return False, best_x
            if self.rows is None:
                self.rows = RowStore(arrays)
                for coefficients, lower, integral in self.added:
                    self.rows.add(coefficients, lower, math.inf, integral=integral)
            rows = self.rows
            limit = min(CUTS_PER_ROUND, MAX_CUTS - rows.cuts)
            cuts = gomory_cuts(self.engine, rows, x, arrays.lower, arrays.upper, limit)
            if not cuts:
                return False, best_x
            for pi, pi0 in cuts:
                self.add_row(pi, pi0, integral=False)
                rows.cuts += 1
        return False, best_x

    # -- helpers ----------------------------------------------------------------------------

    def feasible(self, x: Any) -> bool:
        """Integral x satisfies every row (lazy ones too), bound and fixed stage exactly (integers)."""
        import numpy as np

        arrays = self.arrays
        # Integer terms: the float sums are exact.
        activity = np.bincount(arrays.index, arrays.value * x[self.column_of_entry], len(arrays.row_lower))
        return bool(
            (activity >= arrays.row_lower).all()
            and (activity <= arrays.row_upper).all()
            and (x >= arrays.lower).all()
            and (x <= arrays.upper).all()
            and all(round(float(c @ x)) >= v for c, v in self.fixed)
            and not self.broken_lazy_rows(x).any()
        )

    def broken_lazy_rows(self, x: Any) -> Any:
        """Which lazy rows integral x breaks (a boolean per lazy row)."""
        import numpy as np

        if self.lazy_entries is None:
            return np.zeros(0, dtype=bool)
        rows, columns, values = self.lazy_entries
        activity = np.bincount(rows, values * x[columns], len(self.lazy_lower))
        return (activity < self.lazy_lower) | (activity > self.lazy_upper)

    def join_broken_lazy_rows(self, x: Any) -> bool:
        """Add to the LP the lazy rows integral x breaks (valid rows of the model: adding them
        anywhere keeps the search exact); whether there were any."""
        import numpy as np

        if self.lazy_entries is None:
            return False
        broken = np.flatnonzero(self.broken_lazy_rows(x) & ~self.lazy_added).tolist()
        if not broken:
            return False
        rows, columns, values = self.lazy_entries
        for r in broken:
            coefficients = np.zeros(self.n)
            at = rows == r
            np.add.at(coefficients, columns[at], values[at])
            lo, hi = float(self.lazy_lower[r]), float(self.lazy_upper[r])
            if math.isfinite(lo):
                self.add_row(coefficients, lo)
            if math.isfinite(hi):
                self.add_row(-coefficients, -hi)
            self.lazy_rows.append((coefficients, lo, hi))
            self.lazy_added[r] = True
        return True

    def add_row(self, coefficients: Any, lower: float, integral: bool = True) -> None:
        """Add the row ``coefficients . x >= lower`` to the LP, and to the cut store if kept."""
        self.engine.add_row_at_least(coefficients, lower)
        self.added.append((coefficients, lower, integral))
        if self.rows is not None:
            self.rows.add(coefficients, lower, math.inf, integral=integral)

    def cost_of(self, terms: list[tuple[int, int]]) -> Any:
        import numpy as np

        if not terms:
            return np.zeros(self.n)
        columns, coefficients = zip(*terms)
        at = self.position_of[list(columns)]
        used = at >= 0  # a dropped column is fixed at zero
        return np.bincount(at[used], np.array(coefficients, dtype=np.float64)[used], self.n)

    def lp_solution(self, reduced: bool = False) -> tuple[Any, ...] | None:
        """The LP optimum within the engine's current bounds and its rounded-down bound, or
        None if infeasible; ``reduced``: then also the bound unrounded and the reduced costs
        behind it (None if the engine has none), for ``fix_by_reduced_costs``."""
        try:
            solved = self.engine.solve()
        except LpFailure:
            raise _GiveUp from None
        if solved is None:
            return None
        x, value = solved
        if reduced:
            return x, bound_of(value), value, self.engine.reduced_costs()
        return x, bound_of(value)

    def fix_by_reduced_costs(self, solved: tuple[Any, ...], lower: Any, upper: Any, best: int) -> tuple[Any, Any]:
        """A node's bounds tightened to where a move beating ``best`` can lie (reduced-cost fixing).

        Its LP's bound falls by at least ``|r[j]|`` per unit column j moves off the bound its
        reduced cost picks, and a better move scores at least ``best + 1``; so j moves at most
        (bound - best - 1) / |r[j]| units, rounded down. The same argument and slack as pruning
        a node by its bound: exact. Valid in the node's subtree, for this stage's search."""
        import numpy as np

        if len(solved) < 4 or solved[3] is None:
            return lower, upper
        value, r = solved[2], solved[3]
        gap = value + BOUND_SLACK - (best + 1)
        if not math.isfinite(gap) or gap < 0:
            return lower, upper
        strong = np.abs(r) > TOLERANCE
        steps = np.floor(gap / np.where(strong, np.abs(r), 1.0))
        down = strong & (r < 0) & (upper > lower + steps)  # at its lower bound: cap the upper
        up = strong & (r > 0) & (lower < upper - steps)
        if not (down.any() or up.any()):
            return lower, upper
        lower, upper = lower.copy(), upper.copy()
        upper[down] = lower[down] + steps[down]
        lower[up] = upper[up] - steps[up]
        return lower, upper

    def restore_root_bounds(self) -> None:
        """Leave the LP as it was: the next search starts from the root bounds."""
        self.engine.set_bounds(self.all_columns, self.arrays.lower, self.arrays.upper)

    def check_time(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _OutOfTime


def _result(values: list[int], optimal: bool, started: float, built: float) -> BackendResult:
    return BackendResult(values, optimal, time.perf_counter() - built, built - started)


def _fallback(lp: LinearModel, deadline: float | None, started: float) -> BackendResult:
    left = None if deadline is None else max(deadline - time.perf_counter(), 0.001)
    result = solve_highs(lp, left)
    return BackendResult(result.values, result.optimal, time.perf_counter() - started, 0.0)
