"""`rummikub arrange` and solver.arrange: repairing a table that somebody left in a mess."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.arrange import arrange
from solver.melds import is_valid
from solver.rules import RuleSet, Wrap
from solver.tiles import Tile, parse_token

RULES = RuleSet()


def lines(*texts: str) -> list[list[Tile]]:
    return [[t for tok in text.split() for t in parse_token(tok)] for text in texts]


def check_arrangement(given: list[list[Tile]], table: tuple[tuple[Tile, ...], ...], back: tuple[Tile, ...]) -> None:
    assert all(is_valid(s, RULES) for s in table)
    placed = Counter(t for s in table for t in s)
    assert placed + Counter(back) == Counter(t for line in given for t in line)  # nothing lost


def test_everything_fits_and_valid_lines_stay() -> None:
    given = lines("R1 R2 R3", "K5 B5 R5 O5", "B9 B10", "B11 B12")  # two broken halves of a run
    result = arrange(given, RULES)
    check_arrangement(given, result.table, result.take_back)
    assert result.take_back == ()
    assert result.kept_lines == (1, 2)
    assert [str(t) for t in max(result.table, key=len)] == ["B9", "B10", "B11", "B12"]


def test_fewest_tiles_taken_back() -> None:
    given = lines("R1 R2 R3", "B5 R5 K5", "O9")
    result = arrange(given, RULES)
    check_arrangement(given, result.table, result.take_back)
    assert [str(t) for t in result.take_back] == ["O9"]
    assert result.kept_lines == (1, 2)


def test_invalid_lines_are_rebuilt_with_jokers() -> None:
    given = lines("R1 R2 R3 R4", "B5 R5 K5 O5 R9", "K7 K8", "K9 J")
    result = arrange(given, RULES)
    check_arrangement(given, result.table, result.take_back)
    assert len(result.take_back) == 1  # R9 fits nowhere: R8 and R10 are missing, and no 9s
    assert result.kept_lines == (1,)


def test_cli_json_and_heap(tmp_path: Path) -> None:
    path = tmp_path / "mess.txt"
    path.write_text("R1 R2 R3\nB5 R5 K5\nO9\n")
    data = json.loads(CliRunner().invoke(cli, ["arrange", str(path), "--json", "--no-timing"]).stdout)
    assert data == {
        "status": "optimal",
        "table": [["R1", "R2", "R3"], ["K5", "B5", "R5"]],
        "kept_lines": [1, 2],
        "take_back": ["O9"],
    }
    heap = json.loads(CliRunner().invoke(cli, ["arrange", str(path), "--heap", "--json"]).stdout)
    assert heap["kept_lines"] == [] and heap["take_back"] == ["O9"]


def test_cli_errors(tmp_path: Path) -> None:
    path = tmp_path / "mess.txt"
    path.write_text("R1 R2 R3\nR1 R1\n")
    result = CliRunner().invoke(cli, ["arrange", str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: too many copies of R1: 3")
    usage = CliRunner().invoke(cli, ["arrange", str(path), "--backend", "cbc"])
    assert usage.exit_code == 2
    # A heap has no table jokers standing for a tile and no initial meld: those options would be
    # ignored, so arrange has none (and its --help offers none).
    path.write_text("B10 O10 R10 J\nK11 K12\n")
    for option in (["--joker-rules", "strict"], ["--joker-retrieval", "club"], ["--meld-threshold", "20"]):
        refused = CliRunner().invoke(cli, ["arrange", str(path), *option])
        assert refused.exit_code == 2 and f"No such option '{option[0]}'" in refused.stderr
    assert "--joker-rules" not in CliRunner().invoke(cli, ["arrange", "--help"]).stdout
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    warned = CliRunner().invoke(cli, ["arrange", str(empty)])
    assert warned.exit_code == 0 and warned.stderr == f"Warning: the table file {empty} holds no tiles; is it the right file?\n"


def test_cli_text_counts_agree(tmp_path: Path) -> None:
    path = tmp_path / "mess.txt"
    path.write_text("R1 R2 R3\n")
    result = CliRunner().invoke(cli, ["arrange", str(path), "--no-color"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == ["All 3 tiles fit in 1 valid set.", "Lines kept as they were: 1 of 1."]
    heap = CliRunner().invoke(cli, ["arrange", str(path), "--heap", "--no-color"])
    assert heap.exit_code == 0 and heap.stderr == ""
    assert heap.stdout.splitlines()[0] == "All 3 tiles fit in 1 valid set."
    assert "kept" not in heap.stdout  # a heap has no lines to keep


def test_nothing_fits_shows_no_empty_table(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("R1 R2\n")
    result = CliRunner().invoke(cli, ["arrange", str(tmp_path / "r.txt")])
    assert result.stdout == (
        "No arrangement holds all 2 tiles: take back 2 (the fewest possible).\n"
        "Lines kept as they were: 0 of 1.\n\nTake back: R1 R2\n"
    )


def test_an_arrangement_the_time_limit_cut_short_claims_nothing() -> None:
    from cli.render import render_arrangement
    from solver.arrange import Arrangement

    def shown(take_back: str, table: tuple[str, ...]) -> str:
        sets = tuple(tuple(Tile.parse(t) for t in s.split()) for s in table)
        back = tuple(Tile.parse(t) for t in take_back.split())
        return render_arrangement(Arrangement(sets, sets, (), back, optimal=False, seconds=0.0), color=False)

    assert shown("B1 B2", ("R1 R2 R3",)).startswith(
        "Time limit reached; best found, not proven the fewest to take back: take back 2\n    of 5 tiles.\n"
    )
    assert shown("R1 R2 R3", ()) == (  # and no take-back advice the search never found
        "Time limit reached before an arrangement was found (try a longer --time-limit)."
    )
    many = " ".join(f"{c}{n}" for c in "KBRO" for n in range(1, 14))
    assert max(len(line) for line in shown(many, ("R1 R2 R3",)).splitlines()) <= 80
    assert "fewest possible" not in shown("B1", ("R1 R2 R3",)) and "No arrangement holds" not in shown("B1", ())


def test_full_wrap_runs_on_the_set_model() -> None:
    rules = RuleSet(wrap=Wrap.FULL)
    given = [[Tile.parse(tok, rules) for tok in text.split()] for text in ("R12 R13 R1 R2", "B13 B1 B2", "O5 O6")]
    result = arrange(given, rules)
    assert all(is_valid(s, rules) for s in result.table)
    assert result.kept_lines == (1, 2)
    assert [str(t) for t in result.take_back] == ["O5", "O6"]


def test_the_set_model_agrees_with_the_flow_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where both can go, the set model (full wrap, many jokers) and the flow model reach the same
    tiles placed, points placed and lines kept."""
    rng = random.Random(5)
    pool = [Tile.parse(tok) for tok in ("J", "J", *(f"{c}{n}" for c in "RBKO" for n in range(1, 14) for _ in (1, 2)))]
    for _ in range(25):
        tiles = rng.sample(pool, rng.randint(4, 16))
        cut = sorted(rng.sample(range(1, len(tiles)), 2))
        given = [tiles[: cut[0]], tiles[cut[0] : cut[1]], tiles[cut[1] :]]
        flow = arrange(given, RULES)
        monkeypatch.setattr("solver.arrange.flow_supported", lambda rules: False)
        sets = arrange(given, RULES)
        monkeypatch.undo()
        check_arrangement(given, sets.table, sets.take_back)
        assert sets.optimal and flow.optimal
        assert Counter(sets.take_back) == Counter(flow.take_back) or (
            len(sets.take_back) == len(flow.take_back)
            and sum(t.number for t in sets.take_back) == sum(t.number for t in flow.take_back)
        )
        assert len(sets.kept_lines) == len(flow.kept_lines), given


