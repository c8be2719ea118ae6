"""Many positions in, one answer each out, in order: JSON lines, on any executor.

Each input line is answered on its own: a bad line becomes ``{"line": N, "error": "..."}`` and
the others are still solved. On worker processes or a Dask cluster the lines go out in chunks,
a bounded number at a time (the input is read only as fast as it is answered), and the answers
still come back in input order, each as soon as it and those before it are done.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from solver.errors import BackendError, InputError, RummikubError, ValidationFailure
from solver.executors import Workers, open_executor, run_tasks
from solver.file_io import MAX_INPUT_BYTES, load_json, text_of
from solver.files import position_from_record
from solver.rules import RuleSet
from solver.solve import SolveOptions, solve
from solver.solve import warm as warm_solver


class Outcome(IntEnum):
    """How a line went, worst last (the batch's exit status follows the worst)."""

    ANSWERED = 0
    BAD_INPUT = 1
    BACKEND_FAILED = 2
    INTERNAL_ERROR = 3


@dataclass(frozen=True)
class BatchSettings:
    """What applies to every line (picklable, for worker processes and Dask workers)."""

    rule_overrides: tuple[tuple[str, object], ...] = ()
    opened: bool | None = None
    options: SolveOptions = SolveOptions()
    timing: bool = True  # False: leave out "seconds", so the output is byte-identical run to run


def answer_line(number: int, raw: bytes | None, settings: BatchSettings) -> tuple[str, Outcome]:
    """One input line to one output line (JSON text, no newline) and how it went.

    A bad line's answer is ``{"line": N, "error": "line N: ..."}``: every message has that shape.
    """
    where = f"line {number}"
    try:
        if raw is None:
            raise _LineError(f"too long (over {MAX_INPUT_BYTES:,} bytes)")
        text, problem = text_of(raw)
        if problem:
            raise _LineError(problem)
        if not text.strip():
            raise _LineError("empty (expected a JSON object)")
        record = load_json(text, where, one_line=True)
        position = position_from_record(record, where, dict(settings.rule_overrides), settings.opened)
        solution = solve(position, settings.options)
        return json.dumps(solution.to_dict(settings.timing)), Outcome.ANSWERED
    except BackendError as err:
        message, outcome = str(err), Outcome.BACKEND_FAILED
    except ValidationFailure as err:
        message, outcome = f"internal error (please report): {err}", Outcome.INTERNAL_ERROR
    except (RummikubError, _LineError) as err:
        message, outcome = str(err), Outcome.BAD_INPUT
    return json.dumps({"line": number, "error": _shaped(where, message)}), outcome


def _shaped(where: str, message: str) -> str:
    """``line N: ...``, whatever the library's message said where (``... in line N: ...``)."""
    if message.startswith(f"{where}: "):
        return message
    return f"{where}: {message.replace(f' in {where}', '')}"


def answer_lines(
    lines: Iterable[tuple[int, bytes | None]], settings: BatchSettings, workers: Workers = Workers()
) -> Iterator[tuple[str, Outcome]]:
    """Answers in input order, solved where ``workers`` says."""

    def warm() -> None:
        try:
            rules = RuleSet.from_options(dict(settings.rule_overrides))
        except (RummikubError, ValueError):
            return  # the lines will report what is wrong with these settings
        warm_solver(rules, settings.options)

    with open_executor(workers, warm) as executor:
        yield from run_tasks(executor, _answer_item, lines, settings, ordered=True)


def _answer_item(item: tuple[int, bytes | None], settings: BatchSettings) -> tuple[str, Outcome]:
    return answer_line(item[0], item[1], settings)


def read_lines(
    stream: Any, limit: int = MAX_INPUT_BYTES, where: str = "batch file"
) -> Iterator[tuple[int, bytes | None]]:
    """Numbered lines of a binary stream; blank lines are skipped (as JSON-lines tools do) and an
    over-long line yields None (the rest of it is skipped).

    A stream that does not start as text (a first line with binary data, not UTF-8, or with a
    control character: a binary file) is one InputError for the whole file, raised here at once
    (``where`` names it), rather than an error for each of its lines. A later line that is
    not text is that line's error: where it falls must not decide whether the lines before it are
    answered.
    """
    head = _head(stream)
    _, problem = text_of(head, final=False)
    if problem:  # only a bad first line makes it the whole file's problem (a binary file's is)
        first, newline, _ = head.partition(b"\n")
        _, first_problem = text_of(first, final=bool(newline))
        if not first_problem or "binary data" not in problem:
            problem = first_problem  # binary data further on is still named where it is
    if problem:
        raise InputError(f"{where} is {problem}")
    return _numbered_lines(stream, limit)


def _head(stream: Any, size: int = 8192) -> bytes:
    """The first bytes of a stream, left to be read again."""
    if hasattr(stream, "peek"):
        return bytes(stream.peek(size)[:size])
    if hasattr(stream, "seekable") and stream.seekable():
        at = stream.tell()
        head = bytes(stream.read(size))
        stream.seek(at)
        return head
    return b""


def _numbered_lines(stream: Any, limit: int) -> Iterator[tuple[int, bytes | None]]:
    number = 0
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, None
            continue
        content = line.rstrip(b"\r\n")
        if number == 1 and content.startswith(codecs.BOM_UTF8):
            content = content[len(codecs.BOM_UTF8) :]
        if content.strip():
            yield number, content


class _LineError(Exception):
    pass
