"""``--executor local|dask`` on batch, selfplay, odds and puzzles generate: the same results
whatever runs them, one-line errors, and Ctrl-C (exit 130, every finished result written, the
cluster shut down if the command started it, left as found if not)."""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from distributed import Client, LocalCluster

from cli.main import cli
from puzzles.generate import generated_puzzle
from puzzles.library import load_puzzle
from solver.validator import validate
from tests.interrupt import COMMAND, ctrl_c
from tests.paths import ROOT

SELFPLAY = ROOT / "bench" / "positions" / "selfplay.jsonl"
TIMING = ("seconds", "games_per_second")


def run(args: list[Any], **kwargs: Any) -> Result:
    result = CliRunner().invoke(cli, [str(a) for a in args], **kwargs)
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def executors(cluster: LocalCluster) -> list[list[str]]:
    """The ways to run: this process; the test's cluster of two workers; a one-worker cluster
    that the command starts and stops."""
    return [
        ["--executor", "local"],
        ["--executor", "dask", "--scheduler", cluster.scheduler_address],
        ["--executor", "dask", "--jobs", "1"],
    ]


def summary(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.stderr
    return {k: v for k, v in json.loads(result.stdout).items() if k not in TIMING}


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# --------------------------------------------------------------------------- the same results


def test_selfplay_summary_and_records_are_the_same_on_every_executor(tmp_path: Path, dask_cluster: LocalCluster) -> None:
    outputs = []
    for k, how in enumerate(executors(dask_cluster)):
        records = tmp_path / f"records-{k}"
        args = ["selfplay", "--games", 24, "--ai", "medium,easy", "--numbers", 9, "--seed", 4, "--json"]
        outputs.append((summary(run([*args, "--record", records, *how])), files(records)))
    assert len(outputs[0][1]) == 24
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]


def test_odds_are_the_same_on_every_executor(dask_cluster: LocalCluster) -> None:
    found = [summary(run(["odds", "--deals", 200, "--turns", 6, "--seed", 2, "--json", *how])) for how in executors(dask_cluster)]
    assert found[0]["deals"] == 200
    assert found[1] == found[0] and found[2] == found[0]


def test_batch_answers_are_the_same_and_in_input_order_on_every_executor(dask_cluster: LocalCluster) -> None:
    rows = SELFPLAY.read_text().splitlines()[:150]
    rows.insert(70, '{"rack": ["R14"]}')  # a bad line: answered in its place, the rest still solved
    outputs = [run(["batch", "-", "--no-timing", *how], input="\n".join(rows) + "\n") for how in executors(dask_cluster)]
    assert [o.exit_code for o in outputs] == [1, 1, 1]
    assert outputs[1].stdout == outputs[0].stdout and outputs[2].stdout == outputs[0].stdout
    answers = [json.loads(line) for line in outputs[0].stdout.splitlines()]
    assert len(answers) == 151 and answers[70]["line"] == 71 and "R14" in answers[70]["error"]
    ids = [json.loads(row).get("id") for row in rows]
    assert [a.get("id") for a in answers] == ids


def test_generated_puzzles_are_the_same_files_on_every_executor(tmp_path: Path, dask_cluster: LocalCluster) -> None:
    made = []
    for k, how in enumerate(executors(dask_cluster)):
        out = tmp_path / f"puzzles-{k}"
        result = run(["puzzles", "generate", "--difficulty", 2, "--seed", 5, "--count", 4, "--out", out, *how])
        assert result.exit_code == 0, result.stderr
        assert result.stdout == f"4 puzzles of difficulty 2 written to {out}\n"
        made.append(files(out))
    assert made[1] == made[0] and made[2] == made[0]
    assert list(made[0]) == [f"gen-2-{seed}.txt" for seed in range(5, 9)]
    for seed in range(5, 9):  # each file reads back as the puzzle of its own recorded seed
        puzzle = load_puzzle(str(tmp_path / "puzzles-0" / f"gen-2-{seed}.txt"))
        expected = generated_puzzle(2, seed)
        assert puzzle.to_dict() == expected.to_dict()
        assert f"--seed {seed}." in puzzle.position.notes
        assert validate(puzzle.position, list(puzzle.answer)) == []


# --------------------------------------------------------------------------- errors, one line each


