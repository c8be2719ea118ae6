"""The turn editor's additions for front-ends that keep a turn between requests: several
manipulations as one step, the undo stack kept as JSON, problems with the sets they are about."""

from __future__ import annotations

import json

import pytest

from solver.game.editor import Command, EditError, TurnEditor
from solver.position import Position
from solver.rules import JokerRules, Retrieval, RuleSet, Wrap
from solver.tiles import Tile, format_tiles


def editor(rack: str = "R5 B7 O7 K9", table: tuple[str, ...] = ("R4 J R6", "K1 K2 K3"), opened: bool = True) -> TurnEditor:
    return TurnEditor(Position.from_strings(rack, list(table), opened))


def tiles(text: str) -> tuple[Tile, ...]:
    return tuple(Tile.parse(t) for t in text.split())


def test_several_manipulations_are_one_step() -> None:
    e = editor()
    # Retrieve the joker: R5 from the rack in its place, the joker into the workspace.
    said = e.apply_all([Command("take", 0, tiles("J")), Command("add", 0, tiles("R5"))])
    assert len(said) == 2 and e.state.workspace == tiles("J") and e.state.table[0] == tiles("R4 R5 R6")
    e.apply(Command("lay", tiles=tiles("B7 O7 J")))
    assert e.problems() == []
    e.undo()
    e.undo()  # one undo for both: back to the start
    assert e.state == e.start and not e.can_undo()
    e.redo()
    assert e.state.workspace == tiles("J")


def test_if_one_manipulation_fails_none_is_made() -> None:
    e = editor()
    e.apply(Command("lay", tiles=tiles("B7 O7")))
    before = (list(e.states), e.index)
    with pytest.raises(EditError, match="K9 not in set 2"):
        e.apply_all([Command("take", 0, tiles("J")), Command("take", 1, tiles("K9"))])
    assert (e.states, e.index) == before
    with pytest.raises(EditError, match="no manipulation"):
        e.apply_all([])


def test_the_undo_stack_kept_as_json_comes_back_the_same() -> None:
    e = editor()
    e.apply(Command("take", 0, tiles("J")))
    e.apply(Command("lay", tiles=tiles("B7 O7 J")))
    e.undo()
    kept = json.loads(json.dumps(e.to_dict()))
    again = TurnEditor.from_dict(e.position, kept)
    assert again.states == e.states and again.index == e.index
    again.redo()
    assert again.state.table[-1] == tiles("B7 O7 J")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: {**d, "index": 5}, "index 5 for 3 states"),
        (lambda d: {**d, "index": True}, "index True"),
        (lambda d: {"states": d["states"]}, "not a kept turn"),
        (lambda d: {**d, "states": [*d["states"][:-1], {**d["states"][-1], "rack": ["R5", "R5"]}]}, "does not hold the turn's tiles"),
        (lambda d: {**d, "states": [{**d["states"][0], "rack": ["X9"]}]}, "not a kept turn"),
    ],
)
def test_a_kept_turn_that_is_not_this_turn_is_refused(change: object, message: str) -> None:
    e = editor()
    e.apply(Command("take", 0, tiles("J")))
    e.apply(Command("lay", tiles=tiles("B7 O7 J")))
    with pytest.raises(EditError, match=message):
        TurnEditor.from_dict(e.position, change(e.to_dict()))  # type: ignore[operator]
    other = editor(rack="R5 B7 O7 K8")
    with pytest.raises(EditError, match=r"tiles|another table"):
        TurnEditor.from_dict(other.position, e.to_dict())


def test_problems_name_the_sets_they_are_about() -> None:
    e = editor()
    e.apply(Command("take", 0, tiles("J")))
    e.apply(Command("add", 1, tiles("K9")))
    marked = e.marked_problems()
    assert [sets for _, sets in marked] == [(), (0,), (1,)]
    assert marked[0][0].startswith("the workspace still holds J")
    assert e.problems() == [message for message, _ in marked]
    # The validator's last word: an initial meld below the threshold is about the new set.
    m = editor(rack="R1 R2 R3 K9", table=("K10 K11 K12",), opened=False)
    m.apply(Command("lay", tiles=tiles("R1 R2 R3")))
    [(message, sets)] = m.marked_problems()
    assert "initial meld" in message and sets == (1,)


