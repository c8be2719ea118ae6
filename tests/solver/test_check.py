"""`rummikub check` and solver.check: judging a proposed answer against the rules and the optimum."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli.errors import EXIT_ILLEGAL, EXIT_NOT_OPTIMAL, EXIT_UNPROVEN
from cli.main import cli
from solver.check import check_answer
from solver.position import Position
from solver.rules import RuleSet
from solver.solution import Objective, Shortfall, Solution, Status
from solver.solve import SolveOptions, solve
from solver.tiles import Tile, parse_token


def sets(*lines: str) -> list[list[Tile]]:
    return [[t for tok in line.split() for t in parse_token(tok)] for line in lines]


POSITION = Position.from_strings("R5 B7 O7", ["R4 J R6", "K1 K2 K3"])


def test_optimal_answer() -> None:
    report = check_answer(POSITION, sets("R4 R5 R6", "B7 O7 J", "K1 K2 K3"))
    assert report.legal and report.optimal and report.missed == 0
    assert (report.tiles_played, report.points_played) == (3, 19)
    assert (report.best.tiles_played, report.best.points_played) == (3, 19)


def test_legal_but_not_optimal() -> None:
    report = check_answer(POSITION, sets("R4 J R6 R5", "K1 K2 K3"))  # the joker now stands for R7
    assert report.legal and not report.optimal
    assert (report.tiles_played, report.missed) == (1, 2)


def test_points_objective_judges_points() -> None:
    # Judged by points: all three tiles (R5 B7 O7 = 19) is also the most value that can be played.
    report = check_answer(POSITION, sets("R4 R5 R6", "B7 O7 J", "K1 K2 K3"), SolveOptions(Objective.POINTS))
    assert report.optimal and report.points_played == 19


def test_illegal_answer_lists_every_violation() -> None:
    report = check_answer(POSITION, sets("R4 J R6 B7", "K1 K2 K3 O7", "R9"))
    assert not report.legal and not report.optimal
    codes = sorted(v.code for v in report.violations)
    assert codes == ["invalid_set", "invalid_set", "invalid_set", "tile_not_available"]
    data = report.to_dict()
    assert data["legal"] is False and data["optimal"] is False
    assert {"code", "message", "tiles"} <= set(data["violations"][0])
    assert "best" not in data  # the optimum is only revealed on request


def test_an_invalid_set_elsewhere_does_not_hide_the_joker_rules() -> None:
    # Under strict jokers the retrieved joker lies in a set with no rack tile (official retrieval
    # asks two) while B7 K1 is too short: both are said, the joker's rule too.
    rules = RuleSet.from_options({"joker-rules": "strict"})
    position = Position.from_strings("R5 B7 K1", ["R4 J R6", "B8 B9 B10"], rules=rules)
    report = check_answer(position, sets("R4 R5 R6", "J B8 B9 B10", "B7 K1"))
    assert [v.code for v in report.violations] == ["invalid_set", "joker_retrieval"]


HOSTED_BY_ONE = (
    "retrieved joker played with only one rack tile in its new set"
    " (official retrieval: a new set with at least two tiles from the rack)"
)
LOCKED_R3 = (
    "table set 1 'R3 R4 R5 R6 J' holds a joker and may only grow until it is retrieved"
    " (joker-rules=locked): R3 left it"
)


@pytest.mark.parametrize(
    ("table", "rack", "answer", "modes", "said"),
    [
        # R5 retrieved the joker, which went into 'B7 J' (too short): one rack tile beside it is
        # too few under official retrieval however the set is mended; club asks no more.
        (["R4 J R6", "K1 K2 K3"], "R5 B7", ["R4 R5 R6", "B7 J", "K1 K2 K3"], ["strict", "locked"],
         ["set 2 'B7 J' is invalid", HOSTED_BY_ONE]),
        (["R4 J R6", "K1 K2 K3"], "R5 B7", ["R4 R5 R6", "B7 J", "K1 K2 K3"], ["strict/club", "locked/club"],
         ["set 2 'B7 J' is invalid"]),
        # The joker left R4 and R6 for 'B7 J' and no R5 took its place: whatever 'B7 J' becomes.
        (["R4 J R6", "K1 K2 K3"], "R5 B7", ["R4 R6", "B7 J", "K1 K2 K3"], ["strict", "strict/club", "locked"],
         ["set 1 'R4 R6' is invalid", "set 2 'B7 J' is invalid",
          "joker standing for R5 (table set 1) moved without being replaced by R5"]),
        # Both jokers left their sets unreplaced: each is said, in table order.
        (["R4 J R6", "K1 J K3"], "B7 O7 K7", ["R4 R6 K1 K3", "B7 O7 K7 J J"], ["strict", "locked/club"],
         ["set 1 'R4 R6 K1 K3' is invalid", "set 2 'B7 O7 K7 J J' is invalid",
          "joker standing for R5 (table set 1) moved without being replaced by R5",
          "joker standing for K2 (table set 2) moved without being replaced by K2"]),
        # The joker is still beside R4 and R6: mended, the set may well keep it as R5. Nothing said.
        (["R4 J R6", "K1 K2 K3"], "R5 B7", ["R4 J R6 B7", "K1 K2 K3"], ["strict", "strict/club", "locked"],
         ["set 1 'R4 J R6 B7' is invalid"]),
        # R3 left the locked set for a group of 3s, whatever becomes of the invalid rest (strict
        # jokers allow the split).
        (["R3 R4 R5 R6 J", "K1 K2 K3 K4"], "B3 O3 B9", ["K1 K2 K3 K4", "R4 R5 R6 J B9", "R3 B3 O3"],
         ["locked", "locked/club"], ["set 2 'R4 R5 R6 J B9' is invalid", LOCKED_R3]),
        (["R3 R4 R5 R6 J", "K1 K2 K3 K4"], "B3 O3 B9", ["K1 K2 K3 K4", "R4 R5 R6 J B9", "R3 B3 O3"],
         ["strict", "strict/club"], ["set 2 'R4 R5 R6 J B9' is invalid"]),
    ],
)
def test_an_invalid_set_holding_a_joker_does_not_hide_the_joker_rules(
    table: list[str], rack: str, answer: list[str], modes: list[str], said: list[str]
) -> None:
    """What can be told of a joker in an invalid set is said (each reason once, in a stable order:
    the sets first, then the jokers in table order); what depends on how the set is mended is not."""
    for mode in modes:
        jokers, _, retrieval = mode.partition("/")
        rules = RuleSet.from_options({"joker-rules": jokers, "joker-retrieval": retrieval or "official"})
        report = check_answer(Position.from_strings(rack, table, rules=rules), sets(*answer))
        messages = [v.message for v in report.violations]
        assert len(messages) == len(said), (mode, messages)
        assert all(m.startswith(s) for m, s in zip(messages, said)), (mode, messages)


@pytest.mark.parametrize("retrieval", ["official", "club"])
def test_cli_an_invalid_set_holding_a_joker_does_not_hide_the_joker_rules(tmp_path: Path, retrieval: str) -> None:
    rack = write(tmp_path, "rack.txt", "R5 B7\n")
    table = write(tmp_path, "table.txt", "R4 J R6\nK1 K2 K3\n")
    answer = write(tmp_path, "answer.txt", "R4 R5 R6\nB7 J\nK1 K2 K3\n")
    args = ["check", "--rack", rack, "--table", table, "--answer", answer, "--joker-rules", "strict"]
    result = CliRunner().invoke(cli, [*args, "--joker-retrieval", retrieval])
    assert result.exit_code == EXIT_ILLEGAL and result.stderr == ""
    invalid = "  - set 2 'B7 J' is invalid: too short: 2 tiles, a set needs at least 3 [B7 J]"
    if retrieval == "club":
        assert result.stdout.splitlines()[:2] == ["Illegal move (1 problem): it plays nothing.", invalid]
        return
    assert result.stdout.splitlines()[:4] == [
        "Illegal move (2 problems): it plays nothing.",
        invalid,
        "  - retrieved joker played with only one rack tile in its new set (official",
        "      retrieval: a new set with at least two tiles from the rack) [J]",
    ]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert [v["code"] for v in data["violations"]] == ["invalid_set", "joker_retrieval"]


def test_a_tile_from_nowhere_does_not_hide_the_joker_rules() -> None:
    """K12 is on neither the table nor the rack, and the joker of R6 J R8 R9 went back into its own
    set, R7 in its place: both are said."""
    rules = RuleSet.from_options({"joker-rules": "strict"})
    position = Position.from_strings("R7 K10 K11", ["R6 J R8 R9", "B5 B6 B7 B8 B9"], rules=rules)
    report = check_answer(position, sets("R6 R7 R8 R9 J", "K10 K11 K12", "B5 B6 B7 B8 B9"))
    assert [v.code for v in report.violations] == ["tile_not_available", "joker_retrieval"]


def test_a_missing_tile_of_a_set_without_jokers_does_not_hide_the_joker_rules() -> None:
    """K3 went back to the rack: said; the joker R5 retrieved lies beside one rack tile: said too
    (K1 K2 K3 held no joker, so its tile going missing changes nothing the jokers are judged by)."""
    rules = RuleSet.from_options({"joker-rules": "strict"})
    position = Position.from_strings("R5 B7 O7", ["R4 J R6", "K1 K2 K3"], rules=rules)
    report = check_answer(position, sets("R4 R5 R6", "B7 J", "K1 K2"))
    assert [v.code for v in report.violations] == ["invalid_set", "invalid_set", "table_tile_missing", "joker_retrieval"]
    # A tile gone from the joker's own set leaves nothing certain: the jokers are not judged.
    report = check_answer(position, sets("R4 R5", "B7 J", "K1 K2 K3"))
    assert [v.code for v in report.violations] == ["invalid_set", "invalid_set", "table_tile_missing"]


def test_a_broken_locked_set_marks_what_is_left_of_it() -> None:
    """R3 left the locked R3 R4 R5 R6 J for a group of 3s: the violation is about R4 R5 R6 J (it
    marked the group, the set holding the tile named)."""
    rules = RuleSet.from_options({"joker-rules": "locked"})
    position = Position.from_strings("B3 O3", ["R3 R4 R5 R6 J", "K1 K2 K3 K4"], rules=rules)
    report = check_answer(position, sets("K1 K2 K3 K4", "R4 R5 R6 J", "R3 B3 O3"))
    assert [v.code for v in report.violations] == ["locked_set_broken"]
    assert report.violation_sets() == ((1,),)


def test_violation_sets_mark_the_sets_each_violation_is_about() -> None:
    # Sets 0 and 2 are invalid (and equal: each violation gets its own); R9 is nowhere to be had.
    report = check_answer(POSITION, sets("R4 R5", "K1 K2 K3", "R4 R5", "B7 O7 J R6 R9"))
    by_code = {}
    for v, marked in zip(report.violations, report.violation_sets()):
        by_code.setdefault(v.code, []).append(marked)
    assert by_code["invalid_set"] == [(0,), (2,), (3,)]
    assert by_code["tile_not_available"] == [(3,)]  # R9 is nowhere
    assert by_code["tile_used_too_often"] == [(0, 2), (0, 2)]  # R4 R5 twice: one R4 and one R5 too many
    # A table tile that went missing is in no set: nothing to mark, the message says it.
    report = check_answer(POSITION, sets("R4 R5 R6", "B7 O7 J"))
    assert [(v.code, m) for v, m in zip(report.violations, report.violation_sets())] == [
        ("table_tile_missing", ())
    ]


def test_shortfall_is_measured_against_the_best_move_by_tiles_and_points() -> None:
    """What check's report and game analysis both judge a move by (solver.solution.Shortfall)."""
    best = solve(POSITION)  # 3 tiles, 19 points
    short = Shortfall.of(best, 1, 25)
    assert (short.tiles, short.points) == (2, -6)  # fewer tiles, more points: negative is kept
    assert (short.missed(Objective.TILES), short.missed(Objective.POINTS)) == (2, 0)
    assert Shortfall.of(best, 0, 0).missed(Objective.POINTS) == 19
    report = check_answer(POSITION, sets("R4 J R6 R5", "K1 K2 K3"), SolveOptions(Objective.POINTS))
    assert report.missed == Shortfall.of(report.best, 1, 5).missed(Objective.POINTS) == 14


