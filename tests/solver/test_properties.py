"""Properties over random positions: legal, conserving, backend-independent, never below greedy."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings

from solver.melds import best_reading
from solver.model.flow import flow_supported
from solver.position import Position
from solver.solution import Solution
from solver.solve import SolveOptions, solve
from solver.tiles import Tile
from solver.validator import validate
from tests.strategies import positions

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(position: Position, solution: Solution) -> None:
    """What every answer must satisfy, whatever the backend."""
    table = [list(s.tiles) for s in solution.table]
    assert validate(position, table) == []
    assert Counter(t for s in table for t in s) == position.table_tiles + Counter(solution.played)
    assert not Counter(solution.played) - Counter(position.rack)
    if solution.tiles_played == 0:
        assert solution.status == "no_move"
        assert sorted(map(sorted, table)) == sorted(map(sorted, position.table))
        assert solution.kept_sets == len(position.table)
    for placed in solution.table:  # natural order: what best_reading shows
        reading = best_reading(placed.tiles, position.rules)
        assert reading is not None and reading.tiles == placed.tiles


def greedy_rack_sets(position: Position) -> int:
    """Tiles a beginner plays by laying sets of rack tiles only (longest first, while they fit)."""
    from solver.model.candidates import candidate_sets

    rules = position.rules
    left = Counter(position.rack)
    cands = candidate_sets(rules)
    played = 0
    value = 0
    for c in sorted(range(len(cands)), key=lambda c: (-len(cands.keys[c]), cands.keys[c])):
        if not position.opened and not rules.joker_in_meld and cands.jokers[c]:
            continue
        need = Counter(Tile.from_index(t, rules) for t in cands.keys[c])
        while not need - left:
            left -= need
            played += sum(need.values())
            value += cands.values[c]
    if not position.opened and value < rules.meld_threshold:
        return 0
    return played


@SETTINGS
@given(positions())
def test_backends_agree_and_answers_are_legal(position: Position) -> None:
    answers = [
        solve(position, SolveOptions(backend="cbc", formulation="sets")),
        solve(position, SolveOptions(backend="cpsat", formulation="sets")),
        solve(position, SolveOptions(backend="highs", formulation="auto")),  # flow where the rules allow it
        solve(position, SolveOptions(backend="bnb", formulation="auto")),
    ]
    if flow_supported(position.rules):
        answers.append(solve(position, SolveOptions(backend="cpsat", formulation="flow")))
    for answer in answers:
        check_invariants(position, answer)
    # The objective is lexicographic (tiles, points, kept sets): every engine must agree on all three.
    assert len({(a.tiles_played, a.points_played, a.kept_sets) for a in answers}) == 1
    assert answers[0].tiles_played >= greedy_rack_sets(position)


@SETTINGS
@given(positions(max_sets=8, max_rack=14))
def test_points_objective(position: Position) -> None:
    by_points = {b: solve(position, SolveOptions(objective="points", backend=b)) for b in ("cbc", "cpsat", "highs", "bnb")}
    by_tiles = solve(position, SolveOptions(backend="cbc"))
    for solution in by_points.values():
        check_invariants(position, solution)
    assert len({(s.points_played, s.tiles_played, s.kept_sets) for s in by_points.values()}) == 1
    # Each objective is best at what it optimises.
    assert by_points["cbc"].points_played >= by_tiles.points_played
    assert by_tiles.tiles_played >= by_points["cbc"].tiles_played