def strict_editor(rack: str, table: tuple[str, ...]) -> TurnEditor:
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    return TurnEditor(Position.from_strings(rack, list(table), True, rules))


def test_under_strict_jokers_a_set_keeps_the_places_its_jokers_were_given() -> None:
    # The place of a table joker says what it stands for: J K2 K3 K4 is K1 there, K5 in K2 K3 K4 J.
    e = strict_editor("J K2 K3 K4 R7 O9", ("J R4 R5 R6", "B1 B2 B3"))
    assert e.state.table[0] == tiles("J R4 R5 R6")  # as written, not turned into R4 R5 R6 J
    e.apply(Command("lay", tiles=tiles("J K2 K3 K4")))
    assert e.state.table[2] == tiles("J K2 K3 K4")
    e.apply(Command("add", 0, tiles("R7")))
    assert e.state.table[0] == tiles("J R4 R5 R6 R7")  # the joker still R3
    free = editor("R7", ("J R4 R5 R6",))
    assert free.state.table[0] == tiles("R4 R5 R6 J")  # free jokers: the reading worth most


def test_under_strict_jokers_a_tile_added_beside_a_joker_it_does_not_replace_is_legal() -> None:
    e = strict_editor("K5 O9", ("J K2 K3 K4", "B1 B2 B3"))
    e.apply(Command("add", 0, tiles("K5")))
    assert e.problems() == [] and e.finish()[0] == tiles("J K2 K3 K4 K5")


@pytest.mark.parametrize("mode", [JokerRules.STRICT, JokerRules.LOCKED])
def test_a_table_joker_added_with_a_tile_goes_where_it_stands_for_one(mode: JokerRules) -> None:
    """``add 1 R12 J`` to R8 R9 R10, the J taken off another set: R8 R9 R10 J R12 (the J the R11),
    not R8 R9 R10 R12 J, where the joker's place says R13."""
    rules = RuleSet(joker_rules=mode, joker_retrieval=Retrieval.CLUB)  # club: one rack tile will do
    e = TurnEditor(Position.from_strings("B11 R12", ["R8 R9 R10", "J B12 B13"], True, rules))
    e.apply(Command("take", 1, tiles("J")))
    e.apply(Command("add", 1, tiles("B11")))
    e.apply(Command("add", 0, tiles("R12 J")))
    assert e.state.table[0] == tiles("R8 R9 R10 J R12")
    assert e.problems() == []


def test_tiles_added_to_a_set_holding_a_table_joker_keep_its_place() -> None:
    """Strict jokers: B6 and B9 added to B7 J (the J the B8) make B6 B7 J B9; they went on the
    end, B7 J B6 B9, a table no reading keeps as written (hint 3's commands left it so)."""
    e = strict_editor("O7 B6 O1 K7 B9", ("J K7 B7", "J K6 R6 O6", "B2 B3 B4 B5 B6 B7"))
    for command in (Command("split", 2, tiles("B7")), Command("add", 0, tiles("O7")), Command("move", 0, tiles("J"), 3)):
        e.apply(command)
    assert e.state.table[3] == tiles("B7 J")
    e.apply(Command("add", 3, tiles("B6 B9")))
    assert e.state.table[3] == tiles("B6 B7 J B9") and e.problems() == []


def test_table_jokers_moved_off_a_run_with_their_tile_stay_a_run() -> None:
    """Strict jokers: J J K9 moved off K5 K6 J J K9 (the jokers K7 and K8) is shown so, not as
    the group K9 J J its tiles could also make (worth more), where its jokers would stand for
    K10 and K11: hint 3's commands for that split ended refused."""
    e = strict_editor("K7 B10 O7", ("K5 K6 J J K9",))
    e.apply(Command("move", 0, tiles("J J K9"), None))
    e.apply(Command("add", 0, tiles("K7")))
    assert e.state.table[1] == tiles("J J K9") and e.problems() == []


