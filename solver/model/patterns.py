"""The pattern formulation: after the initial meld, every short run and every group is a column.

A column per run of ``min_set_size`` to ``2*min_set_size - 1`` consecutive tiles of a colour (a
longer run splits into such runs without loss), a column per group (a number and a set of at
least ``min_set_size`` colours), and per tile how many jokers stand for it. Every set needs a
numbered tile, which holds while there are fewer jokers than ``min_set_size`` (the rules the flow
formulation takes too). The only rows are one per kind of tile: the sets after the move use every
table tile and every played tile exactly once. Kept sets ``k[s]`` are set aside whole, as in the
flow formulation.

Its LP relaxation is as strong as the flow formulation's (runs of three to five tiles generate the
same cone of coverings as the flow's runs, and colour subsets the same as the group counts), but it
has about 55 rows instead of about 220, so each simplex iteration is cheaper. The initial meld
stays with the flow formulation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, product
from typing import Any

from solver.lp import INF, LinearModel
from solver.model.flow import flow_supported
from solver.model.joker_fates import FateBase, add_joker_fates
from solver.model.joker_sets import SetBase, add_exact_jokers, special_sets
from solver.model.run_flow import number_at, places
from solver.model.table_jokers import needs_joker_rows
from solver.model.turn import Move, TurnModel, add_kept_sets, add_objective, kept_copies, tile_counts
from solver.position import Position
from solver.rules import RuleSet
from solver.solution import Objective
from solver.tiles import JOKER, Tile, tile


@dataclass(frozen=True)
class _Pattern:
    column: int
    tiles: tuple[int, ...]  # dense tile indices, in run order for runs
    colour: int  # runs: their colour; groups: -1
    start: int  # runs: first place (1-based; under wrap=american place numbers+1 holds a 1)


@dataclass
class _Template:
    """The pattern model of one rule set, built once; positions only change bounds."""

    lp: LinearModel
    played: dict[int, int]  # tile index -> its played variable (upper bound 0 until a rack says more)
    tile_rows: dict[int, int]  # tile index (jokers included) -> its row
    patterns: list[_Pattern]
    jokers: dict[int, int]  # tile index -> how many jokers stand for it
    joker: int  # the joker's dense index
    # The patterns as arrays, to find the unusable ones in one product: which numbered tiles
    # each holds (a 0/1 matrix), how many, and its column.
    membership: Any
    sizes: Any
    columns: Any


@cache
def _template(rules: RuleSet) -> _Template:
    m, numbers, joker = rules.min_set_size, rules.numbers, rules.joker_index
    kinds = [*range(joker), *([joker] if rules.jokers else [])]
    most = rules.copies + rules.jokers  # no tile can lie in more sets than this
    lp = LinearModel()
    played = {t: lp.var(f"r_{Tile.from_index(t, rules)}", 0) for t in kinds}
    patterns: list[_Pattern] = []
    letters = rules.colour_letters
    for c in range(rules.colours):
        # No longer than the numbers: under wrap=american a run of numbers+1 places repeats a 1.
        for length in range(m, min(2 * m, numbers + 1)):
            for start in range(1, places(rules) - length + 2):
                tiles = tuple(c * numbers + number_at(p, rules) - 1 for p in range(start, start + length))
                column = lp.var(f"run_{letters[c]}{start}_{length}", most)
                patterns.append(_Pattern(column, tiles, c, start))
    if rules.groups_possible:
        for n in range(1, numbers + 1):
            for size in range(m, rules.colours + 1):
                for colours in combinations(range(rules.colours), size):
                    tiles = tuple(c * numbers + n - 1 for c in colours)
                    column = lp.var(f"group_{n}_{''.join(letters[c] for c in colours)}", most)
                    patterns.append(_Pattern(column, tiles, -1, n))
    jokers = {t: lp.var(f"j_{Tile.from_index(t, rules)}", rules.jokers) for t in range(joker)} if rules.jokers else {}
    covering: dict[int, list[tuple[int, int]]] = {t: [] for t in kinds}
    for pattern in patterns:
        for t in pattern.tiles:
            covering[t].append((pattern.column, 1))
    tile_rows: dict[int, int] = {}
    for t in kinds:
        # Numbered tile t: the sets covering it, less the jokers standing in for it, are copies of
        # t; jokers: every joker stands for some tile. Either way, table tiles plus played ones.
        terms = [(v, 1) for v in jokers.values()] if t == joker else covering[t] + (
            [(jokers[t], -1)] if t in jokers else []
        )
        tile_rows[t] = len(lp.rows)
        lp.row(f"tile_{Tile.from_index(t, rules)}", [*terms, (played[t], -1)], 0, 0)
    lp.arrays()  # computed once, shared by every position's model
    import numpy as np

    membership = np.zeros((len(patterns), joker), dtype=np.int64)
    for i, pattern in enumerate(patterns):
        membership[i, list(pattern.tiles)] = 1
    sizes = np.array([len(p.tiles) for p in patterns])
    columns = np.array([p.column for p in patterns])
    return _Template(lp, played, tile_rows, patterns, jokers, joker, membership, sizes, columns)


def pattern_supported(position: Position) -> bool:
    """Turns after the initial meld, under rules the flow formulation takes as well."""
    return position.opened and flow_supported(position.rules)


def build_pattern_model(
    position: Position,
    objective: Objective = Objective.TILES,
    keep: Sequence[Sequence[Tile]] | None = None,
    exact: bool = False,
    short_hosts: bool = False,
) -> TurnModel:
    """The turn as a pattern model. ``keep``: the sets the tie-break tries to leave exactly as
    they were (default: the table's sets). Under strict and locked jokers the model is a
    relaxation judged by the validator (``joker_fates``; ``short_hosts``: its smaller model
    with only short hosts of one joker), or with ``exact`` the exact model (``joker_sets``)."""
    rules = position.rules
    if not pattern_supported(position):
        raise ValueError("the pattern model is for opened turns under rules the flow model takes")
    tpl = _template(rules)
    rack, table = tile_counts(position)
    lp = tpl.lp.derive()
    for t, n in rack.items():
        lp.upper[tpl.played[t]] = n
    for t, row in tpl.tile_rows.items():
        count = table.get(t, 0)
        lp.set_row_bounds(row, count, count)
    _fix_unusable(lp, tpl, rack + table)
    keep_sets = position.table if keep is None else tuple(tuple(s) for s in keep)
    kept_sets = add_kept_sets(lp, keep_sets, tpl.tile_rows, rules, keep is not None)
    played = tpl.played
    strict = needs_joker_rows(position)
    fates = None
    specials = None
    fate_columns: tuple[int, ...] = ()
    if strict and exact:
        specials = add_exact_jokers(lp, position, SetBase(tpl.tile_rows, played, kept_sets))
        # The formulation's jokers (the rack's) sit in its own sets, not on a special set's tile.
        if rack[tpl.joker]:
            for t, j in tpl.jokers.items():
                cover = [(p.column, -1) for p in tpl.patterns if t in p.tiles]
                lp.row(f"seat_{Tile.from_index(t, rules)}", [(j, 1), *cover], -INF, 0, lazy=True)
    elif strict:
        fates = add_joker_fates(lp, position, FateBase(tpl.tile_rows, tpl.jokers, played, kept_sets), short_hosts)
        fate_columns = tuple(fates.columns)
    played_vars = {t: played[t] for t in sorted(rack)}
    kept = [k for k, _ in kept_sets]
    if specials is not None:
        kept += specials.kept
    if fates is not None:
        kept += fates.kept
    add_objective(lp, position, objective, played_vars, kept, len(keep_sets), rack)

    def arrangements(values: Sequence[int]) -> Iterator[Move]:
        tiles = [Tile.from_index(t, rules) for t, var in played.items() for _ in range(values[var])]
        fixed = kept_copies(kept_sets, values)
        if specials is not None:
            fixed += special_sets(values, specials)
        seated: list[list[Tile]] = []
        held: list[list[Tile]] = []
        if fates is not None:
            held = fates.held(values)
            seated = fates.seated(values)
        for sets in _arrangements(tpl, values, rules, vary=fates is not None, seated=seated, held=held):
            yield fixed + sets, tiles

    def decode(values: Sequence[int]) -> Move:
        return next(arrangements(values))

    return TurnModel(
        position,
        objective,
        lp,
        "patterns",
        decode,
        arrangements if fates is not None else None,
        fate_columns,
        fates.cuts if fates is not None else None,
        fates is not None and fates.partial,
        played_columns=played_vars,
        kept_columns=tuple(k for k, _ in kept_sets),
    )


def _fix_unusable(lp: LinearModel, tpl: _Template, tiles: Counter[int]) -> None:
    """Fix at zero the sets these tiles cannot make (a missing tile needs a joker of its own, and
    every set a numbered tile), and the jokers if there are none: exact, and backends drop them."""
    import numpy as np  # lazily, as in model.py: the CLI's text paths never build a model

    jokers = tiles[tpl.joker]
    absent = np.ones(tpl.joker, dtype=np.int64)
    absent[[t for t, n in tiles.items() if n and t != tpl.joker]] = 0
    missing = tpl.membership @ absent  # one row per pattern
    upper = lp.upper
    for column in tpl.columns[(missing > jokers) | (missing == tpl.sizes)].tolist():
        upper[column] = 0
    if not jokers:
        for column in tpl.jokers.values():
            upper[column] = 0


def _decode(tpl: _Template, values: Sequence[int], rules: RuleSet) -> list[list[Tile]]:
    """Sets from the pattern values: runs that abut are joined again (a run of seven tiles comes
    back whole), then each tile's jokers take its first places."""
    return next(_arrangements(tpl, values, rules, vary=False))


# Arrangements tried per answer under strict and locked jokers (each is judged by the validator).
MAX_ARRANGEMENTS = 64


def _arrangements(
    tpl: _Template,
    values: Sequence[int],
    rules: RuleSet,
    vary: bool,
    seated: Sequence[list[Tile]] = (),
    held: Sequence[list[Tile]] = (),
) -> Iterator[list[list[Tile]]]:
    """The sets of the pattern values, first as ``_decode`` reads them; with ``vary``, then other
    readings of the same values: the jokers of a tile in other places (which set a table joker
    lies in decides whether it stayed), and abutting runs left apart (a joined run may bring a
    joker's old tiles into the set it went to). ``seated``: sets whose jokers are the
    formulation's (seated there first); ``held``: sets holding table jokers, where the
    formulation's jokers go last."""
    pieces: dict[int, list[list[int]]] = {}  # colour -> runs as lists of places
    groups: list[list[int]] = []
    for pattern in tpl.patterns:
        count = values[pattern.column]
        if not count:
            continue
        if pattern.colour < 0:
            groups += [list(pattern.tiles) for _ in range(count)]
        else:
            places = list(range(pattern.start, pattern.start + len(pattern.tiles)))
            pieces.setdefault(pattern.colour, []).extend(list(places) for _ in range(count))
    jokers = {index: values[column] for index, column in tpl.jokers.items() if values[column]}
    joker_colours = {index // rules.numbers for index in jokers}
    ways = [True, False] if vary else [True]
    produced = 0
    for join in ways:
        runs: list[tuple[int, list[int]]] = []
        for colour, found in sorted(pieces.items()):
            runs += [(colour, run) for run in _chains(found, rules, join or colour not in joker_colours)]
        sets = [list(s) for s in seated]  # explicit sets the jokers may be seated in (hosts) first
        sets += [[Tile.from_index(t, rules) for t in group] for group in groups]
        sets += [[tile(colour, number_at(p, rules)) for p in run] for colour, run in runs]
        sets += [list(s) for s in held]
        slots: dict[int, list[tuple[int, int]]] = {}  # tile index -> (set, place) holding it
        for k, owner in enumerate(sets):
            for i, placed in enumerate(owner):
                slots.setdefault(placed.index(rules), []).append((k, i))
        choices = [list(combinations(slots.get(index, []), n)) for index, n in sorted(jokers.items())]
        if not all(choices):
            return  # more jokers at a tile than sets to seat them in: no arrangement
        for seats in product(*choices) if vary else [tuple(c[0] for c in choices)]:
            arranged = [list(s) for s in sets]
            for chosen in seats:
                for k, i in chosen:
                    arranged[k][i] = JOKER
            yield arranged
            produced += 1
            if produced >= MAX_ARRANGEMENTS:
                return


def _chains(runs: list[list[int]], rules: RuleSet, join: bool) -> list[list[int]]:
    """Runs of one colour, those that abut joined (within the numbers) if ``join``."""
    joined: list[list[int]] = []
    for run in sorted(runs):
        follow = next((j for j in joined if j[-1] + 1 == run[0]), None) if join else None
        if follow is not None and len(follow) + len(run) <= rules.numbers:
            follow.extend(run)
        else:
            joined.append(list(run))
    return joined
