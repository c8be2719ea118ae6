"""A plan's steps as the commands a person types into the turn editor (a level-3 hint in play).

:func:`commands_for` turns each step of ``solver.steps`` into editor commands (lay, add, move,
take, split, with a tile's place where it matters) and checks them by carrying them out on an
editor of the position: they must end with every set valid and the new table. Under strict and
locked jokers a joker's place in a set says what it stands for, so the commands also put each
joker where the answer writes it.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from solver.game.editor import Command, EditError, TurnEditor
from solver.jokers import keeps_places, table_readings
from solver.melds import Kind, readings
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.steps import NEW, Plan, Step, tiles_named
from solver.tiles import JOKER, Tile, format_tiles


def commands_for(
    position: Position, plan: Plan, after: Sequence[Sequence[Tile]]
) -> tuple[Command, ...] | None:
    """The steps of ``plan`` as manipulations a person can type, from the start of the turn.

    Checked by carrying them out on an editor of ``position``: they must end with every set valid
    and the table ``after`` (as sets of tiles); None when some step has no command that does it.
    """
    editor = TurnEditor(position)
    out: list[Command] = []
    try:
        for step in plan.steps:
            for command in _step_commands(editor, step, after):
                editor.apply(command)
                out.append(command)
        for command in _jokers_put_right(editor, after):
            editor.apply(command)
            out.append(command)
    except (EditError, LookupError, ValueError):
        return None
    if editor.problems() or Counter(map(_key, editor.table())) != Counter(map(_key, after)):
        return None
    merged: list[Command] = []
    for command in out:  # tiles taken off one set one after another: one command (but places
        last = merged[-1] if merged else None  # are as the set is shown before each take)
        alike = last is not None and command.name == last.name == "take" and command.source == last.source
        if last is not None and alike and not (command.places or last.places):
            merged[-1] = dataclasses.replace(last, tiles=(*last.tiles, *command.tiles))
        else:
            merged.append(command)
    return tuple(merged)


def _key(tiles: Sequence[Tile]) -> tuple[Tile, ...]:
    return tuple(sorted(tiles))


def _step_commands(editor: TurnEditor, step: Step, after: Sequence[Sequence[Tile]] = ()) -> list[Command]:
    """One step as commands on the editor's table as it now stands (``after``: the new table as
    written, whose order says where a joker stands)."""
    typist = _Typist(editor, step, after)
    if step.action == "split":
        return typist.split()
    if step.action in ("retrieve", "swap"):
        return typist.swap()
    if step.action in ("take", "move"):
        return typist.to(typist.where(step.source), step.tiles)
    if step.action == "add":
        n = typist.where(step.target)
        return [Command("add", n, step.tiles, places=_added_places(editor, n, step.tiles, after))]
    return [Command("lay", tiles=step.tiles)]


class _Typist:
    """The commands of one step, on the editor's table as it now stands."""

    def __init__(self, editor: TurnEditor, step: Step, after: Sequence[Sequence[Tile]]) -> None:
        self.editor, self.step, self.after, self.rules = editor, step, after, editor.rules

    def where(self, shown: str) -> int:
        """The set the step names, as the editor shows it now."""
        table = self.editor.state.table
        found = [i for i, s in enumerate(table) if s and format_tiles(s) == shown]
        if not found:  # a set passing through a state no set is in (K2 J K5, named K2 K5 J): its tiles
            named = Counter(tiles_named(shown, self.rules))
            found = [i for i, s in enumerate(table) if s and Counter(s) == named]
        if not found:
            raise LookupError(shown)
        return found[0]

    def to(self, source: int, moving: tuple[Tile, ...], lender: int | None = None, places: tuple[int, ...] = ()) -> list[Command]:
        """``moving`` from set ``source`` to where the step sends them."""
        step, table = self.step, self.editor.state.table
        if step.target.startswith(NEW):  # put aside in the workspace until that set is laid
            return [Command("take", source, moving, places=places)]
        target = Counter(tiles_named(step.target, self.rules))
        lent = lender is not None and Counter(table[lender]) - Counter(step.tiles[:1]) == target
        n = lender if lender is not None and lent else self.where(step.target)  # the set that lent the tile, as it is then
        if _joker_in_front(table[n], moving, self.after):
            # A lone joker joins at the end; here it stands before the set (J B4 J B6, the B3): it
            # goes to a set of its own and the set's tiles join it, behind it.
            return [Command("move", source, moving, None, places=places), Command("move", n, table[n], len(table))]
        return [Command("move", source, moving, n, places=places)]

    def split(self) -> list[Command]:
        """Cuts of the run as it lies, else its parts moved out whole."""
        editor = self.editor
        n = self.where(self.step.source)
        parts = [tiles_named(part, self.rules) for part in self.step.target.split(" | ")]
        whole = [Command("move", n, part, None) for part in parts[1:]]
        if tuple(t for part in parts for t in part) != editor.state.table[n]:
            return whole  # not cuts of the run as it lies (a joker changes places)
        first, cuts = n, []
        trial = copy.deepcopy(editor)  # a part is shown anew, and its joker may move: try the cuts
        try:
            for part in parts[1:]:
                cuts.append(Command("split", n, part[:1]))
                trial.apply(cuts[-1])
                n = len(trial.state.table) - 1  # the rest of the run is the newest set
        except EditError:
            return whole
        made = [trial.state.table[first], *trial.state.table[len(editor.state.table) :]]
        return cuts if Counter(map(_key, made)) == Counter(map(_key, parts)) else whole

    def swap(self) -> list[Command]:
        """A tile put in another's place (a joker's, in a retrieval), which then goes on."""
        editor, step = self.editor, self.step
        new, old = step.tiles
        n = self.where(step.source)
        after_swap = Counter(editor.state.table[n]) + Counter([new]) - Counter([old])
        lender = self.where(step.detail) if step.detail else None
        if lender is not None:
            put = [Command("move", lender, (new,), n)]
        else:
            put = [Command("add", n, (new,), places=_added_places(editor, n, (new,), self.after))]
        if not step.target.startswith(NEW) and Counter(tiles_named(step.target, self.rules)) == after_swap:
            # The joker goes back into the set it left (another copy of its tiles makes that the
            # rules' "another set"): in the editor it simply stays, standing for another tile.
            return put
        instead = _in_place_of(editor, n, new) if old.is_joker and lender is None else None
        if instead is not None:  # the tile goes where the joker stood, then that joker leaves
            add, at = instead
            return [add, *self.to(n, (old,), None, (at,))]
        return [*put, *self.to(n, (old,), lender, _retrieved_place(editor, put, n, new) if old.is_joker else ())]


