"""The score sheet of a game played at a real table: rounds as entered, scores, totals, the file.

Owns: what was left on a rack (tiles in the notation, or only their sum) and its penalty under
the table's joker penalty; the scoring of one round by the standard rules or the club sheet
(docs/rules.md, "End of a round and scoring"); running totals, big and small points,
standings; and the score file (JSON, documented in docs/commands.md). The file keeps each round as it
was entered (the racks, not the scores), so a correction or a reopened file loses nothing;
scores are always recomputed.

Scoring:
- A round is won by the player who empties the rack. Every other player loses the penalty of
  their rack (the numbers, a joker the joker penalty: 30, 50 or 100); the winner gains the sum
  of those losses, so every round adds up to zero.
- Blocked round (the pool empty and nobody can play): the lowest rack wins. Standard: the others
  lose their whole rack; club sheet: only the difference between their rack and the winner's.
- Club sheet only: a player who never opened loses a flat 100, one who could have opened and did
  not a flat 200, in place of their rack. 1 big point per round won; players rank by big points,
  then small points (the sum of their round scores).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from solver.errors import InputError
from solver.file_io import load_json, read_text, write_whole
from solver.game.scoring import (
    CLUB_JOKER_VALUE,
    STANDARD_JOKER_VALUE,
    blocked_winners,
    club_scores,
    rack_value,
    standard_scores,
)
from solver.tiles import Tile, TileSyntaxError, format_tiles, parse_token
from solver.wording import count, json_text

FORMAT = "rummikub-score-sheet"
VERSION = 1
MIN_PLAYERS, MAX_PLAYERS = 2, 6
JOKER_PENALTIES = (30, 50, 100)
MAX_RACK_SUM = 10_000  # no real rack comes near; a bigger number is a typo
MAX_NAME = 30
# A real game's tiles: two copies of each numbered tile, two jokers.
COPIES, JOKERS = 2, 2
_RACK_SPLIT = re.compile(r"[\s,;]+")


class Scoring(StrEnum):
    """How rounds are scored."""

    STANDARD = "standard"  # winner takes the sum of the others' racks
    CLUB = "club"  # as standard, plus big points, never-opened penalties, blocked-round differences


def default_joker_penalty(scoring: Scoring) -> int:
    """What a joker left on a rack costs unless the table says otherwise: 30, on the club sheet 100."""
    return CLUB_JOKER_VALUE if scoring is Scoring.CLUB else STANDARD_JOKER_VALUE


@dataclass(frozen=True)
class Settings:
    """The scoring rules of one sheet, fixed when it is started."""

    scoring: Scoring = Scoring.STANDARD
    joker_penalty: int = 30

    def __post_init__(self) -> None:
        if not isinstance(self.scoring, Scoring):
            raise InputError(f"unknown scoring {self.scoring!r} (standard or club)")
        if type(self.joker_penalty) is not int or self.joker_penalty not in JOKER_PENALTIES:
            allowed = ", ".join(map(str, JOKER_PENALTIES))
            raise InputError(f"joker penalty {json_text(self.joker_penalty)} is not one of {allowed}")


class RoundError(InputError):
    """A round that cannot be entered. Keeps the field (``rack``, ``winner``, ``never-opened``,
    ``could-have-opened``, ``blocked``), the token and the problem apart, so that the command line
    can name its option and a file its round."""

    def __init__(self, field: str, token: str | None, reason: str) -> None:
        self.field = field
        self.token = token
        self.reason = reason
        super().__init__(self.located(field))

    def located(self, label: str) -> str:
        """The message with the field called ``label``: ``--rack 'Bob=R14': invalid tile …``."""
        if self.token is None:
            return f"{label}: {self.reason}"
        return f"{label} {self.token!r}: {self.reason}"


# --------------------------------------------------------------------------- racks


@dataclass(frozen=True)
class Rack:
    """What was left on one rack: the tiles, or only their sum when that is what was written down."""

    tiles: tuple[Tile, ...] = ()
    written_sum: int | None = None  # set when the rack was entered as a number

    def penalty(self, joker_penalty: int) -> int:
        """What the rack costs: the numbers of its tiles, each joker ``joker_penalty``."""
        if self.written_sum is not None:
            return self.written_sum  # the players counted it, jokers included
        return rack_value(self.tiles, joker_penalty)

    def to_json(self) -> str | int:
        """As the score file keeps it: the tiles in canonical notation, or the sum as a number."""
        return self.written_sum if self.written_sum is not None else format_tiles(self.tiles)

    def __str__(self) -> str:
        return str(self.to_json())


def parse_left_rack(text: str | int) -> Rack:
    """A rack as written: tiles (``R5 K12 J``, shorthands allowed) or one number, their sum.

    Raises ValueError with the problem (the caller knows where the text came from).
    """
    if isinstance(text, int) and not isinstance(text, bool):
        return _rack_sum(text)
    if not isinstance(text, str):
        raise ValueError("a rack is the tiles as a string or their sum as a number")
    tokens = [t for t in _RACK_SPLIT.split(text.strip()) if t]
    if not tokens:
        raise ValueError("empty rack: give the tiles left (like R5 K12 J) or their sum (like 23)")
    if len(tokens) == 1 and re.fullmatch(r"[+-]?[0-9]+", tokens[0]):
        return _rack_sum(int(tokens[0]))
    tiles: list[Tile] = []
    for token in tokens:
        try:
            tiles.extend(parse_token(token))
        except TileSyntaxError as err:
            hint = " (a sum is written alone, without tiles)" if token.isascii() and token.isdigit() else ""
            raise ValueError(f"invalid tile {err.token!r}: {err.reason}{hint}") from None
    return Rack(tiles=tuple(tiles))


def _rack_sum(value: int) -> Rack:
    if value < 0:
        raise ValueError(f"a rack sum cannot be negative ({value})")
    if value > MAX_RACK_SUM:
        raise ValueError(f"a rack sum of {value} is not possible (at most {MAX_RACK_SUM})")
    return Rack(written_sum=value)


# --------------------------------------------------------------------------- players


def parse_players(names: str | Sequence[str]) -> tuple[str, ...]:
    """The players in seat order, from ``"Ann,Bob,Cy"`` or a list; 2–6 distinct names."""
    given = names.split(",") if isinstance(names, str) else list(names)
    players: list[str] = []
    for raw in given:
        if not isinstance(raw, str):
            raise InputError(f"player name {raw!r} is not text")
        name = raw.strip()
        if not name:
            raise InputError(f"players {_shown(names)!r}: an empty name")
        if "=" in name or "," in name:
            raise InputError(f"player {name!r}: a name may not contain '=' or ','")
        if not name.isprintable():  # a line break or a control character would break the sheet's table
            raise InputError(f"player {name!r}: a name must be printable (no line break or tab)")
        if len(name) > MAX_NAME:
            raise InputError(f"player {name!r}: a name has at most {MAX_NAME} characters")
        if name.casefold() in (p.casefold() for p in players):
            raise InputError(f"player {name!r} is named twice")
        players.append(name)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InputError(
            f"players {_shown(names)!r}: {count(len(players), 'player')}, a game has {MIN_PLAYERS} to {MAX_PLAYERS}"
        )
    return tuple(players)


def _shown(names: str | Sequence[str]) -> str:
    return names if isinstance(names, str) else ",".join(map(str, names))


def _find_player(players: Sequence[str], name: str) -> str | None:
    """The player called ``name`` (case and surrounding spaces do not matter)."""
    wanted = name.strip().casefold()
    return next((p for p in players if p.casefold() == wanted), None)


# --------------------------------------------------------------------------- rounds


@dataclass(frozen=True)
class Round:
    """One round as entered. Only ``make_round`` builds one, so every Round fits its sheet."""

    winner: str | None  # as entered; None in a blocked round won by the lowest rack
    racks: tuple[tuple[str, Rack], ...]  # (player, rack), in seat order
    never_opened: tuple[str, ...] = ()
    could_have_opened: tuple[str, ...] = ()
    blocked: bool = False

@dataclass(frozen=True)
class RoundScore:
    """The outcome of one round: who won, each rack's penalty, each player's score (seat order)."""

    winner: str
    rack_sums: dict[str, int]
    scores: dict[str, int]


def round_from_options(
    players: Sequence[str],
    settings: Settings,
    *,
    winner: str | None,
    racks: Sequence[str],
    never_opened: Sequence[str] = (),
    could_have_opened: Sequence[str] = (),
    blocked: bool = False,
) -> Round:
    """A round from command-line style input: racks as ``NAME=TILES`` or ``NAME=SUM``.

    Never-opened lists may also be comma-separated (``Cy,Dee``). Raises RoundError.
    """
    entries: list[tuple[str, str, str | int]] = []
    for option in racks:
        name, sep, text = option.partition("=")
        if not sep or not name.strip():
            raise RoundError("rack", option, "write NAME=TILES or NAME=SUM, like 'Bob=R5 K12 J' or 'Bob=23'")
        entries.append((option, name, text))
    return make_round(
        players,
        settings,
        winner=winner,
        racks=entries,
        never_opened=_split_names(never_opened),
        could_have_opened=_split_names(could_have_opened),
        blocked=blocked,
    )


def _split_names(values: Sequence[str]) -> list[str]:
    return [name for value in values for name in value.split(",")]


def make_round(
    players: Sequence[str],
    settings: Settings,
    *,
    winner: str | None,
    racks: Sequence[tuple[str, str, str | int]],
    never_opened: Sequence[str] = (),
    could_have_opened: Sequence[str] = (),
    blocked: bool = False,
) -> Round:
    """Check one round against the sheet's players and settings and build it.

    ``racks`` holds (token to quote in messages, player name, rack as written). Every player but
    the winner must have a rack; in a blocked round every player, and the winner (named or not)
    is the lowest rack. Raises RoundError naming the field, the token and the problem.
    """
    named_winner = _named_winner(players, winner, blocked)
    parsed = _parsed_racks(players, racks, named_winner, blocked)
    round_winner = _round_winner(parsed, settings, named_winner, winner, blocked)
    never, could = _opening_flags(players, settings, round_winner, never_opened, could_have_opened, blocked)
    return Round(
        winner=named_winner,
        racks=tuple((p, parsed[p]) for p in players if p in parsed),
        never_opened=never,
        could_have_opened=could,
        blocked=blocked,
    )


def _named_winner(players: Sequence[str], winner: str | None, blocked: bool) -> str | None:
    """The winner as the sheet names them; only a blocked round may leave it out."""
    if winner is not None:
        named = _find_player(players, winner)
        if named is None:
            raise RoundError("winner", winner, f"unknown player (players: {', '.join(players)})")
        return named
    if not blocked:
        raise RoundError(
            "winner", None, "required: who emptied the rack (if nobody could play, the round is blocked)"
        )
    return None


def _parsed_racks(
    players: Sequence[str], racks: Sequence[tuple[str, str, str | int]], named_winner: str | None, blocked: bool
) -> dict[str, Rack]:
    """Every rack the round needs, once each, read and checked against the game's tiles."""
    parsed: dict[str, Rack] = {}
    tokens: dict[str, str] = {}
    for token, name, text in racks:
        player = _find_player(players, name)
        if player is None:
            raise RoundError(
                "rack", token, f"unknown player {name.strip()!r} (players: {', '.join(players)})"
            )
        if player in parsed:
            raise RoundError("rack", token, f"{player}'s rack is given twice")
        if player == named_winner and not blocked:
            raise RoundError(
                "rack",
                token,
                f"{player} won the round: the winner's rack is empty (if nobody could "
                "play, the round is blocked)",
            )
        try:
            parsed[player] = parse_left_rack(text)
        except ValueError as err:
            raise RoundError("rack", token, str(err)) from None
        tokens[player] = token
    needed = [p for p in players if blocked or p != named_winner]
    missing = [p for p in needed if p not in parsed]
    if missing:
        who = "every player's rack" if blocked else "the rack of every player but the winner"
        raise RoundError(
            "rack",
            None,
            f"missing for {', '.join(missing)} (a {'blocked ' if blocked else ''}round needs {who})",
        )
    _check_tile_counts(players, parsed, tokens)
    return parsed


