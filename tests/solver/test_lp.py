"""LinearModel: a model derived from a template, then given new columns and new rows, has the same
rows and arrays as the same model built directly."""

from __future__ import annotations

import random

import numpy as np
import pytest

from solver.lp import INF, LinearModel

Row = tuple[list[tuple[int, int]], float, float]


def _rows(rng: random.Random, columns: int, count: int) -> list[Row]:
    return [
        (
            [(v, rng.choice([-2, -1, 1, 2])) for v in rng.sample(range(columns), min(3, columns))],
            rng.choice([-INF, 0.0]),
            rng.choice([1.0, 2.0, INF]),
        )
        for _ in range(count)
    ]


@pytest.mark.parametrize("seed", range(30))
def test_derived_rows_and_columns_match_a_direct_build(seed: int) -> None:
    rng = random.Random(seed)
    template_rows = _rows(rng, 6, 4)
    new_columns = rng.randint(0, 4)
    joins = [(rng.randrange(4), rng.choice([-1, 1])) for _ in range(new_columns)]  # (row, coefficient)
    new_rows = _rows(rng, 6 + new_columns, rng.randint(0, 3))

    template = LinearModel()
    direct = LinearModel()
    for model in (template, direct):
        for j in range(6):
            model.var(f"x{j}", 3)
        for i, (terms, lo, hi) in enumerate(template_rows):
            model.row(f"r{i}", terms, lo, hi)
    child = template.derive()
    for j, (row, c) in enumerate(joins):
        child.add_to_row(row, [(child.var(f"y{j}", 2), c)])
        v = direct.var(f"y{j}", 2)
        name, terms, lo, hi = direct.rows[row]
        direct.rows[row] = (name, [*terms, (v, c)], lo, hi)
    for i, (terms, lo, hi) in enumerate(new_rows):
        assert child.row(f"n{i}", terms, lo, hi) == 4 + i
        direct.row(f"n{i}", terms, lo, hi)
    child.set_row_bounds(0, -5, 5)
    direct.set_row_bounds(0, -5, 5)

    assert child.row_count == direct.row_count == 4 + len(new_rows)
    assert child.final_rows() == direct.final_rows()
    a, b = child.arrays(), direct.arrays()
    for field in ("row_lower", "row_upper", "start", "index", "value", "lower", "upper"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


@pytest.mark.parametrize(
    ("values", "expected"), [([2, 2], True), ([3, 2], False), ([2, 1], False), ([0, 0], True), ([-1, 0], False)]
)
def test_satisfied_by_checks_rows_and_bounds_lazy_rows_too(values: list[int], expected: bool) -> None:
    model = LinearModel()
    x, y = model.var("x", 3), model.var("y", 3)
    model.row("sum", [(x, 1), (y, 1)], -INF, 4)
    model.row("order", [(x, 1), (y, -1)], -INF, 0, lazy=True)
    assert model.satisfied_by(values) is expected