def test_without_the_extra_asking_for_dask_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_dask(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] in ("dask", "distributed"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "solver.executors.dask", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_dask)
    for args in (["odds", "--deals", 5], ["selfplay", "--games", 2, "--numbers", 7], ["batch", "-"]):
        result = run([*args, "--executor", "dask"], input="")
        assert result.exit_code == 1
        assert result.stderr == (
            "Error: the dask executor needs Dask, an optional extra: pip install 'rummikub-analysis[dask]'\n"
        )
    assert run(["odds", "--deals", 5, "--json"]).exit_code == 0  # the local executor needs no Dask


def test_an_unreachable_scheduler_is_one_line_within_seconds() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    result = run(["odds", "--deals", 5, "--executor", "dask", "--scheduler", f"tcp://127.0.0.1:{port}"])
    assert time.monotonic() - started < 3
    assert result.exit_code == 1
    assert result.stderr.endswith(f"Error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: Connection refused\n")
    assert result.stderr.count("Error") == 1


@pytest.mark.parametrize("scheme", ["tls", "ucx"])
def test_a_scheduler_address_of_another_protocol_is_one_line_at_once(scheme: str) -> None:
    # tls:// said its error, then a client's traceback 10 s later.
    started = time.monotonic()
    result = run(["odds", "--deals", 5, "--executor", "dask", "--scheduler", f"{scheme}://127.0.0.1:8991"])
    assert time.monotonic() - started < 5 and result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot connect to the Dask scheduler at {scheme}://127.0.0.1:8991: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_a_web_server_at_the_scheduler_address_is_named_as_something_else() -> None:
    """An HTTP server answers "400 Bad Request" and closes: Dask read its bytes as a frame length
    and the message was "Unable to allocate 3.07 EiB for an array"."""
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]

        def answer() -> None:
            for _ in range(5):
                try:
                    connection, _ = server.accept()
                except OSError:
                    return
                with connection:
                    connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

        threading.Thread(target=answer, daemon=True).start()
        result = run(["odds", "--deals", 5, "--executor", "dask", "--scheduler", f"tcp://127.0.0.1:{port}"])
    assert result.exit_code == 1
    assert result.stderr.endswith(
        f"Error: no Dask scheduler answers at tcp://127.0.0.1:{port}: something else listens there"
        " (it does not speak Dask)\n"
    ), result.stderr


def test_a_scheduler_without_workers_is_one_line_after_a_bounded_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """It took the chunks and held them for ever: the run waited without a word."""
    import logging

    import solver.executors.dask as on_dask

    monkeypatch.setattr(on_dask, "WORKERS_SECONDS", 1.0)
    empty = LocalCluster(n_workers=0, processes=True, host="127.0.0.1", dashboard_address=None,
                         scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
                         silence_logs=logging.CRITICAL)
    try:
        address = empty.scheduler_address
        result = run(["odds", "--deals", 5, "--executor", "dask", "--scheduler", address])
    finally:
        empty.close()
    assert result.exit_code == 1 and result.stderr.endswith(
        f"Error: no Dask worker joined the scheduler at {address} within 1 s: start some (dask worker {address})\n"
    )


def test_workers_running_other_code_than_the_client_are_refused(
    monkeypatch: pytest.MonkeyPatch, dask_cluster: LocalCluster
) -> None:
    """An editable install keeps its version while its code changes: workers started before the
    change answered with the old code (35 of 683 batch answers arranged otherwise)."""
    import solver.executors.dask as on_dask

    monkeypatch.setattr(on_dask, "code_fingerprint", lambda: "changed since")  # this client only
    result = run(["odds", "--deals", 5, "--executor", "dask", "--scheduler", dask_cluster.scheduler_address])
    assert result.exit_code == 1 and result.stderr.count("Error") == 1
    assert result.stderr.endswith("runs other rummikub code than this client (started before an update?):"
                                  " restart the workers with the code the client has\n")


