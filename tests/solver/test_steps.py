"""Steps a person can follow: every kind of step, and replaying them gives exactly the new table."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from cli.main import cli
from solver.errors import RummikubError
from solver.least_moves import least_moves
from solver.position import Position
from solver.rules import JokerRules, RuleSet, Wrap
from solver.solution import SetChange
from solver.solve import SolveOptions, solve
from solver.steps import (
    ACTIONS,
    NEW,
    Plan,
    Step,
    StepsGoWrong,
    best_steps,
    plan_steps,
    replay,
    tables_after_steps,
)
from solver.tiles import JOKER, Tile, format_tiles
from tests.strategies import positions


def steps_for(position: Position) -> tuple[list[list[Tile]], Plan]:
    """The least-moves answer and its steps, checked by replaying them on the old table (under
    locked jokers no set split or losing a tile while it holds its joker), and the tables shown
    step by step: one per step, the last one the new table."""
    answer, plan = best_steps(solve(position))
    after = [list(s.tiles) for s in answer.table]
    replayed = replay(position.table, plan, answer.played, position.rules, locks=True)
    assert same_table(replayed, after)
    shown = tables_after_steps(position.table, plan, answer.played, position.rules)
    assert len(shown) == len(plan.steps)
    if shown:
        assert same_table([Counter(s) for s in shown[-1].sets], after)
        assert not shown[-1].aside
    for at in shown:
        assert all(at.sets) and all(0 <= k < len(at.sets) for k in at.changed)
    return after, plan


def same_table(replayed: list[Counter[Tile]], after: list[list[Tile]]) -> bool:
    return sorted(sorted(c.elements()) for c in replayed) == sorted(sorted(s) for s in after)


@pytest.mark.parametrize(
    ("rack", "table", "expected", "moved"),
    [
        (  # retrieve a joker from a run by its exact tile
            "R5 B7 O7",
            ["R4 J R6", "K1 K2 K3"],
            [
                "Put R5 from your rack in place of the J in R4 J R6; keep the J for the new set B7 O7 J",
                "Lay B7 O7 J (B7 O7 from your rack, J put aside above)",
            ],
            1,
        ),
        (  # retrieve a joker from a group with a missing colour
            "O7 K12 K13",
            ["K7 B7 J"],
            [
                "Put O7 from your rack in place of the J in K7 B7 J; keep the J for the new set J K12 K13",
                "Lay J K12 K13 (K12 K13 from your rack, J put aside above)",
            ],
            1,
        ),
        (  # swap a group tile for another colour
            "O7 R6",
            ["K7 B7 R7", "R8 R9 R10"],
            [
                "Swap O7 from your rack for R7 in K7 B7 R7; put the R7 in R8 R9 R10",
                "Add R6 from your rack to R7 R8 R9 R10",
            ],
            1,
        ),
        (  # split a run, and where
            "B8",
            ["B6 B7 B8 B9 B10"],
            [
                "Split B6 B7 B8 B9 B10 between B7 and B8 into B6 B7 and B8 B9 B10",
                "Add B8 from your rack to B6 B7",
            ],
            0,
        ),
        (  # shift a run: take a tile off one end, add one at the other
            "B4 K8 R8",
            ["B5 B6 B7 B8"],
            [
                "Take B8 off the end of B5 B6 B7 B8 and keep it for the new set K8 B8 R8",
                "Add B4 from your rack to B5 B6 B7",
                "Lay K8 B8 R8 (K8 R8 from your rack, B8 put aside above)",
            ],
            1,
        ),
        (  # take a tile out of a group of four
            "K5 K6",
            ["K7 B7 R7 O7"],
            [
                "Take K7 out of K7 B7 R7 O7 and keep it for the new set K5 K6 K7",
                "Lay K5 K6 K7 (K5 K6 from your rack, K7 put aside above)",
            ],
            1,
        ),
        (  # a split that frees a middle tile
            "K4 B4",
            ["R1 R2 R3 R4 R5 R6 R7"],
            [
                "Split R1 R2 R3 R4 R5 R6 R7 between R4 and R5 into R1 R2 R3 R4 and R5 R6 R7",
                "Take R4 off the end of R1 R2 R3 R4 and keep it for the new set K4 B4 R4",
                "Lay K4 B4 R4 (K4 B4 from your rack, R4 put aside above)",
            ],
            1,
        ),
        (  # nothing on the table moves
            "K10 K11 K12",
            ["R1 R2 R3", "B5 R5 O5"],
            ["Lay K10 K11 K12"],
            0,
        ),
    ],
)
def test_each_kind_of_step(rack: str, table: list[str], expected: list[str], moved: int) -> None:
    _, plan = steps_for(Position.from_strings(rack, table))
    assert [str(s) for s in plan.steps] == expected
    assert plan.tiles_moved == moved


def test_a_set_broken_up_moves_every_tile() -> None:
    _, plan = steps_for(Position.from_strings("O8", ["K7 K8 K9", "B7 B8 B9", "R7 R8 R9"]))
    assert plan.tiles_moved == 9
    assert [s.action for s in plan.steps] == ["take"] * 9 + ["lay"] * 3
    assert str(plan.steps[2]) == "Take the last of that set, K9, and keep it for the new set K9 B9 R9"


def test_a_tile_from_the_middle_moves() -> None:
    # Steps for a given new table: R5 leaves the middle of its run, the joker takes its place.
    position = Position.from_strings("K3 B5 O5", ["R4 R5 R6", "K1 K2 J"])
    after = [Position.from_strings(s).rack for s in ("R4 J R6", "K1 K2 K3", "B5 R5 O5")]
    plan = plan_steps(position.table, after, Position.from_strings("K3 B5 O5").rack, position.rules)
    assert [str(s) for s in plan.steps] == [
        "Put K3 from your rack in place of the J in K1 K2 J; put the J in R4 R5 R6",
        "Move R5 from R4 R5 R6 J and keep it for the new set B5 R5 O5",
        "Lay B5 R5 O5 (B5 O5 from your rack, R5 put aside above)",
    ]
    assert same_table(replay(position.table, plan, position.rack, position.rules), [list(s) for s in after])
    assert plan.tiles_moved == 2


def test_steps_follow_the_least_moves_table() -> None:
    # The flow model's own table moves R8 and a joker; the least-moves table moves only the joker.
    position = Position.from_strings("K8 R1 R5 R6", ["B8 R8 O8", "O4 O5 J J", "R1 R2 R3 R4 R5"])
    answer = solve(position, SolveOptions(formulation="flow"))
    own = plan_steps(position.table, [s.tiles for s in answer.table], answer.played, position.rules)
    after, plan = steps_for(position)
    assert own.tiles_moved == 2 and plan.tiles_moved == 1
    assert ["K8", "B8", "R8", "O8"] in [[str(t) for t in s] for s in after]


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_sets=12, max_rack=16))
def test_steps_replay_to_the_new_table(position: Position) -> None:
    answer = solve(position)
    after, plan = steps_for(position)  # replays them
    assert {s.action for s in plan.steps} <= set(ACTIONS)
    # The steps move as many tiles as the least-moves table says, never more than the answer's
    # (an opening that goes on lays its meld first: a meld its sets do not hold may move more).
    own = plan_steps(position.table, [s.tiles for s in answer.table], answer.played, position.rules)
    found = least_moves(position, [s.tiles for s in answer.table], answer.played)
    if position.opened or not position.rules.continue_after_meld or not answer.played:
        assert plan.tiles_moved == found.tiles_moved <= own.tiles_moved
    assert sorted(map(sorted, after)) == sorted(map(sorted, found.sets))
    old = Counter(tuple(sorted(s)) for s in position.table)
    if not (old - Counter(tuple(sorted(s)) for s in after)):  # every table set still there
        assert plan.tiles_moved == 0


def test_cli_steps_json() -> None:
    result = CliRunner().invoke(cli, ["solve", "puzzles/group-swap.txt", "--steps", "--json"])
    data = json.loads(result.stdout)
    assert data["tiles_moved"] == 1
    assert data["steps"][0] == {
        "action": "swap",
        "tiles": ["O7", "R7"],
        "from": "K7 B7 R7",
        "to": "R8 R9 R10",
    }
    assert data["table"] == [["R6", "R7", "R8", "R9", "R10"], ["K7", "B7", "O7"]]
    text = CliRunner().invoke(cli, ["solve", "puzzles/group-swap.txt", "--steps"]).stdout
    assert "Steps (1 table tile moved to another set):\n  1. Swap O7 from your rack for R7 in K7 B7 R7" in text


def test_tables_after_steps_show_each_step_in_place() -> None:
    # Swap O7 for R7 in the group (R7 goes to the run), then add R6 to the run.
    position = Position.from_strings("O7 R6", ["K7 B7 R7", "R8 R9 R10"])
    answer, plan = best_steps(solve(position))
    shown = [at.to_dict() for at in tables_after_steps(position.table, plan, answer.played, position.rules)]
    assert shown == [
        {"table": [["K7", "B7", "O7"], ["R7", "R8", "R9", "R10"]], "changed": [0, 1], "aside": []},
        {"table": [["K7", "B7", "O7"], ["R6", "R7", "R8", "R9", "R10"]], "changed": [1], "aside": []},
    ]


def test_tables_after_steps_keep_split_parts_in_place_and_show_tiles_put_aside() -> None:
    # The joker is put aside for the new set, then laid with B7 O7.
    position = Position.from_strings("R5 B7 O7", ["R4 J R6", "K1 K2 K3"])
    answer, plan = best_steps(solve(position))
    shown = [at.to_dict() for at in tables_after_steps(position.table, plan, answer.played, position.rules)]
    assert shown[0] == {
        "table": [["R4", "R5", "R6"], ["K1", "K2", "K3"]],
        "changed": [0],
        "aside": [{"for": "B7 O7 J", "tiles": ["J"]}],
    }
    assert shown[1]["table"][2] == ["B7", "O7", "J"] and shown[1]["changed"] == [2] and not shown[1]["aside"]
    # A split puts its parts where the run was, ahead of the sets after it.
    position = Position.from_strings("B8", ["B6 B7 B8 B9 B10", "K1 K2 K3 K4"])
    answer, plan = best_steps(solve(position))
    first = tables_after_steps(position.table, plan, answer.played, position.rules)[0].to_dict()
    assert plan.steps[0].action == "split"
    assert first["table"][2] == ["K1", "K2", "K3", "K4"] and first["changed"] == [0, 1]


@pytest.mark.parametrize(
    ("rack", "table"),
    [("R10 R11 R12 K4", ["K1 K2 K3"]), ("R10 R11 R12 R5 B7 O7", ["R4 J R6", "K1 K2 K3"])],
)
def test_an_opening_that_goes_on_lays_its_meld_before_any_table_tile_moves(rack: str, table: list[str]) -> None:
    """Continue-after-meld: the table may change only once the meld is down (the steps added K4
    to K1 K2 K3, or retrieved a joker, before laying R10 R11 R12)."""
    from solver.initial_meld import best_meld_value
    from solver.rules import RuleSet

    rules = RuleSet(continue_after_meld=True)
    position = Position.from_strings(rack, table, opened=False, rules=rules)
    answer = solve(position)
    _, plan = best_steps(answer)
    first = []
    for step in plan.steps:
        if step.action != "lay" or step.source != "rack" or step.detail:
            break
        first.append(Counter(step.tiles))
    assert first and best_meld_value(sum(first, Counter()), rules, rules.meld_threshold) >= rules.meld_threshold
    reached = replay(position.table, plan, answer.played, rules)  # the steps still reach the answer
    assert sorted(sorted(s.elements()) for s in reached) == sorted(sorted(s.tiles) for s in answer.table)


def test_a_meld_tile_moved_on_is_no_table_tile_moved() -> None:
    """An opening that goes on lays B9 B10 B11 first, then moves its B11 to B11 R11 O11: the
    player's own tile, so the steps move 3 table tiles (R11, the joker, B8), as their replay
    counts (the plan said 4 and replay stopped)."""
    rules = RuleSet(jokers=1, meld_threshold=0, continue_after_meld=True, wrap=Wrap.FULL)
    def written(text: str) -> list[Tile]:
        return [Tile.parse(t) for t in text.split()]

    before = [written(s) for s in ("R1 R11 R13 J", "B5 B6 B7 B8", "K1 K2 K3")]
    new_sets = ("K1 K2 K3 K4", "K10 J K12", "B5 B6 B7", "B8 B9 B10", "R13 R1 R2", "B11 R11 O11")
    after = [written(s) for s in new_sets]
    played = written("K4 K10 K12 B9 B10 B11 R2 O11")
    plan = plan_steps(before, after, played, rules, opening=True)
    assert plan.steps[0] == Step("lay", tuple(written("B9 B10 B11")), "rack", "B9 B10 B11")
    assert same_table(replay(before, plan, played, rules), after)
    assert plan.tiles_moved == 3


def test_a_strict_joker_is_retrieved_as_its_set_is_written() -> None:
    """Under american wrap ``R12 R13 J`` reads R12 R13 R1 as written (the joker R1), not R11 R12
    R13: R1 retrieves it, a step of its own, rather than the joker being taken off the end."""
    rules = RuleSet(wrap=Wrap.AMERICAN, joker_rules=JokerRules.STRICT)
    _, plan = steps_for(Position.from_strings("R1 O8 O9", ["R12 R13 J", "B5 B6 B7"], rules=rules))
    assert [s.action for s in plan.steps] == ["retrieve", "lay"]
    assert plan.steps[0].tiles == (Tile.parse("R1"), Tile.parse("J"))


def test_a_set_the_answer_keeps_whole_is_not_split_for_a_copy_of_its_tiles() -> None:
    """The rack's K4 K6 K7 are copies of the kept run's own: the run stays whole and the rack
    tiles make the new set, rather than the run giving up its K4 K6 K7 and taking the rack's."""
    _, plan = steps_for(Position.from_strings("K4 K6 K7 B7", ["K3 K4 K5 K6 K7", "B6 J B8", "B7 B8 B9 B10 B11"]))
    assert [s.action for s in plan.steps] == ["retrieve", "lay"]
    assert plan.tiles_moved == 1


