"""bnb's two LP engines: the compiled dual simplex against HiGHS, LP by LP and answer by answer.

The simplex engine's answers are used only in ways that stay exact (a bound that holds whatever
its accuracy, a checked infeasibility proof, integral solutions checked row by row), so a wrong
LP answer would cost speed, not exactness; these tests hold it to HiGHS's answers anyway.
"""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.backends import bnb, lp_engine
from solver.files import position_from_record
from solver.lp import LpArrays
from solver.model import build_model
from solver.solution import Objective
from solver.solve import SolveOptions, solve
from tests.solver.test_conformance import CASES, VARIANTS

pytestmark = pytest.mark.skipif(not lp_engine.available(), reason="the simplex engine was not built")


def _arrays(case: Any, formulation: str) -> LpArrays:
    record, variant = case.values
    objective, options = VARIANTS[variant]
    fields = {k: v for k, v in record.items() if k != "oracle"}
    position = position_from_record(fields, record["id"], options)
    objective = Objective.TILES if objective == "tiles" else Objective.POINTS
    arrays, _ = build_model(position, objective, formulation).lp.arrays().reduced()
    return arrays


def _activity(arrays: LpArrays, x: Any) -> Any:
    columns = np.repeat(np.arange(len(x)), np.diff(arrays.start))
    return np.bincount(arrays.index, arrays.value * x[columns], len(arrays.row_lower))


@pytest.mark.parametrize("formulation", ["auto", "flow"])
@pytest.mark.parametrize("seed", range(4))
def test_the_engines_agree_along_random_searches(seed: int, formulation: str) -> None:
    """Branching bound changes, back to the root after an infeasible node, rows added (cuts,
    stages' optima), costs changed (the next stage): both engines reach the same status and
    optimal value each time, and the simplex engine's solution satisfies its rows and bounds."""
    rng = random.Random(seed)
    cases = [c for c in CASES if c.values[1] == "tiles_continue"]
    solves = 0
    for case in rng.sample(cases, 12):
        arrays = _arrays(case, formulation)
        n = len(arrays.cost)
        if n == 0:
            continue
        simplex, highs = lp_engine.make_engine(arrays, "simplex"), lp_engine.make_engine(arrays, "highs")
        engines = (simplex, highs)
        lower, upper, cost = arrays.lower.copy(), arrays.upper.copy(), arrays.cost.copy()
        row_lower, row_upper = list(arrays.row_lower), list(arrays.row_upper)
        for _ in range(30):
            ours, theirs = simplex.solve(), highs.solve()
            solves += 1
            assert (ours is None) == (theirs is None)
            if ours is None:
                everything = np.arange(n, dtype=np.int32)
                lower, upper = arrays.lower.copy(), arrays.upper.copy()
                for engine in engines:
                    engine.set_bounds(everything, lower, upper)
                continue
            assert theirs is not None
            x, bound = ours
            value = float(cost @ theirs[0])
            assert float(cost @ x) == pytest.approx(value, abs=1e-6)
            assert value - 1e-7 <= bound <= value + 1e-6  # a true upper bound, and a tight one
            assert (x >= lower - 1e-9).all() and (x <= upper + 1e-9).all()
            activity = _activity(arrays, x)
            assert (activity >= arrays.row_lower - 1e-7).all() and (activity <= arrays.row_upper + 1e-7).all()
            roll = rng.random()
            if roll < 0.1:  # a stage's optimum kept as a row
                row = np.array([rng.choice([0.0, 0.0, 1.0]) for _ in range(n)])
                floor = math.floor(float(row @ x)) - rng.choice([0, 1])
                for engine in engines:
                    engine.add_row_at_least(row, floor)
                row_lower.append(floor)
                row_upper.append(math.inf)
                continue
            if roll < 0.2:  # the next stage's costs
                cost = arrays.cost * np.array([rng.choice([0.0, 1.0, 2.0]) for _ in range(n)])
                for engine in engines:
                    engine.set_cost(cost)
                continue
            fractional = np.flatnonzero(np.abs(x - np.round(x)) > 1e-6)
            j = int(rng.choice(list(fractional))) if len(fractional) else rng.randrange(n)
            if rng.random() < 0.5:
                upper[j] = max(lower[j], math.floor(x[j]) - (0 if len(fractional) else 1))
            else:
                lower[j] = min(upper[j], math.floor(x[j]) + 1)
            at = np.array([j], dtype=np.int32)
            for engine in engines:
                engine.set_bounds(at, lower[at], upper[at])
    assert solves > 100