def test_the_scheduler_comes_from_the_environment_for_dask_only(dask_cluster: LocalCluster) -> None:
    env = {"RUMMIKUB_DASK_SCHEDULER": dask_cluster.scheduler_address}
    local = run(["odds", "--deals", 50, "--json"], env=env)
    on_cluster = run(["odds", "--deals", 50, "--json", "--executor", "dask"], env=env)
    assert summary(on_cluster) == summary(local)
    bad = run(["odds", "--deals", 50, "--executor", "dask"], env={"RUMMIKUB_DASK_SCHEDULER": "tcp://127.0.0.1:x"})
    assert bad.exit_code == 1 and "not a Dask scheduler address: 'tcp://127.0.0.1:x'" in bad.stderr
    assert bad.stderr.rstrip().endswith("(from RUMMIKUB_DASK_SCHEDULER)")  # where the address came from
    empty = run(["odds", "--deals", 5, "--executor", "dask", "--scheduler", ""])
    assert empty.exit_code == 2 and "--scheduler is empty: give a scheduler's address" in empty.stderr
    # No port: said so (it was "no Dask scheduler answers", with one listening on 8786).
    portless = run(["odds", "--deals", 5, "--executor", "dask", "--scheduler", "tcp://127.0.0.1"])
    assert portless.exit_code == 1 and portless.stderr.endswith(
        "Error: not a Dask scheduler address: 'tcp://127.0.0.1' (no port: tcp://HOST:PORT, such as tcp://127.0.0.1:8786)\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["odds", "--scheduler", "tcp://127.0.0.1:8786"], "--scheduler needs --executor dask"),
        (["selfplay", "--executor", "spark"], "'spark' is not one of 'local', 'dask'"),
        (["puzzles", "generate", "--difficulty", "1", "--count", "3"], "--count needs --out DIR"),
        (["puzzles", "generate", "--difficulty", "1", "--executor", "dask"], "--executor needs --out DIR"),
        (["puzzles", "generate", "--difficulty", "1", "--jobs", "2"], "--jobs needs --out DIR"),  # it named the others
        (["puzzles", "generate", "--difficulty", "1", "--count", "2", "--resume"], "--count, --resume need --out DIR"),
    ],
)
def test_executor_usage_errors(args: list[str], message: str) -> None:
    result = run(args)
    assert result.exit_code == 2 and message in result.stderr