def test_a_split_is_a_cut_between_neighbours_where_one_will_do() -> None:
    _, plan = steps_for(Position.from_strings("O5 O6", ["O4 O5 J O7 O8"]))
    assert [str(s) for s in plan.steps] == [
        "Split O4 O5 J O7 O8 between J and O7 into O4 O5 J and O7 O8",
        "Add O5 O6 from your rack to O7 O8",
    ]


def test_a_set_the_answer_leaves_unchanged_is_its_own_base() -> None:
    """K10 B10 R10 stays as it was and K10 (from K8 K9 K10) joins B10 R10 O10 from the rack: no
    step adds O10 to the unchanged group and lays it again from other tiles."""
    table = [
        "K13 B13 R13", "K6 B6 R6", "K8 K9 K10", "K4 B4 R4", "K1 B1 R1", "K5 B5 R5", "K2 B2 R2 O2",
        "K10 B10 R10", "B9 R9 O9", "B2 B3 B4", "K13 R13 O13", "O2 O3 O4", "K11 B11 O11", "K6 B6 R6",
        "K7 B7 R7 O7", "K3 B3 O3", "B12 O12 J",
    ]
    position = Position.from_strings("K1 K12 B8 B10 R2 R5 R7 R10 R12 R12 O8 O10", table)
    _, plan = steps_for(position)  # replays to the answer
    answer, _ = best_steps(solve(position))
    assert "K10 B10 R10" in [format_tiles(s.tiles) for s in answer.table if s.change is SetChange.UNCHANGED]
    assert all(s.target != "K10 B10 R10" and s.source != "K10 B10 R10" for s in plan.steps)