def test_a_joker_problem_marks_the_set_it_names_only() -> None:
    e = strict_editor("K5 O13", ("R2 R3 J R5", "K2 K3 K4 J"))
    e.apply(Command("add", 1, tiles("K5")))
    ((message, sets),) = e.marked_problems()
    assert "the joker of table set 2 'K2 K3 K4 J' is back in a set" in message
    assert sets == (1,)  # not set 0, which holds a joker too


def test_a_split_at_a_place_tells_two_copies_apart() -> None:
    e = editor("O6 O7 O8 O8 O9", ())
    e.apply(Command("lay", tiles=tiles("O6 O7 O8 O8 O9")))
    assert e.state.table[0] == tiles("O6 O7 O8 O8 O9")
    e.apply(Command("split", 0, tiles("O8"), at=2))  # the first O8
    assert e.state.table == (tiles("O6 O7"), tiles("O8 O8 O9"))
    e.undo()
    e.apply(Command("split", 0, tiles("O8")))  # no place given: at the second, as shown
    assert e.state.table == (tiles("O6 O7 O8"), tiles("O8 O9"))
    e.undo()
    with pytest.raises(EditError, match="O8 is not at place 2 of set 1"):
        e.apply(Command("split", 0, tiles("O8"), at=1))


def test_a_tile_asked_for_more_often_than_there_says_how_many_there_are() -> None:
    e = editor(rack="R2 R3 K9", table=("B1 B2 B3", "K1 K2 K3"))
    with pytest.raises(EditError) as err:
        e.apply(Command("lay", tiles=tiles("R2 R3 R3 O4")))
    assert str(err.value) == "O4 not on your rack; only 1 R3 on your rack (rack: K9 R2 R3)"
    with pytest.raises(EditError) as err:
        e.apply(Command("take", 0, tiles("B1 B1")))
    assert str(err.value) == "only 1 B1 in set 1 (B1 B2 B3)"


def test_done_lists_the_opening_rules_beside_an_invalid_set() -> None:
    """Every problem at once: a set too short and a meld worth too little, not one after the other."""
    e = editor(rack="K3 B3 O3 O6 O7 R9", table=("K1 K2 K3 K4",), opened=False)
    e.apply(Command("lay", tiles=tiles("K3 B3 O3")))
    e.apply(Command("lay", tiles=tiles("O6 O7")))
    assert e.problems() == [
        "set 3 (O6 O7) is not valid: too short: 2 tiles, a set needs at least 3",
        "initial meld worth 9 points, needs at least 30",
    ]


@pytest.mark.parametrize(
    ("opened", "after", "played", "said"),
    [
        # The one-minute rule kept K7 K8 J and took the broken B6 B7 (another player's) back.
        (True, ("K7 K8 J", "R1 R2 R3"), "K7 K8", "the broken sets taken back (B6 B7 from the table onto your rack)"),
        (True, ("B6 B7 J", "R1 R2 R3", "K7 K8 K9"), "K7 K8 K9", "your valid sets stay"),
        (True, ("B6 B7 J", "R1 R2 R3"), "", "nothing was left broken"),
        (False, ("B6 B7 J", "R1 R2 R3"), "", "the table restored"),
    ],
)
def test_what_the_timer_did_is_said_tile_by_tile(opened: bool, after: tuple[str, ...], played: str, said: str) -> None:
    from solver.game.editor import TimerRule, time_out_text
    from solver.game.engine import TurnRecord

    table = (tiles("B6 B7 J"), tiles("R1 R2 R3"))
    record = TurnRecord(5, 0, opened, tiles("K7 K8 K9"), table, tiles(played), None,
                        tuple(tiles(s) for s in after), 40, tiles("O6 B1 O13"), timed_out=True)
    assert time_out_text(record, TimerRule(60, 3, take_back=True)) == f"Time is up: {said}; penalty: O6 B1 O13."