def test_the_time_limit_holds_while_the_model_is_built() -> None:
    """Six jokers under full wrap make over 100,000 candidate sets: a limit that runs out while
    they are listed ends the arrangement there, unproven, every tile still to place."""
    rules = RuleSet(wrap=Wrap.FULL, jokers=6)
    pool = [Tile.parse(tok, rules) for tok in ("J",) * 6 + tuple(f"{c}{n}" for c in "RBKO" for n in range(1, 14))]
    result = arrange([pool], rules, time_limit=0.001, heap=True)
    assert not result.optimal and result.table == ()
    assert Counter(result.take_back) == Counter(pool)


def test_rules_allowing_more_jokers_than_the_tiles_hold_keep_the_flow_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Five jokers allowed, one among the tiles: the flow model arranges them (the set model grows
    about twice per joker); only the K9 has no set."""
    import importlib

    module = importlib.import_module("solver.arrange")
    used: list[int] = []
    flow = module.build_flow_model

    def spy(*args: object, **kwargs: object) -> object:
        used.append(1)
        return flow(*args, **kwargs)

    given = lines("R1 R2 J", "K5 B5 O5 R5", "R3 K9")
    many = RuleSet(jokers=5)
    monkeypatch.setattr(module, "build_flow_model", spy)
    answer = arrange(given, many)
    assert used and answer.take_back == tuple(lines("K9")[0])
    assert all(is_valid(s, many) for s in answer.table)
