"""Self-play statistics and the ``selfplay`` / ``odds`` commands (through click's CliRunner)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from cli.main import cli
from solver.errors import InputError, RulesError
from solver.executors import Workers
from solver.game.records import read_record
from solver.game.selfplay import (
    OddsSettings,
    Outcome,
    Settings,
    difference_interval,
    labels,
    mean_interval,
    opening_odds,
    parse_ais,
    run_games,
    seat_orders,
    summarize,
    wilson,
)
from solver.rules import RuleSet
from tests.interrupt import ctrl_c

SMALL = RuleSet(numbers=7)
FAST = ["--numbers", "7"]  # 58 tiles: games of a dozen turns


def run(args: list[Any]) -> Result:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def without_time(outcomes: list[Outcome]) -> list[dict[str, object]]:
    ordered = sorted(outcomes, key=lambda o: o.index)  # with jobs > 1 games are reported as they end
    return [{k: v for k, v in dataclasses.asdict(o).items() if k != "seconds"} for o in ordered]


# --------------------------------------------------------------------------- statistics


def test_wilson_interval_by_hand() -> None:
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    low, high = wilson(10, 10)
    assert round(low, 4) == 0.7225 and high == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_difference_interval_against_newcombes_worked_examples() -> None:
    """Newcombe (1998), "Interval estimation for the difference between independent
    proportions", Statistics in Medicine 17, table II, method 10."""
    assert [round(x, 4) for x in difference_interval(56, 70, 48, 80)] == [0.0524, 0.3339]
    assert [round(x, 4) for x in difference_interval(9, 10, 3, 10)] == [0.1705, 0.8090]


@pytest.mark.parametrize(("k1", "n1", "k2", "n2"), [(6, 7, 0, 5), (3, 3, 0, 9), (0, 4, 4, 4), (1, 2, 1, 2)])
def test_difference_interval_stays_within_plus_minus_one_and_holds_the_difference(
    k1: int, n1: int, k2: int, n2: int
) -> None:
    """The normal approximation gave +21.4 to +111.9 points for 3 of 4 against 1 of 12."""
    low, high = difference_interval(k1, n1, k2, n2)
    assert -1 <= low <= k1 / n1 - k2 / n2 <= high <= 1 and high - low > 0.2


def test_mean_interval() -> None:
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and low < 2.5 < high
    assert round(high - mean, 4) == round(1.959963984540054 * (1.6666666666666667 / 4) ** 0.5, 4)


def test_labels_number_repeated_ais() -> None:
    assert labels(["medium", "hard", "medium"]) == ["medium#1", "hard", "medium#2"]
    assert labels(["easy", "hard"]) == ["easy", "hard"]


def test_parse_ais() -> None:
    assert parse_ais("hard", 3) == ["hard"] * 3
    assert parse_ais("Hard, medium", 2) == ["hard", "medium"]
    with pytest.raises(RulesError, match="lists 2 AIs for 3 players"):
        parse_ais("hard,medium", 3)
    with pytest.raises(RulesError, match="unknown AI 'pro'"):
        parse_ais("pro,medium", 2)
    with pytest.raises(RulesError, match="an empty name between commas"):
        parse_ais("medium,,easy", 2)  # not read as two AIs


# --------------------------------------------------------------------------- series


def test_games_share_deals_in_groups_and_every_ai_takes_every_seat() -> None:
    settings = Settings(ais=("easy", "medium", "medium"), games=6, seed=2, rules=SMALL)
    assert settings.config(0).seed == settings.config(2).seed != settings.config(3).seed
    outcomes = list(run_games(settings))
    names = labels(settings.ais)
    assert [o.starter for o in outcomes] == [names[i % 3] for i in range(6)]
    for group in (outcomes[:3], outcomes[3:]):
        for seat in range(3):
            assert {o.seating[seat] for o in group} == set(names)


@pytest.mark.parametrize(
    "levels",
    [
        ("hard", "medium"),
        ("easy", "medium", "hard"),
        ("hard", "medium", "hard", "medium"),
        ("hard", "hard", "medium", "medium"),
    ],
)
def test_seat_orders_are_latin_squares_seating_the_levels_differently(levels: tuple[str, ...]) -> None:
    square = seat_orders(levels)
    n = len(levels)
    assert [row[0] for row in square] == list(range(n))  # game r of a group: AI r moves first
    for k in range(n):
        assert sorted(row[k] for row in square) == list(range(n))
    for row in square:
        assert sorted(row) == list(range(n))
    # hard, medium, hard, medium turned round by two would replay the same game.
    assert len({tuple(levels[i] for i in row) for row in square}) == n


