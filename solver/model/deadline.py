"""A time limit that holds while a model is built, not only while it is searched."""

from __future__ import annotations

import time
from contextvars import ContextVar

# When the solve's time limit runs out (perf_counter seconds), while a model is built; None: no
# limit. Enumerating sets can take long under unusual rules (full wrap, long sets, many jokers:
# the exact strict-joker sets, or the candidate sets themselves), and a time limit must hold
# there too (``check_build_deadline``).
BUILD_DEADLINE: ContextVar[float | None] = ContextVar("build_deadline", default=None)


class BuildTimeLimit(Exception):
    """The time limit ran out while a model was being built."""


def check_build_deadline() -> None:
    """Raise BuildTimeLimit if the time limit has run out (see BUILD_DEADLINE)."""
    deadline = BUILD_DEADLINE.get()
    if deadline is not None and time.perf_counter() > deadline:
        raise BuildTimeLimit
