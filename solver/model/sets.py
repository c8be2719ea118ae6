"""The set formulation (den Hertog & Hulshof 2006): one integer variable per candidate set.

Variables: ``x[c]`` copies of candidate set ``c`` on the table after the move (the enumerated
sets that the available tiles allow, plus the original table sets whatever their length);
``r[t]`` tiles played; ``k[s]`` original sets kept exactly; for the initial meld ``m[c]`` copies
of set ``c`` laid as the meld (rack tiles only) and the ``opens`` switch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
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


def fits(key: TileKey, available: Counter[int]) -> int:
    """How many copies of the set ``key`` the available tiles allow (0: none)."""
    return min(available[t] // n for t, n in _needs(key))


@lru_cache(maxsize=65536)
def _needs(key: TileKey) -> tuple[tuple[int, int], ...]:
    return tuple(Counter(key).items())


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
    strict = needs_joker_rows(position)

    set_vars: list[tuple[int, TileKey]] = []
    cover: dict[int, list[tuple[int, int]]] = {
        t: [] for t in set(rack) | (set() if table_fixed else set(table))
    }
    meld_cover: dict[int, list[tuple[int, int]]] = {t: [] for t in rack}
    x_of: dict[TileKey, int] = {}

    if not table_fixed:
        available = rack + table
        keys = [k for k in cands.keys if fits(k, available)]
        check_build_deadline()
        keys += [k for k in keep_keys | table_keys if k not in cands.index]
        for n, key in enumerate(keys):
            if n % 4096 == 0:
                check_build_deadline()  # a heap under full wrap with many jokers: 100,000 columns
            v = lp.var(f"x_{set_name(key, rules)}", fits(key, available), hint=table_keys.get(key, 0))
            x_of[key] = v
            set_vars.append((v, key))
            for t, copies in _needs(key):
                cover[t].append((v, copies))

    meld_vars: list[tuple[int, int]] = []  # (variable, meld value)
    if initial:
        # Without continuing, the meld sets are what goes onto the table. With continuing, they
        # are only a witness that the played tiles held a meld: once laid, those sets may be
        # rearranged like any other, so the x sets decide the final table.
        for c, key in _meld_candidates(cands, rack, rules):
            v = lp.var(f"m_{set_name(key, rules)}", fits(key, rack))
            meld_vars.append((v, cands.values[c]))
            if table_fixed:
                set_vars.append((v, key))
            for t, n in _needs(key):
                (cover if table_fixed else meld_cover)[t].append((v, n))

    played = add_played_vars(lp, rack, rules)

    # Every tile on the table after the move lies in exactly one set: table tiles plus played ones.
    cover_rows: dict[int, int] = {}
    for t in sorted(cover):
        terms = cover[t] + ([(played[t], -1)] if t in played else [])
        base = 0 if table_fixed else table[t]
        cover_rows[t] = lp.row(f"cover_{tile_name(t, rules)}", terms, base, base)

    if initial:
        opens = add_opening(lp, rack, played, rules)
        # The meld uses only tiles from the rack.
        for t in sorted(rack):
            if meld_cover[t]:
                lp.row(f"meld_{tile_name(t, rules)}", meld_cover[t] + [(played[t], -1)], -INF, 0)
        # Opening needs meld sets worth the threshold (and at least one set, for threshold 0).
        lp.row("meld_value", [(v, val) for v, val in meld_vars] + [(opens, -rules.meld_threshold)], 0, INF)
        lp.row("meld_sets", [(v, 1) for v, _ in meld_vars] + [(opens, -1)], 0, INF)

    kept = []
    kept_sets: KeptSets = []
    written = {tuple(sorted(t.index(rules) for t in s)): tuple(s) for s in keep_sets}
    if not table_fixed:
        for key, count in sorted(keep_keys.items()):
            # The zero move keeps the table's sets; lines only wished for (``arrange``) start unkept.
            k = lp.var(f"k_{set_name(key, rules)}", count, hint=count if keep is None else 0)
            kept.append(k)
            kept_sets.append((k, written[key]))
            # A table set counts as kept only if a copy of exactly that set is on the new table.
            lp.row(f"keep_{set_name(key, rules)}", [(k, 1), (x_of[key], -1)], -INF, 0)

    exact: ExactJokers | None = None
    if not table_fixed and strict:
        exact = add_exact_jokers(lp, position, SetBase(cover_rows, played, kept_sets))

    if exact is not None:
        kept += exact.kept
    add_objective(lp, position, objective, played, kept, len(keep_sets))

    def decode(values: Sequence[int]) -> tuple[list[list[Tile]], list[Tile]]:
        sets: list[list[Tile]] = [list(s) for s in position.table] if table_fixed else []
        for var, key in set_vars:
            for _ in range(values[var]):
                sets.append([Tile.from_index(t, rules) for t in key])
        tiles = [Tile.from_index(t, rules) for t, var in played.items() for _ in range(values[var])]
        if exact is not None:
            sets += special_sets(values, exact)
        return sets, tiles

    return TurnModel(
        position, objective, lp, "sets", decode, played_columns=played, kept_columns=tuple(k for k, _ in kept_sets)
    )


def _meld_candidates(cands: CandidateSets, rack: Counter[int], rules: RuleSet) -> list[tuple[int, TileKey]]:
    """Sets the player could lay as (part of) an initial meld: rack tiles only."""
    return [
        (c, key)
        for c, key in enumerate(cands.keys)
        if (rules.joker_in_meld or cands.jokers[c] == 0) and fits(key, rack)
    ]