@pytest.mark.parametrize("mode", [JokerRules.STRICT, JokerRules.LOCKED])
def test_a_strict_joker_that_stands_for_another_tile_was_retrieved(mode: JokerRules) -> None:
    """The joker of R1 … R7 J stands for R8; in R1 J R3 it stands for R2, so R8 retrieved it: a
    retrieve step, not a split that carries the joker off (which locked jokers forbid)."""
    rules = RuleSet(joker_rules=mode)
    _, plan = steps_for(Position.from_strings("R3 R8 R1", ["R1 R2 R3 R4 R5 R6 R7 J", "K13 B13 O13"], rules=rules))
    assert [s.action for s in plan.steps] == ["retrieve", "lay"]
    assert plan.steps[0].tiles == (Tile.parse("R8"), Tile.parse("J"))


def test_a_strict_run_is_cut_where_it_is_written() -> None:
    """J B9 B10 B11 B12 reads with its joker (B8) first: keeping J B9 and B10 B11 B12 is a cut
    between B9 and B10, not a split 'apart'."""
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    _, plan = steps_for(Position.from_strings("B13 B10", ["J B9 B10 B11 B12", "K13 R13 O13"], rules=rules))
    assert plan.steps[0].action == "split" and plan.steps[0].detail == "between B9 and B10"


