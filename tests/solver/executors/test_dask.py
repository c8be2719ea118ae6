"""The Dask executor on clusters started by the tests (worker processes): a worker killed in the
middle of a run, a run stopped early, a scheduler out of reach."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import SchedulerPlugin

from solver.errors import ExecutorError
from solver.executors import Workers, open_executor, run_tasks
from solver.executors.dask import CONNECT_SECONDS
from solver.game.selfplay import Outcome, Settings, run_games
from solver.rules import RuleSet

ROOT = Path(__file__).resolve().parents[3]


def without_time(outcomes: list[Outcome]) -> list[dict[str, object]]:
    ordered = sorted(outcomes, key=lambda o: o.index)
    return [{k: v for k, v in dataclasses.asdict(o).items() if k != "seconds"} for o in ordered]


class Transitions(SchedulerPlugin):
    """Every task state change the scheduler makes, in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []

    def transition(self, key: Any, start: str, finish: str, *args: Any, **kwargs: Any) -> None:
        self.seen.append((str(key), start, finish))


def scheduler_state(address: str) -> tuple[dict[str, int], int]:
    """The cluster's workers (address -> pid) and how many tasks its scheduler holds."""
    with Client(address, set_as_default=False) as client:
        pids = client.run(os.getpid)
        tasks = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
    return pids, tasks


def test_a_worker_killed_mid_run_has_its_chunk_rerun_and_the_run_ends_the_same(own_cluster: LocalCluster) -> None:
    settings = Settings(ais=("medium", "easy"), games=80, seed=7, rules=RuleSet(numbers=9))
    expected = without_time(list(run_games(settings)))
    transitions = Transitions()
    own_cluster.scheduler.add_plugin(transitions, name="transitions")
    address = own_cluster.scheduler_address
    outcomes: list[Outcome] = []
    killed = None
    with Client(address, set_as_default=False) as watcher:
        pids = watcher.run(os.getpid)  # asked before the run: the kill itself must be quick
        for outcome in run_games(settings, Workers("dask", scheduler=address)):
            outcomes.append(outcome)
            if killed is None:  # chunks of ~10 games in flight on both workers
                busy = [worker for worker, keys in watcher.processing().items() if keys]
                assert busy, "no chunk in flight to kill a worker under"
                killed = pids[busy[0]]
                os.kill(killed, signal.SIGKILL)
    assert killed is not None
    assert without_time(outcomes) == expected
    # The killed worker's chunk went back to waiting and was then computed elsewhere.
    lost = {key for key, start, finish in transitions.seen if start == "processing" and finish in ("released", "waiting")}
    assert lost, "the scheduler saw no chunk lost with its worker"
    assert all(any(k == key and finish == "memory" for k, _, finish in transitions.seen) for key in lost)
    with pytest.raises(ProcessLookupError):
        os.kill(killed, 0)


def test_every_worker_leaving_mid_run_ends_the_run_in_one_line(own_cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.executors.dask as dask_executor

    monkeypatch.setattr(dask_executor, "WORKERS_SECONDS", 1.5)
    monkeypatch.setattr(dask_executor, "WORKERS_POLL_SECONDS", 0.2)
    address = own_cluster.scheduler_address
    settings = Settings(ais=("easy", "easy"), games=400, seed=1, rules=RuleSet(numbers=7))
    games = run_games(settings, Workers("dask", scheduler=address))
    assert next(games).index >= 0
    own_cluster.scale(0)  # every worker gone, with chunks still queued
    started = time.monotonic()
    with pytest.raises(ExecutorError, match=f"every Dask worker left the scheduler at {address} during the run,"
                       " and none came back within 1.5 s: start some"):
        for _ in games:
            pass
    assert time.monotonic() - started < 30  # it waited for them, not for ever


def test_a_run_stopped_early_leaves_the_cluster_as_it_found_it(dask_cluster: LocalCluster) -> None:
    address = dask_cluster.scheduler_address
    before, _ = scheduler_state(address)
    settings = Settings(ais=("easy", "easy"), games=400, seed=1, rules=RuleSet(numbers=7))
    games = run_games(settings, Workers("dask", scheduler=address))
    assert next(games).index >= 0
    games.close()  # as Ctrl-C does: the run ends with chunks in flight
    deadline = time.monotonic() + 10
    workers, tasks = scheduler_state(address)
    while tasks and time.monotonic() < deadline:
        time.sleep(0.1)
        workers, tasks = scheduler_state(address)
    assert workers == before  # the same worker processes, none restarted or stopped
    assert tasks == 0  # nothing of the run left queued or held


def test_results_from_a_cluster_are_in_order_when_asked(dask_cluster: LocalCluster) -> None:
    from tests.solver.executors.test_chunks import slow_square

    with open_executor(Workers("dask", scheduler=dask_cluster.scheduler_address)) as executor:
        assert executor.workers == 2
        results = list(run_tasks(executor, slow_square, range(300), 3, ordered=True))
    assert results == [i * i + 3 for i in range(300)]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("address", "message"),
    [
        (f"tcp://127.0.0.1:{closed_port()}", "cannot reach the Dask scheduler at tcp://127.0.0.1:"),
        ("tcp://127.0.0.1:notaport", "not a Dask scheduler address: 'tcp://127.0.0.1:notaport' \\(expected tcp://HOST:PORT\\)"),
        ("carrier-pigeon://loft:1", "not a Dask scheduler address: .*unknown address scheme 'carrier-pigeon'"),
    ],
)
def test_a_scheduler_out_of_reach_is_one_error_within_seconds(address: str, message: str) -> None:
    started = time.monotonic()
    with pytest.raises(ExecutorError, match=message) as caught, open_executor(Workers("dask", scheduler=address)):
        pass
    assert "\n" not in str(caught.value)
    assert time.monotonic() - started < 2


