"""The local executor (the default): this process, or a pool of worker processes on this machine.

The workers ignore Ctrl-C: it reaches the whole process group, and the parent alone decides what
to do with it (stop the pool, write what finished, report).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from multiprocessing.pool import Pool
from typing import Any, TypeVar, cast

from solver.errors import ExecutorError
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


# A pool replaces a worker that dies (the out-of-memory killer, a stray kill) but loses the chunk
# it held: waits look every WATCH_SECONDS for workers gone, and their chunks run again, up to
# RETRIES times each (a chunk that kills every worker it meets stops the run, in one line).
WATCH_SECONDS = 0.5
RETRIES = 3


class _PoolTask:
    """A chunk on the pool: its future, and how often it has been started."""

    def __init__(self, executor: PoolExecutor, fn: Callable[[Any], Any], arg: Any) -> None:
        self.executor, self.fn, self.arg = executor, fn, arg
        self.future: Future[Any] = Future()
        self.starts = 0

    def result(self) -> Any:
        while True:
            try:
                return self.future.result(timeout=WATCH_SECONDS)
            except FutureTimeout:
                self.executor.watch()


class PoolExecutor:
    """Chunks run by a pool of worker processes; a chunk whose worker died runs again."""

    window_per_worker = 4
    task_seconds = POOL_TASK_SECONDS

    def __init__(self, pool: Pool, workers: int) -> None:
        self.pool = pool
        self.workers = workers
        self.window = self.window_per_worker * workers
        self.running: list[_PoolTask] = []
        self.children = _children()

    def submit(self, fn: Callable[[Any], R], arg: Any) -> _PoolTask:
        task = _PoolTask(self, fn, arg)
        self._start(task)
        return task

    def _start(self, task: _PoolTask) -> None:
        future = task.future

        def done(value: Any) -> None:
            if not future.done():  # a chunk run twice (its worker seemed gone): the first answer
                future.set_result(value)

        def failed(err: BaseException) -> None:
            if not future.done():
                future.set_exception(err)

        task.starts += 1
        self.pool.apply_async(task.fn, (task.arg,), callback=done, error_callback=failed)
        self.running = [t for t in self.running if not t.future.done()] + [task]

    def watch(self) -> None:
        """Start again the chunks that were running when a worker died."""
        now = _children()
        gone = self.children - now
        self.children = now
        if not gone:
            return
        for task in [t for t in self.running if not t.future.done()]:
            if task.starts > RETRIES:
                task.future.set_exception(
                    ExecutorError(
                        f"the worker processes running a chunk of work kept dying ({task.starts} in turn):"
                        " the work itself may crash them (out of memory?)"
                    )
                )
            else:
                self._start(task)

    def first_done(self, handles: Sequence[Handle[Any]]) -> Sequence[Handle[Any]]:
        tasks = [cast(_PoolTask, h) for h in handles]  # handles are this executor's own
        while True:
            done = wait([t.future for t in tasks], timeout=WATCH_SECONDS, return_when=FIRST_COMPLETED).done
            if done:
                return [t for t in tasks if t.future in done]
            self.watch()

    def cancel(self, handles: Sequence[Handle[Any]]) -> None:
        pass  # the pool is terminated when the executor closes


def _children() -> set[int]:
    """This process's live worker processes."""
    return {p.pid for p in multiprocessing.active_children() if p.pid is not None}


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