def test_results_do_not_depend_on_jobs(tmp_path: Path) -> None:
    settings = Settings(ais=("easy", "medium"), games=4, seed=5, rules=SMALL)
    one = list(run_games(settings, Workers(jobs=1)))
    two = list(run_games(settings, Workers(jobs=2)))
    assert without_time(one) == without_time(two)
    again = list(run_games(settings, Workers(jobs=1)))
    assert without_time(one) == without_time(again)


def test_summary_fields() -> None:
    settings = Settings(ais=("medium", "medium"), games=4, seed=1, rules=SMALL)
    outcomes = list(run_games(settings))
    data = summarize(outcomes, settings, seconds=2.0).to_dict()
    assert data["games"] == 4 and set(data["wins"]) == {"medium#1", "medium#2"}
    assert sum(data["wins"].values()) + data["ties"] == 4
    assert data["games_per_second"] == 2.0
    row = data["per_ai"]["medium#1"]
    assert row["win_rate_95"][0] <= row["win_rate"] <= row["win_rate_95"][1]
    assert list(row["opened_by_turn"]) == ["1", "2", "3", "5", "10"]
    assert sorted(row["opened_by_turn"].values()) == list(row["opened_by_turn"].values())
    # Zero-sum standard scoring: the average points cancel out.
    assert abs(sum(v["average_points"] for v in data["per_ai"].values())) < 1e-6
    assert data["turns_per_game"] == sum(o.turns for o in outcomes) / 4
    joker = data["joker_value"]
    assert joker["with_joker"]["players"] + joker["without_joker"]["players"] == 8


def test_no_joker_in_the_game_gives_no_win_rate_of_nobody() -> None:
    data = json.loads(run(["selfplay", "--games", "1", "--jokers", "0", "--json", "--no-timing", *FAST]).stdout)
    assert data["joker_value"]["with_joker"] == {"players": 0, "wins": 0, "win_rate": None, "win_rate_95": None}


def test_records_are_written_per_game(tmp_path: Path) -> None:
    settings = Settings(
        ais=("easy", "medium"), games=3, seed=3, rules=SMALL, record_dir=str(tmp_path / "rec")
    )
    outcomes = list(run_games(settings))
    files = sorted((tmp_path / "rec").glob("*.jsonl"))
    assert [f.name for f in files] == ["game-00001.jsonl", "game-00002.jsonl", "game-00003.jsonl"]
    for outcome, path in zip(outcomes, files):
        record = read_record(path)
        assert tuple(p.name for p in record.header.players) == outcome.seating
        assert record.result is not None and len(record.turns) == outcome.turns
        assert record.header.players[record.header.first_player - 1].name == outcome.starter


# --------------------------------------------------------------------------- opening odds


def test_opening_odds_are_monotone_and_jokers_in_the_meld_only_help() -> None:
    data = opening_odds(OddsSettings(RuleSet(), deals=30, turns=4, seed=1))
    strict, loose = data["variants"]["no joker in meld"], data["variants"]["joker in meld"]
    for entry in (strict, loose):
        odds = [row["odds"] for row in entry["all"]["by_turn"]]
        assert odds == sorted(odds) and len(odds) == 4
        assert entry["with_joker"]["deals"] + entry["without_joker"]["deals"] == 30
    for a, b in zip(strict["all"]["by_turn"], loose["all"]["by_turn"]):
        assert b["odds"] >= a["odds"]
    # Without a joker dealt, the two variants ask the same question of the dealt rack (a joker
    # drawn later may tell them apart).
    assert strict["without_joker"]["by_turn"][0] == loose["without_joker"]["by_turn"][0]
    assert opening_odds(OddsSettings(RuleSet(), deals=30, turns=4, seed=1)) == data


# --------------------------------------------------------------------------- the commands


def test_selfplay_json() -> None:
    result = run(["selfplay", "--games", 4, "--ai", "easy,medium", "--seed", 1, "--json", *FAST])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["games"] == 4 and set(data["wins"]) == {"easy", "medium"}
    assert sum(data["wins"].values()) + data["ties"] == 4
    assert result.stdout.count("\n") == 1
    assert result.stderr == ""  # the progress bar goes to stderr, and only on a terminal


def test_selfplay_names_a_repeated_ai() -> None:
    result = run(["selfplay", "--games", 3, "--players", 3, "--ai", "medium,medium,easy", "--json", *FAST])
    assert result.exit_code == 0, result.stderr
    assert set(json.loads(result.stdout)["wins"]) == {"medium#1", "medium#2", "easy"}


