"""A game against the AI players over JSON: the library's engine, turn editor, timer and records,
kept between requests, told to a page only as much as the person at the screen may see.

A :class:`Session` is one game (one round, or a match of several) as ``rummikub play`` runs it:
the same ``Match`` and ``Game``, the same ``TurnEditor`` for a person's turn (with undo), the same
timer rules and penalties (``TIMER_RULES``, ``time_out``), the same records. Its state on disk is
its records (one JSON-lines file per round, exactly what ``play --record`` writes) and a small
``game.json`` (the settings, and the person's turn in progress): replaying the records rebuilds
the game, so a page reload or a server restart continues it.

What a page is told (:meth:`Session.view`) holds the rack of the person at the screen, the table,
and counts: every other rack is a number, the pool is a number, another player's drawn tile is
``true``. The racks are shown at the end of a round, as at a real table.

The persons share one screen, or (``devices``) each plays on their own: then every person's seat
has a secret *seat key* (given once, to whoever starts the game, as links to pass on), every
request names its seat (``?seat=KEY``), a page sees that seat's rack only, and only the seat to
move may act.
"""

from __future__ import annotations

import dataclasses
import json
import random
import secrets
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any

from solver.errors import RummikubError
from solver.game.editor import (
    TIMER_RULES,
    Command,
    EditError,
    TimerRule,
    TurnEditor,
    TurnTimer,
    Wording,
    time_out,
    time_out_text,
)
from solver.game.engine import Game, GameConfig, GameView, Match, RoundResult, TurnRecord, kept_in_place
from solver.game.players import make_player
from solver.game.records import GameHeader, parse_record, record_lines
from solver.game.replay import config_of, replay
from solver.rules import RuleSet
from solver.steps import plan_steps, tables_after_steps
from solver.tiles import Tile, TileSyntaxError, format_tiles, table_as_lists
from web.limits import Limits
from web.request import RequestError, request_object, rules_from, shown
from web.store import NotFound, Store

Json = dict[str, Any]
LEVELS = ("easy", "medium", "hard")
KINDS = ("person", "ai")
FORMAT = "rummikub-web-game"
SETTINGS_FIELDS = {
    "seats",
    "rules",
    "scoring",
    "rack_size",
    "redeal_three_pairs",
    "joker_each",
    "turn_time",
    "seed",
    "rounds",
    "devices",
}
MANIPULATIONS = ("lay", "add", "move", "take", "split", "back")
COMMAND_FIELDS = {"do", "set", "tiles", "to", "at", "from_rack", "own_loose"}
MAX_NAME = 20  # a seat's name, as a person types it
MAX_SEED = 2**53 - 1  # the largest whole number a page's JavaScript holds exactly


# --------------------------------------------------------------------------- the settings


@dataclass(frozen=True)
class Seat:
    kind: str  # "person" | "ai"
    level: str | None  # the AI's level
    name: str

    def to_dict(self) -> Json:
        return {"kind": self.kind, "level": self.level, "name": self.name}


@dataclass(frozen=True)
class Settings:
    """Everything ``rummikub play`` takes, for one game: seats, rules, deal, timer, seed, rounds."""

    seats: tuple[Seat, ...]
    config: GameConfig  # the match's config: its rounds are dealt as Match deals them
    turn_time: int | None
    rounds: int
    devices: bool = False  # each person plays on their own device, by a seat key

    @property
    def timer(self) -> TimerRule | None:
        return TIMER_RULES[self.turn_time] if self.turn_time else None

    def person(self, seat: int) -> bool:
        return self.seats[seat].kind == "person"

    def to_dict(self) -> Json:
        config = self.config
        return {
            "seats": [s.to_dict() for s in self.seats],
            "rules": config.rules.to_dict(),
            "scoring": config.scoring,
            "rack_size": config.rack_size,
            "redeal_three_pairs": config.redeal_three_pairs,
            "joker_each": config.joker_each,
            "turn_time": self.turn_time,
            "seed": config.seed,
            "rounds": self.rounds,
            "devices": self.devices,
        }


def settings_from(body: Any, limits: Limits, kept: bool = False) -> Settings:
    """A new game's settings from a request (or, ``kept``, from game.json); RequestError names what
    is wrong."""
    body = request_object(body, SETTINGS_FIELDS)
    seats = _seats(body.get("seats", [{"kind": "person"}, {"kind": "ai", "level": "medium"}]), kept)
    rules = rules_from(body.get("rules", {}), limits)
    seed = body.get("seed")
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)  # as play: a random seed, shown
    turn_time = body.get("turn_time")
    if turn_time is not None and (type(turn_time) is not int or turn_time not in TIMER_RULES):
        raise RequestError(400, f"request: 'turn_time' must be 40, 60 or null, got {shown(turn_time)}")
    config = GameConfig(
        rules=rules,
        players=len(seats),
        seed=_whole(seed, "seed", 0, MAX_SEED),
        redeal_three_pairs=_bool(body.get("redeal_three_pairs", False), "redeal_three_pairs"),
        joker_each=_bool(body.get("joker_each", False), "joker_each"),
        scoring=_choice(body.get("scoring", "standard"), "scoring", ("standard", "club")),
        rack_size=_whole(body.get("rack_size", 14), "rack_size", 1, 40),
    )
    rounds = _whole(body.get("rounds", 1), "rounds", 1, 100)
    return Settings(seats, config, turn_time, rounds, _bool(body.get("devices", False), "devices"))