def test_a_split_part_with_a_strict_joker_is_named_as_it_stands() -> None:
    """B3 B4 B5 B6 J B8 B9 cut before the joker (B7): the part it stays in is J B8 B9, as the table
    shows it; B8 B9 J would read the joker as B10. (A locked set is never split.)"""
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    _, plan = steps_for(Position.from_strings("K6 R6", ["B3 B4 B5 B6 J B8 B9"], rules=rules))
    assert plan.steps[0].describe() == (
        "Split B3 B4 B5 B6 J B8 B9 between B6 and J into B3 B4 B5 B6 and J B8 B9"
    )


def test_a_joker_retrieved_back_into_its_changed_set_is_sent_to_it_by_its_new_name() -> None:
    """O10 retrieves the joker of the part O9 J, and the joker (now O11) goes back into that part,
    which is O9 O10 by then: the step names it so, and the next step finds it."""
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    table = ["R6 R7 R8 R9 R10", "O9 J O11 O12 O13", "O5 O6 O7 O8 O9 O10 O11"]
    _, plan = steps_for(Position.from_strings("K11 O10 O12", table, rules=rules))
    assert [s.describe() for s in plan.steps[1:]] == [
        "Put O10 from your rack in place of the J in O9 J; put the J in O9 O10",
        "Add O12 from your rack to O9 O10 J",
    ]


