"""The solver processes: solves run off the event loop, so a slow one never freezes the pages.

Worker processes rather than threads: the solver is Python and C that holds the GIL, so threads
would take turns on one core while processes use every core (bench/results/web.md measures both),
and HiGHS keeps one thread scheduler per process, which concurrent solves in threads would share.
The processes are spawned, not forked: a fork of a server that has started threads (the event loop's
thread pool, HiGHS's scheduler) can inherit a lock held by a thread that no longer exists.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from web import endpoints
from web.limits import Limits

Answer = tuple[int, Any]
STARTUP_SECONDS = 120  # a worker loads numpy, HiGHS and the solver, and builds its first models


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT blocked in this thread: one that comes meanwhile waits, and is delivered at the end."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class SolverPool:
    """Runs ``endpoints.answer`` calls in worker processes (or threads, for comparison), with a
    bound on how many may wait, and a deadline for each."""

    def __init__(self, limits: Limits, kind: str = "process") -> None:
        if kind not in ("process", "thread"):
            raise ValueError(f"pool kind {kind!r}: process or thread")
        self.limits = limits
        self.kind = kind
        self.pending = 0
        self._executor = self._start()

    def _start(self) -> Executor:
        if self.kind == "thread":
            return ThreadPoolExecutor(self.limits.workers, thread_name_prefix="solver")
        # One thread each for the numeric libraries in the workers (they inherit this setting): by
        # default every worker's OpenBLAS starts a thread per core, and two workers on two cores
        # took 9.0 s for twenty slow solves instead of 3.9 s (bench/results/web.md).
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")
        return ProcessPoolExecutor(
            self.limits.workers, multiprocessing.get_context("spawn"), initializer=endpoints.start_worker
        )

    async def warm(self) -> None:
        """Start every worker now (each loads the solver once), not on the first requests; a
        server whose workers cannot start says so and stops instead of failing every solve."""
        loop = asyncio.get_running_loop()
        # The workers are spawned by these calls, with SIGINT blocked (a process keeps its signal
        # mask through fork and exec): Ctrl-C in their first second, while they import the
        # solver, is the server's alone (it interrupted their imports, and the server said their
        # tracebacks and "startup failed"); the server's own Ctrl-C waits until they are spawned.
        with _interrupts_held():
            calls = [
                loop.run_in_executor(self._executor, endpoints.answer, "rules", self.limits)
                for _ in range(self.limits.workers)
            ]
        try:
            started = await asyncio.wait_for(asyncio.gather(*calls), STARTUP_SECONDS)
        except (TimeoutError, BrokenProcessPool) as err:
            raise RuntimeError(f"the solver processes did not start: {type(err).__name__}") from None
        failed = [body["error"] for status, body in started if status != 200]
        if failed:
            raise RuntimeError(f"the solver processes did not start: {failed[0]}")

    async def run(self, endpoint: str, *args: Any) -> Answer:
        """``endpoints.answer(endpoint, *args)`` in a worker."""
        return await self.call(endpoints.answer, endpoint, *args)

    async def call(self, function: Callable[..., Answer], *args: Any) -> Answer:
        """``function(*args)`` in a worker: a module-level function answering (status, body), as
        ``endpoints.answer`` and ``request.call`` do."""
        if self.pending >= self.limits.max_pending:
            return 503, {
                "error": f"the server is busy ({self.pending} solves waiting); try again in a moment"
            }
        self.pending += 1
        executor = self._executor
        try:
            future = asyncio.get_running_loop().run_in_executor(executor, function, *args)
            return await asyncio.wait_for(future, self.limits.wait)
        except TimeoutError:
            return 504, {"error": f"the solve took too long (over {self.limits.wait:g} seconds)"}
        except BrokenProcessPool:
            # A worker died (out of memory, a crash in C): new workers for the next requests
            # (once, however many requests the dead pool failed).
            if executor is self._executor:
                executor.shutdown(wait=False, cancel_futures=True)
                self._executor = self._start()
            return 500, {"error": "internal error (please report): a solver process stopped"}
        finally:
            self.pending -= 1

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
