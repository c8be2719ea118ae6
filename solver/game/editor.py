"""One turn in progress, edited by a person: the table being rearranged, with undo.

:class:`TurnEditor` owns one turn: the table as the player is rearranging it (sets may be invalid
until the turn ends), a *workspace* of table tiles taken off their sets and not yet placed, and
the rack. Every manipulation (a :class:`Command`) makes a new immutable :class:`Edit` snapshot;
``undo`` and ``redo`` walk the snapshots, ``reset`` goes back to the turn's start (itself
undoable). :meth:`TurnEditor.finish` gives the table to play, or raises :class:`EditError` saying
precisely what is still wrong. The turn timer and its penalty rules live here too. Nothing here
prints or parses text: a front-end turns what the person does into commands.

Manipulations (set numbers from 0 here; the messages count them as the front-end's ``Wording`` says: from
1 on a terminal, from 0 for the web API, whose requests count from 0):

- ``lay TILES``: a new set; each tile comes from the workspace if it is there, else from the rack
  (the command's ``from_rack`` tiles from the rack whatever lies loose: a board knows which copy
  was picked);
- ``add N TILES``: tiles (workspace first, then rack, as ``lay``) onto set N, where they fit or
  at the places given (under strict and locked jokers a joker's place says what it stands for);
- ``move N TILES M``: table tiles from set N to set M (``None``: into a new set);
- ``take N TILES``: tiles off set N into the workspace;
- ``split N TILE``: cut set N in two, the second part starting at TILE (as shown; with two
  copies of TILE, at the second); the first part stays set N, the second is a new set at the end;
- ``back TILES``: rack tiles laid this turn, from the workspace back to the rack.

Set numbers never shift during a turn: new sets go at the end and an emptied set leaves its
number unused. Tiles are tracked by where they came from, not by face (see :class:`Edit`).
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Any

from solver.errors import RummikubError
from solver.game.engine import Game, TurnRecord
from solver.jokers import keeps_places
from solver.melds import preferred, readings, why_invalid
from solver.position import Position
from solver.rules import JokerRules, RuleSet, Wrap
from solver.tiles import JOKER, Tile, format_tiles, table_as_lists
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
    at: int | None = None  # split: the tile's place in the set as shown (two copies told apart)
    level: int = 1  # hint
    from_rack: tuple[Tile, ...] = ()  # lay, add: tiles of ``tiles`` that come from the rack (a copy may lie loose)
    own_loose: tuple[Tile, ...] = ()  # lay, add: tiles of ``tiles`` that are your own loose ones, not the table's
    places: tuple[int, ...] = ()  # take, move: each tile's place in the set as shown (which copy); add: where it goes


# ---------------------------------------------------------------- the turn in progress


@dataclass(frozen=True)
class Edit:
    """One state of the turn: the table being edited, loose table tiles, the rack.

    Sets keep their places for the whole turn: a new set (laid, moved to ``new``, the second part
    of a split) goes at the end, and a set emptied stays as an empty place, shown as nothing, so
    that no number shifts under the player. Every tile carries where it came from: ``own`` (per
    table tile) and ``own_loose`` (per workspace tile) are True for a tile laid from the rack this
    turn, so that the tile actually laid is the one shown as laid, whatever copies lie elsewhere.
    """

    table: Sets
    workspace: tuple[Tile, ...]
    rack: tuple[Tile, ...]
    own: tuple[tuple[bool, ...], ...]
    own_loose: tuple[bool, ...]
    said: str = ""  # what made this state (undo and redo say it again)


Pieces = list[tuple[Tile, bool]]  # tiles with their "laid from the rack this turn" flags


def display_order(tiles: Sequence[Tile], rules: RuleSet, table_joker: bool = False) -> tuple[Tile, ...]:
    """A set as shown: in natural order when it is valid, sorted while it is not. Under strict
    and locked jokers what a joker stands for is read from its place, and the table is kept as
    the player wrote it: a reading that leaves each joker at its place in the given order
    (``jokers.keeps_places``) comes first; and a set holding a joker from the table
    (``table_joker``) that no reading keeps in place stays as it lies (``J R3``, split off
    ``J R3 R4 R5``, grows into ``J R3 R4``, not ``R3 R4 J``; ``J R5 R6 R7 R9`` less R8 keeps its J
    where the R4 was), while a set laid from the rack alone is shown in natural order."""
    options = readings(tiles, rules)
    if rules.joker_rules is not JokerRules.FREE and JOKER in tiles:
        kept = [r for r in options if keeps_places(r, tiles)]
        if table_joker and any(r.tiles == tuple(tiles) for r in kept):
            return tuple(tiles)  # J J K9 moved off K5 K6 J J K9 stays a run (not the group K9 J J)
        if kept:
            return preferred(kept).tiles
        if table_joker:
            return tuple(tiles)
    return preferred(options).tiles if options else tuple(sorted(tiles))


def _arranged(pieces: Pieces, rules: RuleSet) -> tuple[tuple[Tile, ...], tuple[bool, ...]]:
    """A set of pieces in display order, each tile keeping its flag (copies of one tile in one set
    are interchangeable: the laid ones are shown first)."""
    table_joker = any(t.is_joker and not own for t, own in pieces)
    tiles = display_order([t for t, _ in pieces], rules, table_joker)
    if tiles == tuple(t for t, _ in pieces):  # as they lie: each copy keeps its own flag (a strict
        return tiles, tuple(own for _, own in pieces)  # joker's place says which joker it is)
    mine = Counter(t for t, own in pieces if own)
    flags = []
    for t in tiles:
        flags.append(mine[t] > 0)
        mine[t] -= 1
    return tiles, tuple(flags)


def _joined(pieces: Pieces, coming: Pieces, rules: RuleSet, placing: bool = False) -> Pieces:
    """Tiles joining a set, at the end where they belong: before it when their numbers lead up to
    its own (``J O4`` moved onto ``O5 O6 O7`` goes in front, its joker still the O3 under strict
    jokers), else after it (``K1`` after ``K11 K12 J`` under american wrap). ``placing``: tiles
    added from the hand, a joker among them put where it stands for a tile of the set (a move
    keeps the order the tiles had: the steps' commands rely on it)."""
    theirs = [t.number for t, _ in coming if not t.is_joker]
    ours = [t.number for t, _ in pieces if not t.is_joker]
    first = False
    if theirs and ours and max(theirs) < min(ours):
        before = min(ours) - max(theirs)  # numbers from the last of theirs up to the first of ours
        after = rules.numbers - max(ours) + min(theirs) if rules.wrap is not Wrap.NONE else rules.numbers + 1
        first = before <= after
    joined = [*coming, *pieces] if first else [*pieces, *coming]
    if not placing or rules.joker_rules is JokerRules.FREE or not any(t.is_joker for t, _ in (*pieces, *coming)):
        return joined
    if _keeps(joined, rules):
        return joined
    # Under strict and locked jokers a joker's place says what it stands for: tiles added go where
    # they keep every joker's place — ``add 4 B6 B9`` to ``B7 J`` makes ``B6 B7 J B9`` (the J still
    # the B8), ``add 1 R12 J`` to ``R9 R10`` makes ``R9 R10 J R12``; the set's own jokers stay put.
    jokers = [p for p in coming if p[0].is_joker]
    numbered = [p for p in coming if not p[0].is_joker]
    bases = [[*numbered, *pieces] if first else [*pieces, *numbered]]
    if ours and rules.wrap is Wrap.NONE:
        below = sorted((p for p in numbered if p[0].number < min(ours)), key=lambda p: p[0].number)
        above = sorted((p for p in numbered if p[0].number >= min(ours)), key=lambda p: p[0].number)
        bases.append([*below, *pieces, *above])
    for base in bases:
        for at in _places(len(base), len(jokers)):
            candidate = list(base)
            for k, i in enumerate(at):
                candidate.insert(i + k, jokers[k])
            if _keeps(candidate, rules):
                return candidate
    return joined


def _keeps(pieces: Pieces, rules: RuleSet) -> bool:
    """Whether some reading of the set leaves each joker at its place as the pieces lie."""
    tiles = [t for t, _ in pieces]
    return any(keeps_places(r, tiles) for r in readings(tiles, rules))


def _places(length: int, jokers: int) -> Iterator[tuple[int, ...]]:
    """Where ``jokers`` may go among ``length`` pieces, in order: each place an index into the
    pieces without them. Three or more are not tried (their places grow as a power)."""
    return combinations_with_replacement(range(length + 1), jokers) if jokers <= 2 else iter(())


def _pick(pieces: Pieces, want: Counter[Tile], own_first: bool) -> tuple[Pieces, Pieces]:
    """The wanted tiles taken out of ``pieces`` (laid ones first, or table ones first), and the rest."""
    left = want.copy()
    order = sorted(range(len(pieces)), key=lambda i: pieces[i][1] != own_first)
    taken_at = set()
    for i in order:
        t = pieces[i][0]
        if left[t] > 0:
            left[t] -= 1
            taken_at.add(i)
    taken = [p for i, p in enumerate(pieces) if i in taken_at]
    return taken, [p for i, p in enumerate(pieces) if i not in taken_at]


@dataclass(frozen=True)
class Wording:
    """How the editor's messages name what the player sees: set numbers counted from ``first``
    (a terminal counts from 1; the web API, whose requests count from 0, from 0), and the table
    tiles taken off and not placed yet (``loose_left``, with ``put_back``: how a player takes their
    own tiles back)."""

    first: int = 1
    loose_left: str = "the workspace still holds {tiles}: place every tile in a set{back}"
    put_back: str = " (or put your own back with 'back')"


TERMINAL = Wording()


@dataclass
class TurnEditor:
    """The undo stack of one turn: ``states[index]`` is the current state."""

    position: Position  # the turn's start: rack, table, opened, rules
    states: list[Edit] = field(default_factory=list)
    index: int = 0
    wording: Wording = TERMINAL

    def _set(self, n: int) -> str:
        """Set ``n`` (from 0) as the messages name it."""
        return f"set {n + self.wording.first}"

    def __post_init__(self) -> None:
        if not self.states:
            self.states = [self.start]

    @property
    def start(self) -> Edit:
        p = self.position
        if p.rules.joker_rules is JokerRules.FREE:
            table = tuple(display_order(s, p.rules) for s in p.table)
        else:  # as written: the written order says what each table joker stands for
            table = tuple(tuple(s) for s in p.table)
        return Edit(table, (), p.rack, tuple((False,) * len(s) for s in table), ())

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
        return _layout(self.state) != _layout(self.start)

    def numbered(self) -> list[tuple[int, tuple[tuple[Tile, bool], ...]]]:
        """The sets as shown, numbered from 1 (an emptied place keeps its number and is left out),
        each tile with its flag: laid from the rack this turn."""
        s = self.state
        return [(i, tuple(zip(tiles, own))) for i, (tiles, own) in enumerate(zip(s.table, s.own), 1) if tiles]

    def can_undo(self) -> bool:
        return self.index > 0

    def can_redo(self) -> bool:
        return self.index < len(self.states) - 1

    # -------------------------------------------------------------- undo stack

    def undo(self) -> str:
        """Step back; returns what was undone."""
        if not self.can_undo():
            raise EditError("nothing to undo")
        said = self.state.said
        self.index -= 1
        return f"undone: {said}"

    def redo(self) -> str:
        """Step forward again; returns what was redone."""
        if not self.can_redo():
            raise EditError("nothing to redo")
        self.index += 1
        return f"redone: {self.state.said}"

    def reset(self) -> str:
        if not self.changed:
            raise EditError("nothing to reset: the table and rack are as at the start of the turn")
        said = "reset: the table and rack as at the start of the turn"
        self._push(dataclasses.replace(self.start, said=said))
        return said

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
        self._push(dataclasses.replace(state, said=said))
        return said

    def apply_all(self, commands: Sequence[Command]) -> list[str]:
        """Several manipulations as one step (one undo goes back to before the first); if one of
        them cannot be carried out, none is, and EditError says why."""
        if not commands:
            raise EditError("no manipulation given")
        index, states = self.index, list(self.states)
        try:
            said = [self.apply(command) for command in commands]
        except EditError:
            self.index, self.states = index, states
            raise
        final = dataclasses.replace(self.state, said="; ".join(said))
        del self.states[index + 1 :]
        self.states.append(final)
        self.index = index + 1
        return said

    # -------------------------------------------------------------- kept between requests

    def to_dict(self) -> dict[str, Any]:
        """The undo stack in JSON (tiles in the notation), so that a turn in progress can be kept."""
        return {
            "index": self.index,
            "states": [
                {
                    "table": table_as_lists(state.table),
                    "own": [list(flags) for flags in state.own],
                    "workspace": [str(t) for t in state.workspace],
                    "own_loose": list(state.own_loose),
                    "rack": [str(t) for t in state.rack],
                    "said": state.said,
                }
                for state in self.states
            ],
        }

    @classmethod
    def from_dict(cls, position: Position, data: Any, wording: Wording = TERMINAL) -> TurnEditor:
        """A turn in progress as :meth:`to_dict` kept it, for the turn that starts at ``position``;
        EditError when the data is not such a turn (each state must hold the turn's tiles)."""
        rules = position.rules
        whole = Counter(position.rack) + position.table_tiles

        def flags(raw: Any) -> tuple[bool, ...]:
            if not isinstance(raw, list) or not all(isinstance(f, bool) for f in raw):
                raise ValueError("flags must be lists of true/false")
            return tuple(raw)

        try:
            index, raw = data["index"], data["states"]
            states = [
                Edit(
                    tuple(tuple(Tile.parse(t, rules) for t in s) for s in state["table"]),
                    tuple(Tile.parse(t, rules) for t in state["workspace"]),
                    tuple(Tile.parse(t, rules) for t in state["rack"]),
                    tuple(flags(f) for f in state["own"]),
                    flags(state["own_loose"]),
                    str(state["said"]),
                )
                for state in raw
            ]
        except (KeyError, TypeError, ValueError, RummikubError) as err:
            raise EditError(f"not a kept turn: {err}") from None
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(states):
            raise EditError(f"not a kept turn: index {index!r} for {len(states)} states")
        for state in states:
            held = Counter(t for s in state.table for t in s) + Counter(state.workspace) + Counter(state.rack)
            shapes = [len(s) for s in state.table] == [len(f) for f in state.own]
            if held != whole or not shapes or len(state.own_loose) != len(state.workspace):
                raise EditError("not a kept turn: a state does not hold the turn's tiles")
        if _layout(states[0]) != _layout(cls(position).start):
            raise EditError("not a kept turn: it starts from another table or rack")
        return cls(position, states, index, wording)

    def _sets(self) -> list[Pieces]:
        s = self.state
        return [list(zip(tiles, own)) for tiles, own in zip(s.table, s.own)]

    def _edit(self, sets: Sequence[Pieces], loose: Pieces, rack: tuple[Tile, ...]) -> Edit:
        arranged = [_arranged(p, self.rules) for p in sets]
        return Edit(
            tuple(t for t, _ in arranged),
            tuple(t for t, _ in loose),
            rack,
            tuple(f for _, f in arranged),
            tuple(own for _, own in loose),
        )

    def _lay(self, command: Command) -> tuple[Edit, str]:
        loose, rack, pieces = self._from_hand(command.tiles, command.from_rack, command.own_loose)
        sets = [*self._sets(), pieces]
        state = self._edit(sets, loose, rack)
        return state, f"laid {format_tiles(state.table[-1])} as {self._set(len(sets) - 1)}"

    def _add(self, command: Command) -> tuple[Edit, str]:
        n = self._existing(command.source)
        loose, rack, pieces = self._from_hand(command.tiles, command.from_rack, command.own_loose)
        sets = self._sets()
        if command.places:
            sets[n] = self._placed(sets[n], pieces, command.tiles, command.places)
        else:
            sets[n] = _joined(sets[n], pieces, self.rules, placing=True)
        state = self._edit(sets, loose, rack)
        return state, f"added {format_tiles(command.tiles)} to {self._set(n)}: {format_tiles(state.table[n])}"

    def _move(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        n = self._existing(command.source)
        sets = self._sets()
        moving, sets[n] = self._off(sets[n], command.tiles, n, command.places)
        if command.target is None:
            sets.append(moving)
            said = f"moved {format_tiles(command.tiles)} from {self._set(n)} to a new {self._set(len(sets) - 1)}"
        else:
            m = self._existing(command.target)
            if m == n:
                raise EditError(f"{self._set(n)} is both where the tiles come from and where they go")
            sets[m] = _joined(sets[m], moving, self.rules)
            said = f"moved {format_tiles(command.tiles)} from {self._set(n)} to {self._set(m)}"
        return self._edit(sets, list(zip(s.workspace, s.own_loose)), s.rack), said

    def _take(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        n = self._existing(command.source)
        sets = self._sets()
        taken, sets[n] = self._off(sets[n], command.tiles, n, command.places)
        loose = [*zip(s.workspace, s.own_loose), *taken]
        said = f"took {format_tiles(command.tiles)} off {self._set(n)} into the workspace"
        return self._edit(sets, loose, s.rack), said

    def _split(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        n = self._existing(command.source)
        (cut,) = command.tiles
        shown = s.table[n]
        places = [i for i, t in enumerate(shown) if t == cut]
        if not places:
            raise EditError(f"{cut} is not in {self._set(n)} ({format_tiles(shown)})")
        if command.at is not None and command.at not in places:
            raise EditError(f"{cut} is not at place {command.at + self.wording.first} of {self._set(n)} ({format_tiles(shown)})")
        at = places[-1] if command.at is None else command.at
        if at == 0:
            raise EditError(f"{cut} starts {self._set(n)} ({format_tiles(shown)}): nothing to split off")
        sets = self._sets()
        # The first part keeps the set's number; the second goes at the end, as a new set does.
        first, second = sets[n][:at], sets[n][at:]
        sets[n] = first
        sets.append(second)
        state = self._edit(sets, list(zip(s.workspace, s.own_loose)), s.rack)
        said = (
            f"split {self._set(n)}: {format_tiles(state.table[n])} stays {self._set(n)},"
            f" {format_tiles(state.table[-1])} is {self._set(len(sets) - 1)}"
        )
        return state, said

    def _back(self, command: Command) -> tuple[Edit, str]:
        s = self.state
        want = Counter(command.tiles)
        loose = list(zip(s.workspace, s.own_loose))
        short = want - Counter(s.workspace)
        if short:
            raise EditError(f"{_names(short)} not in the workspace ({_shown(s.workspace)})")
        not_yours = want - Counter(t for t, own in loose if own)
        if not_yours:
            raise EditError(
                f"{_names(not_yours)} did not come from your rack this turn: table tiles stay on the table"
            )
        _, left = _pick(loose, want, own_first=True)
        rack = tuple(sorted((*s.rack, *command.tiles)))
        return self._edit(self._sets(), left, rack), f"put {format_tiles(command.tiles)} back on your rack"

    def _existing(self, n: int | None) -> int:
        table = self.state.table
        count = len(table)
        if n is None or not 0 <= n < count:
            first = self.wording.first
            shown = "the table is empty" if not any(table) else f"sets are numbered {first} to {count - 1 + first}"
            raise EditError(f"there is no {self._set(n or 0)}: {shown}")
        if not table[n]:
            raise EditError(f"{self._set(n)} is empty now: its tiles were moved this turn (lay a new set instead)")
        return n

    def _placed(self, pieces: Pieces, coming: Pieces, tiles: Sequence[Tile], places: Sequence[int]) -> Pieces:
        """Set ``pieces`` with ``coming`` added, tile ``tiles[i]`` at place ``places[i]`` of the set
        it makes (under strict and locked jokers a joker's place says what it stands for)."""
        size = len(pieces) + len(coming)
        if len(places) != len(tiles) or len(set(places)) != len(places):
            raise EditError(f"give one place per tile: {format_tiles(tiles)} at {', '.join(map(str, places))}")
        if not all(0 <= at < size for at in places):
            first = self.wording.first
            raise EditError(f"a place in the set is one of {first} to {size - 1 + first}: the set will hold {size} tiles")
        waiting = list(coming)
        out: list[tuple[Tile, bool] | None] = [None] * size
        for t, at in zip(tiles, places):
            piece = next(p for p in waiting if p[0] == t)
            waiting.remove(piece)
            out[at] = piece
        rest = iter(pieces)
        return [p if p is not None else next(rest) for p in out]

    def _off(self, pieces: Pieces, tiles: Sequence[Tile], n: int, places: Sequence[int] = ()) -> tuple[Pieces, Pieces]:
        """Tiles taken off set ``n`` (those at ``places``, as shown; else tiles laid this turn
        first), and what is left of it."""
        if places:
            shown = format_tiles(self.state.table[n])
            if len(places) != len(tiles) or len(set(places)) != len(places):
                raise EditError(f"give one place per tile: {format_tiles(tiles)} at {', '.join(map(str, places))}")
            for t, at in zip(tiles, places):
                if not 0 <= at < len(pieces) or pieces[at][0] != t:
                    first = self.wording.first
                    raise EditError(f"{t} is not at place {at + first} of {self._set(n)} ({shown})")
            chosen = set(places)
            return [pieces[i] for i in sorted(chosen)], [p for i, p in enumerate(pieces) if i not in chosen]
        want = Counter(tiles)
        here = Counter(t for t, _ in pieces)
        short = want - here
        if short:
            shown = format_tiles(self.state.table[n])
            raise EditError(f"{_lacking(short, here, f'in {self._set(n)}')} ({shown})")
        return _pick(pieces, want, own_first=True)

    def _from_hand(
        self, tiles: Sequence[Tile], rack_ones: Sequence[Tile] = (), own_ones: Sequence[Tile] = ()
    ) -> tuple[Pieces, tuple[Tile, ...], Pieces]:
        """Take tiles from the workspace first (table tiles before your own, ``own_ones`` your
        own), the rest from the rack, ``rack_ones`` from the rack in any case; returns what is
        left loose, the rack left, and the pieces taken."""
        s = self.state
        want = Counter(tiles)
        if Counter(rack_ones) + Counter(own_ones) - want:
            named = format_tiles([*rack_ones, *own_ones])
            raise EditError(f"{named} from the rack or your own: not among the tiles {format_tiles(tiles)}")
        short = Counter(rack_ones) - Counter(s.rack)
        if short:
            raise EditError(f"{_lacking(short, Counter(s.rack), 'on your rack')} (rack: {_shown(s.rack)})")
        loose = list(zip(s.workspace, s.own_loose))
        own_loose = Counter(t for t, own in loose if own)
        short = Counter(own_ones) - own_loose
        if short:
            raise EditError(f"{_lacking(short, own_loose, 'of your own in the workspace')}")
        from_loose = (want - Counter(rack_ones)) & Counter(s.workspace)
        from_rack = want - from_loose
        short = from_rack - Counter(s.rack)
        if short:
            where = "on your rack or in the workspace" if s.workspace else "on your rack"
            have = Counter(s.rack) + Counter(s.workspace)
            raise EditError(f"{_lacking(short, have, where)} (rack: {_shown(s.rack)})")
        mine, left = _pick(loose, Counter(own_ones), own_first=True)
        theirs, left = _pick(left, from_loose - Counter(own_ones), own_first=False)
        pool = [*mine, *theirs, *((t, True) for t in from_rack.elements())]
        pieces = []
        for t in tiles:  # in the order given, copies too (J R2 J): a joker's place may matter
            piece = next(p for p in pool if p[0] == t)
            pool.remove(piece)
            pieces.append(piece)
        return left, _remove(s.rack, from_rack), pieces

    # -------------------------------------------------------------- ending the turn

    def problems(self) -> list[str]:
        """Everything that stops the turn from ending now (empty: ``done`` will be accepted)."""
        return [message for message, _ in self.marked_problems()]

    def marked_problems(self) -> list[tuple[str, tuple[int, ...]]]:
        """The problems, each with the sets of the table it is about (indices from 0, as the
        sets are numbered during the turn), so that a picture can mark them: an invalid set is
        itself; the validator's other violations are about the sets holding their tiles; a loose
        workspace or no tile laid is about no set."""
        s = self.state
        out: list[tuple[str, tuple[int, ...]]] = []
        if s.workspace:
            back = self.wording.put_back if any(s.own_loose) else ""
            out.append((self.wording.loose_left.format(tiles=format_tiles(s.workspace), back=back), ()))
        for i, tiles in enumerate(s.table):
            reason = why_invalid(tiles, self.rules) if tiles else None
            if reason is not None:
                out.append((f"{self._set(i)} ({format_tiles(tiles)}) is not valid: {reason}", (i,)))
        if not self.laid:
            out.append(("no tile from your rack is on the table: lay at least one, or draw", ()))
        # The independent validator has the last word (initial meld, tiles that left the table),
        # every problem at once but those said above in the editor's own words.
        said = {"invalid_set"} | ({"table_tile_missing"} if s.workspace else set())
        said |= set() if self.laid else {"no_tile_played"}
        table = self.table()
        shown = [i for i, tiles in enumerate(s.table) if tiles]  # table() leaves out emptied sets
        for v in validate(self.position, table, as_written=not out):
            if v.code not in said:
                named = set(v.tiles)
                about = [shown[k] for k in v.sets] or [i for i, tiles in enumerate(s.table) if named & set(tiles)]
                out.append((v.message, tuple(about)))
        return out

    def table(self) -> Sets:
        """The table as it stands, in order, without the places emptied this turn."""
        return tuple(s for s in self.state.table if s)

    def finish(self) -> Sets:
        """The table to play; EditError lists every problem if the turn cannot end yet."""
        problems = self.problems()
        if problems:
            raise EditError("the turn cannot end yet: " + "; ".join(problems))
        return self.table()

    def valid_sets(self) -> Sets:
        """The sets that are valid right now (what stays on the table under the 60-second rule)."""
        return tuple(s for s in self.table() if why_invalid(s, self.rules) is None)


def _layout(state: Edit) -> tuple[Sets, tuple[Tile, ...], tuple[Tile, ...]]:
    """What a state looks like, whatever made it."""
    return tuple(s for s in state.table if s), tuple(sorted(state.workspace)), state.rack


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


def _lacking(short: Counter[Tile], have: Counter[Tile], where: str) -> str:
    """What is missing ``where``: tiles not there at all, and tiles asked for more often than
    there ("only 1 R3 on your rack", not "R3 not on your rack" beside a rack showing R3)."""
    said = []
    gone = Counter({t: n for t, n in short.items() if not have[t]})
    if gone:
        said.append(f"{_names(gone)} not {where}")
    said += [f"only {have[t]} {t} {where}" for t in sorted(short) if have[t]]
    return "; ".join(said)


def _shown(tiles: Sequence[Tile]) -> str:
    return format_tiles(tiles) if tiles else "empty"


# ---------------------------------------------------------------- the turn timer


@dataclass(frozen=True)
class TimerRule:
    """What happens when the turn's time runs out (docs/rules.md, "Time limits")."""

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


def time_out_text(record: TurnRecord, rule: TimerRule) -> str:
    """What the timer did to the turn, to the one whose turn it was: which table tiles came onto
    their rack (the one-minute rule takes back broken sets, with other players' tiles in them)."""
    drawn = format_tiles(record.penalty) or "nothing (the pool is empty)"
    if not rule.take_back or not record.opened:  # a player who had not opened never touched the table
        return f"Time is up: the table restored; penalty: {drawn}."
    before = Counter(t for s in record.table for t in s)
    back = before - Counter(t for s in record.table_after for t in s)
    if back:
        kept = f"the broken sets taken back ({format_tiles(sorted(back.elements()))} from the table onto your rack)"
    else:
        kept = "your valid sets stay" if record.played else "nothing was left broken"
    return f"Time is up: {kept}; penalty: {drawn}."