def _joker_table(rnd: random.Random, rules: RuleSet) -> Position | None:
    """Up to four runs and groups, a joker written into some of them at random, and a rack."""
    table: list[list[Tile]] = []
    used: Counter[Tile] = Counter()
    for _ in range(rnd.randint(1, 4)):
        if rnd.random() < 0.6:
            colour, start = rnd.choice("KBRO"), rnd.randint(1, 9)
            tiles = [Tile.parse(f"{colour}{n}") for n in range(start, min(13, start + rnd.randint(2, 6)) + 1)]
        else:
            number = rnd.randint(1, 13)
            tiles = [Tile.parse(f"{c}{number}") for c in rnd.sample("KBRO", rnd.choice([3, 4]))]
        if rnd.random() < 0.6:
            tiles[rnd.randrange(len(tiles))] = Tile.parse("J")
        if all(n <= 2 for n in (used + Counter(tiles)).values()):
            table.append(tiles)
            used.update(tiles)
    rack = []
    for _ in range(rnd.randint(1, 6)):
        t = Tile.parse(f"{rnd.choice('KBRO')}{rnd.randint(1, 13)}")
        if used[t] < 2:
            rack.append(t)
            used[t] += 1
    try:
        return Position(tuple(rack), tuple(map(tuple, table)), True, rules)
    except RummikubError:  # a set not valid as written (a joker where no tile fits)
        return None


@pytest.mark.parametrize("mode", [JokerRules.STRICT, JokerRules.LOCKED])
def test_steps_under_strict_jokers_replay_to_the_new_table(mode: JokerRules) -> None:
    """Random tables with jokers written anywhere in their sets: the steps replay to the answer
    (a longer hunt of this kind, 50,000 positions, found the named cases above)."""
    rnd, rules, checked = random.Random(15), RuleSet(joker_rules=mode), 0
    while checked < 300:
        position = _joker_table(rnd, rules)
        if position is None:
            continue
        answer, plan = best_steps(solve(position))
        checked += 1
        after = [list(s.tiles) for s in answer.table]
        assert same_table(replay(position.table, plan, answer.played, rules), after), position


def test_a_joker_freed_by_a_table_tile_that_goes_back_is_retrieved_first() -> None:
    """B4 B5 J (the B6) and B6 J B8 B9 under strict jokers; the answer B2 J B4 B5 and
    B4 B5 B6 J B8 B9 frees the first joker with the B6 of the second set, which ends where it
    was. The steps say so: the B6 takes the joker's place, the joker goes to the new set (with
    the rack's B4 B5, not back with its own), and B4 B5 B6 join J B8 B9. They were plain steps
    that moved the joker's set apart, the joker with it, never retrieved."""
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    position = Position.from_strings("B2 B4 B5 K11", ["B4 B5 J", "B6 J B8 B9", "K3 K4 K5 K6"], rules=rules)
    _, plan = steps_for(position)
    assert [s.describe() for s in plan.steps] == [
        "Put B6 from B6 J B8 B9 in place of the J in B4 B5 J; keep the J for the new set B2 J B4 B5",
        "Take the last of that set, B4 B5 B6, and put them in J B8 B9",
        "Lay B2 J B4 B5 (B2 B4 B5 from your rack, J put aside above)",
    ]
    assert plan.tiles_moved == 3 and plan.sets_broken == 1
    assert plan.steps[0].to_dict()["tile_from"] == "B6 J B8 B9"


@pytest.mark.parametrize(
    ("rack", "table", "split"),
    [
        ("K11 K11 B3 B5 R10", ["O6 O7 O8 O9 O10 O11 O12", "K6 K7 K8 K9 K10 J K12", "R10 K10 B10 O10"], "K6 K7 K8 K9 K10 K11 K12"),
        ("B11 B12 R5 R7 O5 O8", ["R1 R2 R3 R4 R5 R6 J", "R9 R10 R11 R12 R13", "J R9 B9 K9"], "R1 R2 R3 R4 R5 R6 R7"),
    ],
)
def test_a_locked_set_is_split_only_once_its_joker_is_retrieved(rack: str, table: list[str], split: str) -> None:
    """Locked jokers: a set holding a joker may not be split until the joker is retrieved. The
    steps split K6 … J K12 first and put K11 in the joker's place in a part after: a legal
    table, but an order the rules forbid."""
    _, plan = steps_for(Position.from_strings(rack, table, rules=RuleSet(joker_rules=JokerRules.LOCKED)))
    assert [s.action for s in plan.steps[:2]] == ["retrieve", "split"]
    assert plan.steps[1].source == split


@pytest.mark.parametrize(
    ("rack", "table"),
    [
        ("K11 K11 B3 B5 R10", ["O6 O7 O8 O9 O10 O11 O12", "K6 K7 K8 K9 K10 J K12", "R10 K10 B10 O10"]),
        ("R2 R6 O8 O10 O11 O13", ["K6 K7 K8 J", "B9 B10 J", "O3 O4 O5", "K7 K8 K9 K10 K11"]),
    ],
)
def test_a_turn_s_steps_retrieve_jokers_first_as_the_solver_s_do(rack: str, table: list[str]) -> None:
    """The steps of a turn played (an AI's in `play` and on the web) come from the tables alone:
    they too find which tile retrieved which joker, and retrieve it first. They split the locked
    set before its joker came out, or took a locked joker off its set, never retrieved."""
    position = Position.from_strings(rack, table, rules=RuleSet(joker_rules=JokerRules.LOCKED))
    answer = solve(position)
    after = [list(s.tiles) for s in answer.table]
    plan = plan_steps(position.table, after, answer.played, position.rules)
    assert plan.steps[0].action == "retrieve"
    assert same_table(replay(position.table, plan, answer.played, position.rules), after)


