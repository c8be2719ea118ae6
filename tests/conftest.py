"""Shared test options: every backend-dependent test runs once per backend (``--backend`` picks one)."""

from __future__ import annotations

import pytest

from solver.backends import BACKENDS


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backend",
        action="append",
        choices=BACKENDS,
        help="run backend-dependent tests only with this backend (repeatable; default: all)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames and "formulation" not in metafunc.fixturenames:
        chosen = metafunc.config.getoption("backend") or list(BACKENDS)
        metafunc.parametrize("backend", chosen)