def test_a_tile_picked_on_the_rack_is_laid_though_a_copy_lies_loose() -> None:
    e = editor(rack="R5 B8 B8 O8", table=("R3 R4 R5", "K6 B6 R6"))
    e.apply(Command("take", 0, tiles("R5")))  # the table's R5 into the workspace
    e.apply(Command("lay", tiles=tiles("R5"), from_rack=tiles("R5")))  # the rack's R5, as picked
    assert e.state.workspace == tiles("R5") and not any(e.state.own_loose)
    assert e.state.rack == tiles("B8 B8 O8") and e.state.table[2] == tiles("R5") and e.state.own[2] == (True,)
    e.undo()
    e.apply(Command("lay", tiles=tiles("R5")))  # without it: the loose copy first, as typed at a terminal
    assert e.state.workspace == () and sorted(e.state.rack) == sorted(tiles("R5 B8 B8 O8"))
    with pytest.raises(EditError, match="R6 from the rack or your own: not among the tiles R5"):
        e.apply(Command("add", 2, tiles("R5"), from_rack=tiles("R6")))


def test_tiles_moved_below_a_run_go_in_front_of_it() -> None:
    """Strict jokers: J O4 O5 (the joker O3) gives O4 J to O5 O6 O7. Put after it, the joker
    would stand for O8; in front, it is still the O3 the move needs."""
    e = strict_editor("R5 K5", ("J O4 O5", "O5 O6 O7"))
    e.apply(Command("move", 0, tiles("O4 J"), 1))
    assert e.state.table[1] == tiles("J O4 O5 O6 O7")
    e.apply(Command("take", 0, tiles("O5")))
    e.apply(Command("lay", tiles=tiles("K5 R5 O5")))
    assert e.problems() == []


def test_your_own_loose_tile_picked_is_the_one_added() -> None:
    e = editor(rack="R5 B8 B8 O8", table=("R3 R4 R5", "K6 B6 R6"))
    e.apply(Command("take", 0, tiles("R5")))  # the table's R5, loose
    e.apply(Command("lay", tiles=tiles("R5"), from_rack=tiles("R5")))
    e.apply(Command("take", 2, tiles("R5")))  # your own R5, loose beside it
    assert sorted(e.state.own_loose) == [False, True]
    e.apply(Command("add", 0, tiles("R5"), own_loose=tiles("R5")))
    assert e.state.own[0] == (False, False, True)  # R3 R4 and your R5
    assert e.state.own_loose == (False,)
    with pytest.raises(EditError, match="R5 not on your rack"):
        e.apply(Command("add", 0, tiles("R5"), from_rack=tiles("R5")))


def test_a_tile_taken_at_its_place_is_that_copy() -> None:
    e = editor(rack="R8 B8 O8", table=("R7 R8 R9", "K1 K2 K3"))
    e.apply(Command("add", 0, tiles("R8")))
    at = [i for i, t in enumerate(e.state.table[0]) if t == Tile.parse("R8") and not e.state.own[0][i]]
    e.apply(Command("take", 0, tiles("R8"), places=(at[0],)))  # the table's copy, as picked
    assert e.state.own_loose == (False,) and True in e.state.own[0]
    with pytest.raises(EditError, match="R9 is not at place 1 of set 1"):
        e.apply(Command("take", 0, tiles("R9"), places=(0,)))


def test_a_strict_joker_keeps_its_own_flag_where_it_lies() -> None:
    """Your joker added to J B10 B11 (the table's joker the B9) is the last one, not the first;
    the table's joker taken at its place is the table's."""
    e = strict_editor("J B12", ("J B10 B11", "K1 K2 K3"))
    e.apply(Command("add", 0, tiles("J")))
    assert e.state.table[0] == tiles("J B10 B11 J") and e.state.own[0] == (False, False, False, True)
    e.apply(Command("take", 0, tiles("J"), places=(3,)))
    e.apply(Command("add", 0, tiles("B12")))
    assert e.state.table[0] == tiles("J B10 B11 B12") and e.state.own_loose == (True,)