def test_a_joker_retrieved_by_a_table_tile_is_put_in_its_place_first() -> None:
    """Locked jokers: K9 of K7 … K11 retrieves the joker of K6 K7 K8 J and goes back to its run.
    The steps took the joker off the locked set, never retrieved (and under strict jokers a joker
    moved alone, no tile in its place): the K9 takes its place, then goes back."""
    from solver.game.step_commands import commands_for

    rules = RuleSet(joker_rules=JokerRules.LOCKED)
    position = Position.from_strings("R2 R6 O8 O10 O11 O13", ["K6 K7 K8 J", "B9 B10 J", "O3 O4 O5", "K7 K8 K9 K10 K11"], rules=rules)
    answer, plan = best_steps(solve(position))
    assert [s.describe() for s in plan.steps] == [
        "Put K9 from K7 K8 K9 K10 K11 in place of the J in K6 K7 K8 J; keep the J for the new set O10 O11 J O13",
        "Take K9 off the end of K6 K7 K8 K9 and put it in K7 K8 K10 K11",
        "Lay O10 O11 J O13 (O10 O11 O13 from your rack, J put aside above)",
    ]
    assert plan.tiles_moved == 1  # the K9 ends in its own set: only the joker moved
    assert same_table(replay(position.table, plan, answer.played, rules), [list(s.tiles) for s in answer.table])
    assert commands_for(position, plan, [s.tiles for s in answer.table]) is not None


def test_a_joker_going_to_a_set_built_on_its_own_is_retrieved_first() -> None:
    """Strict jokers: K4 retrieves the joker of K1 K2 K3 J K5, which goes to K4 K5 J K7 (its K5
    a copy, from K5 R5 O5): the planner gave plain steps, the set moved apart with its joker."""
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    _, plan = steps_for(Position.from_strings("K4 K7 B1 B8", ["B5 B6 J B8 B9", "K1 K2 K3 J K5", "R5 O5 K5"], rules=rules))
    assert plan.steps[0].describe() == (
        "Put K4 from your rack in place of the J in K1 K2 K3 J K5; keep the J for the new set K4 K5 J K7"
    )
    assert "move" not in [s.action for s in plan.steps]


def test_a_new_set_with_a_strict_joker_is_laid_as_the_table_writes_it() -> None:
    """R6 retrieves the joker of R5 J R7; it goes to J K2 K3 (the K1), as the table after the move
    writes it: the steps lay J K2 K3 too, not K2 K3 J (where the joker would be K4)."""
    position = Position.from_strings("R6 K2 K3", ["R5 J R7"], rules=RuleSet(joker_rules=JokerRules.STRICT))
    answer, plan = best_steps(solve(position))
    written = next(format_tiles(s.tiles) for s in answer.table if JOKER in s.tiles)
    assert plan.steps[-1].describe() == f"Lay {written} (K2 K3 from your rack, J put aside above)"
    assert plan.steps[0].target == f"the new set {written}"
    after = [list(s.tiles) for s in answer.table]
    assert same_table(replay(position.table, plan, answer.played, position.rules), after)


def test_the_tables_shown_step_by_step_keep_a_strict_jokers_place() -> None:
    """Under strict jokers the order says what a joker is: the part J B8 B9 (the B7) and the
    extended J B8 B9 B10 B11 are shown as written, not as B8 B9 J (a B10)."""
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    for rack, table, shown in [
        ("K6 R6", ["B3 B4 B5 B6 J B8 B9"], "J B8 B9"),
        ("B11", ["R1 R2 R3 R4 J", "J B8 B9 B10"], "J B8 B9 B10 B11"),
    ]:
        position = Position.from_strings(rack, table, rules=rules)
        answer, plan = best_steps(solve(position))
        written = [s.tiles for s in answer.table]
        tables = tables_after_steps(position.table, plan, answer.played, rules, written)
        assert shown in [format_tiles(s) for s in tables[0].sets]
        assert sorted(map(format_tiles, tables[-1].sets)) == sorted(map(format_tiles, written))