def _round_winner(
    parsed: Mapping[str, Rack], settings: Settings, named_winner: str | None, winner: str | None, blocked: bool
) -> str:
    """Who won: the named winner, else (blocked) the lowest rack, which a named winner must hold."""
    sums = {p: parsed[p].penalty(settings.joker_penalty) for p in parsed}
    if blocked:
        lowest = _lowest(sums)
        if named_winner is not None and named_winner not in lowest:
            best = lowest[0]
            raise RoundError(
                "winner",
                winner,
                f"{named_winner}'s rack ({sums[named_winner]}) is not the lowest in a "
                f"blocked round ({best} has {sums[best]})",
            )
        if named_winner is None and len(lowest) > 1:
            raise RoundError(
                "blocked",
                None,
                f"{' and '.join(lowest)} tie for the lowest rack ({sums[lowest[0]]}): name the winner",
            )
    return named_winner or _lowest(sums)[0]


def _opening_flags(
    players: Sequence[str],
    settings: Settings,
    round_winner: str,
    never_opened: Sequence[str],
    could_have_opened: Sequence[str],
    blocked: bool = False,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The club sheet's never-opened and could-have-opened players, in seat order. A player who
    went out opened; the lowest rack of a blocked round may never have (it wins all the same)."""
    flags: dict[str, tuple[str, ...]] = {}
    for key, names in (("never-opened", never_opened), ("could-have-opened", could_have_opened)):
        found: list[str] = []
        for name in names:
            player = _find_player(players, name)
            if player is None:
                raise RoundError(key, name, f"unknown player (players: {', '.join(players)})")
            if settings.scoring is not Scoring.CLUB:
                raise RoundError(
                    key,
                    name,
                    "standard scoring has no never-opened penalty (it is a club-sheet rule: "
                    "start the sheet with scoring club)",
                )
            if player in found:
                raise RoundError(key, name, f"{player} is named twice")
            if player == round_winner and not blocked:
                raise RoundError(key, name, f"{player} went out, so opened")
            found.append(player)
        flags[key] = tuple(p for p in players if p in found)
    both = [p for p in flags["never-opened"] if p in flags["could-have-opened"]]
    if both:
        raise RoundError(
            "could-have-opened",
            both[0],
            "also named never-opened: a player is one or the other "
            "(could have opened: 200, never could: 100)",
        )
    return flags["never-opened"], flags["could-have-opened"]


def _check_tile_counts(players: Sequence[str], racks: Mapping[str, Rack], tokens: Mapping[str, str]) -> None:
    """A game has two of each tile: more on the racks of one round is a typo."""
    seen: Counter[Tile] = Counter()
    for player in players:
        rack = racks.get(player)
        if rack is None:
            continue
        for t in rack.tiles:
            seen[t] += 1
            limit = JOKERS if t.is_joker else COPIES
            if seen[t] > limit:
                raise RoundError(
                    "rack", tokens[player], f"{t} is on the racks {seen[t]} times (a game has {limit})"
                )


def _lowest(sums: Mapping[str, int]) -> list[str]:
    """The players with the lowest rack, in seat order (``sums`` is in seat order)."""
    players = list(sums)
    return [players[seat] for seat in blocked_winners(list(sums.values()))]


def score_round(rnd: Round, players: Sequence[str], settings: Settings) -> RoundScore:
    """Each player's score in one round (zero-sum), by the sheet's scoring (solver.game.scoring:
    the sheet names one winner, a blocked round's lowest rack when nobody is named)."""
    sums = {p: rack.penalty(settings.joker_penalty) for p, rack in rnd.racks}
    winner = rnd.winner or _lowest(sums)[0]
    values = [sums.get(p, 0) for p in players]  # the winner who went out entered no rack
    winners = [players.index(winner)]
    if settings.scoring is Scoring.CLUB:
        never = [p in rnd.never_opened or p in rnd.could_have_opened for p in players]
        seats = club_scores(
            values,
            winners,
            blocked=rnd.blocked,
            opened=[not n for n in never],
            could_have_opened=[p in rnd.could_have_opened for p in players],
        ).small
    else:
        seats = tuple(standard_scores(values, winners))
    return RoundScore(winner=winner, rack_sums=sums, scores=dict(zip(players, seats)))


# --------------------------------------------------------------------------- the sheet


@dataclass(frozen=True)
class Standing:
    rank: int  # players with equal results share a rank (1, 1, 3)
    player: str
    total: int  # small points on the club sheet
    big_points: int


@dataclass(frozen=True)
class Results:
    """Everything computed from a sheet: round scores, running totals, big points, standings."""

    sheet: Sheet
    rounds: tuple[RoundScore, ...]
    running: tuple[dict[str, int], ...]  # totals after each round
    totals: dict[str, int]
    big_points: dict[str, int]
    standings: tuple[Standing, ...]

    def to_dict(self) -> dict[str, Any]:
        """The ``score show --json`` object."""
        sheet = self.sheet
        club = sheet.settings.scoring is Scoring.CLUB
        rounds = []
        for number, (rnd, score, running) in enumerate(zip(sheet.rounds, self.rounds, self.running), start=1):
            rounds.append(
                {
                    "round": number,
                    "winner": score.winner,
                    "blocked": rnd.blocked,
                    "racks": {p: rack.to_json() for p, rack in rnd.racks},
                    "rack_sums": score.rack_sums,
                    "never_opened": list(rnd.never_opened),
                    "could_have_opened": list(rnd.could_have_opened),
                    "scores": score.scores,
                    "running_totals": running,
                }
            )
        data: dict[str, Any] = {
            "scoring": sheet.settings.scoring.value,
            "joker_penalty": sheet.settings.joker_penalty,
            "players": list(sheet.players),
            "rounds": rounds,
            "totals": self.totals,
        }
        if club:
            data["big_points"] = self.big_points
            data["small_points"] = self.totals
        data["standings"] = [
            {"rank": s.rank, "player": s.player, "total": s.total}
            | ({"big_points": s.big_points, "small_points": s.total} if club else {})
            for s in self.standings
        ]
        return data


@dataclass(frozen=True)
class Sheet:
    """A game's score sheet: players in seat order, the scoring settings, the rounds as entered."""

    players: tuple[str, ...]
    settings: Settings = field(default_factory=Settings)
    rounds: tuple[Round, ...] = ()

    def with_round(self, rnd: Round) -> Sheet:
        return Sheet(self.players, self.settings, (*self.rounds, rnd))

    def with_round_replaced(self, number: int, rnd: Round) -> Sheet:
        """The sheet with round ``number`` (from 1) replaced: a correction."""
        self.check_round_number(number)
        rounds = list(self.rounds)
        rounds[number - 1] = rnd
        return Sheet(self.players, self.settings, tuple(rounds))

    def check_round_number(self, number: int) -> None:
        if not 1 <= number <= len(self.rounds):
            have = f"rounds 1 to {len(self.rounds)}" if self.rounds else "no rounds yet"
            raise InputError(f"round {number} does not exist (the sheet has {have})")

    def results(self) -> Results:
        scores = tuple(score_round(r, self.players, self.settings) for r in self.rounds)
        totals = dict.fromkeys(self.players, 0)
        running: list[dict[str, int]] = []
        for score in scores:
            for p in self.players:
                totals[p] += score.scores[p]
            running.append(dict(totals))
        big = dict.fromkeys(self.players, 0)
        for score in scores:
            big[score.winner] += 1
        club = self.settings.scoring is Scoring.CLUB

        def key(p: str) -> tuple[int, ...]:
            return (big[p], totals[p]) if club else (totals[p],)

        order = sorted(self.players, key=key, reverse=True)  # stable: seat order breaks ties
        standings: list[Standing] = []
        for place, p in enumerate(order, start=1):
            rank = standings[-1].rank if standings and key(standings[-1].player) == key(p) else place
            standings.append(Standing(rank, p, totals[p], big[p]))
        return Results(self, scores, tuple(running), totals, big, tuple(standings))


def new_sheet(
    players: str | Sequence[str], scoring: Scoring | str = Scoring.STANDARD, joker_penalty: int | None = None
) -> Sheet:
    """A sheet with no rounds; the joker penalty defaults to the scoring's (30, club 100)."""
    try:
        mode = Scoring(scoring)
    except ValueError:
        raise InputError(f"unknown scoring {scoring!r} (standard or club)") from None
    penalty = default_joker_penalty(mode) if joker_penalty is None else joker_penalty
    return Sheet(parse_players(players), Settings(mode, penalty))


# --------------------------------------------------------------------------- the file

_TOP_KEYS = ("format", "version", "settings", "players", "rounds")
_SETTINGS_KEYS = ("scoring", "joker_penalty")
_ROUND_KEYS = ("winner", "racks", "never_opened", "could_have_opened", "blocked")
# How a round's fields are called in the file (RoundError.field -> key).
_FILE_FIELDS = {
    "winner": "winner",
    "rack": "racks",
    "never-opened": "never_opened",
    "could-have-opened": "could_have_opened",
    "blocked": "blocked",
}


def dumps(sheet: Sheet) -> str:
    """The score file's text: JSON, one line per round so that a person can read and diff it."""

    def js(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    settings = {"scoring": sheet.settings.scoring.value, "joker_penalty": sheet.settings.joker_penalty}
    lines = [
        "{",
        f'  "format": {js(FORMAT)},',
        f'  "version": {VERSION},',
        f'  "settings": {js(settings)},',
        f'  "players": {js(list(sheet.players))},',
    ]
    if not sheet.rounds:
        lines.append('  "rounds": []')
    else:
        lines.append('  "rounds": [')
        for i, rnd in enumerate(sheet.rounds):
            comma = "," if i < len(sheet.rounds) - 1 else ""
            lines.append(f"    {js(_round_json(rnd))}{comma}")
        lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _round_json(rnd: Round) -> dict[str, Any]:
    # Fields at their default are left out, to keep each round short.
    data: dict[str, Any] = {"winner": rnd.winner, "racks": {p: rack.to_json() for p, rack in rnd.racks}}
    if rnd.never_opened:
        data["never_opened"] = list(rnd.never_opened)
    if rnd.could_have_opened:
        data["could_have_opened"] = list(rnd.could_have_opened)
    if rnd.blocked:
        data["blocked"] = True
    return data


def loads(text: str, label: str = "<text>") -> Sheet:
    """A sheet from the score file's text; ``label`` names the file in messages."""
    where = f"score file {label}"
    data = load_json(text, where)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f'{where} is not a score sheet (expected a JSON object with "format": "{FORMAT}")')
    _check_keys(data, _TOP_KEYS, where)
    version = data.get("version")
    if type(version) is not int or version != VERSION:  # true == 1 in Python, not in JSON
        raise InputError(
            f"{where}: format version {json_text(version)} is not supported (this program reads {VERSION})"
        )
    for key in _TOP_KEYS:
        if key not in data:
            raise InputError(f"{where}: {key!r} is missing")
    settings_data = data["settings"]
    if not isinstance(settings_data, dict):
        raise InputError(f"{where}: 'settings' must be an object with {', '.join(_SETTINGS_KEYS)}")
    _check_keys(settings_data, _SETTINGS_KEYS, f"{where} settings")
    for key in _SETTINGS_KEYS:
        if key not in settings_data:
            raise InputError(f"{where}: settings {key!r} is missing")
    if not isinstance(data["players"], list):
        raise InputError(f"{where}: 'players' must be a list of names")
    try:
        sheet = new_sheet(data["players"], settings_data["scoring"], settings_data["joker_penalty"])
    except InputError as err:
        raise InputError(f"{where}: {err}") from None
    if not isinstance(data["rounds"], list):
        raise InputError(f"{where}: 'rounds' must be a list")
    for number, item in enumerate(data["rounds"], start=1):
        sheet = sheet.with_round(round_from_json(item, sheet, f"{where} round {number}"))
    return sheet




def _check_keys(data: Mapping[str, Any], known: Iterable[str], where: str) -> None:
    unknown = [k for k in data if k not in known]
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(known)})")


