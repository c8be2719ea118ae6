"""The JSON API in process: the CLI's JSON shapes, and every bad request a 4xx with one line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from cli.main import cli
from solver.files import position_from_record
from solver.tiles import parse_token
from solver.validator import validate
from tests.paths import ROOT

PUZZLES = ROOT / "puzzles"
BENCH = ROOT / "bench" / "positions"
JOKER_RETRIEVAL = {"rack": ["R5", "B7", "O7"], "table": [["R4", "J", "R6"], ["K1", "K2", "K3"]]}


def cli_json(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    return json.loads(result.stdout)


def without(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in keys}


def tiles(*sets: str) -> list[list[str]]:
    return [[str(t) for tok in s.split() for t in parse_token(tok)] for s in sets]


def error_of(response: Any, status: int) -> str:
    """A refusal: the status, a JSON body of exactly one line of error, no traceback."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["error"]
    message: str = body["error"]
    assert message and "\n" not in message and "Traceback" not in response.text
    return message


# --------------------------------------------------------------------------- the CLI's shapes


@pytest.mark.parametrize("name", ["joker-retrieval", "group-swap", "split-run", "initial-meld", "big-2"])
def test_solve_answers_as_solve_json_with_steps(client: TestClient, name: str) -> None:
    puzzle = client.get(f"/api/puzzles/{name}").json()
    record = {k: puzzle[k] for k in ("rack", "table", "initial_meld", "rules")}
    data = client.post("/api/solve", json={**record, "steps": True}).json()
    expected = cli_json("solve", str(PUZZLES / f"{name}.txt"), "--json", "--steps", "--no-timing")
    expected.pop("id", None)  # the request had no id
    assert without(data, "seconds", "from_rack", "steps") == without(expected, "steps")
    assert [without(s, "text", "after") for s in data["steps"]] == expected["steps"]
    # Each step's table, as it stands after it; the last one is the table after the move.
    if data["steps"]:
        last = data["steps"][-1]["after"]
        assert Counter(map(tuple, map(sorted, last["table"]))) == Counter(map(tuple, map(sorted, data["table"])))
        assert not last["aside"]
    # from_rack marks exactly the played tiles.
    marked = [t for s, flags in zip(data["table"], data["from_rack"]) for t, f in zip(s, flags) if f]
    assert Counter(marked) == Counter(data["played"])


def test_solve_takes_a_batch_line_as_it_is(client: TestClient) -> None:
    lines = (BENCH / "selfplay.jsonl").read_text().splitlines()[40:45]
    result = CliRunner().invoke(cli, ["batch", "-", "--no-timing"], input="\n".join(lines) + "\n")
    expected = [json.loads(line) for line in result.stdout.splitlines()]
    answers = [client.post("/api/solve", content=line, headers={"content-type": "application/json"}).json() for line in lines]
    assert [without(a, "seconds", "from_rack") for a in answers] == expected


def test_solve_objective_and_no_move(client: TestClient) -> None:
    points = client.post("/api/solve", json={"rack": "R1 R2 R3 K13 B13 O13", "objective": "points"}).json()
    assert points["objective"] == "points" and points["points_played"] == 45
    none = client.post("/api/solve", json={"rack": "K9", "table": ["R1-3"]}).json()
    assert none["status"] == "no_move" and none["table"] == [["R1", "R2", "R3"]] and "steps" not in none


def test_a_time_limited_answer_is_a_legal_move_and_says_so(client: TestClient) -> None:
    """Hard positions with a millisecond to search: each answer is legal; unproven ones say so."""
    noted = 0
    for line in (BENCH / "hard.jsonl").read_text().splitlines()[:12]:
        record = json.loads(line)
        data = client.post("/api/solve", json={**record, "time_limit": 0.001}).json()
        position = position_from_record(record, "hard")
        table = [[t for tok in s for t in parse_token(tok)] for s in data["table"]]
        assert validate(position, table) == []
        assert ("note" in data) == (data["status"] == "time_limit")
        if data["status"] == "time_limit":
            noted += 1
            assert "not proven optimal" in data["note"] and "0.001 s" in data["note"]
    assert noted, "no hard position hit a 1 ms limit: pick harder ones"


def test_a_time_limited_check_claims_no_optimum_it_did_not_prove(client: TestClient) -> None:
    """Hard positions, the answer "play nothing", a millisecond to search: where the search was
    stopped, the optimum is the best found (not proven), and the answer is not known optimal."""
    stopped = 0
    for line in (BENCH / "hard.jsonl").read_text().splitlines()[:12]:
        record = json.loads(line)
        data = client.post("/api/check", json={**record, "answer": record["table"], "time_limit": 0.001}).json()
        assert data["legal"] and data["proven"] is ("note" not in data)
        if not data["proven"]:
            stopped += 1
            assert "not proven optimal" in data["note"] and "0.001 s" in data["note"]
            assert data["optimal"] is (None if data["optimal_tiles"] == 0 else False)
    assert stopped, "no hard position hit a 1 ms limit: pick harder ones"


