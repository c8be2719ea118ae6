"""Words in messages: counted nouns (``count(1, "set")`` is "1 set", ``count(2, "set")`` "2
sets") and values quoted from a JSON input (``json_text(True)`` is "true", not Python's "True").

Every message of the library and the command line that puts a number before a noun uses this,
so that no output says "1 sets" or "1 tiles".
"""

from __future__ import annotations

import json

# Nouns whose plural is not the singular plus "s".
_IRREGULAR = {"copy": "copies", "penalty": "penalties", "match": "matches"}


def plural(noun: str, n: int) -> str:
    """The noun as it goes with ``n``: "set" for 1, "sets" for anything else (0 included)."""
    if n == 1:
        return noun
    head, _, last = noun.rpartition(" ")
    word = _IRREGULAR.get(last, last + "s")
    return f"{head} {word}" if head else word


def count(n: int, noun: str) -> str:
    """``n`` and the noun agreeing with it: "1 tile", "0 tiles", "3 table tiles"."""
    return f"{n} {plural(noun, n)}"


def json_text(value: object) -> str:
    """A value from a JSON input as its JSON text, for a message; a long one cut short."""
    text = json.dumps(value, default=str)
    return text if len(text) <= 30 else text[:29] + "…"
