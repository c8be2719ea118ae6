"""A solved turn as a value: the objective, the answer's status, the table after the move with each
set marked, and the JSON the library owns (``Solution.to_dict``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from solver.errors import ValidationFailure
from solver.joker_account import Retrieved, account
from solver.jokers import declares, run_declaring, table_readings
from solver.melds import Kind, best_reading, natural_order
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.tiles import JOKER, Tile, format_tiles, points, table_as_lists


class Objective(StrEnum):
    TILES = "tiles"  # most rack tiles played
    POINTS = "points"  # largest value played (a joker counts rules.joker_penalty)


class Status(StrEnum):
    OPTIMAL = "optimal"  # proven best move, at least one tile played
    NO_MOVE = "no_move"  # proven: nothing can be played, draw a tile
    TIME_LIMIT = "time_limit"  # the limit stopped the search: best move found, not proven


class SetChange(StrEnum):
    UNCHANGED = "unchanged"  # an original table set, untouched
    EXTENDED = "extended"  # an original table set plus rack tiles
    NEW = "new"  # rack tiles only
    REBUILT = "rebuilt"  # made of tiles from broken-up table sets (and maybe rack tiles)


@dataclass(frozen=True, slots=True)
class PlacedSet:
    """A set of the table after the move, in natural order, with the rack tiles marked."""

    tiles: tuple[Tile, ...]
    change: SetChange
    from_rack: tuple[bool, ...]

    def __str__(self) -> str:
        return format_tiles(self.tiles)


@dataclass(frozen=True, slots=True)
class Solution:
    position: Position
    status: Status
    objective: Objective
    played: tuple[Tile, ...]
    table: tuple[PlacedSet, ...]
    kept_sets: int
    backend: str
    seconds: float
    build_seconds: float
    solve_seconds: float
    # Strict and locked joker rules: the table jokers this move retrieves (sets numbered as in
    # ``position.table`` and ``table``, from 1).
    retrieved: tuple[Retrieved, ...] = ()

    @property
    def tiles_played(self) -> int:
        return len(self.played)

    @property
    def points_played(self) -> int:
        return points(self.played, self.position.rules)

    @property
    def rack_left(self) -> tuple[Tile, ...]:
        return tuple(sorted((Counter(self.position.rack) - Counter(self.played)).elements()))

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        """The JSON answer; without ``timing`` it leaves out ``seconds`` and is byte-identical
        from run to run."""
        data: dict[str, Any] = {}
        if self.position.id != "":
            data["id"] = self.position.id
        data.update(
            {
                "status": self.status.value,
                "objective": self.objective.value,
                "tiles_played": self.tiles_played,
                "points_played": self.points_played,
                "played": [str(t) for t in self.played],
                "rack": [str(t) for t in self.rack_left],
                "table": table_as_lists(s.tiles for s in self.table),
                "table_changes": [s.change.value for s in self.table],
                "kept_sets": self.kept_sets,
                "initial_meld": not self.position.opened,
                "backend": self.backend,
            }
        )
        if self.position.rules.joker_rules is not JokerRules.FREE:
            data["jokers_retrieved"] = [
                {"table_set": r.table_set, "stood_for": str(r.role), "tile": str(r.tile), "new_set": r.new_set}
                for r in self.retrieved
            ]
        if timing:
            data["seconds"] = round(self.seconds, 6)
        return data


@dataclass(frozen=True, slots=True)
class Shortfall:
    """How far a move falls short of the best move, in tiles and in points: what ``check`` and
    game analysis both measure a move by. Either may be negative (a move the best by tiles beats
    in tiles may lay more points; an unproven best may be beaten)."""

    tiles: int
    points: int

    @classmethod
    def of(cls, best: Solution, tiles: int, points: int) -> Shortfall:
        """The shortfall of a move playing ``tiles`` tiles worth ``points`` beside ``best``."""
        return cls(best.tiles_played - tiles, best.points_played - points)

    def missed(self, objective: Objective) -> int:
        """What the move missed in the objective's unit: 0 when it is as good or better."""
        return max(self.tiles if objective is Objective.TILES else self.points, 0)


