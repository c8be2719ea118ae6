"""Solving one turn: choose the model, run a backend, decode, validate, describe the result."""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from solver.backends import BACKENDS, get_backend
from solver.errors import RulesError, RummikubError, ValidationFailure
from solver.initial_meld import best_meld_value, meld_value_bound
from solver.joker_swaps import legal_by_swaps
from solver.lp import INF
from solver.model import FORMULATIONS as FORMULATIONS
from solver.model import TurnModel, build_model, resolved_formulation
from solver.model.deadline import BUILD_DEADLINE, BuildTimeLimit
from solver.model.flow import flow_supported, with_jokers_present
from solver.model.joker_fates import warm_host_table
from solver.model.table_jokers import needs_joker_rows
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.solution import (
    Objective,
    SetChange,
    Solution,
    Status,
    describe_table,
    joker_story,
    unchanged,
)
from solver.tiles import JOKER, Tile, points
from solver.validator import is_legal, validate


@dataclass(frozen=True, slots=True)
class SolveOptions:
    """How to solve a turn, handed whole to ``solve`` and the services built on it (as
    python-chess hands an ``engine.Limit`` to ``play``).

    ``objective``: what the best move maximises first; ``backend``: the exact solver;
    ``time_limit``: seconds for the search (None: no limit); ``formulation``: the integer program
    (``auto`` lets the backend choose).
    """

    objective: Objective = Objective.TILES
    backend: str = "bnb"
    time_limit: float | None = None
    formulation: str = "auto"

    def __post_init__(self) -> None:
        object.__setattr__(self, "objective", Objective(self.objective))
        if self.backend not in BACKENDS:
            raise RulesError(f"unknown backend {self.backend!r} (backends: {', '.join(BACKENDS)})")
        if self.formulation not in FORMULATIONS:
            raise RulesError(f"unknown formulation {self.formulation!r} (formulations: {', '.join(FORMULATIONS)})")

    @property
    def model_formulation(self) -> str:
        """The formulation the backend solves: ``auto`` is den Hertog & Hulshof's set model for
        CBC and CP-SAT (bnb and HiGHS take the smaller ones, chosen per turn)."""
        if self.formulation == "auto" and self.backend not in ("highs", "bnb"):
            return "sets"
        return self.formulation

    def replace(self, **changes: Any) -> SolveOptions:
        return dataclasses.replace(self, **changes)


Rank = tuple[int, int, int]  # what the objective ranks, most important first (see _rank)


class Found(NamedTuple):
    """One search's answer before it is checked and described."""

    sets: list[list[Tile]]  # the table after the move
    played: list[Tile]
    optimal: bool  # proven optimal
    build_seconds: float
    solve_seconds: float
    checked: bool = False  # validate() passed these sets already (a relaxed model's answer, judged)

    def unproven(self) -> Found:
        return self._replace(optimal=False)


def warm(rules: RuleSet, options: SolveOptions = SolveOptions()) -> None:
    """Load the backend and build the model templates of ``rules`` (both turns, opened or not)
    and, under strict and locked jokers, the table of hosts for retrieved jokers, once in this
    process: worker processes forked afterwards share them, and no solve runs before the fork.
    Rules beyond a formulation are left for the solves to report."""
    from solver.backends import preload

    preload(options.backend)
    try:
        for opened in (True, False):
            build_model(Position((), (), opened, rules), options.objective, options.model_formulation)
        warm_host_table(rules)
    except (RummikubError, ValueError):
        pass


def lp_text(position: Position, options: SolveOptions = SolveOptions()) -> str:
    """The turn's integer program as ``options`` solve it, in LP format (under strict or locked
    jokers the exact model: the search's relaxations are steps, not the problem)."""
    formulation = options.model_formulation
    if formulation == "auto":
        position = _jokers_present(position)
    model = build_model(position, options.objective, formulation, exact=True)
    return model.lp.to_lp_text()


