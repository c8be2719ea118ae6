"""A position: the player's rack, the sets on the table, whether the player has opened, the rules.

Creating a Position checks it against the rules (tile copies, jokers, every table set valid), so
a Position in hand is always a legal game state. File readers run the same checks first with
file-and-line locations so that errors can say where the problem is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from solver.errors import PositionError
from solver.melds import why_invalid
from solver.rules import RuleSet
from solver.tiles import Tile, format_tiles, table_as_lists

Located = tuple[Tile, str]  # a tile and where it was given ("rack file r.txt line 2")


def check_tile_counts(entries: Iterable[Located], rules: RuleSet) -> None:
    """Raise PositionError if rack and table together hold more copies than the game has."""
    entries = list(entries)
    most = rules.tile_count
    if len(entries) > most:
        sources = list(dict.fromkeys(re.sub(r" line \d+$", "", where) for _, where in entries))
        shown = ", ".join(sources[:4]) + (", …" if len(sources) > 4 else "")
        raise PositionError(f"too many tiles: {len(entries)} (in {shown}), the game has only {most}")
    counts = Counter(t for t, _ in entries)
    if all(n <= (rules.jokers if t.is_joker else rules.copies) for t, n in counts.items()):
        return  # the usual case; only a problem needs the locations gathered
    places: dict[Tile, list[str]] = {}
    for t, where in entries:
        places.setdefault(t, []).append(where)
    for t in sorted(places):
        wheres = places[t]
        limit = rules.jokers if t.is_joker else rules.copies
        if len(wheres) > limit:
            unique = list(dict.fromkeys(wheres))
            shown = ", ".join(unique[:4]) + (", …" if len(unique) > 4 else "")
            what = "jokers" if t.is_joker else f"copies of {t}"
            raise PositionError(f"too many {what}: {len(wheres)} (in {shown}), the rules allow {limit}")


def opened_unless_said(table: Sequence[object], said: bool | None) -> bool:
    """Whether the player has opened, for readers of positions that may leave it unsaid.

    As said, when a file, a record or an option says it (``opened:``, ``initial_meld``,
    ``--opened``/``--initial-meld``). Unsaid: opened when there are sets on the table, not opened
    when it is empty. Tiles never leave the table, so a player who has opened always has sets on
    it: with an empty table this turn is the initial meld.
    """
    if said is not None:
        return said
    return bool(table)


def check_table_set(tiles: Sequence[Tile], rules: RuleSet, where: str) -> None:
    reason = why_invalid(tiles, rules)
    if reason is not None:
        raise PositionError(f"invalid set '{format_tiles(tiles)}' in {where}: {reason}")


@dataclass(frozen=True, slots=True)
class Position:
    """Rack and table (sets kept in the order written), whether the player has opened, rules."""

    rack: tuple[Tile, ...]
    table: tuple[tuple[Tile, ...], ...] = ()
    opened: bool = True
    rules: RuleSet = field(default_factory=RuleSet)
    title: str = ""
    id: str | int = ""  # as the file gave it: a JSON number stays a number for the caller's keys
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "rack", tuple(sorted(self.rack)))
        object.__setattr__(self, "table", tuple(tuple(s) for s in self.table))
        for i, s in enumerate(self.table, 1):
            check_table_set(s, self.rules, f"table set {i}")
        entries: list[Located] = [(t, "rack") for t in self.rack]
        entries += [(t, f"table set {i}") for i, s in enumerate(self.table, 1) for t in s]
        check_tile_counts(entries, self.rules)

    @classmethod
    def from_strings(
        cls, rack: str, table: Iterable[str] = (), opened: bool = True, rules: RuleSet | None = None
    ) -> Position:
        """Convenience for code and tests: ``Position.from_strings("R5 B7", ["R4 J R6"])``."""
        from solver.tiles import parse_token

        rules = rules or RuleSet()

        def tiles(text: str) -> list[Tile]:
            return [t for tok in text.replace(",", " ").split() for t in parse_token(tok, rules)]

        return cls(tuple(tiles(rack)), tuple(tuple(tiles(s)) for s in table), opened, rules)

    @property
    def table_tiles(self) -> Counter[Tile]:
        return Counter(chain.from_iterable(self.table))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.id != "":
            data["id"] = self.id
        if self.title:
            data["title"] = self.title
        data["rack"] = [str(t) for t in self.rack]
        data["table"] = table_as_lists(self.table)
        data["opened"] = self.opened
        data["rules"] = self.rules.to_dict()
        if self.notes:
            data["notes"] = self.notes
        return data