def describe_table(
    position: Position, sets: Sequence[Sequence[Tile]], played: Sequence[Tile]
) -> tuple[PlacedSet, ...]:
    """Each new set in natural order, marked unchanged / extended / new / rebuilt, rack tiles flagged.

    Tiles are interchangeable copies, so "which R5 came from the rack" is a presentation choice:
    unchanged sets take table tiles first, then extensions, then sets of rack tiles only.
    """
    rules = position.rules
    originals = Counter(tuple(sorted(s)) for s in position.table)
    rack_left = Counter(played)
    keys = [tuple(sorted(s)) for s in sets]
    change: list[SetChange | None] = [None] * len(sets)
    rack_part: list[Counter[Tile] | None] = [None] * len(sets)  # None: no rack tile
    for i, key in enumerate(keys):
        if originals[key] > 0:
            originals[key] -= 1
            change[i] = SetChange.UNCHANGED
    # In table order: deterministic. Multiset inclusion by <= (subtracting Counters is slower).
    as_counts = {orig: Counter(orig) for orig, left in originals.items() if left}
    for i, key in enumerate(keys):
        if change[i] is not None or not as_counts:
            continue
        whole = Counter(key)
        for orig, orig_counts in as_counts.items():
            if originals[orig] and len(orig) < len(key) and orig_counts <= whole:
                extra = whole - orig_counts
                if extra <= rack_left:
                    originals[orig] -= 1
                    rack_left -= extra
                    rack_part[i] = extra
                    change[i] = SetChange.EXTENDED
                    break
    for i, key in enumerate(keys):
        if change[i] is None and Counter(key) <= rack_left:
            new = rack_part[i] = Counter(key)
            rack_left -= new
            change[i] = SetChange.NEW
    for i, key in enumerate(keys):
        if change[i] is None:
            take = Counter(key) & rack_left
            rack_part[i] = take
            rack_left -= take
            change[i] = SetChange.REBUILT
    # An unchanged set with jokers is shown as it was given where the order decides what its table
    # jokers stand for (J K1 J only a group; K1 J J also a run): an answer fed back in must mean
    # the same.
    given: dict[tuple[Tile, ...], list[tuple[Tile, ...]]] = {}
    for original in position.table:
        given.setdefault(tuple(sorted(original)), []).append(tuple(original))
    placed = []
    for i, s in enumerate(sets):
        ordered = natural_order(s, rules)
        if change[i] is SetChange.UNCHANGED and JOKER in s:
            original = given[keys[i]].pop(0)
            if rules.joker_rules is not JokerRules.FREE and table_readings(original, rules) != table_readings(ordered, rules):
                ordered = original
        part = rack_part[i]
        if part:
            marks = part.copy()
            flags = []
            for t in ordered:
                flags.append(marks[t] > 0)
                marks[t] -= 1
            from_rack = tuple(flags)
        else:
            from_rack = (False,) * len(ordered)
        c = change[i]
        assert c is not None
        placed.append(PlacedSet(ordered, c, from_rack))
    placed.sort(key=lambda p: sort_key(p.tiles, rules))
    return tuple(placed)


def joker_story(position: Position, placed: tuple[PlacedSet, ...]) -> tuple[tuple[PlacedSet, ...], tuple[Retrieved, ...]]:
    """Under strict and locked jokers: the table written as its account says its jokers declare
    (see written_as_declared), and the jokers retrieved. None is a bug: the move was validated."""
    if position.rules.joker_rules is JokerRules.FREE:
        return placed, ()
    story = account(position, [p.tiles for p in placed])
    if story is None:  # validate() found an account of the same table: a bug if not here
        raise ValidationFailure("no account of the table jokers for a validated move")
    return written_as_declared(placed, story.declared, position.rules), story.retrieved


def written_as_declared(
    placed: tuple[PlacedSet, ...], declared: Sequence[tuple[int, tuple[Tile, ...]]], rules: RuleSet
) -> tuple[PlacedSet, ...]:
    """The table with each joker set written so that, read back as a table (strict and locked
    jokers: by its order), its jokers stand for what the move's account says they declare
    (``declared``: set index, tiles). ``R11 R12 R13 J`` holding the R1 of ``R12 R13 J`` under
    american wrap must not come out as ``J R11 R12 R13``, where the joker is R10."""
    out = list(placed)
    for i, tiles in declared:
        p = placed[i]
        if any(declares(r, tiles) for r in table_readings(p.tiles, rules)):
            continue
        run = run_declaring(p.tiles, tiles, rules)
        if run is None:
            continue  # the account's tiles are a group's: any order says them
        ordered = run.tiles
        laid = Counter(t for t, own in zip(p.tiles, p.from_rack) if own)
        flags = []
        for t in ordered:
            flags.append(laid[t] > 0)
            laid[t] -= 1
        out[i] = PlacedSet(ordered, p.change, tuple(flags))
    return tuple(out)


def unchanged(before: Sequence[Sequence[Tile]], after: Sequence[Sequence[Tile]]) -> list[int]:
    """Indices of the sets of ``before`` that stand exactly as they were in ``after``.

    Sets are compared as multisets, and each set of ``after`` vouches for one set of ``before``.
    """
    present = Counter(tuple(sorted(s)) for s in after)
    found = []
    for i, s in enumerate(before):
        key = tuple(sorted(s))
        if present[key] > 0:
            present[key] -= 1
            found.append(i)
    return found


def sort_key(tiles: Sequence[Tile], rules: RuleSet) -> tuple[int, int, int, tuple[Tile, ...]]:
    """Runs by colour and start, then groups by number: a reader finds sets where expected."""
    reading = best_reading(tiles, rules)
    if reading is None:
        return (2, 0, 0, tuple(tiles))
    first = reading.stands_for[0]
    if reading.kind is Kind.RUN:
        return (0, first.colour, first.number, tuple(tiles))
    return (1, first.number, 0, tuple(tiles))