def _seats(raw: Any, kept: bool = False) -> tuple[Seat, ...]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= 4:
        raise RequestError(400, "request: 'seats' must be a list of 2 to 4 seats, each a person or an AI")
    kinds, levels = [], []
    for i, seat in enumerate(raw, 1):
        if not isinstance(seat, dict) or set(seat) - {"kind", "level", "name"}:
            raise RequestError(
                400, f'request: seat {i} must be {{"kind": "person"}} or {{"kind": "ai", "level": "easy"}}'
            )
        kind = _choice(seat.get("kind"), f"seat {i} kind", KINDS)
        if kind == "person" and seat.get("level") is not None:
            raise RequestError(400, f"request: seat {i} is a person: a level is for an AI seat")
        level = _choice(seat.get("level"), f"seat {i} level", LEVELS) if kind == "ai" else None
        kinds.append(kind)
        levels.append(level)
    if "person" not in kinds:
        raise RequestError(400, "request: a game needs a person in one seat (AIs alone: rummikub selfplay)")
    given: list[str | None] = []
    for i, seat in enumerate(raw, 1):
        name = seat.get("name")
        if name is not None:
            if not isinstance(name, str) or not 1 <= len(name.strip()) <= MAX_NAME:
                raise RequestError(400, f"request: seat {i} name must be 1 to {MAX_NAME} characters, got {shown(name)}")
            name = name.strip()
            if not name.isprintable():
                raise RequestError(400, f"request: seat {i} name must be printable (no line break), got {shown(name)}")
        given.append(name)
    # Names are told apart as the score sheet tells them, whatever their case (at a table "Ann"
    # and "ann" are one person), and a clash is refused in its words.
    named = [n for n in given if n is not None]
    for k, name in enumerate(named):
        earlier = named[:k]
        # A game kept from before case was compared keeps its names ("Ann" and "ann" play on).
        if name in earlier if kept else name.casefold() in {n.casefold() for n in earlier}:
            raise RequestError(400, f"request: player {shown(name)} is named twice")
    # A seat left unnamed gets the first of its defaults that no other seat has: the person who
    # named only one seat "player 2" did not make the clash.
    names: list[str] = []
    for i, (kind, level, name) in enumerate(zip(kinds, levels, given), 1):
        taken = {n.casefold() for n in (*named, *names)}
        defaults = _default_names(i, kind, level, kinds, levels)
        names.append(name or next(n for n in defaults if n.casefold() not in taken))
    return tuple(Seat(k, lv, n) for k, lv, n in zip(kinds, levels, names))


def _default_names(i: int, kind: str, level: str | None, kinds: list[str], levels: list[str | None]) -> Iterator[str]:
    """Seat ``i``'s names as play gives them ("you", "medium", "player 2", "easy 3"), then the
    same numbered on (for when a person took the first)."""
    stem = "player" if kind == "person" else str(level)
    if kind == "person" and kinds.count("person") == 1:
        yield "you"
    elif kind == "ai" and levels.count(level) == 1:
        yield stem
    yield from (f"{stem} {n}" for n in count(i))


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise RequestError(400, f"request: '{name}' must be a whole number from {low} to {high}, got {shown(value)}")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise RequestError(400, f"request: '{name}' must be true or false, got {shown(value)}")
    return value


