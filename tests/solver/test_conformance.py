"""The shared conformance positions: optima computed independently, every backend must match.

See data/conformance/README.md for the fields. Variants map to rule options:
``tiles``/``points``: joker allowed in the initial meld, no continuing after it;
``tiles_nojokermeld``: the default (no joker in the meld); ``tiles_continue``: continuing allowed.
``kept``: original table sets left exactly as they were, among moves with the most tiles and then
the most points.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from solver.files import position_from_record
from solver.solve import SolveOptions, solve
from solver.validator import validate
from tests import paths

DATA = paths.DATA / "conformance"

VARIANTS: dict[str, tuple[str, dict[str, object]]] = {
    "tiles": ("tiles", {"joker-in-meld": True}),
    "points": ("points", {"joker-in-meld": True}),
    "tiles_nojokermeld": ("tiles", {"joker-in-meld": False}),
    "tiles_continue": ("tiles", {"joker-in-meld": True, "continue-after-meld": True}),
}


def _records() -> list[dict[str, Any]]:
    out = []
    for name in ("selfplay.jsonl", "hard.jsonl"):
        with open(DATA / name) as handle:
            out += [json.loads(line) for line in handle if line.strip()]
    return out


RECORDS = _records()
CASES = [
    pytest.param(rec, variant, id=f"{rec['id']}-{variant}")
    for rec in RECORDS
    for variant in VARIANTS
    if variant in rec["oracle"]
]


def test_all_positions_present() -> None:
    assert len(RECORDS) == 126


# Both formulations on CP-SAT cross-check each other; CBC runs the set model; HiGHS and the
# branch and bound (bnb) run the pattern model after the initial meld and the flow model for it
# (auto), and bnb the flow model throughout as well.
FORMULATIONS = {"bnb": ["auto", "flow"], "cbc": ["sets"], "cpsat": ["sets", "flow"], "highs": ["auto"]}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "formulation" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("backend") or list(FORMULATIONS)
        metafunc.parametrize(
            ("backend", "formulation"),
            [(b, f) for b in chosen for f in FORMULATIONS[b]],
            ids=[f"{b}-{f}" for b in chosen for f in FORMULATIONS[b]],
        )


@pytest.mark.parametrize(("record", "variant"), CASES)
def test_conformance(record: dict[str, Any], variant: str, backend: str, formulation: str) -> None:
    objective, options = VARIANTS[variant]
    fields = {k: v for k, v in record.items() if k != "oracle"}
    position = position_from_record(fields, record["id"], options)
    solution = solve(position, SolveOptions(objective=objective, backend=backend, formulation=formulation))
    assert solution.status in ("optimal", "no_move")
    got = solution.tiles_played if objective == "tiles" else solution.points_played
    assert got == record["oracle"][variant]
    new_table = [list(s.tiles) for s in solution.table]
    assert validate(position, new_table) == []
    # Tiles are conserved: the new table is the old table plus exactly the played tiles.
    assert Counter(t for s in new_table for t in s) == position.table_tiles + Counter(solution.played)
    if variant == "tiles" and "kept" in record["oracle"]:
        assert solution.kept_sets == record["oracle"]["kept"]
