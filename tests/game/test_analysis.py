"""Tests of game analysis (solver/game/analysis.py) and ``rummikub analyze``, through CliRunner.

The records in tests/data/records/ were written by hand; the optimum of every turn was worked out
by hand from docs/rules.md (e.g. short.jsonl turn 1: R10-13 and the group K13 B13 O13 open with 7 tiles,
the player laid only the run: 3 tiles missed, a mistake).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from cli.main import cli
from solver.game.analysis import Label, label_for
from solver.solution import Objective
from tests import paths

DATA = paths.DATA / "records"
SHORT = str(DATA / "short.jsonl")
GOING_OUT = str(DATA / "going_out.jsonl")
ILLEGAL = str(DATA / "illegal.jsonl")

HEADER = {
    "type": "game",
    "version": 1,
    "rules": {},
    "seed": 1,
    "scoring": "standard",
    "players": [{"player": 1, "name": "a", "kind": "human"}, {"player": 2, "name": "b", "kind": "ai"}],
    "first_player": 1,
}


def run(args: list[str]) -> Result:
    result = CliRunner().invoke(cli, ["analyze", *args])
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def analyze_json(args: list[str]) -> dict[str, Any]:
    result = run([*args, "--json"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.count("\n") == 1
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def turn(
    n: int, player: int, rack: str, table: list[str], played: str, after: list[str], **extra: Any
) -> str:
    line = {
        "type": "turn",
        "turn": n,
        "player": player,
        "opened": extra.pop("opened", True),
        "rack": rack.split(),
        "table": [s.split() for s in table],
        "played": played.split(),
        "drew": extra.pop("drew", None),
        "table_after": [s.split() for s in after],
        "pool": 70,
    }
    line.update(extra)
    return json.dumps(line)


def write_record(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join([json.dumps(HEADER), *lines]) + "\n")
    return str(path)


# --------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("objective", "missed", "could_open", "could_go_out", "label"),
    [
        (Objective.TILES, 0, False, False, Label.BEST),
        (Objective.TILES, 1, False, False, Label.INACCURACY),
        (Objective.TILES, 2, False, False, Label.MISTAKE),
        (Objective.TILES, 3, False, False, Label.MISTAKE),
        (Objective.TILES, 4, False, False, Label.BLUNDER),
        (Objective.TILES, 1, True, False, Label.BLUNDER),
        (Objective.TILES, 1, False, True, Label.BLUNDER),
        (Objective.POINTS, 9, False, False, Label.INACCURACY),
        (Objective.POINTS, 10, False, False, Label.MISTAKE),
        (Objective.POINTS, 24, False, False, Label.MISTAKE),
        (Objective.POINTS, 25, False, False, Label.BLUNDER),
    ],
)
def test_label_thresholds(
    objective: Objective, missed: int, could_open: bool, could_go_out: bool, label: Label
) -> None:
    assert label_for(objective, missed, could_open, could_go_out) is label


# --------------------------------------------------------------------------- whole records


def test_short_game_every_turn_judged() -> None:
    data = analyze_json([SHORT])
    turns = data["turns"]
    assert [t["turn"] for t in turns] == [1, 2, 3, 4, 5, 6, 7]
    assert [t["player"] for t in turns] == [1, 2, 1, 2, 1, 2, 1]
    assert [t["label"] for t in turns] == [
        "mistake",  # laid R10-13 only; with K13 B13 O13 the opening was 7 tiles
        "best",  # nothing could be played: drawing was right
        "best",
        "blunder",  # drew with O10-13 on the rack: a missed opening
        "best",
        "inaccuracy",  # opened with O11-13 and kept O10 back
        "best",
    ]
    assert [t["played_tiles"] for t in turns] == [4, 0, 3, 0, 0, 3, 3]
    assert [t["optimal_tiles"] for t in turns] == [7, 0, 3, 4, 0, 4, 3]
    assert turns[3]["reason"] == "missed opening"
    assert turns[0]["points_missed"] == 39 and turns[0]["played_points"] == 46
    # The better move is the whole table after the optimal move.
    better = turns[3]["better"]
    assert sorted(map(tuple, better["table"])) == sorted(
        [("R10", "R11", "R12", "R13"), ("K13", "B13", "O13"), ("O10", "O11", "O12", "O13")]
    )
    assert "better" not in turns[1]
    you, medium = data["summary"]
    assert (you["player"], you["name"], you["turns"]) == (1, "you", 4)
    assert (you["best"], you["inaccuracy"], you["mistake"], you["blunder"], you["illegal"]) == (3, 0, 1, 0, 0)
    assert you["tiles_missed"] == 3 and you["accuracy"] == round(100 * 10 / 13, 1)
    assert (medium["best"], medium["inaccuracy"], medium["blunder"], medium["tiles_missed"]) == (1, 1, 1, 5)


def test_missed_going_out_is_a_blunder_even_for_one_tile() -> None:
    turns = analyze_json([GOING_OUT])["turns"]
    first = turns[0]
    assert (first["played_tiles"], first["optimal_tiles"], first["tiles_missed"]) == (13, 14, 1)
    assert first["label"] == "blunder" and first["reason"] == "missed going out"
    assert turns[2]["label"] == "best"  # R13 laid: the rack is empty


def test_illegal_recorded_moves_are_reported() -> None:
    first, second = analyze_json([ILLEGAL])["turns"]
    assert first["label"] == "illegal" and first["legal"] is False
    assert [v["code"] for v in first["violations"]] == ["meld_below_threshold"]  # K1 K2 K3: 6 points
    assert first["optimal_tiles"] == 6  # K1 K2 K3 with R11 R12 R13 opens with 42
    # An illegal move counts as nothing played, here as in the summary: all 6 missed.
    assert first["tiles_missed"] == 6 and first["better"]["played"] == ["K1", "K2", "K3", "R11", "R12", "R13"]
    # Not opened, yet K4 went onto the table's run.
    assert [v["code"] for v in second["violations"]] == ["table_touched_before_opening"]
    summary = analyze_json([ILLEGAL])["summary"]
    assert [s["illegal"] for s in summary] == [1, 1]
    assert summary[0]["tiles_missed"] == 6  # an illegal move counts as nothing played


def test_player_option_keeps_one_players_turns() -> None:
    data = analyze_json([SHORT, "--player", "2"])
    assert [t["turn"] for t in data["turns"]] == [2, 4, 6]
    assert [s["player"] for s in data["summary"]] == [2]


def test_points_objective_labels_by_points_missed() -> None:
    turns = analyze_json([SHORT, "--objective", "points"])["turns"]
    by_turn = {t["turn"]: t["label"] for t in turns}
    assert by_turn[1] == "blunder"  # 39 points missed
    assert by_turn[6] == "mistake"  # O10 kept back: 10 points


def test_text_output_table_better_moves_and_summary() -> None:
    result = run([SHORT, "--no-color"])
    assert result.exit_code == 0 and result.stderr == ""
    out = result.stdout
    lines = out.splitlines()
    top = next(n for n, line in enumerate(lines) if line.startswith("turn"))
    assert lines[top].split() == ["turn", "player", "played", "optimal", "missed", "label"]
    first = lines[top + 1]
    assert first.split()[:2] == ["1", "1"] and "R10 R11 R12 R13" in first and first.endswith("mistake")
    assert "better: play K13 B13 R10 R11 R12 R13 O13" in lines[top + 2]
    blunder = lines.index(next(line for line in lines if line.endswith("blunder")))
    assert lines[blunder + 1].strip() == "missed opening"
    # Best turns get no better move.
    assert out.count("better:") == 3
    start = next(n for n, line in enumerate(lines) if line.startswith("Summary"))
    summary = {
        cells[0]: cells[1:]
        for cells in ([c.strip() for c in line.split("  ") if c.strip()] for line in lines[start:-1])
    }
    assert summary["Summary"] == ["1 you", "2 medium"]  # a column per player
    counted = (
        "turns",
        "best",
        "inaccuracy",
        "mistake",
        "blunder",
        "illegal",
        "tiles missed",
        "points missed",
    )
    assert [summary[k][1] for k in counted] == ["3", "1", "1", "0", "1", "0", "5", "56"]
    assert summary["accuracy"] == ["76.9%", "37.5%"]
    assert "\x1b[" not in out


def test_text_output_fits_80_columns(tmp_path: Path) -> None:
    """Four players, long moves and better moves: every line within 80 columns."""
    records = tmp_path / "records"
    played = CliRunner().invoke(
        cli,
        [
            "selfplay",
            "--games",
            "1",
            "--players",
            "4",
            "--ai",
            "hard,medium,easy,medium",
            "--seed",
            "5",
            "--record",
            str(records),
        ],
    )
    assert played.exit_code == 0, played.stderr
    (record,) = records.iterdir()
    # The same game again with names as long as the web takes (20 characters).
    first, *rest = record.read_text().splitlines()
    header = json.loads(first)
    for n, player in enumerate(header["players"]):
        player["name"] = f"Maximiliane Ottolin{n}"
    named = tmp_path / "named.jsonl"
    named.write_text("\n".join([json.dumps(header), *rest]) + "\n")
    for path in (record, named):
        for color in ("--no-color", "--color"):
            result = run([str(path), color])
            assert result.exit_code == 0
            lines = result.stdout.splitlines()
            # The file's path is one word that may not fit; everything else does.
            assert max(len(click.unstyle(line)) for line in lines if str(path) not in line) <= 80
            assert "better: play" in result.stdout  # the easy AI misses moves


def test_text_output_names_the_violations() -> None:
    result = run([ILLEGAL, "--no-color"])
    assert result.exit_code == 0
    assert "illegal: initial meld worth 6 points, needs at least 30" in result.stdout
    assert "illegal: table set 'K1 K2 K3' changed before opening" in result.stdout


def test_color_output_styles_labels() -> None:
    result = run([SHORT, "--color"])
    assert result.exit_code == 0
    assert "\x1b[" in result.stdout


def test_a_player_with_no_turn_has_no_accuracy(tmp_path: Path) -> None:
    """Player 1 played a turn, player 2 none yet: no percentage of nothing (it said 100.0%)."""
    path = write_record(tmp_path, turn(1, 1, "R9 K1", ["R10 R11 R12"], "R9", ["R9 R10 R11 R12"]))
    summary = {s["player"]: s for s in analyze_json([path])["summary"]}
    assert summary[1]["accuracy"] == 100.0 and summary[2]["turns"] == 0 and summary[2]["accuracy"] is None
    text = run([path]).stdout
    assert next(line for line in text.splitlines() if line.startswith("accuracy ")).split()[1:] == ["100.0%", "—"]


# --------------------------------------------------------------------------- record problems


def test_penalty_turn_is_not_judged_illegal(tmp_path: Path) -> None:
    # Timed out: the table restored, a penalty tile taken; nothing played though R9 fitted.
    path = write_record(tmp_path, turn(1, 1, "R9 K1", ["R10 R11 R12"], "", ["R10 R11 R12"], penalty=["B4"]))
    (only,) = analyze_json([path])["turns"]
    assert only["legal"] is True and only["label"] == "inaccuracy"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["{not json"], "line 2: not valid JSON"),
        ([turn(1, 1, "R9 X5", [], "", [])], "invalid tile 'X5' in 'rack' of record {path} line 2"),
        ([turn(1, 1, "R9", ["R1 R2"], "", ["R1 R2"])], "line 2: 'table' set 1 'R1 R2' is invalid"),
        ([turn(1, 1, "R9 R9 R9", [], "", [])], "line 2: too many copies of R9"),
        (['{"type": "move"}'], "line 2: 'type' is 'move'"),
        (['{"type": "turn", "turn": 1}'], "line 2: missing field"),
        # 'played' says O5 but the table gained R9: the record contradicts itself.
        ([turn(1, 1, "O5 R9", ["R10 R11 R12"], "O5", ["R9 R10 R11 R12"])], "line 2: 'table_after' is not"),
        ([turn(1, 1, "R9", [], "", []), turn(3, 2, "R9", [], "", [])], "line 3: turn 3 where turn 2"),
    ],
)
def test_bad_record_is_one_line_error(tmp_path: Path, lines: list[str], message: str) -> None:
    path = write_record(tmp_path, *lines)
    result = run([path])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and f"record {path}" in result.stderr
    assert message.format(path=path) in result.stderr
    assert result.stderr.count("\n") == 1


def test_record_without_header_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "headless.jsonl"
    path.write_text(turn(1, 1, "R9", [], "", []) + "\n")
    result = run([str(path)])
    assert result.exit_code == 1 and f"record {path} line 1" in result.stderr
    result = run([str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: cannot read record {tmp_path / 'nope.jsonl'}: no such file\n"


def test_unknown_player_is_refused() -> None:
    result = run([SHORT, "--player", "3"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == f"Error: record {SHORT} has players 1, 2: no player 3\n"


def test_usage_errors_exit_2() -> None:
    assert run([]).exit_code == 2
    assert run([SHORT, "--player", "0"]).exit_code == 2


def test_a_turn_the_timer_ended_counts_as_none_played() -> None:
    """The one-minute rule took the broken B6 B7 (an opponent's) back onto the rack and left
    K7 K8 J down: two tiles "played" against an optimum of one read as missed -1, "best"."""
    from solver.game.analysis import analyze_file

    analysis = analyze_file(str(DATA / "timed_out_60.jsonl"))
    timed_out = next(t for t in analysis.turns if t.turn.timed_out)
    assert (timed_out.played_tiles, timed_out.optimal_tiles) == (2, 1)
    assert (timed_out.tiles_missed, timed_out.points_missed, timed_out.label) == (1, 9, Label.INACCURACY)
    you = analysis.summary[0]
    assert (you.tiles_played, you.tiles_missed) == (6, 1)
    assert all(t.tiles_missed >= 0 for t in analysis.turns)
    shown = CliRunner().invoke(cli, ["analyze", str(DATA / "timed_out_60.jsonl")]).stdout
    assert "(an illegal move, or a turn the timer ended, counts as none played)" in shown  # the header says so