def test_check_answers_as_check_json_and_names_the_sets(client: TestClient, tmp_path: Path) -> None:
    for answer in (["R4 R5 R6", "B7 O7 J", "K1 K2 K3"], ["R4 J R6 R5", "K1 K2 K3"], ["R4 R5", "K1 K2 K3 O7", "B7 J R6"]):
        data = client.post("/api/check", json={**JOKER_RETRIEVAL, "answer": tiles(*answer)}).json()
        (tmp_path / "answer.txt").write_text("\n".join(answer) + "\n")
        expected = cli_json(
            "check", str(PUZZLES / "joker-retrieval.txt"), "--answer", str(tmp_path / "answer.txt"), "--json"
        )
        assert {**data, "violations": [without(v, "sets") for v in data["violations"]]} == expected
    # The last answer: every set is invalid, each marked as itself.
    assert [v["sets"] for v in data["violations"]] == [[0], [1], [2]]
    shown = client.post("/api/check", json={"puzzle": "joker-retrieval", "answer": [["R4", "R5", "R6"]], "show": True})
    assert shown.json()["best"]["tiles_played"] == 3 and shown.json()["legal"] is False


def test_check_accepts_answer_sets_in_notation(client: TestClient) -> None:
    data = client.post("/api/check", json={"puzzle": "split-run", "answer": ["B6-8", "B8-10", "K1-4"]}).json()
    assert data["optimal"] is True


@pytest.mark.parametrize("level", [1, 2, 3])
def test_hint_answers_as_hint_json(client: TestClient, level: int) -> None:
    data = client.post("/api/hint", json={"puzzle": "group-swap", "level": level}).json()
    expected = cli_json("hint", str(PUZZLES / "group-swap.txt"), "--level", str(level), "--json")
    if level == 3:
        assert [without(s, "text", "after") for s in data["steps"]] == expected["steps"]
        assert data["steps"][0]["text"].startswith("Swap O7 from your rack for R7")
        data, expected = without(data, "steps"), without(expected, "steps")
    assert data == expected


def test_puzzles_list_and_show_as_the_cli(client: TestClient) -> None:
    assert client.get("/api/puzzles").json() == cli_json("puzzles", "list", "--json")
    assert client.get("/api/puzzles?difficulty=3").json() == cli_json("puzzles", "list", "--difficulty", "3", "--json")
    shown = cli_json("puzzles", "show", "rebuild", "--json", "--answer")
    assert client.get("/api/puzzles/rebuild?answer=yes").json() == shown
    hidden = cli_json("puzzles", "show", "rebuild", "--json")  # no answer unless asked, in both
    assert hidden == without(shown, "answer")
    assert client.get("/api/puzzles/rebuild").json() == hidden
    assert client.get("/api/puzzles/rebuild?answer=no").json() == hidden


def test_a_generated_puzzle_by_its_id_as_the_cli_makes_it(client: TestClient) -> None:
    """gen-LEVEL-SEED names the puzzle `puzzles generate` makes from that seed: shown, checked,
    hinted and solved by its id like a bundled one (the trainer's "Make one")."""
    made = cli_json("puzzles", "generate", "--difficulty", "3", "--seed", "41", "--json", "--answer")
    assert made["id"] == "gen-3-41" and made["difficulty"] == 3
    assert client.get("/api/puzzles/gen-3-41?answer=yes").json() == made
    assert client.get("/api/puzzles/gen-3-41").json() == without(made, "answer")
    assert cli_json("puzzles", "show", "gen-3-41", "--json", "--answer") == made
    answer = made["answer"]
    report = client.post("/api/check", json={"puzzle": "gen-3-41", "answer": answer["table"]}).json()
    assert report["optimal"] and report["tiles_played"] == answer["tiles_played"]
    hint = client.post("/api/hint", json={"puzzle": "gen-3-41", "level": 1}).json()
    assert hint["tiles"] == answer["tiles_played"]
    # A bundled puzzle named like a generated one stays the bundled one.
    assert client.get("/api/puzzles/gen-4-105").json() == cli_json("puzzles", "show", "gen-4-105", "--json")


GEN_ID = "a generated puzzle's id is gen-LEVEL-SEED"


