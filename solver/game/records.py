"""Game records: one round as JSON lines, written by ``play`` and ``selfplay``, read by ``analyze``.

The format (version 1), one JSON object per line; players are numbered from 1, tiles are written
in the notation (``"R5"``, ``"J"``), sets as lists of tiles:

1. Header: ``{"type": "game", "version": 1, "rules": {...}, "seed": 7, "scoring": "standard",
   "players": [{"player": 1, "name": "you", "kind": "human"}, ...], "first_player": 2}``; it may
   also hold ``"deal"`` (the deal variants ``redeal_three_pairs``, ``joker_each``, ``rack_size``).
2. One line per turn: ``{"type": "turn", "turn": 1, "player": 2, "opened": false, "rack": [...],
   "table": [[...], ...], "played": [...], "drew": "K3" | null, "table_after": [[...], ...],
   "pool": 78}`` — ``opened``: had the player opened before this turn; ``rack`` and ``table``:
   before the turn; ``played``: tiles laid from the rack (``[]`` for a draw); ``drew``: the tile
   drawn (null for a play or a pass); ``pool``: tiles left in the pool after the turn; a turn the
   timer ended has ``"timeout": true`` and its penalty tiles, if any, in ``"penalty": [...]``.
3. Last line (absent while a round is unfinished): ``{"type": "result", "winner": 1 | null,
   "reason": "rack_empty" | "blocked", "scores": [...one per player in seat order...],
   "racks": [[...], ...], "scoring": "standard"}``, plus ``"big"`` (club big points), ``"tied"``
   (players sharing a tied blocked round), ``"opened"`` and ``"turns"`` when known.

Readers ignore keys they do not know (later versions may add some). Every problem found while
reading names the file, the line and what is wrong.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solver.errors import InputError, RulesError
from solver.file_io import load_json, os_reason, read_input, write_whole
from solver.game.engine import RACK_SIZE, Game, RoundResult, TurnRecord, describe_deal
from solver.game.scoring import blocked_winners, joker_value, rack_value, standard_scores
from solver.melds import why_invalid
from solver.rules import RuleSet
from solver.tiles import Tile, TileSyntaxError, format_tiles
from solver.wording import count, json_text

VERSION = 1
MAX_RECORD_BYTES = 50_000_000  # a long four-player round is well under 1 MB
REASONS = ("rack_empty", "blocked")
KINDS = ("human", "ai")


@dataclass(frozen=True)
class PlayerInfo:
    player: int  # 1-based
    name: str
    kind: str  # "human" | "ai"

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "name": self.name, "kind": self.kind}


@dataclass(frozen=True)
class GameHeader:
    """The record's first line: rules, seed, scoring, who played, who started."""

    rules: RuleSet
    seed: int
    players: tuple[PlayerInfo, ...]
    first_player: int  # 1-based
    scoring: str = "standard"
    deal: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def for_game(cls, game: Game, names: Sequence[str], kinds: Sequence[str] | None = None) -> GameHeader:
        """The header of ``game`` with these player names (kinds default to ``ai``)."""
        kinds = kinds or ["ai"] * len(names)
        if len(names) != game.players or len(kinds) != game.players:
            raise InputError(f"{count(game.players, 'player')} need {game.players} names and kinds")
        config = game.config
        return cls(
            rules=game.rules,
            seed=config.seed,
            players=tuple(PlayerInfo(i + 1, n, k) for i, (n, k) in enumerate(zip(names, kinds))),
            first_player=game.first_player + 1,
            scoring=config.scoring,
            deal={
                "redeal_three_pairs": config.redeal_three_pairs,
                "joker_each": config.joker_each,
                "rack_size": config.rack_size,
            },
        )

    def describe_deal(self) -> str:
        """As ``GameConfig.describe_deal`` says it ("" for the standard game)."""
        return describe_deal(
            self.scoring,
            int(self.deal.get("rack_size", RACK_SIZE)),
            bool(self.deal.get("joker_each")),
            bool(self.deal.get("redeal_three_pairs")),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "game",
            "version": VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "scoring": self.scoring,
            "players": [p.to_dict() for p in self.players],
            "first_player": self.first_player,
        }
        if self.deal:
            data["deal"] = dict(self.deal)
        return data


