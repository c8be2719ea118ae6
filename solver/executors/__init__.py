"""Where bulk work runs (batch solving, self-play, the opening odds, puzzle generation): this
process, a pool of worker processes on this machine, or a Dask cluster.

``Workers`` names the executor; ``check_setup`` finds what can be wrong before a run (Dask missing, its
scheduler out of reach); ``open_executor`` starts it (and stops what it started);
``run_tasks`` runs a function over many items on it, in chunks. Results depend only on the items,
never on the executor or the number of workers. Dask is imported only when asked for: it is an
optional extra.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

from solver.errors import ExecutorError
from solver.executors.chunks import Executor, run_tasks
from solver.executors.signals import ignore_interrupts

__all__ = ["EXECUTORS", "Executor", "Workers", "check_setup", "ignore_interrupts", "open_executor", "run_tasks"]

EXECUTORS = ("local", "dask")
INSTALL_DASK = "pip install 'rummikub-analysis[dask]'"


@dataclass(frozen=True)
class Workers:
    """Where to run: ``local`` with ``jobs`` processes (1: this process), or ``dask`` on the
    cluster whose scheduler is at ``scheduler`` or, without one, on a cluster of ``jobs`` worker
    processes started on this machine for the run."""

    executor: str = "local"
    jobs: int = 1
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise ExecutorError(f"unknown executor {self.executor!r}: choose from {', '.join(EXECUTORS)}")
        if self.jobs < 1:
            raise ExecutorError(f"jobs must be at least 1, got {self.jobs}")
        if self.scheduler is not None and self.executor != "dask":
            raise ExecutorError("a scheduler address needs the dask executor")

    def at_most(self, items: int) -> Workers:
        """No more processes started than there are items to work on."""
        return replace(self, jobs=max(1, min(self.jobs, items)))


def check_setup(workers: Workers) -> None:
    """What can be known before any work starts: Dask is installed, its scheduler answers."""
    if workers.executor == "dask":
        _require_dask()
        if workers.scheduler is not None:
            from solver.executors.dask import check_scheduler

            check_scheduler(workers.scheduler)


@contextmanager
def open_executor(workers: Workers, warm: Callable[[], None] | None = None) -> Iterator[Executor]:
    """The executor ``workers`` names, open for the ``with`` block. ``warm`` loads what the tasks
    need before local worker processes are forked from this one (Dask workers load it themselves)."""
    if workers.executor == "local":
        from solver.executors.local import local_executor

        with local_executor(workers.jobs, warm) as local:
            yield local
        return
    _require_dask()
    from solver.executors.dask import dask_executor

    with dask_executor(workers.scheduler, workers.jobs) as cluster:
        yield cluster


def _require_dask() -> None:
    try:
        import solver.executors.dask  # noqa: F401 - imports dask and distributed
    except ImportError as err:
        if (err.name or "").split(".")[0] not in ("dask", "distributed"):
            raise
        raise ExecutorError(f"the dask executor needs Dask, an optional extra: {INSTALL_DASK}") from None
