"""What the machine does to a command: standard output that cannot be written, standard input
left open while the command is stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.interrupt import COMMAND
from tests.paths import ROOT


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_on_a_full_disk_is_one_line_not_an_internal_error() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*COMMAND, "batch", "-"], input='{"rack": "R1 R2 R3"}\n', stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 1
    assert done.stderr == "Error: cannot write standard output: No space left on device\n"


def test_ctrl_c_with_standard_input_still_open_ends_cleanly() -> None:
    """batch - reads ahead in a thread that waits on the open pipe as the command stops: it must
    end as interrupted, not abort in Python's shutdown waiting for standard input."""
    for jobs in ("1", "2"):
        process = subprocess.Popen(
            [*COMMAND, "batch", "-", "--no-timing", "--jobs", jobs],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write('{"rack": "R1 R2 R3"}\n')
        process.stdin.flush()
        assert process.stdout.readline().startswith('{"status": "no_move"')
        time.sleep(0.3)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 130 and err.strip() == "Interrupted.", (jobs, err)


def test_standard_input_closed_is_one_line() -> None:
    for args in (["batch", "-"], ["solve", "--rack", "-"]):
        done = subprocess.run([*COMMAND, *args], capture_output=True, text=True, preexec_fn=_close_stdin)
        assert done.returncode == 1, (args, done.stderr)
        assert done.stderr.endswith("<stdin>: standard input is closed\n"), done.stderr


def _close_stdin() -> None:
    os.close(0)  # in the child, before the command starts: as `rummikub ... <&-` in a shell


def _children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (Linux's /proc), none where it cannot be read."""
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_output_pipe_closed_early_ends_quietly_and_stops_the_workers(tmp_path: Path, jobs: str) -> None:
    """`rummikub batch FILE | head -1`: the reader leaves after one line. The command stops with
    the status a shell shows for `cat` there (141), says nothing (no error, no "Exception ignored
    ... BrokenPipeError"), and stops its workers instead of answering the rest."""
    positions = tmp_path / "many.jsonl"
    positions.write_text('{"rack": "R1 R2 R3 B5 K5 O5", "table": ["R4 R5 R6"]}\n' * 5000)
    process = subprocess.Popen(
        [*COMMAND, "batch", str(positions), "--jobs", jobs], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None
    assert process.stdout.readline().startswith(b'{"status": "optimal"')
    workers = _children(process.pid)
    process.stdout.close()
    started = time.monotonic()
    _, err = process.communicate(timeout=30)
    assert (process.returncode, err) == (141, b"")
    assert time.monotonic() - started < 5  # 5000 positions take a minute
    if jobs == "2" and Path("/proc").is_dir():
        assert len(workers) == 2
        assert not {pid for pid in workers if Path(f"/proc/{pid}").exists()}, "workers left running"


@pytest.mark.parametrize("args", [["solve", "puzzles/big-1.txt"], ["puzzles", "list"], ["--help"], ["play", "--help"]])
def test_output_pipe_closed_before_any_output_ends_quietly(args: list[str]) -> None:
    """Whatever the command (or its help) writes into a pipe nobody reads: 141, nothing said."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([*COMMAND, *args], stdout=write, stderr=subprocess.PIPE, timeout=60, cwd=ROOT)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, b"")