def _jokers_put_right(editor: TurnEditor, after: Sequence[Sequence[Tile]]) -> list[Command]:
    """Under strict and locked jokers, commands that put the jokers of a set the steps left
    written otherwise than the new table ``after`` where that writes them (taken off and added
    back at their places: ``O4 O5 O6 O7 J O2 O8`` becomes ``O2 J O4 O5 O6 O7 O8``, its joker the
    O3), so that each stands for the tile the answer says, in its place; none where that cannot
    be done."""
    rules = editor.rules
    if rules.joker_rules is JokerRules.FREE:
        return []

    def right(shown: Sequence[Tile], written: Sequence[Tile]) -> bool:  # stands as written does
        placed = _in_their_places(shown, rules) or not _in_their_places(written, rules)
        return placed and _stands(shown, rules) == _stands(written, rules)

    out: list[Command] = []
    for n, shown in enumerate(editor.state.table):
        if JOKER not in shown:
            continue
        wanted = [w for w in after if Counter(w) == Counter(shown)]
        if not wanted or any(right(shown, w) for w in wanted):
            continue
        jokers = [i for i, t in enumerate(shown) if t.is_joker]
        if len(jokers) == len(shown):
            continue
        take = Command("take", n, tuple(JOKER for _ in jokers), places=tuple(jokers))
        trial = copy.deepcopy(editor)
        trial.apply(take)
        add = Command("add", n, take.tiles, places=_added_places(trial, n, take.tiles, after))
        trial.apply(add)
        if any(right(trial.state.table[n], w) for w in wanted):
            out += [take, add]
            editor = trial
    return out


def _in_their_places(written: Sequence[Tile], rules: RuleSet) -> bool:
    """Whether some reading of a set leaves each joker standing where it is written."""
    return any(keeps_places(r, written) for r in readings(written, rules))


def _stands(written: Sequence[Tile], rules: RuleSet) -> frozenset[tuple[Kind, tuple[Tile, ...]]]:
    """What a table set as written stands for (its readings' tiles)."""
    return frozenset((r.kind, r.stands_for) for r in table_readings(written, rules))


def _added_places(editor: TurnEditor, n: int, tiles: tuple[Tile, ...], after: Sequence[Sequence[Tile]]) -> tuple[int, ...]:
    """Where tiles added to set ``n`` go so that its jokers stand for what they do in the new
    table ``after`` as written (strict and locked jokers: a J added to ``K3 J K5`` goes at the
    end, the K6, where the answer's ``J K3 J K5`` has it the K2). () where the editor's own
    placing does that, or no placing of the tiles around the set as it lies can."""
    rules = editor.rules
    pieces = editor.state.table[n]
    if rules.joker_rules is JokerRules.FREE or JOKER not in (*pieces, *tiles):
        return ()

    def added(places: tuple[int, ...] = ()) -> tuple[Tile, ...]:
        trial = copy.deepcopy(editor)
        trial.apply(Command("add", n, tiles, places=places))
        return trial.state.table[n]

    plain = added()
    wanted = [w for w in after if Counter(w) == Counter(plain)]
    if not wanted or any(_stands(w, rules) == _stands(plain, rules) for w in wanted):
        return ()
    for written in wanted:
        for at in combinations(range(len(written)), len(tiles)):
            if tuple(t for i, t in enumerate(written) if i not in at) != pieces:
                continue
            free = {i: written[i] for i in at}
            places = []
            for t in tiles:
                place = next((i for i, u in free.items() if u == t), None)
                if place is None:
                    break
                places.append(place)
                del free[place]
            if len(places) == len(tiles) and _stands(added(tuple(places)), rules) == _stands(written, rules):
                return tuple(places)
    return ()


