"""run_tasks: every item's result, in order when asked, in chunks that grow, a bounded number in flight."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

import pytest

from solver.errors import ExecutorError, InputError
from solver.executors import Workers, open_executor, run_tasks
from solver.executors.chunks import READ_AHEAD, Handle

R = TypeVar("R")


def square(item: int, offset: int) -> int:
    return item * item + offset


def slow_square(item: int, offset: int) -> int:
    time.sleep(0.002 if item % 7 else 0.01)  # uneven work: chunks finish out of order
    return item * item + offset


def fails_on_five(item: int, offset: int) -> int:
    if item == 5:
        raise InputError("item 5 is bad")
    return item


class Recorder:
    """An executor that runs chunks when asked for their result (so several are in flight), and
    notes the size of each chunk and the most chunks ever in flight."""

    def __init__(self, workers: int = 2, window: int = 3, task_seconds: float = 0.01) -> None:
        self.workers = workers
        self.window = window
        self.task_seconds = task_seconds
        self.sizes: list[int] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.cancelled = 0

    def submit(self, fn: Callable[[Any], R], arg: Any) -> Handle[R]:
        self.sizes.append(len(arg[1]))
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        recorder = self

        class Later:
            def result(self) -> R:
                recorder.in_flight -= 1
                return fn(arg)

        return Later()

    def first_done(self, handles: Sequence[Handle[Any]]) -> Sequence[Handle[Any]]:
        return [handles[-1]]  # the newest first: results come back out of order

    def cancel(self, handles: Sequence[Handle[Any]]) -> None:
        self.cancelled += len(handles)


@pytest.mark.parametrize("jobs", [1, 2])
def test_local_results_in_order_or_as_they_come(jobs: int) -> None:
    with open_executor(Workers(jobs=jobs)) as executor:
        ordered = list(run_tasks(executor, slow_square, range(60), 1, ordered=True))
        unordered = list(run_tasks(executor, slow_square, range(60), 1, ordered=False, total=60))
    assert ordered == [i * i + 1 for i in range(60)]
    assert sorted(unordered) == ordered


def test_unordered_results_come_as_chunks_finish() -> None:
    recorder = Recorder(task_seconds=0)
    results = list(run_tasks(recorder, square, range(10), 0, ordered=False))
    assert results != sorted(results) and sorted(results) == [i * i for i in range(10)]


def test_chunks_grow_to_the_target_time_within_a_share_of_the_total() -> None:
    recorder = Recorder(workers=2, task_seconds=0.02)
    results = list(run_tasks(recorder, slow_square, range(400), 0, ordered=True, total=400))
    assert results == [i * i for i in range(400)]
    assert recorder.sizes[:3] == [1, 1, 1]  # nothing measured yet
    assert max(recorder.sizes) > 4  # ~3 ms an item: a 20 ms chunk holds several
    assert max(recorder.sizes) <= 400 // (4 * 2)  # every worker gets several chunks
    for before, after in itertools.pairwise(recorder.sizes):
        assert after <= 2 * before  # grows gently: one slow chunk is never a huge one


def test_without_a_target_every_chunk_is_one_item() -> None:
    recorder = Recorder(task_seconds=0)
    list(run_tasks(recorder, square, range(20), 0, ordered=True))
    assert recorder.sizes == [1] * 20


def test_the_input_is_read_only_as_fast_as_results_are_taken() -> None:
    """The batch file of ten million lines: an endless input, a bounded number of chunks in flight."""
    read = 0

    def endless() -> Iterator[int]:
        nonlocal read
        for i in itertools.count():
            read += 1
            yield i

    recorder = Recorder(window=3, task_seconds=0.01)
    results = run_tasks(recorder, square, endless(), 0, ordered=True)
    taken = list(itertools.islice(results, 2000))
    assert taken == [i * i for i in range(2000)]
    assert recorder.most_in_flight <= 3
    # Taken, in flight, and read ahead (a thread fills its queue as fast as it may: on a busy
    # machine it is full, on a quiet one it may not be) plus the one item waiting to go in.
    assert read <= 2000 + 3 * max(recorder.sizes) + READ_AHEAD + 1
    results.close()  # the caller stops reading: what is in flight is given up
    assert recorder.cancelled > 0


def test_a_task_error_reaches_the_caller_after_the_results_before_it() -> None:
    with open_executor(Workers(jobs=2)) as executor:
        results = run_tasks(executor, fails_on_five, range(10), 0, ordered=True)
        assert [next(results) for _ in range(5)] == [0, 1, 2, 3, 4]
        with pytest.raises(InputError, match="item 5 is bad"):
            next(results)


def test_inline_executor_hands_task_errors_over_like_the_others() -> None:
    with open_executor(Workers()) as executor:
        handle = executor.submit(lambda x: 1 // x, 0)
        assert isinstance(handle, Future)
        with pytest.raises(ZeroDivisionError):
            handle.result()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"executor": "spark"}, "unknown executor 'spark'"),
        ({"jobs": 0}, "jobs must be at least 1"),
        ({"scheduler": "tcp://127.0.0.1:8786"}, "needs the dask executor"),
    ],
)
def test_workers_refuse_what_cannot_run(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ExecutorError, match=message):
        Workers(**changes)


def test_never_more_processes_than_items() -> None:
    assert Workers(jobs=8).at_most(3).jobs == 3
    assert Workers(jobs=2).at_most(0).jobs == 1
