"""What every worker process does first, on any executor: leave Ctrl-C to the process that
started it (which stops the run and keeps the answers so far)."""

from __future__ import annotations

import signal


def ignore_interrupts() -> None:
    """A worker's start: Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