def round_from_json(item: Any, sheet: Sheet, where: str) -> Round:
    """A round as the score file writes it (``{"winner": ..., "racks": {...}, ...}``), checked
    against the sheet; InputError starts with ``where``."""
    if not isinstance(item, dict):
        raise InputError(f"{where}: a round must be an object with {', '.join(_ROUND_KEYS)}")
    _check_keys(item, _ROUND_KEYS, where)
    winner = item.get("winner")
    racks = item.get("racks")
    blocked = item.get("blocked", False)
    if winner is not None and not isinstance(winner, str):
        raise InputError(f"{where}: 'winner' must be a player's name or null")
    if not isinstance(racks, dict):
        raise InputError(f'{where}: \'racks\' must be an object like {{"Bob": "R5 K12 J", "Cy": 23}}')
    if not isinstance(blocked, bool):
        raise InputError(f"{where}: 'blocked' must be true or false")
    flags: dict[str, list[str]] = {}
    for key in ("never_opened", "could_have_opened"):
        names = item.get(key, [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"{where}: {key!r} must be a list of names")
        flags[key] = names
    for name, rack in racks.items():
        if not isinstance(rack, (str, int)) or isinstance(rack, bool):
            raise InputError(f'{where}: racks {name!r} must be tiles ("R5 K12 J") or points (23), got {json_text(rack)}')
    entries = [(f"{name}={rack}", name, rack) for name, rack in racks.items()]
    try:
        return make_round(
            sheet.players,
            sheet.settings,
            winner=winner,
            racks=entries,
            never_opened=flags["never_opened"],
            could_have_opened=flags["could_have_opened"],
            blocked=blocked,
        )
    except RoundError as err:
        raise InputError(f"{where}: {err.located(_FILE_FIELDS[err.field])}") from None


def load(path: str) -> Sheet:
    """Read a score file; every problem is one line naming the file and what is wrong."""
    text, label = read_text(path, "score")
    return loads(text, label)


def save(sheet: Sheet, path: str, *, overwrite: bool = True) -> None:
    """Write the score file whole or not at all (a link's file is the one written)."""
    if not overwrite and os.path.exists(path):
        raise InputError(f"score file {path} already exists (use --force to overwrite it)")
    write_whole(path, dumps(sheet), "score file")
