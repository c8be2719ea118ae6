"""Tiles moved by a move, and the arrangement of a move that moves the fewest table tiles.

**Tiles moved.** Each set of the new table is *built on* at most one set of the old table, its
*base*, and keeps some of the base's tiles, at least one of them numbered:

- a run is built on an old run of its colour; an old run may be the base of several new runs
  (it was split, each part keeping its own tiles);
- a group is built on an old group of its number; an old group is the base of one new set at most;
- a joker stays only together with a numbered tile of its old set.

A table tile is *unmoved* when it ends in a new set built on the set it was in, kept by it; every
other table tile *moves*. So a set that is extended, trimmed, split or has a tile swapped keeps its
remaining tiles unmoved, while a tile taken to another set, a retrieved joker, and the tiles of a
set broken up over other sets all move. The tiles moved by a new table are the fewest over every
choice of bases (``match``, a small integer program).

**Least moves.** ``least_moves`` keeps the tiles an optimal answer plays and rearranges the old
table plus those tiles into valid sets that move the fewest table tiles; then it keeps the most old
sets exactly as they were; runs built on one old run are joined where they touch (no needless
split). It is an integer program (``solver.model.rearrangement``), solved by the solver's backends from
the answer as a warm start.

Exact for the rules the solver's flow formulation handles (no full wrap, fewer jokers than the
minimum set size) with table jokers free to move; otherwise (strict or locked jokers too), and
before the initial meld, the answer's own arrangement is kept.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from solver.backends import get_backend
from solver.errors import BackendError, ValidationFailure
from solver.jokers import table_readings
from solver.lp import INF, LinearModel
from solver.melds import Kind, natural_order, order_as_laid
from solver.model.rearrangement import RearrangementModel, Terms, set_kinds
from solver.position import Position
from solver.rules import JokerRules, RuleSet, Wrap
from solver.tiles import JOKER, Tile
from solver.validator import validate

Sets = Sequence[Sequence[Tile]]


@dataclass(frozen=True, slots=True)
class Placed:
    """One set of the new table: tiles in natural order, its base and the base's tiles it keeps."""

    tiles: tuple[Tile, ...]
    base: int | None  # index of the old table set it is built on
    kept: tuple[Tile, ...]  # the base's tiles that stay in it (unmoved)


@dataclass(frozen=True, slots=True)
class Rearrangement:
    table: tuple[Placed, ...]
    tiles_moved: int
    optimal: bool  # proven fewest (False when a time limit stopped the search or it did not run)
    seconds: float

    @property
    def sets(self) -> list[list[Tile]]:
        return [list(p.tiles) for p in self.table]


def supported(rules: RuleSet) -> bool:
    """Rules least_moves rearranges under (the others keep the answer's own arrangement)."""
    free_jokers = rules.joker_rules is JokerRules.FREE  # strict/locked: not modelled
    return rules.wrap is not Wrap.FULL and rules.jokers < rules.min_set_size and free_jokers


def least_moves(
    position: Position,
    after: Sets,
    played: Sequence[Tile],
    backend: str = "bnb",
    time_limit: float | None = None,
) -> Rearrangement:
    """A new table with the old table's tiles and ``played`` that moves the fewest table tiles.

    ``after`` is a legal new table with exactly those tiles (an optimal answer); the search starts
    from it, so the result never moves more. Raises ValidationFailure if it would return an illegal
    table (a bug).
    """
    started = time.perf_counter()
    rules = position.rules
    answer = match(position.table, after, rules)
    # Nothing to gain; or an initial meld, whose sets of rack tiles this model does not keep apart.
    untouched = answer.tiles_moved == 0 and sets_broken(position.table, answer.table) == 0
    if untouched or not position.opened or not supported(rules):
        done = untouched or not (position.opened or rules.continue_after_meld)
        return Rearrangement(answer.table, answer.tiles_moved, done, time.perf_counter() - started)
    model = RearrangementModel(rules, [list(s) for s in position.table], Counter(played))
    lp = model.lp
    start = model.encode(after)
    lp.hint = start
    try:
        result = get_backend(backend)(lp, time_limit)
    except BackendError:
        if backend == "highs":
            raise
        result = get_backend("highs")(lp, time_limit)
    if result.values is None:
        return Rearrangement(answer.table, answer.tiles_moved, False, time.perf_counter() - started)
    sets = model.decode(result.values)
    found = match(position.table, sets, rules)
    if Counter(t for s in sets for t in s) != Counter(t for s in after for t in s):
        raise ValidationFailure("least_moves lost or invented tiles")
    problems = validate(position, sets)
    if problems:
        raise ValidationFailure(f"least_moves made an illegal table: {problems[0].message}")
    if found.tiles_moved > answer.tiles_moved:
        raise ValidationFailure("least_moves moved more tiles than the answer it started from")
    return Rearrangement(found.table, found.tiles_moved, result.optimal, time.perf_counter() - started)


