"""The user's files, read and written safely: every problem a one-line InputError naming the file
(and the line and column where it is in the text), inputs of bounded size, JSON that refuses a
repeated key, and outputs written whole or not at all (``write_whole``) or only over a file of
their own kind (``write_over_own``).
"""

from __future__ import annotations

import codecs
import io
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import IO, Any

from solver.errors import InputError


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def load_json(text: str, where: str, one_line: bool = False) -> Any:
    """JSON text, as every reader of our JSON formats reads it: a key repeated in one object is an
    error (plain ``json`` keeps the last one silently), and anything unreadable is InputError
    ``WHERE line L: not valid JSON: ... at column C`` (``one_line``: ``where`` names the line)."""
    try:
        data = json.loads(text, object_pairs_hook=_no_repeated_keys)
    except _RepeatedKey as err:
        key = err.key if len(err.key) <= 40 else err.key[:40] + "…"
        raise InputError(f"{where}: key {key!r} appears twice in one object") from None
    except json.JSONDecodeError as err:
        if err.pos >= len(text.rstrip()) and not err.msg.startswith("Unterminated string"):
            last = text.rstrip().count("\n") + 1  # a line past the text's end would name no line of it
            line = "" if one_line else f" line {last}"
            raise InputError(f"{where}{line}: not valid JSON: it ends before the JSON does") from None
        line = "" if one_line else f" line {err.lineno}"
        if err.msg == "Extra data" and not one_line:  # JSON lines (a game record, a batch file)
            raise InputError(
                f"{where}{line}: not valid JSON: a second JSON value starts at column {err.colno}"
                " (this file holds one JSON value, not one a line)"
            ) from None
        at = "" if err.msg.endswith(" at") else " at"  # "Unterminated string starting at"
        raise InputError(f"{where}{line}: not valid JSON: {err.msg}{at} column {err.colno}") from None
    except (ValueError, RecursionError):  # an integer of thousands of digits, deep nesting
        raise InputError(f"{where}: not valid JSON: nested too deeply or too large a number") from None
    half = _lone_surrogate(data)
    if half is not None:  # JSON allows the escape; no text can hold it (printing it fails)
        escape = f"\\u{ord(half):04x}"
        place = text.lower().find(escape)
        line = "" if one_line or place < 0 else f" line {text.count(chr(10), 0, place) + 1}"
        raise InputError(f"{where}{line}: {escape} is half a character (a lone UTF-16 surrogate), not text")
    return data


