"""bnb on small random integer programs, against brute force over every integer point.

Rummikub positions rarely leave a gap between the LP bound and the optimum, so the search's
rarer paths (a level with no move at it, several levels down, stages that tie) get exercised
here on programs built to have such gaps: a few packing rows with coefficients 1..3 over
variables bounded by 0..2.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.backends import bnb
from solver.backends.lp_engine import ENGINES, available
from solver.lp import BackendResult, LinearModel


@st.composite
def packing_programs(draw: st.DrawFn) -> LinearModel:
    """max c1.x then c2.x (lexicographic), subject to a few rows a.x <= b; x = 0 is feasible."""
    n = draw(st.integers(2, 6))
    lp = LinearModel()
    for i in range(n):
        lp.var(f"x{i}", draw(st.integers(1, 2)))
    for r in range(draw(st.integers(1, 4))):
        coefficients = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        lp.row(f"r{r}", [(i, c) for i, c in enumerate(coefficients)], 0, draw(st.integers(1, 7)))
    first = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    if draw(st.booleans()):  # subset sums: the first part scores a row's own coefficients
        _, terms, _, _ = lp.rows[0]
        first = [dict(terms).get(i, 0) for i in range(n)]
    second = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    lp.stages = [[(i, c) for i, c in enumerate(first) if c], [(i, c) for i, c in enumerate(second) if c]]
    weight = sum(second) * 2 + 1  # exceeds any total of the second part
    lp.objective = [(i, weight * a + b) for i, (a, b) in enumerate(zip(first, second)) if a or b]
    lp.objective_bound = sum(weight * a + b for a, b in zip(first, second)) * 2
    return lp


def _brute_force(lp: LinearModel) -> tuple[int, int]:
    best = (-1, -1)
    for point in itertools.product(*(range(lo, hi + 1) for lo, hi in zip(lp.lower, lp.upper))):
        if all(lo <= sum(c * point[v] for v, c in terms) <= hi for _, terms, lo, hi in lp.rows):
            best = max(best, tuple(sum(c * point[v] for v, c in stage) for stage in lp.stages))  # type: ignore[arg-type]
    return best


def _solve(
    lp: LinearModel,
    quick_nodes: int,
    cut_rounds: int = 2,
    engine: str = "auto",
    cuts_after: int | None = None,
) -> BackendResult:
    """bnb with these settings, restored afterwards (hypothesis rules out monkeypatch here)."""
    original = bnb.QUICK_NODES, bnb.CUT_ROUNDS, bnb.LP_ENGINE, bnb.CUTS_AFTER_NODES
    bnb.QUICK_NODES, bnb.LP_ENGINE = quick_nodes, engine
    bnb.CUT_ROUNDS = dict.fromkeys(ENGINES, cut_rounds)
    bnb.CUTS_AFTER_NODES = dict.fromkeys(ENGINES, cuts_after)
    try:
        return bnb.solve_bnb(lp, None)
    finally:
        bnb.QUICK_NODES, bnb.CUT_ROUNDS, bnb.LP_ENGINE, bnb.CUTS_AFTER_NODES = original


def _values(lp: LinearModel, values: list[int]) -> tuple[int, int]:
    first, second = (sum(c * values[v] for v, c in stage) for stage in lp.stages)
    return first, second


@settings(max_examples=600, deadline=None)
@given(
    packing_programs(),
    st.sampled_from([0, 7]),
    st.sampled_from([0, 2]),
    st.sampled_from(ENGINES if available() else ("highs",)),
    st.sampled_from([None, 1, 3]),
)
def test_bnb_finds_the_lexicographic_optimum(
    lp: LinearModel, quick_nodes: int, cut_rounds: int, engine: str, cuts_after: int | None
) -> None:
    """With the one-shot weighted search (7 nodes) or straight to the stages (0 nodes), with
    and without cuts (cuts close most gaps at the root, and the levels below it go unvisited),
    with cuts made after a first search of 1 or 3 nodes gave up, on either LP engine."""
    lp.hint = [0] * len(lp.names)
    result = _solve(lp, quick_nodes, cut_rounds, engine, cuts_after)
    assert result.optimal and result.values is not None
    assert all(lo <= v <= hi for v, lo, hi in zip(result.values, lp.lower, lp.upper))
    for _, terms, lo, hi in lp.rows:
        assert lo <= sum(c * result.values[v] for v, c in terms) <= hi
    assert _values(lp, result.values) == _brute_force(lp)


@settings(max_examples=300, deadline=None)
@given(packing_programs(), st.data(), st.sampled_from([0, 7]))
def test_targets_stop_the_search_only_when_out_of_reach(
    lp: LinearModel, data: st.DataObject, quick_nodes: int
) -> None:
    """Targets near the optimum: an answer ranking at or above them is found and proven as
    without targets; below them the search may stop early, unproven, with a feasible move."""
    lp.hint = [0] * len(lp.names)
    best = _brute_force(lp)
    lp.targets = tuple(max(0, v + data.draw(st.integers(-1, 1))) for v in best)
    result = _solve(lp, quick_nodes)
    assert result.values is not None
    assert all(lo <= v <= hi for v, lo, hi in zip(result.values, lp.lower, lp.upper))
    for _, terms, lo, hi in lp.rows:
        assert lo <= sum(c * result.values[v] for v, c in terms) <= hi
    if best >= lp.targets:
        assert result.optimal and _values(lp, result.values) == best
    elif result.optimal:  # the weighted search may prove the optimum before any stage
        assert _values(lp, result.values) == best


def test_a_level_without_moves_goes_on_to_the_next() -> None:
    """x + y <= 1.5 and 2x + 2y <= 3 style gaps: the root bound 3 is not reachable, 2 is."""
    lp = LinearModel()
    x, y, z = (lp.var(name, 1) for name in "xyz")
    lp.row("a", [(x, 2), (y, 2), (z, 2)], 0, 3)  # at most one of three: LP takes one and a half
    lp.stages = [[(x, 2), (y, 2), (z, 2)]]
    lp.objective = list(lp.stages[0])
    lp.objective_bound = 6
    lp.hint = [0, 0, 0]
    result = _solve(lp, 0)
    assert result.optimal and result.values is not None
    assert sum(result.values) == 1


@pytest.mark.parametrize("quick_nodes", [0, 7])
def test_nothing_to_gain_keeps_the_start(quick_nodes: int) -> None:
    lp = LinearModel()
    x = lp.var("x", 2)
    lp.row("a", [(x, 1)], 0, 0)
    lp.stages = [[(x, 1)]]
    lp.objective = [(x, 1)]
    lp.hint = [0]
    result = _solve(lp, quick_nodes)
    assert result.optimal and result.values == [0]


@settings(max_examples=400, deadline=None)
@given(
    packing_programs(),
    st.data(),
    st.sampled_from([0, 7]),
    st.sampled_from([0, 2]),
    st.sampled_from(ENGINES if available() else ("highs",)),
    st.sampled_from([None, 1]),
)
def test_lazy_rows_join_when_broken_and_the_optimum_stays(
    lp: LinearModel, data: st.DataObject, quick_nodes: int, cut_rounds: int, engine: str, cuts_after: int | None
) -> None:
    """Rows marked lazy are left out of the LPs until a candidate breaks one: the answer still
    satisfies every row and is the brute force's optimum (each lazy row is a row of the model),
    with cuts too (the cut store must hold the rows as the LP does, in the order added)."""
    lp.hint = [0] * len(lp.names)
    lp.lazy = sorted(data.draw(st.sets(st.integers(0, len(lp.rows) - 1), min_size=1)))
    result = _solve(lp, quick_nodes, cut_rounds, engine, cuts_after)
    assert result.optimal and result.values is not None
    for _, terms, lo, hi in lp.rows:
        assert lo <= sum(c * result.values[v] for v, c in terms) <= hi
    assert _values(lp, result.values) == _brute_force(lp)


def test_warm_imports_the_backend_itself() -> None:
    # Warming before forking workers or timing a first solve must leave that solve nothing to
    # import: the backend module too (bnb and its Gomory cuts: 3-20 ms, more without bytecode).
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from solver.rules import RuleSet\n"
        "from solver.solve import warm\n"
        "warm(RuleSet())\n"
        "print('solver.backends.bnb' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True"]