@pytest.mark.parametrize(
    ("puzzle_id", "expected"),
    [
        ("gen-7-5", f"no puzzle 'gen-7-5': {GEN_ID}"),
        ("gen-2-x", f"no puzzle 'gen-2-x': {GEN_ID}"),
        ("gen-1-1234567890123456789", f"no puzzle 'gen-1-1234567890123456789': {GEN_ID}"),
        # One puzzle, one id: the seed is written as `puzzles generate` writes it (gen-2-7).
        ("gen-2-007", f"no puzzle 'gen-2-007': {GEN_ID}"),
        ("gen-2--0", f"no puzzle 'gen-2--0': {GEN_ID}"),
        ("nope", "no puzzle 'nope': GET /api/puzzles lists them"),
    ],
)
def test_an_unknown_puzzle_id_is_a_short_404_saying_why(client: TestClient, puzzle_id: str, expected: str) -> None:
    """As the CLI says it for a gen- id; for any other, where the ids are (not all 85 of them)."""
    message = error_of(client.get(f"/api/puzzles/{puzzle_id}"), 404)
    assert message.startswith(expected) and len(message) <= 250
    assert error_of(client.post("/api/solve", json={"puzzle": puzzle_id}), 400) == message
    if puzzle_id.startswith("gen-"):
        assert CliRunner().invoke(cli, ["puzzles", "show", puzzle_id]).stderr == f"Error: {message}\n"


def test_a_score_sheet_kept_by_the_page_is_the_file_rummikub_score_keeps(client: TestClient, tmp_path: Path) -> None:
    """The docs' example (docs/commands.md) through the API: the same file, byte for byte, and
    `score show --json` for it; the sheet travels with every request, nothing stays on the server."""
    path = str(tmp_path / "game.json")
    runner = CliRunner()
    rounds = [
        ("new", {"players": ["Ann", "Bob", "Cy"], "scoring": "club"}, ["new", path, "--players", "Ann,Bob,Cy", "--scoring", "club"]),
        ("round", {"round": {"winner": "Ann", "racks": {"Bob": "R5 K12 J", "Cy": "23"}}},
         ["round", path, "--winner", "Ann", "--rack", "Bob=R5 K12 J", "--rack", "Cy=23"]),
        ("round", {"round": {"winner": None, "blocked": True, "racks": {"Ann": "R3 R4", "Bob": "R2 R3", "Cy": "O13"}, "never_opened": ["Cy"]}},
         ["round", path, "--blocked", "--rack", "Ann=R3 R4", "--rack", "Bob=R2 R3", "--rack", "Cy=O13", "--never-opened", "Cy"]),
        ("round", {"replace": 1, "round": {"winner": "Ann", "racks": {"Bob": "R5 K12 J", "Cy": 25}}},
         ["fix", path, "1", "--winner", "Ann", "--rack", "Bob=R5 K12 J", "--rack", "Cy=25"]),
    ]
    sheet = None
    for action, body, command in rounds:
        answer = client.post(f"/api/score/{action}", json=body if sheet is None else {"sheet": sheet, **body}).json()
        assert runner.invoke(cli, ["score", *command]).exit_code == 0
        assert answer["file"] == Path(path).read_text() and answer["sheet"] == json.loads(answer["file"])
        assert answer["results"] == cli_json("score", "show", path, "--json")
        sheet = answer["sheet"]
    assert client.post("/api/score/sheet", json={"sheet": sheet}).json()["results"]["totals"] == {"Ann": 140, "Bob": -15, "Cy": -125}


@pytest.mark.parametrize(
    ("action", "body", "message"),
    [
        ("new", {"players": "Ann"}, "players 'Ann': 1 player, a game has 2 to 6"),
        ("new", {"players": 7}, 'request: \'players\' must be the names in seat order, like ["Ann", "Bob"]'),
        ("new", {"players": "Ann,Bob", "joker_penalty": 40}, "joker penalty 40 is not one of 30, 50, 100"),
        ("new", {"players": "Ann,Bob", "scoring": "golf"}, "unknown scoring 'golf' (standard or club)"),
        ("new", {"players": "Ann,Bob", "colour": "red"}, "request: unknown field 'colour' (fields: joker_penalty, players, scoring)"),
        ("round", {"round": {}}, "request: missing field 'sheet' (the score file, as an object)"),
        ("round", {"sheet": "SHEET"}, "request: missing field 'round' (as the score file writes one)"),
        ("round", {"sheet": "SHEET", "round": {"winner": "Ann", "racks": {"Bob": "R2 R99"}}},
         "round 1: racks 'Bob=R2 R99': invalid tile 'R99': numbers run 1..13"),
        ("round", {"sheet": "SHEET", "round": {"winner": "Ann", "racks": {}}},
         "round 1: racks: missing for Bob (a round needs the rack of every player but the winner)"),
        ("round", {"sheet": "SHEET", "replace": 2, "round": {"winner": "Ann", "racks": {"Bob": "5"}}},
         "round 2 does not exist (the sheet has no rounds yet)"),
        ("sheet", {"sheet": {"format": "rummikub-score-sheet", "version": 2}},
         "score file in the request: format version 2 is not supported (this program reads 1)"),
        ("sheet", {"sheet": [1, 2]}, 'score file in the request is not a score sheet (expected a JSON object with "format": "rummikub-score-sheet")'),
    ],
)
def test_a_score_sheet_mistake_is_one_line(client: TestClient, action: str, body: dict[str, Any], message: str) -> None:
    sheet = client.post("/api/score/new", json={"players": "Ann,Bob"}).json()["sheet"]
    filled = {key: sheet if value == "SHEET" else value for key, value in body.items()}
    assert error_of(client.post(f"/api/score/{action}", json=filled), 400) == message