def _lone_surrogate(data: Any) -> str | None:
    """The first lone surrogate in any string of ``data`` (keys too), or None."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            for c in item:
                if "\ud800" <= c <= "\udfff":
                    return c
        elif isinstance(item, dict):
            stack += item.keys()
            stack += item.values()
        elif isinstance(item, list):
            stack += item
    return None


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _RepeatedKey(key)
        data[key] = value
    return data


MAX_INPUT_BYTES = 1_000_000  # no real position is near this; refuse absurd input early
STDIN = "-"


def shown_path(path: str) -> str:
    """A file name as messages say it: ``<stdin>`` for standard input."""
    return "<stdin>" if path == STDIN else path


def read_text(path: str, what: str) -> tuple[str, str]:
    """The text of a ``what`` file (``-``: standard input) and the label to use in messages."""
    return read_input(path, f"{what} file", MAX_INPUT_BYTES)


def read_input(path: str, noun: str, limit: int) -> tuple[str, str]:
    """The text of a file (``-``: standard input) of at most ``limit`` bytes, and its label.

    Every problem is an InputError naming the file as ``noun`` (``rack file``, ``record``).
    """
    label = shown_path(path)
    if path == STDIN and sys.stdin is None:  # started with standard input closed
        raise InputError(f"cannot read {noun} <stdin>: standard input is closed")
    try:
        if path == STDIN:
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)
    except OSError as err:
        raise InputError(f"cannot read {noun} {label}: {os_reason(err)}") from None
    if len(data) > limit:
        raise InputError(f"{noun} {label} is too large (over {limit:,} bytes)")
    return decode_text(data, f"{noun} {label}"), label


def open_input(path: str, noun: str) -> IO[bytes]:
    """A file opened to be read in a stream (``-``: standard input, a reader of its own on a copy
    of the descriptor: a thread reading ahead may be waiting on it as the program ends, and
    Python's shutdown would wait for ``sys.stdin``'s); InputError says why not."""
    if path == STDIN:
        if sys.stdin is None:  # started with standard input closed
            raise InputError(f"cannot read {noun} <stdin>: standard input is closed")
        try:
            return open(os.dup(sys.stdin.fileno()), "rb")
        except (OSError, ValueError, io.UnsupportedOperation):  # a stand-in without a descriptor
            return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as err:
        raise InputError(f"cannot read {noun} {path}: {os_reason(err)}") from None


def os_reason(err: OSError, writing: bool = False) -> str:
    """Why a file could not be read or written, in the same words for reads and writes (a write's
    missing file is its folder)."""
    if isinstance(err, FileNotFoundError):
        return "no such folder" if writing else "no such file"
    if isinstance(err, IsADirectoryError):
        return "it is a directory"
    return err.strerror or str(err)


def make_folder(path: str | Path, what: str) -> None:
    """The folder ``path`` (and its parents), made if missing; InputError names the ``what`` folder
    when it cannot be: a file of that name, no permission, a full disk."""
    if Path(path).exists() and not Path(path).is_dir():
        raise InputError(f"{what} folder {path} is a file, not a folder")
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create {what} folder {path}: {os_reason(err, writing=True)}") from None


def write_whole(path: str | Path, text: str, what: str) -> None:
    """Write a ``what`` file whole or not at all: into a side file, renamed into place at the end,
    so an interrupted or failed write never leaves half a file behind. A symbolic link's file is
    the one written (the link stays), and a file keeps its permissions."""
    target = Path(os.path.realpath(path))
    side = target.with_name(f".{target.name}.partial")
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = None  # a new file: the usual permissions
    try:
        try:
            side.write_text(text, encoding="utf-8")
            if mode is not None:
                os.chmod(side, mode)
            os.replace(side, target)
        except BaseException:
            side.unlink(missing_ok=True)
            raise
    except OSError as err:
        raise InputError(f"cannot write {what} {path}: {os_reason(err, writing=True)}") from None


def write_over_own(path: str, text: str, what: str, kind: str, looks_like: re.Pattern[bytes], option: str) -> None:
    """Write a ``what`` file whole or not at all; a file already there is replaced only if it is
    ``kind`` too (its start matches ``looks_like``), or empty: an output option given an input file
    (``--svg position.txt``) must not destroy it. A pipe or a terminal (``/dev/stdout``) is written
    as it is."""
    try:
        info = os.stat(path)
    except OSError:
        info = None  # no such file yet (or unreachable: the write says why)
    if info is not None and not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
        try:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as err:
            raise InputError(f"cannot write {what} {path}: {os_reason(err, writing=True)}") from None
        return
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size:
        try:
            with open(path, "rb") as old:
                start = old.read(4096)
        except OSError as err:
            raise InputError(f"cannot write {what} {path}: {os_reason(err, writing=True)}") from None
        if not looks_like.match(start):
            raise InputError(f"{path} exists and is not {kind}: not overwritten (give {option} another file)")
    write_whole(path, text, what)


# The start of an LP file: comments (\* ... *\), then the objective's sense.
_LP_START = re.compile(rb"(\xef\xbb\xbf)?\s*(\\\*.*?\*\\\s*)*(maximi[sz]e|minimi[sz]e|max|min)\b", re.S | re.I)


def write_lp(path: str, text: str) -> None:
    """An integer program in LP format (``solve --dump-lp``), replacing only another LP file."""
    write_over_own(path, text, "LP", "an LP file", _LP_START, "--dump-lp")


def decode_text(data: bytes, where: str) -> str:
    """UTF-8 text (a BOM allowed); InputError ``{where} is not ...`` for anything else."""
    text, problem = text_of(data)
    if problem:
        raise InputError(f"{where} is {problem}")
    return text


def text_of(data: bytes, final: bool = True) -> tuple[str, str]:
    """The text of ``data`` and "" — or "" and what is wrong: ``not a text file (...)`` or ``not
    UTF-8 text (...)``. ``final`` False: ``data`` is the start of a stream, and may stop in the
    middle of a character."""
    if b"\x00" in data:
        return "", f"not a text file (binary data at {_place(data, data.index(0))})"
    try:
        text = codecs.getincrementaldecoder("utf-8-sig")().decode(data, final=final)
    except UnicodeDecodeError as err:
        start = err.start + (3 if data.startswith(codecs.BOM_UTF8) else 0)  # the BOM was read first
        return "", f"not UTF-8 text (byte 0x{data[start]:02x} at {_place(data, start)})"
    at = next((i for i, c in enumerate(text) if ord(c) < 32 and c not in "\t\n\r\f\v"), None)
    if at is not None:
        return "", f"not a text file (control character {text[at]!r} at {_place(text.encode(), len(text[:at].encode()))})"
    return text, ""


def _place(data: bytes, at: int) -> str:
    """Where byte ``at`` is, as an editor shows it: its line (when there are several) and column."""
    begins = data.rfind(b"\n", 0, at) + 1
    before = data[begins:at].removeprefix(codecs.BOM_UTF8 if begins == 0 else b"")  # no editor shows it
    column = len(before.decode("utf-8", "replace")) + 1  # characters before it, not bytes
    several = b"\n" in data.rstrip(b"\r\n")
    line = data.count(b"\n", 0, at) + 1
    return f"line {line}, column {column}" if several else f"column {column}"
