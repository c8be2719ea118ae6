"""AI players behind one tiny protocol: ``choose(view) -> the whole table after the move, or None
to draw``. Every answer is a table the engine checks with the validator like any other move.

- ``easy`` plays like a beginner: new sets from its own rack (the most tiles it can), then simple
  extensions — a rack tile added to a table set that stays valid (a run's end, a group's missing
  colour) — and never rearranges the table.
- ``medium`` plays the one-turn optimum: the most rack tiles the solver can place, ties broken
  by the most points (the solver's own lexicographic objective).
- ``hard`` plays to win the round, using the solver to compare alternatives; see :class:`Hard`.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from solver.errors import RulesError
from solver.game import GameView
from solver.melds import best_reading
from solver.position import Position
from solver.rules import RuleSet
from solver.solve import Solution, solve
from solver.tiles import Tile
from solver.validator import validate

Table = list[list[Tile]]


class Player(Protocol):
    """An AI player: given what it may see, the table after its move, or None to draw."""

    name: str

    def choose(self, view: GameView) -> Table | None: ...


def _table(solution: Solution) -> Table | None:
    return [list(s.tiles) for s in solution.table] if solution.tiles_played else None


class Medium:
    """The one-turn optimum: most tiles, then most points."""

    name = "medium"

    def choose(self, view: GameView) -> Table | None:
        return _table(solve(view.position))


class Easy:
    """A beginner: new sets from the rack, then tiles added to table sets; never rearranges."""

    name = "easy"

    def choose(self, view: GameView) -> Table | None:
        position = view.position
        rules = position.rules
        if not position.opened:
            # The initial meld is new sets from the rack alone: exactly what a beginner does.
            meld = solve(dataclasses.replace(position, rules=rules.replace(continue_after_meld=False)))
            return _table(meld)
        own = solve(Position(position.rack, (), True, rules))
        base = [list(s) for s in position.table] + [list(s.tiles) for s in own.table]
        extended = [list(s) for s in base]
        _extend(extended, Counter(position.rack) - Counter(own.played), rules)
        # Under strict or locked joker rules an addition may be refused: then only the new sets.
        original = [list(s) for s in position.table]
        for table in (extended, base):
            if table != original and not validate(position, table):
                return table
        return None


def _extend(table: Table, rest: Counter[Tile], rules: RuleSet) -> None:
    """Add rack tiles one at a time to sets that stay valid (numbered tiles first, high first)."""
    progress = True
    while progress:
        progress = False
        for t in sorted(rest.elements(), key=lambda t: (t.is_joker, -t.number)):
            if rest[t] == 0:
                continue
            for i, s in enumerate(table):
                # Sets holding a joker are left alone: the written order may say what it stands for.
                reading = None if any(x.is_joker for x in s) else best_reading([*s, t], rules)
                if reading is not None:
                    table[i] = list(reading.tiles)
                    rest[t] -= 1
                    progress = True
                    break


class Hard:
    """Plays to win the round rather than the turn.

    - It goes out whenever it can, and otherwise plays as medium when the round is close to its
      end (an opponent with few tiles, or a small pool): then what matters is the rack's value.
    - Otherwise it keeps its jokers: it solves the turn with the jokers held back and plays that
      move if it places nearly as many tiles as the full optimum (a joker on the table is also
      a joker for the opponents; on the rack it is kept for a big move later).
    """

    name = "hard"

    def __init__(self, close_rack: int = 4, small_pool: int = 8, joker_slack: int = 1) -> None:
        self.close_rack = close_rack
        self.small_pool = small_pool
        self.joker_slack = joker_slack

    def choose(self, view: GameView) -> Table | None:
        position = view.position
        full = solve(position)
        if not full.tiles_played or not full.rack_left:
            return _table(full)  # nothing to play, or going out
        danger = (
            min(view.rack_sizes[s] for s in view.opponents()) <= self.close_rack
            or view.pool_size <= self.small_pool
        )
        if danger:
            return _table(full)
        jokers = [t for t in position.rack if t.is_joker]
        if jokers and position.opened:
            held = _without(position, jokers)
            if held is not None:
                alt = solve(held)
                if alt.tiles_played and alt.tiles_played >= full.tiles_played - self.joker_slack:
                    return _table(alt)
        return _table(full)


def _without(position: Position, tiles: Sequence[Tile]) -> Position | None:
    """The same position with these rack tiles set aside (None if nothing would be left)."""
    rack = Counter(position.rack) - Counter(tiles)
    if not rack:
        return None
    return dataclasses.replace(position, rack=tuple(sorted(rack.elements())))


LEVELS: dict[str, type[Easy] | type[Medium] | type[Hard]] = {"easy": Easy, "medium": Medium, "hard": Hard}


def make_player(name: str) -> Player:
    """An AI player by level name: easy, medium or hard."""
    key = name.strip().lower()
    if key not in LEVELS:
        raise RulesError(f"unknown AI {name!r}: choose easy, medium or hard")
    return LEVELS[key]()
