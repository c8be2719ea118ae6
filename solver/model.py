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
from functools import lru_cache
from typing import Any

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
    # The objective's lexicographic parts, most important first (the weighted sum above ranks
    # solutions exactly like them); a backend may optimise them one after another instead.
    stages: list[list[tuple[int, int]]] = field(default_factory=list)
    # A model derived from a template shares the template's columns in array form; only the
    # columns added afterwards (and bounds) are new. See derive() and arrays().
    _base: LpArrays | None = field(default=None, repr=False)
    _base_cols: int = 0
    _extra: list[tuple[int, int, int]] = field(default_factory=list, repr=False)  # (row, col, coef)
    _bound_changes: dict[int, tuple[float, float]] = field(default_factory=dict, repr=False)
    _arrays: LpArrays | None = field(default=None, repr=False)
    _final_rows: list[tuple[str, list[tuple[int, int]], float, float]] | None = field(
        default=None, repr=False
    )

    def derive(self) -> LinearModel:
        """A copy to specialise for one position: its own column lists, the template's rows.

        Only bounds, the objective and new columns may change in the copy (set_row_bounds,
        add_to_row with new variables). Those changes are recorded rather than applied to the
        shared rows: arrays() builds on the template's arrays, and final_rows() applies them
        only for the backends that read rows one by one.
        """
        child = LinearModel(
            list(self.names),
            list(self.lower),
            list(self.upper),
            self.rows,  # shared with the template: never changed through the child
            list(self.objective),
            list(self.hint),
            self.objective_bound,
            [list(stage) for stage in self.stages],
        )
        child._base = self.arrays()
        child._base_cols = len(self.names)
        return child

    def set_row_bounds(self, i: int, lo: float, hi: float) -> None:
        if self._base is None:
            name, terms, _, _ = self.rows[i]
            self.rows[i] = (name, terms, lo, hi)
        self._bound_changes[i] = (lo, hi)
        self._final_rows = None

    def add_to_row(self, i: int, terms: list[tuple[int, int]]) -> None:
        """Add terms of variables created after derive() to an existing row."""
        self.add_entries([(i, v, c) for v, c in terms])

    def add_entries(self, entries: list[tuple[int, int, int]]) -> None:
        """Add (row, column, coefficient) entries for columns created after derive()."""
        assert self._base is not None and all(v >= self._base_cols for _, v, _ in entries), (
            "only columns created after derive() may join a row"
        )
        self._extra += entries
        self._final_rows = None

    def final_rows(self) -> list[tuple[str, list[tuple[int, int]], float, float]]:
        """Every row with its terms and bounds, changes made after derive() included."""
        if self._base is None:
            return self.rows
        if self._final_rows is None:
            rows = list(self.rows)
            for i, (lo, hi) in self._bound_changes.items():
                name, terms, _, _ = rows[i]
                rows[i] = (name, terms, lo, hi)
            for i, v, c in self._extra:
                name, terms, lo, hi = rows[i]
                rows[i] = (name, [*terms, (v, c)], lo, hi)
            self._final_rows = rows
        return self._final_rows

    def arrays(self) -> LpArrays:
        """The model as numpy arrays (column-wise matrix), computed once."""
        if self._arrays is None:
            self._arrays = LpArrays.of(self)
        return self._arrays

    def var(self, name: str, upper: int, lower: int = 0, hint: int = 0) -> int:
        self.names.append(name)
        self.lower.append(lower)
        self.upper.append(upper)
        self.hint.append(hint)
        return len(self.names) - 1

    def row(self, name: str, terms: list[tuple[int, int]], lo: float, hi: float) -> None:
        assert self._base is None, "a derived model shares its template's rows: add none"
        merged: dict[int, int] = {}
        for v, c in terms:  # one entry per variable (some solvers reject repeats)
            merged[v] = merged.get(v, 0) + c
        self.rows.append((name, [(v, c) for v, c in merged.items() if c], lo, hi))

    def to_lp_text(self) -> str:
        """A readable dump (CPLEX LP-like) for debugging a model by eye."""

        def expr(terms: list[tuple[int, int]]) -> str:
            return " ".join(f"{'+' if c >= 0 else '-'} {abs(c)} {self.names[v]}" for v, c in terms)

        lines = ["Maximize", f" obj: {expr(self.objective)}", "Subject To"]
        for name, terms, lo, hi in self.final_rows():
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