@pytest.mark.parametrize(
    ("wrap", "table", "added", "shown"),
    [
        (Wrap.AMERICAN, "K11 K12 J", "K1", "K11 K12 J K1"),  # K1 follows the 13 the joker is
        (Wrap.FULL, "K12 K13 J", "K2", "K12 K13 J K2"),
        (Wrap.NONE, "K11 K12 J", "K10", "K10 K11 K12 J"),
    ],
)
def test_a_tile_joins_a_strict_run_at_the_end_it_continues(wrap: Wrap, table: str, added: str, shown: str) -> None:
    position = Position.from_strings(added, [table, "B1 B2 B3"], True, RuleSet(wrap=wrap, joker_rules=JokerRules.STRICT))
    e = TurnEditor(position)
    e.apply(Command("add", 0, tiles(added)))
    assert e.state.table[0] == tiles(shown)


def test_random_edits_keep_every_tile_and_every_laid_mark() -> None:
    """Adds from the rack, takes at places, lays of loose tiles (yours or the table's) and undos
    in any order: no tile lost or made, and as many tiles marked laid as left the rack."""
    import random
    from collections import Counter

    rng = random.Random(5)
    start = Position.from_strings("R5 B8 J R6", ["R3 R4 R5", "R6 R7 J", "B8 K8 O8"])
    every = Counter(start.rack) + Counter(t for s in start.table for t in s)
    for _ in range(60):
        e = TurnEditor(start)
        for _ in range(14):
            s, choice = e.state, rng.random()
            try:
                if choice < 0.3 and s.rack:
                    t = rng.choice(s.rack)
                    e.apply(Command("add", rng.randrange(len(s.table)), (t,), from_rack=(t,) if rng.random() < 0.5 else ()))
                elif choice < 0.6:
                    n = rng.randrange(len(s.table))
                    if s.table[n]:
                        i = rng.randrange(len(s.table[n]))
                        e.apply(Command("take", n, (s.table[n][i],), places=(i,)))
                elif choice < 0.85 and s.workspace:
                    i = rng.randrange(len(s.workspace))
                    t = s.workspace[i]
                    e.apply(Command("lay", tiles=(t,), own_loose=(t,) if s.own_loose[i] else ()))
                else:
                    e.undo()
            except EditError:
                pass
            s = e.state
            assert Counter(t for x in s.table for t in x) + Counter(s.workspace) + Counter(s.rack) == every
            assert sum(map(sum, s.own)) + sum(s.own_loose) == len(start.rack) - len(s.rack)


def test_tiles_laid_keep_the_order_they_are_named_in() -> None:
    e = TurnEditor(Position.from_strings("J J R5", [], rules=RuleSet(joker_rules=JokerRules.STRICT)))
    e.apply(Command("lay", tiles=tiles("J R5 J")))
    assert format_tiles(e.state.table[0]) == "J R5 J"


@pytest.mark.parametrize(("places", "shown"), [((), "K3 J K6 K4"), ((1,), "K3 K4 J K6")])
def test_a_swap_puts_the_tile_where_the_joker_was(places: tuple[int, ...], shown: str) -> None:
    """The web board's swap takes the picked table tile at its place and adds the rack tile at
    that same place: K4 for the first joker of K3 J J K6 leaves K3 K4 J K6, the other joker still
    the K5 (added anywhere, K4 went to the end and the set read only by trying every reading)."""
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    e = TurnEditor(Position(tiles("K4"), (tiles("K3 J J K6"),), True, rules))
    e.apply_all([Command("take", 0, tiles("J"), places=(1,)), Command("add", 0, tiles("K4"), places=places)])
    assert format_tiles(e.state.table[0]) == shown
