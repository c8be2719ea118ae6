"""The command run as a terminal runs it, and Ctrl-C pressed in that terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import IO, NamedTuple

COMMAND = [sys.executable, "-c", "from cli.entry import main; main()"]


class Stopped(NamedTuple):
    pid: int  # the command's, which also names its session
    returncode: int
    out: bytes  # empty when standard output went to a file
    err: bytes


def ctrl_c(args: list[str], ready: Callable[[], bool], stdout: IO[bytes] | int = subprocess.PIPE, settle: float = 0.0) -> Stopped:
    """``rummikub ARGS`` in a session of its own; once ``ready()`` holds (a minute at most) and
    ``settle`` seconds more, SIGINT to the whole session, as a terminal's Ctrl-C reaches the
    command and every worker it started."""
    process = subprocess.Popen([*COMMAND, *args], stdout=stdout, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while not ready() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(settle)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    return Stopped(process.pid, process.returncode, out or b"", err)