def sets_broken(before: Sets, after: Sequence[Placed]) -> int:
    """Old sets that lose a tile or are split, with the new sets built on them as ``after`` says."""
    leaving = [Counter(s) for s in before]
    for p in after:
        if p.base is not None:
            leaving[p.base] -= Counter(p.kept)
    parts = Counter(p.base for p in after if p.base is not None)
    return sum(1 for i, gone in enumerate(leaving) if gone or parts[i] > 1)


def match(before: Sets, after: Sets, rules: RuleSet) -> Rearrangement:
    """The bases of the new table ``after`` that leave the most table tiles unmoved (exact)."""
    started = time.perf_counter()
    old = [Counter(s) for s in before]
    new = [Counter(s) for s in after]
    old_kinds = [set_kinds(s, rules) for s in before]
    new_kinds = [set_kinds(s, rules) for s in after]
    holders: dict[Tile, list[int]] = {}  # numbered tile -> old sets holding it
    for i, o in enumerate(old):
        for t in o:
            if not t.is_joker:
                holders.setdefault(t, []).append(i)
    # Candidate bases: an old set of a kind the new set can be, sharing a numbered tile with it.
    pairs: dict[tuple[int, int], Counter[Tile]] = {}
    for j, n in enumerate(new):
        for i in sorted({i for t in n if not t.is_joker for i in holders.get(t, [])}):
            if old_kinds[i] & new_kinds[j]:
                pairs[i, j] = old[i] & n
                if JOKER in pairs[i, j] and rules.joker_rules is not JokerRules.FREE:
                    _keep_standing_jokers(pairs[i, j], before[i], after[j], rules)
    claims: Counter[tuple[int, Tile]] = Counter()  # copies of a tile the new sets could keep, by old set
    for (i, _), common in pairs.items():
        for t, copies in common.items():
            claims[i, t] += copies
    clash = (
        len({j for _, j in pairs}) < len(pairs)  # a new set with two candidate bases
        or any(claims[i, t] > old[i][t] for i, t in claims)  # a tile two new sets could keep
        or any(Kind.RUN not in old_kinds[i] and n > 1 for i, n in Counter(i for i, _ in pairs).items())
    )
    chosen = (
        _best_bases(old, pairs, old_kinds, [order_as_laid(s, rules) for s in before], new)
        if clash
        else {j: (i, common) for (i, j), common in pairs.items()}
    )
    table = []
    for j, s in enumerate(after):
        base, keeps = chosen.get(j, (None, Counter()))
        table.append(Placed(natural_order(s, rules), base, tuple(sorted(keeps.elements()))))
    moved = sum(len(s) for s in before) - sum(len(p.kept) for p in table)
    return Rearrangement(tuple(table), moved, True, time.perf_counter() - started)