def solve(position: Position, options: SolveOptions = SolveOptions()) -> Solution:
    """The best move for ``position``; validated before it is returned.

    Raises BackendError if the backend fails and ValidationFailure if the answer breaks a rule
    (a bug). A time limit never turns into "no move": status ``time_limit`` says it is unproven.
    """
    started = time.perf_counter()
    backend = options.backend
    options = options.replace(formulation=options.model_formulation)
    resolved_formulation(position, options.formulation)  # a formulation beyond the rules: refused on every path
    given = position
    if options.formulation == "auto":
        position = _jokers_present(position)
    found = _shortcut(position, options) if backend == "bnb" else None
    fallback: Found | None = None
    ceiling: Rank | None = None
    start: dict[str, int] | None = None
    if found is None and backend == "bnb" and options.formulation == "auto" and needs_joker_rows(position):
        found, fallback, ceiling, start = _free_first(position, options)
        options = _less_time(options, time.perf_counter() - started)  # the limit covers the whole solve
    if found is None and fallback is None and options.time_limit is not None:
        fallback = _jokers_held_back(position, options)
        if fallback is not None:
            options = _less_time(options, time.perf_counter() - started)
    if found is None and fallback is not None and options.time_limit is not None and options.time_limit < 0.01:
        found = fallback.unproven()  # no time left to build and search the joker model (2-3 ms)
    if found is None:
        found = _search(position, options, exact=False, ceiling=ceiling, start=start)
        if not found.optimal and fallback is not None and _rank(position, options, fallback) > _rank(position, options, found):
            found = fallback.unproven()  # the time limit stopped the search below the fallback
    sets, played = found.sets, found.played
    if not played:  # no move: the table stays exactly as it was (a turn never only rearranges)
        sets = [list(s) for s in position.table]
    position = given  # the rules as given: the move is judged and described under them
    problems = [] if found.checked and sets is found.sets else validate(position, sets)
    if problems:
        details = "; ".join(v.message for v in problems)
        raise ValidationFailure(f"backend {backend} returned an illegal move: {details}")
    if found.optimal:
        status = Status.OPTIMAL if played else Status.NO_MOVE
    else:
        status = Status.TIME_LIMIT
    placed = describe_table(position, sets, played)
    placed, retrieved = joker_story(position, placed)
    return Solution(
        position=position,
        status=status,
        objective=options.objective,
        played=tuple(sorted(played)),
        table=placed,
        kept_sets=sum(1 for s in placed if s.change is SetChange.UNCHANGED),
        backend=backend,
        seconds=time.perf_counter() - started,
        build_seconds=found.build_seconds,
        solve_seconds=found.solve_seconds,
        retrieved=retrieved,
    )



# Repairs of a relaxed answer none of whose arrangements is legal (see _search).
REPAIRS = 4
SWAPPED_ARRANGEMENTS = 2  # illegal arrangements of a relaxed answer tried with swaps first


def _search(
    position: Position,
    options: SolveOptions,
    exact: bool = False,
    ceiling: Rank | None = None,
    start: dict[str, int] | None = None,
) -> Found:
    """Build the turn's model, run the backend, decode its answer.

    A relaxed model (strict and locked jokers on the pattern formulation) bounds the rules'
    optimum from above, so its optimum is the rules' optimum when one of its arrangements is
    legal. When none is, the answer is *repaired*: its fates (which hosts, stays, retrievals) are
    excluded and the model solved again, a few times; an arrangement that is legal and still
    scores the first optimum is optimal whatever was excluded on the way (that bound holds). Else
    the exact model decides.

    ``ceiling``: what no legal move can beat (the free optimum's rank), if known. A legal
    arrangement reaching it is optimal, whatever model found it: so a smaller model with only
    short hosts of one joker is solved first, and only if that falls short the whole relaxed
    model, that answer kept as the search's first incumbent.

    ``start``: a legal move's values by column name (``_untouched``), the search's first
    incumbent: on the columns the model shares with it, the play-nothing move elsewhere.
    """
    started = time.perf_counter()
    deadline = None if options.time_limit is None else started + options.time_limit
    model = _build(position, options, deadline, exact, short_hosts=ceiling is not None)
    if model is None:  # out of time before a search: no move found (the caller's fallback is better)
        return _no_move(position, False, time.perf_counter() - started)
    built = time.perf_counter()
    searched = 0.0  # seconds in the smaller model's search
    if model.partial and ceiling is not None:
        _start_from(model, start)
        quick, seconds = _short_hosts_first(position, options, model, ceiling)
        if isinstance(quick, Found):
            return quick._replace(build_seconds=quick.build_seconds + built - started)
        start = quick or start
        searched = seconds
        rebuilding = time.perf_counter()
        model = _build(position, options, deadline, exact)
        if model is None:
            return _no_move(position, False, time.perf_counter() - started)
        built = time.perf_counter()
        # Its formulation's template is built by now: this model's build counts against the limit.
        options = _less_time(options, seconds + built - rebuilding)
    nothing = model.lp.hint  # the move "play nothing": feasible under any repair row too
    _start_from(model, start)
    # The limit is for the search: a process's first model also builds its template and loads
    # numpy, which would leave a short limit no time to search at all.
    result = get_backend(options.backend)(model.lp, options.time_limit)
    values = result.values if result.values is not None else model.lp.hint
    model.lp.hint = nothing
    build_seconds = built - started - searched + result.build_seconds
    solve_seconds = result.seconds + searched
    if not model.relaxed:
        sets, played = model.decode(values)
        return Found(sets, played, result.optimal, build_seconds, solve_seconds)
    proven = result.optimal
    found, solve_seconds = _repaired(position, options, model, values, proven, build_seconds, solve_seconds, ceiling)
    if found is not None:
        return found
    if not proven:
        # Out of time: the best legal move found so far is the search's honest answer.
        return _no_move(position, False, build_seconds, solve_seconds)
    found = _search(position, _less_time(options, solve_seconds), exact=True)  # the limit covers every step
    return found._replace(
        build_seconds=found.build_seconds + build_seconds, solve_seconds=found.solve_seconds + solve_seconds
    )


