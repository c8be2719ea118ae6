"""`rummikub hint`: three levels, from a nudge to the whole answer as steps."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.hint import hint
from solver.position import Position

POSITION = Position.from_strings("R5 B7 O7 K13", ["R4 J R6", "K1 K2 K3"])


def test_levels_reveal_more_and_more() -> None:
    one, two, three = (hint(POSITION, level).to_dict() for level in (1, 2, 3))
    assert one == {"level": 1, "tiles": 3, "points": 19}
    assert two["rack_tiles"] == ["B7", "R5", "O7"] and two["table_sets"] == ["R4 J R6"]
    assert "steps" not in two
    assert [s["action"] for s in three["steps"]] == ["retrieve", "lay"]
    assert three["tiles_moved"] == 1


def test_level_must_be_1_to_3() -> None:
    with pytest.raises(ValueError):
        hint(POSITION, 4)


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (1, "You can play 3 tiles (19 points).\n"),
        (2, "You can play 3 tiles (19 points).\nUse your B7 R5 O7.\nTable sets involved: R4 J R6.\n"),
    ],
)
def test_cli_text(level: int, expected: str) -> None:
    result = CliRunner().invoke(cli, ["hint", "puzzles/joker-retrieval.txt", "--level", str(level)])
    assert result.exit_code == 0 and result.stdout == expected


def test_cli_level_3_json_and_no_move() -> None:
    data = json.loads(CliRunner().invoke(cli, ["hint", "puzzles/split-run.txt", "--level", "3", "--json"]).stdout)
    assert data["tiles"] == 1 and data["tiles_moved"] == 0
    assert data["steps"][0]["action"] == "split"
    empty = CliRunner().invoke(cli, ["hint", "--rack", "-", "--level", "3"], input="R1\n")
    assert empty.stdout == "No move this turn: draw a tile.\n"
    bad = CliRunner().invoke(cli, ["hint", "puzzles/joker-retrieval.txt", "--level", "4"])
    assert bad.exit_code == 2