def test_position_from_a_record_and_from_an_uploaded_file(client: TestClient) -> None:
    text = (PUZZLES / "american-wrap.txt").read_bytes()
    uploaded = client.post("/api/position?name=american-wrap.txt", content=text, headers={"content-type": "text/plain"})
    assert uploaded.status_code == 200
    expected = position_from_record(uploaded.json(), "x").to_dict()
    assert uploaded.json() == expected and expected["rules"]["wrap"] == "american"
    assert client.post("/api/position", json={"rack": "r5 b7", "table": ["R4-6"]}).json()["table"] == [["R4", "R5", "R6"]]
    assert client.post("/api/tiles", json={"text": "R4-7 KBR7 j", "rules": {"colours": 5}}).json() == {
        "tiles": ["R4", "R5", "R6", "R7", "K7", "B7", "R7", "J"]
    }


def test_sets_are_judged_one_by_one_as_the_validator_judges_them(client: TestClient) -> None:
    table = [["K1", "K2"], "R4 J R6", "K7 B7 R7 O7 K7", "K1-3", []]
    answer = client.post("/api/sets", json={"sets": table})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "sets": [
            {"valid": False, "problem": "too short: 2 tiles, a set needs at least 3"},
            {"valid": True, "problem": None},
            {"valid": False, "problem": "colour repeats in a group (K7 twice)"},
            {"valid": True, "problem": None},
            {"valid": False, "problem": "too short: 0 tiles, a set needs at least 3"},
        ]
    }
    # Under the request's rules: a run of two is a set where the fewest tiles in a set is 2.
    two = client.post("/api/sets", json={"sets": ["K1 K2", "R13 R1 R2"], "rules": {"min-set-size": 2}}).json()
    assert [s["valid"] for s in two["sets"]] == [True, False]
    assert two["sets"][1]["problem"] == "runs may not wrap past 13 (rule wrap=none)"


def test_nothing_in_a_request_names_a_server_file(client: TestClient) -> None:
    """An upload's name only labels messages; a tile that looks like a path is a bad tile."""
    data = client.post(
        "/api/position?name=/etc/passwd", content=b"rack: R1 R99\n", headers={"content-type": "text/plain"}
    )
    assert error_of(data, 400) == "invalid tile 'R99' in rack in position file passwd line 1: numbers run 1..13"
    assert "invalid tile '/etc/passwd'" in error_of(client.post("/api/solve", json={"rack": "/etc/passwd"}), 400)
    assert error_of(client.post("/api/solve", json={"puzzle": "../README"}), 400).startswith("no puzzle '../README'")


def test_rules_say_every_option_and_the_server_bounds(client: TestClient) -> None:
    info = client.get("/api/rules").json()
    assert set(info["defaults"]) == set(cli_json("puzzles", "show", "rebuild", "--json")["rules"])
    assert info["bounds"]["jokers"] == [0, 4] and info["choices"]["wrap"] == ["none", "american", "full"]
    assert [c["name"] for c in info["colours"][:4]] == ["black", "blue", "red", "orange"]


# --------------------------------------------------------------------------- bad requests

TEN_MB = b"{" + b" " * (10 * 1024 * 1024) + b"}"

