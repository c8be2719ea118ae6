"""The typed command grammar of ``play`` and one human turn at the terminal.

:func:`parse_command` reads one typed line into a :class:`~solver.game.editor.Command`;
:class:`HumanTurn` answers typed lines with :class:`Reply` values, driving the turn editor.
Nothing here prints: ``play_commands`` renders the replies.

Commands (``N``, ``M``: set numbers as shown, from 1; tiles in the notation, shorthands allowed):

- ``lay TILES`` (or ``set TILES``): a new set; each tile comes from the workspace if it is there,
  else from the rack;
- ``add N TILES``: tiles (workspace first, then rack) onto set N;
- ``move N TILES M``: table tiles from set N to set M (``new``: into a new set);
- ``take N TILES``: tiles off set N into the workspace;
- ``split N TILE``: cut set N in two, the second part starting at TILE (as shown; with two
  copies of TILE, at the second); the second part is a new set at the end;
- ``back TILES``: rack tiles laid this turn, from the workspace back to the rack;
- ``undo``, ``redo``, ``reset``, ``done``, ``draw``, ``hint [1-3]``, ``show``, ``help``, ``quit``.

Several commands may share a line, separated by ``;``; they run in order until one is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from solver.game.editor import (
    MANIPULATIONS,
    Command,
    EditError,
    TurnEditor,
    TurnTimer,
    time_out,
    time_out_text,
)
from solver.game.engine import Game, IllegalMove, TurnRecord
from solver.game.step_commands import commands_for
from solver.hint import Hint, hint
from solver.rules import RuleSet
from solver.solve import SolveOptions
from solver.tiles import Tile, TileSyntaxError, format_tiles, parse_token

CONTROLS = ("undo", "redo", "reset", "done", "draw", "hint", "show", "help", "quit")
ALIASES = {"set": "lay", "new": "lay", "end": "done", "pass": "draw", "exit": "quit", "?": "help"}

USAGE = {
    "lay": "lay TILES          a new set (tiles from the workspace first, then the rack)",
    "add": "add N TILES        tiles (workspace first, then rack) onto set N",
    "move": "move N TILES M     table tiles from set N to set M ('new': a new set)",
    "take": "take N TILES       tiles off set N into the workspace",
    "split": "split N TILE       cut set N in two at TILE; the second part is a new set",
    "at": "TILE@P             the tile at place P of the set (take 1 J@5; add 1 J@1)",
    "back": "back TILES         tiles you laid this turn, from the workspace to your rack",
    "undo": "undo / redo        step back / forward through this turn's manipulations",
    "reset": "reset              back to the start of the turn (undo undoes the reset)",
    "done": "done               end the turn (every set valid, a rack tile played)",
    "draw": "draw               draw a tile, end the turn (the table goes back as it was)",
    "hint": "hint [1-3]         1: how many tiles can be played; 2: which; 3: what to type",
    "show": "show               show the table and your rack again",
    "quit": "quit               leave the game",
}


def help_text() -> str:
    lines = ["Commands (N, M: set numbers; tiles like R7, J, shorthands R4-6 and KBR7):"]
    lines += [f"  {text}" for text in USAGE.values()]
    lines.append("  help               this list")
    lines.append("Several commands on one line: separate them with ';' (lay R3 R4 R5; done).")
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
        tiles, places = _tiles_at(rest[:-1], rules)
        return Command(name, source, tiles, target, places=places)
    if not rest:
        raise fail("no tiles given")
    tiles, places = _tiles_at(rest, rules)
    if name == "split":
        if len(tiles) != 1:
            raise fail("split takes one tile: where the second part starts")
        return Command(name, source, tiles, at=places[0] if places else None)
    return Command(name, source, tiles, places=places)


def _set_number(word: str) -> int:
    if not (word.isascii() and word.isdigit()) or int(word) < 1:
        raise EditError(f"{word!r} is not a set number (sets are numbered from 1)")
    return int(word) - 1


def _tiles(words: Sequence[str], rules: RuleSet) -> tuple[Tile, ...]:
    out: list[Tile] = []
    for word in words:
        if "@" in word:
            raise EditError(f"{word!r}: a place (TILE@P) is for add, move, take and split: where in the set the tile goes or lies")
        try:
            out.extend(parse_token(word, rules))
        except TileSyntaxError as err:
            raise EditError(str(err)) from None
    return tuple(out)


def _tiles_at(words: Sequence[str], rules: RuleSet) -> tuple[tuple[Tile, ...], tuple[int, ...]]:
    """Tiles, each maybe with its place in the set as shown (``J@5``: the joker fifth, from 1):
    the tiles and their places from 0, every tile's or none."""
    tiles: list[Tile] = []
    places: list[int] = []
    for word in words:
        token, at, place = word.partition("@")
        if not at:
            tiles.extend(_tiles([word], rules))
            continue
        if not (place.isascii() and place.isdigit()) or int(place) < 1:
            raise EditError(f"{word!r}: after @ comes the tile's place in the set, counted from 1")
        found = _tiles([token], rules)
        if len(found) != 1:
            raise EditError(f"{word!r}: a place is for one tile, not {len(found)}")
        tiles.extend(found)
        places.append(int(place) - 1)
    if places and len(places) != len(tiles):
        raise EditError("give every tile its place (TILE@P) or none: " + " ".join(words))
    return tuple(tiles), tuple(places)


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
    commands: tuple[str, ...] = ()  # a hint's answer as commands to type
    parts: tuple[Reply, ...] = ()  # several commands on one line: what each said (``message`` all of it)
    listing: bool = False  # the message is a list of terms and what they do (the help)


