"""The set formulation (den Hertog & Hulshof 2006): one integer variable per candidate set.

Variables: ``x[c]`` copies of candidate set ``c`` on the table after the move (the enumerated
sets that the available tiles allow, plus the original table sets whatever their length);
``r[t]`` tiles played; ``k[s]`` original sets kept exactly; for the initial meld ``m[c]`` copies
of set ``c`` laid as the meld (rack tiles only) and the ``opens`` switch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from solver.lp import INF, LinearModel
from solver.model.candidates import CandidateSets, TileKey, candidate_sets
from solver.model.deadline import check_build_deadline
from solver.model.joker_sets import ExactJokers, SetBase, add_exact_jokers, special_sets
from solver.model.table_jokers import needs_joker_rows
from solver.model.turn import (
    KeptSets,
    TurnModel,
    add_objective,
    add_opening,
    add_played_vars,
    set_name,
    table_set_keys,
    tile_counts,
    tile_name,
)
from solver.position import Position
from solver.rules import RuleSet
from solver.solution import Objective
from solver.tiles import Tile

Terms = list[tuple[int, int]]


def fits(key: TileKey, available: Counter[int]) -> int:
    """How many copies of the set ``key`` the available tiles allow (0: none)."""
    return min(available[t] // n for t, n in _needs(key))


@lru_cache(maxsize=65536)
def _needs(key: TileKey) -> tuple[tuple[int, int], ...]:
    return tuple(Counter(key).items())


@dataclass
class _SetColumns:
    """The set columns as they are added: the sets the decoder reads, and the terms covering tiles."""

    cover: dict[int, Terms]  # tile -> (column, copies): the sets holding it on the new table
    meld_cover: dict[int, Terms]  # tile -> (column, copies): the meld sets holding it (a witness)
    on_table: list[tuple[int, TileKey]] = field(default_factory=list)  # (column, set) on the new table
    x_of: dict[TileKey, int] = field(default_factory=dict)  # set -> its x column
    melds: list[tuple[int, int]] = field(default_factory=list)  # (m column, meld value)


def build_set_model(
    position: Position, objective: Objective = Objective.TILES, keep: Sequence[Sequence[Tile]] | None = None
) -> TurnModel:
    """The turn as a set model. ``keep``: the sets the tie-break tries to leave exactly as they
    were (default: the table's sets; ``arrange`` passes the lines it was given)."""
    rules = position.rules
    cands = candidate_sets(rules)
    rack, table = tile_counts(position)
    lp = LinearModel()
    initial = not position.opened
    table_fixed = initial and not rules.continue_after_meld
    table_keys = table_set_keys(position)
    keep_sets = position.table if keep is None else tuple(tuple(s) for s in keep)
    keep_keys = table_keys if keep is None else Counter(tuple(sorted(t.index(rules) for t in s)) for s in keep_sets)
    columns = _SetColumns(
        cover={t: [] for t in set(rack) | (set() if table_fixed else set(table))},
        meld_cover={t: [] for t in rack},
    )
    if not table_fixed:
        _add_table_sets(lp, cands, rack + table, [*(keep_keys | table_keys)], table_keys, rules, columns)
    if initial:
        _add_meld_sets(lp, cands, rack, rules, table_fixed, columns)
    played = add_played_vars(lp, rack, rules)
    cover_rows = _add_cover_rows(lp, columns.cover, played, table, table_fixed, rules)
    if initial:
        _add_meld_rows(lp, rack, played, columns, rules)
    kept: list[int] = []
    kept_sets: KeptSets = []
    if not table_fixed:
        kept, kept_sets = _add_kept_sets(lp, keep_keys, keep_sets, columns.x_of, rules, wished=keep is not None)
    exact: ExactJokers | None = None
    if not table_fixed and needs_joker_rows(position):
        exact = add_exact_jokers(lp, position, SetBase(cover_rows, played, kept_sets))
        kept += exact.kept
    add_objective(lp, position, objective, played, kept, len(keep_sets))
    decode = _decoder(position, table_fixed, columns.on_table, played, exact)
    return TurnModel(
        position, objective, lp, "sets", decode, played_columns=played, kept_columns=tuple(k for k, _ in kept_sets)
    )


def _add_table_sets(
    lp: LinearModel,
    cands: CandidateSets,
    available: Counter[int],
    table_and_kept: list[TileKey],
    table_keys: Counter[TileKey],
    rules: RuleSet,
    columns: _SetColumns,
) -> None:
    """The x columns: copies of every candidate set the available tiles allow, and of each set to
    keep or on the table that is no candidate (longer than the candidates, whatever its length)."""
    keys = [k for k in cands.keys if fits(k, available)]
    check_build_deadline()
    keys += [k for k in table_and_kept if k not in cands.index]
    for n, key in enumerate(keys):
        if n % 4096 == 0:
            check_build_deadline()  # a heap under full wrap with many jokers: 100,000 columns
        v = lp.var(f"x_{set_name(key, rules)}", fits(key, available), hint=table_keys.get(key, 0))
        columns.x_of[key] = v
        columns.on_table.append((v, key))
        for t, copies in _needs(key):
            columns.cover[t].append((v, copies))


def _add_meld_sets(
    lp: LinearModel, cands: CandidateSets, rack: Counter[int], rules: RuleSet, table_fixed: bool, columns: _SetColumns
) -> None:
    """The m columns: copies of each set laid as the initial meld."""
    # Without continuing, the meld sets are what goes onto the table. With continuing, they
    # are only a witness that the played tiles held a meld: once laid, those sets may be
    # rearranged like any other, so the x sets decide the final table.
    for c, key in _meld_candidates(cands, rack, rules):
        v = lp.var(f"m_{set_name(key, rules)}", fits(key, rack))
        columns.melds.append((v, cands.values[c]))
        if table_fixed:
            columns.on_table.append((v, key))
        for t, n in _needs(key):
            (columns.cover if table_fixed else columns.meld_cover)[t].append((v, n))


def _add_cover_rows(
    lp: LinearModel,
    cover: dict[int, Terms],
    played: dict[int, int],
    table: Counter[int],
    table_fixed: bool,
    rules: RuleSet,
) -> dict[int, int]:
    """Every tile on the table after the move lies in exactly one set: table tiles plus played
    ones. The rows by tile."""
    cover_rows: dict[int, int] = {}
    for t in sorted(cover):
        terms = cover[t] + ([(played[t], -1)] if t in played else [])
        base = 0 if table_fixed else table[t]
        cover_rows[t] = lp.row(f"cover_{tile_name(t, rules)}", terms, base, base)
    return cover_rows


def _add_meld_rows(
    lp: LinearModel, rack: Counter[int], played: dict[int, int], columns: _SetColumns, rules: RuleSet
) -> None:
    """The initial meld: nothing is played unless the meld sets are laid, of rack tiles only."""
    opens = add_opening(lp, rack, played, rules)
    # The meld uses only tiles from the rack.
    for t in sorted(rack):
        if columns.meld_cover[t]:
            lp.row(f"meld_{tile_name(t, rules)}", columns.meld_cover[t] + [(played[t], -1)], -INF, 0)
    # Opening needs meld sets worth the threshold (and at least one set, for threshold 0).
    melds = columns.melds
    lp.row("meld_value", [(v, val) for v, val in melds] + [(opens, -rules.meld_threshold)], 0, INF)
    lp.row("meld_sets", [(v, 1) for v, _ in melds] + [(opens, -1)], 0, INF)


def _add_kept_sets(
    lp: LinearModel,
    keep_keys: Counter[TileKey],
    keep_sets: Sequence[Sequence[Tile]],
    x_of: dict[TileKey, int],
    rules: RuleSet,
    wished: bool,
) -> tuple[list[int], KeptSets]:
    """The k columns: copies of each set to keep left exactly as they were (``wished``: the sets
    are lines ``arrange`` was given, not the table's)."""
    kept = []
    kept_sets: KeptSets = []
    written = {tuple(sorted(t.index(rules) for t in s)): tuple(s) for s in keep_sets}
    for key, count in sorted(keep_keys.items()):
        # The zero move keeps the table's sets; lines only wished for (``arrange``) start unkept.
        k = lp.var(f"k_{set_name(key, rules)}", count, hint=0 if wished else count)
        kept.append(k)
        kept_sets.append((k, written[key]))
        # A table set counts as kept only if a copy of exactly that set is on the new table.
        lp.row(f"keep_{set_name(key, rules)}", [(k, 1), (x_of[key], -1)], -INF, 0)
    return kept, kept_sets


def _decoder(
    position: Position,
    table_fixed: bool,
    on_table: list[tuple[int, TileKey]],
    played: dict[int, int],
    exact: ExactJokers | None,
) -> Callable[[Sequence[int]], tuple[list[list[Tile]], list[Tile]]]:
    """An answer's values read as the new table's sets and the tiles played."""
    rules = position.rules

    def decode(values: Sequence[int]) -> tuple[list[list[Tile]], list[Tile]]:
        sets: list[list[Tile]] = [list(s) for s in position.table] if table_fixed else []
        for var, key in on_table:
            for _ in range(values[var]):
                sets.append([Tile.from_index(t, rules) for t in key])
        tiles = [Tile.from_index(t, rules) for t, var in played.items() for _ in range(values[var])]
        if exact is not None:
            sets += special_sets(values, exact)
        return sets, tiles

    return decode


def _meld_candidates(cands: CandidateSets, rack: Counter[int], rules: RuleSet) -> list[tuple[int, TileKey]]:
    """Sets the player could lay as (part of) an initial meld: rack tiles only."""
    return [
        (c, key)
        for c, key in enumerate(cands.keys)
        if (rules.joker_in_meld or cands.jokers[c] == 0) and fits(key, rack)
    ]
