"""A request as every part of the web app reads it, and its outcome as a status and a JSON body.

A request a person got wrong raises ``RequestError`` with the same one-line message the CLI
prints: a field that is not there or not allowed, a rule outside this server's bounds. ``call``
turns every outcome of a library call, a bug included, into a status and a JSON body, each
message cut to one short line (``one_line``), so that nothing reaches the client as a traceback.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import PurePath
from typing import Any

from solver.errors import BackendError, RulesError, RummikubError, ValidationFailure
from solver.rules import RuleSet
from web.limits import Limits

Json = dict[str, Any]

SHOWN = 40  # characters of a person's value quoted back in a message
MAX_MESSAGE = 300  # characters of any message (a short one is far shorter)
_log = logging.getLogger("rummikub.web")


class RequestError(Exception):
    """A request the server refuses: an HTTP status and a one-line message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(status, message)
        self.status = status
        self.message = message


# --------------------------------------------------------------------------- running one call


def call(function: Callable[..., Any], *args: Any) -> tuple[int, Any]:
    """Run any library call of the web app (an endpoint, a game's or a review's work, in a solver
    process or not): (HTTP status, JSON body). Never raises: a bug is a one-line 500 here and a
    traceback in the server's log, never in the response."""
    endpoint = getattr(function, "__name__", "?")
    try:
        return 200, function(*args)
    except RequestError as err:
        return err.status, {"error": one_line(err.message)}
    except BackendError as err:
        return 503, {"error": one_line(str(err))}
    except ValidationFailure as err:
        _log.error("an answer failed validation: %s", err)
        return 500, {"error": one_line(f"internal error (please report): {err}")}
    except RummikubError as err:  # the person's mistake, worded by the library
        return 400, {"error": one_line(str(err))}
    except Exception as err:
        _log.exception("internal error in %s", endpoint)
        return 500, {"error": one_line(f"internal error (please report): {type(err).__name__}: {err}")}


# --------------------------------------------------------------------------- request fields


def request_object(body: Any, allowed: set[str] | frozenset[str]) -> Json:
    """The request as a JSON object holding only ``allowed`` fields; RequestError names what is wrong."""
    if not isinstance(body, dict):
        raise RequestError(400, f"request: expected a JSON object (fields: {', '.join(sorted(allowed))})")
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise RequestError(
            400, f"request: unknown field {shown(unknown[0])} (fields: {', '.join(sorted(allowed))})"
        )
    return body


def rules_from(value: Any, limits: Limits) -> RuleSet:
    """The request's ``rules`` object, read as the CLI reads them, within this server's bounds."""
    if not isinstance(value, dict):
        raise RequestError(400, 'request: \'rules\' must be an object such as {"wrap": "american"}')
    # This server's bounds first: the rules' own wider ones would send a player to a value it refuses.
    check_bounds({k: v for k, v in value.items() if type(v) is int}, limits)
    rules = RuleSet.from_json(value)
    check_rules(rules, limits)
    return rules


def check_rules(rules: RuleSet, limits: Limits) -> None:
    """RequestError if any rule is outside this server's bounds."""
    check_bounds(rules.to_dict(), limits)


def check_bounds(values: dict[str, Any], limits: Limits) -> None:
    """RequestError naming the first of ``values`` (rule name to value) outside this server's bounds."""
    for key, value in values.items():
        if key in limits.rule_bounds:
            low, high = limits.rule_bounds[key]
            if not low <= value <= high:
                raise RequestError(400, out_of_bounds(key, value, limits))


def out_of_bounds(key: str, value: int, limits: Limits) -> str:
    """A rule's value outside this server's bounds, in words (the cost only said of a value above them)."""
    low, high = limits.rule_bounds[key]
    why = " (larger games cost too much to solve)" if value > high else ""
    return f"invalid rule {key}={value}: this server takes {low}..{high}{why}"


@contextmanager
def server_bounds(limits: Limits) -> Iterator[None]:
    """Where a file's rules are read (an upload, a record): a value out of the library's own range
    is said with this server's bounds, as for any other request (one message, the real limits)."""
    try:
        yield
    except RulesError as err:
        if err.rule not in limits.rule_bounds or err.value is None:
            raise
        where = f"{err.where}: " if err.where else ""
        raise RequestError(400, where + out_of_bounds(err.rule, err.value, limits)) from None


# --------------------------------------------------------------------------- messages


def shown(value: Any) -> str:
    """A value from a request, quoted for a message: a string as Python quotes it (escaped, so the
    message stays on one line), anything else as JSON; cut after SHOWN characters."""
    if isinstance(value, str):
        return repr(value if len(value) <= SHOWN else value[:SHOWN] + "…")
    text = printable(json.dumps(value, ensure_ascii=False, default=str))
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


def label_of(name: str) -> str:
    """An uploaded file's name, only to label messages (nothing is read from the server's disk)."""
    return printable(PurePath(name.replace("\\", "/")).name)[:80] or "upload"


def printable(text: str) -> str:
    """The text with every line break and other control character escaped, as repr escapes them."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# A value quoted as ``!r`` quotes it (a quote mark after a letter, as in "isn't", opens none).
_QUOTED = re.compile(r"""(?<![\w'"])(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")""")


def one_line(message: str) -> str:
    """A message as a response holds it: every quoted value cut to SHOWN characters, on one line,
    at most MAX_MESSAGE characters. The library quotes a person's input whole (fine in a terminal
    for a file they wrote), and a response must not echo 200 kB back."""
    message = printable(_QUOTED.sub(_cut, message))
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def _cut(quoted: re.Match[str]) -> str:
    text = quoted[0]
    if len(text) <= SHOWN + 2:
        return text
    head = text[1 : SHOWN + 1]
    if (len(head) - len(head.rstrip("\\"))) % 2:  # never end on half an escape
        head = head[:-1]
    return f"{text[0]}{head}…{text[0]}"
