"""Game analysis: every turn of a game record judged against the solver's one-turn optimum.

For each turn the position the player faced (rack, table, whether they had opened, the rules) is
solved; the turn's label says how much of the optimum the recorded move missed. A draw when a play
existed misses the whole optimum. Every recorded move is also checked by the validator: an illegal
move is labelled ``illegal`` with its violations.

Labels (``objective`` tiles, the default; missed = optimal tiles − tiles played):

- ``best``: nothing missed;
- ``inaccuracy``: 1 tile missed;
- ``mistake``: 2 or 3 tiles missed;
- ``blunder``: 4 or more tiles missed, or a missed opening (the player could have made the initial
  meld and did not), or a missed going-out (the player could have emptied the rack and did not).

With ``objective`` points the same labels count points missed: inaccuracy 1–9, mistake 10–24,
blunder 25 or more (or a missed opening or going-out). The optimum is one turn's best; a player who
holds tiles back on purpose (the hard AI does) is labelled by the same yardstick.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from solver.errors import InputError, RummikubError
from solver.files import decode_text
from solver.model import Objective
from solver.position import Position
from solver.rules import RuleSet
from solver.solve import PlacedSet, SetChange, Solution, solve
from solver.tiles import Tile, points
from solver.validator import Violation, validate

# ---------------------------------------------------------------- reading a record
# Interim reader of the game-record format, until solver/records.py (the engine's) lands.


@dataclass(frozen=True)
class PlayerEntry:
    player: int
    name: str
    kind: str


@dataclass(frozen=True)
class TurnLine:
    line: int  # line number in the record file
    turn: int
    player: int
    opened: bool
    rack: tuple[Tile, ...]
    table: tuple[tuple[Tile, ...], ...]
    played: tuple[Tile, ...]
    drew: Tile | None
    table_after: tuple[tuple[Tile, ...], ...]
    penalty: tuple[Tile, ...] = ()


@dataclass(frozen=True)
class GameRecord:
    path: str
    rules: RuleSet
    players: tuple[PlayerEntry, ...]
    turns: tuple[TurnLine, ...]


def read_record(path: str) -> GameRecord:
    """A game record (JSON lines); errors name the file, the line and what is wrong."""
    try:
        with open(path, "rb") as handle:
            text = decode_text(handle.read(), f"game record {path}")
    except FileNotFoundError:
        raise InputError(f"cannot read game record {path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"cannot read game record {path}: it is a directory") from None
    except OSError as err:
        raise InputError(f"cannot read game record {path}: {err.strerror or err}") from None
    rules = RuleSet()
    players: list[PlayerEntry] = []
    turns: list[TurnLine] = []
    seen_header = False
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"game record {path} line {number}"
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as err:
            raise InputError(f"{where}: not JSON ({err.msg})") from None
        if not isinstance(data, dict) or "type" not in data:
            raise InputError(f"{where}: expected an object with a 'type'")
        kind = data["type"]
        try:
            if kind == "game":
                rules = RuleSet.from_options(data.get("rules", {}))
                players = [
                    PlayerEntry(int(p["player"]), str(p["name"]), str(p["kind"])) for p in data["players"]
                ]
                seen_header = True
            elif kind == "turn":
                if not seen_header:
                    raise InputError("a turn before the 'game' header line")
                turns.append(_turn_line(data, number, where, rules))
            elif kind != "result":
                raise InputError(f"unknown line type {kind!r}")
        except KeyError as err:
            raise InputError(f"{where}: missing field {err.args[0]!r}") from None
        except (TypeError, ValueError) as err:
            if isinstance(err, RummikubError) and str(err).startswith(("invalid", "game record")):
                raise
            raise InputError(f"{where}: {err}") from None
    if not seen_header:
        raise InputError(f"game record {path}: no 'game' header line")
    return GameRecord(path, rules, tuple(players), tuple(turns))


def _turn_line(data: dict[str, Any], number: int, where: str, rules: RuleSet) -> TurnLine:
    from solver.files import _json_tiles as json_tiles
    from solver.files import tiles_of

    def tiles(key: str, value: Any) -> tuple[Tile, ...]:
        return tuple(tiles_of(json_tiles(value, f"{key} in {where}", rules)))

    return TurnLine(
        line=number,
        turn=int(data["turn"]),
        player=int(data["player"]),
        opened=bool(data["opened"]),
        rack=tiles("rack", data["rack"]),
        table=tuple(tiles("table", s) for s in data["table"]),
        played=tiles("played", data["played"]),
        drew=tiles("drew", data["drew"])[0] if data.get("drew") else None,
        table_after=tuple(tiles("table_after", s) for s in data["table_after"]),
        penalty=tiles("penalty", data.get("penalty", [])),
    )


# ---------------------------------------------------------------- judging turns


class Label(StrEnum):
    BEST = "best"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"
    ILLEGAL = "illegal"


# Smallest amount missed for each label, per objective (below the first: best).
THRESHOLDS: dict[Objective, tuple[tuple[int, Label], ...]] = {
    Objective.TILES: ((4, Label.BLUNDER), (2, Label.MISTAKE), (1, Label.INACCURACY)),
    Objective.POINTS: ((25, Label.BLUNDER), (10, Label.MISTAKE), (1, Label.INACCURACY)),
}

MISSED_OPENING = "missed opening"
MISSED_GOING_OUT = "missed going out"


def label_for(objective: Objective, missed: int, could_open: bool, could_go_out: bool) -> Label:
    """The label of a legal move that missed ``missed`` (tiles or points) of the optimum."""
    if could_open or could_go_out:
        return Label.BLUNDER
    for least, label in THRESHOLDS[objective]:
        if missed >= least:
            return label
    return Label.BEST


@dataclass(frozen=True)
class TurnAnalysis:
    """One turn: what was played, the optimum, and the verdict."""

    line: TurnLine
    position: Position
    objective: Objective
    best: Solution
    violations: tuple[Violation, ...]

    @property
    def played(self) -> tuple[Tile, ...]:
        return tuple(self.line.played)

    @property
    def legal(self) -> bool:
        return not self.violations

    @property
    def played_tiles(self) -> int:
        return len(self.played)

    @property
    def played_points(self) -> int:
        return points(self.played, self.position.rules)

    @property
    def optimal_tiles(self) -> int:
        return self.best.tiles_played

    @property
    def optimal_points(self) -> int:
        return self.best.points_played

    @property
    def tiles_missed(self) -> int:
        return self.optimal_tiles - self.played_tiles

    @property
    def points_missed(self) -> int:
        """Can be negative: the tiles optimum may lay fewer points than a shorter move did."""
        return self.optimal_points - self.played_points

    @property
    def missed(self) -> int:
        """What the label is measured in: tiles or points missed (an illegal move counts as none played)."""
        played = self.played_tiles if self.objective is Objective.TILES else self.played_points
        optimum = self.optimal_tiles if self.objective is Objective.TILES else self.optimal_points
        return max(optimum - (played if self.legal else 0), 0)

    @property
    def reason(self) -> str:
        """Why a move that may have missed little is still a blunder (empty when it is not)."""
        if not self.legal or not self.best.tiles_played:
            return ""
        if self.optimal_tiles == len(self.position.rack) and self.played_tiles < self.optimal_tiles:
            return MISSED_GOING_OUT
        if not self.position.opened and not self.played:
            return MISSED_OPENING
        return ""

    @property
    def label(self) -> Label:
        if not self.legal:
            return Label.ILLEGAL
        reason = self.reason
        return label_for(self.objective, self.missed, reason == MISSED_OPENING, reason == MISSED_GOING_OUT)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "turn": self.line.turn,
            "player": self.line.player,
            "opened": self.position.opened,
            "played": [str(t) for t in self.played],
            "drew": str(self.line.drew) if self.line.drew is not None else None,
            "played_tiles": self.played_tiles,
            "played_points": self.played_points,
            "optimal_tiles": self.optimal_tiles,
            "optimal_points": self.optimal_points,
            "tiles_missed": self.tiles_missed,
            "points_missed": self.points_missed,
            "label": self.label.value,
            "reason": self.reason or None,
            "legal": self.legal,
            "violations": [v.to_dict() for v in self.violations],
        }
        if self.label is not Label.BEST:
            data["better"] = {
                "played": [str(t) for t in self.best.played],
                "table": [[str(t) for t in s.tiles] for s in self.best.table],
                "table_changes": [s.change.value for s in self.best.table],
            }
        return data

    def changed_sets(self) -> list[PlacedSet]:
        """The sets of the better move that are not the table's sets as they were."""
        return [s for s in self.best.table if s.change is not SetChange.UNCHANGED]


