"""Gomory cuts: every cut keeps the optimal integer solutions, and cuts never change an answer."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pytest

from solver.backends import bnb
from solver.backends.gomory import RowStore, gomory_cuts
from solver.backends.lp_engine import ENGINES, available, make_engine
from solver.files import position_from_record
from solver.model import build_model
from solver.position import Position
from solver.solution import Objective
from tests import paths

DATA = paths.DATA / "conformance"
# Both LP engines; the compiled one only where the install built it.
ENGINE_PARAMS = [
    pytest.param(e, marks=pytest.mark.skipif(e == "simplex" and not available(), reason="not built"))
    for e in ENGINES
]


def _positions() -> list[Position]:
    out = []
    for name in ("selfplay.jsonl", "hard.jsonl"):
        with open(DATA / name) as handle:
            for line in handle:
                record = json.loads(line)
                record.pop("oracle", None)
                if "opened" in record:
                    record["initial_meld"] = not record.pop("opened")
                position = position_from_record(record, record["id"], {"continue-after-meld": True})
                out.append(dataclasses.replace(position, opened=True))  # the flow model with the table
    return out


POSITIONS = _positions()


def _objective_value(lp: Any, values: list[int]) -> int:
    return sum(c * values[v] for v, c in lp.objective)


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
@pytest.mark.parametrize("position", POSITIONS[::3], ids=lambda p: p.id)
def test_cuts_keep_the_optimum(position: Position, engine: str) -> None:
    """Cuts from the root tableau, round after round, never cut off a known optimal solution."""
    model = build_model(position, Objective.TILES, "flow")
    best = bnb.solve_bnb(model.lp, None)
    assert best.optimal and best.values is not None
    arrays, keep = model.lp.arrays().reduced()
    optimum = np.array(best.values, dtype=np.float64)[keep]
    lp = make_engine(arrays, engine)
    rows = RowStore(arrays)
    for _ in range(4):
        solved = lp.solve()
        assert solved is not None
        x = solved[0]
        cuts = gomory_cuts(lp, rows, x, arrays.lower, arrays.upper, 10)
        if not cuts:
            break
        for pi, pi0 in cuts:
            assert float(pi @ optimum) >= pi0 - 1e-9, "a cut removed the optimal move"
            assert float(pi @ x) < pi0, "a cut that does not cut off the LP optimum"
            lp.add_row_at_least(pi, pi0)
            rows.add(pi, pi0, float("inf"), integral=False)
    solved = lp.solve()
    assert solved is not None
    assert solved[1] >= _objective_value(model.lp, best.values) - 1e-6


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_some_position_gets_cuts(engine: str) -> None:
    """The cut generator is not idle: fractional roots among the conformance positions get cuts."""
    made = 0
    for position in POSITIONS[:40]:
        arrays, _ = build_model(position, Objective.TILES, "flow").lp.arrays().reduced()
        lp = make_engine(arrays, engine)
        solved = lp.solve()
        assert solved is not None
        made += len(gomory_cuts(lp, RowStore(arrays), solved[0], arrays.lower, arrays.upper, 5))
    assert made > 0


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
@pytest.mark.parametrize("position", POSITIONS[1::4], ids=lambda p: p.id)
def test_same_answer_value_without_cuts(position: Position, engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """bnb with and without cuts reaches the same optimum (tiles, points and kept sets alike),
    on either LP engine (the default rounds of cuts differ by engine)."""
    monkeypatch.setattr(bnb, "LP_ENGINE", engine)
    for objective in (Objective.TILES, Objective.POINTS):
        model = build_model(position, objective, "flow")
        monkeypatch.setattr(bnb, "CUT_ROUNDS", dict.fromkeys(ENGINES, 2))
        with_cuts = bnb.solve_bnb(model.lp, None)
        monkeypatch.setattr(bnb, "CUT_ROUNDS", dict.fromkeys(ENGINES, 0))
        without = bnb.solve_bnb(build_model(position, objective, "flow").lp, None)
        assert with_cuts.optimal and without.optimal
        assert with_cuts.values is not None and without.values is not None
        assert _objective_value(model.lp, with_cuts.values) == _objective_value(model.lp, without.values)


def test_the_library_answers_the_same_on_any_number_of_blas_threads() -> None:
    """Called from Python (the program pins one thread itself), gen-3-11 came out another of equal
    optima with OpenBLAS on two threads: the cuts' dense products rounded otherwise."""
    import os
    import subprocess
    import sys

    script = "from puzzles.generate import generated_puzzle as g; from puzzles.library import puzzle_text as t; print(t(g(3, 11)))"
    names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    unset = {k: v for k, v in os.environ.items() if k not in names}
    outputs = {
        threads: subprocess.run(
            [sys.executable, "-c", script],
            env=unset if threads is None else {**unset, "OPENBLAS_NUM_THREADS": threads},
            capture_output=True,
            check=True,
        ).stdout
        for threads in ("1", "2", None)
    }
    assert outputs["1"] == outputs["2"] == outputs[None]