def _repaired(
    position: Position,
    options: SolveOptions,
    model: TurnModel,
    values: Sequence[int],
    proven: bool,
    build_seconds: float,
    solve_seconds: float,
    ceiling: Rank | None,
) -> tuple[Found | None, float]:
    """A legal arrangement of the relaxed model's answer ``values``, the answer repaired (see
    ``_search``) up to REPAIRS times while each new answer is proven and keeps the first optimum:
    (the move, or None when only the exact model can say; the solve's seconds so far)."""
    bound = _stage_values(model, values)
    for repair in range(REPAIRS + 1):
        found = _legal_arrangement(
            position, options, model, values, bound, proven, build_seconds, solve_seconds, ceiling
        )
        if found is not None or repair == REPAIRS or not proven:
            return found, solve_seconds
        cut = _exclude(model, values, repair)
        result = get_backend(options.backend)(model.lp, _less_time(options, solve_seconds).time_limit)
        solve_seconds += result.seconds
        if result.values is None or not result.optimal:
            break  # unproven: only the exact model can say
        if cut:
            bound = _stage_values(model, result.values)
        elif _stage_values(model, result.values) != bound:
            break  # below the bound: only the exact model can say
        values = result.values
    return None, solve_seconds


def _exclude(model: TurnModel, values: Sequence[int], repair: int) -> bool:
    """Rows the answer ``values`` breaks, added to the model; whether they were rows of the rules
    (else one row excluding the answer's fates)."""
    # Rows of the rules the model left out that the answer breaks keep the model a
    # relaxation: its new optimum is a bound too. Else exclude the answer's fates.
    cuts = model.cuts(values) if model.cuts is not None else []
    for name, terms, lo, hi in cuts:
        model.lp.row(name, terms, lo, hi)
    if not cuts:
        chosen = [(v, 1) for v in model.fate_columns if values[v] >= 1]
        model.lp.row(f"repair_{repair}", chosen, -INF, len(chosen) - 1)
    return bool(cuts)


def _less_time(options: SolveOptions, spent: float) -> SolveOptions:
    """``options`` with ``spent`` seconds taken off its time limit (a millisecond at least is left:
    a search needs some limit to stop at)."""
    if options.time_limit is None:
        return options
    return options.replace(time_limit=max(options.time_limit - spent, 0.001))


def _build(
    position: Position, options: SolveOptions, deadline: float | None, exact: bool = False, short_hosts: bool = False
) -> TurnModel | None:
    """The turn's model, or None if the solve's time limit (``deadline``) ran out while it was
    built: listing the exact strict-joker sets can take long under unusual rules."""
    token = BUILD_DEADLINE.set(deadline)
    try:
        return build_model(position, options.objective, options.formulation, exact, short_hosts=short_hosts)
    except BuildTimeLimit:
        return None
    finally:
        BUILD_DEADLINE.reset(token)


def _no_move(position: Position, optimal: bool, build_seconds: float = 0.0, solve_seconds: float = 0.0) -> Found:
    """The move "play nothing": the table as it was."""
    return Found([list(s) for s in position.table], [], optimal, build_seconds, solve_seconds)


def _start_from(model: TurnModel, start: dict[str, int] | None) -> None:
    """A legal move's values by column name as the model's starting move, if they fit it."""
    if start is None:
        return
    hint = [start.get(name, value) for name, value in zip(model.lp.names, model.lp.hint)]
    if model.lp.satisfied_by(hint):  # else a column's name meant another thing: keep nothing
        model.lp.hint = hint


