"""Worker processes for bulk work (batch solving, self-play, odds): one way to start them.

The workers ignore Ctrl-C: it reaches the whole process group, and the parent alone decides what
to do with it (stop the pool, write what finished, report).
"""

from __future__ import annotations

import multiprocessing
import signal
from multiprocessing.pool import Pool


def worker_pool(jobs: int) -> Pool:
    """A pool of ``jobs`` processes, forked where the platform can (the workers then share the
    parent's loaded solver and model templates), spawned elsewhere."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    return context.Pool(jobs, initializer=ignore_interrupts)


def ignore_interrupts() -> None:
    """A worker's start: Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
