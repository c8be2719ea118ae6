"""The Dask executor: chunks run by the workers of a Dask cluster (``dask`` and ``distributed``).

With a scheduler address, the cluster is somebody else's: the run connects a client, checks that
every worker runs the same rummikub and Python, submits its chunks and, however it ends, cancels
what it left unfinished and disconnects, leaving the cluster as it found it. Without one, it
starts a cluster of worker processes on this machine for the run and shuts it down at the end.

Dask reruns the chunks of a worker that dies on the other workers (a started cluster also
restarts the worker), so a run survives it with the same results. A worker that joins during the
run with other code refuses its chunks; they, and the chunks after them, go to the others.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing.forkserver
import pickle
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Generic, TypeVar, cast

import cloudpickle
import dask
import distributed
from distributed.comm.addressing import parse_address, parse_host_port
from distributed.comm.core import CommClosedError
from distributed.comm.registry import get_backend
from distributed.core import rpc

from solver.errors import ExecutorError
from solver.executors import same_code
from solver.executors.chunks import Handle
from solver.executors.signals import ignore_interrupts

R = TypeVar("R")

# Dask's cost per task is a few milliseconds (measured on this machine: 3 ms for an empty task
# with the scheduler and workers sharing two cores): half a second a chunk keeps it under 1%.
DASK_TASK_SECONDS = 0.5
CONNECT_SECONDS = 5.0
WINDOW_PER_WORKER = 4
# A cluster's size is looked up again this often (workers may join or leave during a run).
RESIZE_SECONDS = 5.0
# How long a run waits for a scheduler without workers to get one (workers may be starting, or
# all have left during the run and may come back); the workers are looked for this often.
WORKERS_SECONDS = 30.0
WORKERS_POLL_SECONDS = 2.0


class DaskExecutor:
    """Chunks submitted to a Dask cluster through one client."""

    task_seconds = DASK_TASK_SECONDS

    def __init__(self, client: distributed.Client) -> None:
        self.client = client
        self._workers = 1
        self._counted = -RESIZE_SECONDS
        self.refusing: set[str] = set()  # workers that joined during the run with other code

    @property
    def workers(self) -> int:
        if time.monotonic() - self._counted >= RESIZE_SECONDS:
            with _cluster_errors():
                self._workers = max(1, sum(self.client.nthreads().values()))
            self._counted = time.monotonic()
        return self._workers

    @property
    def window(self) -> int:
        return WINDOW_PER_WORKER * self.workers

    def submit(self, fn: Callable[[Any], R], arg: Any) -> _DaskHandle[R]:
        # The chunk travels as one pickle that runs it when loaded, if the worker's code is ours
        # (same_code): pickle.loads is all a worker, or the scheduler, needs to know by name.
        chunk = _LoadedAsCall(same_code.run_if_same_code, code_fingerprint(), pickle.dumps((fn, arg), protocol=5))
        return _DaskHandle(self, cloudpickle.dumps(chunk))

    def send(self, chunk: bytes) -> distributed.Future[tuple[str, Any]]:
        """The chunk submitted, to the workers that have not refused one. ExecutorError if only
        those are left."""
        workers = None
        if self.refusing:
            with _cluster_errors():
                workers = sorted(set(self.client.nthreads()) - self.refusing)
            if not workers:
                raise ExecutorError(
                    f"Dask worker {min(self.refusing)} runs other rummikub code than this client (it joined"
                    " during the run?), and no worker with the client's code is left: restart it with"
                    " the code the client has"
                )
        # pure=False: a chunk sent again (the same items) is new work, not a cached result. The
        # workers are a preference, not a must: were they all to leave, a strict list would keep
        # the chunk waiting for ever; elsewhere it is refused again and sent once more.
        if workers is None:
            return self.client.submit(pickle.loads, chunk, pure=False)
        return self.client.submit(pickle.loads, chunk, pure=False, workers=workers, allow_other_workers=True)

    def first_done(self, handles: Sequence[Handle[Any]]) -> Sequence[Handle[Any]]:
        done = _first_done(self.client, _futures(handles))
        return [h for h in handles if cast(_DaskHandle[Any], h).future in done]

    def cancel(self, handles: Sequence[Handle[Any]]) -> None:
        with suppress(Exception):  # the scheduler is gone: nothing is left running there
            self.client.cancel(_futures(handles))


def _futures(handles: Sequence[Handle[Any]]) -> list[distributed.Future[Any]]:
    return [cast(_DaskHandle[Any], h).future for h in handles]  # handles are this executor's own


class _DaskHandle(Generic[R]):
    """A submitted chunk; Dask's own failures become one-line errors."""

    def __init__(self, executor: DaskExecutor, chunk: bytes) -> None:
        self.executor, self.chunk = executor, chunk
        self.future = executor.send(chunk)  # same_code.run_if_same_code's answer

    def result(self) -> R:
        alone_since: float | None = None
        while True:  # waited on with an eye on the workers (all may leave mid-run)
            try:
                with _cluster_errors():
                    outcome, value = self.future.result(timeout=WORKERS_POLL_SECONDS)
            except ExecutorError:
                if self.future.done():
                    raise
                alone_since = _still_workers(self.future.client, alone_since)
                continue
            if outcome == "ran":
                return cast(R, value)
            # A worker that joined during the run, with other code: the chunk goes to the others.
            self.executor.refusing.add(str(value))
            self.future = self.executor.send(self.chunk)


