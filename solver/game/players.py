"""AI players behind one tiny protocol: ``choose(view) -> the whole table after the move, or None
to draw``. Every answer is a table the engine checks with the validator like any other move.

- ``easy`` plays like a beginner: new sets from its own rack (the most tiles it can), then simple
  extensions — a rack tile added to a table set that stays valid (a run's end, a group's missing
  colour) — and never rearranges the table.
- ``medium`` plays the one-turn optimum: the most rack tiles the solver can place, ties broken
  by the most points (the solver's own lexicographic objective).
- ``hard`` plays to win the round, using the solver to compare alternatives; see :class:`Hard`.

AIs are deterministic: ``hard`` samples with its own seeded generator, so a game between AIs is
the same every time it is played from the same seed. A player may be given a time limit for each
of its searches (the web server's, so that an AI turn always ends in a legal move); it then plays
the best move found in time, and is deterministic no more.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from solver.errors import RulesError
from solver.game.engine import Game, GameView, TurnRecord
from solver.melds import best_reading, is_valid, run_numbers, run_starts
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.solution import Objective, Solution
from solver.solve import SolveOptions, solve
from solver.tiles import JOKER, Tile, tile
from solver.validator import is_legal

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

    def __init__(self, time_limit: float | None = None) -> None:
        self.options = SolveOptions(time_limit=time_limit)

    def choose(self, view: GameView) -> Table | None:
        return _table(solve(view.position, self.options))


class Easy:
    """A beginner: new sets from the rack, then tiles added to table sets; never rearranges."""

    name = "easy"

    def __init__(self, time_limit: float | None = None) -> None:
        self.options = SolveOptions(time_limit=time_limit)

    def choose(self, view: GameView) -> Table | None:
        position = view.position
        rules = position.rules
        if not position.opened:
            # The initial meld is new sets from the rack alone: exactly what a beginner does.
            meld = solve(
                dataclasses.replace(position, rules=rules.replace(continue_after_meld=False)), self.options
            )
            return _table(meld)
        own = solve(Position(position.rack, (), True, rules), self.options)
        base = [list(s) for s in position.table] + [list(s.tiles) for s in own.table]
        extended = [list(s) for s in base]
        _extend(extended, Counter(position.rack) - Counter(own.played), rules)
        # Under strict or locked joker rules an addition may be refused: then only the new sets.
        original = [list(s) for s in position.table]
        for table in (extended, base):
            if table != original and is_legal(position, table):
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
    """Plays to win the round rather than the turn (each rule below was kept because self-play
    against ``medium`` measured it as a gain; see bench/results/selfplay.md).

    - It goes out whenever it can.
    - Otherwise it sheds value: the move with the most points (then the most tiles), so that
      what stays on its rack are low tiles, cheap if an opponent goes out first.
    - With two or more opponents (``hold``: None decides by the number of players) every tile
      laid feeds several players: it keeps the sets its rack makes by itself (they can be laid
      any time, and it lays them all when it goes out), lays now only what needs the table, and
      lays one kept set rather than draw.
    - It minds the opponents' rack sizes: when one holds at most ``watch`` tiles, it estimates
      for each candidate move the chance that this opponent can go out on the table it would
      leave, from ``samples`` racks dealt from the tiles it cannot see and consistent with that
      opponent's latest turn (after a draw its older tiles could not be laid on the table it
      left; after a play it could not go out on it), each checked with the solver. Candidates:
      the points move, the most-tiles move, only new sets from its rack, and drawing; it takes
      the most tiles laid minus ``weight`` times the largest such chance (a draw counts as a
      tile gained): it would rather draw than hand an opponent the tiles to go out.
    """

    name = "hard"

    def __init__(
        self,
        watch: int = 3,
        samples: int = 16,
        weight: float = 20.0,
        seed: int = 0,
        objective: Objective = Objective.POINTS,
        hold: bool | None = None,
        time_limit: float | None = None,
    ) -> None:
        self.options = SolveOptions(time_limit=time_limit)
        self.hold = hold
        self.objective = objective
        self.watch = watch
        self.samples = samples
        self.weight = weight
        self.rng = random.Random(seed)

    def choose(self, view: GameView) -> Table | None:
        position = view.position
        most = solve(position, self.options)
        if not most.tiles_played or not most.rack_left:
            return _table(most)  # nothing to play, or going out
        shedding = self.options.replace(objective=self.objective)
        shed = solve(position, shedding) if self.objective is not Objective.TILES else most
        danger = [seat for seat in view.opponents() if view.rack_sizes[seat] <= self.watch]
        if not danger:
            hold = self.hold if self.hold is not None else view.players > 2
            if hold and position.opened:
                return self._holding(position, shed)
            return _table(shed)
        memo = _GoOut(view.rules, self.options)
        racks = {seat: self._racks(view, seat, memo) for seat in danger}
        options: list[tuple[int, Table | None]] = [(shed.tiles_played, _table(shed))]
        if most.tiles_played > shed.tiles_played:
            options.append((most.tiles_played, _table(most)))
        if position.opened:
            own = solve(Position(position.rack, (), True, position.rules), self.options)
            if own.tiles_played:
                options.append(
                    (own.tiles_played, [*map(list, position.table), *(list(s.tiles) for s in own.table)])
                )
        options.append((-1, None))  # draw: the table stays as it is
        best: tuple[float, Table | None] | None = None
        for laid, table in options:
            after = table if table is not None else [list(s) for s in position.table]
            value = laid - self.weight * memo.risk(view, racks, after)
            if best is None or value > best[0]:
                best = (value, table)
        assert best is not None
        return best[1]

    def _holding(self, position: Position, shed: Solution) -> Table | None:
        """Keep the sets the rack makes by itself (they can be laid any time); lay what needs the
        table now; lay one kept set rather than draw."""
        own = solve(Position(position.rack, (), True, position.rules), self.options)
        if not own.tiles_played:
            return _table(shed)
        rest = Counter(position.rack) - Counter(own.played)
        if rest:
            rest_only = dataclasses.replace(position, rack=tuple(sorted(rest.elements())))
            play = solve(rest_only, self.options.replace(objective=self.objective))
            if play.tiles_played:
                return _table(play)
        kept = max(own.table, key=lambda s: (sum(t.number for t in s.tiles), len(s.tiles)))
        return [*map(list, position.table), list(kept.tiles)]

    def _racks(self, view: GameView, seat: int, memo: _GoOut) -> list[list[Tile]]:
        """Racks the opponent at ``seat`` may hold, dealt from the tiles this player cannot see,
        keeping only those consistent with its latest turn on the table it left then: after a
        draw, its older tiles could not be laid at all; after a play, it could not go out."""
        size = view.rack_sizes[seat]
        unseen = list(view.unseen().elements())
        left = view.last_tables[seat] if view.last_tables else None
        drew = view.last_drew[seat] if view.last_drew else None
        knows = view.opened[seat] and left is not None and drew is not None
        racks: list[list[Tile]] = []
        for _ in range(self.samples * 4):
            if len(racks) == self.samples or size > len(unseen):
                break
            rack = self.rng.sample(unseen, size)
            if knows and left is not None:
                if drew:
                    if size > 1 and memo.any_placeable(rack[:-1], left):
                        continue
                elif memo.goes_out(rack, left, True):
                    continue
            racks.append(rack)
        return racks


class _GoOut:
    """Answers (and remembers, for one decision) whether sampled racks can be laid on tables.

    Under the free joker rules only the tiles on the table matter, not how they are set out, so
    tables holding the same tiles share their answers.
    """

    def __init__(self, rules: RuleSet, options: SolveOptions) -> None:
        self.rules = rules
        self.options = options
        self.free = rules.joker_rules is JokerRules.FREE
        self.cache: dict[tuple[object, ...], bool] = {}

    def _key(
        self, kind: str, rack: Sequence[Tile], table: Sequence[Sequence[Tile]], opened: bool
    ) -> tuple[object, ...]:
        laid: object = (
            tuple(sorted(t for s in table for t in s))
            if self.free
            else tuple(sorted(tuple(sorted(s)) for s in table))
        )
        return (kind, tuple(sorted(rack)), laid, opened)

    def goes_out(self, rack: Sequence[Tile], table: Sequence[Sequence[Tile]], opened: bool) -> bool:
        key = self._key("out", rack, table, opened)
        if key not in self.cache:
            self.cache[key] = goes_out(rack, table, opened, self.rules, self.options)
        return self.cache[key]

    def any_placeable(self, rack: Sequence[Tile], table: Sequence[Sequence[Tile]]) -> bool:
        key = self._key("any", rack, table, True)
        if key not in self.cache:
            # A tile that fits by itself settles it; single tiles recur from sample to sample.
            alone = len(rack) > 1 and any(self.any_placeable([t], table) for t in rack)
            self.cache[key] = alone or _any_placeable(rack, table, self.rules, self.options)
        return self.cache[key]

    def risk(
        self, view: GameView, racks: dict[int, list[list[Tile]]], table: Sequence[Sequence[Tile]]
    ) -> float:
        """The largest share, over the watched opponents, of sampled racks that go out on ``table``."""
        worst = 0.0
        for seat, sampled in racks.items():
            if sampled:
                out = sum(1 for r in sampled if self.goes_out(r, table, view.opened[seat]))
                worst = max(worst, out / len(sampled))
        return worst


def goes_out(
    rack: Sequence[Tile],
    table: Sequence[Sequence[Tile]],
    opened: bool,
    rules: RuleSet,
    options: SolveOptions = SolveOptions(),
) -> bool:
    """Can a player lay every tile of this (small) rack on this table in one turn?

    The same answer as the solver, found quickly where it is plain: no when some tile cannot be
    part of any set made of the tiles there are; yes when every tile simply joins a table set or
    the rest form a set by themselves; otherwise the solver decides.
    """
    if not rack:
        return True
    if opened:
        counts = Counter(t for s in table for t in s) + Counter(rack)
        if any(not t.is_joker and not _could_join(t, counts, rules) for t in rack):
            return False
        # Under strict or locked joker rules a table joker's role limits additions: ask the solver.
        if rules.joker_rules is JokerRules.FREE and _joins_simply(rack, table, rules):
            return True
    position = Position(tuple(rack), tuple(tuple(s) for s in table), opened, rules)
    return solve(position, options).tiles_played == len(rack)


def _any_placeable(
    rack: Sequence[Tile], table: Sequence[Sequence[Tile]], rules: RuleSet, options: SolveOptions
) -> bool:
    """Can an opened player lay at least one of these tiles on this table?"""
    counts = Counter(t for s in table for t in s) + Counter(rack)
    if all(not t.is_joker and not _could_join(t, counts, rules) for t in rack):
        return False
    position = Position(tuple(rack), tuple(tuple(s) for s in table), True, rules)
    return solve(position, options).tiles_played > 0


def _could_join(t: Tile, counts: Counter[Tile], rules: RuleSet) -> bool:
    """Is there any valid set holding ``t`` among these tiles (a necessary condition to lay it)?"""
    jokers = counts[JOKER]
    need = rules.min_set_size
    if rules.groups_possible:
        others = sum(1 for c in range(rules.colours) if c != t.colour and counts[tile(c, t.number)])
        if others + jokers >= need - 1:
            return True
    for start in run_starts(need, rules):
        numbers = run_numbers(start, need, rules)
        if numbers is None or t.number not in numbers:
            continue
        missing = sum(1 for n in numbers if n != t.number and not counts[tile(t.colour, n)])
        if missing <= jokers:
            return True
    return False


def _joins_simply(rack: Sequence[Tile], table: Sequence[Sequence[Tile]], rules: RuleSet) -> bool:
    """Do the rack's tiles go out without rearranging: each added to a table set, the rest a set?"""
    sets = [list(s) for s in table]
    left = []
    for t in sorted(rack, key=lambda t: t.is_joker):
        for s in sets:
            if is_valid([*s, t], rules):
                s.append(t)
                break
        else:
            left.append(t)
    return not left or is_valid(left, rules)


LEVELS: dict[str, type[Easy] | type[Medium] | type[Hard]] = {"easy": Easy, "medium": Medium, "hard": Hard}


def make_player(name: str, time_limit: float | None = None) -> Player:
    """An AI player by level name: easy, medium or hard; ``time_limit``: seconds for each of its
    searches (None: each search proves its optimum)."""
    key = name.strip().lower()
    if key not in LEVELS:
        raise RulesError(f"unknown AI {name!r}: choose easy, medium or hard")
    return LEVELS[key](time_limit=time_limit)


def ai_turn(game: Game, player: Player) -> TurnRecord:
    """The AI at ``game.seat`` moves: its table, or a draw."""
    table = player.choose(game.view())
    return game.draw() if table is None else game.play(table)