BAD_SOLVES = [
    (b'{"rack": ["R1"', 400, "request line 1: not valid JSON: it ends before the JSON does"),
    (b'{"rack": ["R1" 7]}', 400, "request line 1: not valid JSON: Expecting ',' delimiter at column 16"),
    (b'{"rack": "R1 R2 R3 R10", "rack": "K1"}', 400, "request: key 'rack' appears twice in one object"),
    (b"", 400, "request: empty body (expected a JSON object)"),
    (b"\xff\xfe{}", 400, "request: not UTF-8 text (bad byte at 0)"),
    (b"[" * 100_000 + b"]" * 100_000, 400, "request: not valid JSON: nested too deeply or too large a number"),
    (b'{"rack": "R1", "id": 1' + b"1" * 5000 + b"}", 400, "request: not valid JSON: nested too deeply or too large a number"),
    (b'["R1"]', 400, "request: expected a JSON object"),
    (b'{"rack": "R5 B7 O7", "table": ["R4 J R6"],\n "id": "\\ud800"}', 400,
     "request line 2: \\ud800 is half a character (a lone UTF-16 surrogate), not text"),
    (b'{"rack": "R14"}', 400, "invalid tile 'R14' in rack: numbers run 1..13"),
    (b'{"rack": "X5"}', 400, "invalid tile 'X5' in rack: unknown colour 'X' (colours are K B R O)"),
    (b'{"rack": [7]}', 400, 'rack: 7 is not a tile (tiles are strings like "R7")'),
    (b'{"rack": "R1", "table": ["R1 R2 R4"]}', 400,
     "invalid set 'R1 R2 R4' in table set 1: gap in run: R1 R2 R4 needs 1 tile in between, it has 0 jokers"),
    (b'{"rack": "R5 R5", "table": ["R5 R6 R7"]}', 400,
     "too many copies of R5: 3 (in rack, table set 1), the rules allow 2"),
    (b'{"rack": "J J J"}', 400, "too many jokers: 3 (in rack), the rules allow 2"),
    (b'{"table": []}', 400, "request: missing field 'rack'"),
    (b'{"rack": "R1", "foo": 1}', 400, "request: unknown field 'foo'"),
    (b'{"rack": "R1", "rules": {"numbers": 1000}}', 400, "invalid rule numbers=1000: this server takes 2..26 (larger games cost too much to solve)"),
    (b'{"rack": "R1", "rules": {"numbers": 40, "colours": 8}}', 400,
     "invalid rule numbers=40: this server takes 2..26 (larger games cost too much to solve)"),
    (b'{"rack": "R1", "rules": {"jokers": 8}}', 400, "invalid rule jokers=8: this server takes 0..4"),
    (b'{"rack": "R1", "rules": {"copies": 8}}', 400, "invalid rule copies=8: this server takes 1..4"),
    (b'{"rack": "R1", "rules": {"wrap": "sideways"}}', 400, "request: invalid rule wrap='sideways': must be none, american or full"),
    (b'{"rack": "R1", "rules": {"colour": 3}}', 400, "request: unknown rule 'colour'"),
    (b'{"rack": "R1", "rules": {"numbers": "9"}}', 400, 'request: invalid rule numbers="9": must be a whole number, such as 13'),
    (b'{"rack": "R1", "rules": {"joker-in-meld": "yes"}}', 400, 'request: invalid rule joker-in-meld="yes": must be true or false'),
    (b'{"rack": "R1", "objective": "fun"}', 400, "request: 'objective' must be tiles or points, got 'fun'"),
    (b'{"rack": "R1", "time_limit": -1}', 400, "request: 'time_limit' must be a number of seconds above 0, got -1"),
    (b'{"rack": "R1", "time_limit": "1"}', 400, "request: 'time_limit' must be a number of seconds above 0, got '1'"),
    (b'{"rack": "R1", "time_limit": true}', 400, "request: 'time_limit' must be a number of seconds above 0, got true"),
    (b'{"rack": "R1", "time_limit": Infinity}', 400, "request: 'time_limit' must be a number of seconds above 0, got Infinity"),
    (b'{"rack": "R1", "time_limit": NaN}', 400, "request: 'time_limit' must be a number of seconds above 0, got NaN"),
    (b'{"rack": "R1", "steps": "maybe"}', 400, "request: 'steps' must be true or false, got 'maybe'"),
    (b'{"rack": "R1", "steps": "yes"}', 400, "request: 'steps' must be true or false, got 'yes'"),  # as initial_meld
    (b'{"rack": "R1", "initial_meld": "yes"}', 400, "request: 'initial_meld' must be true or false, got \"yes\""),
    (b'{"puzzle": "split-run", "rack": "R1"}', 400, "request: give a 'puzzle' id or a position, not both"),
    (b'{"puzzle": 7}', 400, "request: 'puzzle' must be a puzzle id such as \"split-run\", got 7"),
    (b'{"puzzle": "nope"}', 400, "no puzzle 'nope': GET /api/puzzles lists them"),
    (TEN_MB, 413, "request body too large (over 262,144 bytes)"),
]


@pytest.mark.parametrize(("body", "status", "expected"), BAD_SOLVES, ids=[m[:40] for _, _, m in BAD_SOLVES])
def test_bad_solve_requests_are_refused_in_one_line(client: TestClient, body: bytes, status: int, expected: str) -> None:
    message = error_of(client.post("/api/solve", content=body, headers={"content-type": "application/json"}), status)
    assert message.startswith(expected)


