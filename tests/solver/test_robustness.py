"""Robustness of the commands: interrupts, determinism, size limits, time limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.file_io import MAX_INPUT_BYTES
from solver.files import position_from_record
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.solve import SolveOptions, solve
from solver.validator import validate
from tests.interrupt import ctrl_c
from tests.paths import ROOT

HARD = ROOT / "bench" / "positions" / "hard.jsonl"
SELFPLAY = ROOT / "bench" / "positions" / "selfplay.jsonl"


def hard_rows(count: int) -> list[str]:
    return HARD.read_text().splitlines()[:count]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_interrupted_batch_stops_cleanly_with_finished_answers_written(tmp_path: Path, jobs: str) -> None:
    batch = tmp_path / "many.jsonl"
    batch.write_text("\n".join(hard_rows(120) * 20) + "\n")
    out = tmp_path / "out.jsonl"
    with open(out, "wb") as sink:
        process = ctrl_c(["batch", str(batch), "--jobs", jobs], lambda: out.stat().st_size > 0, sink, settle=0.3)
    err = process.err
    assert process.returncode == 130
    assert b"Traceback" not in err
    assert err.decode().strip() == "Interrupted."
    lines = out.read_text().splitlines()
    assert 0 < len(lines) < 2400  # stopped early, after some answers
    for line in lines:  # every answer written is whole
        assert "tiles_played" in json.loads(line)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_interrupted_selfplay_reports_the_games_finished(tmp_path: Path, jobs: str) -> None:
    records = tmp_path / "games"
    process = ctrl_c(
        ["selfplay", "--games", "2000", "--ai", "easy,easy", "--numbers", "7", "--json",
         "--record", str(records), "--jobs", jobs],
        lambda: records.exists() and len(list(records.glob("game-*.jsonl"))) >= 3,  # whole records
    )
    out, err = process.out, process.err
    assert process.returncode == 130
    assert b"Traceback" not in err
    names = sorted(path.name for path in records.iterdir())
    assert all(name.startswith("game-") and name.endswith(".jsonl") for name in names)  # no half-written file
    summary = json.loads(out)
    # Every game whose record was on disk when Ctrl-C came is reported, save perhaps the one whose
    # record was being written; and a game is recorded before it is reported.
    assert 3 <= len(names) and len(names) - 1 <= summary["games"] <= len(names) and summary["games"] < 2000
    assert f"Interrupted after {summary['games']} of 2000 games." in err.decode()


def test_same_input_gives_byte_identical_output() -> None:
    runner = CliRunner()
    rows = "\n".join(SELFPLAY.read_text().splitlines()[:60]) + "\n"
    first = runner.invoke(cli, ["batch", "-", "--no-timing"], input=rows)
    second = runner.invoke(cli, ["batch", "-", "--no-timing", "--jobs", "2"], input=rows)
    assert first.exit_code == 0 and second.exit_code == 0
    assert first.stdout_bytes == second.stdout_bytes
    assert len(first.stdout.splitlines()) == 60


def test_ten_thousand_line_batch() -> None:
    cheap = [json.dumps({"rack": [], "table": [["R1", "R2", "R3"]]}), json.dumps({"rack": ["R7"]})]
    rows = "\n".join(cheap * 5000) + "\n"
    result = CliRunner().invoke(cli, ["batch", "-"], input=rows)
    assert result.exit_code == 0
    answers = result.stdout.splitlines()
    assert len(answers) == 10_000
    assert {json.loads(a)["status"] for a in answers} == {"no_move"}


def test_absurd_line_is_refused_and_the_rest_answered() -> None:
    huge = json.dumps({"rack": ["R1"] * (MAX_INPUT_BYTES // 5)})  # a line over the limit (~1.2 MB)
    rows = "\n".join([json.dumps({"rack": ["R1", "R2", "R3"], "opened": True}), huge, json.dumps({"rack": ["K5"]})]) + "\n"
    result = CliRunner().invoke(cli, ["batch", "-"], input=rows)
    assert result.exit_code == 1
    answers = [json.loads(a) for a in result.stdout.splitlines()]
    assert len(answers) == 3
    assert answers[0]["tiles_played"] == 3
    assert answers[1]["line"] == 2 and "too long" in answers[1]["error"]
    assert answers[2]["status"] == "no_move"


def test_five_hundred_tiles_in_a_rack_are_refused(tmp_path: Path) -> None:
    rack = tmp_path / "rack.txt"
    rack.write_text(" ".join(["R1"] * 500) + "\n")
    result = CliRunner().invoke(cli, ["solve", "--rack", str(rack)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: too many tiles: 500 (in rack file {rack}), the game has only 106")


def test_a_tight_time_limit_gives_a_valid_move_and_an_honest_status(backend: str) -> None:
    # Not a timing test: whatever the machine's speed, the answer must be legal and its status
    # must say whether it was proven (timing is measured by bench/bench.py).
    for line in hard_rows(6):
        position = position_from_record(json.loads(line), "hard")
        answer = solve(position, SolveOptions(backend=backend, time_limit=0.02))
        assert answer.status in ("optimal", "no_move", "time_limit")
        assert validate(position, [list(s.tiles) for s in answer.table]) == []
        if answer.status != "time_limit":
            assert answer.tiles_played == solve(position, SolveOptions(backend="bnb")).tiles_played


@pytest.mark.parametrize("mode", ["strict", "locked"])
@pytest.mark.parametrize("limit", [0.001, 0.02])
def test_a_time_limit_under_strict_and_locked_jokers(mode: str, limit: float) -> None:
    # The same promise under the joker rules, whose search has more steps (the free optimum, the
    # relaxation, its repairs, the exact model): a legal move, and "optimal" only when proven.
    for line in hard_rows(8):
        position = position_from_record(json.loads(line), "hard", {"joker-rules": mode})
        if not any(t.is_joker for s in position.table for t in s):
            continue
        answer = solve(position, SolveOptions(time_limit=limit))
        assert answer.status in ("optimal", "no_move", "time_limit")
        assert validate(position, [list(s.tiles) for s in answer.table]) == []
        if answer.status != "time_limit":
            best = solve(position)
            assert (answer.tiles_played, answer.points_played, answer.kept_sets) == (
                best.tiles_played,
                best.points_played,
                best.kept_sets,
            )


@pytest.mark.parametrize("limit", [0.01, 0.02, 0.03])
def test_cbc_stopped_while_it_reads_the_start_gives_a_move(limit: float) -> None:
    """The bundled CBC crashed (segmentation fault, "CBC failed", exit 3) when its time ran out
    while it was still reading the MIP start it is given: found on this position under locked
    jokers at 0.02 s, 5 runs in 5. Now that is a search stopped by the limit, and the move says so."""
    table = ["B1 B2 B3 B4", "K3 R3 J", "R2 R3 R4 R5 R6 R7", "K7 K8 K9 K10 K11 K12", "B5 B6 B7 B8 B9 B10",
             "K13 B13 R13 O13", "R11 R12 R13", "R4 R5 R6 R7 R8 R9"]
    for mode in (JokerRules.STRICT, JokerRules.LOCKED):
        position = Position.from_strings("O3 K7 O8 K9 B3 R1 O6 B8 B6 B12", table, rules=RuleSet(joker_rules=mode))
        answer = solve(position, SolveOptions(backend="cbc", time_limit=limit))
        assert answer.status in ("optimal", "no_move", "time_limit")
        assert validate(position, [list(s.tiles) for s in answer.table]) == []


def test_another_highs_user_in_the_same_process() -> None:
    """HiGHS has one global thread scheduler: another library's model started with other
    threads made every bnb solve fail ("HiGHS failed: status Not Set"). Now it is reset."""
    import highspy

    from solver.position import Position
    from solver.solve import solve

    highspy.Highs.resetGlobalScheduler(True)
    other = highspy.Highs()
    other.setOptionValue("output_flag", False)
    other.setOptionValue("threads", 2)
    other.addVar(0.0, 1.0)
    other.changeColCost(0, -1.0)
    other.run()
    for backend in ("bnb", "highs"):
        answer = solve(Position.from_strings("R7 B7 O7 K2", ["R4 R5 R6", "K3 K4 K5"]), SolveOptions(backend=backend))
        assert answer.tiles_played == 4
        highspy.Highs.resetGlobalScheduler(True)
        other.run()  # the other user carries on too


@pytest.mark.parametrize(("field", "value"), [("backend", "nope"), ("formulation", "columns")])
def test_solve_options_name_their_own_bad_field(field: str, value: str) -> None:
    # A typo is bad input (RulesError), not a backend that failed (BackendError).
    from solver.errors import RulesError
    from solver.solve import SolveOptions

    with pytest.raises(RulesError, match=f"unknown {field} '{value}'"):
        SolveOptions(**{field: value})