class HumanTurn:
    """One turn of the person at ``game.seat``: typed lines in, replies out."""

    def __init__(self, game: Game, timer: TurnTimer | None = None) -> None:
        self.game = game
        self.editor = TurnEditor(game.position())
        self.timer = timer
        if timer is not None:
            timer.restart()

    def handle(self, line: str) -> Reply:
        if line.strip().lower() in ("quit", "exit"):  # leaving is never too late: the turn is left undone
            return Reply("left the game", quit=True)
        if self.timer is not None and self.timer.expired():
            record = time_out(self.game, self.editor, self.timer.rule)
            return Reply(time_out_text(record, self.timer.rule), ended=record, timed_out=True)
        if not line.strip():
            return Reply(show=True)
        commands = [part.strip() for part in line.split(";") if part.strip()]
        if len(commands) > 1:
            return self._in_turn(commands)
        if not commands:  # only separators, as an empty line
            return Reply(show=True)
        return self._one(commands[0])  # without a stray ';' before or after it

    def _mid_sentence(self, message: str) -> str:
        """A message read on after "refused:": its first letter lower-cased, unless it starts with
        a tile ("O9 not on your rack", not "o9")."""
        first = message.split(" ", 1)[0]
        try:
            parse_token(first, self.game.config.rules)
        except TileSyntaxError:
            return message[:1].lower() + message[1:]
        return message

    def _one(self, line: str) -> Reply:
        try:
            command = parse_command(line, self.editor.rules)
            return self._run(command)
        except EditError as err:
            return Reply(str(err), error=True)

    def _in_turn(self, lines: list[str]) -> Reply:
        """Several commands on one line (``lay R3 R4 R5; done``, as a level-3 hint writes them),
        carried out in order until one is refused or ends the turn; what each says, a hint too,
        is said in that order (``parts``)."""
        said: list[Reply] = []
        reply = Reply()
        for n, line in enumerate(lines):
            reply = self._one(line)
            rest = lines[n + 1 :]
            if reply.error and n == 0:  # nothing done: the refusal, and what was left undone
                return replace(reply, message="\n".join([reply.message, f"not carried out: {'; '.join(rest)}"]))
            if reply.error:
                said.append(Reply(f"'{line}' refused: {self._mid_sentence(reply.message)}"))
            elif reply.message or reply.hint is not None:
                said.append(Reply(reply.message, hint=reply.hint, commands=reply.commands))
            if reply.error or reply.ended is not None or reply.quit:
                if rest:
                    said.append(Reply(f"not carried out: {'; '.join(rest)}"))
                if reply.error:
                    return Reply(_joined(said), parts=tuple(said), show=True)
                break
        return replace(reply, message=_joined(said), hint=None, commands=(), parts=tuple(said), show=True)

    def _run(self, command: Command) -> Reply:
        editor = self.editor
        name = command.name
        if name in MANIPULATIONS:
            return Reply(editor.apply(command), show=True)
        if name == "undo":
            return Reply(editor.undo(), show=True)
        if name == "redo":
            return Reply(editor.redo(), show=True)
        if name == "reset":
            return Reply(editor.reset(), show=True)
        if name == "done":
            problems = editor.problems()
            if problems:
                listed = "\n".join(f"  - {p}" for p in problems)
                return Reply(f"The turn cannot end yet:\n{listed}", error=True)
            table = editor.finish()
            try:
                # In the places the player left them: their numbers are the ones they saw.
                record = self.game.play([list(s) for s in table], placed=True)
            except IllegalMove as err:  # the editor checks first; this is the engine's last word
                raise EditError(str(err)) from None
            return Reply(f"played {format_tiles(record.played)}", ended=record)
        if name == "draw":
            record = self.game.draw()
            restored = "the table goes back as it was; " if editor.changed else ""
            drawn = f"drew {record.drew}" if record.drew is not None else "the pool is empty: passed"
            return Reply(restored + drawn, ended=record)
        if name == "hint":
            try:
                found = hint(editor.position, command.level, SolveOptions())
            except KeyboardInterrupt:  # a slow hint given up on: the turn is the player's again
                return Reply("hint stopped (Ctrl-C): the turn goes on; 'quit' ends the game", error=True)
            typed: tuple[str, ...] = ()
            if command.level >= 3 and found.solution.played:
                after = [s.tiles for s in found.solution.table]
                commands = commands_for(editor.position, found.plan, after)
                if commands is not None:
                    # The commands start from the turn's start; a table already changed goes back first.
                    typed = (*(["reset"] if editor.changed else []), *map(as_typed, commands))
            return Reply(hint=found, commands=typed)
        if name == "help":
            return Reply(help_text(), listing=True)
        if name == "show":
            return Reply(show=True)
        return Reply("left the game", quit=True)


def _joined(replies: Sequence[Reply]) -> str:
    return "\n".join(r.message for r in replies if r.message)


def as_typed(command: Command) -> str:
    """A manipulation as the player would type it (set numbers from 1; a tile's place where the
    command says which copy)."""
    tiles = format_tiles(command.tiles)
    if command.places:
        tiles = " ".join(f"{t}@{p + 1}" for t, p in zip(command.tiles, command.places))
    elif command.name == "split" and command.at is not None:
        tiles = f"{command.tiles[0]}@{command.at + 1}"
    if command.name in ("lay", "back"):
        return f"{command.name} {tiles}"
    n = (command.source or 0) + 1
    if command.name == "move":
        target = "new" if command.target is None else str(command.target + 1)
        return f"move {n} {tiles} {target}"
    return f"{command.name} {n} {tiles}"


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