def test_no_move_is_optimal_when_nothing_can_be_played() -> None:
    position = Position.from_strings("K9", ["R1 R2 R3"])
    report = check_answer(position, sets("R1 R2 R3"))
    assert report.legal and report.optimal and report.tiles_played == 0


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("answer", "status", "first_line"),
    [
        ("R4 R5 R6\nB7 O7 J\nK1 K2 K3\n", 0, "Legal move: 3 tiles (19 points) played."),
        ("R4 J R6 R5\nK1 K2 K3\n", EXIT_NOT_OPTIMAL, "Legal move: 1 tile (5 points) played."),
        ("R4 J R6 B7\nK1 K2 K3 O7\n", EXIT_ILLEGAL, "Illegal move (2 problems): it plays nothing."),
    ],
)
def test_cli_exit_statuses(tmp_path: Path, answer: str, status: int, first_line: str) -> None:
    rack = write(tmp_path, "rack.txt", "R5 B7 O7\n")
    table = write(tmp_path, "table.txt", "R4 J R6\nK1 K2 K3\n")
    answer_file = write(tmp_path, "answer.txt", answer)
    result = CliRunner().invoke(cli, ["check", "--rack", rack, "--table", table, "--answer", answer_file])
    assert result.exit_code == status
    assert result.stdout.splitlines()[0] == first_line
    assert "Best move" not in result.stdout  # not revealed without --show
    assert result.stderr == ""