@dataclass(frozen=True)
class LpArrays:
    """A LinearModel in array form for matrix-based solvers: costs, bounds, CSC matrix."""

    cost: Any
    lower: Any
    upper: Any
    row_lower: Any
    row_upper: Any
    start: Any
    index: Any
    value: Any

    def reduced(self) -> tuple[LpArrays, Any]:
        """Without the columns fixed at zero and the rows left empty: a smaller, equal problem.

        Returns the reduced arrays and the indices of the columns kept (to map values back).
        """
        import numpy as np

        kept_column = (self.upper != 0) | (self.lower != 0)
        keep = np.flatnonzero(kept_column)
        counts = np.diff(self.start)
        entries = np.flatnonzero(np.repeat(kept_column, counts))
        counts = counts[keep]
        rows_used = (self.row_lower > 0) | (self.row_upper < 0)  # empty, it would be infeasible
        rows_used[self.index[entries]] = True
        row_map = np.cumsum(rows_used) - 1
        reduced = LpArrays(
            cost=self.cost[keep],
            lower=self.lower[keep],
            upper=self.upper[keep],
            row_lower=self.row_lower[rows_used],
            row_upper=self.row_upper[rows_used],
            start=np.concatenate([[0], np.cumsum(counts)]).astype(np.int32),
            index=row_map[self.index[entries]].astype(np.int32),
            value=self.value[entries],
        )
        return reduced, keep

    @staticmethod
    def of(lp: LinearModel) -> LpArrays:
        import numpy as np  # lazily: numpy costs start-up time the CLI's text paths don't need

        n = len(lp.names)
        cost: Any = np.zeros(n)
        if lp.objective:
            scored, weights = zip(*lp.objective)
            # Integer weights: the float sums are exact.
            cost = np.bincount(scored, np.array(weights, dtype=np.float64), n)
        if lp._base is not None:
            row_lower, row_upper = lp._base.row_lower.copy(), lp._base.row_upper.copy()
            if lp._bound_changes:
                changed = list(lp._bound_changes)
                bounds = np.array(list(lp._bound_changes.values()), dtype=np.float64)
                row_lower[changed], row_upper[changed] = bounds[:, 0], bounds[:, 1]
        else:
            row_lower = np.array([lo for _, _, lo, _ in lp.rows], dtype=np.float64)
            row_upper = np.array([hi for _, _, _, hi in lp.rows], dtype=np.float64)
        if lp._base is None:
            columns: list[list[tuple[int, int]]] = [[] for _ in range(n)]
            for r, (_, terms, _, _) in enumerate(lp.rows):
                for v, c in terms:
                    columns[v].append((r, c))
            first: list[int] = [0]
            index: list[int] = []
            value: list[int] = []
            for col in columns:
                index += [r for r, _ in col]
                value += [c for _, c in col]
                first.append(len(index))
            start = np.array(first, dtype=np.int32)
            idx = np.array(index, dtype=np.int32)
            val = np.array(value, dtype=np.float64)
        else:
            base = lp._base
            # The new columns' entries as (row, column, coefficient), column by column.
            extra = np.array(sorted(lp._extra, key=lambda e: (e[1], e[0])), dtype=np.int64).reshape(-1, 3)
            counts = np.bincount(extra[:, 1] - lp._base_cols, minlength=n - lp._base_cols)
            start = np.concatenate([base.start, base.start[-1] + np.cumsum(counts)]).astype(np.int32)
            idx = np.concatenate([base.index, extra[:, 0].astype(np.int32)])
            val = np.concatenate([base.value, extra[:, 2].astype(np.float64)])
        return LpArrays(
            cost=cost,
            lower=np.array(lp.lower, dtype=np.float64),
            upper=np.array(lp.upper, dtype=np.float64),
            row_lower=row_lower,
            row_upper=row_upper,
            start=start,
            index=idx,
            value=val,
        )


Decoder = Callable[[Sequence[int]], tuple[list[list[Tile]], list[Tile]]]


@dataclass
class TurnModel:
    """The linear model plus how to read a backend's answer back as a table and played tiles."""

    position: Position
    objective: Objective
    lp: LinearModel
    formulation: str  # "sets" (den Hertog & Hulshof), "flow" (runs as flows) or "patterns" (short runs)
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


@lru_cache(maxsize=4096)
def tile_name(index: int, rules: RuleSet) -> str:
    return str(Tile.from_index(index, rules))


@lru_cache(maxsize=65536)
def set_name(key: TileKey, rules: RuleSet) -> str:
    """A readable column name (``x_R4_R5_R6``); cached, the same sets recur in every position."""
    return "_".join(tile_name(t, rules) for t in key)