def test_a_huge_body_without_a_length_is_cut_off(client: TestClient) -> None:
    def chunks() -> Any:
        for _ in range(40):
            yield b" " * (256 * 1024)

    assert error_of(client.post("/api/solve", content=chunks()), 413).startswith("request body too large")
    upload = client.post("/api/position", content=TEN_MB, headers={"content-type": "text/plain"})
    assert error_of(upload, 413).startswith("request body too large")


@pytest.mark.parametrize(
    ("path", "body", "status", "expected"),
    [
        ("/api/check", {"puzzle": "split-run"}, 400, "request: missing field 'answer'"),
        ("/api/check", {"puzzle": "split-run", "answer": "B8"}, 400, 'answer: expected a list of sets such as [["R4", "R5", "R6"]]'),
        ("/api/check", {"puzzle": "split-run", "answer": [["B8", "B88"]]}, 400, "invalid tile 'B88' in set 1 of answer: numbers run 1..13"),
        ("/api/check", {"puzzle": "split-run", "answer": [], "show": 3}, 400, "request: 'show' must be true or false, got 3"),
        ("/api/hint", {"puzzle": "split-run", "level": 4}, 400, "request: 'level' must be 1, 2 or 3, got 4"),
        ("/api/hint", {"puzzle": "split-run", "level": True}, 400, "request: 'level' must be 1, 2 or 3, got true"),
        ("/api/hint", {"puzzle": "split-run", "level": 2.0}, 400, "request: 'level' must be 1, 2 or 3, got 2.0"),
        ("/api/hint", {"puzzle": "split-run", "answer": []}, 400, "request: unknown field 'answer'"),
        ("/api/tiles", {"text": "R4-7 R0"}, 400, "invalid tile 'R0' in the typed tiles: numbers run 1..13"),
        ("/api/tiles", {"text": 5}, 400, "request: 'text' must be a string of tiles"),
        ("/api/tiles", {"text": "R1", "rules": []}, 400, "request: 'rules' must be an object"),
        ("/api/tiles", {"text": "G1", "rules": {"colours": 9}}, 400, "invalid rule colours=9: this server takes 1..8"),
        ("/api/sets", {"set": []}, 400, "request: unknown field 'set' (fields: rules, sets)"),
        ("/api/sets", {"rules": {}}, 400, "request: missing field 'sets'"),
        ("/api/sets", {"sets": "K1 K2"}, 400, 'sets: expected a list of sets such as [["R4", "R5", "R6"]]'),
        ("/api/sets", {"sets": [["K1"], "K2 X9"]}, 400, "invalid tile 'X9' in set 2 of sets"),
        ("/api/sets", {"sets": [["R1"] * 200], "rules": {"numbers": 6}}, 400, "request: more sets or tiles than a table of these rules holds"),
        ("/api/position", {"rack": "R1", "rules": {"jokers": 5}}, 400, "invalid rule jokers=5: this server takes 0..4"),
        # Past the library's own range too, one message: the server's bounds.
        ("/api/position", {"rack": "R1", "rules": {"jokers": 9}}, 400, "invalid rule jokers=9: this server takes 0..4 (larger"),
    ],
)
def test_bad_requests_to_every_endpoint(client: TestClient, path: str, body: Any, status: int, expected: str) -> None:
    assert error_of(client.post(path, json=body), status).startswith(expected)


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ({"copies": 0}, "invalid rule copies=0: this server takes 1..4"),
        ({"meld-threshold": -1}, "invalid rule meld-threshold=-1: this server takes 0..1000"),
        ({"numbers": 1}, "invalid rule numbers=1: this server takes 2..26"),
        ({"jokers": -1}, "invalid rule jokers=-1: this server takes 0..4"),
        ({"jokers": 5}, "invalid rule jokers=5: this server takes 0..4 (larger games cost too much to solve)"),
        ({"jokers": 9}, "invalid rule jokers=9: this server takes 0..4 (larger games cost too much to solve)"),
    ],
)
def test_a_rule_out_of_bounds_names_the_servers_bounds(client: TestClient, rules: Any, expected: str) -> None:
    """The same words from every endpoint, and the cost of a game said only of a value above the bounds."""
    for path in ("/api/solve", "/api/position"):
        assert error_of(client.post(path, json={"rack": "R1", "rules": rules}), 400) == expected
    assert error_of(client.post("/api/tiles", json={"text": "R1", "rules": rules}), 400) == expected
    (key, value), = rules.items()
    upload = client.post("/api/position?name=p.txt", content=f"rack: R1\nrules: {key}={value}\n".encode(), headers=TEXT)
    assert error_of(upload, 400) in (expected, f"position file p.txt line 2: {expected}")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/api/puzzles?level=2", "unknown parameter 'level' (parameters: difficulty)"),
        ("/api/puzzles?difficulty=2&difficulty=3", "parameter 'difficulty' is given twice"),
        ("/api/puzzles/split-run?bogus=1", "unknown parameter 'bogus' (parameters: answer)"),
        ("/api/puzzles/split-run?answer=yes&answer=no", "parameter 'answer' is given twice"),
        ("/api/rules?x=1", "unknown parameter 'x' (this endpoint takes none)"),
        ("/api/reviews/nope?objective=tiles&by=points", "unknown parameter 'by' (parameters: objective)"),
    ],
)
def test_an_unknown_or_repeated_query_parameter_is_refused(client: TestClient, path: str, expected: str) -> None:
    assert error_of(client.get(path), 400) == expected