def test_cli_json_and_show(tmp_path: Path) -> None:
    answer = write(tmp_path, "answer.txt", "R4 J R6 R5\nK1 K2 K3\n")
    args = ["check", "puzzles/joker-retrieval.txt", "--answer", answer]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert data == {
        "legal": True,
        "violations": [],
        "tiles_played": 1,
        "points_played": 5,
        "optimal_tiles": 3,
        "optimal_points": 19,
        "optimal": False,
        "proven": True,
        "objective": "tiles",
    }
    shown = CliRunner().invoke(cli, [*args, "--show"])
    assert shown.exit_code == EXIT_NOT_OPTIMAL and "Best move: play 3 tiles" in shown.stdout


def stopped_early(found_nothing: bool) -> Any:
    """A solve the time limit stopped: the real optimum unproven, or only the move "play nothing"."""
    import solver.check

    real = solver.check.solve

    def solve(position: Position, options: SolveOptions = SolveOptions()) -> Solution:
        best = real(dataclasses.replace(position, rack=()) if found_nothing else position, options)
        return dataclasses.replace(best, position=position, status=Status.TIME_LIMIT)

    return solve


@pytest.mark.parametrize(
    ("found_nothing", "answer", "status", "optimal", "lines"),
    [
        # As good as the best found, which is the optimum here, but nobody proved it: unknown.
        (False, "R4 R5 R6\nB7 O7 J\nK1 K2 K3\n", EXIT_UNPROVEN, None,
         ["Legal move: 3 tiles (19 points) played.",
          "As good as the best move found within the time limit (3 tiles (19 points)), or",
          "    better; not proven optimal."]),
        # Better than what the search found in time: still only "not proven".
        (True, "R4 J R6 R5\nK1 K2 K3\n", EXIT_UNPROVEN, None,
         ["Legal move: 1 tile (5 points) played.",
          "As good as the best move found within the time limit (0 tiles (0 points)), or",
          "    better; not proven optimal."]),
        # Below a legal move found: not optimal, whatever the proof.
        (False, "R4 J R6 R5\nK1 K2 K3\n", EXIT_NOT_OPTIMAL, False,
         ["Legal move: 1 tile (5 points) played.",
          "Not optimal: the best move found within the time limit plays 3 tiles (19",
          "    points), 2 tiles more."]),
        (True, "R4 J R6 B7\nK1 K2 K3 O7\n", EXIT_ILLEGAL, False,
         ["Illegal move (2 problems): it plays nothing."]),
    ],
)
def test_a_search_stopped_by_the_time_limit_proves_no_verdict_it_cannot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, found_nothing: bool, answer: str, status: int,
    optimal: bool | None, lines: list[str],
) -> None:
    import solver.check

    monkeypatch.setattr(solver.check, "solve", stopped_early(found_nothing))
    args = ["check", "puzzles/joker-retrieval.txt", "--answer", write(tmp_path, "answer.txt", answer)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == status and result.stdout.splitlines()[: len(lines)] == lines
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert data["optimal"] is optimal and data["proven"] is False
    if found_nothing and status == EXIT_ILLEGAL:
        assert "No legal move playing a tile was found within the time limit." in result.stdout


def test_cli_a_long_violation_fits_80_columns(tmp_path: Path) -> None:
    """The tiles a violation names come on lines of their own, wrapped between tiles as well."""
    answer = write(tmp_path, "answer.txt", "K1-13 K13 R1-12\n")
    table = write(tmp_path, "table.txt", "R4 J R6\nK7 K8 K9\n")
    rack = write(tmp_path, "rack.txt", "R13\n")
    result = CliRunner().invoke(cli, ["check", "--rack", rack, "--table", table, "--answer", answer])
    assert result.exit_code == EXIT_ILLEGAL
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    assert "      [K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 K13 R1 R2 R3 R4 R5 R6 R7 R8 R9\n" in result.stdout


def test_cli_bad_answer_token_is_bad_input(tmp_path: Path) -> None:
    answer = write(tmp_path, "answer.txt", "R4 R5 R6\nB7 X7 J\n")
    result = CliRunner().invoke(cli, ["check", "puzzles/joker-retrieval.txt", "--answer", answer])
    assert result.exit_code == 1
    assert result.stderr == f"Error: invalid tile 'X7' in answer file {answer} line 2: unknown colour 'X' (colours are K B R O)\n"
    assert result.stdout == ""


def test_illegal_answer_plays_nothing_in_text_and_json_alike(tmp_path: Path) -> None:
    """A second B8 from nowhere: illegal, why, nothing played, and the best legal move's size."""
    answer = write(tmp_path, "answer.txt", "B6 B7 B8 B8\nB8 B9 B10\nK1 K2 K3 K4\n")
    args = ["check", "puzzles/split-run.txt", "--answer", answer]
    text = CliRunner().invoke(cli, args)
    assert text.exit_code == EXIT_ILLEGAL and text.stderr == ""
    assert text.stdout.splitlines() == [
        "Illegal move (2 problems): it plays nothing.",
        "  - set 1 'B6 B7 B8 B8' is invalid: number repeats in a run (B8 twice)",
        "      [B6 B7 B8 B8]",  # within 80 columns, the tiles together
        "  - B8 used 3 times, but there are only 2 (1 on the table, 1 on the rack); the",
        "      game has only 2 [B8]",
        "The best legal move plays 1 tile (8 points).",
    ]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert data["legal"] is False and data["optimal"] is False
    assert (data["tiles_played"], data["points_played"]) == (0, 0)
    assert (data["optimal_tiles"], data["optimal_points"]) == (1, 8)
    assert [v["code"] for v in data["violations"]] == ["invalid_set", "tile_used_too_often"]


def test_illegal_answer_when_no_legal_move_plays_a_tile(tmp_path: Path) -> None:
    rack = write(tmp_path, "rack.txt", "R1 R2 R3 K5\n")
    answer = write(tmp_path, "answer.txt", "R1 R2 R3\n")
    result = CliRunner().invoke(cli, ["check", "--rack", rack, "--answer", answer])
    assert result.exit_code == EXIT_ILLEGAL
    assert result.stdout.splitlines()[-2:] == [
        "No legal move plays a tile: draw one (this turn is the initial meld: new sets",
        "    from your rack worth at least 30 points).",
    ]


def test_report_of_an_illegal_answer_counts_nothing() -> None:
    report = check_answer(POSITION, sets("R4 R5 R6 R5", "B7 O7 J", "K1 K2 K3"))
    assert not report.legal
    assert (report.tiles_played, report.points_played, report.missed) == (0, 0, 3)


@pytest.mark.parametrize(
    ("objective", "answer", "verdict"),
    [
        ("tiles", "K2 K3 K4\n", "Optimal: no move plays more tiles; the best of them plays 12 points."),
        ("tiles", "K4 B4 O4\n", "Optimal: the best move also plays 3 tiles (12 points)."),
        ("points", "K4 B4 O4\n", "Optimal: the best move also plays 3 tiles (12 points)."),
    ],
)
def test_an_answer_optimal_by_its_objective_says_what_the_tie_break_would_add(
    tmp_path: Path, objective: str, answer: str, verdict: str
) -> None:
    """K2 K3 K4 plays as many tiles as K4 B4 O4, 3 points fewer: optimal by tiles, and the text
    does not say the best move 'also' plays its 12 points."""
    rack = write(tmp_path, "rack.txt", "K2 K3 K4 B4 O4\n")
    answer_file = write(tmp_path, "answer.txt", answer)
    args = ["check", "--rack", rack, "--opened", "--answer", answer_file, "--objective", objective]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[1] == verdict