def _short_hosts_first(
    position: Position, options: SolveOptions, model: TurnModel, ceiling: Rank
) -> tuple[Found | dict[str, int] | None, float]:
    """The model with short hosts only, solved: a legal arrangement at the ceiling (optimal),
    else that answer's values by column name to start the whole model's search from (None if
    there is none); and the seconds it took."""
    result = get_backend(options.backend)(model.lp, options.time_limit)
    seconds = result.build_seconds + result.seconds
    if result.values is None:
        return None, seconds
    for sets, played in _legal_arrangements(position, model.arrangements(result.values)):
        found = Found(sets, played, True, result.build_seconds, result.seconds, bool(played))
        if _rank(position, options, found) >= ceiling:
            return found, seconds
    return dict(zip(model.lp.names, result.values)), seconds


def _stage_values(model: TurnModel, values: Sequence[int]) -> tuple[int, ...]:
    return tuple(round(sum(c * values[v] for v, c in stage)) for stage in model.lp.stages)


def _legal_arrangements(
    position: Position, arrangements: Iterator[tuple[list[list[Tile]], list[Tile]]]
) -> Iterator[tuple[list[list[Tile]], list[Tile]]]:
    """The arrangements (of a relaxed answer) that are legal, then those of the rest that one or
    two swaps of a joker with a tile it stands for make legal (``legal_by_swaps``: the same tiles
    and at least the same sets kept, so they score no less)."""
    illegal = []
    for sets, played in arrangements:
        if not played or is_legal(position, sets):
            yield sets, played
        else:
            illegal.append((sets, played))
    for sets, played in illegal[:SWAPPED_ARRANGEMENTS]:
        swapped = legal_by_swaps(position, sets)
        if swapped is not None:
            yield swapped, played


def _legal_arrangement(
    position: Position,
    options: SolveOptions,
    model: TurnModel,
    values: Sequence[int],
    bound: tuple[int, ...],
    optimal: bool,
    build_seconds: float,
    solve_seconds: float,
    ceiling: Rank | None = None,
) -> Found | None:
    """The best legal arrangement of a relaxed answer, and as soon as one reaches the bound (the
    arrangements of one answer may leave different numbers of table sets as they were); None if
    none reaches it (a lesser one is no proven optimum)."""
    best: Found | None = None
    for sets, played in _legal_arrangements(position, model.arrangements(values)):
        found = Found(sets, played, optimal, build_seconds, solve_seconds, bool(played))
        if best is None or _rank(position, options, found) > _rank(position, options, best):
            best = found
        rank = _rank(position, options, found)
        reached = ceiling is not None and rank >= ceiling  # no legal move beats it: optimal
        if rank >= bound or reached:
            return found._replace(optimal=optimal or reached)
    if best is not None and not optimal:
        return best
    return None


def _shortcut(position: Position, options: SolveOptions) -> Found | None:
    """Exact answers that avoid the initial meld's larger model, or None to solve it in full.

    - A rack whose tiles cannot make sets worth the threshold cannot open: no move (a quick
      bound first, then the exact best meld, a small search over the rack's sets).
    - Continuing after the meld: the best move with the table free is a relaxation of the
      opening turn; when that move is also a legal opening (its played tiles hold a meld), no
      opening can beat it, so it is the answer.
    """
    rules = position.rules
    if position.opened:
        return None
    rack = Counter(position.rack)
    threshold = rules.meld_threshold
    if meld_value_bound(rack, rules) < threshold or (
        threshold > 0 and best_meld_value(rack, rules, threshold) < threshold
    ):
        return _no_move(position, True)
    if not rules.continue_after_meld:
        return None
    relaxed = _search(dataclasses.replace(position, opened=True), options.replace(formulation="auto"))
    if relaxed.optimal and relaxed.played and is_legal(position, relaxed.sets):
        return relaxed
    return None


