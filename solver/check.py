"""Judging a proposed answer: is the table after the move legal, and how far from the optimum?

An illegal answer plays nothing: its ``tiles_played`` and ``points_played`` are 0 and it is as far
from the optimum as a draw, so that every report (text, JSON, picture) tells the same story.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from solver.melds import why_invalid
from solver.position import Position
from solver.solution import Objective, Shortfall, Solution, Status
from solver.solve import SolveOptions, solve
from solver.tiles import Tile, points
from solver.validator import Violation, played_tiles, validate


@dataclass(frozen=True)
class CheckReport:
    position: Position
    answer: tuple[tuple[Tile, ...], ...]
    objective: Objective
    violations: tuple[Violation, ...]
    played: tuple[Tile, ...]  # the rack tiles the answer lays (they count only if it is legal)
    best: Solution  # the optimum (shown only on request)

    @property
    def legal(self) -> bool:
        return not self.violations

    @property
    def tiles_played(self) -> int:
        """Tiles the move plays: none when it is illegal."""
        return len(self.played) if self.legal else 0

    @property
    def points_played(self) -> int:
        """Points the move plays: none when it is illegal."""
        return points(self.played, self.position.rules) if self.legal else 0

    @property
    def proven(self) -> bool:
        """Whether ``best`` is proven optimal (a time limit may stop the search before)."""
        return self.best.status is not Status.TIME_LIMIT

    @property
    def optimal(self) -> bool | None:
        """Legal and as good as the optimum by the chosen objective; None when that is not known:
        legal and as good as the best move found, the search stopped by its time limit."""
        if not self.legal:
            return False
        if self.missed > 0:
            return False  # a legal move that plays more is known
        return True if self.proven else None

    @property
    def missed(self) -> int:
        """How far short of the optimum (of the best move found, if unproven), in the chosen
        objective's unit; 0 when as good (an unproven search may have found less than the answer)."""
        return Shortfall.of(self.best, self.tiles_played, self.points_played).missed(self.objective)

    def violation_sets(self) -> tuple[tuple[int, ...], ...]:
        """For each violation, the sets of the answer it is about (indices from 0), so that a
        picture of the answer can mark them: an invalid set is itself; a violation that names
        its sets (a joker's rule) is about those; any other violation naming tiles is about every
        set holding one of them (none when no set does: a table tile that went missing)."""
        rules = self.position.rules
        invalid = [i for i, s in enumerate(self.answer) if why_invalid(list(s), rules) is not None]
        out: list[tuple[int, ...]] = []
        for v in self.violations:
            if v.code == "invalid_set":
                # The validator names invalid sets in table order, each with its tiles as given.
                i = next(i for i in invalid if self.answer[i] == v.tiles)
                invalid.remove(i)
                out.append((i,))
            elif v.sets:
                out.append(v.sets)
            else:
                named = set(v.tiles)
                out.append(tuple(i for i, s in enumerate(self.answer) if named & set(s)))
        return tuple(out)

    def to_dict(self, show: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "legal": self.legal,
            "violations": [v.to_dict() for v in self.violations],
            "tiles_played": self.tiles_played,
            "points_played": self.points_played,
            "optimal_tiles": self.best.tiles_played,
            "optimal_points": self.best.points_played,
            "optimal": self.optimal,
            "proven": self.proven,
            "objective": self.objective.value,
        }
        if show:
            data["best"] = self.best.to_dict(timing=False)
        return data


def check_answer(
    position: Position,
    answer: Sequence[Sequence[Tile]],
    options: SolveOptions = SolveOptions(),
) -> CheckReport:
    """Validate ``answer`` (the whole table after the move) and compare it with the optimum."""
    violations = validate(position, answer, as_written=True)  # the next turn reads it as written
    played = played_tiles(position, answer) & Counter(position.rack)
    best = solve(position, options)
    return CheckReport(
        position=position,
        answer=tuple(tuple(s) for s in answer),
        objective=options.objective,
        violations=tuple(violations),
        played=tuple(sorted(played.elements())),
        best=best,
    )
