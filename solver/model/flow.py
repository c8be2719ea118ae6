"""The flow formulation: runs as flows over the numbers, groups as colour counts per number.

Exact, and far smaller than the set list (about 250 variables instead of 1173 sets):

- Runs of colour ``c``: ``s[c,p]`` runs start at position ``p``; ``u[c,p]`` runs at least
  ``min_set_size`` long cover ``p``. A run younger than that must go on, so the runs covering ``p``
  are ``s[c,p] + s[c,p-1] + … + s[c,p-m+2] + u[c,p]``, and ``u[c,p] <= u[c,p-1] + s[c,p-m+1]``
  (a mature run either goes on or ends). Positions are the numbers; under ``wrap=american`` one more
  position after the top number holds a 1, where runs must end.
- Groups of number ``n``: ``G[n]`` groups use ``w[c,n]`` tiles of colour ``c``. Dealing the tiles
  round-robin into the groups shows that any counts with ``w[c,n] <= G[n]`` and
  ``m*G[n] <= sum_c w[c,n] <= colours*G[n]`` make valid groups, so these rows are exact.
- Jokers: ``j[c,n]`` jokers stand for tile ``(c,n)``. Every set needs a numbered tile, which holds
  automatically while there are fewer jokers than ``min_set_size`` (``flow_supported``).
- Kept sets ``k[s]`` are set aside whole; the flow arranges every other tile.
- Initial meld: the meld is a second flow over rack tiles worth at least the threshold (its
  value counts each slot's number, so a joker counts the number it stands for). Without
  continuing, that flow is the whole move; with continuing, it only has to fit inside the played
  tiles while the main flow arranges the table.

One colour's run flow, and the places a run may occupy, are ``solver.model.run_flow`` (shared with
the pattern formulation, the joker fates and the least-moves arrangement).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from solver.lp import INF, LinearModel
from solver.model.run_flow import add_run_flow, number_at, places
from solver.model.turn import TurnModel, add_kept_sets, add_objective, kept_copies, tile_counts
from solver.position import Position
from solver.rules import RuleSet, Wrap
from solver.solution import Objective
from solver.tiles import JOKER, Tile, tile

Terms = list[tuple[int, int]]


def flow_supported(rules: RuleSet) -> bool:
    """Rules the flow model handles exactly (else the set model is used)."""
    return rules.wrap is not Wrap.FULL and rules.jokers < rules.min_set_size


def with_jokers_present(rules: RuleSet, present: int) -> RuleSet:
    """``rules`` with as many jokers as a turn holds (``present``), where the rules allow more and
    fewer let the flow model (and the pattern one) take it: a rule set's jokers only bound how many
    there are, so the moves are the same, and the set model spared grows about twice per joker."""
    if flow_supported(rules) or present >= rules.jokers:
        return rules
    fewer = rules.replace(jokers=present)
    return fewer if flow_supported(fewer) else rules


@dataclass
class _Flow:
    """The variables of one flow and the linear terms other rows need."""

    starts: dict[tuple[int, int], int] = field(default_factory=dict)  # (colour, position) -> s
    mature: dict[tuple[int, int], int] = field(default_factory=dict)  # (colour, position) -> u
    groups: dict[int, int] = field(default_factory=dict)  # number -> G
    group_use: dict[tuple[int, int], int] = field(default_factory=dict)  # (colour, number) -> w
    jokers: dict[tuple[int, int], int] = field(default_factory=dict)  # (colour, number) -> j
    use: dict[tuple[int, int], Terms] = field(default_factory=dict)  # numbered tiles used per slot
    joker_terms: Terms = field(default_factory=list)  # jokers used
    value: Terms = field(default_factory=list)  # meld value of the sets
    any_set: Terms = field(default_factory=list)  # >= 1 when the flow holds a set
    # Columns no set can use, by (colour or -1, number or -1, tiles present, jokers): see
    # _fix_unusable. Filled as positions meet new patterns.
    unusable: dict[tuple[int, int, int, int], list[int]] = field(default_factory=dict)


def _add_flow(lp: LinearModel, prefix: str, rules: RuleSet, with_jokers: bool) -> _Flow:
    flow = _Flow()
    m, last = rules.min_set_size, places(rules)
    most = rules.copies + rules.jokers  # no slot can be covered more often than this
    letters = rules.colour_letters
    for c in range(rules.colours):
        for n in range(1, rules.numbers + 1):
            flow.use[c, n] = []
        runs = add_run_flow(
            lp,
            prefix,
            f"_{letters[c]}",
            m,
            dict.fromkeys(range(1, last - m + 2), most),
            dict.fromkeys(range(m, last + 1), most),
            rules.numbers,
        )
        for p, v in runs.starts.items():
            flow.starts[c, p] = v
            flow.any_set.append((v, 1))
        for p, v in runs.mature.items():
            flow.mature[c, p] = v
        for p in range(1, last + 1):
            covering = runs.covering(p)
            n = number_at(p, rules)
            flow.use[c, n] += [(v, 1) for v in covering]
            flow.value += [(v, n) for v in covering]
    if rules.groups_possible:
        for n in range(1, rules.numbers + 1):
            g = flow.groups[n] = lp.var(f"{prefix}G_{n}", (rules.copies * rules.colours + rules.jokers) // m)
            flow.any_set.append((g, 1))
            members: Terms = []
            for c in range(rules.colours):
                w = flow.group_use[c, n] = lp.var(f"{prefix}w_{letters[c]}{n}", most)
                # A colour appears at most once in each group.
                lp.row(f"{prefix}colour_{letters[c]}{n}", [(w, 1), (g, -1)], -INF, 0)
                members.append((w, 1))
                flow.use[c, n].append((w, 1))
                flow.value.append((w, n))
            # Every group holds between min_set_size and one-per-colour tiles.
            lp.row(f"{prefix}groupmin_{n}", [*members, (g, -m)], 0, INF)
            lp.row(f"{prefix}groupmax_{n}", [*members, (g, -rules.colours)], -INF, 0)
    if with_jokers and rules.jokers:
        for c in range(rules.colours):
            for n in range(1, rules.numbers + 1):
                j = flow.jokers[c, n] = lp.var(f"{prefix}j_{letters[c]}{n}", rules.jokers)
                flow.use[c, n].append((j, -1))  # a slot filled by a joker uses no numbered tile
                flow.joker_terms.append((j, 1))
    return flow


@dataclass
class _Template:
    """The flow model of one rule set and kind of turn, built once; positions only change bounds."""

    lp: LinearModel  # every tile has a played variable (upper bound 0 until a rack says more)
    played: dict[int, int]  # tile index -> its played variable
    tile_rows: dict[int, int]  # tile index -> row where every copy of it must lie in one set
    arranged: _Flow  # the flow that decides the sets laid or rearranged
    main: _Flow | None  # the table after the move (None when the table cannot change)
    meld: _Flow | None  # the initial meld
    table_fixed: bool
    joker: int


@cache
def _template(rules: RuleSet, opened: bool) -> _Template:
    joker = rules.joker_index
    kinds = [*range(joker), *([joker] if rules.jokers else [])]
    lp = LinearModel()
    played = {t: lp.var(f"r_{Tile.from_index(t, rules)}", 0) for t in kinds}
    table_fixed = not opened and not rules.continue_after_meld
    tile_rows: dict[int, int] = {}
    main: _Flow | None = None
    if not table_fixed:
        main = _add_flow(lp, "", rules, with_jokers=True)
        # Every tile on the table after the move lies in one set: a kept one or one of the flow.
        for t in kinds:
            terms = (
                main.joker_terms
                if t == joker
                else main.use[divmod(t, rules.numbers)[0], t % rules.numbers + 1]
            )
            tile_rows[t] = len(lp.rows)
            lp.row(f"tile_{Tile.from_index(t, rules)}", [*terms, (played[t], -1)], 0, 0)
    meld: _Flow | None = None
    if not opened:
        meld = _add_flow(lp, "m", rules, with_jokers=rules.joker_in_meld)
        # Nothing is played unless the player opens (r <= copies * opens; the rack bounds r).
        opens = lp.var("opens", 1)
        for t in kinds:
            cap = rules.jokers if t == joker else rules.copies
            lp.row(f"opens_{Tile.from_index(t, rules)}", [(played[t], 1), (opens, -cap)], -INF, 0)
        # The meld is made of rack tiles only: exactly the played tiles when it is the whole
        # move, otherwise some of them (after it the player rearranges the table).
        for t in range(joker):
            c, n = divmod(t, rules.numbers)
            terms = meld.use[c, n + 1]
            lp.row(
                f"meld_{Tile.from_index(t, rules)}", [*terms, (played[t], -1)], 0 if table_fixed else -INF, 0
            )
            lp.row(f"meldreal_{Tile.from_index(t, rules)}", terms, 0, INF)
        if meld.joker_terms:
            terms = [*meld.joker_terms, (played[joker], -1)]
            lp.row("meld_J", terms, 0 if table_fixed else -INF, 0)
        lp.row("meld_value", [*meld.value, (opens, -rules.meld_threshold)], 0, INF)
        lp.row("meld_sets", [*meld.any_set, (opens, -1)], 0, INF)
    arranged = meld if table_fixed else main
    assert arranged is not None
    lp.arrays()  # computed once, shared by every position's model
    return _Template(lp, played, tile_rows, arranged, main, meld, table_fixed, joker)


def build_flow_model(
    position: Position,
    objective: Objective = Objective.TILES,
    keep: Sequence[Sequence[Tile]] | None = None,
) -> TurnModel:
    """The turn as a flow model. ``keep``: the sets the tie-break tries to leave exactly as
    they were (default: the table's sets; ``arrange`` passes the lines it was given)."""
    rules = position.rules
    if not flow_supported(rules):
        raise ValueError("the flow model needs wrap none/american and fewer jokers than min_set_size")
    tpl = _template(rules, position.opened)
    rack, table = tile_counts(position)
    lp = tpl.lp.derive()
    for t, n in rack.items():
        lp.upper[tpl.played[t]] = n
    if tpl.table_fixed and not rules.joker_in_meld and tpl.joker in tpl.played:
        lp.upper[tpl.played[tpl.joker]] = 0  # the meld is the whole move and may hold no joker
    for t, row in tpl.tile_rows.items():
        count = table.get(t, 0)
        lp.set_row_bounds(row, count, count)  # every table tile lies in a set after the move
    if tpl.main is not None:
        _fix_unusable(lp, tpl.main, rack + table, rules, rules.jokers > 0)
    if tpl.meld is not None:
        _fix_unusable(lp, tpl.meld, rack, rules, rules.joker_in_meld)
    keep_sets = position.table if keep is None else tuple(tuple(s) for s in keep)
    kept_sets = [] if tpl.table_fixed else add_kept_sets(lp, keep_sets, tpl.tile_rows, rules, keep is not None)
    played_vars = {t: tpl.played[t] for t in sorted(rack)}
    add_objective(lp, position, objective, played_vars, [k for k, _ in kept_sets], len(keep_sets), rack)
    arranged, played = tpl.arranged, tpl.played

    def decode(values: Sequence[int]) -> tuple[list[list[Tile]], list[Tile]]:
        tiles = [Tile.from_index(t, rules) for t, var in played.items() for _ in range(values[var])]
        sets: list[list[Tile]] = [list(s) for s in position.table] if tpl.table_fixed else []
        sets += kept_copies(kept_sets, values)
        sets += _decode_flow(arranged, values, rules)
        return sets, tiles

    return TurnModel(
        position, objective, lp, "flow", decode, played_columns=played_vars, kept_columns=tuple(k for k, _ in kept_sets)
    )


def _fix_unusable(
    lp: LinearModel, flow: _Flow, tiles: Counter[int], rules: RuleSet, jokers_allowed: bool
) -> None:
    """Fix at zero what these tiles can never use, so that backends can drop it (exactly).

    A run needs a numbered tile or a joker on every place and a numbered tile somewhere; a
    group needs min_set_size places of its number; jokers need jokers. What is unusable depends
    only on which tiles of a colour (or of a number) are present, so it is looked up by that.
    """
    numbers, colours = rules.numbers, rules.colours
    jokers = min(tiles[colours * numbers], rules.min_set_size) if jokers_allowed else 0
    upper = lp.upper
    by_colour, by_number = [0] * colours, [0] * (numbers + 1)
    for t, count in tiles.items():
        if count > 0 and t < colours * numbers:
            c, n = divmod(t, numbers)
            by_colour[c] |= 1 << n
            by_number[n + 1] |= 1 << c
    unusable = flow.unusable
    for c in range(colours):
        key = (c, -1, by_colour[c], jokers)
        if key not in unusable:
            starts, mature = _unusable_run_places(by_colour[c], jokers, rules)
            unusable[key] = [flow.starts[c, p] for p in starts] + [flow.mature[c, p] for p in mature]
        for column in unusable[key]:
            upper[column] = 0
    for n, g in flow.groups.items():
        key = (-1, n, by_number[n], jokers)
        if key not in unusable:
            group_usable, colour_usable = _usable_group(by_number[n], jokers, rules)
            columns = [] if group_usable else [g]
            unusable[key] = columns + [flow.group_use[c, n] for c in range(colours) if not colour_usable[c]]
        for column in unusable[key]:
            upper[column] = 0
    if jokers == 0:
        for j in flow.jokers.values():
            upper[j] = 0


@cache
def _unusable_run_places(present: int, jokers: int, rules: RuleSet) -> tuple[list[int], list[int]]:
    """Where no run of one colour can start, and where no mature run can reach, given which of
    its numbers are present (bit n-1 for number n) and how many jokers may help."""
    m, last = rules.min_set_size, places(rules)
    real = [False] + [bool(present >> (number_at(p, rules) - 1) & 1) for p in range(1, last + 1)]
    startable = {}
    starts, mature = [], []
    for p in range(1, last - m + 2):
        window = real[p : p + m]
        startable[p] = any(window) and window.count(False) <= jokers
        if not startable[p]:
            starts.append(p)
    # A mature run covers p only if it could start m-1 places back and reach p unbroken.
    reach = False
    for p in range(m, last + 1):
        reach = (real[p] or jokers > 0) and (startable[p - m + 1] or reach)
        if not reach:
            mature.append(p)
    return starts, mature


@cache
def _usable_group(present: int, jokers: int, rules: RuleSet) -> tuple[bool, tuple[bool, ...]]:
    """Whether a group of one number can be made, and which colours can join one, given which
    colours are present (bit c) and how many jokers may help."""
    count = bin(present).count("1")
    usable = count > 0 and count + jokers >= rules.min_set_size
    return usable, tuple(usable and (bool(present >> c & 1) or jokers > 0) for c in range(rules.colours))


def _decode_flow(flow: _Flow, values: Sequence[int], rules: RuleSet) -> list[list[Tile]]:
    """Sets from a flow's values: trace the runs, deal the groups, then place the jokers."""
    m, last = rules.min_set_size, places(rules)
    slots: dict[tuple[int, int], list[tuple[list[Tile], int]]] = {}  # slot -> places of sets there
    sets: list[list[Tile]] = []

    def new_set(members: list[tuple[int, int]]) -> None:
        owner = [tile(c, n) for c, n in members]
        for i, (c, n) in enumerate(members):
            slots.setdefault((c, n), []).append((owner, i))
        sets.append(owner)

    def end_run(run: list[int], c: int) -> None:
        # The flow keeps runs within the numbers (add_run_flow), the longest ending first here.
        assert len(run) <= rules.numbers, "a run repeating a number"
        new_set([(c, number_at(p, rules)) for p in run])

    for c in range(rules.colours):
        begun = [values[flow.starts[c, p]] if (c, p) in flow.starts else 0 for p in range(1, last + 1)]
        if not any(begun):
            continue  # no run of this colour
        active: list[list[int]] = []  # positions of each run still open
        for p in range(1, last + 1):
            if not active and not begun[p - 1]:
                continue
            young = [run for run in active if len(run) < m]
            old = [run for run in active if len(run) >= m]
            reaching = values[flow.starts[c, p - m + 1]] if (c, p - m + 1) in flow.starts else 0
            going_on = values[flow.mature[c, p]] - reaching if (c, p) in flow.mature else 0
            # Mature runs beyond those that go on end here; the longest end first.
            old.sort(key=len)
            for run in old[going_on:]:
                end_run(run, c)
            active = young + old[:going_on]
            active += [[] for _ in range(begun[p - 1])]
            for run in active:
                run.append(p)
        for run in active:
            end_run(run, c)
    for n, g in flow.groups.items():
        count = values[g]
        members: list[list[tuple[int, int]]] = [[] for _ in range(count)]
        i = 0
        for c in range(rules.colours):
            for _ in range(values[flow.group_use[c, n]]):
                members[i % count].append((c, n))  # round robin: a colour never twice in a group
                i += 1
        for group in members:
            new_set(group)
    # Each slot is filled by as many jokers as the flow says; the rest are the numbered tile.
    for (c, n), spots in slots.items():
        jokers = values[flow.jokers[c, n]] if (c, n) in flow.jokers else 0
        for owner, i in spots[:jokers]:
            owner[i] = JOKER
    return sets
