"""Pictures: the SVG parses and holds one tile shape per tile shown."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from cli.main import cli
from solver.check import check_answer
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.solve import solve
from solver.svg import answer_svg, solution_svg
from solver.tiles import parse_token

SVG = "{http://www.w3.org/2000/svg}"


def tiles_in(picture: str) -> list[ET.Element]:
    root = ET.fromstring(picture)
    assert root.tag == f"{SVG}svg"
    groups = [g for g in root.iter(f"{SVG}g") if "tile" in g.get("class", "").split()]
    for g in groups:  # one tile shape each
        assert len(g.findall(f"{SVG}rect")) == 1
    return groups


def test_solution_picture_has_every_tile() -> None:
    position = Position.from_strings("R5 B7 O7 K13", ["R4 J R6", "K1 K2 K3"])
    answer = solve(position)
    groups = tiles_in(solution_svg(answer))
    before = len(position.rack) + sum(len(s) for s in position.table)
    after = sum(len(s.tiles) for s in answer.table)
    assert len(groups) == before + after
    # The three rack tiles played are highlighted on the table after the move.
    assert sum("rack" in g.get("class", "") for g in groups) == 3
    assert [g.find(f"{SVG}title").text for g in groups[:4]] == ["K13", "B7", "R5", "O7"]  # type: ignore[union-attr]


def test_checked_answer_marks_violations() -> None:
    position = Position.from_strings("R5 B7 O7", ["R4 J R6", "K1 K2 K3"])
    answer = [[t for tok in line.split() for t in parse_token(tok)] for line in ("R4 J R6 B7", "K1 K2 K3 O7")]
    report = check_answer(position, answer)
    picture = answer_svg(report)
    groups = tiles_in(picture)
    assert len(groups) == 3 + 8
    root = ET.fromstring(picture)
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "violation"]) == 2


def test_a_joker_rule_broken_frames_its_set_and_says_nothing_plays() -> None:
    """Under strict jokers R4 R5 R6 J takes the joker back into its own set: that set is framed,
    and with no legal move the footer says so (not "plays 0 tiles")."""
    position = Position.from_strings("R5 B7", ["R4 J R6", "K1 K2 K3"], rules=RuleSet(joker_rules=JokerRules.STRICT))
    answer = [[t for tok in line.split() for t in parse_token(tok)] for line in ("R4 R5 R6 J", "K1 K2 K3")]
    picture = answer_svg(check_answer(position, answer))
    root = ET.fromstring(picture)
    frames = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "violation"]
    assert len(frames) == 1 and frames[0].get("x") == "12"  # the first set, at the margin
    said = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "illegal: it plays nothing; no legal move plays a tile" in said
    assert max(len(line) for line in said) <= 92  # messages wrapped, not one wide line


def test_cli_writes_svg(tmp_path: Path) -> None:
    target = tmp_path / "answer.svg"
    result = CliRunner().invoke(cli, ["solve", "puzzles/group-swap.txt", "--svg", str(target)])
    assert result.exit_code == 0
    assert len(tiles_in(target.read_text())) == 2 + 6 + 8
    bad = CliRunner().invoke(cli, ["solve", "puzzles/group-swap.txt", "--svg", str(tmp_path / "no" / "x.svg")])
    assert bad.exit_code == 1 and bad.stderr.startswith("Error: cannot write picture")