def _best_bases(
    old: list[Counter[Tile]],
    pairs: dict[tuple[int, int], Counter[Tile]],
    old_kinds: list[set[Kind]],
    old_order: list[tuple[Tile, ...]],
    new: list[Counter[Tile]],
) -> dict[int, tuple[int, Counter[Tile]]]:
    """When candidate bases compete: the choice keeping the most tiles, a small integer program;
    of those, the one breaking the fewest old sets (each kept whole by one new set), then the one
    basing the most new sets on an old set they repeat exactly, then the one
    keeping the most neighbours of an old run together (``old_order``: each old set in its natural
    order). A copy of a tile from the rack can stand in for the table's own, so several choices
    keep as many tiles: a set the answer leaves unchanged is then its own base, untouched by the
    steps, and a split is a plain cut where one will do (``O4 O5 J | O7 O8``, not ``O4 J`` and
    ``O5 O7 O8``)."""
    lp = LinearModel()
    chosen: dict[tuple[int, int], int] = {}
    kept: dict[tuple[int, int, Tile], int] = {}
    for (i, j), common in pairs.items():
        b = chosen[i, j] = lp.var(f"b_{i}_{j}", 1)
        numbered = []
        for t, c in common.items():
            k = kept[i, j, t] = lp.var(f"k_{i}_{j}_{t}", c)
            lp.row(f"keep_{i}_{j}_{t}", [(k, 1), (b, -c)], -INF, 0)
            if not t.is_joker:
                numbered.append((k, 1))
        lp.row(f"numbered_{i}_{j}", [*numbered, (b, -1)], 0, INF)
        if JOKER in common:  # a joker stays only with a kept numbered tile of its set
            lp.row(
                f"joker_{i}_{j}",
                [(kept[i, j, JOKER], 1), *[(k, -common[JOKER]) for k, _ in numbered]],
                -INF,
                0,
            )
    for j in {j for _, j in pairs}:
        lp.row(f"one_base_{j}", [(b, 1) for (_, jj), b in chosen.items() if jj == j], 0, 1)
    for i in {i for i, _ in pairs}:
        if Kind.RUN not in old_kinds[i]:  # a group is not split: the base of one new set at most
            lp.row(f"one_group_{i}", [(b, 1) for (ii, _), b in chosen.items() if ii == i], 0, 1)
        for t, c in old[i].items():
            terms = [(k, 1) for (ii, _, tt), k in kept.items() if ii == i and tt == t]
            if len(terms) > 1:
                lp.row(f"copies_{i}_{t}", terms, 0, c)
    neighbours: list[int] = []
    for (i, j), common in pairs.items():
        if Kind.RUN not in old_kinds[i]:
            continue
        for a, b in zip(old_order[i], old_order[i][1:]):
            if a in common and b in common:
                n = lp.var(f"n_{i}_{j}_{len(neighbours)}", 1)
                lp.row(f"n_{i}_{j}_{len(neighbours)}_a", [(n, 1), (kept[i, j, a], -1)], -INF, 0)
                lp.row(f"n_{i}_{j}_{len(neighbours)}_b", [(n, 1), (kept[i, j, b], -1)], -INF, 0)
                neighbours.append(n)
    kept_whole: Terms = []  # old set i kept whole (as it was, or grown) by new set j
    for i, j in chosen:
        u = lp.var(f"u_{i}_{j}", 1)
        size = sum(old[i].values())
        lp.row(f"u_{i}_{j}", [(u, size), *[(k, -1) for (ii, jj, _), k in kept.items() if (ii, jj) == (i, j)]], -INF, 0)
        kept_whole.append((u, 1))
    tiles = [(k, 1) for k in kept.values()]
    whole = [(b, 1) for (i, j), b in chosen.items() if old[i] == new[j]]
    together = [(n, 1) for n in neighbours]
    w_whole = len(together) + 1
    w_kept_whole = (len(whole) + 1) * w_whole
    w_tiles = (len(kept_whole) + 1) * w_kept_whole
    lp.objective = (
        [(k, w_tiles) for k, _ in tiles]
        + [(u, w_kept_whole) for u, _ in kept_whole]
        + [(b, w_whole) for b, _ in whole]
        + together
    )
    lp.stages = [tiles, kept_whole, whole, together]
    lp.hint = [0] * len(lp.names)
    values = get_backend("bnb")(lp, None).values
    assert values is not None
    out: dict[int, tuple[int, Counter[Tile]]] = {}
    for (i, j), b in chosen.items():
        if values[b]:
            out[j] = (i, Counter({t: values[kept[i, j, t]] for t in pairs[i, j] if values[kept[i, j, t]]}))
    return out


def _keep_standing_jokers(common: Counter[Tile], old: Sequence[Tile], new: Sequence[Tile], rules: RuleSet) -> None:
    """Under strict and locked jokers a joker stays in a set built on its old one only where it
    still stands for its tile (read as written, as the next turn reads it): one that stands for
    another tile there was retrieved, and its retrieval is a step of its own."""
    before, after = table_readings(old, rules), table_readings(new, rules)
    if not before or not after:
        common[JOKER] = 0
    elif before[0].kind is Kind.RUN or after[0].kind is Kind.RUN:
        stood, stands = Counter(before[0].run_jokers), Counter(after[0].run_jokers)
        common[JOKER] = min(common[JOKER], sum((stood & stands).values()))
    common += Counter()  # no joker kept: none left in the counter