def test_a_trimmed_set_keeps_its_strict_joker_where_it_stands() -> None:
    """J R5 R6 R7 R8 R9 (the joker the R4) gives R8 and R9 to groups: in between it is
    J R5 R6 R7 R9 (not R5 R6 R7 J R9, where the joker would be R8), and the steps can be typed."""
    from solver.game.step_commands import commands_for

    rules = RuleSet(joker_rules=JokerRules.STRICT)
    position = Position.from_strings("B9 O9 B8 O8", ["J R5 R6 R7 R8 R9"], rules=rules)
    answer, plan = best_steps(solve(position))
    assert plan.steps[1].describe() == "Take R9 off the end of J R5 R6 R7 R9 and keep it for the new set B9 R9 O9"
    assert commands_for(position, plan, [s.tiles for s in answer.table]) is not None


@pytest.mark.parametrize(
    ("step", "problem"),
    [
        (Step("take", (Tile.parse("R3"),), "R1 R2 R3 R4 R5", "new set"), "not at an end"),
        (Step("add", (Tile.parse("K9"),), "rack", "R1 R2 R3 R4 R5"), "the rack does not hold"),
        (Step("take", (Tile.parse("R5"),), "R2 R3 R4 R5", "R1 R2 R3 R4 R5"), "no set 'R2 R3 R4 R5'"),
    ],
)
def test_steps_that_cannot_be_carried_out_are_refused_by_name(step: Step, problem: str) -> None:
    # An exception of its own, not assert: plan() falls back on it, and python -O drops asserts.
    with pytest.raises(StepsGoWrong, match=problem):
        replay([[Tile.parse(t) for t in ["R1", "R2", "R3", "R4", "R5"]]], Plan((step,), 1), [], RuleSet())


def test_a_retrieved_joker_goes_where_the_story_says() -> None:
    """Official retrieval: the joker K5 frees must go to a set with two rack tiles (K12 B12 J), as
    the answer's story says; the steps put it in R1 R2 R3 and the rack's joker in K12 B12."""
    rules = RuleSet(joker_rules=JokerRules.STRICT, jokers=3)
    position = Position.from_strings("K5 R5 K12 B12 J", ["K4 J K6", "R1 R2 R3"], rules=rules)
    solution, plan = best_steps(solve(position))
    (story,) = solution.retrieved
    home = format_tiles(solution.table[story.new_set - 1].tiles)
    assert home == "K12 B12 J"
    first = plan.steps[0]
    assert first.action == "retrieve" and first.target == NEW + home


@pytest.mark.parametrize(("rack", "first"), [("R3 K7 O7", "Take J off the end of J R4 R5"), ("R3 O9", "Add R3 from your rack to J R4 R5")])
def test_a_table_set_is_named_as_it_lies(rack: str, first: str) -> None:
    """J R4 R5 (the joker R3) was named R4 R5 J, a set the table does not show."""
    _, plan = best_steps(solve(Position.from_strings(rack, ["J R4 R5"])))
    assert plan.steps[0].describe().startswith(first)


def _steps_text(rules: RuleSet, rack: str, table: list[str]) -> tuple[list[str], list[str]]:
    """The answer's table as shown (rack tiles in brackets) and its steps, as `solve --steps` says them."""
    position = Position.from_strings(rack, table, True, rules)
    solution, found = best_steps(solve(position))
    shown = [" ".join(f"[{t}]" if mine else str(t) for t, mine in zip(s.tiles, s.from_rack)) for s in solution.table]
    return shown, [str(step) for step in found.steps]


def test_a_wrapped_run_is_cut_as_it_lies() -> None:
    # R2 .. R13 R1 is also R1 .. R13: the cut between R6 and R7 leaves the R1 at the far end.
    american = RuleSet(wrap=Wrap.AMERICAN)
    shown, steps = _steps_text(american, "R1 R7", ["R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1"])
    assert shown == ["[R1] R2 R3 R4 R5 R6 [R7]", "R7 R8 R9 R10 R11 R12 R13 R1"]
    assert steps == [
        "Split R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1 between R6 and R7 into R2 R3 R4 R5 R6"
        " and R7 R8 R9 R10 R11 R12 R13 R1",
        "Add R1 R7 from your rack to R2 R3 R4 R5 R6",
    ]
    # A part that is no set yet is named as it lies (R13 R1, not R1 R13).
    _, steps = _steps_text(american, "R9 R11 R12", ["R10 R11 R12 R13 R1"])
    assert steps == [
        "Split R10 R11 R12 R13 R1 between R12 and R13 into R10 R11 R12 and R13 R1",
        "Add R9 from your rack to R10 R11 R12",
        "Add R11 R12 from your rack to R13 R1",
    ]


def _laid_as_marked(shown: list[str], steps: list[str]) -> None:
    """Each set laid with rack tiles shows those tiles in brackets in the table."""
    for text in steps:
        if text.startswith("Lay ") and "from your rack" in text:
            name, detail = text[4:].split(" (", 1)
            mine = detail.split(" from your rack")[0].split()
            target = next(s for s in shown if s.replace("[", "").replace("]", "") == name)
            assert sorted(t.strip("[]") for t in target.split() if t.startswith("[")) == sorted(mine), (text, shown)


