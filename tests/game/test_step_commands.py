"""A plan's steps typed as editor commands (a level-3 hint in play): the commands exist, carry
out the steps, and leave every joker standing where the answer writes it."""

from __future__ import annotations

import pytest

from solver.game.editor import TurnEditor
from solver.game.step_commands import commands_for
from solver.position import Position
from solver.rules import JokerRules, Retrieval, RuleSet
from solver.tiles import Tile, format_tiles


def tiles(text: str) -> tuple[Tile, ...]:
    return tuple(Tile.parse(t) for t in text.split())


def test_a_hints_steps_become_commands_when_a_set_passes_through_a_gap() -> None:
    """Strict jokers, K1 retrieving the joker of B1 R1 J from the table: a step names the run
    K2 J K5 (K3 gone, the joker still K4) as K2 K5 J, which no set of the editor is called, so
    `hint 3` in play gave no commands at all."""
    from solver.hint import hint

    table = ["K10 K11 K12", "K13 B13 O13", "K2 B2 R2", "B2 R2 O2", "B7 B8 B9 B10 B11 B12", "K6 K7 K8 K9",
             "K8 B8 O8", "R3 R4 R5", "B13 R13 O13", "R3 R4 R5 R6", "R7 R8 R9", "R9 R10 R11 R12", "O9 O10 O11",
             "K1 B1 R1", "B1 R1 J", "K10 B10 O10", "O2 O3 O4", "K11 B11 O11", "K12 B12 R12", "K5 B5 O5", "K1 K2 K3"]
    position = Position.from_strings("K6 B4 J", table, rules=RuleSet(joker_rules=JokerRules.STRICT))
    found = hint(position, 3)
    assert found.solution.tiles_played == 3
    assert commands_for(position, found.plan, [s.tiles for s in found.solution.table]) is not None


def test_a_hint_says_which_of_a_run_s_two_jokers_a_tile_retrieves() -> None:
    """K6 retrieves the K6 of J K3 K4 K5 J (the first J is the K2): a plain take of a J took the
    first, the K2's, and the commands failed (no commands at all); now the joker's place is said."""
    from solver.hint import hint

    position = Position.from_strings("B4 B4 B5", ["J K3 K4 K5 J", "K3 K4 K5 K6"], rules=RuleSet(joker_rules=JokerRules.STRICT))
    found = hint(position, 3)
    commands = commands_for(position, found.plan, [s.tiles for s in found.solution.table])
    assert commands is not None
    assert [(c.name, c.source, format_tiles(c.tiles), c.target, c.places) for c in commands] == [
        ("move", 1, "K6", 0, ()),
        ("take", 0, "J", None, (4,)),  # the J fifth in J K3 K4 K5 J K6
        ("move", 0, "K6", 1, ()),
        ("lay", None, "J B4 B5", None, ()),
    ]


@pytest.mark.parametrize(
    ("mode", "rack", "table"),
    [
        (JokerRules.LOCKED, "B1 R11 O7 O10", ["B12 O12 J", "O4 O5 O6 O7 O8 O9 J", "K13 B13 O13", "O8 O9 O10 O11 O12"]),
        (JokerRules.STRICT, "B4 K13 K7", ["K6 K7 K8 K9 K10 K11", "K8 K9 K10 K11 K12 J"]),
    ],
)
def test_a_joker_retrieved_back_into_its_set_is_typed_as_the_tile_added(mode: JokerRules, rack: str, table: list[str]) -> None:
    """"Put O10 in place of the J in O7 O8 O9 J; put the J in O7 O8 O9 O10": another copy of O8 O9
    makes that set the rules' "another set"; in the editor the joker just stays (its commands
    looked for a set O7 O8 O9 O10 that never stands apart, and a hint gave none)."""
    from solver.solve import solve
    from solver.steps import best_steps

    position = Position.from_strings(rack, table, rules=RuleSet(joker_rules=mode))
    solution, plan = best_steps(solve(position))
    assert any(step.action == "retrieve" for step in plan.steps)
    assert commands_for(position, plan, [s.tiles for s in solution.table]) is not None


@pytest.mark.parametrize(
    ("rack", "table", "step"),
    [
        ("K2 R8 O4 B11", ["K1 K2 K3 K4", "J B4 B5 B6 B7 B8", "B4 J B6", "K3 K4 K5"],
         "Take J off the end of J B4 B5 B6 B7 B8 and put it in B4 J B6"),
        ("K6 B12 R3 O6", ["R4 R5 R6 J R8", "R6 R7 R8 R9 R10 R11 R12"],
         "Move J from R4 R5 R6 J R8 and put it in R6 R7 R8 R9"),
    ],
)
def test_a_lone_joker_moved_in_front_of_a_run_is_typed_so(rack: str, table: list[str], step: str) -> None:
    """Strict jokers: a joker moves alone onto a set and stands in front of (what becomes) a set
    of the new table: J B4 J B6, its joker the B3; J R8 R9 once R6 R7 leave, its joker the R7.
    The editor puts a lone joker at the end (a B7, an R10), so `hint 3` in play gave no commands."""
    from solver.solve import solve
    from solver.steps import best_steps

    position = Position.from_strings(rack, table, rules=RuleSet(joker_rules=JokerRules.STRICT))
    solution, plan = best_steps(solve(position))
    assert step in map(str, plan.steps)
    assert commands_for(position, plan, [s.tiles for s in solution.table]) is not None