def _in_place_of(editor: TurnEditor, n: int, tile: Tile) -> tuple[Command, int] | None:
    """Under strict and locked jokers, ``tile`` from the rack put where the joker of run ``n`` it
    retrieves stands (in ``O6 J J``, full wrap, O1 goes first: ``O6 O1 J J``), and that joker's
    place once it is there, so that the run's other jokers go on standing for what they did. None
    under free jokers, in a group (its jokers have no places) or when it cannot be told."""
    rules = editor.rules
    shown = editor.state.table[n]
    if rules.joker_rules is JokerRules.FREE:
        return None
    before = {r.stands_for for r in table_readings(shown, rules) if r.kind is Kind.RUN and tile in r.stands_for}

    def stays(written: Sequence[Tile]) -> bool:  # read as the run it was, each joker in its place
        return any(r.kind is Kind.RUN and r.stands_for in before and keeps_places(r, written) for r in readings(written, rules))

    fits = [j for j, t in enumerate(shown) if t.is_joker and stays((*shown[:j], tile, *shown[j + 1 :]))]
    if len(fits) != 1:
        return None
    add = Command("add", n, (tile,), places=(fits[0],))
    trial = copy.deepcopy(editor)
    trial.apply(add)
    grown = trial.state.table[n]
    if grown == (*shown[: fits[0]], tile, *shown[fits[0] :]):
        return add, fits[0] + 1  # the joker it pushed on
    # Shown anew (a valid set may be turned round): the joker whose going leaves the run.
    left = {(*grown[:j], *grown[j + 1 :]): j for j, t in enumerate(grown) if t.is_joker}
    gone = [j for rest, j in left.items() if stays(rest)]
    return (add, gone[0]) if len(gone) == 1 else None


def _retrieved_place(editor: TurnEditor, put: Sequence[Command], n: int, new: Tile) -> tuple[int, ...]:
    """Which joker of run ``n`` the tile ``new`` retrieves, by its place once ``put`` has laid the
    tile in the run: the one whose going leaves the others standing for what they stood for (a
    plain ``take`` of a J off ``J K3 K4 K5 J K6`` took the K2's). () when there is no choice to
    make or it cannot be told."""
    rules = editor.rules
    before = editor.state.table[n]
    if before.count(JOKER) < 2:
        return ()
    wanted = set()
    for reading in table_readings(before, rules):
        stood = list(reading.run_jokers) if reading.kind is Kind.RUN else []
        if new in stood:
            stood.remove(new)
            wanted.add(tuple(sorted(stood)))
    if not wanted:
        return ()
    trial = copy.deepcopy(editor)
    for command in put:
        trial.apply(command)
    shown = trial.state.table[n]

    def leaves(p: int) -> bool:  # the run without the joker at p, read as written (ascending)
        left = shown[:p] + shown[p + 1 :]
        return any(
            r.kind is Kind.RUN
            and all(t.is_joker or t == s for t, s in zip(left, r.stands_for))
            and tuple(sorted(s for t, s in zip(left, r.stands_for) if t.is_joker)) in wanted
            for r in readings(left, rules)
        )

    fits = [p for p, t in enumerate(shown) if t.is_joker and leaves(p)]
    return (fits[0],) if len(fits) == 1 else ()


def _joker_in_front(pieces: Sequence[Tile], moving: Sequence[Tile], after: Sequence[Sequence[Tile]]) -> bool:
    """Whether jokers alone joining ``pieces`` stand in front of them in the new table: a set of
    it starts with them and the rest of it lies in ``pieces`` (``J R8 R9`` for ``R6 R7 R8 R9``),
    or holds every numbered tile of ``pieces`` with the jokers before them all (``B1 J B3 B4 B5``
    for ``B3 B4 B5``, B1 to come); and no set has them so behind (the editor puts them at the end)."""
    if not moving or not all(t.is_joker for t in moving):
        return False
    n, here = len(moving), Counter(pieces)
    numbered = Counter(t for t in pieces if not t.is_joker)

    def fits(rest: Sequence[Tile], jokers: Sequence[Tile]) -> bool:
        return all(t.is_joker for t in jokers) and bool(rest) and not (Counter(rest) - here)

    def around(s: Sequence[Tile]) -> tuple[int, int]:  # jokers before and after all of pieces' tiles
        if not numbered or numbered - Counter(s):
            return 0, 0
        at = [i for i, t in enumerate(s) if numbered[t]]
        return s[: at[0]].count(JOKER), s[at[-1] + 1 :].count(JOKER)

    front = any(len(s) > n and (fits(s[n:], s[:n]) or around(s)[0] >= n) for s in after)
    return front and not any(len(s) > n and (fits(s[:-n], s[-n:]) or around(s)[1] >= n) for s in after)