def test_selfplay_text_and_records(tmp_path: Path) -> None:
    result = run(["selfplay", "--games", 2, "--ai", "medium", "--record", tmp_path / "r", *FAST])
    assert result.exit_code == 0, result.stderr
    assert (
        "win rate" in result.stdout and "95% interval" in result.stdout and "Turns per game" in result.stdout
    )
    assert "medium#1" in result.stdout and "games/s" in result.stdout
    assert len(list((tmp_path / "r").glob("game-*.jsonl"))) == 2


def test_selfplay_is_reproducible() -> None:
    args = ["selfplay", "--games", 2, "--seed", 9, "--json", *FAST]
    first, second = json.loads(run(args).stdout), json.loads(run(args).stdout)
    for data in (first, second):
        del data["seconds"], data["games_per_second"]
    assert first == second


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["--ai", "pro"], 1, "Error: unknown AI 'pro' in --ai"),
        (["--ai", "hard,medium,easy"], 1, "Error: --ai lists 3 AIs for 2 players"),
        (["--players", "5"], 2, "Invalid value for '--players'"),
        (["--games", "0"], 2, "Invalid value for '--games'"),
        (
            ["--players", "4", "--numbers", "3", "--copies", "1", "--jokers", "0"],
            1,
            "Error: 4 players × 14 tiles",
        ),
        (["--joker-each", "--players", "3"], 1, "Error: joker-each needs a joker per player"),
    ],
)
def test_selfplay_bad_input(args: list[str], status: int, message: str) -> None:
    result = run(["selfplay", "--games", "1", *args])
    assert result.exit_code == status
    assert result.stdout == ""
    assert message in result.stderr
    if status == 1:
        assert result.stderr.strip().count("\n") == 0


