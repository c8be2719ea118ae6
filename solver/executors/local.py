"""The local executor (the default): this process, or a pool of worker processes on this machine.

The workers ignore Ctrl-C: it reaches the whole process group, and the parent alone decides what
to do with it (stop the pool, write what finished, report).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from contextlib import contextmanager
from multiprocessing.pool import Pool
from typing import Any, TypeVar, cast

from solver.executors.chunks import Handle
from solver.executors.signals import ignore_interrupts

R = TypeVar("R")

# A pipe write costs a fraction of a millisecond: short chunks keep the answers streaming.
POOL_TASK_SECONDS = 0.05


class InlineExecutor:
    """Every chunk computed in this process, one item at a time, when it is submitted."""

    workers = 1
    window = 1
    task_seconds = 0.0

    def submit(self, fn: Callable[[Any], R], arg: Any) -> Future[R]:
        future: Future[R] = Future()
        try:
            future.set_result(fn(arg))
        except Exception as err:  # handed over by result(), as any executor's task error is
            future.set_exception(err)
        return future

    def first_done(self, handles: Sequence[Handle[Any]]) -> Sequence[Handle[Any]]:
        return list(handles)  # done when submitted

    def cancel(self, handles: Sequence[Handle[Any]]) -> None:
        pass


class PoolExecutor:
    """Chunks run by a pool of worker processes."""

    window_per_worker = 4
    task_seconds = POOL_TASK_SECONDS

    def __init__(self, pool: Pool, workers: int) -> None:
        self.pool = pool
        self.workers = workers
        self.window = self.window_per_worker * workers

    def submit(self, fn: Callable[[Any], R], arg: Any) -> Future[R]:
        future: Future[R] = Future()
        self.pool.apply_async(fn, (arg,), callback=future.set_result, error_callback=future.set_exception)
        return future

    def first_done(self, handles: Sequence[Handle[Any]]) -> Sequence[Handle[Any]]:
        futures = [cast(Future[Any], h) for h in handles]  # handles are this executor's own
        return list(wait(futures, return_when=FIRST_COMPLETED).done)

    def cancel(self, handles: Sequence[Handle[Any]]) -> None:
        pass  # the pool is terminated when the executor closes


@contextmanager
def local_executor(jobs: int, warm: Callable[[], None] | None = None) -> Iterator[InlineExecutor | PoolExecutor]:
    """This process for ``jobs`` 1, else a pool of ``jobs`` processes; ``warm`` runs first (before
    the fork, so that the workers share what it loads)."""
    if jobs <= 1:
        yield InlineExecutor()
        return
    if warm is not None:
        warm()
    with worker_pool(jobs) as pool:
        yield PoolExecutor(pool, jobs)


def worker_pool(jobs: int) -> Pool:
    """A pool of ``jobs`` processes, forked where the platform can (the workers then share the
    parent's loaded solver and model templates), spawned elsewhere."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    return context.Pool(jobs, initializer=ignore_interrupts)
