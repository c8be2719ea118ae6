"""Solving one turn: build the model, run a backend, decode, validate, describe the result."""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from solver.backends import get_backend
from solver.errors import ValidationFailure
from solver.joker_model import needs_joker_rows
from solver.melds import Kind, best_reading
from solver.model import Objective, build_model
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.table_jokers import Retrieved, account
from solver.tiles import Tile, format_tiles, points
from solver.validator import best_meld_value, meld_value_bound, validate


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
        if self.position.id:
            data["id"] = self.position.id
        data.update(
            {
                "status": self.status.value,
                "objective": self.objective.value,
                "tiles_played": self.tiles_played,
                "points_played": self.points_played,
                "played": [str(t) for t in self.played],
                "rack": [str(t) for t in self.rack_left],
                "table": [[str(t) for t in s.tiles] for s in self.table],
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


def solve(
    position: Position,
    objective: Objective | str = Objective.TILES,
    backend: str = "bnb",
    time_limit: float | None = None,
    formulation: str = "auto",
) -> Solution:
    """The best move for ``position``; validated before it is returned.

    Raises BackendError if the backend fails and ValidationFailure if the answer breaks a rule
    (a bug). A time limit never turns into "no move": status ``time_limit`` says it is unproven.
    """
    started = time.perf_counter()
    objective = Objective(objective)
    if formulation == "auto" and backend not in ("highs", "bnb"):
        formulation = "sets"  # CBC and CP-SAT solve den Hertog & Hulshof's set model by default
    found = _shortcut(position, objective, backend, time_limit) if backend == "bnb" else None
    fallback: _Found | None = None
    if found is None and backend == "bnb" and formulation == "auto" and needs_joker_rows(position):
        found, fallback = _free_first(position, objective, backend, time_limit)
        if time_limit is not None:  # the limit covers the whole solve
            time_limit = max(time_limit - (time.perf_counter() - started), 0.001)
    if found is None and fallback is not None and time_limit is not None and time_limit < 0.2:
        found = (*fallback[:2], False, *fallback[3:])  # no time left to build the joker model
    if found is None:
        found = _search(position, objective, backend, time_limit, formulation)
        better = fallback is not None and _rank(position, objective, fallback) > _rank(position, objective, found)
        if not found[2] and fallback is not None and better:  # stopped by the time limit
            found = (*fallback[:2], False, *fallback[3:])
    sets, played, optimal, build_seconds, solve_seconds = found
    if not played:  # no move: the table stays exactly as it was (a turn never only rearranges)
        sets = [list(s) for s in position.table]
    problems = validate(position, sets)
    if problems:
        details = "; ".join(v.message for v in problems)
        raise ValidationFailure(f"backend {backend} returned an illegal move: {details}")
    if optimal:
        status = Status.OPTIMAL if played else Status.NO_MOVE
    else:
        status = Status.TIME_LIMIT
    placed = describe_table(position, sets, played)
    retrieved: tuple[Retrieved, ...] = ()
    if position.rules.joker_rules is not JokerRules.FREE:
        story = account(position, [p.tiles for p in placed])
        if story is None:  # validate() found an account of the same table: a bug if not here
            raise ValidationFailure("no account of the table jokers for a validated move")
        retrieved = story.retrieved
    return Solution(
        position=position,
        status=status,
        objective=objective,
        played=tuple(sorted(played)),
        table=placed,
        kept_sets=sum(1 for s in placed if s.change is SetChange.UNCHANGED),
        backend=backend,
        seconds=time.perf_counter() - started,
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        retrieved=retrieved,
    )


_Found = tuple[list[list[Tile]], list[Tile], bool, float, float]  # sets, played, optimal, times


def _search(
    position: Position,
    objective: Objective,
    backend: str,
    time_limit: float | None,
    formulation: str,
    jokers_stay: bool = False,
) -> _Found:
    """Build the turn's model, run the backend, decode its answer."""
    started = time.perf_counter()
    model = build_model(position, objective, formulation, jokers_stay)
    built = time.perf_counter()
    # The limit is for the search. Building the model takes about a millisecond, but a process's
    # first model also builds its template and loads numpy (0.1-0.15 s), which would leave a
    # short limit no time to search at all.
    result = get_backend(backend)(model.lp, time_limit)
    values = result.values if result.values is not None else model.lp.hint
    sets, played = model.decode(values)
    return sets, played, result.optimal, built - started + result.build_seconds, result.seconds


def _shortcut(
    position: Position, objective: Objective, backend: str, time_limit: float | None
) -> _Found | None:
    """Exact answers that avoid the initial meld's larger model, or None to solve it in full.

    - A rack whose tiles cannot make sets worth the threshold cannot open: no move (a quick
      bound first, then the exact best meld, a small search over the rack's sets).
    - Continuing after the meld: the best move with the table free is a relaxation of the
      opening turn; when that move is also a legal opening (its played tiles hold a meld), no
      opening can beat it, so it is the answer.
    """
    rules = position.rules
    if position.opened:
        return None
    rack = Counter(position.rack)
    threshold = rules.meld_threshold
    if meld_value_bound(rack, rules) < threshold or (
        threshold > 0 and best_meld_value(rack, rules, threshold) < threshold
    ):
        return [list(s) for s in position.table], [], True, 0.0, 0.0
    if not rules.continue_after_meld:
        return None
    relaxed = dataclasses.replace(position, opened=True)
    sets, played, optimal, build_seconds, solve_seconds = _search(
        relaxed, objective, backend, time_limit, "auto"
    )
    if optimal and played and not validate(position, sets):
        return sets, played, True, build_seconds, solve_seconds
    return None


def _free_first(
    position: Position, objective: Objective, backend: str, time_limit: float | None
) -> tuple[_Found | None, _Found | None]:
    """Exact answers under strict and locked joker rules from smaller models, and a fallback.

    These rules only forbid moves, so the free optimum bounds theirs: a legal answer that scores
    as much as the free optimum (tiles, points and kept sets alike) is their optimum. Tried in
    turn: the free optimum itself; the free optimum with the sets holding table jokers left
    untouched (always legal, and the fallback move under a time limit); and, without a time
    limit, the joker model without retrievals. Returns (exact answer or None, fallback or None).
    """
    free = dataclasses.replace(position, rules=position.rules.replace(joker_rules=JokerRules.FREE))
    sets, played, optimal, build_seconds, solve_seconds = _search(free, objective, backend, time_limit, "auto")
    if not optimal:
        return None, None
    if not played or not validate(position, sets):
        return (sets, played, True, build_seconds, solve_seconds), None
    best = _rank(position, objective, (sets, played, True, 0.0, 0.0))
    still = [s for s in position.table if any(t.is_joker for t in s)]
    rest = dataclasses.replace(free, table=tuple(s for s in position.table if s not in still))
    untouched = _search(rest, objective, backend, time_limit, "auto")
    fallback = None
    if untouched[1]:
        fallback = ([*untouched[0], *[list(s) for s in still]], untouched[1], True, *untouched[3:])
        if untouched[2] and _rank(position, objective, fallback) == best and not validate(position, fallback[0]):
            return fallback, None
    if time_limit is not None:
        return None, fallback  # under a time limit, go straight to the whole model
    stay = _search(position, objective, backend, time_limit, "sets", jokers_stay=True)
    if stay[2] and stay[1] and _rank(position, objective, stay) == best and not validate(position, stay[0]):
        return stay, None
    return None, fallback


def _rank(position: Position, objective: Objective, found: _Found) -> tuple[int, int, int]:
    """What the objective ranks, most important first: tiles or points, the other, sets kept."""
    sets, played = found[0], found[1]
    tiles, value = len(played), points(played, position.rules)
    kept = len(unchanged(position.table, sets)) if played else len(position.table)
    return (tiles, value, kept) if objective is Objective.TILES else (value, tiles, kept)


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
    placed = []
    for i, s in enumerate(sets):
        reading = best_reading(s, rules)
        ordered = reading.tiles if reading else tuple(sorted(s))
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
