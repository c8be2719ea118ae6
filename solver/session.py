"""A person's turn at the terminal: the commands they type and the table they edit, with undo.

:class:`TurnEditor` owns one turn in progress: the table as the player is rearranging it (sets
may be invalid until the turn ends), a *workspace* of table tiles taken off their sets and not yet
placed, and the rack. Every manipulation makes a new immutable :class:`Edit` snapshot; ``undo``
and ``redo`` walk the snapshots, ``reset`` goes back to the turn's start (itself undoable).
:meth:`TurnEditor.finish` gives the table to play, or raises :class:`EditError` saying precisely
what is still wrong. :func:`parse_command` reads one typed line. Nothing here prints.

Commands (``N``, ``M``: set numbers as shown, from 1; tiles in the notation, shorthands allowed):

- ``lay TILES`` (or ``set TILES``): a new set; each tile comes from the workspace if it is there,
  else from the rack;
- ``add N TILES``: tiles (workspace first, then rack) onto set N;
- ``move N TILES M``: table tiles from set N to set M (``new``: into a new set);
- ``take N TILES``: tiles off set N into the workspace;
- ``split N TILE``: cut set N in two, the second part starting at TILE (as shown; with two
  copies of TILE, at the second);
- ``back TILES``: rack tiles laid this turn, from the workspace back to the rack;
- ``undo``, ``redo``, ``reset``, ``done``, ``draw``, ``hint [1-3]``, ``show``, ``help``, ``quit``.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from solver.errors import RummikubError
from solver.game import Game, IllegalMove, TurnRecord
from solver.hint import Hint, hint
from solver.melds import best_reading, why_invalid
from solver.players import Player
from solver.position import Position
from solver.rules import RuleSet
from solver.tiles import Tile, TileSyntaxError, format_tiles, parse_token
from solver.validator import validate

Sets = tuple[tuple[Tile, ...], ...]


class EditError(RummikubError):
    """A command that cannot be carried out, or a turn that cannot end yet; the message says why."""


# ---------------------------------------------------------------- commands

MANIPULATIONS = ("lay", "add", "move", "take", "split", "back")
CONTROLS = ("undo", "redo", "reset", "done", "draw", "hint", "show", "help", "quit")
ALIASES = {"set": "lay", "new": "lay", "end": "done", "pass": "draw", "exit": "quit", "?": "help"}

USAGE = {
    "lay": "lay TILES          a new set (tiles from the workspace first, then the rack)",
    "add": "add N TILES        tiles (workspace first, then rack) onto set N",
    "move": "move N TILES M     table tiles from set N to set M ('new': a new set)",
    "take": "take N TILES       tiles off set N into the workspace",
    "split": "split N TILE       cut set N in two; the second part starts at TILE",
    "back": "back TILES         rack tiles you laid this turn, from the workspace back to the rack",
    "undo": "undo / redo        step back / forward through this turn's manipulations",
    "reset": "reset              the table and rack as at the start of the turn (undo brings it back)",
    "done": "done               end the turn (every set valid, at least one rack tile played)",
    "draw": "draw               draw a tile and end the turn (the table goes back as it was)",
    "hint": "hint [1-3]         1: how many tiles can be played; 2: which; 3: the steps",
    "show": "show               show the table and your rack again",
    "quit": "quit               leave the game",
}


@dataclass(frozen=True)
class Command:
    name: str  # one of MANIPULATIONS or CONTROLS
    source: int | None = None  # set number (0-based) the command works on
    tiles: tuple[Tile, ...] = ()
    target: int | None = None  # move: destination set (0-based); None = a new set
    level: int = 1  # hint


def help_text() -> str:
    lines = ["Commands (N, M: set numbers; tiles like R7, J, shorthands R4-6 and KBR7):"]
    lines += [f"  {text}" for text in USAGE.values()]
    lines.append("  help               this list")
    return "\n".join(lines)


def parse_command(text: str, rules: RuleSet) -> Command:
    """One typed line as a Command; EditError names the bad word and shows the usage."""
    words = text.replace(",", " ").split()
    if not words:
        raise EditError("type a command (help lists them)")
    name = words[0].lower()
    name = ALIASES.get(name, name)
    args = words[1:]
    if name not in MANIPULATIONS and name not in CONTROLS:
        raise EditError(f"unknown command {words[0]!r} (help lists the commands)")
    usage = USAGE.get(name, "").split("  ")[0]

    def fail(why: str) -> EditError:
        return EditError(f"{why} (usage: {usage})")

    if name in ("undo", "redo", "reset", "done", "draw", "show", "help", "quit"):
        if args:
            raise EditError(f"{name} takes nothing after it, got {' '.join(args)!r}")
        return Command(name)
    if name == "hint":
        if not args:
            return Command(name)
        if len(args) > 1 or args[0] not in ("1", "2", "3"):
            raise EditError(f"hint level must be 1, 2 or 3, got {' '.join(args)!r}")
        return Command(name, level=int(args[0]))
    if name in ("lay", "back"):
        if not args:
            raise fail("no tiles given")
        return Command(name, tiles=_tiles(args, rules))
    if not args:
        raise fail("no set number given")
    source = _set_number(args[0])
    rest = args[1:]
    if name == "move":
        if len(rest) < 2:
            raise fail("give the tiles and the set to move them to")
        target = None if rest[-1].lower() == "new" else _set_number(rest[-1])
        return Command(name, source, _tiles(rest[:-1], rules), target)
    if not rest:
        raise fail("no tiles given")
    tiles = _tiles(rest, rules)
    if name == "split" and len(tiles) != 1:
        raise fail("split takes one tile: where the second part starts")
    return Command(name, source, tiles)


def _set_number(word: str) -> int:
    if not word.isdigit() or int(word) < 1:
        raise EditError(f"{word!r} is not a set number (sets are numbered from 1)")
    return int(word) - 1


def _tiles(words: Sequence[str], rules: RuleSet) -> tuple[Tile, ...]:
    out: list[Tile] = []
    for word in words:
        try:
            out.extend(parse_token(word, rules))
        except TileSyntaxError as err:
            raise EditError(str(err)) from None
    return tuple(out)


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


# ---------------------------------------------------------------- a human turn


@dataclass(frozen=True)
class Reply:
    """What the program answers to one typed line."""

    message: str = ""
    error: bool = False  # the line was refused; nothing changed
    show: bool = False  # the table or the rack changed: show them again
    ended: TurnRecord | None = None  # the turn is over
    quit: bool = False
    hint: Hint | None = None
    timed_out: bool = False


class HumanTurn:
    """One turn of the person at ``game.seat``: typed lines in, replies out."""

    def __init__(self, game: Game, timer: TurnTimer | None = None, backend: str = "bnb") -> None:
        self.game = game
        self.editor = TurnEditor(game.position())
        self.timer = timer
        self.backend = backend
        if timer is not None:
            timer.restart()

    def handle(self, line: str) -> Reply:
        if self.timer is not None and self.timer.expired():
            record = time_out(self.game, self.editor, self.timer.rule)
            drawn = format_tiles(record.penalty) or "nothing (the pool is empty)"
            kept = "broken sets taken back" if self.timer.rule.take_back else "the table restored"
            return Reply(f"Time is up: {kept}; penalty: {drawn}.", ended=record, timed_out=True)
        if not line.strip():
            return Reply(show=True)
        try:
            command = parse_command(line, self.editor.rules)
            return self._run(command)
        except EditError as err:
            return Reply(str(err), error=True)

    def _run(self, command: Command) -> Reply:
        editor = self.editor
        name = command.name
        if name in MANIPULATIONS:
            return Reply(editor.apply(command), show=True)
        if name == "undo":
            editor.undo()
            return Reply("undone", show=True)
        if name == "redo":
            editor.redo()
            return Reply("redone", show=True)
        if name == "reset":
            editor.reset()
            return Reply("back to the start of the turn", show=True)
        if name == "done":
            problems = editor.problems()
            if problems:
                listed = "\n".join(f"  - {p}" for p in problems)
                return Reply(f"The turn cannot end yet:\n{listed}", error=True)
            table = editor.finish()
            try:
                record = self.game.play([list(s) for s in table])
            except IllegalMove as err:  # the editor checks first; this is the engine's last word
                raise EditError(str(err)) from None
            return Reply(f"played {format_tiles(record.played)}", ended=record)
        if name == "draw":
            record = self.game.draw()
            restored = "the table goes back as it was; " if editor.changed else ""
            drawn = f"drew {record.drew}" if record.drew is not None else "the pool is empty: passed"
            return Reply(restored + drawn, ended=record)
        if name == "hint":
            return Reply(hint=hint(editor.position, command.level, backend=self.backend))
        if name == "help":
            return Reply(help_text())
        if name == "show":
            return Reply(show=True)
        return Reply("left the game", quit=True)


# ---------------------------------------------------------------- the AI and the match


def ai_turn(game: Game, player: Player) -> TurnRecord:
    """The AI at ``game.seat`` moves: its table, or a draw."""
    table = player.choose(game.view())
    return game.draw() if table is None else game.play(table)


def seat_names(levels: Sequence[str]) -> list[str]:
    """``you`` for player 1, then the AI levels (numbered when a level plays twice)."""
    names = ["you"]
    for i, level in enumerate(levels, 2):
        names.append(level if list(levels).count(level) == 1 else f"{level} {i}")
    return names


def record_path(path: str, round_number: int, rounds: int) -> str:
    """Round ``round_number`` (from 1) of ``rounds``: ``game.jsonl``, or ``game-2.jsonl`` and so on."""
    if rounds == 1:
        return path
    p = Path(path)
    return str(p.with_name(f"{p.stem}-{round_number}{p.suffix}"))
