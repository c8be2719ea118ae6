"""Exception types, split by kind so callers (and the CLI) can react to each.

Every message is meant to be shown to a person as one line: it names what was wrong and where.
"""

from __future__ import annotations


class RummikubError(Exception):
    """Base class of every error the library raises on purpose."""


class NotationError(RummikubError, ValueError):
    """A token that is not a tile or set in the notation (``X5``, ``R14``, a lone ``K``)."""


class RulesError(RummikubError, ValueError):
    """A rule object with an impossible field value or combination. Where a number is out of its
    range, ``rule`` and ``value`` say which (a caller with narrower bounds, such as the web
    server, then says its own); ``where``: the file or record the rules were read from."""

    def __init__(self, message: str, rule: str | None = None, value: int | None = None, where: str = "") -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.message, self.rule, self.value, self.where = message, rule, value, where

    def __reduce__(self) -> tuple[type[RulesError], tuple[str, str | None, int | None, str]]:
        return RulesError, (self.message, self.rule, self.value, self.where)  # whole across processes

    def at(self, where: str) -> RulesError:
        """The same error, read from ``where``."""
        return RulesError(self.message, self.rule, self.value, f"{where}: {self.where}" if self.where else where)


class PositionError(RummikubError, ValueError):
    """A position that breaks the rules: too many copies of a tile, an invalid table set, …"""


class InputError(RummikubError, ValueError):
    """A file or record that cannot be read: missing, binary, malformed structure."""


class BackendError(RummikubError, RuntimeError):
    """The optimisation backend failed (not "no move": that is a normal result)."""


class ValidationFailure(RummikubError, RuntimeError):
    """The solver produced an answer the independent validator rejects: a bug, never user error."""


class ExecutorError(RummikubError, RuntimeError):
    """The workers cannot run the work: an executor not installed, a scheduler out of reach, a
    chunk whose workers kept dying."""
