"""Tests of the score sheet (solver/game/scoresheet.py): rack penalties, round scoring, totals, the file.

Expected scores are worked out by hand from docs/rules.md, "End of a round and scoring".
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.errors import InputError, RummikubError
from solver.game.scoresheet import (
    Rack,
    RoundError,
    Scoring,
    Settings,
    Sheet,
    dumps,
    load,
    loads,
    new_sheet,
    parse_left_rack,
    parse_players,
    round_from_options,
    save,
    score_round,
)


def play(sheet: Sheet, winner: str | None, *racks: str, **flags: Any) -> Sheet:
    """The sheet with one more round, entered as on the command line."""
    rnd = round_from_options(sheet.players, sheet.settings, winner=winner, racks=list(racks), **flags)
    return sheet.with_round(rnd)


def last_scores(sheet: Sheet) -> dict[str, int]:
    return sheet.results().rounds[-1].scores


# --------------------------------------------------------------------------- racks


@pytest.mark.parametrize(
    "text, joker_penalty, expected",
    [
        ("R5", 30, 5),
        ("R5 K12 J", 30, 47),
        ("R5 K12 J", 50, 67),
        ("R5 K12 J", 100, 117),
        ("J J", 100, 200),
        ("r4-7", 30, 22),  # shorthand, lower case
        ("KBR7, O1", 30, 22),  # group shorthand, comma
        ("23", 100, 23),  # a written sum is taken as counted, jokers included
        (23, 30, 23),
        ("0", 30, 0),
    ],
)
def test_rack_penalty(text: str | int, joker_penalty: int, expected: int) -> None:
    assert parse_left_rack(text).penalty(joker_penalty) == expected


@pytest.mark.parametrize(
    "text, problem",
    [
        ("", "empty rack"),
        ("   ", "empty rack"),
        ("X5", "invalid tile 'X5': unknown colour 'X'"),
        ("R14", "invalid tile 'R14': numbers run 1..13"),
        ("R5 12", "invalid tile '12': missing colour before 12"),
        ("-5", "cannot be negative"),
        ("99999", "not possible"),
        ("J3", "a joker is written J"),
    ],
)
def test_bad_rack(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(")):
        parse_left_rack(text)


def test_rack_keeps_what_was_written() -> None:
    assert parse_left_rack("r5 k12 j").to_json() == "R5 K12 J"
    assert parse_left_rack(" 23 ").to_json() == 23
    assert parse_left_rack("R4-6") == Rack(tiles=parse_left_rack("R4 R5 R6").tiles)


# --------------------------------------------------------------------------- standard scoring


def test_rules_example() -> None:
    # docs/rules.md: A wins; B holds 5, C 10, D 3 → A +18, B −5, C −10, D −3.
    sheet = play(new_sheet("A,B,C,D"), "A", "B=5", "C=10", "D=3")
    assert last_scores(sheet) == {"A": 18, "B": -5, "C": -10, "D": -3}
    # The same racks as tiles.
    sheet = play(new_sheet("A,B,C,D"), "A", "B=R5", "C=K4 B6", "D=O1 O2")
    assert last_scores(sheet) == {"A": 18, "B": -5, "C": -10, "D": -3}


@pytest.mark.parametrize("joker_penalty", [30, 50, 100])
def test_joker_penalty(joker_penalty: int) -> None:
    sheet = new_sheet("Ann,Bob,Cy", "standard", joker_penalty)
    sheet = play(sheet, "Ann", "Bob=J R5", "Cy=K1")
    assert last_scores(sheet) == {"Ann": joker_penalty + 6, "Bob": -(joker_penalty + 5), "Cy": -1}


def test_default_joker_penalty_follows_the_scoring() -> None:
    assert new_sheet("A,B").settings == Settings(Scoring.STANDARD, 30)
    assert new_sheet("A,B", "club").settings == Settings(Scoring.CLUB, 100)
    assert new_sheet("A,B", "club", 50).settings.joker_penalty == 50


@pytest.mark.parametrize("bad", [0, 40, 200, True, "30"])
def test_joker_penalty_must_be_30_50_or_100(bad: Any) -> None:
    with pytest.raises(InputError, match="joker penalty"):
        new_sheet("A,B", "club", bad)


def test_standard_has_no_never_opened_penalty() -> None:
    sheet = new_sheet("Ann,Bob,Cy")
    with pytest.raises(RoundError, match="club-sheet rule") as err:
        play(sheet, "Ann", "Bob=5", "Cy=30", never_opened=["Cy"])
    assert err.value.field == "never-opened"


# --------------------------------------------------------------------------- club scoring


def test_club_never_opened_and_could_have_opened() -> None:
    sheet = new_sheet("Ann,Bob,Cy,Dee", "club")
    sheet = play(
        sheet,
        "Ann",
        "Bob=R5 J",
        "Cy=R1-13",
        "Dee=K9 K10 K11 B1",
        never_opened=["Cy"],
        could_have_opened=["Dee"],
    )
    # Bob: 5 + joker 100; Cy: flat 100 instead of 91; Dee: flat 200 instead of 31.
    assert last_scores(sheet) == {"Ann": 405, "Bob": -105, "Cy": -100, "Dee": -200}


def test_club_flags_accept_comma_lists_and_any_case() -> None:
    sheet = new_sheet("Ann,Bob,Cy", "club")
    sheet = play(sheet, "ann", "bob=5", "CY=6", never_opened=["bob,cy"])
    assert sheet.rounds[0].never_opened == ("Bob", "Cy")
    assert sheet.rounds[0].winner == "Ann"
    assert last_scores(sheet) == {"Ann": 200, "Bob": -100, "Cy": -100}


def test_club_big_and_small_points_rank_big_points_first() -> None:
    sheet = new_sheet("Ann,Bob,Cy", "club")
    sheet = play(sheet, "Ann", "Bob=K13 J", "Cy=K12 O12 R12")  # Bob −113, Cy −36, Ann +149
    sheet = play(sheet, "Bob", "Ann=2", "Cy=3")  # Bob +5
    sheet = play(sheet, "Bob", "Ann=1", "Cy=1")  # Bob +2
    results = sheet.results()
    assert results.big_points == {"Ann": 1, "Bob": 2, "Cy": 0}
    assert results.totals == {"Ann": 146, "Bob": -106, "Cy": -40}
    # Bob leads on big points although Ann has far more small points.
    assert [(s.rank, s.player) for s in results.standings] == [(1, "Bob"), (2, "Ann"), (3, "Cy")]
    data = results.to_dict()
    assert data["big_points"] == {"Ann": 1, "Bob": 2, "Cy": 0}
    assert data["small_points"] == data["totals"]
    assert [r["running_totals"]["Ann"] for r in data["rounds"]] == [149, 147, 146]


def test_standard_ranks_by_total_and_ties_share_a_rank() -> None:
    sheet = new_sheet("Ann,Bob,Cy")
    sheet = play(sheet, "Ann", "Bob=5", "Cy=5")
    sheet = play(sheet, "Bob", "Ann=10", "Cy=0")
    results = sheet.results()
    assert results.totals == {"Ann": 0, "Bob": 5, "Cy": -5}
    sheet = play(sheet, "Ann", "Bob=0", "Cy=5")
    assert [(s.rank, s.player, s.total) for s in sheet.results().standings] == [
        (1, "Ann", 5),
        (1, "Bob", 5),  # equal totals: equal rank, seat order
        (3, "Cy", -10),
    ]
    assert "big_points" not in sheet.results().to_dict()


# --------------------------------------------------------------------------- blocked rounds


def test_blocked_round_standard_lowest_rack_wins() -> None:
    sheet = play(new_sheet("Ann,Bob,Cy"), None, "Ann=R5 K12 J", "Bob=R2 R3", "Cy=12", blocked=True)
    score = sheet.results().rounds[0]
    assert score.winner == "Bob"
    assert score.rack_sums == {"Ann": 47, "Bob": 5, "Cy": 12}
    # Standard: the others lose their whole rack; the winner's own rack does not count.
    assert score.scores == {"Ann": -47, "Bob": 59, "Cy": -12}


def test_blocked_round_club_others_lose_the_difference() -> None:
    sheet = play(new_sheet("Ann,Bob,Cy", "club"), None, "Ann=R5 K12 J", "Bob=R2 R3", "Cy=12", blocked=True)
    # Joker 100: Ann 117, Bob 5, Cy 12 → Ann −112, Cy −7, Bob +119; Bob gets the big point.
    assert last_scores(sheet) == {"Ann": -112, "Bob": 119, "Cy": -7}
    assert sheet.results().big_points == {"Ann": 0, "Bob": 1, "Cy": 0}


def test_blocked_round_named_winner_must_be_lowest() -> None:
    sheet = new_sheet("Ann,Bob,Cy", "club")
    with pytest.raises(RoundError, match=r"Ann's rack \(20\) is not the lowest .*Bob has 5") as err:
        play(sheet, "Ann", "Ann=20", "Bob=5", "Cy=12", blocked=True)
    assert (err.value.field, err.value.token) == ("winner", "Ann")
    # A tie is settled by naming one of the tied players; without a name it is an error.
    with pytest.raises(RoundError, match="Ann and Bob tie for the lowest rack"):
        play(sheet, None, "Ann=5", "Bob=5", "Cy=12", blocked=True)
    sheet = play(sheet, "Bob", "Ann=5", "Bob=5", "Cy=12", blocked=True)
    assert last_scores(sheet) == {"Ann": 0, "Bob": 7, "Cy": -7}


def test_blocked_round_needs_every_rack() -> None:
    with pytest.raises(RoundError, match="missing for Ann") as err:
        play(new_sheet("Ann,Bob,Cy"), "Ann", "Bob=5", "Cy=12", blocked=True)
    assert err.value.field == "rack"


def test_a_player_who_went_out_opened() -> None:
    sheet = new_sheet("Ann,Bob,Cy", "club")
    with pytest.raises(RoundError, match="Bob went out, so opened"):
        play(sheet, "Bob", "Ann=20", "Cy=12", never_opened=["Bob"])


def test_the_lowest_rack_of_a_blocked_round_may_never_have_opened() -> None:
    # Nobody opened (a meld threshold of 200, say): the lowest rack wins, the others pay 100 each.
    sheet = new_sheet("Ann,Bob,Cy", "club")
    sheet = play(sheet, None, "Ann=R3 R4", "Bob=K13 O13", "Cy=B12 B13", blocked=True, never_opened=["Ann", "Bob", "Cy"])
    assert last_scores(sheet) == {"Ann": 200, "Bob": -100, "Cy": -100}


# --------------------------------------------------------------------------- entry errors


@pytest.mark.parametrize(
    "winner, racks, flags, field, token, problem",
    [
        ("Zed", ["Bob=5", "Cy=3"], {}, "winner", "Zed", "unknown player"),
        (None, ["Bob=5", "Cy=3"], {}, "winner", None, "required"),
        ("Ann", ["Bob=5", "Bob=3", "Cy=3"], {}, "rack", "Bob=3", "given twice"),
        ("Ann", ["bob=5", "BOB=3", "Cy=3"], {}, "rack", "BOB=3", "given twice"),
        ("Ann", ["Bobby=5", "Cy=3"], {}, "rack", "Bobby=5", "unknown player 'Bobby'"),
        ("Ann", ["Bob 5", "Cy=3"], {}, "rack", "Bob 5", "write NAME=TILES or NAME=SUM"),
        ("Ann", ["=5", "Cy=3"], {}, "rack", "=5", "write NAME=TILES"),
        ("Ann", ["Bob=R5 X12", "Cy=3"], {}, "rack", "Bob=R5 X12", "invalid tile 'X12': unknown colour"),
        ("Ann", ["Bob=", "Cy=3"], {}, "rack", "Bob=", "empty rack"),
        ("Ann", ["Bob=5"], {}, "rack", None, "missing for Cy"),
        ("Ann", ["Ann=0", "Bob=5", "Cy=3"], {}, "rack", "Ann=0", "the winner's rack is empty"),
        ("Ann", ["Bob=J J", "Cy=J"], {}, "rack", "Cy=J", "J is on the racks 3 times (a game has 2)"),
        ("Ann", ["Bob=R5 R5", "Cy=R5"], {}, "rack", "Cy=R5", "R5 is on the racks 3 times"),
        ("Ann", ["Bob=5", "Cy=3"], {"never_opened": ["Zed"]}, "never-opened", "Zed", "unknown player"),
        ("Ann", ["Bob=5", "Cy=3"], {"never_opened": ["Cy", "cy"]}, "never-opened", "cy", "named twice"),
        (
            "Ann",
            ["Bob=5", "Cy=3"],
            {"could_have_opened": ["Ann"]},
            "could-have-opened",
            "Ann",
            "went out, so opened",
        ),
        (
            "Ann",
            ["Bob=5", "Cy=3"],
            {"never_opened": ["Cy"], "could_have_opened": ["Cy"]},
            "could-have-opened",
            "Cy",
            "also named never-opened",
        ),
    ],
)
def test_round_entry_errors(
    winner: str | None,
    racks: list[str],
    flags: dict[str, list[str]],
    field: str,
    token: str | None,
    problem: str,
) -> None:
    sheet = new_sheet("Ann,Bob,Cy", "club")
    with pytest.raises(RoundError) as err:
        play(sheet, winner, *racks, **flags)
    assert (err.value.field, err.value.token) == (field, token)
    assert problem in err.value.reason
    message = err.value.located("--" + field)
    assert "\n" not in message and message.startswith(f"--{field}")
    assert isinstance(err.value, RummikubError)


@pytest.mark.parametrize(
    "names, problem",
    [
        ("Ann", "1 player, a game has 2 to 6"),
        ("A,B,C,D,E,F,G", "7 players"),
        ("Ann,ann", "named twice"),
        ("Ann,,Bob", "an empty name"),
        ("Ann,B=b", "may not contain"),
        ("Ann," + "x" * 31, "at most 30 characters"),
        ("Ann,B\nb", "must be printable"),
        ("Ann,B\tb", "must be printable"),
    ],
)
def test_bad_players(names: str, problem: str) -> None:
    with pytest.raises(InputError, match=problem):
        parse_players(names)


def test_players_are_trimmed_and_kept_in_seat_order() -> None:
    assert parse_players(" Cy , Ann,Bob ") == ("Cy", "Ann", "Bob")
    assert len(parse_players("A,B,C,D,E,F")) == 6


# --------------------------------------------------------------------------- zero sum (property)

_SUMS = st.integers(min_value=0, max_value=150)


@settings(max_examples=60, deadline=None)
@given(
    club=st.booleans(),
    joker_penalty=st.sampled_from([30, 50, 100]),
    players=st.integers(min_value=2, max_value=6),
    data=st.data(),
)
def test_every_round_adds_up_to_zero(
    club: bool, joker_penalty: int, players: int, data: st.DataObject
) -> None:
    names = [f"P{i}" for i in range(players)]
    sheet = new_sheet(names, "club" if club else "standard", joker_penalty)
    blocked = data.draw(st.booleans())
    sums = data.draw(st.lists(_SUMS, min_size=players, max_size=players))
    winner = names[sums.index(min(sums))] if blocked else data.draw(st.sampled_from(names))
    racks = [f"{n}={s}" for n, s in zip(names, sums) if blocked or n != winner]
    others = [n for n in names if n != winner]
    flagged = data.draw(st.lists(st.sampled_from(others), unique=True, max_size=2)) if club else []
    sheet = play(sheet, winner, *racks, blocked=blocked, never_opened=flagged)
    score = sheet.results().rounds[0]
    assert sum(score.scores.values()) == 0
    assert score.winner == winner
    assert all(score.scores[n] <= 0 for n in others)
    for n in flagged:
        assert score.scores[n] == -100


# --------------------------------------------------------------------------- corrections


def test_fix_a_past_round() -> None:
    sheet = new_sheet("Ann,Bob,Cy")
    sheet = play(sheet, "Ann", "Bob=5", "Cy=10")
    sheet = play(sheet, "Bob", "Ann=7", "Cy=1")
    assert sheet.results().totals == {"Ann": 8, "Bob": 3, "Cy": -11}
    # Round 1 was really won by Cy.
    fixed = round_from_options(sheet.players, sheet.settings, winner="Cy", racks=["Ann=4", "Bob=5"])
    corrected = sheet.with_round_replaced(1, fixed)
    assert len(corrected.rounds) == 2
    assert corrected.rounds[1] == sheet.rounds[1]
    assert corrected.results().totals == {"Ann": -11, "Bob": 3, "Cy": 8}
    assert [r.winner for r in corrected.results().rounds] == ["Cy", "Bob"]


@pytest.mark.parametrize("number", [0, 3, -1])
def test_fix_needs_an_existing_round(number: int) -> None:
    sheet = play(play(new_sheet("Ann,Bob"), "Ann", "Bob=5"), "Bob", "Ann=5")
    rnd = sheet.rounds[0]
    with pytest.raises(InputError, match=f"round {number} does not exist .*rounds 1 to 2"):
        sheet.with_round_replaced(number, rnd)


# --------------------------------------------------------------------------- the file


def full_sheet() -> Sheet:
    sheet = new_sheet("Ann,Bob,Zoë,Dee", "club", 50)
    sheet = play(sheet, "Ann", "Bob=R5 K12 J", "Zoë=23", "Dee=B1-13", could_have_opened=["Dee"])
    sheet = play(sheet, None, "Ann=J", "Bob=R2", "Zoë=O13", "Dee=4", blocked=True, never_opened=["Zoë"])
    return play(sheet, "Dee", "Ann=0", "Bob=1", "Zoë=KBRO7")


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    sheet = full_sheet()
    path = str(tmp_path / "game.json")
    save(sheet, path)
    again = load(path)
    assert again == sheet
    assert again.results() == sheet.results()
    assert dumps(again) == dumps(sheet)
    # The file keeps the racks as entered, not the scores; it reads as plain JSON.
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    assert data["format"] == "rummikub-score-sheet" and data["version"] == 1
    assert data["settings"] == {"scoring": "club", "joker_penalty": 50}
    assert data["players"] == ["Ann", "Bob", "Zoë", "Dee"]
    assert data["rounds"][0] == {
        "winner": "Ann",
        "racks": {"Bob": "R5 K12 J", "Zoë": 23, "Dee": "B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13"},
        "could_have_opened": ["Dee"],
    }
    assert data["rounds"][1]["winner"] is None and data["rounds"][1]["blocked"] is True
    assert "scores" not in data["rounds"][0]
    assert "Zoë" in Path(path).read_text(encoding="utf-8")  # readable, not \u-escaped


def test_empty_sheet_round_trip(tmp_path: Path) -> None:
    sheet = new_sheet("Ann,Bob")
    path = str(tmp_path / "g.json")
    save(sheet, path)
    assert load(path) == sheet
    assert sheet.results().totals == {"Ann": 0, "Bob": 0}


def test_save_refuses_to_overwrite_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text("keep me")
    with pytest.raises(InputError, match="already exists"):
        save(new_sheet("A,B"), str(path), overwrite=False)
    assert path.read_text() == "keep me"
    save(new_sheet("A,B"), str(path))
    assert load(str(path)).players == ("A", "B")
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]  # no temporary file left behind


def test_save_keeps_the_file_permissions(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    save(new_sheet("A,B"), str(path))
    os.chmod(path, 0o640)
    save(new_sheet("A,B,C"), str(path))
    assert os.stat(path).st_mode & 0o777 == 0o640


def test_save_writes_a_linked_sheet_through_its_link(tmp_path: Path) -> None:
    real = tmp_path / "real" / "g.json"
    real.parent.mkdir()
    save(new_sheet("A,B"), str(real))
    link = tmp_path / "link.json"
    link.symlink_to(real)
    save(new_sheet("A,B,C"), str(link))
    assert link.is_symlink()
    assert load(str(real)).players == ("A", "B", "C")


def test_scores_are_recomputed_from_the_racks() -> None:
    text = dumps(full_sheet()).replace('"Zoë": 23', '"Zoë": 24')
    sheet = loads(text)
    assert score_round(sheet.rounds[0], sheet.players, sheet.settings).scores["Zoë"] == -24


GOOD = {
    "format": "rummikub-score-sheet",
    "version": 1,
    "settings": {"scoring": "standard", "joker_penalty": 30},
    "players": ["Ann", "Bob"],
    "rounds": [{"winner": "Ann", "racks": {"Bob": "R5"}}],
}


def changed(**changes: Any) -> str:
    data = {**GOOD, **changes}
    return json.dumps({k: v for k, v in data.items() if v is not None})


@pytest.mark.parametrize(
    "text, problem",
    [
        ("{", " line 1: not valid JSON: it ends before the JSON does"),
        ("[" * 100_000, ": not valid JSON: nested too deeply or too large a number"),
        (changed().replace('"Bob": "R5"', '"Bob": "R5", "Bob": "R6"'), "key 'Bob' appears twice"),
        ("[]", "is not a score sheet"),
        ('{"players": []}', "is not a score sheet"),
        (changed(version=2), "format version 2 is not supported"),
        (changed(version=True), "format version true is not supported"),
        (
            changed(rounds=[{"winner": "Ann", "racks": {"Bob": True}}]),
            """round 1: racks 'Bob' must be tiles ("R5 K12 J") or points (23), got true""",
        ),
        (changed(extra=1), "unknown key 'extra'"),
        (changed(players=None), "'players' is missing"),
        (changed(settings={"scoring": "standard"}), "settings 'joker_penalty' is missing"),
        (changed(settings={"scoring": "rummy", "joker_penalty": 30}), "unknown scoring 'rummy'"),
        (changed(settings={"scoring": "club", "joker_penalty": 40}), "joker penalty 40"),
        (changed(settings={"scoring": "club", "joker_penalty": True}), "joker penalty true is not one of"),
        (changed(settings={"scoring": "club", "joker_penalty": 30, "x": 1}), "settings: unknown key 'x'"),
        (changed(players=["Ann"]), "1 player, a game"),
        (changed(players="Ann,Bob"), "'players' must be a list"),
        (changed(rounds={}), "'rounds' must be a list"),
        (changed(rounds=[1]), "round 1: a round must be an object"),
        (
            changed(rounds=[{"winner": "Ann", "racks": {"Bob": "X5"}}]),
            "round 1: racks 'Bob=X5': invalid tile 'X5'",
        ),
        (changed(rounds=[{"winner": "Cy", "racks": {"Bob": 5}}]), "round 1: winner 'Cy': unknown player"),
        (changed(rounds=[{"winner": "Ann", "racks": {}}]), "round 1: racks: missing for Bob"),
        (changed(rounds=[{"winner": "Ann", "racks": ["Bob=5"]}]), "round 1: 'racks' must be an object"),
        (changed(rounds=[{"winner": "Ann", "racks": {"Bob": 5}, "blocked": "no"}]), "'blocked' must be true"),
        (
            changed(rounds=[{"winner": "Ann", "racks": {"Bob": 5}, "score": 5}]),
            "round 1: unknown key 'score'",
        ),
        (
            changed(rounds=[{"winner": "Ann", "racks": {"Bob": 5}, "never_opened": ["Bob"]}]),
            "never_opened 'Bob'",
        ),
        (
            changed(rounds=[{"winner": "Ann", "racks": {"Bob": 5}}, {"winner": 3, "racks": {}}]),
            "round 2: 'winner'",
        ),
    ],
)
def test_bad_score_files(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load(str(path))
    message = str(err.value)
    assert f"score file {path}" in message
    assert problem in message
    assert "\n" not in message


def test_the_good_file_of_the_bad_file_tests_loads(tmp_path: Path) -> None:
    assert loads(changed()).results().totals == {"Ann": 5, "Bob": -5}


@pytest.mark.parametrize(
    "content, problem",
    [
        (None, "no such file"),
        (b"\x00\x01binary", "is not a text file"),
        (b"\xff\xfe{", "is not UTF-8 text"),
    ],
)
def test_unreadable_score_files(tmp_path: Path, content: bytes | None, problem: str) -> None:
    path = tmp_path / "g.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError, match=problem) as err:
        load(str(path))
    assert f"score file {path}" in str(err.value)


@pytest.mark.parametrize("scoring", ["standard", "club"])
def test_a_winner_who_went_out_needs_no_rack_in_the_file(scoring: str) -> None:
    sheet = loads(changed(settings={"scoring": scoring, "joker_penalty": 30}))
    assert sheet.results().rounds[0].scores == {"Ann": 5, "Bob": -5}