def test_infeasible_needs_a_proof() -> None:
    """x + y >= 3 with x, y in [0, 1]: infeasible; in [0, 2]: optimum 4, infeasible again with x
    fixed at 0, optimum 3 with x fixed at 1; bounds beyond the first ones are refused."""
    arrays = LpArrays(
        cost=np.array([1.0, 1.0]),
        lower=np.zeros(2),
        upper=np.ones(2),
        row_lower=np.array([3.0]),
        row_upper=np.array([math.inf]),
        start=np.array([0, 1, 2], dtype=np.int32),
        index=np.array([0, 0], dtype=np.int32),
        value=np.array([1.0, 1.0]),
    )
    assert lp_engine.make_engine(arrays, "simplex").solve() is None
    looser = dataclasses.replace(arrays, upper=np.array([2.0, 2.0]))
    engine = lp_engine.make_engine(looser, "simplex")
    solved = engine.solve()
    assert solved is not None and solved[1] == pytest.approx(4.0)
    engine.set_bounds(np.array([0], dtype=np.int32), np.array([0.0]), np.array([0.0]))
    assert engine.solve() is None  # y alone cannot reach 3
    engine.set_bounds(np.array([0], dtype=np.int32), np.array([1.0]), np.array([1.0]))
    solved = engine.solve()
    assert solved is not None and solved[1] == pytest.approx(3.0)
    with pytest.raises(ValueError, match="beyond the root"):
        engine.set_bounds(np.array([1], dtype=np.int32), np.array([0.0]), np.array([3.0]))


