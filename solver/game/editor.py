"""One turn in progress, edited by a person: the table being rearranged, with undo.

:class:`TurnEditor` owns one turn: the table as the player is rearranging it (sets may be invalid
until the turn ends), a *workspace* of table tiles taken off their sets and not yet placed, and
the rack. Every manipulation (a :class:`Command`) makes a new immutable :class:`Edit` snapshot;
``undo`` and ``redo`` walk the snapshots, ``reset`` goes back to the turn's start (itself
undoable). :meth:`TurnEditor.finish` gives the table to play, or raises :class:`EditError` saying
precisely what is still wrong. The turn timer and its penalty rules live here too. Nothing here
prints or parses text: a front-end turns what the person does into commands.

Manipulations (set numbers from 0 here; front-ends show them from 1):

- ``lay TILES``: a new set; each tile comes from the workspace if it is there, else from the rack;
- ``add N TILES``: tiles (workspace first, then rack) onto set N;
- ``move N TILES M``: table tiles from set N to set M (``None``: into a new set);
- ``take N TILES``: tiles off set N into the workspace;
- ``split N TILE``: cut set N in two, the second part starting at TILE (as shown; with two
  copies of TILE, at the second);
- ``back TILES``: rack tiles laid this turn, from the workspace back to the rack.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from solver.errors import RummikubError
from solver.game.engine import Game, TurnRecord
from solver.melds import best_reading, why_invalid
from solver.position import Position
from solver.rules import RuleSet
from solver.tiles import Tile, format_tiles
from solver.validator import validate

Sets = tuple[tuple[Tile, ...], ...]


class EditError(RummikubError):
    """A command that cannot be carried out, or a turn that cannot end yet; the message says why."""


MANIPULATIONS = ("lay", "add", "move", "take", "split", "back")


@dataclass(frozen=True)
class Command:
    name: str  # a manipulation, or a control of the front-end
    source: int | None = None  # set number (0-based) the command works on
    tiles: tuple[Tile, ...] = ()
    target: int | None = None  # move: destination set (0-based); None = a new set
    level: int = 1  # hint


# ---------------------------------------------------------------- the turn in progress


@dataclass(frozen=True)
class Edit:
    """One state of the turn: the table being edited, loose table tiles, the rack."""

    table: Sets
    workspace: tuple[Tile, ...]
    rack: tuple[Tile, ...]


def display_order(tiles: Sequence[Tile], rules: RuleSet) -> tuple[Tile, ...]:
    """A set as shown: in natural order when it is valid, sorted while it is not."""
    reading = best_reading(tiles, rules)
    return reading.tiles if reading else tuple(sorted(tiles))


@dataclass
class TurnEditor:
    """The undo stack of one turn: ``states[index]`` is the current state."""

    position: Position  # the turn's start: rack, table, opened, rules
    states: list[Edit] = field(default_factory=list)
    index: int = 0

    def __post_init__(self) -> None:
        if not self.states:
            self.states = [self.start]

    @property
    def start(self) -> Edit:
        p = self.position
        return Edit(tuple(display_order(s, p.rules) for s in p.table), (), p.rack)

    @property
    def state(self) -> Edit:
        return self.states[self.index]

    @property
    def rules(self) -> RuleSet:
        return self.position.rules

    @property
    def laid(self) -> Counter[Tile]:
        """Rack tiles put on the table (or in the workspace) this turn."""
        return Counter(self.position.rack) - Counter(self.state.rack)

    @property
    def changed(self) -> bool:
        return self.state != self.start

    def can_undo(self) -> bool:
        return self.index > 0

    def can_redo(self) -> bool:
        return self.index < len(self.states) - 1

    # -------------------------------------------------------------- undo stack

    def undo(self) -> None:
        if not self.can_undo():
            raise EditError("nothing to undo")
        self.index -= 1

    def redo(self) -> None:
        if not self.can_redo():
            raise EditError("nothing to redo")
        self.index += 1

    def reset(self) -> None:
        if not self.changed:
            raise EditError("nothing to reset: the table and rack are as at the start of the turn")
        self._push(self.start)

    def _push(self, state: Edit) -> None:
        del self.states[self.index + 1 :]  # a new manipulation drops what could be redone
        self.states.append(state)
        self.index += 1

    # -------------------------------------------------------------- manipulations

    def apply(self, command: Command) -> str:
        """Carry out a manipulation; returns a one-line description of what it did."""
        handlers: dict[str, Callable[[Command], tuple[Edit, str]]] = {
            "lay": self._lay,
            "add": self._add,
            "move": self._move,
            "take": self._take,
            "split": self._split,
            "back": self._back,
        }
        if command.name not in handlers:
            raise EditError(f"{command.name} is not a manipulation")
        state, said = handlers[command.name](command)
        self._push(state)
        return said

    def _lay(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        workspace, rack, _ = self._from_hand(command.tiles)
        new_set = display_order(command.tiles, self.rules)
        return Edit(
            (*s.table, new_set), workspace, rack
        ), f"laid {format_tiles(new_set)} as set {len(s.table) + 1}"

    def _add(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        n = self._existing(command.source)
        workspace, rack, _ = self._from_hand(command.tiles)
        table = list(s.table)
        table[n] = display_order((*table[n], *command.tiles), self.rules)
        return Edit(tuple(table), workspace, rack), f"set {n + 1} is now {format_tiles(table[n])}"

    def _move(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        n = self._existing(command.source)
        table = list(s.table)
        table[n] = self._without(table[n], command.tiles, n)
        if command.target is None:
            table.append(display_order(command.tiles, self.rules))
            said = f"moved {format_tiles(command.tiles)} from set {n + 1} to a new set"
        else:
            m = self._existing(command.target)
            if m == n:
                raise EditError(f"set {n + 1} is both where the tiles come from and where they go")
            table[m] = display_order((*table[m], *command.tiles), self.rules)
            said = f"moved {format_tiles(command.tiles)} from set {n + 1} to set {m + 1}"
        return Edit(_drop_empty(table), s.workspace, s.rack), said

    def _take(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        n = self._existing(command.source)
        table = list(s.table)
        table[n] = self._without(table[n], command.tiles, n)
        workspace = (*s.workspace, *command.tiles)
        said = f"took {format_tiles(command.tiles)} off set {n + 1} into the workspace"
        return Edit(_drop_empty(table), workspace, s.rack), said

    def _split(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        n = self._existing(command.source)
        (cut,) = command.tiles
        shown = s.table[n]
        places = [i for i, t in enumerate(shown) if t == cut]
        if not places:
            raise EditError(f"{cut} is not in set {n + 1} ({format_tiles(shown)})")
        at = places[-1]
        if at == 0:
            raise EditError(f"{cut} starts set {n + 1} ({format_tiles(shown)}): nothing to split off")
        first, second = shown[:at], shown[at:]
        table = [*s.table[:n], first, second, *s.table[n + 1 :]]
        said = f"split set {n + 1} into {format_tiles(first)} and {format_tiles(second)}"
        return Edit(tuple(table), s.workspace, s.rack), said

    def _back(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        want = Counter(command.tiles)
        short = want - Counter(s.workspace)
        if short:
            raise EditError(f"{_names(short)} not in the workspace ({_shown(s.workspace)})")
        not_yours = want - self.laid
        if not_yours:
            raise EditError(
                f"{_names(not_yours)} did not come from your rack this turn: table tiles stay on the table"
            )
        workspace = _remove(s.workspace, want)
        rack = tuple(sorted((*s.rack, *command.tiles)))
        return Edit(s.table, workspace, rack), f"put {format_tiles(command.tiles)} back on your rack"

    def _existing(self, n: int | None) -> int:
        count = len(self.state.table)
        if n is None or not 0 <= n < count:
            shown = "the table is empty" if not count else f"sets are numbered 1 to {count}"
            raise EditError(f"there is no set {(n or 0) + 1}: {shown}")
        return n

    def _without(self, shown: tuple[Tile, ...], tiles: Sequence[Tile], n: int) -> tuple[Tile, ...]:
        want = Counter(tiles)
        short = want - Counter(shown)
        if short:
            raise EditError(f"{_names(short)} not in set {n + 1} ({format_tiles(shown)})")
        return display_order(_remove(shown, want), self.rules)

    def _from_hand(self, tiles: Sequence[Tile]) -> tuple[tuple[Tile, ...], tuple[Tile, ...], Counter[Tile]]:
        """Take tiles from the workspace first, the rest from the rack; both what is left."""
        want = Counter(tiles)
        loose = want & Counter(self.state.workspace)
        from_rack = want - loose
        short = from_rack - Counter(self.state.rack)
        if short:
            where = "on your rack or in the workspace" if self.state.workspace else "on your rack"
            raise EditError(f"{_names(short)} not {where} (rack: {_shown(self.state.rack)})")
        return _remove(self.state.workspace, loose), _remove(self.state.rack, from_rack), from_rack

    # -------------------------------------------------------------- ending the turn

    def problems(self) -> list[str]:
        """Everything that stops the turn from ending now (empty: ``done`` will be accepted)."""
        s = self.state
        out: list[str] = []
        if s.workspace:
            laid = Counter(s.workspace) & self.laid
            extra = " (or put your own back with 'back')" if laid else ""
            out.append(
                f"the workspace still holds {format_tiles(s.workspace)}: place every tile in a set{extra}"
            )
        for i, tiles in enumerate(s.table, 1):
            reason = why_invalid(tiles, self.rules)
            if reason is not None:
                out.append(f"set {i} ({format_tiles(tiles)}) is not valid: {reason}")
        if not self.laid:
            out.append("no tile from your rack is on the table: lay at least one, or draw")
        if not out:
            # The independent validator has the last word (initial meld, tiles that left the table).
            out += [v.message for v in validate(self.position, s.table)]
        return out

    def finish(self) -> Sets:
        """The table to play; EditError lists every problem if the turn cannot end yet."""
        problems = self.problems()
        if problems:
            raise EditError("the turn cannot end yet: " + "; ".join(problems))
        return self.state.table

    def valid_sets(self) -> Sets:
        """The sets that are valid right now (what stays on the table under the 60-second rule)."""
        return tuple(s for s in self.state.table if why_invalid(s, self.rules) is None)


def _drop_empty(table: Sequence[tuple[Tile, ...]]) -> Sets:
    return tuple(s for s in table if s)


def _remove(tiles: Sequence[Tile], gone: Counter[Tile]) -> tuple[Tile, ...]:
    left = gone.copy()
    out = []
    for t in tiles:
        if left[t] > 0:
            left[t] -= 1
        else:
            out.append(t)
    return tuple(out)


def _names(tiles: Counter[Tile]) -> str:
    return format_tiles(sorted(tiles.elements()))


def _shown(tiles: Sequence[Tile]) -> str:
    return format_tiles(tiles) if tiles else "empty"


# ---------------------------------------------------------------- the turn timer


@dataclass(frozen=True)
class TimerRule:
    """What happens when the turn's time runs out (RULES.md, "Time limits")."""

    seconds: int
    penalty_tiles: int
    take_back: bool  # True: broken sets go back onto the rack; False: the table is restored

    def describe(self) -> str:
        if self.take_back:
            return (
                f"{self.seconds} s a turn; out of time, the sets left broken go back onto your rack"
                f" and you draw {self.penalty_tiles} penalty tiles"
            )
        return (
            f"{self.seconds} s a turn; out of time, the table is restored and you draw"
            f" {self.penalty_tiles} penalty tile"
        )


# The club sheet's 40 seconds and the one-minute rule of another text.
TIMER_RULES = {40: TimerRule(40, 1, False), 60: TimerRule(60, 3, True)}


class TurnTimer:
    """Seconds since the turn started, against the rule's limit (the clock is injectable for tests)."""

    def __init__(self, rule: TimerRule, clock: Callable[[], float] = time.monotonic) -> None:
        self.rule = rule
        self.clock = clock
        self.started = clock()

    def restart(self) -> None:
        self.started = self.clock()

    def left(self) -> float:
        return self.rule.seconds - (self.clock() - self.started)

    def expired(self) -> bool:
        return self.left() <= 0


def time_out(game: Game, editor: TurnEditor, rule: TimerRule) -> TurnRecord:
    """End the turn by the timer's penalty rule."""
    if rule.take_back:
        # Only the valid sets stay; tiles of the broken ones (and the workspace) go to the rack.
        return game.penalty(rule.penalty_tiles, [list(s) for s in editor.valid_sets()])
    return game.penalty(rule.penalty_tiles)
