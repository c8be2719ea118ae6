"""Exit statuses, the guard that turns library errors into one-line messages, and long runs
that Ctrl-C stops with their results so far.

Every command module imports these from here, so none of them imports ``cli.main`` back.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import click

from solver.errors import BackendError, RummikubError, ValidationFailure

# Exit statuses (documented in docs/commands.md and the README).
EXIT_OK = 0
EXIT_BAD_INPUT = 1
EXIT_USAGE = 2
EXIT_BACKEND = 3
EXIT_INTERNAL = 4
EXIT_NOT_OPTIMAL = 5  # check: the answer is legal but plays less than the optimum
EXIT_ILLEGAL = 6  # check: the answer breaks a rule
EXIT_UNPROVEN = 7  # check: legal, as good as the best move found, the time limit stopped the proof
EXIT_INTERRUPTED = 130
EXIT_CLOSED_PIPE = 141  # 128 + SIGPIPE: the status a shell shows for `cat` whose reader left

T = TypeVar("T")


class BadInput(click.ClickException):
    exit_code = EXIT_BAD_INPUT


class BackendFailure(click.ClickException):
    exit_code = EXIT_BACKEND


class InternalFailure(click.ClickException):
    exit_code = EXIT_INTERNAL


_FAILURES: dict[int, type[click.ClickException]] = {
    EXIT_BAD_INPUT: BadInput,
    EXIT_BACKEND: BackendFailure,
    EXIT_INTERNAL: InternalFailure,
}


def fail(message: str, code: int) -> click.ClickException:
    """``Error: message`` on stderr, exit status ``code``."""
    return _FAILURES[code](message)


def guarded(action: Callable[[], T]) -> T:
    """Run library code; its errors become one-line messages with their own exit status."""
    try:
        return action()
    except BackendError as err:
        raise fail(str(err), EXIT_BACKEND) from None
    except ValidationFailure as err:
        raise fail(f"internal error (please report): {err}", EXIT_INTERNAL) from None
    except RummikubError as err:
        raise fail(str(err), EXIT_BAD_INPUT) from None


@contextlib.contextmanager
def closed_pipe_ends_quietly() -> Iterator[None]:
    """The reader of the output gone (``rummikub batch FILE | head -1``): stop at once, quietly,
    exit status 141, as ``cat`` and ``git`` end there (a shell shows them killed by SIGPIPE as 141).
    Not 0: the output was cut short, and ``set -o pipefail`` should see it as it sees ``cat``'s;
    not 1: that says bad input. Raising, not dying of the signal, lets the workers be stopped."""
    try:
        yield
    except BrokenPipeError:
        # Every write flushes (click.echo does, batch too), so Python's last flush at exit finds
        # nothing left to write: no "Exception ignored ... BrokenPipeError" on stderr.
        raise click.exceptions.Exit(EXIT_CLOSED_PIPE) from None


def collect(results: Callable[[], Iterable[T]], length: int, label: str, show_eta: bool = False) -> tuple[list[T], bool]:
    """Every item of ``results()`` (library errors as :func:`guarded` makes them), with a progress
    bar on stderr; Ctrl-C stops early and keeps the items so far. Returns (items, interrupted)."""
    done: list[T] = []

    def take_all(step: Callable[[int], None]) -> bool:
        try:
            for item in results():
                done.append(item)
                step(1)
        except KeyboardInterrupt:
            return True
        return False

    if not sys.stderr.isatty():  # no bar for a log or a pipe: click would print its label alone
        return done, guarded(lambda: take_all(lambda _: None))
    with click.progressbar(length=length, label=label, file=sys.stderr, show_eta=show_eta) as bar:
        interrupted = guarded(lambda: take_all(bar.update))
    return done, interrupted