class _LoadedAsCall:
    """Pickles as the call ``fn(*args)``: unpickling it runs it."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self.fn, self.args = fn, args

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return self.fn, self.args


# Sent by value, so that a worker without it (older code) still runs the check.
cloudpickle.register_pickle_by_value(same_code)


def _first_done(client: distributed.Client, futures: list[distributed.Future[Any]]) -> set[distributed.Future[Any]]:
    """The futures done once one is, or ExecutorError when the scheduler has had no worker for
    WORKERS_SECONDS (all left during the run; it would hold the chunks for ever)."""
    alone_since: float | None = None
    while True:
        try:
            with client.as_current():  # wait() looks for the client to ask there
                done: set[distributed.Future[Any]] = distributed.wait(
                    futures, timeout=WORKERS_POLL_SECONDS, return_when="FIRST_COMPLETED"
                ).done
            return done
        except TimeoutError:
            pass  # nothing finished yet: are there workers to finish it?
        except Exception:
            with _cluster_errors():
                raise
        alone_since = _still_workers(client, alone_since)


def _still_workers(client: distributed.Client, alone_since: float | None) -> float | None:
    """Since when the scheduler has had no worker (None: it has some); ExecutorError once that
    has lasted WORKERS_SECONDS."""
    with _cluster_errors():
        alone = not client.nthreads()
    now = time.monotonic()
    alone_since = (alone_since or now) if alone else None
    if alone_since is not None and now - alone_since >= WORKERS_SECONDS:
        address = client.scheduler.address if client.scheduler else "the scheduler"
        raise ExecutorError(
            f"every Dask worker left the scheduler at {address} during the run, and none came back"
            f" within {WORKERS_SECONDS:g} s: start some (dask worker {address})"
        )
    return alone_since


@contextmanager
def _cluster_errors() -> Iterator[None]:
    """Dask's own failures (not the task's) as one-line errors."""
    try:
        yield
    except distributed.KilledWorker as err:
        raise ExecutorError(
            f"the workers running a chunk of work kept dying ({err.allowed_failures + 1} in turn, "
            f"the last {err.last_worker.address}): the work itself may crash them (out of memory?)"
        ) from None
    except (distributed.CancelledError, TimeoutError, CommClosedError):
        # Dask's message lists every chunk cancelled; what the user needs is the cause.
        raise ExecutorError("lost the connection to the Dask scheduler during the run") from None


@contextmanager
def dask_executor(scheduler: str | None, jobs: int) -> Iterator[DaskExecutor]:
    """An executor on the cluster at ``scheduler``, or on a cluster of ``jobs`` worker processes
    started on this machine (and shut down when the block ends)."""
    cluster: distributed.LocalCluster | None = None
    client: distributed.Client | None = None
    # Dask's scheduler, workers and client keep logs of their last thousand events, which hold
    # on to the chunks' arguments: for chunks of a thousand batch lines, hundreds of megabytes.
    # This run's client and the cluster it starts keep a hundred (an existing cluster's
    # scheduler and workers are configured by whoever started them: docs/distributed.md).
    settings: dict[str, Any] = {"distributed.admin.low-level-log-length": LOG_LENGTH}
    if scheduler is None:
        settings["distributed.worker.multiprocessing-method"] = "forkserver"  # see _start_cluster
    with _quiet_logs(), dask.config.set(settings):
        try:
            if scheduler is None:
                with _interrupts_deferred():  # a cluster half started would not close cleanly
                    cluster = _start_cluster(jobs)
                client = distributed.Client(cluster, set_as_default=False)
            else:
                client = _connect(scheduler)
                _wait_for_workers(client, scheduler)
                _check_workers(client)
            yield DaskExecutor(client)
        finally:
            with _no_interrupts():  # a second Ctrl-C must not leave the started cluster running
                if client is not None:
                    client.close()
                if cluster is not None:
                    cluster.close()


@contextmanager
def _quiet_logs() -> Iterator[None]:
    """Dask's own log lines (a worker restarted, a lost connection, with its traceback) held
    back for the block: what matters reaches the user as one-line errors."""
    names = ["distributed", "tornado", "asyncio"]
    names += [n for n in logging.root.manager.loggerDict if n.startswith(("distributed.", "tornado."))]
    loggers = [logging.getLogger(n) for n in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


LOG_LENGTH = 100  # events in Dask's logs (see dask_executor)


def _start_cluster(jobs: int) -> distributed.LocalCluster:
    # Ctrl-C reaches the whole process group, and a worker process still importing Dask would
    # print its traceback: the workers are forked from a server (the multiprocessing method
    # dask_executor sets) started with SIGINT ignored, which they inherit (dask_setup keeps it).
    distributed.utils.get_mp_context()  # sets the modules the server loads before it forks
    with _no_interrupts():
        multiprocessing.forkserver.ensure_running()
    try:
        return distributed.LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,  # the solver uses one core; a process per core
            processes=True,
            host="127.0.0.1",  # a cluster for this run only: nothing listens beyond this machine
            # No dashboard, and the scheduler's HTTP server on a free port: 8787 may be taken
            # by a cluster the user runs (Dask would say so on stderr).
            dashboard_address=None,
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.CRITICAL,
            preload=[__name__],  # dask_setup below, in every worker
        )
    except Exception as err:
        raise ExecutorError(f"cannot start a local Dask cluster of {jobs} workers: {_one_line(err)}") from None


def dask_setup(worker: Any) -> None:
    """Run by each worker of a cluster started here: Ctrl-C reaches the whole process group,
    and the command alone decides what it means (write what finished, shut the cluster down)."""
    ignore_interrupts()


def _connect(address: str) -> distributed.Client:
    """A client of the scheduler at ``address``, or a one-line error within a few seconds."""
    check_scheduler(address)
    try:
        return distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except Exception as err:
        raise ExecutorError(f"cannot connect to the Dask scheduler at {address}: {_one_line(err)}") from None


def check_scheduler(address: str) -> None:
    """A Dask scheduler answers at ``address``, or a one-line error within a few seconds."""
    try:
        scheme, location = parse_address(address)
        get_backend(scheme)
    except ValueError as err:
        raise ExecutorError(f"not a Dask scheduler address: {address!r} ({_one_line(err)})") from None
    try:
        host, port = parse_host_port(location, 8786)
    except ValueError:
        raise ExecutorError(f"not a Dask scheduler address: {address!r} (expected tcp://HOST:PORT)") from None
    try:
        parse_host_port(location)
    except ValueError:  # no port: Dask's client would not guess one, so say it here
        raise ExecutorError(
            f"not a Dask scheduler address: {address!r} (no port: tcp://HOST:PORT, such as tcp://{host}:8786)"
        ) from None
    if scheme == "tcp":
        # Checked before a client is made: Dask retries a refused connection until its timeout,
        # and a client that failed to connect hangs and complains again when it is collected.
        try:
            socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
            kind = asyncio.run(asyncio.wait_for(_identity(address), CONNECT_SECONDS))
        except TimeoutError:
            raise ExecutorError(
                f"no Dask scheduler answered at {address} within {CONNECT_SECONDS:.0f} s"
            ) from None
        except (OSError, CommClosedError) as err:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {_one_line(err)}") from None
        except Exception:  # something else listens there (a web server, say): what Dask made of its bytes means nothing
            raise ExecutorError(
                f"no Dask scheduler answers at {address}: something else listens there (it does not speak Dask)"
            ) from None
        if kind != "Scheduler":
            raise ExecutorError(f"{address} is a Dask {kind or 'server'}, not a scheduler")
    else:
        # tls:// (or another protocol) with the security of Dask's own configuration: asked before
        # a client is made, which would fail, and then complain again with a traceback when collected.
        try:
            asyncio.run(asyncio.wait_for(_identity(address), CONNECT_SECONDS))
        except TimeoutError:
            raise ExecutorError(f"no Dask scheduler answered at {address} within {CONNECT_SECONDS:.0f} s") from None
        except Exception as err:
            raise ExecutorError(f"cannot connect to the Dask scheduler at {address}: {_one_line(err)}") from None


async def _identity(address: str) -> str:
    """What kind of Dask server listens at ``address`` (Scheduler, Worker, Nanny)."""
    security = distributed.security.Security()  # Dask's configuration: TLS certificates, if set
    async with rpc(address, timeout=CONNECT_SECONDS, connection_args=security.get_connection_args("client")) as server:
        answer = await server.identity()
    return str(answer.get("type", "")) if isinstance(answer, dict) else ""


def _wait_for_workers(client: distributed.Client, address: str) -> None:
    """A scheduler without workers would take the run's chunks and hold them for ever."""
    try:
        client.wait_for_workers(1, timeout=WORKERS_SECONDS)
    except TimeoutError:
        raise ExecutorError(
            f"no Dask worker joined the scheduler at {address} within {WORKERS_SECONDS:g} s:"
            f" start some (dask worker {address})"
        ) from None


