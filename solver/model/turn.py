"""The turn as an integer program: what every formulation shares.

The formulations (``sets``: den Hertog & Hulshof 2006, a variable per candidate set; ``flow``:
runs as flows over the numbers; ``patterns``: short runs and groups) each build a ``TurnModel``
from these pieces. They share the
played-tile variables ``r[t]``, the kept-set variables ``k[s]`` (original table sets left exactly
as they were: the tie-break), the ``opens`` switch of the initial meld, and the objective: one
integer weighted sum that is exactly lexicographic (the main objective, then the other one, then
kept table sets). Backends translate ``LinearModel`` into their own API and return values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain

from solver.lp import INF, LinearModel
from solver.model.candidates import TileKey
from solver.position import Position
from solver.rules import RuleSet
from solver.solution import Objective
from solver.tiles import Tile

Move = tuple[list[list[Tile]], list[Tile]]  # the table after the move, and the tiles played
Decoder = Callable[[Sequence[int]], Move]
Arranger = Callable[[Sequence[int]], Iterator[Move]]
Row = tuple[str, list[tuple[int, int]], float, float]  # name, terms, lower and upper bound



@dataclass
class TurnModel:
    """The linear model plus how to read a backend's answer back as a table and played tiles."""

    position: Position
    objective: Objective
    lp: LinearModel
    formulation: str  # "sets" (den Hertog & Hulshof), "flow" (runs as flows) or "patterns" (short runs)
    decoder: Decoder
    # Other arrangements of the same answer, for a model that is a relaxation of the joker rules
    # (solver.model.joker_fates): the first one the validator accepts is the move. None: the
    # decoder's arrangement is the only one, and the model is exact.
    arranger: Arranger | None = None
    # A relaxed model's columns for the table jokers' fates (hosts, stays, retrievals, homes):
    # what a repair excludes when no arrangement of an answer is legal (see solve._search).
    fate_columns: tuple[int, ...] = ()
    # Rows of the rules a relaxed model leaves out (many, rarely binding) that an answer breaks:
    # valid rows, added when an answer's arrangements all fail (see solve._search).
    cuts: Callable[[Sequence[int]], list[Row]] | None = None
    # A relaxed model left without some of its columns (short hosts only): no bound on the rules'
    # optimum, only a quick way to a legal move (see solve._search).
    partial: bool = False
    # The columns a caller may bound: how many of each kind of rack tile are played (by tile
    # index), and whether each of the table's sets stays as it was (one per distinct set).
    played_columns: Mapping[int, int] = field(default_factory=dict)
    kept_columns: tuple[int, ...] = ()

    def decode(self, values: Sequence[int]) -> Move:
        """The table after the move (sets as tile lists) and the tiles played."""
        return self.decoder(values)

    @property
    def relaxed(self) -> bool:
        """Whether an answer must still be judged: the model bounds the rules' optimum, and an
        answer is optimal only if one of its arrangements is legal."""
        return self.arranger is not None

    def arrangements(self, values: Sequence[int]) -> Iterator[Move]:
        """The decoder's arrangement first, then the others (for a relaxed model)."""
        if self.arranger is None:
            yield self.decoder(values)
        else:
            yield from self.arranger(values)


def tile_counts(position: Position) -> tuple[Counter[int], Counter[int]]:
    """Rack and table as counts per dense tile index."""
    rules = position.rules
    # Counted as tiles first (in C), then indexed once per kind: every model starts here.
    rack = Counter(position.rack)
    table = Counter(chain.from_iterable(position.table))
    return (
        Counter({t.index(rules): n for t, n in rack.items()}),
        Counter({t.index(rules): n for t, n in table.items()}),
    )


def index_points(index: int, rules: RuleSet) -> int:
    """The points-objective value of a tile given by dense index (a joker: its penalty)."""
    joker = rules.joker_index
    return rules.joker_penalty if index == joker else index % rules.numbers + 1


@lru_cache(maxsize=4096)
def tile_name(index: int, rules: RuleSet) -> str:
    return str(Tile.from_index(index, rules))


@lru_cache(maxsize=65536)
def set_name(key: TileKey, rules: RuleSet) -> str:
    """A readable column name (``x_R4_R5_R6``); cached, the same sets recur in every position."""
    return "_".join(tile_name(t, rules) for t in key)


@lru_cache(maxsize=65536)
def set_key(tiles: tuple[Tile, ...], rules: RuleSet) -> TileKey:
    """A set as a multiset (sorted dense indices); cached, the same sets recur in every model."""
    return tuple(sorted(t.index(rules) for t in tiles))


def table_set_keys(position: Position) -> Counter[TileKey]:
    """The original table sets as multisets (sorted dense indices), with their multiplicity."""
    return Counter(set_key(tuple(s), position.rules) for s in position.table)


KeptSets = list[tuple[int, tuple[Tile, ...]]]  # (column, the set as written), per distinct set


def add_kept_sets(
    lp: LinearModel, keep_sets: Sequence[Sequence[Tile]], tile_rows: dict[int, int], rules: RuleSet, wished: bool
) -> KeptSets:
    """A column per distinct set that may stay exactly as it was: its copies are set aside whole,
    their tiles counted as placed in ``tile_rows`` (a template's row per kind of tile).

    The zero move keeps the table's sets; sets only ``wished`` for (``arrange``) start unkept.
    """
    keys = [set_key(tuple(s), rules) for s in keep_sets]
    written = dict(zip(keys, map(tuple, keep_sets)))
    counts = Counter(keys)
    kept: KeptSets = []
    entries: list[tuple[int, int, int]] = []
    for key, count in sorted(counts.items()):
        k = lp.var(f"k_{set_name(key, rules)}", count, hint=0 if wished else count)
        kept.append((k, written[key]))
        entries += [(tile_rows[t], k, n) for t, n in Counter(key).items()]
    lp.add_entries(entries)
    return kept


def add_kept_specials(
    lp: LinearModel, rules: RuleSet, columns: Sequence[tuple[int, Sequence[Tile]]], kept: KeptSets
) -> list[int]:
    """Binaries saying an explicit column (a set holding table jokers) leaves an original table
    set exactly as it was: the tie-break counts it like a kept set (the same tiles), no more
    often than the table held that set, kept sets included."""
    column_of = {set_key(tuple(written), rules): k for k, written in kept}
    # Tiles sort as their indices do: a cheap first test over thousands of columns.
    originals = {tuple(sorted(written)) for _, written in kept}
    found: list[int] = []
    same: dict[TileKey, list[tuple[int, int]]] = {}
    for v, tiles in columns:
        if tuple(sorted(tiles)) not in originals:
            continue
        key = set_key(tuple(tiles), rules)
        if key in column_of:
            z = lp.var(f"same_{set_name(key, rules)}_{v}", 1)
            lp.row(f"same_{v}", [(z, 1), (v, -1)], -INF, 0)
            same.setdefault(key, []).append((z, 1))
            found.append(z)
    for key, terms in same.items():
        # The kept-set column's bound is how many copies of that set the table held.
        lp.row(f"same_{set_name(key, rules)}", [*terms, (column_of[key], 1)], -INF, lp.upper[column_of[key]])
    return found


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


