"""The turn as an integer program (den Hertog & Hulshof 2006), built as plain data.

Variables (all integer):
- ``x[c]``: copies of candidate set ``c`` on the table after the move;
- ``r[t]``: tiles of kind ``t`` played from the rack;
- ``k[s]``: copies of original table set ``s`` kept exactly as it was (tie-break);
- initial meld only: ``m[c]`` copies of set ``c`` laid as the meld (rack tiles only), and
  ``opens`` (1 when the player lays anything).

The objective is one integer weighted sum that is exactly lexicographic: the main objective,
then the other one, then kept table sets (weights exceed the largest possible lower term).
Backends translate ``LinearModel`` into their own API and return variable values.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from solver.candidates import CandidateSets, TileKey, candidate_sets
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
        self.rows.append((name, terms, lo, hi))

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


@dataclass
class TurnModel:
    """The linear model plus what each variable means, for decoding a backend's answer."""

    position: Position
    objective: Objective
    lp: LinearModel
    set_vars: list[tuple[int, TileKey]]  # x and m variables with the set each stands for
    played_vars: list[tuple[int, int]]  # r variables with their tile index
    kept_vars: list[int]
    weights: tuple[int, int, int]  # (tiles, points, kept) weights in the objective
    table_fixed: bool  # initial meld without continuing: the table cannot change


def tile_counts(position: Position) -> tuple[Counter[int], Counter[int]]:
    """Rack and table as counts per dense tile index."""
    rules = position.rules
    rack = Counter(t.index(rules) for t in position.rack)
    table = Counter(t.index(rules) for s in position.table for t in s)
    return rack, table


def _fits(key: TileKey, available: Counter[int]) -> int:
    """How many copies of the set ``key`` the available tiles allow (0: none)."""
    need = Counter(key)
    return min(available[t] // n for t, n in need.items())


def _index_points(index: int, rules: RuleSet) -> int:
    joker = rules.colours * rules.numbers
    return rules.joker_penalty if index == joker else index % rules.numbers + 1


def build_model(position: Position, objective: Objective = Objective.TILES) -> TurnModel:
    rules = position.rules
    cands = candidate_sets(rules)
    rack, table = tile_counts(position)
    lp = LinearModel()
    initial = not position.opened
    table_fixed = initial and not rules.continue_after_meld

    # Original table sets, for the kept-sets tie-break (whatever their length).
    table_keys = Counter(tuple(sorted(t.index(rules) for t in s)) for s in position.table)

    set_vars: list[tuple[int, TileKey]] = []
    cover: dict[int, list[tuple[int, int]]] = {
        t: [] for t in set(rack) | (set() if table_fixed else set(table))
    }
    meld_cover: dict[int, list[tuple[int, int]]] = {t: [] for t in rack}
    x_of: dict[TileKey, int] = {}

    if not table_fixed:
        available = rack + table
        keys = [k for k in cands.keys if _fits(k, available)]
        keys += [k for k in table_keys if k not in cands.index]
        for key in keys:
            hint = table_keys.get(key, 0)
            v = lp.var(f"x_{_name(key, rules)}", _fits(key, available), hint=hint)
            x_of[key] = v
            set_vars.append((v, key))
            for t, n in Counter(key).items():
                cover[t].append((v, n))

    meld_vars: list[tuple[int, int]] = []  # (variable, meld value)
    if initial:
        # Without continuing, the meld sets are what goes onto the table. With continuing, they
        # are only a witness that the played tiles held a meld: once laid, those sets may be
        # rearranged like any other, so the x sets decide the final table.
        for c, key in _meld_candidates(cands, rack, rules):
            v = lp.var(f"m_{_name(key, rules)}", _fits(key, rack))
            meld_vars.append((v, cands.values[c]))
            if table_fixed:
                set_vars.append((v, key))
            for t, n in Counter(key).items():
                (cover if table_fixed else meld_cover)[t].append((v, n))

    played_vars = []
    r_of: dict[int, int] = {}
    for t in sorted(rack):
        v = lp.var(f"r_{_tile_name(t, rules)}", rack[t])
        r_of[t] = v
        played_vars.append((v, t))

    # Every tile on the table after the move lies in exactly one set: table tiles plus played ones.
    for t in sorted(cover):
        terms = cover[t] + ([(r_of[t], -1)] if t in r_of else [])
        base = 0 if table_fixed else table[t]
        lp.row(f"cover_{_tile_name(t, rules)}", terms, base, base)

    if initial:
        opens = lp.var("opens", 1)
        # The meld uses only tiles from the rack, and nothing is played unless the player opens.
        for t in sorted(rack):
            if meld_cover[t]:
                lp.row(f"meld_{_tile_name(t, rules)}", meld_cover[t] + [(r_of[t], -1)], -INF, 0)
            lp.row(f"opens_{_tile_name(t, rules)}", [(r_of[t], 1), (opens, -rack[t])], -INF, 0)
        # Opening needs meld sets worth the threshold (and at least one set, for threshold 0).
        lp.row("meld_value", [(v, val) for v, val in meld_vars] + [(opens, -rules.meld_threshold)], 0, INF)
        lp.row("meld_sets", [(v, 1) for v, _ in meld_vars] + [(opens, -1)], 0, INF)

    kept_vars = []
    if not table_fixed:
        for key, count in sorted(table_keys.items()):
            k = lp.var(f"k_{_name(key, rules)}", count, hint=count)
            kept_vars.append(k)
            # A table set counts as kept only if a copy of exactly that set is on the new table.
            lp.row(f"keep_{_name(key, rules)}", [(k, 1), (x_of[key], -1)], -INF, 0)

    max_points = sum(_index_points(t, rules) * n for t, n in rack.items())
    max_tiles = sum(rack.values())
    max_kept = len(position.table)
    if objective is Objective.TILES:
        w_kept, w_points = 1, max_kept + 1
        w_tiles = (max_points + 1) * w_points
    else:
        w_kept, w_tiles = 1, max_kept + 1
        w_points = (max_tiles + 1) * w_tiles
    lp.objective = [(v, w_tiles + w_points * _index_points(t, rules)) for v, t in played_vars]
    lp.objective += [(k, w_kept) for k in kept_vars]
    lp.objective_bound = w_tiles * max_tiles + w_points * max_points + w_kept * max_kept
    return TurnModel(
        position=position,
        objective=objective,
        lp=lp,
        set_vars=set_vars,
        played_vars=played_vars,
        kept_vars=kept_vars,
        weights=(w_tiles, w_points, w_kept),
        table_fixed=table_fixed,
    )


def _meld_candidates(cands: CandidateSets, rack: Counter[int], rules: RuleSet) -> list[tuple[int, TileKey]]:
    """Sets the player could lay as (part of) an initial meld: rack tiles only."""
    return [
        (c, key)
        for c, key in enumerate(cands.keys)
        if (rules.joker_in_meld or cands.jokers[c] == 0) and _fits(key, rack)
    ]


def _tile_name(index: int, rules: RuleSet) -> str:
    return str(Tile.from_index(index, rules))


def _name(key: TileKey, rules: RuleSet) -> str:
    return "_".join(_tile_name(t, rules) for t in key)
