"""The turn as an integer program, built as plain data: what every formulation shares.

Two formulations build a ``TurnModel``: ``set_model`` (den Hertog & Hulshof 2006: a variable per
candidate set) and ``flow_model`` (runs as flows over the numbers, far smaller). Both share the
played-tile variables ``r[t]``, the kept-set variables ``k[s]`` (original table sets left exactly
as they were: the tie-break), the ``opens`` switch of the initial meld, and the objective: one
integer weighted sum that is exactly lexicographic (the main objective, then the other one, then
kept table sets). Backends translate ``LinearModel`` into their own API and return values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from solver.candidates import TileKey
from solver.errors import RulesError
from solver.position import Position
from solver.rules import RuleSet
from solver.tiles import Tile


class Objective(StrEnum):
    TILES = "tiles"  # most rack tiles played
    POINTS = "points"  # largest value played (a joker counts rules.joker_penalty)


@dataclass
class LinearModel:
    """A pure-integer linear program, maximised. Rows are ``lo <= sum(coef * var) <= hi``."""

    names: list[str] = field(default_factory=list)
    lower: list[int] = field(default_factory=list)
    upper: list[int] = field(default_factory=list)
    rows: list[tuple[str, list[tuple[int, int]], float, float]] = field(default_factory=list)
    objective: list[tuple[int, int]] = field(default_factory=list)
    hint: list[int] = field(default_factory=list)  # a feasible solution: the move "play nothing"
    objective_bound: int = 0  # no solution can score more (helps CP-SAT prove optimality)

    def var(self, name: str, upper: int, lower: int = 0, hint: int = 0) -> int:
        self.names.append(name)
        self.lower.append(lower)
        self.upper.append(upper)
        self.hint.append(hint)
        return len(self.names) - 1

    def row(self, name: str, terms: list[tuple[int, int]], lo: float, hi: float) -> None:
        merged: dict[int, int] = {}
        for v, c in terms:  # one entry per variable (some solvers reject repeats)
            merged[v] = merged.get(v, 0) + c
        self.rows.append((name, [(v, c) for v, c in merged.items() if c], lo, hi))

    def to_lp_text(self) -> str:
        """A readable dump (CPLEX LP-like) for debugging a model by eye."""

        def expr(terms: list[tuple[int, int]]) -> str:
            return " ".join(f"{'+' if c >= 0 else '-'} {abs(c)} {self.names[v]}" for v, c in terms)

        lines = ["Maximize", f" obj: {expr(self.objective)}", "Subject To"]
        for name, terms, lo, hi in self.rows:
            if lo == hi:
                lines.append(f" {name}: {expr(terms)} = {lo:g}")
            else:
                if lo > -INF:
                    lines.append(f" {name}_lo: {expr(terms)} >= {lo:g}")
                if hi < INF:
                    lines.append(f" {name}_hi: {expr(terms)} <= {hi:g}")
        lines.append("Bounds")
        lines += [f" {lo} <= {n} <= {hi}" for n, lo, hi in zip(self.names, self.lower, self.upper)]
        lines += ["General", " " + " ".join(self.names), "End"]
        return "\n".join(lines) + "\n"


INF = float("inf")


Decoder = Callable[[Sequence[int]], tuple[list[list[Tile]], list[Tile]]]


@dataclass
class TurnModel:
    """The linear model plus how to read a backend's answer back as a table and played tiles."""

    position: Position
    objective: Objective
    lp: LinearModel
    formulation: str  # "sets" (den Hertog & Hulshof) or "flow" (runs as flows over the numbers)
    decoder: Decoder

    def decode(self, values: Sequence[int]) -> tuple[list[list[Tile]], list[Tile]]:
        """The table after the move (sets as tile lists) and the tiles played."""
        return self.decoder(values)


def tile_counts(position: Position) -> tuple[Counter[int], Counter[int]]:
    """Rack and table as counts per dense tile index."""
    rules = position.rules
    rack = Counter(t.index(rules) for t in position.rack)
    table = Counter(t.index(rules) for s in position.table for t in s)
    return rack, table


def index_points(index: int, rules: RuleSet) -> int:
    """The points-objective value of a tile given by dense index (a joker: its penalty)."""
    joker = rules.colours * rules.numbers
    return rules.joker_penalty if index == joker else index % rules.numbers + 1


def tile_name(index: int, rules: RuleSet) -> str:
    return str(Tile.from_index(index, rules))


def set_name(key: TileKey, rules: RuleSet) -> str:
    return "_".join(tile_name(t, rules) for t in key)


def table_set_keys(position: Position) -> Counter[TileKey]:
    """The original table sets as multisets (sorted dense indices), with their multiplicity."""
    rules = position.rules
    return Counter(tuple(sorted(t.index(rules) for t in s)) for s in position.table)


def add_played_vars(lp: LinearModel, rack: Counter[int], rules: RuleSet) -> dict[int, int]:
    """One variable per kind of rack tile: how many of it are played."""
    return {t: lp.var(f"r_{tile_name(t, rules)}", rack[t]) for t in sorted(rack)}


def add_opening(lp: LinearModel, rack: Counter[int], played: dict[int, int], rules: RuleSet) -> int:
    """The ``opens`` switch: nothing is played unless the player lays an initial meld."""
    opens = lp.var("opens", 1)
    for t in sorted(rack):
        lp.row(f"opens_{tile_name(t, rules)}", [(played[t], 1), (opens, -rack[t])], -INF, 0)
    return opens


def add_objective(
    lp: LinearModel,
    position: Position,
    objective: Objective,
    played: dict[int, int],
    kept: list[int],
) -> None:
    """One integer weighted sum, exactly lexicographic: objective, other objective, kept sets.

    Each weight exceeds the largest possible total of everything below it.
    """
    rules = position.rules
    rack, _ = tile_counts(position)
    max_points = sum(index_points(t, rules) * n for t, n in rack.items())
    max_tiles = sum(rack.values())
    max_kept = len(position.table)
    if objective is Objective.TILES:
        w_kept, w_points = 1, max_kept + 1
        w_tiles = (max_points + 1) * w_points
    else:
        w_kept, w_tiles = 1, max_kept + 1
        w_points = (max_tiles + 1) * w_tiles
    lp.objective = [(v, w_tiles + w_points * index_points(t, rules)) for t, v in played.items()]
    lp.objective += [(k, w_kept) for k in kept]
    lp.objective_bound = w_tiles * max_tiles + w_points * max_points + w_kept * max_kept


def build_model(
    position: Position, objective: Objective = Objective.TILES, formulation: str = "auto"
) -> TurnModel:
    """The turn's integer program: ``sets``, ``flow``, or ``auto`` (flow where the rules allow it)."""
    from solver.flow_model import build_flow_model, flow_supported
    from solver.set_model import build_set_model

    objective = Objective(objective)
    if formulation == "auto":
        formulation = "flow" if flow_supported(position.rules) else "sets"
    if formulation == "flow":
        if not flow_supported(position.rules):
            raise RulesError(
                "the flow formulation needs wrap none or american and fewer jokers than min-set-size;"
                " use --formulation sets"
            )
        return build_flow_model(position, objective)
    if formulation == "sets":
        return build_set_model(position, objective)
    raise RulesError(f"unknown formulation {formulation!r} (formulations: auto, sets, flow)")