def test_a_post_refuses_query_parameters_it_does_not_read(client: TestClient) -> None:
    assert error_of(client.post("/api/solve?steps=yes", json={"rack": "R1"}), 400) == (
        "unknown parameter 'steps' (this endpoint takes none)"
    )
    named = client.post("/api/position?name=p.txt", content=b"rack: R1\n", headers=TEXT)
    assert named.status_code == 200, named.text
    assert error_of(client.post("/api/tiles?name=x", json={"text": "R1"}), 400) == (
        "unknown parameter 'name' (this endpoint takes none)"
    )


def test_bad_uploads_and_queries(client: TestClient) -> None:
    binary = client.post("/api/position?name=p.png", content=b"\x89PNG\x00\x00", headers={"content-type": "image/png"})
    assert error_of(binary, 400) == "position file p.png is not a text file (binary data at column 5)"
    unknown_key = client.post("/api/position?name=p.txt", content=b"rack: R1\ncolour: red\n")
    assert error_of(unknown_key, 400).startswith("position file p.txt line 2: unknown key 'colour'")
    assert error_of(client.get("/api/puzzles?difficulty=9"), 400) == "difficulty must be 1, 2, 3, 4 or 5, got '9'"
    assert error_of(client.get("/api/puzzles/nope"), 404) == "no puzzle 'nope': GET /api/puzzles lists them"
    assert error_of(client.get("/api/puzzles/rebuild?answer=perhaps"), 400) == "request: 'answer' must be yes or no, got 'perhaps'"
    assert error_of(client.get("/api/solve"), 405) == "GET is not allowed on /api/solve"
    assert error_of(client.get("/nothing/here"), 404) == "no such page or endpoint: /nothing/here"
    # The path as given: a line break or tab in it (sent as %0a, %09) is named, not dropped.
    assert error_of(client.get("/a%0ab"), 404) == "no such page or endpoint: /a\\nb"
    assert error_of(client.get("/a%09b"), 404) == "no such page or endpoint: /a\\tb"


LONG = "x" * 200_000
CUT = "x" * 40 + "…"  # how a message quotes a long value: its start
TEXT = {"content-type": "text/plain"}


@pytest.mark.parametrize(
    ("path", "body", "expected"),
    [
        ("/api/solve", {"rack": "R5", LONG: 1}, f"request: unknown field '{CUT}' (fields: "),
        ("/api/solve", {"rack": "R5", "rules": {LONG: 1}}, f"request: unknown rule '{CUT}': known rules are "),
        ("/api/solve", {"rack": "R5", "rules": {"wrap": LONG}}, f"request: invalid rule wrap='{CUT}': must be none"),
        ("/api/solve", {"puzzle": LONG}, f"no puzzle '{CUT}': GET /api/puzzles lists them"),
        ("/api/score/new", {"players": [LONG, "B"]}, f"player '{CUT}': a name has at most 30 characters"),
        ("/api/score/new", {"players": ["A", "B"], "scoring": LONG}, f"unknown scoring '{CUT}' (standard or club)"),
        ("/api/score/round", {"round": {"winner": LONG, "racks": {"B": "R5"}}}, f"round 1: winner '{CUT}': unknown player"),
        ("/api/score/round", {"round": {"winner": "A", "racks": {"B": "R5 " * 60_000}}},
         "round 1: racks 'B=R5 R5 R5 R5 R5 R5 R5 R5 R5 R5 R5 R5 R5…': R5 is on the racks"),
        ("/api/position", f"{LONG}: 1\nrack: R5\n", f"position file upload line 1: unknown key '{CUT}' (keys: "),
        ("/api/position", f"rack: R5\nrules: wrap={LONG}\n", f"position file upload line 2: invalid rule wrap='{CUT}'"),
    ],
    ids=lambda value: str(value)[:30],
)
def test_a_long_value_is_quoted_short(client: TestClient, path: str, body: Any, expected: str) -> None:
    """A message quotes a person's value by its start (never 200 kB back), whoever worded it."""
    if isinstance(body, str):
        response = client.post(path, content=body.encode(), headers=TEXT)
    else:
        if path == "/api/score/round":
            body = {"sheet": client.post("/api/score/new", json={"players": ["A", "B"]}).json()["sheet"], **body}
        response = client.post(path, json=body)
    message = error_of(response, 400)
    assert message.startswith(expected) and len(message) <= 300


