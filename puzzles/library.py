"""Puzzles: position files with a measured difficulty and a recorded answer, shipped in ``puzzles/``.

A puzzle file is a position file with three more keys: ``difficulty: N`` (1–5, measured by
``measure``), ``answer-played: N`` (tiles an optimal answer plays) and ``answer:`` followed by one
optimal table after the move, one set per line. ``load_puzzle`` reads one, ``puzzle_text`` writes one.

Difficulty measures the person's work, not the solver's: it is read from the steps of the optimal
answer that moves the fewest table tiles (``solver.steps.best_steps``, ``solver.least_moves``):
*tiles moved* (table tiles that end in another set) and *sets broken* (table sets that lose a
tile or are split).

1. nothing on the table changes but for additions: laying new sets and extending sets reaches
   the optimum;
2. one table set changes, and at most one tile moves (a split, a shift, a group swap, a joker
   retrieved, a tile borrowed from an end);
3. at most three tiles move and at most two sets are broken;
4. at most six tiles move and at most three sets are broken;
5. more: seven or more tiles move, or four or more sets are broken (several sets rebuilt at once).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from solver.errors import InputError
from solver.file_io import read_text, write_whole
from solver.files import PUZZLE_KEYS, PUZZLE_ONLY_KEYS, position_from_fields, read_fields, read_puzzle_record
from solver.position import Position
from solver.rules import RuleSet
from solver.solution import Objective, SetChange, Solution, Status, describe_table
from solver.solve import SolveOptions, solve
from solver.steps import Plan, best_steps
from solver.tiles import Tile, format_tiles, table_as_lists
from solver.validator import played_tiles, validate


@dataclass(frozen=True)
class Difficulty:
    level: int
    tiles_moved: int
    sets_broken: int
    steps: int

    def to_dict(self) -> dict[str, int]:
        return {
            "level": self.level,
            "tiles_moved": self.tiles_moved,
            "sets_broken": self.sets_broken,
            "steps": self.steps,
        }


@dataclass(frozen=True)
class Puzzle:
    position: Position
    difficulty: int
    answer_played: int
    answer: tuple[tuple[Tile, ...], ...]
    path: str

    @property
    def id(self) -> str:
        return str(self.position.id) or Path(self.path).stem

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.position.title, "difficulty": self.difficulty}

    def to_dict(self, answer: bool = True) -> dict[str, Any]:
        """The puzzle as JSON; without ``answer`` it leaves the recorded answer out (a trainer
        shows the puzzle, not its solution)."""
        p = self.position
        data: dict[str, Any] = {
            "id": self.id,
            "title": p.title,
            "difficulty": self.difficulty,
            "rack": [str(t) for t in p.rack],
            "table": table_as_lists(p.table),
            "initial_meld": not p.opened,
            "rules": p.rules.to_dict(),
        }
        if answer:
            data["answer"] = {
                "tiles_played": self.answer_played,
                "table": table_as_lists(self.answer),
            }
        return data

    def answer_solution(self) -> Solution:
        """The recorded answer as a solved turn (rack tiles marked, each set's change named), so
        that it is shown as ``solve`` shows an answer. Checked by the validator first."""
        p = self.position
        violations = validate(p, self.answer)
        if violations:
            raise InputError(
                f"puzzle {self.id}: the recorded answer is illegal: {violations[0].message}"
                f" (record it again with: rummikub puzzles record {self.path})"
            )
        played = tuple(sorted(played_tiles(p, self.answer).elements()))
        placed = describe_table(p, self.answer, played)
        kept = sum(1 for s in placed if s.change is SetChange.UNCHANGED)
        return Solution(p, Status.OPTIMAL if played else Status.NO_MOVE, Objective.TILES, played,
                        placed, kept, "recorded", 0.0, 0.0, 0.0)


def _measured_with(position: Position) -> str:
    """The formulation whose optimum the library's difficulties were measured on.

    The fewest tiles moved are found among arrangements of the solver's played tiles, so another
    optimum (the pattern model's, say) can measure a level lower; the flow model keeps the library
    and the generator as measured.
    """
    from solver.model.flow import flow_supported
    from solver.model.table_jokers import needs_joker_rows

    return "flow" if flow_supported(position.rules) and not needs_joker_rows(position) else "auto"


def measure(position: Position, solution: Solution | None = None) -> tuple[Difficulty, Solution, Plan]:
    """How much work an optimal answer asks of a person (see the module docstring).

    Returns the difficulty, the answer rearranged to move the fewest table tiles, and its steps.
    """
    solution, plan = best_steps(solution or solve(position, SolveOptions(formulation=_measured_with(position))))
    moved, broken = plan.tiles_moved, plan.sets_broken
    if moved == 0 and broken == 0:
        level = 1
    elif moved <= 1 and broken <= 1:
        level = 2
    elif moved <= 3 and broken <= 2:
        level = 3
    elif moved <= 6 and broken <= 3:
        level = 4
    else:
        level = 5
    return Difficulty(level, moved, broken, len(plan.steps)), solution, plan


def load_puzzle(path: str) -> Puzzle:
    text, label = read_text(path, "puzzle")
    fields = read_fields(text, label, PUZZLE_KEYS)
    extras = {k: fields.pop(k) for k in PUZZLE_ONLY_KEYS if k in fields}
    position = position_from_fields(fields, label)
    where = f"puzzle file {label}"
    for key in PUZZLE_ONLY_KEYS:
        if key not in extras:
            raise InputError(f"{where}: no '{key}:' line (record it with: rummikub puzzles record {path})")
    recorded = read_puzzle_record(extras, where, position.rules)
    assert recorded.difficulty is not None and recorded.answer_played is not None and recorded.answer is not None
    return Puzzle(position, recorded.difficulty, recorded.answer_played, recorded.answer, path)


def puzzle_text(puzzle: Puzzle) -> str:
    """The puzzle as a puzzle file (``load_puzzle`` reads it back as the same puzzle)."""
    p = puzzle.position
    lines = [f"id: {puzzle.id}"]
    if p.title:
        lines.append(f"title: {p.title}")
    lines.append(f"opened: {'yes' if p.opened else 'no'}")
    if p.rules != RuleSet():
        lines.append(f"rules: {p.rules.describe()}")
    lines.append(f"rack: {format_tiles(p.rack)}")
    lines += ["table:", *(f"  {format_tiles(s)}" for s in p.table)]
    if p.notes:
        lines.append(f"notes: {p.notes}".replace("\n", "\n  "))  # later lines indented: the note goes on
    lines += [f"difficulty: {puzzle.difficulty}", f"answer-played: {puzzle.answer_played}", "answer:"]
    lines += [f"  {format_tiles(s)}" for s in puzzle.answer]
    return "\n".join(lines) + "\n"


def write_puzzle(puzzle: Puzzle, path: str | Path) -> None:
    """Write a puzzle file whole (an interrupted write leaves nothing behind)."""
    write_whole(path, puzzle_text(puzzle), "puzzle file")


def puzzle_dir() -> Path:
    """The folder holding the bundled position files (works from a wheel or a checkout)."""
    return Path(str(resources.files("puzzles")))


def library() -> list[Puzzle]:
    """Every bundled puzzle, by difficulty then id."""
    found = [load_puzzle(str(p)) for p in sorted(puzzle_dir().glob("*.txt"))]
    return sorted(found, key=lambda p: (p.difficulty, p.id))


def find(puzzle_id: str) -> Puzzle:
    """The bundled puzzle with this id; InputError names the closest ids when there is none."""
    puzzles = library()
    for puzzle in puzzles:
        if puzzle.id == puzzle_id:
            return puzzle
    close = closest_ids(puzzle_id, 0.0)
    raise InputError(
        f"no puzzle {puzzle_id!r}; the closest: {', '.join(close)} ('rummikub puzzles list' lists all {len(puzzles)})"
    )


def closest_ids(name: str, cutoff: float = 0.6) -> list[str]:
    """The three puzzle ids closest to ``name``, closest first: ids holding it, then the most
    similar (difflib's ratio at least ``cutoff``; 0: whatever the ratio)."""
    ids = [p.id for p in library()]
    holding = [i for i in ids if name.lower() in i]
    similar = difflib.get_close_matches(name.lower(), ids, n=3, cutoff=cutoff)
    return list(dict.fromkeys([*holding, *similar]))[:3]


def recorded_text(text: str, difficulty: Difficulty, solution: Solution) -> str:
    """A puzzle file's text with its measured difficulty and an optimal answer (re)written, in
    the file's own line endings (and its byte order mark, if it starts with one)."""
    newline = "\r\n" if "\r\n" in text else "\r" if "\r" in text else "\n"
    mark = "\ufeff" if text.startswith("\ufeff") else ""
    keep = []
    skipping = False
    for line in text.splitlines():
        head = line.split(":", 1)[0].strip().lower()
        if not line[:1].isspace() and ":" in line and head in ("difficulty", "answer-played", "answer"):
            skipping = head == "answer"
            continue
        if skipping and (line[:1].isspace() or not line.strip()):
            continue
        skipping = False
        keep.append(line)
    while keep and not keep[-1].strip():
        keep.pop()
    keep.append(f"difficulty: {difficulty.level}")
    keep.append(f"answer-played: {solution.tiles_played}")
    keep.append("answer:")
    keep += [f"  {format_tiles(s.tiles)}" for s in solution.table]
    return mark + newline.join(keep).lstrip("\ufeff") + newline