def table_set_keys(position: Position) -> Counter[TileKey]:
    """The original table sets as multisets (sorted dense indices), with their multiplicity."""
    rules = position.rules
    return Counter(tuple(sorted(t.index(rules) for t in s)) for s in position.table)


KeptSets = list[tuple[int, tuple[Tile, ...]]]  # (column, the set as written), per distinct set


def add_kept_sets(
    lp: LinearModel, keep_sets: Sequence[Sequence[Tile]], tile_rows: dict[int, int], rules: RuleSet, wished: bool
) -> KeptSets:
    """A column per distinct set that may stay exactly as it was: its copies are set aside whole,
    their tiles counted as placed in ``tile_rows`` (a template's row per kind of tile).

    The zero move keeps the table's sets; sets only ``wished`` for (``arrange``) start unkept.
    """
    written = {tuple(sorted(t.index(rules) for t in s)): tuple(s) for s in keep_sets}
    counts = Counter(tuple(sorted(t.index(rules) for t in s)) for s in keep_sets)
    kept: KeptSets = []
    for key, count in sorted(counts.items()):
        k = lp.var(f"k_{set_name(key, rules)}", count, hint=0 if wished else count)
        kept.append((k, written[key]))
        lp.add_entries([(tile_rows[t], k, n) for t, n in Counter(key).items()])
    return kept


def kept_copies(kept: KeptSets, values: Sequence[int]) -> list[list[Tile]]:
    """The kept sets of an answer, as written, each as often as kept."""
    return [list(original) for k, original in kept for _ in range(values[k])]


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
    max_kept: int | None = None,
    rack: Counter[int] | None = None,
) -> None:
    """One integer weighted sum, exactly lexicographic: objective, other objective, kept sets.

    Each weight exceeds the largest possible total of everything below it. ``rack``: the rack's
    tile counts, if the caller has them already.
    """
    rules = position.rules
    if rack is None:
        rack, _ = tile_counts(position)
    max_points = sum(index_points(t, rules) * n for t, n in rack.items())
    max_tiles = sum(rack.values())
    max_kept = len(position.table) if max_kept is None else max_kept
    if objective is Objective.TILES:
        w_kept, w_points = 1, max_kept + 1
        w_tiles = (max_points + 1) * w_points
    else:
        w_kept, w_tiles = 1, max_kept + 1
        w_points = (max_tiles + 1) * w_tiles
    lp.objective = [(v, w_tiles + w_points * index_points(t, rules)) for t, v in played.items()]
    lp.objective += [(k, w_kept) for k in kept]
    lp.objective_bound = w_tiles * max_tiles + w_points * max_points + w_kept * max_kept
    tiles = [(v, 1) for v in played.values()]
    points = [(v, index_points(t, rules)) for t, v in played.items()]
    kept_terms = [(k, 1) for k in kept]
    lp.stages = [tiles, points, kept_terms] if objective is Objective.TILES else [points, tiles, kept_terms]


def build_model(
    position: Position, objective: Objective = Objective.TILES, formulation: str = "auto", jokers_stay: bool = False
) -> TurnModel:
    """The turn's integer program: ``sets``, ``flow``, ``patterns``, or ``auto`` (patterns after
    the initial meld and flow for it, where the rules allow them; sets otherwise).

    ``jokers_stay``: under strict or locked joker rules, no table joker may be retrieved.
    """
    from solver.flow_model import build_flow_model, flow_supported
    from solver.joker_model import needs_joker_rows
    from solver.pattern_model import build_pattern_model, pattern_supported
    from solver.set_model import build_set_model

    objective = Objective(objective)
    strict = needs_joker_rows(position)
    if formulation == "auto":
        if strict or not flow_supported(position.rules):
            formulation = "sets"
        else:
            formulation = "patterns" if pattern_supported(position) else "flow"
    if formulation in ("flow", "patterns") and strict:
        raise RulesError(
            f"the {formulation} formulation has no strict or locked joker rules; use --formulation sets"
        )
    if formulation in ("flow", "patterns") and not flow_supported(position.rules):
        raise RulesError(
            f"the {formulation} formulation needs wrap none or american and fewer jokers than"
            " min-set-size; use --formulation sets"
        )
    if formulation == "flow":
        return build_flow_model(position, objective)
    if formulation == "patterns":
        if not position.opened:
            raise RulesError(
                "the patterns formulation is for turns after the initial meld; use --formulation flow or sets"
            )
        return build_pattern_model(position, objective)
    if formulation == "sets":
        return build_set_model(position, objective, jokers_stay)
    raise RulesError(f"unknown formulation {formulation!r} (formulations: auto, sets, flow, patterns)")