def test_a_split_whose_part_the_editor_shows_anew_becomes_moves() -> None:
    """Free jokers: K1 K2 K3 J K5 K6 K7 cut into K1 K2 K3, J K5 and K6 K7. Cut at the J first,
    the editor shows the rest J K5 K6 K7 as K5 K6 K7 J (J the K8), so a second cut at K6 gave
    K5 and K6 K7 J: the parts go out whole instead, and the commands reach the answer."""
    from solver.hint import hint

    position = Position.from_strings("K8 K7 K5 R1", ["B2 J R2", "K1 K2 K3 J K5 K6 K7", "K9 B9 O9"])
    found = hint(position, 3)
    assert str(found.plan.steps[0]).endswith("into K1 K2 K3, J K5 and K6 K7")
    commands = commands_for(position, found.plan, [s.tiles for s in found.solution.table])
    assert commands is not None and commands[0].name == "move"


@pytest.mark.parametrize(
    ("rack", "table", "after", "typed"),
    [
        # A joker added in front of K3 J K5 is the K2 (at the end, the K6).
        ("J", ["K3 J K5"], ["J K3 J K5"], ["add 1 J@1"]),
        # K7 takes the first joker's place in K6 J J (the K7 and K8): the other stays the K8.
        ("K7 R1 R3", ["K6 J J"], ["K6 K7 J", "R1 J R3"], ["add 1 K7@2", "take 1 J@3", "lay R1 J R3"]),
        # Two table jokers laid around a rack tile keep the order they are laid in.
        ("R5 K3 K8", ["J K4 K5 K6 K7 J"], ["J R5 J", "K3 K4 K5 K6 K7 K8"], None),
        # The joker O3 retrieves goes in front of B3 B4 B5, where B1 then joins (not B1 B3 B4 B5 J).
        ("O3 B1", ["O2 J O4", "B3 B4 B5"], ["O2 O3 O4", "B1 J B3 B4 B5"], None),
    ],
)
def test_a_hint_s_commands_leave_each_joker_standing_for_what_the_answer_says(
    rack: str, table: list[str], after: list[str], typed: list[str] | None
) -> None:
    """Strict jokers: the commands of a level-3 hint end with each set written as the answer
    writes it, so each joker stands for the tile the answer says (an added tile went at the end,
    a retrieving tile at the end too, two jokers laid together first: another tile each time)."""
    from cli.session import as_typed
    from solver.steps import plan_steps

    rules = RuleSet(joker_rules=JokerRules.STRICT, joker_retrieval=Retrieval.CLUB)
    position = Position.from_strings(rack, table, rules=rules)
    new_table = [tiles(s) for s in after]
    plan = plan_steps(position.table, new_table, position.rack, rules)
    commands = commands_for(position, plan, new_table)
    assert commands is not None
    if typed is not None:
        assert [as_typed(c) for c in commands] == typed
    e = TurnEditor(position)
    e.apply_all(list(commands))
    assert sorted(format_tiles(s) for s in e.table()) == sorted(after)


@pytest.mark.parametrize("mode", [JokerRules.STRICT, JokerRules.LOCKED])
def test_a_joker_the_steps_leave_out_of_its_place_is_put_back_in_it(mode: JokerRules) -> None:
    """R12 retrieves the joker, which takes O3's place in O2 ... O7 while O3 joins the group: the
    steps' commands left O2 O4 O5 O6 O7 J O8 (read only by trying every reading, the joker written
    nowhere near the O3); the joker is now taken off and added back where it stands."""
    from cli.session import as_typed
    from solver.steps import plan_steps

    rules = RuleSet(joker_rules=mode, joker_retrieval=Retrieval.CLUB)
    position = Position.from_strings("R12 O8", ["R9 R10 R11 J R13", "O2 O3 O4 O5 O6 O7", "K3 B3 R3"], rules=rules)
    after = ["R9 R10 R11 R12 R13", "O2 J O4 O5 O6 O7 O8", "K3 B3 R3 O3"]
    new_table = [tiles(s) for s in after]
    commands = commands_for(position, plan_steps(position.table, new_table, position.rack, rules), new_table)
    assert commands is not None
    assert [as_typed(c) for c in commands][-2:] == ["take 2 J@6", "add 2 J"]
    e = TurnEditor(position)
    e.apply_all(list(commands))
    assert [format_tiles(s) for s in e.table()] == after
