"""What keeps the server safe to leave running: request sizes, solve time, rule sizes, queue length.

The CLI trusts its user with any rule the library accepts and no time limit; a server answers
whoever reaches it, so it bounds what one request may cost. Building a model is not covered by a
solve's time limit, and it grows fast with the rule sizes (the jokers most: eight jokers with 40
numbers and 8 colours took minutes; four, about a second; bench/results/web.md), hence the bounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Rule option (as position files spell it) -> the smallest and largest value this server takes.
RULE_BOUNDS: dict[str, tuple[int, int]] = {
    "numbers": (2, 26),
    "colours": (1, 8),
    "copies": (1, 4),
    "jokers": (0, 4),
    "min-set-size": (2, 26),
    "meld-threshold": (0, 1000),
    "joker-penalty": (0, 1000),
}


@dataclass(frozen=True)
class Limits:
    """One server's limits (``rummikub serve`` sets the time limit and the workers)."""

    time_limit: float = 10.0  # seconds for each search of a request (a request may ask for less)
    max_body_bytes: int = 256 * 1024  # a real position is well under 2 kB; an upload under 100 kB
    max_record_bytes: int = 4 * 1024 * 1024  # an uploaded game record: a long 4-player round is ~300 kB
    max_pending: int = 64  # solves queued or running; more are refused with 503 until some finish
    workers: int = 2  # solver processes
    rule_bounds: dict[str, tuple[int, int]] = field(default_factory=lambda: dict(RULE_BOUNDS))
    # Seconds a request waits for its solve (None: 4 x the time limit + 30). A solve's searches
    # are bounded by the time limit and building its models by the rule bounds; this is for the
    # rest, so that no request hangs whatever happens in a worker.
    deadline: float | None = None

    @property
    def wait(self) -> float:
        return self.deadline if self.deadline is not None else 4 * self.time_limit + 30