def _worker_versions() -> tuple[str, str, str]:
    """Run on each worker: the versions that must match the client's, and its code's fingerprint."""
    try:
        ours = version("rummikub-analysis")
    except PackageNotFoundError:
        ours = "not installed"
    return ours, ".".join(map(str, sys.version_info[:2])), code_fingerprint()


@cache
def code_fingerprint() -> str:
    """This process's code (same_code.code_fingerprint), hashed once."""
    return same_code.code_fingerprint()


def _check_workers(client: distributed.Client) -> None:
    """Every worker runs the same rummikub, code and Python as this client (the same code gives
    the same results; a chunk is sent to a worker by name, and must find the same functions there)."""
    expected = _worker_versions()
    found = client.run(_worker_versions, on_error="return")
    for address, versions in sorted(found.items()):
        if isinstance(versions, BaseException):
            raise ExecutorError(
                f"Dask worker {address} cannot run rummikub ({_one_line(versions)}): "
                "install rummikub-analysis on every worker"
            )
        if tuple(versions[:2]) != expected[:2]:
            raise ExecutorError(
                f"Dask worker {address} runs rummikub-analysis {versions[0]} on Python {versions[1]}, "
                f"this client {expected[0]} on Python {expected[1]}: install the same on every worker"
            )
        if len(versions) < 3 or versions[2] != expected[2]:
            raise ExecutorError(
                f"Dask worker {address} runs other rummikub code than this client (started before"
                " an update?): restart the workers with the code the client has"
            )


@contextmanager
def _sigint_handled(handler: Any) -> Iterator[None]:
    """Ctrl-C handled by ``handler`` for the block (only the main thread may change handlers:
    elsewhere the block runs as it is)."""
    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _no_interrupts() -> AbstractContextManager[None]:
    """Ctrl-C held off for the block."""
    return _sigint_handled(signal.SIG_IGN)


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """A Ctrl-C during the block raised when it ends."""
    pressed: list[int] = []
    with _sigint_handled(lambda signum, frame: pressed.append(signum)):
        yield
    if pressed:
        raise KeyboardInterrupt


def _one_line(err: BaseException) -> str:
    if isinstance(err, OSError) and err.strerror:
        return err.strerror  # "Connection refused", not "[Errno 111] Connection refused"
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__