def test_the_rack_tiles_marked_are_those_the_steps_bring() -> None:
    # The split keeps the table's R11 R12 in the first part: the rack's go to R13.
    shown, steps = _steps_text(RuleSet(), "R9 R11 R12", ["R10 R11 R12 R13"])
    assert shown == ["[R9] R10 R11 R12", "[R11] [R12] R13"]
    assert "Add R11 R12 from your rack to R13" in steps
    # big-2: two new sets need a K2, the table's and the rack's; each goes where it is marked.
    from solver.files import load_position
    from tests.paths import ROOT

    position = load_position(str(ROOT / "puzzles" / "big-2.txt"))
    solution, found = best_steps(solve(position))
    shown = [" ".join(f"[{t}]" if mine else str(t) for t, mine in zip(s.tiles, s.from_rack)) for s in solution.table]
    steps = [str(step) for step in found.steps]
    assert sum(1 for text in steps if text.startswith("Lay ") and "from your rack" in text) >= 3
    _laid_as_marked(shown, steps)


def test_every_rack_tile_is_marked_after_the_steps_rearrange_a_bundled_puzzle() -> None:
    # A tile put in by a retrieve or swap step lost its brackets (group-swap: K7 B7 O7).
    from puzzles.library import library

    for puzzle in library():
        if puzzle.position.rules.wrap is Wrap.FULL:
            continue
        solution, _ = best_steps(solve(puzzle.position))
        marked = Counter(t for s in solution.table for t, mine in zip(s.tiles, s.from_rack) if mine)
        assert marked == Counter(solution.played), puzzle.id


def test_locked_sets_lend_tiles_only_once_their_jokers_are_retrieved() -> None:
    """Locked jokers: K2 of B2 K2 J retrieves the joker of J R2 B2, and R2 from the rack that of
    B2 K2 J. The steps lent the K2 first, from a set still holding its joker; the R2 comes first,
    then the K2 of a set without one. Replay under locked jokers refuses the other order."""
    rules = RuleSet(joker_rules=JokerRules.LOCKED)
    position = Position.from_strings("O2 R2 B6 K7 O12 B3", ["J R2 B2", "B2 K2 J", "B10 B11 B12 B13"], rules=rules)
    _, plan = steps_for(position)
    assert [s.describe() for s in plan.steps[:2]] == [
        "Put R2 from your rack in place of the J in B2 K2 J; keep the J for the new set B3 J J B6",
        "Put K2 from K2 B2 R2 in place of the J in J R2 B2; keep the J for the new set B3 J J B6",
    ]
    answer, _ = best_steps(solve(position))
    lent_first = Step("retrieve", plan.steps[1].tiles, plan.steps[1].source, plan.steps[1].target, "B2 K2 J")
    then = dataclasses.replace(plan.steps[0], source="B2 J")  # the order the steps gave
    swapped = dataclasses.replace(plan, steps=(lent_first, then, *plan.steps[2:]))
    replay(position.table, swapped, answer.played, rules)  # the tiles add up
    with pytest.raises(StepsGoWrong, match="still holds its joker"):
        replay(position.table, swapped, answer.played, rules, locks=True)


@pytest.mark.parametrize(
    ("mode", "rack", "table", "split"),
    [
        (
            JokerRules.LOCKED,
            "K7 B5 B10 B9",
            ["J R7 B7", "K3 O3 J B3", "B7 B8 B9 B10 B11 B12", "O1 K1 B1 R1"],
            "Split J B7 B8 B9 B10 B11 B12 between B8 and B9 into J B7 B8 and B9 B10 B11 B12",
        ),
        (
            JokerRules.STRICT,
            "B7 O2 B7 O5",
            ["O4 O5 O6 O7", "J O7 R7", "R8 O8 B8 K8", "K3 K4 K5 K6 K7"],
            "Split J O4 O5 O6 O7 between O4 and O5 into J O4 and O5 O6 O7",
        ),
    ],
)
def test_a_retrieved_joker_lies_where_it_stays(mode: JokerRules, rack: str, table: list[str], split: str) -> None:
    """A retrieved joker put into a run is named at the end it stays at (J B7 … B12: the B6 of
    B5 J B7 B8), so the split after it cuts the run as it lies. It was named B7 … B12 J, and cut
    'between B8 and B9' into J B7 B8 and B9 … B12."""
    _, plan = steps_for(Position.from_strings(rack, table, rules=RuleSet(joker_rules=mode)))
    splits = [s for s in plan.steps if s.action == "split"]
    assert [s.describe() for s in splits] == [split]
    assert splits[0].source.split() == [t for part in splits[0].target.split(" | ") for t in part.split()]