def test_odds_command() -> None:
    result = run(["odds", "--deals", 12, "--turns", 3, "--seed", 2, "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["deals"] == 12 and set(data["variants"]) == {"no joker in meld", "joker in meld"}
    text = run(["odds", "--deals", 12, "--turns", 3, "--seed", 2])
    assert text.exit_code == 0 and "joker in meld:" in text.stdout and "(12 deals)" in text.stdout
    assert max(len(line) for line in text.stdout.splitlines()) <= 80
    none = run(["odds", "--deals", 5, "--turns", 2, "--jokers", 0, "--json"])
    assert set(json.loads(none.stdout)["variants"]) == {"no joker in meld"}
    for option in (["--joker-rules", "free"], ["--no-joker-in-meld"]):  # would change nothing: not options
        refused = run(["odds", "--deals", 5, *option])
        assert refused.exit_code == 2 and f"No such option '{option[0]}'" in refused.stderr
    assert "joker-in-meld" not in run(["odds", "--help"]).stdout
    short = run(["odds", "--deals", 5, "--numbers", 5, "--colours", 2])
    assert short.exit_code == 1
    assert short.stderr == "Error: a 14-tile deal and --turns 10 need 23 tiles, these rules have only 22\n"


def test_report_counts_agree_and_the_joker_difference_is_in_percentage_points() -> None:
    result = run(["selfplay", "--games", "1", "--players", "2", "--ai", "medium,easy", "--seed", "1", *FAST])
    assert result.exit_code == 0
    assert result.stdout.startswith("1 game, 2 players, seed 1, standard scoring, ")
    many = run(["selfplay", "--games", "20", "--ai", "medium,easy", "--seed", "1", *FAST])
    line = many.stdout[many.stdout.index("Holding a joker:") :]  # its three lines
    assert " percentage points (95%: " in line and "points (95%" not in line.replace("percentage points", "")
    assert max(len(x) for x in many.stdout.splitlines()) <= 80


# --------------------------------------------------------------------------- resuming a series


def test_a_resumed_series_reads_back_the_games_recorded_and_plays_the_rest(tmp_path: Path) -> None:
    """An interrupted series with records goes on where it stopped: the games recorded are read
    back (replayed, checked to be those games), the others played, and the outcomes are the
    uninterrupted series' own; so are the records written."""
    folder = tmp_path / "records"
    settings = Settings(("easy", "medium"), 8, seed=4, rules=SMALL, record_dir=str(folder))
    whole = list(run_games(settings))
    written = {p.name: p.read_bytes() for p in folder.iterdir()}
    for name in ("game-00002.jsonl", "game-00005.jsonl", "game-00006.jsonl"):
        (folder / name).unlink()
    resumed = list(run_games(settings, resume=True))
    assert sum(o.resumed for o in resumed) == 5
    assert [{k: v for k, v in o.items() if k != "resumed"} for o in without_time(resumed)] == [
        {k: v for k, v in o.items() if k != "resumed"} for o in without_time(whole)
    ]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == written
    assert summarize(resumed, settings).to_dict() | {"resumed": 0} == summarize(whole, settings).to_dict() | {"resumed": 0}


def test_records_of_another_series_are_not_resumed(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    settings = Settings(("easy", "medium"), 2, seed=4, rules=SMALL, record_dir=str(folder))
    list(run_games(settings))
    for other, words in (
        (dataclasses.replace(settings, seed=5), "(another seed, rules or deal)"),
        (dataclasses.replace(settings, ais=("medium", "easy")), "(other AIs or seats)"),
    ):
        with pytest.raises(InputError) as refused:
            list(run_games(other, resume=True))
        assert str(refused.value) == (
            f"record {folder / 'game-00001.jsonl'} is not game 1 of this series {words}: give --record another folder"
        )
    unfinished = folder / "game-00002.jsonl"
    unfinished.write_text("\n".join(unfinished.read_text().splitlines()[:-1]) + "\n")  # its result line gone
    with pytest.raises(InputError, match="game 2 is not over"):
        list(run_games(settings, resume=True))


def test_records_already_there_are_never_overwritten_without_resume(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    settings = Settings(("easy", "medium"), 2, seed=4, rules=SMALL, record_dir=str(folder))
    list(run_games(settings))
    written = {p.name: p.read_bytes() for p in folder.iterdir()}
    for again in (settings, dataclasses.replace(settings, seed=5, games=3)):  # this series or another
        with pytest.raises(InputError) as refused:
            list(run_games(again))
        assert str(refused.value) == (
            f"record directory {folder} already holds game records (game-00001.jsonl …): --resume goes on"
            " with the series they are of, or give another folder"
        )
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == written


def test_a_series_resumed_whole_gives_no_speed(tmp_path: Path) -> None:
    """Every game read back: none was played now, so there is no games-per-second to report."""
    args = ["selfplay", "--games", "2", "--ai", "easy,medium", "--seed", "9", *FAST, "--record", str(tmp_path / "r")]
    assert run(args).exit_code == 0
    again = run([*args, "--resume"])
    assert again.exit_code == 0 and "Resumed: 2 of 2 games read back" in again.stderr
    assert "games/s" not in again.stdout.splitlines()[0] and "2 games, 2 players" in again.stdout
    data = json.loads(run([*args, "--resume", "--json"]).stdout)
    assert data["resumed"] == 2 and "games_per_second" not in data


def test_selfplay_stopped_by_ctrl_c_then_resumed_reports_the_whole_series(tmp_path: Path) -> None:
    """The person's way: Ctrl-C in the terminal, then the same command with --resume."""
    folder = tmp_path / "records"
    args = ["selfplay", "--games", "24", "--ai", "easy,medium", "--seed", "9", *FAST, "--record", str(folder), "--json"]
    stopped = ctrl_c(args, lambda: folder.exists() and len(list(folder.glob("game-*.jsonl"))) >= 3)  # whole records
    assert stopped.returncode == 130
    kept = len(list(folder.iterdir()))
    assert 3 <= kept < 24
    finished = run([*args, "--resume"])
    assert finished.exit_code == 0 and f"Resumed: {kept} of 24 games read back from {folder}." in finished.stderr
    whole = run([*args[:-3], "--record", str(tmp_path / "again"), "--json"])
    report, expected = json.loads(finished.stdout), json.loads(whole.stdout)
    assert report.pop("resumed") == kept
    for data in (report, expected):
        data.pop("seconds"), data.pop("games_per_second")
    assert report == expected
    assert run(["selfplay", "--games", "2", "--resume"]).stderr.endswith(
        "Error: --resume needs --record DIR (the records of the games already played)\n"
    )


def test_no_timing_makes_the_report_byte_identical() -> None:
    args = ["selfplay", "--games", "2", "--ai", "easy,medium", "--seed", "4", *FAST, "--json", "--no-timing"]
    first, second = run(args), run(args)
    assert first.exit_code == 0 and first.stdout == second.stdout
    assert "seconds" not in json.loads(first.stdout) and "games_per_second" not in json.loads(first.stdout)
    assert "games/s" not in run([*args[:-2], "--no-timing"]).stdout