@dataclass(frozen=True)
class GameRecord:
    """A whole record as read back: the header, every turn, and the result if the round ended."""

    header: GameHeader
    turns: tuple[TurnRecord, ...]
    result: RoundResult | None

    @property
    def rules(self) -> RuleSet:
        return self.header.rules


Line = Mapping[str, Any]


def _as_dict(item: GameHeader | TurnRecord | RoundResult | Line) -> dict[str, Any]:
    if isinstance(item, (GameHeader, TurnRecord, RoundResult)):
        return item.to_dict()
    return dict(item)


def record_lines(
    header: GameHeader | Line,
    turns: Iterable[TurnRecord | Line],
    result: RoundResult | Line | None,
) -> list[str]:
    """The record as JSON text lines (no newlines)."""
    lines = [_as_dict(header), *(_as_dict(t) for t in turns)]
    if result is not None:
        lines.append(_as_dict(result))
    return [json.dumps(line, separators=(", ", ": ")) for line in lines]


def write_record(
    path: str | Path,
    header: GameHeader | Line,
    turns: Iterable[TurnRecord | Line],
    result: RoundResult | Line | None,
) -> None:
    """Write one round's record (``result`` None: an unfinished round, no result line)."""
    write_record_lines(path, record_lines(header, turns, result))


def write_record_lines(path: str | Path, lines: Iterable[str]) -> None:
    """Write a record's lines whole or not at all (an interrupted write leaves no half record)."""
    write_whole(path, "".join(line + "\n" for line in lines), "record")


class RecordWriter:
    """Writes a record as the round goes on: the header now, each turn as it is played, then the result."""

    def __init__(self, path: str | Path, header: GameHeader | Line) -> None:
        self.path = str(path)
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        except OSError as err:
            raise InputError(f"cannot write record {path}: {os_reason(err, writing=True)}") from None
        self._size = 0  # bytes of whole lines written
        self._line(_as_dict(header))

    def _line(self, data: dict[str, Any]) -> None:
        """One line, whole or not at all: a write that fails (a full disk) is cut back to the
        lines before it, so the record stays readable up to there."""
        text = (json.dumps(data, separators=(", ", ": ")) + "\n").encode("utf-8")
        try:
            done = 0
            while done < len(text):
                done += os.write(self._fd, text[done:])
        except OSError as err:
            with suppress(OSError):
                os.ftruncate(self._fd, self._size)
                os.lseek(self._fd, self._size, os.SEEK_SET)
            raise InputError(f"cannot write record {self.path}: {os_reason(err, writing=True)}") from None
        self._size += len(text)

    def turn(self, turn: TurnRecord | Line) -> None:
        self._line(_as_dict(turn))

    def result(self, result: RoundResult | Line) -> None:
        self._line(_as_dict(result))

    def close(self) -> None:
        with suppress(OSError):  # what could not be written was said already
            os.close(self._fd)

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---------------------------------------------------------------------- reading