def _choice(value: Any, name: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise RequestError(400, f"request: '{name}' must be one of {', '.join(choices)}, got {shown(value)}")
    return str(value)


def _tiles(raw: Any, rules: RuleSet, what: str) -> tuple[Tile, ...]:
    if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
        raise RequestError(400, f'request: {what} must be a list of tiles such as ["R4", "R5"]')
    try:
        return tuple(Tile.parse(t, rules) for t in raw)
    except TileSyntaxError as err:
        raise RequestError(400, f"request: {err.located(what)}") from None


def commands_from(body: Any, rules: RuleSet) -> list[Command]:
    """The manipulations of a request: ``{"commands": [{"do": "move", "set": 0, "tiles": ["R5"],
    "to": 1}, ...]}`` (sets numbered from 0; ``"to": null`` moves into a new set)."""
    # An unknown field is named (a misspelt "tile" would otherwise read as a malformed request).
    if isinstance(body, dict) and set(body) - {"commands"}:
        unknown = sorted(set(body) - {"commands"})[0]
        raise RequestError(400, f"request: edit takes no {shown(unknown)} (only 'commands', 'round', 'turn' and 'edits')")
    if not isinstance(body, dict) or not isinstance(body.get("commands"), list):
        raise RequestError(400, 'request: expected {"commands": [...]}, each {"do", "set", "tiles", "to"}')
    if not 1 <= len(body["commands"]) <= 50:
        raise RequestError(400, "request: 1 to 50 commands")
    out = []
    for i, raw in enumerate(body["commands"], 1):
        if not isinstance(raw, dict):
            raise RequestError(400, f'request: command {i} must be an object with "do", "set", "tiles", "to", "at", "from_rack", "own_loose"')
        if set(raw) - COMMAND_FIELDS:
            unknown = sorted(set(raw) - COMMAND_FIELDS)[0]
            raise RequestError(400, f"request: command {i} takes no {shown(unknown)} (fields: do, set, tiles, to, at, from_rack, own_loose)")
        name = _choice(raw.get("do"), f"command {i} do", MANIPULATIONS)
        tiles = _tiles(raw.get("tiles"), rules, f"command {i} tiles")
        if not tiles:
            raise RequestError(400, f"request: command {i} names no tile")
        # A field the manipulation does not use is refused, not dropped: {"do": "lay", "set": 0}
        # meant something else than a new set.
        source = raw.get("set")
        if name in ("lay", "back"):
            if source is not None:
                raise RequestError(400, f"request: command {i} ({name}) takes no 'set': {name} takes its tiles from the rack")
        elif type(source) is not int or source < 0:
            raise RequestError(400, f"request: command {i} ({name}) needs 'set', a set number from 0")
        target = raw.get("to")
        if name != "move" and target is not None:
            raise RequestError(400, f"request: command {i} 'to' is for move: the set the tiles go to")
        if name == "move" and target is not None and (type(target) is not int or target < 0):
            raise RequestError(400, f"request: command {i} 'to' must be a set number from 0, or null for a new set")
        if name == "split" and len(tiles) != 1:
            raise RequestError(400, f"request: command {i} (split) takes one tile: where the second part starts")
        at = raw.get("at")
        places: tuple[int, ...] = ()
        if name in ("take", "move", "add") and at is not None:
            if not isinstance(at, list) or len(at) != len(tiles) or any(type(a) is not int or a < 0 for a in at):
                raise RequestError(400, f"request: command {i} 'at' of {name} is a list of the tiles' places in the set, from 0, one per tile")
            places, at = tuple(at), None
        elif at is not None and (name != "split" or type(at) is not int or at < 0):
            raise RequestError(400, f"request: command {i} 'at' is for split, take, move and add: the tiles' places in the set, from 0")
        picked: dict[str, tuple[Tile, ...]] = {}
        for key, which in (("from_rack", "come from the rack"), ("own_loose", "are your own loose ones")):
            if key not in raw:
                continue
            if name not in ("lay", "add"):
                raise RequestError(400, f"request: command {i} '{key}' is for lay and add: which of their tiles {which}")
            picked[key] = _tiles(raw[key], rules, f"command {i} {key}")
            if Counter(picked[key]) - Counter(tiles):
                raise RequestError(400, f"request: command {i} '{key}' names tiles that are not among its 'tiles'")
        out.append(
            Command(
                name, source, tiles, target, at=at, places=places,
                from_rack=picked.get("from_rack", ()), own_loose=picked.get("own_loose", ()),
            )
        )
    return out


@dataclass(frozen=True)
class Moment:
    """Where the game stood on the page that sends an action: its round and turn, and how many
    edits the turn in progress had had (None: the page did not say)."""

    round: int
    turn: int
    edits: int | None = None


def _moment(body: Any, action: str) -> tuple[Any, Moment | None]:
    """The round, turn and edit of the turn in progress an action's page showed (``{"round": R,
    "turn": T, "edits": E}``, optional: a page left open in another tab must not act in a turn, or
    on a turn in progress, its player has not seen), and the rest of the body."""
    if body is None:
        return None, None
    if not isinstance(body, dict):
        raise RequestError(400, "request: expected a JSON object")
    given = {k: body[k] for k in ("round", "turn") if k in body}
    if given and (set(given) != {"round", "turn"} or any(type(v) is not int for v in given.values())):
        raise RequestError(400, "request: 'round' and 'turn' go together, as whole numbers (the view's)")
    edits = body.get("edits")
    if "edits" in body and (type(edits) is not int or edits < 0 or not given):
        raise RequestError(400, "request: 'edits' goes with 'round' and 'turn', a whole number (the view's editing.edits)")
    rest = {k: v for k, v in body.items() if k not in ("round", "turn", "edits")}
    if action != "edit" and rest:
        raise RequestError(
            400, f"request: {action} takes no {shown(next(iter(rest)))} (only 'round', 'turn' and 'edits')"
        )
    moment = Moment(given["round"], given["turn"], edits) if given else None
    return (rest if action == "edit" else None), moment


# The turn editor's messages in the page's words: sets counted from 0, as requests count them
# (a request said "set": 5, and "there is no set 6" would name a set it never asked for), and
# the tiles taken off the table as the page shows them.
PAGE_WORDING = Wording(
    first=0,
    loose_left="taken off the table and not in a set yet: {tiles}; place every tile in a set{back}",
    put_back=" (or put your own back on your rack)",
)
# The problems a refused "done" lists are read beside the board, which names its sets from 1.
BOARD_WORDING = dataclasses.replace(PAGE_WORDING, first=1)


# --------------------------------------------------------------------------- one game


class Session:
    """One game in progress (or over), rebuilt from its files by :meth:`load`."""

    def __init__(
        self, store: Store, key: str, settings: Settings, created: float, match: Match, number: int, game: Game
    ) -> None:
        self.store = store
        self.key = key
        self.settings = settings
        self.created = created
        self.match = match  # the finished rounds' results
        self.round = number  # the round being played (or just over), from 1
        self.game = game
        self.editor: TurnEditor | None = None
        self.edits = 0  # the edits, undos, redos and resets the turn in progress has had: its version
        self.started = 0.0  # when the person's turn began (seconds since the epoch)
        self.notice = ""  # what happened that the next answer should say (a time-out)
        self.notice_seat = 0  # whose move it tells of (only that seat is told: it may name a tile drawn)
        # With ``devices``: each person seat's secret key (seat index -> key).
        self.seat_keys: dict[int, str] = {}

    # ------------------------------------------------------------------ files

    @classmethod
    def create(cls, store: Store, settings: Settings) -> Session:
        match = Match(settings.config)
        session = cls(store, store.create("games"), settings, time.time(), match, 1, match.new_round())
        if settings.devices:
            session.seat_keys = {
                seat: secrets.token_urlsafe(12) for seat in range(len(settings.seats)) if settings.person(seat)
            }
        session._begin_turn()
        session.save()
        return session

    @classmethod
    def load(cls, store: Store, key: str, limits: Limits) -> Session:
        """A game from its files: the settings, then every round's record replayed (and checked
        to be a round of these settings), then the person's turn in progress if one was kept."""
        text = store.read("games", key, "game.json")
        if text is None:
            raise NotFound(key)
        data = json.loads(text)
        settings = settings_from(data["settings"], limits, kept=True)
        match = Match(settings.config)
        names = [name for name in store.names("games", key) if name.startswith("round-")]
        numbers = sorted(int(name[len("round-") : -len(".jsonl")]) for name in names)
        if numbers != list(range(1, len(numbers) + 1)) or not numbers:
            raise RummikubError(f"game {key}: its rounds are {numbers}, expected 1 to {len(numbers)}")
        game: Game | None = None
        for number in numbers:
            name = f"round-{number}.jsonl"
            record = parse_record(store.read("games", key, name) or "", name)
            expected = dataclasses.replace(settings.config, seed=match.round_seed(number - 1))
            if config_of(record.header) != expected:
                raise RummikubError(f"{name} is not a round of this game")
            game = replay(record, name)
            if game.over:
                match.add(game.result())
            elif number < len(numbers):
                raise RummikubError(f"{name} is not over, yet a later round exists")
        assert game is not None
        session = cls(store, key, settings, float(data["created"]), match, len(numbers), game)
        session.seat_keys = {int(seat): str(given) for seat, given in data.get("seat_keys", {}).items()}
        session._begin_turn()
        kept = data.get("turn")
        if (
            session.editor is not None
            and isinstance(kept, dict)
            and (kept.get("round"), kept.get("turn")) == (session.round, game.turn)
        ):
            try:
                session.editor = TurnEditor.from_dict(game.position(), kept["editor"], PAGE_WORDING)
                session.started = float(kept["started"])
                session.edits = int(kept.get("edits", 0))  # a turn kept before edits were counted: 0
            except (EditError, KeyError, TypeError, ValueError):
                pass  # a turn kept from another state of the game: the turn starts afresh
        return session

    def save(self) -> None:
        """The current round's record, then game.json (settings, the person's turn in progress)."""
        game = self.game
        result = game.result() if game.over else None
        lines = record_lines(self.header(), game.history, result)
        self.store.write("games", self.key, f"round-{self.round}.jsonl", "".join(line + "\n" for line in lines))
        self.save_turn()

    def save_turn(self) -> None:
        turn = None
        if self.editor is not None:
            turn = {
                "round": self.round,
                "turn": self.game.turn,
                "started": self.started,
                "edits": self.edits,
                "editor": self.editor.to_dict(),
            }
        data = {
            "format": FORMAT,
            "version": 1,
            "created": self.created,
            "settings": self.settings.to_dict(),
            "seat_keys": self.seat_keys,
            "turn": turn,
        }
        self.store.write("games", self.key, "game.json", json.dumps(data))

    def header(self) -> GameHeader:
        seats = self.settings.seats
        kinds = ["human" if s.kind == "person" else "ai" for s in seats]
        return GameHeader.for_game(self.game, [s.name for s in seats], kinds)

    def record_text(self, number: int) -> str:
        """Round ``number``'s record as ``play --record`` writes it; only once that round is over
        (before, it would show every rack)."""
        if not 1 <= number <= self.round:
            raise RequestError(404, f"no round {number} in this game (rounds so far: 1 to {self.round})")
        if number == self.round and not self.game.over:
            raise RequestError(409, f"round {number} is still being played: its record comes when it ends")
        return self.store.read("games", self.key, f"round-{number}.jsonl") or ""

    # ------------------------------------------------------------------ turns

    def _person_to_move(self) -> bool:
        return not self.game.over and self.settings.person(self.game.seat)

    def _begin_turn(self) -> None:
        """After a turn ends: the next person's turn opens an editor and starts the clock."""
        if self._person_to_move():
            self.editor = TurnEditor(self.game.position(), wording=PAGE_WORDING)
            self.started = time.time()
            self.edits = 0
        else:
            self.editor = None
            self.edits = 0

    def _ended(self, record: TurnRecord) -> TurnRecord:
        if self.game.over:
            self.match.add(self.game.result())
        self._begin_turn()
        self.save()
        return record

    def timer(self) -> TurnTimer | None:
        rule = self.settings.timer
        if rule is None or self.editor is None:
            return None
        clock = TurnTimer(rule, time.time)
        clock.started = self.started
        return clock

    def person_turn(self) -> TurnEditor:
        """The editor of the person to move; the turn ends by the timer's penalty first if its time is up."""
        if self.game.over:
            raise RequestError(409, "the round is over: no more turns")
        if self.editor is None:
            raise RequestError(409, f"it is {self.settings.seats[self.game.seat].name}'s turn, not a person's")
        timer = self.timer()
        if timer is not None and timer.expired():
            self._time_out(timer.rule)
            raise TimedOut()
        return self.editor

    def _time_out(self, rule: TimerRule) -> None:
        assert self.editor is not None
        record = time_out(self.game, self.editor, rule)
        self.notice = time_out_text(record, rule)  # as play says it
        self.notice_seat = record.seat
        self._ended(record)

    def edit(self, commands: list[Command]) -> None:
        editor = self.person_turn()
        editor.apply_all(commands)
        self.edits += 1
        self.save_turn()

    def control(self, action: str) -> None:
        """undo, redo or reset."""
        editor = self.person_turn()
        getattr(editor, action)()
        self.edits += 1
        self.save_turn()

    def done(self) -> list[Json]:
        """End the turn with the table as edited: [] when played, else every problem with its sets."""
        editor = self.person_turn()
        marked = dataclasses.replace(editor, wording=BOARD_WORDING).marked_problems()
        if marked:
            return [{"message": m, "sets": list(sets)} for m, sets in marked]
        record = self.game.play([list(s) for s in editor.finish()], placed=True)  # as the person left them
        self.notice = f"You played {format_tiles(record.played)}."
        self.notice_seat = record.seat
        self._ended(record)
        return []

    def draw(self) -> None:
        editor = self.person_turn()
        record = self.game.draw()
        restored = "the table goes back as it was; " if editor.changed else ""
        drawn = f"you drew {record.drew}" if record.drew is not None else "the pool is empty: you passed"
        said = restored + drawn + "."
        self.notice = said[0].upper() + said[1:]
        self.notice_seat = record.seat
        self._ended(record)

    def time_up(self) -> None:
        """The page's clock ran out: the penalty if the server's clock agrees (else nothing yet)."""
        try:
            self.person_turn()
        except TimedOut:
            return

    def ai_view(self) -> tuple[str, GameView]:
        """What the AI to move needs: its level and what it may see."""
        if self.game.over:
            raise RequestError(409, "the round is over: no more turns")
        seat = self.settings.seats[self.game.seat]
        if seat.kind != "ai" or seat.level is None:
            raise RequestError(409, f"a person moves now ({seat.name}), not an AI")
        return seat.level, self.game.view()

    def ai_move(self, turn: int, table: list[list[str]] | None) -> TurnRecord:
        """Carry out the AI's choice (the table after its move, or None to draw) for ``turn``."""
        if self.game.turn != turn or self.editor is not None or self.game.over:
            raise RequestError(409, "the game moved on while the AI was thinking")
        if table is None:
            record = self.game.draw()
        else:
            rules = self.game.rules
            record = self.game.play([[Tile.parse(t, rules) for t in s] for s in table])
        return self._ended(record)

    def next_round(self) -> None:
        if not self.game.over:
            raise RequestError(409, "the round is not over yet")
        if self.round >= self.settings.rounds:
            raise RequestError(409, f"the match is over: it had {self.settings.rounds} round{'s' if self.settings.rounds > 1 else ''}")
        self.round += 1
        self.game = self.match.new_round()
        self._begin_turn()
        self.save()

    # ------------------------------------------------------------------ what a page sees

    def seat_of(self, given: str | None) -> int | None:
        """The seat a request speaks for: with ``devices`` the one whose key it gives (refused
        without a key of this game), else None (one screen: see :meth:`viewer`)."""
        if not self.settings.devices:
            if given is not None:  # a seat named where none is read: refused, not ignored
                raise RequestError(400, "this game is played on one screen: it takes no 'seat' parameter")
            return None
        if not given:
            raise RequestError(403, "this game is played on several devices: open it with your own seat's link")
        for seat, key in self.seat_keys.items():
            if secrets.compare_digest(key.encode(), given.encode()):
                return seat
        raise RequestError(403, "this seat link is not one of this game's: ask for your own seat's link")

    def check_to_move(self, seat: int | None) -> None:
        """With ``devices`` only the seat to move acts."""
        if seat is not None and not self.game.over and seat != self.game.seat:
            raise RequestError(409, f"it is {self.settings.seats[self.game.seat].name}'s turn, not yours")

    def timed_out_at(self, moment: Moment, seat: int) -> bool:
        """Whether the turn a page showed was ``seat``'s own, and the timer has since ended it."""
        if moment.round != self.round or moment.turn == self.game.turn:
            return False
        ended = next((r for r in self.game.history if r.turn == moment.turn), None)
        return ended is not None and ended.timed_out and ended.seat == seat

    def check_moment(self, moment: Moment) -> None:
        """Refuse (409) an action from a page that showed another turn, or the turn in progress
        before edits it has not seen (made in another tab): nothing is done, the page looks again."""
        if (moment.round, moment.turn) != (self.round, self.game.turn):
            raise RequestError(
                409,
                f"the game has moved on since this page showed round {moment.round}, turn {moment.turn}:"
                f" it is round {self.round}, turn {self.game.turn} now",
            )
        if moment.edits is not None and moment.edits != self.edits:
            raise RequestError(
                409,
                f"the turn has changed on another page since this one showed it (at edit {moment.edits}):"
                f" it is at edit {self.edits} now",
            )

    def seat_links(self) -> list[Json]:
        """Each person's seat key, for whoever starts the game to pass on (never in a view)."""
        return [
            {"player": seat + 1, "name": self.settings.seats[seat].name, "seat": key}
            for seat, key in sorted(self.seat_keys.items())
        ]

    def viewer(self) -> int:
        """The person at the screen: the person to move, else the last person who moved (the
        first person in turn order before anyone has)."""
        game, person = self.game, self.settings.person
        if not game.over and person(game.seat):
            return game.seat
        for record in reversed(game.history):
            if person(record.seat):
                return record.seat
        return next(s for k in range(game.players) if person(s := (game.seat + k) % game.players))

    def view(self, me: int | None = None) -> Json:
        """What seat ``me`` may see (default: the person at the one screen, :meth:`viewer`)."""
        game, settings = self.game, self.settings
        me = self.viewer() if me is None else me
        told = me == self.notice_seat
        players = [
            {
                "player": seat + 1,
                "name": s.name,
                "kind": s.kind,
                "level": s.level,
                "rack": len(game.racks[seat]),
                "opened": game.opened[seat],
            }
            for seat, s in enumerate(settings.seats)
        ]
        data: Json = {
            "id": self.key,
            "expires": int(self.store.expires("games", self.key)),
            "settings": settings.to_dict(),
            "round": self.round,
            "rounds": settings.rounds,
            "turn": game.turn,
            "to_move": None if game.over else game.seat + 1,
            "you": me + 1,
            "players": players,
            "pool": game.pool_size,
            "table": table_as_lists(game.table),
            "rack": [str(t) for t in game.racks[me]],
            "first_player": game.first_player + 1,
            "log": [self._logged(r, me) for r in game.history],
            "since": self._since(me),
            "changed": self._changed_since(me),
            "notice": self.notice if told else "",
            "editing": None,
            "timer": None,
            "over": game.over,
            "result": None,
            "match": self._match(),
        }
        if told or not settings.devices:
            # One screen: the next answer shows the next person, never the one told of; on
            # several devices the notice waits for its own seat to look.
            self.notice = ""
        if self.editor is not None:
            if me == game.seat:  # the turn in progress shows the rack of the one to move
                data["editing"] = _editing(self.editor, self.edits)
            timer = self.timer()
            if timer is not None:
                data["timer"] = {
                    "seconds": timer.rule.seconds,
                    "left": round(max(timer.left(), 0.0), 2),
                    "rule": timer.rule.describe(),
                }
        if game.over:
            data["result"] = _result(game.result())
        return data

    def _logged(self, record: TurnRecord, me: int) -> Json:
        """A turn as everyone at the table saw it (the tile drawn only for its own player)."""
        drew: bool | str = record.drew is not None
        if record.drew is not None and record.seat == me:
            drew = str(record.drew)
        return {
            "turn": record.turn,
            "player": record.player,
            "played": [str(t) for t in record.played],
            "drew": drew,
            "penalty": len(record.penalty),
            "timed_out": record.timed_out,
            "pool": record.pool,
        }

    def _since(self, me: int) -> list[Json]:
        """The turns since the viewer's last one, with the table before and after each, the sets
        each changed, and the tiles it laid marked."""
        out: list[Json] = []
        for record in reversed(self.game.history):
            if record.seat == me:
                break
            changed = changed_sets(record.table, record.table_after, rules=self.game.rules)
            out.append(
                {
                    **self._logged(record, me),
                    "table_before": table_as_lists(record.table),
                    "table_after": table_as_lists(record.table_after),
                    "changed": changed,
                    "from_rack": from_rack(record.table_after, record.played, changed),
                }
            )
        return out[::-1]

    def _changed_since(self, me: int) -> list[int]:
        """The sets of the table that others changed since the viewer's last turn (all of them
        changed, before the viewer's first turn)."""
        history = self.game.history
        last = max((k for k, r in enumerate(history) if r.seat == me), default=None)
        if last is None:
            tables = [history[0].table, *(r.table_after for r in history)] if history else [()]
        else:  # followed turn by turn: a set changed in its place is changed, wherever its twin is
            tables = [r.table_after for r in history[last:]]
        return changed_sets(*tables, self.game.table, rules=self.game.rules)

    def _match(self) -> Json:
        match = self.match
        over = self.game.over and self.round == self.settings.rounds
        data: Json = {
            "rounds": [list(r.scores) for r in match.results],
            "totals": match.totals,
            "big_totals": match.big_totals if self.settings.config.scoring == "club" else None,
            "over": over,
            "standings": [seat + 1 for seat in match.standings()] if over else None,
        }
        return data

    def turn_of(self, number: int) -> TurnRecord:
        """A played turn of the current round (its table before and after are public)."""
        history = self.game.history
        if not 1 <= number <= len(history):
            raise RequestError(404, f"no turn {number} in this round yet (turns so far: {len(history)})")
        return history[number - 1]


class TimedOut(Exception):
    """The person's time ran out before the request: the penalty is taken, the request is not."""


# --------------------------------------------------------------------------- pictures of a table


def changed_sets(*tables: Sequence[Sequence[Tile]], rules: RuleSet | None = None) -> list[int]:
    """The sets of the last table that do not stand in their places as they did in the first,
    followed through the tables between (indices from 0)."""
    kept = kept_in_place(tables, rules)
    return [i for i in range(len(tables[-1])) if i not in kept]


def from_rack(table: Sequence[Sequence[Tile]], played: Sequence[Tile], changed: Sequence[int]) -> list[list[bool]]:
    """For each set, which tiles were laid from the rack (looked for in the changed sets only)."""
    marks = Counter(played)
    out = []
    for i, s in enumerate(table):
        flags = []
        for t in s:
            mine = i in changed and marks[t] > 0
            if mine:
                marks[t] -= 1
            flags.append(mine)
        out.append(flags)
    return out


def _editing(editor: TurnEditor, edits: int) -> Json:
    """The turn in progress: the sets by their numbers during the turn (a set emptied this turn
    stays as an empty place, so that no number shifts), each tile laid this turn marked, and how
    many edits it has had (its version, which an action says it saw)."""
    state = editor.state
    return {
        "table": table_as_lists(state.table),
        "laid": [list(flags) for flags in state.own],
        "workspace": [str(t) for t in state.workspace],
        "workspace_laid": list(state.own_loose),
        "rack": [str(t) for t in state.rack],
        "can_undo": editor.can_undo(),
        "can_redo": editor.can_redo(),
        "changed": editor.changed,
        "edits": edits,
    }


def _result(result: RoundResult) -> Json:
    data = result.to_dict()
    data.pop("type")
    return data


# --------------------------------------------------------------------------- in the worker processes


def ai_choose(level: str, view: GameView, time_limit: float) -> Json:
    """The AI's move for this view (run in a solver process): the table after it, or None to draw.
    Each of its searches has the server's time limit: a hard position ends in a legal move, not
    in the request's deadline."""
    table = make_player(level, time_limit).choose(view)
    return {"table": None if table is None else table_as_lists(table)}


def steps_call(turn: TurnRecord, rules: Json, rack: str) -> tuple[Any, ...] | None:
    """The arguments of :func:`turn_steps` for a recorded turn (plain data, for a solver
    process), or None for a turn the timer ended (its table restored or taken back: no steps)."""
    if turn.timed_out:
        return None
    before = table_as_lists(turn.table)
    after = table_as_lists(turn.table_after)
    played = [str(t) for t in turn.played]
    opening = not turn.opened and bool(rules.get("continue-after-meld"))  # the meld laid first
    return before, after, played, rules, rack, opening


def turn_steps(
    before: list[list[str]],
    after: list[list[str]],
    played: list[str],
    rules: Json,
    rack: str = "your rack",
    opening: bool = False,
) -> Json:
    """The steps of a played turn, as ``solve --steps`` words them (``rack``: whose rack the tiles
    come from; ``opening``: an initial meld that went on, its meld laid first), each with the table
    after it (run in a solver process: matching the sets may search)."""
    ruleset = RuleSet.from_options(rules)

    def parse(items: Sequence[str]) -> list[Tile]:
        return [Tile.parse(t, ruleset) for t in items]

    old, new, laid = [parse(s) for s in before], [parse(s) for s in after], parse(played)
    plan = plan_steps(old, new, laid, ruleset, opening=opening)
    tables = tables_after_steps(old, plan, laid, ruleset, new)
    return {
        "steps": [
            {**step.to_dict(), "text": step.describe(rack), "after": at.to_dict()}
            for step, at in zip(plan.steps, tables)
        ],
        "tiles_moved": plan.tiles_moved,
    }


# --------------------------------------------------------------------------- the games being played


class Sessions:
    """The games in the store, the recently used ones kept live (rebuilt from their files when
    not), one request at a time per game."""

    def __init__(self, store: Store, limits: Limits, kept: int = 64) -> None:
        self.store = store
        self.limits = limits
        self.kept = kept
        self.live: OrderedDict[str, Session] = OrderedDict()
        self.locks: dict[str, threading.Lock] = {}
        self.guard = threading.Lock()

    def lock(self, key: str) -> threading.Lock:
        with self.guard:
            return self.locks.setdefault(key, threading.Lock())

    def get(self, key: str) -> Session:
        """The live game (call with its lock held). Any request about it is a use: its expiry
        moves on, whether the request changes the game or only looks at it."""
        session = self.live.get(key)
        if session is not None and not self.store.exists("games", key):
            session = None  # it expired while it stayed live here: gone as for everyone else
        if session is None:
            try:
                session = Session.load(self.store, key, self.limits)
            except NotFound as err:
                with self.guard:
                    self.live.pop(key, None)
                raise RequestError(404, err.message("game")) from None
        self.store.touch("games", key)
        with self.guard:
            self.live[key] = session
            self.live.move_to_end(key)
            while len(self.live) > self.kept:
                self.live.popitem(last=False)  # its lock stays: a request may hold it
        return session

    def create(self, body: Any) -> Json:
        """A new game's view; with ``devices``, as its first person sees it, and every person's
        seat key (``seat_links``) for whoever starts it to pass on."""
        session = Session.create(self.store, settings_from(body, self.limits))
        with self.guard:
            self.live[session.key] = session
        if not session.seat_keys:
            return session.view()
        first = min(session.seat_keys)
        return {**session.view(first), "seat": session.seat_keys[first], "seat_links": session.seat_links()}

    def act(self, key: str, action: str, body: Any = None, seat_key: str | None = None) -> Json:
        """A request about game ``key``: its view after ``action`` (``view`` only looks), for the
        seat ``seat_key`` names (with ``devices``; only the seat to move acts)."""
        body, moment = _moment(body, action)
        with self.lock(key):
            session = self.get(key)
            seat = session.seat_of(seat_key)
            if moment is not None and seat is not None and session.timed_out_at(moment, seat):
                return session.view(seat)  # another seat's page ended it first: the view says "Time is up"
            if moment is not None:
                session.check_moment(moment)
            if session.settings.devices and session.editor is not None:
                mover, turn = session.game.seat, session.game.turn
                session.time_up()  # any seat's page ends a turn whose time is up (its mover may be gone)
                if seat == mover and session.game.turn != turn and action != "next-round":
                    return session.view(seat)  # the mover's own action came too late: the view says "Time is up"
            if action not in ("view", "next-round", "timeout"):  # a time-out only ends a turn that is due
                session.check_to_move(seat)
            refused: list[Json] = []
            try:
                if action == "edit":
                    session.edit(commands_from(body, session.game.rules))
                elif action in ("undo", "redo", "reset"):
                    session.control(action)
                elif action == "done":
                    refused = session.done()
                elif action == "draw":
                    session.draw()
                elif action == "timeout":
                    session.time_up()
                elif action == "next-round":
                    session.next_round()
                elif action != "view":
                    raise RequestError(404, f"no action {shown(action)} on a game")
            except TimedOut:
                pass  # the penalty was taken instead; the view says so
            except EditError as err:
                raise RequestError(409, str(err)) from None
            data = session.view(seat)
            if refused:
                data["refused"] = refused
            return data

    def ai_view(self, key: str, seat_key: str | None = None) -> tuple[str, GameView, int]:
        with self.lock(key):
            session = self.get(key)
            session.seat_of(seat_key)  # any seat of the game may ask for the AI's turn
            level, view = session.ai_view()
            return level, view, session.game.turn

    def ai_move(self, key: str, turn: int, table: list[list[str]] | None, seat_key: str | None = None) -> Json:
        with self.lock(key):
            session = self.get(key)
            seat = session.seat_of(seat_key)
            session.ai_move(turn, table)
            return session.view(seat)

    def hint_position(self, key: str, seat_key: str | None = None) -> Json:
        """The position of the person's turn, as it started (as ``play``'s hint asks)."""
        with self.lock(key):
            session = self.get(key)
            session.check_to_move(session.seat_of(seat_key))
            try:
                editor = session.person_turn()
            except TimedOut:
                raise RequestError(409, "your time ran out: the turn is over") from None
            return editor.position.to_dict()

    def turn(self, key: str, number: int, seat_key: str | None = None) -> tuple[TurnRecord, Json, str]:
        """A played turn, the rules, and whose rack its steps name, as the viewer sees it."""
        with self.lock(key):
            session = self.get(key)
            me = session.seat_of(seat_key)
            turn = session.turn_of(number)
            me = session.viewer() if me is None else me
            rack = "your rack" if turn.seat == me else f"{session.settings.seats[turn.seat].name}'s rack"
            return turn, session.game.rules.to_dict(), rack

    def record(self, key: str, number: int, seat_key: str | None = None) -> str:
        with self.lock(key):
            session = self.get(key)
            session.seat_of(seat_key)
            return session.record_text(number)