def _free_first(
    position: Position, options: SolveOptions
) -> tuple[Found | None, Found | None, Rank | None, dict[str, int] | None]:
    """Exact answers under strict and locked joker rules from smaller models, and a fallback.

    These rules only forbid moves, so the free optimum bounds theirs: a legal answer that scores
    as much as the free optimum (tiles, points and kept sets alike) is their optimum. Tried in
    turn: the free optimum itself; it with jokers swapped with the tiles they stand for
    (``_swapped``); under a time limit, the free optimum with the sets holding
    table jokers left untouched (always legal: the fallback move, and the joker model's first
    incumbent; without a limit the short-host model's answer starts that search, and the
    untouched move cost more LP solves than it saved). Returns (exact answer or None, fallback or
    None, the free optimum's rank: no legal move beats it, the fallback's values by column name).
    """
    free = dataclasses.replace(position, rules=position.rules.replace(joker_rules=JokerRules.FREE))
    auto = options.replace(formulation="auto")
    best_free = _search(free, auto)
    if not best_free.optimal:
        return None, None, None, None
    if not best_free.played:
        return best_free, None, None, None
    if is_legal(position, best_free.sets):
        return best_free._replace(checked=True), None, None, None
    ceiling = _rank(position, options, best_free)
    swapped = _swapped(position, best_free)
    if swapped is not None:
        return swapped, None, None, None
    if options.time_limit is None:
        return None, None, ceiling, None
    untouched, start = _untouched(free, auto, ceiling)
    if not untouched.played:
        return None, None, ceiling, None
    if untouched.optimal and _rank(position, options, untouched) >= ceiling:
        return untouched, None, ceiling, None
    return None, untouched.unproven(), ceiling, start


def _swapped(position: Position, free: Found) -> Found | None:
    """The free optimum made legal by one or two swaps of a joker with a real tile it stands for,
    if that does it: then it is optimal (no legal move beats the free optimum, and it plays the
    same tiles and keeps the same sets: no set swapped was a table set as it was).

    Where the free optimum breaks the strict or locked rules, the rules' optimum mostly plays the
    same tiles with a table joker retrieved: a real tile it stood for in its place, the joker
    where that tile was. The free model cannot tell its jokers from the tiles they stand for; a
    swap can."""
    sets = legal_by_swaps(position, free.sets)
    return None if sets is None else free._replace(sets=sets, checked=True)


def _jokers_present(position: Position) -> Position:
    """``position`` under rules with as many jokers as it holds (see ``with_jokers_present``)."""
    present = sum(s.count(JOKER) for s in position.table) + position.rack.count(JOKER)
    rules = with_jokers_present(position.rules, present)
    return position if rules is position.rules else dataclasses.replace(position, rules=rules)


def _jokers_held_back(position: Position, options: SolveOptions) -> Found | None:
    """Under a time limit, where the rules' jokers reach the smallest set's size (the set model,
    slow on big positions: a short limit may find nothing), the best move with the rack's jokers
    held back, on the fast formulations: legal as it stands, it is the fallback should the
    limit stop the search below it. None where the rules leave nothing faster to try."""
    rules = position.rules
    on_table = sum(s.count(JOKER) for s in position.table)
    rack = tuple(t for t in position.rack if not t.is_joker)
    if options.backend != "bnb" or options.formulation != "auto" or flow_supported(rules) or not rack:
        return None
    fewer = with_jokers_present(rules, on_table)
    if len(rack) == len(position.rack) or fewer is rules:
        return None
    answer = solve(dataclasses.replace(position, rack=rack, rules=fewer), options)
    if not answer.played:
        return None
    sets = [list(p.tiles) for p in answer.table]
    return Found(sets, list(answer.played), False, answer.build_seconds, answer.solve_seconds)


def _untouched(free: Position, options: SolveOptions, ceiling: Rank) -> tuple[Found, dict[str, int]]:
    """The best free move that leaves the sets holding jokers as they were (legal under any
    joker rules), and its values by column name (the joker model shares those columns).

    It settles the position only if it reaches ``ceiling``; else it is only a first incumbent,
    so its search stops, unproven, once a part of the objective falls short of the ceiling's."""
    still = [s for s in free.table if any(t.is_joker for t in s)]
    rest = dataclasses.replace(free, table=tuple(s for s in free.table if s not in still))
    model = build_model(rest, options.objective, options.formulation)
    first, second, kept = ceiling
    model.lp.targets = (first, second, kept - len(still))  # the sets left whole count as kept
    result = get_backend(options.backend)(model.lp, options.time_limit)
    values = result.values if result.values is not None else model.lp.hint
    sets, played = model.decode(values)
    found = Found([*sets, *[list(s) for s in still]], played, result.optimal, result.build_seconds, result.seconds)
    return found, dict(zip(model.lp.names, values))


def _rank(position: Position, options: SolveOptions, found: Found) -> Rank:
    """What the objective ranks, most important first: tiles or points, the other, sets kept."""
    tiles, value = len(found.played), points(found.played, position.rules)
    kept = len(unchanged(position.table, found.sets)) if found.played else len(position.table)
    return (tiles, value, kept) if options.objective is Objective.TILES else (value, tiles, kept)