class _Reader:
    """Field access for one line, with messages that say where."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected a JSON object")
        self.data: dict[str, Any] = data
        self.where = where

    def get(self, key: str) -> Any:
        if key not in self.data:
            raise InputError(f"{self.where}: missing field {key!r}")
        return self.data[key]

    def integer(self, key: str, low: int | None = None, high: int | None = None) -> int:
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{self.where}: {key!r} must be a whole number, got {json_text(value)}")
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"{low}..{high}" if high is not None else f"at least {low}"
            raise InputError(f"{self.where}: {key!r} is {value}, expected {span}")
        return value

    def boolean(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            raise InputError(f"{self.where}: {key!r} must be true or false, got {json_text(value)}")
        return value

    def text(self, key: str, choices: Sequence[str] | None = None) -> str:
        value = self.get(key)
        if not isinstance(value, str):
            raise InputError(f"{self.where}: {key!r} must be a string, got {json_text(value)}")
        if choices is not None and value not in choices:
            raise InputError(f"{self.where}: {key!r} is {value!r}, expected one of {', '.join(choices)}")
        if not value.isprintable():  # a name goes to the terminal: no escape sequences, no line breaks
            raise InputError(f"{self.where}: {key!r} must be printable text, got {value!r}")
        return value

    def tiles(self, key: str, rules: RuleSet, value: Any = None) -> tuple[Tile, ...]:
        value = self.get(key) if value is None else value
        if not isinstance(value, list):
            raise InputError(f'{self.where}: {key!r} must be a list of tiles such as ["R4", "R5"]')
        out = []
        for item in value:
            if not isinstance(item, str):
                raise InputError(
                    f'{self.where}: {key!r} holds {json_text(item)}, not a tile (tiles are strings like "R7")'
                )
            try:
                out.append(Tile.parse(item, rules))
            except TileSyntaxError as err:
                raise InputError(err.located(f"{key!r} of {self.where}")) from None
        return tuple(out)

    def sets(self, key: str, rules: RuleSet, check: bool = True) -> tuple[tuple[Tile, ...], ...]:
        value = self.get(key)
        if not isinstance(value, list):
            raise InputError(f"{self.where}: {key!r} must be a list of sets (lists of tiles)")
        out = []
        for i, raw in enumerate(value, 1):
            if not isinstance(raw, list):
                raise InputError(f"{self.where}: {key!r} set {i} must be a list of tiles")
            tiles = self.tiles(f"{key} set {i}", rules, raw)
            reason = why_invalid(tiles, rules) if check else None
            if reason is not None:
                raise InputError(
                    f"{self.where}: {key!r} set {i} '{format_tiles(tiles)}' is invalid: {reason}"
                )
            out.append(tiles)
        return tuple(out)


def read_record(path: str | Path) -> GameRecord:
    """Read and check a record; a problem raises InputError naming the file, the line and what."""
    text, label = read_input(str(path), "record", MAX_RECORD_BYTES)
    return parse_record(text, label)


def _not_one_object_over_lines(text: str, first: str, label: str) -> None:
    """Another kind of JSON file (a score sheet, a position, on one line or several) is named as
    what it is, not as a record whose first line is broken or lacks its type."""
    try:
        data = json.loads(first)
    except (ValueError, RecursionError):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return  # broken JSON indeed: the line's own error says where
        if isinstance(data, dict):
            what = _another_kind(data) or "one JSON object over several lines"
            raise InputError(f"record {label} is {what}, not a game record (JSON lines, the first of type 'game')") from None
        return
    other = _another_kind(data) if isinstance(data, dict) and "type" not in data else None
    if other:
        raise InputError(f"record {label} is {other}, not a game record (JSON lines, the first of type 'game')")


def _another_kind(data: dict[str, Any]) -> str | None:
    if data.get("format") == "rummikub-score-sheet":
        return "a score sheet (rummikub score show reads it)"
    if "rack" in data:
        return "a position (rummikub solve reads it)"
    return None


def parse_record(text: str, label: str = "<record>") -> GameRecord:
    """A record from its text (see the module docstring for the format)."""
    numbered = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not numbered:
        raise InputError(f"record {label} is empty (expected a game line first)")
    _not_one_object_over_lines(text, numbered[0][1], label)
    header: GameHeader | None = None
    turns: list[TurnRecord] = []
    result: RoundResult | None = None
    places: list[str] = []  # where each turn, then the result, was read
    for number, line in numbered:
        where = f"record {label} line {number}"
        data = load_json(line, where, one_line=True)
        reader = _Reader(data, where)
        kind = reader.text("type", ("game", "turn", "result"))
        if header is None:
            if kind != "game":
                raise InputError(f"{where}: the first line must be the game line (type 'game'), not {kind!r}")
            header = _header(reader)
            continue
        if result is not None:
            raise InputError(f"{where}: nothing may follow the result line")
        if kind == "game":
            raise InputError(f"{where}: a second game line (one record holds one round)")
        if kind == "turn":
            turns.append(_turn(reader, header, turns))
        else:
            result = _result(reader, header, len(turns))
        places.append(where)
    assert header is not None
    _Story(header, places).check(turns, result)
    return GameRecord(header, tuple(turns), result)


def _header(reader: _Reader) -> GameHeader:
    where = reader.where
    version = reader.integer("version")
    if version != VERSION:
        raise InputError(f"{where}: record version {version} is not supported (this program reads {VERSION})")
    raw_rules = reader.get("rules")
    if not isinstance(raw_rules, dict):
        raise InputError(f"{where}: 'rules' must be an object of rule options")
    try:
        rules = RuleSet.from_json(raw_rules)
    except RulesError as err:
        raise err.at(where) from None
    raw_players = reader.get("players")
    if not isinstance(raw_players, list) or not 2 <= len(raw_players) <= 6:
        raise InputError(f"{where}: 'players' must be a list of 2 to 6 player objects")
    players = []
    for i, raw in enumerate(raw_players, 1):
        player = _Reader(raw, f"{where} player {i}")
        number = player.integer("player", i, i)
        players.append(PlayerInfo(number, player.text("name"), player.text("kind", KINDS)))
    deal = reader.data.get("deal", {})
    if not isinstance(deal, dict):
        raise InputError(f"{where}: 'deal' must be an object")
    if "rack_size" in deal:
        _Reader(deal, f"{where} 'deal'").integer("rack_size", 1, 40)
    return GameHeader(
        rules=rules,
        seed=reader.integer("seed"),
        players=tuple(players),
        first_player=reader.integer("first_player", 1, len(players)),
        scoring=reader.text("scoring", ("standard", "club")),
        deal=deal,
    )


def _turn(reader: _Reader, header: GameHeader, before: Sequence[TurnRecord]) -> TurnRecord:
    where = reader.where
    rules = header.rules
    number = reader.integer("turn", 1)
    expected = before[-1].turn + 1 if before else 1
    if number != expected:
        raise InputError(f"{where}: turn {number} where turn {expected} was expected")
    player = reader.integer("player", 1, len(header.players))
    rack = reader.tiles("rack", rules)
    table = reader.sets("table", rules)
    played = reader.tiles("played", rules)
    drew_raw = reader.get("drew")
    drew = None if drew_raw is None else reader.tiles("drew", rules, [drew_raw])[0]
    table_after = reader.sets("table_after", rules, check=False)
    penalty = reader.tiles("penalty", rules) if "penalty" in reader.data else ()
    timed_out = reader.boolean("timeout") if "timeout" in reader.data else bool(penalty)
    missing = Counter(played) - Counter(rack)
    if missing:
        raise InputError(
            f"{where}: 'played' holds {format_tiles(sorted(missing.elements()))}, not on the rack"
        )
    if not timed_out:
        # A normal turn conserves tiles: the table after is the table before plus what was laid.
        after, expect = Counter(t for s in table_after for t in s), Counter(t for s in table for t in s)
        expect.update(played)
        if after != expect:
            raise InputError(f"{where}: 'table_after' is not the table plus the tiles played")
        for i, s in enumerate(table_after, 1):
            reason = why_invalid(s, rules)
            if reason is not None:
                raise InputError(f"{where}: 'table_after' set {i} '{format_tiles(s)}' is invalid: {reason}")
        if played and drew is not None:
            raise InputError(f"{where}: a turn either plays tiles or draws one, not both")
    return TurnRecord(
        turn=number,
        seat=player - 1,
        opened=reader.boolean("opened"),
        rack=rack,
        table=table,
        played=played,
        drew=drew,
        table_after=table_after,
        pool=reader.integer("pool", 0),
        penalty=penalty,
        timed_out=timed_out,
    )


def _result(reader: _Reader, header: GameHeader, turns: int) -> RoundResult:
    where = reader.where
    players = len(header.players)
    winner_raw = reader.get("winner")
    winner = None if winner_raw is None else reader.integer("winner", 1, players) - 1
    scores = reader.get("scores")
    if not isinstance(scores, list) or len(scores) != players:
        raise InputError(f"{where}: 'scores' must be a list of {players} numbers (one per player)")
    if any(isinstance(s, bool) or not isinstance(s, int) for s in scores):
        raise InputError(f"{where}: 'scores' must hold whole numbers")
    racks = reader.get("racks")
    if not isinstance(racks, list) or len(racks) != players:
        raise InputError(f"{where}: 'racks' must be a list of {players} racks (one per player)")
    parsed = tuple(reader.tiles(f"racks {i}", header.rules, r) for i, r in enumerate(racks, 1))
    big = reader.data.get("big", [])
    if not isinstance(big, list) or (big and len(big) != players):
        raise InputError(f"{where}: 'big' must be a list of {players} numbers")
    tied = reader.data.get("tied", [])
    if not isinstance(tied, list) or any(isinstance(t, bool) or not isinstance(t, int) for t in tied):
        raise InputError(f"{where}: 'tied' must be a list of player numbers")
    opened = reader.data.get("opened", [])
    if not isinstance(opened, list) or any(not isinstance(o, bool) for o in opened):
        raise InputError(f"{where}: 'opened' must be a list of true/false")
    winners = tuple(t - 1 for t in tied) if tied else ((winner,) if winner is not None else ())
    return RoundResult(
        winner=winner,
        reason=reader.text("reason", REASONS),
        scores=tuple(scores),
        racks=parsed,
        scoring=reader.text("scoring", ("standard", "club")) if "scoring" in reader.data else header.scoring,
        big=tuple(int(b) for b in big),
        winners=winners,
        opened=tuple(opened),
        turns=reader.integer("turns", 0) if "turns" in reader.data else turns,
    )


class _Story:
    """The record read as one round: every number that follows from the rest is checked.

    Whose turn it is (from the first player, in seat order); the table each turn starts from (the
    one the turn before left); each rack (what the player's last turn left: the rack, plus tiles
    that came off the table, plus the tile drawn and any penalty tiles); tile copies, across every
    rack at once; ``opened``
    (true once the player has played); the pool (less a tile per draw and the penalty tiles; a pass
    only once it is empty); and the result: the last turn's player emptied their rack, or the last
    turn of every player was a pass; the racks left; the winner of a blocked round; the scores
    (standard: exactly; club: big points and a zero sum); ``turns`` and ``opened``.

    A header with ``deal`` (``play`` and ``selfplay`` always write it) says how the round began, so
    the first turns are checked against it too: an empty table, racks of the size dealt, nobody
    opened, and a pool of every tile not dealt. Without it, the record takes up the round where its
    first turn finds it (a hand-written record may start from any position).
    """

    def __init__(self, header: GameHeader, places: Sequence[str]) -> None:
        self.header = header
        self.places = places
        self.players = len(header.players)

    def fail(self, index: int, problem: str) -> InputError:
        return InputError(f"{self.places[index]}: {problem}")

    def check(self, turns: Sequence[TurnRecord], result: RoundResult | None) -> None:
        rules = self.header.rules
        dealt = bool(self.header.deal)
        rack_size = int(self.header.deal.get("rack_size", RACK_SIZE))
        pool: int | None = rules.tile_count - self.players * rack_size if dealt else None
        racks: dict[int, Counter[Tile]] = {}  # each seat's rack after its latest turn
        opened: dict[int, bool] = {}
        table: Counter[tuple[Tile, ...]] | None = Counter() if dealt else None
        for i, turn in enumerate(turns):
            seat = turn.seat
            expected = (self.header.first_player - 1 + i) % self.players
            if seat != expected:
                raise self.fail(i, f"player {turn.player} moves, but it is player {expected + 1}'s turn")
            if table is not None and Counter(tuple(sorted(s)) for s in turn.table) != table:
                raise self.fail(i, "'table' is not the table the turn before left" if i else "'table' must be empty: a round starts with an empty table")
            rack = Counter(turn.rack)
            if seat in racks and rack != racks[seat]:
                raise self.fail(
                    i, f"'rack' is {_tiles(rack)}, but player {turn.player}'s last turn left {_tiles(racks[seat])}"
                )
            if seat not in racks and dealt and len(turn.rack) != rack_size:
                raise self.fail(
                    i, f"'rack' holds {count(len(turn.rack), 'tile')} at player {turn.player}'s first turn,"
                    f" but {rack_size} are dealt"
                )
            self._check_copies(i, rack + Counter(t for s in turn.table for t in s))
            if (seat in opened or dealt) and turn.opened != opened.get(seat, False):
                said = "has opened" if opened.get(seat, False) else "has not opened yet"
                raise self.fail(i, f"'opened' is {str(turn.opened).lower()}, but player {turn.player} {said}")
            if pool is None:  # taken up mid-round: the pool before the first turn follows from it
                pool = turn.pool + (turn.drew is not None) + len(turn.penalty)
            pool = self._check_pool(i, turn, pool)
            racks[seat] = _rack_after(turn)
            opened[seat] = turn.opened or bool(turn.played)
            table = Counter(tuple(sorted(s)) for s in turn.table_after)
        self._check_copies_in_play(turns, racks)
        if result is not None:
            self._check_result(len(turns), turns, result, racks, opened)

    def _check_copies_in_play(self, turns: Sequence[TurnRecord], last: dict[int, Counter[Tile]]) -> None:
        """Tile copies across all players at once: a rack changes only on its player's turn, so
        between two of their turns it is the rack the next one starts from (after the last, what
        that left), and each turn's table plus every rack known then must fit the game's copies."""
        later: dict[int, Counter[Tile]] = dict(last)  # each seat's rack from this turn on
        held: list[dict[int, Counter[Tile]]] = []
        for turn in reversed(turns):
            later[turn.seat] = Counter(turn.rack)
            held.append(dict(later))
        held.reverse()
        rules = self.header.rules
        for i, (turn, racks) in enumerate(zip(turns, held)):
            tiles = Counter(t for s in turn.table for t in s)
            for rack in racks.values():
                tiles.update(rack)
            for t, n in sorted(tiles.items()):
                limit = rules.jokers if t.is_joker else rules.copies
                if n > limit:
                    where = ", ".join(f"player {seat + 1}: {racks[seat][t]}" for seat in sorted(racks) if racks[seat][t])
                    what = "jokers" if t.is_joker else f"copies of {t}"
                    raise self.fail(
                        i, f"too many {what} at once: {n} on the table and the racks ({where}), the game has {limit}"
                    )

    def _check_copies(self, i: int, tiles: Counter[Tile]) -> None:
        rules = self.header.rules
        for t, n in sorted(tiles.items()):
            limit = rules.jokers if t.is_joker else rules.copies
            if n > limit:
                what = "jokers" if t.is_joker else f"copies of {t}"
                raise self.fail(i, f"too many {what}: {n} on the rack and the table, the game has {limit}")

    def _check_pool(self, i: int, turn: TurnRecord, before: int) -> int:
        drawn = (1 if turn.drew is not None else 0) + len(turn.penalty)
        if turn.drew is not None and before == 0:
            raise self.fail(i, f"'drew' is {turn.drew}, but the pool was empty")
        if not turn.played and turn.drew is None and not turn.penalty and before > 0:
            raise self.fail(i, f"neither played nor drew, but the pool held {count(before, 'tile')}: a pass comes only once it is empty")
        expected = max(before - drawn, 0)
        if turn.pool != expected:
            took = f", less {count(drawn, 'tile')} drawn" if drawn else ""
            raise self.fail(i, f"'pool' is {turn.pool}, but it held {before} before this turn{took}: expected {expected}")
        return expected

    def _check_result(
        self,
        i: int,
        turns: Sequence[TurnRecord],
        result: RoundResult,
        racks: dict[int, Counter[Tile]],
        opened: dict[int, bool],
    ) -> None:
        if result.turns != len(turns):
            raise self.fail(i, f"'turns' is {result.turns}, but the record holds {count(len(turns), 'turn')}")
        for seat, left in racks.items():
            if Counter(result.racks[seat]) != left:
                raise self.fail(
                    i, f"'racks' gives player {seat + 1} {_tiles(Counter(result.racks[seat]))}, but their last turn"
                    f" left {_tiles(left)}"
                )
        if result.opened and len(result.opened) != self.players:
            raise self.fail(i, f"'opened' must hold {self.players} flags, one per player")
        for seat, was in opened.items():
            if result.opened and result.opened[seat] != was:
                raise self.fail(i, f"'opened' says player {seat + 1} {'did not open' if was else 'opened'}, but they {'did' if was else 'did not'}")
        if result.reason == "rack_empty":
            if not turns or racks.get(turns[-1].seat):
                raise self.fail(i, "'reason' is 'rack_empty', but the last turn's player did not empty their rack")
            if result.winner != turns[-1].seat:
                named = "nobody" if result.winner is None else f"player {result.winner + 1}"
                raise self.fail(
                    i, f"'winner' is {named}, but player {turns[-1].seat + 1} emptied their rack and won"
                )
        else:
            passes = turns[-self.players :]
            if len(passes) < self.players or any(t.played or t.drew is not None or t.penalty for t in passes):
                raise self.fail(i, "'reason' is 'blocked', but not every player passed in turn at the end")
        if len(racks) < self.players:
            return  # a player who never moved: their rack, and so the scores, cannot be checked
        self._check_scores(i, result)

    def _check_scores(self, i: int, result: RoundResult) -> None:
        club = result.scoring == "club"
        joker = joker_value(club, self.header.rules.joker_penalty)
        values = [rack_value(r, joker) for r in result.racks]
        winners = list(result.winners) or ([result.winner] if result.winner is not None else [])
        if result.reason == "blocked":
            lowest = blocked_winners(values, [len(r) for r in result.racks])
            if sorted(winners) != lowest:
                named = ", ".join(str(w + 1) for w in lowest)
                raise self.fail(i, f"the lowest rack wins a blocked round: player {named}, not as recorded")
        if not winners:
            raise self.fail(i, "a round has a winner (or tied winners in 'tied')")
        if club:
            big = [1 if len(winners) == 1 and seat == winners[0] else 0 for seat in range(self.players)]
            if result.big and list(result.big) != big:
                raise self.fail(i, f"'big' is {list(result.big)}: 1 big point goes to the winner, expected {big}")
            if sum(result.scores):
                raise self.fail(i, f"'scores' add up to {sum(result.scores)}: a round's small points add up to 0")
            return
        expected = standard_scores(values, winners)
        if list(result.scores) != expected:
            raise self.fail(i, f"'scores' is {list(result.scores)}, but the racks left score {expected}")


def _rack_after(turn: TurnRecord) -> Counter[Tile]:
    """The player's rack after the turn: tiles are conserved between rack, table and the draws."""
    rack = Counter(turn.rack) + Counter(t for s in turn.table for t in s)
    rack.subtract(Counter(t for s in turn.table_after for t in s))
    rack.update(turn.penalty)
    if turn.drew is not None:
        rack[turn.drew] += 1
    return +rack


def _tiles(tiles: Counter[Tile]) -> str:
    return format_tiles(sorted(tiles.elements())) or "nothing"