@dataclass(frozen=True)
class PlayerSummary:
    player: int
    name: str
    turns: int
    counts: dict[Label, int]
    tiles_played: int
    optimal_tiles: int
    points_played: int
    optimal_points: int
    tiles_missed: int
    points_missed: int
    objective: Objective

    @property
    def accuracy(self) -> float:
        """Percent of the optimum played (tiles or points by the objective), 100 when nothing could be."""
        if self.objective is Objective.TILES:
            got, most = self.tiles_played, self.optimal_tiles
        else:
            got, most = self.points_played, self.optimal_points
        return 100.0 if most == 0 else round(100.0 * got / most, 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "turns": self.turns,
            **{label.value: self.counts[label] for label in Label},
            "tiles_played": self.tiles_played,
            "optimal_tiles": self.optimal_tiles,
            "tiles_missed": self.tiles_missed,
            "points_played": self.points_played,
            "optimal_points": self.optimal_points,
            "points_missed": self.points_missed,
            "accuracy": self.accuracy,
        }


@dataclass(frozen=True)
class Analysis:
    record: GameRecord
    objective: Objective
    turns: tuple[TurnAnalysis, ...]
    summary: tuple[PlayerSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "objective": self.objective.value,
            "rules": self.record.rules.to_dict(),
            "players": [{"player": p.player, "name": p.name, "kind": p.kind} for p in self.record.players],
            "turns": [t.to_dict() for t in self.turns],
            "summary": [s.to_dict() for s in self.summary],
        }