@pytest.mark.parametrize(
    ("path", "body", "expected"),
    [
        ("/api/solve", {"rack": "R5", "objective": "a\nb"}, "request: 'objective' must be tiles or points, got 'a\\nb'"),
        ("/api/solve", {"rack": "R5", "steps": "a\nb"}, "request: 'steps' must be true or false, got 'a\\nb'"),
        ("/api/solve", {"rack": "R5", "time_limit": "a\nb"}, "request: 'time_limit' must be a number of seconds above 0, got 'a\\nb'"),
        ("/api/solve", {"rack": "R5", "a\nb": 1}, "request: unknown field 'a\\nb'"),
        ("/api/check", {"rack": "R5", "answer": [], "show": "a\nb"}, "request: 'show' must be true or false, got 'a\\nb'"),
        ("/api/hint", {"rack": "R5", "level": "a\nb"}, "request: 'level' must be 1, 2 or 3, got 'a\\nb'"),
        ("/api/hint", {"rack": "R5", "level": ["a\u2028b"]}, "request: 'level' must be 1, 2 or 3, got [\"a\\u2028b\"]"),
        ("/api/puzzles/rebuild?answer=a%0Ab", None, "request: 'answer' must be yes or no, got 'a\\nb'"),
        ("/api/puzzles?difficulty=%0A", None, "difficulty must be 1, 2, 3, 4 or 5, got '\\n'"),
        ("/api/position?name=%0Aevil", "rack: R14\n", "invalid tile 'R14' in rack in position file \\nevil line 1"),
        ("/api/reviews?name=%0Aevil", "{}\n", "record \\nevil line 1: "),
    ],
    ids=lambda value: str(value)[:30],
)
def test_a_line_break_in_a_value_is_quoted_escaped(client: TestClient, path: str, body: Any, expected: str) -> None:
    if body is None:
        response = client.get(path)
    elif isinstance(body, str):
        response = client.post(path, content=body.encode(), headers=TEXT)
    else:
        response = client.post(path, json=body)
    assert error_of(response, 400).startswith(expected)  # error_of: on one line


def test_pages_and_assets_are_served_from_the_package(client: TestClient) -> None:
    for path in ("/", "/puzzles"):
        page = client.get(path)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        # Everything the page loads is the server's own: no other host, no inline script.
        assert "http://" not in page.text and "https://" not in page.text and "<script>" not in page.text
        assert page.headers["content-security-policy"].startswith("default-src 'self'")
    for asset in ("app.css", "tiles.js", "board.js", "views.js", "rules.js", "api.js", "analysis.js", "trainer.js", "icon.svg"):
        assert client.get(f"/static/{asset}").status_code == 200, asset


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
NAMES = st.sampled_from(["Ann", "Bob", "Cy", "ann", "Dee", "", "R5", 3, None])
ROUNDS = st.fixed_dictionaries(
    {"winner": NAMES, "racks": st.dictionaries(NAMES.filter(lambda n: isinstance(n, str)), st.text("RBKOJ0123456789 ,", max_size=12) | st.integers(-5, 500), max_size=4)},
    optional={"blocked": st.booleans() | JSON, "never_opened": st.lists(NAMES, max_size=3), "could_have_opened": st.lists(NAMES, max_size=3)},
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=JSON, round_=ROUNDS | JSON, replace=st.none() | st.integers(-1, 3) | JSON)
def test_a_score_request_is_answered_or_refused_in_one_line(client: TestClient, body: Any, round_: Any, replace: Any) -> None:
    """Whatever a client sends to the score sheet's endpoints: a sheet, or a one-line 400."""
    sheet = client.post("/api/score/new", json={"players": "Ann,Bob,Cy", "scoring": "club"}).json()["sheet"]
    requests = [("new", body), ("sheet", {"sheet": body}), ("round", {"sheet": sheet, "round": round_})]
    if replace is not None:
        requests.append(("round", {"sheet": sheet, "round": round_, "replace": replace}))
    for action, sent in requests:
        response = client.post(f"/api/score/{action}", json=sent)
        if response.status_code == 200:
            answer = response.json()
            assert set(answer) == {"sheet", "file", "results"} and json.loads(answer["file"]) == answer["sheet"]
        else:
            error_of(response, 400)
