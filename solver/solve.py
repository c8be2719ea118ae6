"""Solving one turn: choose the model, run a backend, decode, validate, describe the result."""

from __future__ import annotations

import dataclasses
import time
from collections import Counter

from solver.backends import get_backend
from solver.errors import ValidationFailure
from solver.initial_meld import best_meld_value, meld_value_bound
from solver.joker_account import Retrieved, account
from solver.model import build_model
from solver.model.joker_rows import needs_joker_rows
from solver.position import Position
from solver.rules import JokerRules
from solver.solution import Objective, SetChange, Solution, Status, describe_table, unchanged
from solver.tiles import Tile, points
from solver.validator import validate


def solve(
    position: Position,
    objective: Objective | str = Objective.TILES,
    backend: str = "bnb",
    time_limit: float | None = None,
    formulation: str = "auto",
) -> Solution:
    """The best move for ``position``; validated before it is returned.

    Raises BackendError if the backend fails and ValidationFailure if the answer breaks a rule
    (a bug). A time limit never turns into "no move": status ``time_limit`` says it is unproven.
    """
    started = time.perf_counter()
    objective = Objective(objective)
    if formulation == "auto" and backend not in ("highs", "bnb"):
        formulation = "sets"  # CBC and CP-SAT solve den Hertog & Hulshof's set model by default
    found = _shortcut(position, objective, backend, time_limit) if backend == "bnb" else None
    fallback: _Found | None = None
    if found is None and backend == "bnb" and formulation == "auto" and needs_joker_rows(position):
        found, fallback = _free_first(position, objective, backend, time_limit)
        if time_limit is not None:  # the limit covers the whole solve
            time_limit = max(time_limit - (time.perf_counter() - started), 0.001)
    if found is None and fallback is not None and time_limit is not None and time_limit < 0.2:
        found = (*fallback[:2], False, *fallback[3:])  # no time left to build the joker model
    if found is None:
        found = _search(position, objective, backend, time_limit, formulation)
        better = fallback is not None and _rank(position, objective, fallback) > _rank(position, objective, found)
        if not found[2] and fallback is not None and better:  # stopped by the time limit
            found = (*fallback[:2], False, *fallback[3:])
    sets, played, optimal, build_seconds, solve_seconds = found
    if not played:  # no move: the table stays exactly as it was (a turn never only rearranges)
        sets = [list(s) for s in position.table]
    problems = validate(position, sets)
    if problems:
        details = "; ".join(v.message for v in problems)
        raise ValidationFailure(f"backend {backend} returned an illegal move: {details}")
    if optimal:
        status = Status.OPTIMAL if played else Status.NO_MOVE
    else:
        status = Status.TIME_LIMIT
    placed = describe_table(position, sets, played)
    retrieved: tuple[Retrieved, ...] = ()
    if position.rules.joker_rules is not JokerRules.FREE:
        story = account(position, [p.tiles for p in placed])
        if story is None:  # validate() found an account of the same table: a bug if not here
            raise ValidationFailure("no account of the table jokers for a validated move")
        retrieved = story.retrieved
    return Solution(
        position=position,
        status=status,
        objective=objective,
        played=tuple(sorted(played)),
        table=placed,
        kept_sets=sum(1 for s in placed if s.change is SetChange.UNCHANGED),
        backend=backend,
        seconds=time.perf_counter() - started,
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        retrieved=retrieved,
    )


_Found = tuple[list[list[Tile]], list[Tile], bool, float, float]  # sets, played, optimal, times


def _search(
    position: Position,
    objective: Objective,
    backend: str,
    time_limit: float | None,
    formulation: str,
    jokers_stay: bool = False,
) -> _Found:
    """Build the turn's model, run the backend, decode its answer."""
    started = time.perf_counter()
    model = build_model(position, objective, formulation, jokers_stay)
    built = time.perf_counter()
    # The limit is for the search. Building the model takes about a millisecond, but a process's
    # first model also builds its template and loads numpy (0.1-0.15 s), which would leave a
    # short limit no time to search at all.
    result = get_backend(backend)(model.lp, time_limit)
    values = result.values if result.values is not None else model.lp.hint
    sets, played = model.decode(values)
    return sets, played, result.optimal, built - started + result.build_seconds, result.seconds


def _shortcut(
    position: Position, objective: Objective, backend: str, time_limit: float | None
) -> _Found | None:
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
        return [list(s) for s in position.table], [], True, 0.0, 0.0
    if not rules.continue_after_meld:
        return None
    relaxed = dataclasses.replace(position, opened=True)
    sets, played, optimal, build_seconds, solve_seconds = _search(
        relaxed, objective, backend, time_limit, "auto"
    )
    if optimal and played and not validate(position, sets):
        return sets, played, True, build_seconds, solve_seconds
    return None


def _free_first(
    position: Position, objective: Objective, backend: str, time_limit: float | None
) -> tuple[_Found | None, _Found | None]:
    """Exact answers under strict and locked joker rules from smaller models, and a fallback.

    These rules only forbid moves, so the free optimum bounds theirs: a legal answer that scores
    as much as the free optimum (tiles, points and kept sets alike) is their optimum. Tried in
    turn: the free optimum itself; the free optimum with the sets holding table jokers left
    untouched (always legal, and the fallback move under a time limit); and, without a time
    limit, the joker model without retrievals. Returns (exact answer or None, fallback or None).
    """
    free = dataclasses.replace(position, rules=position.rules.replace(joker_rules=JokerRules.FREE))
    sets, played, optimal, build_seconds, solve_seconds = _search(free, objective, backend, time_limit, "auto")
    if not optimal:
        return None, None
    if not played or not validate(position, sets):
        return (sets, played, True, build_seconds, solve_seconds), None
    best = _rank(position, objective, (sets, played, True, 0.0, 0.0))
    still = [s for s in position.table if any(t.is_joker for t in s)]
    rest = dataclasses.replace(free, table=tuple(s for s in position.table if s not in still))
    untouched = _search(rest, objective, backend, time_limit, "auto")
    fallback = None
    if untouched[1]:
        fallback = ([*untouched[0], *[list(s) for s in still]], untouched[1], True, *untouched[3:])
        if untouched[2] and _rank(position, objective, fallback) == best and not validate(position, fallback[0]):
            return fallback, None
    if time_limit is not None:
        return None, fallback  # under a time limit, go straight to the whole model
    stay = _search(position, objective, backend, time_limit, "sets", jokers_stay=True)
    if stay[2] and stay[1] and _rank(position, objective, stay) == best and not validate(position, stay[0]):
        return stay, None
    return None, fallback


def _rank(position: Position, objective: Objective, found: _Found) -> tuple[int, int, int]:
    """What the objective ranks, most important first: tiles or points, the other, sets kept."""
    sets, played = found[0], found[1]
    tiles, value = len(played), points(played, position.rules)
    kept = len(unchanged(position.table, sets)) if played else len(position.table)
    return (tiles, value, kept) if objective is Objective.TILES else (value, tiles, kept)


