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
from pathlib import Path
from typing import Any

from solver.errors import InputError, RummikubError
from solver.file_io import shown_path
from solver.game.engine import TurnRecord
from solver.game.records import GameRecord, read_record
from solver.position import Position
from solver.solution import Objective, PlacedSet, SetChange, Shortfall, Solution
from solver.solve import SolveOptions, solve
from solver.tiles import Tile, points, table_as_lists
from solver.validator import Violation, validate

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

    turn: TurnRecord
    position: Position
    objective: Objective
    best: Solution
    violations: tuple[Violation, ...]

    @property
    def played(self) -> tuple[Tile, ...]:
        return self.turn.played

    @property
    def legal(self) -> bool:
        return not self.violations

    @property
    def counts(self) -> bool:
        """Whether the tiles played count against the optimum: not for an illegal move, nor for a
        turn the timer ended (the table was restored, or its broken sets taken back with the
        tiles of others: what stayed down is no move the player chose)."""
        return self.legal and not self.turn.timed_out

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
    def shortfall(self) -> Shortfall:
        """Against the optimum; a move that does not count as none played."""
        if not self.counts:
            return Shortfall.of(self.best, 0, 0)
        return Shortfall.of(self.best, self.played_tiles, self.played_points)

    @property
    def tiles_missed(self) -> int:
        return self.shortfall.tiles

    @property
    def points_missed(self) -> int:
        """Can be negative: the tiles optimum may lay fewer points than a shorter move did."""
        return self.shortfall.points

    @property
    def missed(self) -> int:
        """What the label is measured in: tiles or points missed (a move that does not count, as none played)."""
        return self.shortfall.missed(self.objective)

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
            "turn": self.turn.turn,
            "player": self.turn.player,
            "opened": self.position.opened,
            "played": [str(t) for t in self.played],
            "drew": str(self.turn.drew) if self.turn.drew is not None else None,
            "timed_out": self.turn.timed_out,
            "penalty": [str(t) for t in self.turn.penalty],
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
                "table": table_as_lists(s.tiles for s in self.best.table),
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
    def accuracy(self) -> float | None:
        """Percent of the optimum played (tiles or points by the objective), 100 when nothing could
        be; None for a player with no turn in the record (nothing to measure)."""
        if not self.turns:
            return None
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
    source: str  # the record's file name
    record: GameRecord
    objective: Objective
    turns: tuple[TurnAnalysis, ...]
    summary: tuple[PlayerSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "record": self.source,
            "objective": self.objective.value,
            "rules": self.record.rules.to_dict(),
            "players": [p.to_dict() for p in self.record.header.players],
            "turns": [t.to_dict() for t in self.turns],
            "summary": [s.to_dict() for s in self.summary],
        }


def judge_turn(
    turn: TurnRecord, record: GameRecord, options: SolveOptions = SolveOptions(), source: str = "<record>"
) -> TurnAnalysis:
    """Solve the position the player faced and check the recorded move."""
    try:
        position = Position(turn.rack, turn.table, turn.opened, record.rules)
    except RummikubError as err:  # e.g. more copies of a tile than the game has: the record is bad
        raise InputError(f"record {source} line {_line_of(source, turn.turn)}: {err}") from None
    best = solve(position, options)
    return TurnAnalysis(turn, position, options.objective, best, tuple(recorded_move_problems(position, turn)))


def recorded_move_problems(position: Position, turn: TurnRecord) -> list[Violation]:
    """Every rule the recorded move breaks (the record reader has already checked that the table
    after the turn is valid sets holding the table before plus the tiles played)."""
    if turn.timed_out:
        return []  # a timed-out turn: the table was restored or taken back by the penalty rule
    return validate(position, turn.table_after)


def analyze_file(
    path: str,
    options: SolveOptions = SolveOptions(),
    player: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Read a record and judge it (see :func:`analyze`)."""
    return analyze(read_record(path), options, player, progress, shown_path(path))


def analyze(
    record: GameRecord,
    options: SolveOptions = SolveOptions(),
    player: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    source: str = "<record>",
) -> Analysis:
    """Judge every turn (only ``player``'s, numbered from 1, when given) and sum up per player."""
    objective = options.objective
    players = [p for p in record.header.players if player is None or p.player == player]
    if not players:
        numbers = ", ".join(str(p.player) for p in record.header.players)
        raise InputError(f"record {source} has players {numbers}: no player {player}")
    chosen = [t for t in record.turns if player is None or t.player == player]
    judged = []
    for done, turn in enumerate(chosen):
        if progress is not None:
            progress(done, len(chosen))
        judged.append(judge_turn(turn, record, options, source))
    return Analysis(source, record, objective, tuple(judged), summarize(record, judged, objective, player))


def summarize(
    record: GameRecord, judged: Sequence[TurnAnalysis], objective: Objective, player: int | None = None
) -> tuple[PlayerSummary, ...]:
    """One summary per player of the record (only ``player``, from 1, when given) over the judged
    turns, whichever way they were judged (all at once by :func:`analyze`, or one by one)."""
    return tuple(
        _summary(p.player, p.name, [t for t in judged if t.turn.player == p.player], objective)
        for p in record.header.players
        if player is None or p.player == player
    )


def _line_of(source: str, turn: int) -> int | str:
    """The line of turn ``turn`` in the record file (only needed for an error message)."""
    try:
        lines = Path(source).read_text(encoding="utf-8").splitlines()
    except OSError:
        return "?"
    for number, line in enumerate(lines, 1):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and data.get("type") == "turn" and data.get("turn") == turn:
            return number
    return "?"


def _summary(player: int, name: str, turns: Sequence[TurnAnalysis], objective: Objective) -> PlayerSummary:
    counts = Counter(t.label for t in turns)
    counted = [t for t in turns if t.counts]
    return PlayerSummary(
        player=player,
        name=name,
        turns=len(turns),
        counts={label: counts[label] for label in Label},
        tiles_played=sum(t.played_tiles for t in counted),
        optimal_tiles=sum(t.optimal_tiles for t in turns),
        points_played=sum(t.played_points for t in counted),
        optimal_points=sum(t.optimal_points for t in turns),
        tiles_missed=sum(t.tiles_missed for t in turns),
        points_missed=sum(t.points_missed for t in turns),
        objective=objective,
    )