@pytest.mark.parametrize(("record", "variant"), CASES)
def test_bnb_on_highs_meets_the_oracle_too(
    record: dict[str, Any], variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conformance positions with bnb's LPs solved by HiGHS (test_conformance runs the
    default engine): both reach the independently computed optima, kept sets included."""
    monkeypatch.setattr(bnb, "LP_ENGINE", "highs")
    objective, options = VARIANTS[variant]
    fields = {k: v for k, v in record.items() if k != "oracle"}
    position = position_from_record(fields, record["id"], options)
    solution = solve(position, SolveOptions(objective=objective, backend="bnb"))
    got = solution.tiles_played if objective == "tiles" else solution.points_played
    assert solution.status in ("optimal", "no_move") and got == record["oracle"][variant]
    if variant == "tiles" and "kept" in record["oracle"]:
        assert solution.kept_sets == record["oracle"]["kept"]


def test_many_added_rows() -> None:
    """Rows added past the room reserved at construction (the inverse grows): still HiGHS's
    optimum after every row."""
    case = next(c for c in CASES if c.values[1] == "tiles_continue")
    arrays = _arrays(case, "auto")
    n = len(arrays.cost)
    rng = random.Random(3)
    simplex, highs = lp_engine.make_engine(arrays, "simplex"), lp_engine.make_engine(arrays, "highs")
    for _ in range(60):
        ours, theirs = simplex.solve(), highs.solve()
        assert ours is not None and theirs is not None
        assert ours[1] == pytest.approx(float(arrays.cost @ theirs[0]), abs=1e-6)
        row = np.array([rng.choice([0.0, 0.0, 0.0, 1.0, 2.0]) for _ in range(n)])
        floor = math.floor(float(row @ ours[0])) - rng.choice([0, 1, 2])
        for engine in (simplex, highs):
            engine.add_row_at_least(row, floor)
    assert len(simplex.basic_variables()) == len(arrays.row_lower) + 60


def test_an_uninitialised_simplex_refuses_work() -> None:
    from solver.backends._dualsimplex import Simplex

    bare = Simplex.__new__(Simplex)
    with pytest.raises(RuntimeError, match="not initialised"):
        bare.solve()
    with pytest.raises(ValueError, match="expected"):
        Simplex(1, 1, np.zeros(1, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0), *[np.zeros(1)] * 5)


@st.composite
def small_lps(draw: st.DrawFn) -> LpArrays:
    """Any small bounded LP: coefficients -3..3, column bounds within -3..3, rows with a lower
    bound, an upper one, both, or equal to a value; often infeasible."""
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    lower = [draw(st.integers(-3, 2)) for _ in range(n)]
    upper = [lo + draw(st.integers(0, 3)) for lo in lower]
    columns = [[(i, c) for i in range(m) if (c := draw(st.integers(-3, 3)))] for _ in range(n)]
    row_lower, row_upper = [], []
    for _ in range(m):
        kind, a = draw(st.sampled_from(["<=", ">=", "range", "="])), draw(st.integers(-6, 6))
        low = a if kind in (">=", "range", "=") else -math.inf
        high = a if kind in ("<=", "=") else a + draw(st.integers(0, 4)) if kind == "range" else math.inf
        row_lower.append(low)
        row_upper.append(high)
    return LpArrays(
        cost=np.array([draw(st.integers(-4, 4)) for _ in range(n)], dtype=np.float64),
        lower=np.array(lower, dtype=np.float64),
        upper=np.array(upper, dtype=np.float64),
        row_lower=np.array(row_lower, dtype=np.float64),
        row_upper=np.array(row_upper, dtype=np.float64),
        start=np.array(np.cumsum([0] + [len(c) for c in columns]), dtype=np.int32),
        index=np.array([i for c in columns for i, _ in c], dtype=np.int32),
        value=np.array([v for c in columns for _, v in c], dtype=np.float64),
    )


@settings(max_examples=500, deadline=None)
@given(small_lps(), st.lists(st.tuples(st.sampled_from(["down", "up", "cost", "row"]), st.integers(0, 99)), max_size=6))
def test_the_engines_agree_on_any_small_lp(arrays: LpArrays, changes: list[tuple[str, int]]) -> None:
    """Status and optimal value as HiGHS's, a true and tight bound, a feasible solution, on the
    LP and after each of a few changes: a branching bound, new costs, a row added."""
    simplex, highs = lp_engine.make_engine(arrays, "simplex"), lp_engine.make_engine(arrays, "highs")
    engines = (simplex, highs)
    lower, upper, cost = arrays.lower.copy(), arrays.upper.copy(), arrays.cost.copy()
    added: list[tuple[Any, float]] = []
    for change, seed in [("none", 0), *changes]:
        rng = random.Random(seed)
        n = len(cost)
        if change in ("down", "up"):
            j = seed % n
            if change == "up":
                lower[j] = min(upper[j], lower[j] + 1)
            else:
                upper[j] = max(lower[j], upper[j] - 1)
            at = np.array([j], dtype=np.int32)
            for engine in engines:
                engine.set_bounds(at, lower[at], upper[at])
        elif change == "cost":
            cost = np.array([float(rng.randint(-4, 4)) for _ in range(n)])
            for engine in engines:
                engine.set_cost(cost)
        elif change == "row":
            row = np.array([float(rng.randint(-2, 2)) for _ in range(n)])
            floor = float(rng.randint(-4, 4))
            added.append((row, floor))
            for engine in engines:
                engine.add_row_at_least(row, floor)
        ours, theirs = simplex.solve(), highs.solve()
        assert (ours is None) == (theirs is None)
        if ours is None or theirs is None:
            return
        x, bound = ours
        value = float(cost @ theirs[0])
        assert float(cost @ x) == pytest.approx(value, abs=1e-7)
        assert value - 1e-7 <= bound <= value + 1e-6
        assert (x >= lower - 1e-9).all() and (x <= upper + 1e-9).all()
        activity = _activity(arrays, x)
        assert (activity >= arrays.row_lower - 1e-7).all() and (activity <= arrays.row_upper + 1e-7).all()
        assert all(float(row @ x) >= floor - 1e-7 for row, floor in added)


@settings(max_examples=400, deadline=None)
@given(small_lps())
def test_a_column_moved_off_its_bound_costs_its_reduced_cost(arrays: LpArrays) -> None:
    """What reduced-cost fixing rests on: after an optimal solve, moving column j k units off the
    bound its reduced cost picks leaves an optimum of at most the bound less k * |r[j]| (or none)."""
    simplex = lp_engine.make_engine(arrays, "simplex")
    solved = simplex.solve()
    if solved is None:
        return
    bound, r = solved[1], simplex.reduced_costs()
    assert r is not None and len(r) == len(arrays.cost)
    for j in np.flatnonzero(np.abs(r) > 1e-9).tolist():
        width = arrays.upper[j] - arrays.lower[j]
        for k in range(1, int(width) + 1):
            lower, upper = arrays.lower.copy(), arrays.upper.copy()
            if r[j] < 0:  # it wants its lower bound: keep it at least k above
                lower[j] += k
            else:
                upper[j] -= k
            moved = lp_engine.make_engine(dataclasses.replace(arrays, lower=lower, upper=upper), "highs").solve()
            assert moved is None or moved[1] <= bound - k * abs(r[j]) + 1e-6
    assert lp_engine.make_engine(arrays, "highs").reduced_costs() is None
