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
