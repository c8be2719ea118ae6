"""Shared test options: every backend-dependent test runs once per backend (``--backend`` picks one);
and Dask clusters of two workers for the executor tests (one for the session, one per test)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

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


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[Any]:
    """A Dask cluster of two worker processes for the session: the "existing cluster" that
    ``--scheduler`` connects to (its scheduler runs in the test process)."""
    cluster = _two_workers()
    yield cluster
    cluster.close()


@pytest.fixture
def own_cluster() -> Iterator[Any]:
    """A cluster of two worker processes for one test (one of them gets killed)."""
    cluster = _two_workers()
    yield cluster
    cluster.close()


def _two_workers() -> Any:
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},  # 8787 may be taken
        silence_logs=logging.CRITICAL,
    )