def test_a_port_where_no_scheduler_answers_is_one_error_after_the_timeout() -> None:
    with socket.socket() as silent:  # accepts connections (the kernel does) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        refused = pytest.raises(ExecutorError, match=f"no Dask scheduler answered at {address} within 5 s")
        with refused, open_executor(Workers("dask", scheduler=address)):
            pass
        assert time.monotonic() - started < CONNECT_SECONDS + 2


def test_a_worker_address_is_not_a_scheduler(dask_cluster: LocalCluster) -> None:
    worker = next(iter(dask_cluster.scheduler_info["workers"]))
    refused = pytest.raises(ExecutorError, match=f"{worker} is a Dask Worker, not a scheduler")
    with refused, open_executor(Workers("dask", scheduler=worker)):
        pass


def dies_on_a_worker(item: int, context: None) -> int:
    """Kills the process it runs in, if that is a Dask worker (as running out of memory would)."""
    from distributed import get_worker

    try:
        get_worker()
    except ValueError:  # not on a worker
        return item
    os._exit(1)


def test_a_chunk_that_keeps_killing_its_workers_stops_the_run_in_one_line(own_cluster: LocalCluster) -> None:
    workers = Workers("dask", scheduler=own_cluster.scheduler_address)
    with open_executor(workers) as executor, pytest.raises(ExecutorError) as caught:
        list(run_tasks(executor, dies_on_a_worker, range(3), None, ordered=True))
    assert "the workers running a chunk of work kept dying (4 in turn" in str(caught.value)
    assert "\n" not in str(caught.value)


def older_copy(tmp_path: Path) -> Path:
    """This tree's code as an older checkout has it: a solver file changed, and no same_code
    module (nor the per-chunk check that came before it)."""
    for package in ("solver", "puzzles", "tests"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "solver" / "executors" / "same_code.py").unlink(missing_ok=True)
    with open(tmp_path / "solver" / "rules.py", "a") as rules:
        rules.write("# changed since\n")
    return tmp_path


@contextmanager
def older_worker_joined(address: str, tmp_path: Path, watcher: Client) -> Iterator[list[str]]:
    """A worker with older code (``older_copy``) joined to the scheduler at ``address`` while the
    block runs: its address, as a list; stopped (killed if it hangs) when the block ends."""
    copy = older_copy(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(copy)}
    command = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny"]
    ours = sorted(watcher.nthreads())
    older = subprocess.Popen(command, env=env, cwd=copy, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(watcher.nthreads()) <= len(ours) and time.monotonic() < deadline:
            time.sleep(0.2)
        joined = sorted(set(watcher.nthreads()) - set(ours))
        assert joined, "the older worker did not join"
        yield joined
    finally:
        older.terminate()
        try:
            older.wait(30)
        except subprocess.TimeoutExpired:  # its graceful close can hang on a slow machine: the check is done
            older.kill()
            older.wait()


def test_a_worker_with_older_code_joining_mid_run_refuses_its_chunks_and_the_others_run_them(
    own_cluster: LocalCluster, tmp_path: Path
) -> None:
    """Its chunks used to stop the run while workers with the client's code were still there."""
    from solver.executors.dask import DaskExecutor
    from tests.solver.executors.test_chunks import slow_square

    address = own_cluster.scheduler_address
    items = range(3000)
    with open_executor(Workers("dask", scheduler=address)) as executor, Client(address, set_as_default=False) as watcher:
        assert isinstance(executor, DaskExecutor)
        results = run_tasks(executor, slow_square, items, 3, ordered=True)
        got = [next(results)]  # the run checked the two workers, and is under way
        with older_worker_joined(address, tmp_path, watcher) as joined:
            got += list(results)
        assert executor.refusing == set(joined)  # it was sent chunks, and refused them
    assert got == [slow_square(i, 3) for i in items]


def test_a_worker_with_older_code_joining_mid_run_stops_it_in_one_line_naming_it(
    own_cluster: LocalCluster, tmp_path: Path
) -> None:
    """Once it is the only worker left. Such a worker failed its chunk with "internal error" (it
    lacked the function the chunk was sent as); one with the check but other code stopped the run
    without naming itself."""
    from tests.solver.executors.test_chunks import slow_square

    address = own_cluster.scheduler_address
    with open_executor(Workers("dask", scheduler=address)) as executor, Client(address, set_as_default=False) as watcher:
        results = run_tasks(executor, slow_square, range(100_000), 3, ordered=True)
        assert next(results) == 3  # the run checked the two workers, and is under way
        ours = sorted(watcher.nthreads())
        with older_worker_joined(address, tmp_path, watcher) as joined:
            watcher.retire_workers(ours)  # the rest of the run can only go to the older worker
            with pytest.raises(ExecutorError) as caught:
                for _ in results:
                    pass
    message = str(caught.value)
    assert message.startswith(f"Dask worker {joined[0]} runs other rummikub code than this client")
    assert "\n" not in message
