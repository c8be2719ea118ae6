"""Work in chunks on any executor: what an executor offers, and ``run_tasks``, which cuts the items
into chunks, keeps a bounded number of them in flight and hands back the results.

A task is a function of one item and of what every item shares (the context): ``fn(item,
context)``. It must be a module-level function (it is sent to other processes by name) and must
depend on nothing but its arguments, so that a chunk run twice (after a worker died) or run
anywhere gives the same results.

Chunks grow until one takes about ``executor.task_seconds`` to compute, so that the executor's
cost per task (a pipe write for a local pool, a few milliseconds of scheduling and network for
Dask) stays a small share; they never hold more than a quarter of one worker's share of a known
total, so every worker gets work to the end of the run. At most ``executor.window`` chunks are in
flight and at most a few thousand items are read ahead, so the items (a batch file of ten million
lines) are read about as fast as they are solved; a chunk is cut from the items already read, so
input that comes slowly (a pipe) never holds back the answers found meanwhile.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, Protocol, TypeVar

I = TypeVar("I")  # noqa: E741 - an item
C = TypeVar("C")  # what every item shares
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

# Items in a chunk, at most: bounds what one lost or rerun chunk costs.
MAX_CHUNK = 1024


class Handle(Protocol[R_co]):
    """A submitted chunk."""

    def result(self) -> R_co:
        """Its result (waiting for it); the task's own exception if it raised one."""
        ...


class Executor(Protocol):
    """Where chunks run."""

    @property
    def workers(self) -> int:
        """Chunks that run at the same time."""
        ...

    @property
    def window(self) -> int:
        """Chunks to keep in flight: enough that no worker waits for the next one."""
        ...

    @property
    def task_seconds(self) -> float:
        """How long a chunk should take (0: one item a chunk)."""
        ...

    def submit(self, fn: Callable[[Any], R], arg: Any) -> Handle[R]:
        """Start ``fn(arg)`` somewhere."""
        ...

    def first_done(self, handles: Sequence[Handle[Any]]) -> Sequence[Handle[Any]]:
        """Wait until at least one of ``handles`` is done; those that are."""
        ...

    def cancel(self, handles: Sequence[Handle[Any]]) -> None:
        """Give up on chunks not yet done (the run is being stopped)."""
        ...


def run_tasks(
    executor: Executor,
    fn: Callable[[I, C], R],
    items: Iterable[I],
    context: C,
    *,
    ordered: bool,
    total: int | None = None,
) -> Iterator[R]:
    """``fn(item, context)`` for every item, run on ``executor``: in item order if ``ordered``,
    otherwise as chunks finish. ``total``, if known, is the number of items."""
    source = _ReadAhead(items)
    sizes = _ChunkSizes(executor, total)
    in_flight: deque[Handle[tuple[list[R], float]]] = deque()
    try:
        while True:
            while len(in_flight) < executor.window:
                # With chunks in flight, only the items already come: input arriving slowly (a
                # pipe into `batch -`) must not hold back the answers found meanwhile.
                chunk = source.take(sizes.next(), wait=not in_flight)
                if not chunk:
                    break
                in_flight.append(executor.submit(_run_chunk, (fn, chunk, context)))
            if not in_flight:
                return
            # In order: wait for the oldest chunk (later ones finish meanwhile, within the window).
            done = [in_flight[0]] if ordered else executor.first_done(in_flight)
            for handle in done:
                in_flight.remove(handle)
                results, seconds = handle.result()
                sizes.record(len(results), seconds)
                yield from results
    finally:
        if in_flight:  # stopped early (Ctrl-C, an error, the caller stopped reading)
            executor.cancel(list(in_flight))


READ_AHEAD = 4 * MAX_CHUNK  # items read and not yet cut into a chunk, at most


class _ReadAhead(Generic[I]):
    """The items, read in a thread of their own into a bounded queue, so that a chunk can be cut
    from what has come without waiting for more. An error reading them is raised where they are
    taken."""

    def __init__(self, items: Iterable[I]) -> None:
        self.queue: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=READ_AHEAD)
        self.done = False
        threading.Thread(target=self._read, args=(iter(items),), daemon=True).start()

    def _read(self, source: Iterator[I]) -> None:
        try:
            for item in source:
                self.queue.put((True, item))
            self.queue.put((False, None))
        except BaseException as err:  # handed to the one taking the items, whatever it is
            self.queue.put((False, err))

    def take(self, size: int, wait: bool) -> list[I]:
        """Up to ``size`` items: those already read, waiting (if ``wait``) for the first of them."""
        out: list[I] = []
        while len(out) < size and not self.done:
            try:
                is_item, value = self.queue.get(block=wait and not out)
            except queue.Empty:
                break
            if is_item:
                out.append(value)
            else:
                self.done = True
                if value is not None:
                    raise value
        return out


def _run_chunk(job: tuple[Callable[[I, C], R], list[I], C]) -> tuple[list[R], float]:
    """Runs where the executor puts it: the chunk's results and how long they took."""
    fn, chunk, context = job
    started = time.perf_counter()
    results = [fn(item, context) for item in chunk]
    return results, time.perf_counter() - started


class _ChunkSizes:
    """The size of the next chunk: one item at first, then as many as take ``task_seconds``
    at the pace measured so far (at most doubling from one chunk to the next)."""

    def __init__(self, executor: Executor, total: int | None) -> None:
        self.executor = executor
        self.total = total
        self.size = 1
        self.seconds_per_item: float | None = None

    def record(self, items: int, seconds: float) -> None:
        if items:
            self.seconds_per_item = seconds / items

    def next(self) -> int:
        target = self.executor.task_seconds
        if target <= 0 or self.seconds_per_item is None:
            return self.size
        wanted = target / max(self.seconds_per_item, 1e-6)
        limit = MAX_CHUNK
        if self.total is not None:
            limit = min(limit, math.ceil(self.total / (4 * max(1, self.executor.workers))))
        self.size = max(1, min(int(wanted), 2 * self.size, limit))
        return self.size
