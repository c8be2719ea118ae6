"""The free optimum made legal by swapping jokers with the tiles they stand for (``solve``'s
first try under strict and locked jokers, before any joker model): a swap is taken only where the
result is legal and ranks as the free optimum (same tiles, same sets kept), so it is optimal."""

from __future__ import annotations

import importlib
from collections import Counter

import pytest

from solver.joker_swaps import swap
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.solve import Found, SolveOptions, solve
from solver.tiles import Tile, format_tiles, parse_token
from solver.validator import validate

solve_module = importlib.import_module("solver.solve")  # the module (``solver.solve`` is also the function)
STRICT = RuleSet(joker_rules=JokerRules.STRICT)


def tiles(text: str) -> list[Tile]:
    return [t for tok in text.split() for t in parse_token(tok)]


def free_answer(position: Position, sets: list[str]) -> Found:
    """A free model's answer as ``_free_first`` holds it: the table after the move, the tiles played."""
    after = [tiles(s) for s in sets]
    played = sorted((Counter(t for s in after for t in s) - position.table_tiles).elements())
    return Found(after, played, True, 0.0, 0.0)


def test_a_joker_swapped_with_the_tile_it_stands_for_makes_the_free_optimum_legal() -> None:
    # Free play lays K6 and K9 as K6 K7 J K9 | K8 K9 K10: the joker of K7 K8 K9 K10 J (its K11)
    # now stands for K8, away from its set's tiles. Swapped with the K8, it stands beside K9 K10
    # again, for K11: it stays.
    position = Position.from_strings("K6 K9", ["B4 J B6", "K7 K8 K9 K10 J"], rules=STRICT)
    free = free_answer(position, ["B4 J B6", "K6 K7 J K9", "K8 K9 K10"])
    assert validate(position, free.sets)
    swapped = solve_module._swapped(position, free)
    assert swapped is not None
    assert sorted(map(format_tiles, swapped.sets)) == ["B4 J B6", "J K9 K10", "K6 K7 K8 K9"]
    assert not validate(position, swapped.sets)
    assert swapped.checked and swapped.played == free.played


def test_two_swaps_where_one_does_not_do() -> None:
    # Both jokers of K5 J J stand for tiles of other sets in the free answer.
    position = Position.from_strings("K6 K7 O5 O5", ["K5 J J"], rules=STRICT)
    free = free_answer(position, ["J J O5", "K5 K6 K7"])
    assert validate(position, free.sets)
    swapped = solve_module._swapped(position, free)
    assert swapped is not None
    assert not validate(position, swapped.sets)


def test_a_set_left_as_it_was_is_not_swapped() -> None:
    # Swapping the joker of J O11 O10, a table set left as it was, with the O12 of the long run is
    # legal, but that set is then changed: the move keeps one set fewer than the free optimum,
    # which then no longer proves it optimal.
    position = Position.from_strings("O9 O13", ["J O12 O11 O10", "J O11 O10"], rules=STRICT)
    free = free_answer(position, ["J O11 O10", "J O9 O10 O11 O12 O13"])
    assert validate(position, free.sets)
    legal_but_fewer_kept = swap(free.sets, 0, 1, Tile.parse("O12"), STRICT)
    assert legal_but_fewer_kept is not None and not validate(position, legal_but_fewer_kept)
    assert solve_module._swapped(position, free) is None


def test_no_swap_is_taken_that_the_rules_refuse() -> None:
    # R5 retrieves the joker of R4 J R6, which goes back into its own run: no swap mends that.
    position = Position.from_strings("R5 R7", ["R4 J R6"], rules=STRICT)
    free = free_answer(position, ["R4 R5 R6 R7 J"])
    assert validate(position, free.sets)
    assert solve_module._swapped(position, free) is None


def test_solve_answers_a_swapped_free_optimum_without_a_joker_model(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[JokerRules] = []
    build = solve_module.build_model

    def recording(position: Position, *args: object, **kwargs: object) -> object:
        built.append(position.rules.joker_rules)
        return build(position, *args, **kwargs)

    swapped: list[Found | None] = []
    swap = solve_module._swapped

    def watched(position: Position, free: Found) -> Found | None:
        swapped.append(swap(position, free))
        return swapped[-1]

    monkeypatch.setattr(solve_module, "build_model", recording)
    monkeypatch.setattr(solve_module, "_swapped", watched)
    position = Position.from_strings("K6 K9", ["B4 J B6", "K7 K8 K9 K10 J"], rules=STRICT)
    answer = solve(position, SolveOptions())
    assert answer.status.value == "optimal" and len(answer.played) == 2
    if swapped and swapped[0] is not None:  # the free optimum needed a swap: no joker model built
        assert set(built) == {JokerRules.FREE}


def test_a_relaxed_answers_arrangements_are_swapped_too() -> None:
    # The joker model's answers are judged arrangement by arrangement: the legal ones first, then
    # an illegal one a swap makes legal (same tiles, the same sets kept: it scores no less).
    position = Position.from_strings("K6 K9", ["B4 J B6", "K7 K8 K9 K10 J"], rules=STRICT)
    illegal = free_answer(position, ["B4 J B6", "K6 K7 J K9", "K8 K9 K10"])
    judged = list(solve_module._legal_arrangements(position, iter([(illegal.sets, illegal.played)])))
    assert [sorted(map(format_tiles, sets)) for sets, _ in judged] == [["B4 J B6", "J K9 K10", "K6 K7 K8 K9"]]
    legal = [tiles("B4 J B6"), tiles("K6 K7 K8 K9"), tiles("J K9 K10")]
    both = solve_module._legal_arrangements(position, iter([(illegal.sets, illegal.played), (legal, illegal.played)]))
    assert next(both)[0] is legal  # a legal arrangement as it stands comes before any swap