def test_help_does_not_load_dask() -> None:
    code = (
        "import sys; from click.testing import CliRunner; from cli.main import cli\n"
        "for c in ('selfplay', 'odds', 'batch'): CliRunner().invoke(cli, [c, '--help'])\n"
        "CliRunner().invoke(cli, ['puzzles', 'generate', '--help'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- Ctrl-C


def session_processes(session: int) -> list[int]:
    """Processes still alive in a session (zombies waiting to be reaped do not count)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == session and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def test_ctrl_c_stops_selfplay_on_a_cluster_it_started(tmp_path: Path) -> None:
    records = tmp_path / "games"
    process = ctrl_c(
        ["selfplay", "--games", "3000", "--ai", "easy,easy", "--numbers", "7", "--json",
         "--record", str(records), "--executor", "dask", "--jobs", "2"],
        # Whole records only: a side file being written (.game-N.jsonl.partial) is not one yet.
        lambda: records.exists() and len(list(records.glob("game-*.jsonl"))) >= 20,
    )
    out, err = process.out, process.err
    assert process.returncode == 130
    assert b"Traceback" not in err and b"distributed" not in err
    report = json.loads(out)
    names = sorted(path.name for path in records.iterdir())
    assert all(name.startswith("game-") and name.endswith(".jsonl") for name in names)  # no half-written file
    assert 20 <= len(names) and len(names) - 1 <= report["games"] <= len(names) < 3000
    assert f"Interrupted after {report['games']} of 3000 games." in err.decode()
    deadline = time.monotonic() + 10
    while session_processes(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert session_processes(process.pid) == []  # the cluster it started is shut down


@pytest.mark.parametrize("settle", [0.7, 1.2])
def test_ctrl_c_while_the_cluster_starts_is_one_line_and_leaves_nothing_running(settle: float) -> None:
    # Pressed while the workers still import Dask (about 0.5-2 s in here): they must not print
    # their tracebacks, and the command must stop (not run on once its cluster is up).
    process = ctrl_c(
        ["selfplay", "--games", "3000", "--ai", "easy,easy", "--executor", "dask", "--jobs", "2"],
        lambda: True,
        settle=settle,
    )
    err = process.err.decode()
    assert process.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err and "Error" not in err
    assert err.strip().splitlines()[-1].startswith("Interrupted")
    deadline = time.monotonic() + 10
    while session_processes(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert session_processes(process.pid) == []


def test_ctrl_c_stops_batch_and_leaves_an_existing_cluster_as_found(tmp_path: Path, dask_cluster: LocalCluster) -> None:
    address = dask_cluster.scheduler_address
    with Client(address, set_as_default=False) as client:
        before = client.run(os.getpid)
    batch = tmp_path / "many.jsonl"
    batch.write_text("\n".join(SELFPLAY.read_text().splitlines() * 30) + "\n")
    out = tmp_path / "out.jsonl"
    with open(out, "wb") as sink:
        arguments = ["batch", str(batch), "--no-timing", "--executor", "dask", "--scheduler", address]
        process = ctrl_c(arguments, lambda: out.stat().st_size > 0, sink, settle=0.5)
    err = process.err
    assert process.returncode == 130
    assert err.decode().strip() == "Interrupted."
    lines = out.read_text().splitlines()
    expected = run(["batch", "-", "--no-timing"], input="\n".join(SELFPLAY.read_text().splitlines()[:200]) + "\n")
    assert 0 < len(lines) < 443 * 30  # stopped early, after some answers
    for line in lines:
        assert "tiles_played" in json.loads(line)  # every answer written is whole
    first = min(len(lines), 200)
    assert lines[:first] == expected.stdout.splitlines()[:first]  # and in input order
    with Client(address, set_as_default=False) as client:
        deadline = time.monotonic() + 10
        while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0  # nothing left queued
        assert client.run(os.getpid) == before  # the same workers, still running


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_scheduler_lost_mid_run_is_one_line_and_the_records_so_far_are_kept(tmp_path: Path) -> None:
    """A cluster as the docs set one up (`dask scheduler`, `dask worker ADDRESS`), whose
    scheduler's machine is lost during a run."""
    dask = str(Path(sys.executable).parent / "dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    port = address.rsplit(":", 1)[1]
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"], **quiet)
    worker = subprocess.Popen([dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"], **quiet)
    try:
        records = tmp_path / "games"
        deadline = time.monotonic() + 60
        command = [*COMMAND, "selfplay", "--games", "2000", "--ai", "easy,easy", "--numbers", "7", "--json",
                   "--record", str(records), "--executor", "dask", "--scheduler", address]
        while True:  # the worker may take a moment to join
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            while process.poll() is None and (not records.exists() or len(list(records.iterdir())) < 5):
                time.sleep(0.05)
            if process.poll() is None or time.monotonic() > deadline:
                break
        os.kill(scheduler.pid, signal.SIGKILL)
        _, err = process.communicate(timeout=60)
    finally:
        for server in (scheduler, worker):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    assert process.returncode == 1
    assert err.decode().splitlines()[-1] == "Error: lost the connection to the Dask scheduler during the run"
    assert b"Traceback" not in err
    names = [path.name for path in records.iterdir()]
    assert len(names) >= 5 and all(name.startswith("game-") and name.endswith(".jsonl") for name in names)


def test_batch_from_a_pipe_answers_what_has_come_while_the_pipe_stays_open() -> None:
    """Lines written to `batch - --jobs 2` and the pipe left open: every line is answered while it
    waits for more (a chunk waited to fill, so 10 of 200 came, and Ctrl-C lost the rest)."""
    lines = SELFPLAY.read_text().splitlines()[:40]
    process = subprocess.Popen(
        [*COMMAND, "batch", "-", "--no-timing", "--jobs", "2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("".join(f"{line}\n" for line in lines))
        process.stdin.flush()
        read: queue.Queue[str] = queue.Queue()
        out = process.stdout

        def reading() -> None:
            for answer in out:
                read.put(answer)

        threading.Thread(target=reading, daemon=True).start()
        answers = [read.get(timeout=60) for _ in lines]  # the pipe still open (queue.Empty: held back)
        assert all(json.loads(a)["status"] for a in answers)
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()


def test_a_worker_process_that_dies_has_its_chunk_run_again(tmp_path: Path) -> None:
    """A pool worker killed mid-run (the out-of-memory killer, a stray kill): the pool replaced it
    but lost its chunk, and `batch --jobs 2` waited for it for ever, silent at 0% CPU."""
    lines = SELFPLAY.read_text().splitlines() * 6
    (tmp_path / "in.jsonl").write_text("".join(f"{line}\n" for line in lines))
    alone = run(["batch", tmp_path / "in.jsonl", "--no-timing"])
    out = tmp_path / "out.jsonl"
    with out.open("w") as answers:
        process = subprocess.Popen(
            [*COMMAND, "batch", str(tmp_path / "in.jsonl"), "--no-timing", "--jobs", "2"],
            stdout=answers,
            stderr=subprocess.PIPE,
            text=True,
        )
    try:
        deadline = time.monotonic() + 60
        while out.stat().st_size == 0 and time.monotonic() < deadline:  # the workers are at work
            time.sleep(0.05)
        children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
        assert children, "no worker process"
        os.kill(int(children[-1]), signal.SIGKILL)
        assert process.wait(timeout=60) == 0, process.stderr.read() if process.stderr else ""
    finally:
        if process.poll() is None:
            process.kill()
    assert out.read_text() == alone.stdout