def judge_turn(line: TurnLine, record: GameRecord, objective: Objective, backend: str) -> TurnAnalysis:
    """Solve the position the player faced and check the recorded move."""
    try:
        position = Position(tuple(line.rack), tuple(tuple(s) for s in line.table), line.opened, record.rules)
    except RummikubError as err:  # an invalid table or too many copies: the record itself is bad
        raise InputError(f"game record {record.path} line {line.line}: {err}") from None
    best = solve(position, objective, backend)
    return TurnAnalysis(line, position, objective, best, tuple(recorded_move_problems(position, line)))


def recorded_move_problems(position: Position, line: TurnLine) -> list[Violation]:
    """Every rule the recorded move breaks, and any disagreement between its fields."""
    if line.penalty:
        return []  # a timed-out turn: the table was restored or taken back by the penalty rule
    if not line.played:
        same = Counter(_key(s) for s in line.table_after) == Counter(_key(s) for s in line.table)
        if same:
            return []
        return [
            Violation(
                "table_changed_on_draw",
                "no tile was played, but the table after the turn differs from the table before",
            )
        ]
    problems = validate(position, line.table_after)
    laid = Counter(t for s in line.table_after for t in s) - position.table_tiles
    if laid != Counter(line.played) and not any(v.code == "tile_not_available" for v in problems):
        problems.append(
            Violation(
                "played_mismatch",
                f"'played' lists {_tiles(line.played)} but the table after the turn gained "
                f"{_tiles(sorted(laid.elements())) or 'nothing'}",
                tuple(line.played),
            )
        )
    return problems


def analyze(
    record: GameRecord,
    objective: Objective | str = Objective.TILES,
    backend: str = "bnb",
    player: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Judge every turn (only ``player``'s, numbered from 1, when given) and sum up per player."""
    objective = Objective(objective)
    lines = [t for t in record.turns if player is None or t.player == player]
    judged = []
    for done, line in enumerate(lines):
        if progress is not None:
            progress(done, len(lines))
        judged.append(judge_turn(line, record, objective, backend))
    players = [p for p in record.players if player is None or p.player == player]
    summary = tuple(
        _summary(p.player, p.name, [t for t in judged if t.line.player == p.player], objective)
        for p in players
    )
    return Analysis(record, objective, tuple(judged), summary)


def _summary(player: int, name: str, turns: Sequence[TurnAnalysis], objective: Objective) -> PlayerSummary:
    counts = Counter(t.label for t in turns)
    legal = [t for t in turns if t.legal]
    return PlayerSummary(
        player=player,
        name=name,
        turns=len(turns),
        counts={label: counts[label] for label in Label},
        tiles_played=sum(t.played_tiles for t in legal),
        optimal_tiles=sum(t.optimal_tiles for t in turns),
        points_played=sum(t.played_points for t in legal),
        optimal_points=sum(t.optimal_points for t in turns),
        tiles_missed=sum(t.optimal_tiles - (t.played_tiles if t.legal else 0) for t in turns),
        points_missed=sum(t.optimal_points - (t.played_points if t.legal else 0) for t in turns),
        objective=objective,
    )


def _key(s: Sequence[Tile]) -> tuple[Tile, ...]:
    return tuple(sorted(s))


def _tiles(tiles: Sequence[Tile]) -> str:
    return " ".join(str(t) for t in tiles)
