"""Games and reviews through the JSON API, in process: a game played to its end as ``play`` plays it
(its record readable by ``analyze``), the timer's penalties, a match, what a page may see, a game
that outlives its server, reviews judged turn by turn as ``analyze`` judges them, and every bad
request a 4xx with one line."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from cli.main import cli
from solver.game.records import parse_record
from solver.game.replay import replay
from solver.rules import RuleSet
from tests.web.moves import easy_move
from tests.web.test_api import error_of
from web.app import create_app
from web.limits import Limits
from web.store import Store

# A short game that ends: 2 players, numbers 1-6, no meld threshold, 6 tiles each; with seed 131 a
# person playing as the easy AI goes out on turn 21, the easy AI having laid tiles three times.
# (Tests check that such a game ends, not how: a change in the engine may change the game.)
SHORT_RULES = {"numbers": 6, "meld-threshold": 0}
SHORT = {"seats": [{"kind": "person"}, {"kind": "ai", "level": "easy"}], "rules": SHORT_RULES, "rack_size": 6, "seed": 131}


def new_game(client: TestClient, **changes: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={**SHORT, **changes})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def act(client: TestClient, game: dict[str, Any], action: str, body: Any = None) -> dict[str, Any]:
    response = client.post(f"/api/games/{game['id']}/{action}", json=body if body is not None else {})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def ais_move(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    while not game["over"] and game["players"][game["to_move"] - 1]["kind"] == "ai":
        game = act(client, game, "ai")
    return game


def easy_commands(game: dict[str, Any], rules: RuleSet) -> list[dict[str, Any]] | None:
    """The easy AI's move for the person's turn, as the page's manipulations (None: draw)."""
    editing = game["editing"]
    opened = game["players"][game["you"] - 1]["opened"]
    move = easy_move(editing["rack"], editing["table"], opened, rules)
    if move is None:
        return None
    commands: list[dict[str, Any]] = [{"do": "add", "set": i, "tiles": list(tiles)} for i, tiles in move.added]
    return commands + [{"do": "lay", "tiles": list(s)} for s in move.laid]


def play_out(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    """Play the person's turns like the easy AI until the round ends."""
    rules = RuleSet.from_options(game["settings"]["rules"])
    game = ais_move(client, game)
    while not game["over"]:
        commands = easy_commands(game, rules)
        if commands is None:
            game = act(client, game, "draw")
        else:
            game = act(client, game, "edit", {"commands": commands})
            game = act(client, game, "done")
            assert "refused" not in game, game["refused"]
        game = ais_move(client, game)
    return game


def tile_strings(data: Any) -> list[str]:
    """Every string in a JSON value that reads as a tile."""
    if isinstance(data, str):
        return [data] if data == "J" or (len(data) in (2, 3) and data[0] in "KBRO" and data[1:].isdigit()) else []
    if isinstance(data, dict):
        return [t for key, value in data.items() if key != "id" for t in tile_strings(value)]
    if isinstance(data, list):
        return [t for value in data for t in tile_strings(value)]
    return []


# --------------------------------------------------------------------------- a game


def test_a_short_game_played_to_its_end_and_its_record_read_by_analyze(client: TestClient, tmp_path: Path) -> None:
    game = new_game(client)
    assert game["settings"]["seed"] == 131 and [p["name"] for p in game["players"]] == ["you", "easy"]
    assert game["round"] == 1 and game["pool"] == 50 - 12
    # No record while the round is played: it would show every rack.
    assert "still being played" in error_of(client.get(f"/api/games/{game['id']}/rounds/1/record"), 409)
    game = play_out(client, game)
    assert game["over"] and len(game["log"]) < 40 and game["match"]["over"]
    winner = game["result"]["winner"]
    assert game["match"]["standings"] == ([winner, 3 - winner] if winner else game["match"]["standings"])

    response = client.get(f"/api/games/{game['id']}/rounds/1/record")
    assert response.status_code == 200 and "attachment" in response.headers["content-disposition"]
    record = parse_record(response.text)
    assert [p.kind for p in record.header.players] == ["human", "ai"] and record.result is not None
    assert list(record.result.scores) == game["result"]["scores"]
    assert replay(record).result() == record.result  # the record is the game
    path = tmp_path / "game.jsonl"
    path.write_text(response.text)
    analysed = CliRunner().invoke(cli, ["analyze", str(path), "--json"])
    assert analysed.exit_code == 0, analysed.output
    assert len(json.loads(analysed.stdout)["turns"]) == len(record.turns)


def test_the_turn_editor_through_the_api(client: TestClient) -> None:
    game = ais_move(client, new_game(client))
    rack, table = game["editing"]["rack"], game["editing"]["table"]
    n = len(table)
    game = act(client, game, "edit", {"commands": [{"do": "lay", "tiles": [rack[0]]}]})
    assert game["editing"]["table"] == [*table, [rack[0]]] and game["editing"]["laid"][n] == [True]
    refused = act(client, game, "done")
    problems = refused["refused"]
    # "sets" counts from 0, as requests do; the message from 1, as the board's labels do.
    message = f"set {n + 1} ({rack[0]}) is not valid: too short: 1 tile, a set needs at least 3"
    assert problems[0] == {"message": message, "sets": [n]}
    assert refused["turn"] == game["turn"]  # refused: the turn goes on
    game = act(client, game, "undo")
    assert game["editing"]["table"] == table and game["editing"]["can_redo"]
    game = act(client, game, "redo")
    assert game["editing"]["table"] == [*table, [rack[0]]]
    game = act(client, game, "reset")
    assert game["editing"]["table"] == table and game["editing"]["can_undo"]
    # A manipulation the editor refuses is a 409 with its words; nothing changes.
    response = client.post(f"/api/games/{game['id']}/edit", json={"commands": [{"do": "take", "set": 9, "tiles": ["R1"]}]})
    shown = f"sets are numbered 0 to {n - 1}" if n else "the table is empty"
    assert error_of(response, 409) == f"there is no set 9: {shown}"
    drew = act(client, game, "draw")
    assert drew["log"][-1]["player"] == 1 and isinstance(drew["log"][-1]["drew"], str)  # your own draw, named
    assert drew["notice"].startswith("You drew ")


def test_dones_problems_name_the_pages_areas(client: TestClient) -> None:
    """The editor's workspace is the page's "Taken off the table", and its 'back' a drag to the
    rack: Done's problems say it so."""
    game = ais_move(client, new_game(client))
    rack = game["editing"]["rack"]
    n = len(game["editing"]["table"])
    game = act(client, game, "edit", {"commands": [{"do": "lay", "tiles": [rack[0]]}, {"do": "take", "set": n, "tiles": [rack[0]]}]})
    problems = [p["message"] for p in act(client, game, "done")["refused"]]
    assert problems[0] == (
        f"taken off the table and not in a set yet: {rack[0]}; place every tile in a set (or put your own back on your rack)"
    )
    assert not any("workspace" in p or "'back'" in p for p in problems), problems


def test_on_one_screen_a_notice_is_told_to_its_own_person_only(client: TestClient) -> None:
    """Two persons at one screen: the answer to a draw shows the next person, who must not read
    which tile the other drew."""
    game = new_game(client, seats=[{"kind": "person"}, {"kind": "person"}])
    mover = game["to_move"]
    drawn = act(client, game, "draw")
    assert drawn["you"] == 3 - mover and drawn["log"][-1]["drew"] is True
    assert drawn["notice"] == ""
    assert client.get(f"/api/games/{game['id']}").json()["notice"] == ""  # nor later


def test_an_edit_refused_names_the_sets_as_the_request_numbers_them(client: TestClient) -> None:
    """Sets are numbered from 0 in a request, so in the editor's refusals too (it words them from 1
    for the terminal)."""
    game = ais_move(client, new_game(client))
    rack = game["editing"]["rack"]
    other = next(t for t in rack if t != rack[0])
    game = act(client, game, "edit", {"commands": [{"do": "lay", "tiles": [rack[0]]}, {"do": "lay", "tiles": [other]}]})
    n = len(game["editing"]["table"]) - 2  # the two sets just laid: n and n + 1
    refusals = [
        ({"do": "move", "set": n, "tiles": [rack[0]], "to": n + 5}, f"there is no set {n + 5}: sets are numbered 0 to {n + 1}"),
        ({"do": "move", "set": n, "tiles": [rack[0]], "to": n}, f"set {n} is both where the tiles come from and where they go"),
        ({"do": "take", "set": n, "tiles": [other]}, f"{other} not in set {n} ({rack[0]})"),
        ({"do": "split", "set": n + 1, "tiles": [other]}, f"{other} starts set {n + 1} ({other}): nothing to split off"),
    ]
    for command, message in refusals:
        response = client.post(f"/api/games/{game['id']}/edit", json={"commands": [command]})
        assert error_of(response, 409) == message
    game = act(client, game, "edit", {"commands": [{"do": "move", "set": n, "tiles": [rack[0]], "to": n + 1}]})
    response = client.post(f"/api/games/{game['id']}/edit", json={"commands": [{"do": "take", "set": n, "tiles": [rack[0]]}]})
    assert error_of(response, 409).startswith(f"set {n} is empty now")


def test_an_ai_turn_is_shown_with_the_sets_it_changed_and_its_steps(client: TestClient) -> None:
    game = ais_move(client, new_game(client))
    assert error_of(client.post(f"/api/games/{game['id']}/ai"), 409) == "a person moves now (you), not an AI"
    rules = RuleSet.from_options(game["settings"]["rules"])
    while True:  # play until the AI lays tiles
        commands = easy_commands(game, rules)
        if commands is None:
            game = act(client, game, "draw")
        else:
            game = act(client, act(client, game, "edit", {"commands": commands}), "done")
        game = ais_move(client, game)
        laid = [t for t in game["since"] if t["played"]]
        if laid or game["over"]:
            break
    [turn] = laid
    assert turn["player"] == 2 and turn["drew"] is False
    before = Counter(tuple(sorted(s)) for s in turn["table_before"])
    expected = [i for i, s in enumerate(turn["table_after"]) if not before[tuple(sorted(s))]]
    assert turn["changed"] == expected and expected
    marked = [t for s, flags in zip(turn["table_after"], turn["from_rack"]) for t, f in zip(s, flags) if f]
    assert Counter(marked) == Counter(turn["played"])
    assert game["changed"] == expected  # framed on the person's board too
    steps = client.get(f"/api/games/{game['id']}/turns/{turn['turn']}/steps").json()
    assert steps["steps"] and all(s["action"] in ("lay", "add") for s in steps["steps"])  # easy never rearranges
    # The AI's tiles come from its rack, not the viewer's (a step text said "from your rack").
    assert all("your rack" not in s["text"] for s in steps["steps"])
    assert Counter(map(tuple, map(sorted, steps["steps"][-1]["after"]["table"]))) == Counter(
        map(tuple, map(sorted, turn["table_after"]))
    )
    assert error_of(client.get(f"/api/games/{game['id']}/turns/99/steps"), 404).startswith("no turn 99")


def test_a_page_sees_no_opponent_tile_and_no_pool_tile(client: TestClient) -> None:
    game = new_game(client, seats=[{"kind": "person"}, {"kind": "ai", "level": "medium"}, {"kind": "ai", "level": "hard"}], rules={}, rack_size=14)
    game = ais_move(client, game)
    for _ in range(4):  # a few turns: draws and plays on every side
        game = ais_move(client, act(client, game, "draw"))
    session = client.app.state.sessions.live[game["id"]]  # type: ignore[attr-defined]
    server = session.game
    public = {str(t) for s in server.table for t in s} | {str(t) for r in server.history for s in r.table_after for t in s}
    mine = {str(t) for t in server.racks[0]}
    hidden = {str(t) for seat in (1, 2) for t in server.racks[seat]} | {str(t) for t in server._pool}
    secret = hidden - public - mine
    assert len(secret) > 10  # the test would see a leak
    for data in (game, client.get(f"/api/games/{game['id']}").json()):
        seen = set(tile_strings(data))
        assert seen <= public | mine, seen - public - mine
        assert not seen & secret
        assert [p["rack"] for p in data["players"]] == [len(r) for r in server.racks]  # counts only
        assert data["pool"] == server.pool_size
    text = json.dumps(game)
    assert '"racks"' not in text and "_pool" not in text


def test_persons_sharing_a_screen_each_see_their_own_rack_only(client: TestClient) -> None:
    game = new_game(client, seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "ai", "level": "easy"}], rules={}, rack_size=14)
    assert [p["name"] for p in game["players"]] == ["player 1", "player 2", "easy"]
    session = client.app.state.sessions.live[game["id"]]  # type: ignore[attr-defined]
    seen = set()
    for _ in range(4):
        game = ais_move(client, game)
        me = game["to_move"]
        assert game["you"] == me and game["rack"] == [str(t) for t in session.game.racks[me - 1]]
        seen.add(me)
        game = act(client, game, "draw")
        next_one = game["players"][game["to_move"] - 1]
        # The next person takes the screen; while the AI moves, it is still the last person's.
        assert game["you"] == (next_one["player"] if next_one["kind"] == "person" else me)
    assert seen == {1, 2}


def test_persons_on_their_own_devices_each_see_and_move_their_own_seat(client: TestClient) -> None:
    """With "devices", each person's seat has a secret key (handed once, to whoever starts the
    game): a request names its seat, sees that rack only, and only the seat to move acts."""
    seats = [{"kind": "person", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "person", "name": "Bob"}]
    game = new_game(client, seats=seats, rules={}, rack_size=14, devices=True)
    links = game["seat_links"]
    assert [(x["player"], x["name"]) for x in links] == [(1, "Ann"), (3, "Bob")]
    keys = {x["player"]: x["seat"] for x in links}
    assert game["you"] == 1 and game["seat"] == keys[1] and keys[1] != keys[3] and len(keys[1]) >= 16
    session = client.app.state.sessions.live[game["id"]]  # type: ignore[attr-defined]
    url = f"/api/games/{game['id']}"

    def as_seat(player: int, action: str = "", body: Any = None) -> Any:
        path = f"{url}/{action}?seat={keys[player]}" if action else f"{url}?seat={keys[player]}"
        return client.post(path, json=body or {}) if action else client.get(path)

    for player in (1, 3):
        view = as_seat(player).json()
        assert view["you"] == player and view["rack"] == [str(t) for t in session.game.racks[player - 1]]
        assert "seat_links" not in view and keys[3] not in json.dumps(view)  # a view never tells keys
    names = {1: "Ann", 3: "Bob"}
    while as_seat(1).json()["to_move"] == 2:
        assert as_seat(3, "ai").status_code == 200  # any seat may ask for the AI's turn
    mover = as_seat(1).json()["to_move"]
    other = 4 - mover  # the other person: 1 or 3
    assert as_seat(other).json()["editing"] is None  # the turn in progress is the mover's alone
    assert as_seat(mover).json()["editing"]["rack"] == as_seat(mover).json()["rack"]
    refusal = f"it is {names[mover]}'s turn, not yours"
    assert error_of(as_seat(other, "draw"), 409) == refusal
    assert error_of(as_seat(other, "hint", {"level": 1}), 409) == refusal
    assert error_of(as_seat(other, "edit", {"commands": []}), 409) == refusal
    drawn = as_seat(mover, "draw").json()
    assert drawn["notice"].startswith("You drew ") and drawn["to_move"] == mover % 3 + 1
    assert as_seat(other).json()["notice"] == ""  # told to the one who drew only
    while as_seat(1).json()["to_move"] == 2:
        as_seat(mover, "ai")
    assert as_seat(other).json()["editing"] is not None and as_seat(mover).json()["editing"] is None
    # Without a key, or with another game's, nothing is shown or done.
    for response in (client.get(url), client.post(f"{url}/draw", json={}), client.post(f"{url}/ai", json={})):
        assert error_of(response, 403) == "this game is played on several devices: open it with your own seat's link"
    other = new_game(client, seats=seats, devices=True)["seat_links"][0]["seat"]
    assert error_of(client.get(f"{url}?seat={other}"), 403) == (
        "this seat link is not one of this game's: ask for your own seat's link"
    )
    assert error_of(client.get(f"{url}/rounds/1/record"), 403).startswith("this game is played on several devices")
    # One screen, as before: no keys at all.
    shared = new_game(client, seats=seats, rules={})
    assert "seat_links" not in shared and client.get(f"/api/games/{shared['id']}").status_code == 200


def test_on_several_devices_a_turn_out_of_time_ends_when_any_seat_looks(client: TestClient) -> None:
    """The mover's page may be closed: the next request from any seat takes the penalty."""
    game = new_game(client, seats=[{"kind": "person"}, {"kind": "person"}], turn_time=40, devices=True)
    keys = {x["player"]: x["seat"] for x in game["seat_links"]}
    mover = game["to_move"]
    session = client.app.state.sessions.live[game["id"]]  # type: ignore[attr-defined]
    session.started -= 41
    seen = client.get(f"/api/games/{game['id']}?seat={keys[3 - mover]}").json()
    assert seen["to_move"] == 3 - mover and seen["log"][-1]["penalty"] == 1 and seen["notice"] == ""
    told = client.get(f"/api/games/{game['id']}?seat={keys[mover]}").json()
    assert told["notice"].startswith("Time is up: the table restored; penalty: ")
    # The mover's own page, its clock run out: the usual answer, even if another seat looked first.
    session.started -= 41
    late = client.post(f"/api/games/{game['id']}/timeout?seat={keys[3 - mover]}", json={})
    assert late.status_code == 200 and late.json()["notice"].startswith("Time is up: ")
    assert late.json()["to_move"] == mover


def test_on_several_devices_the_movers_late_action_is_told_time_is_up(client: TestClient) -> None:
    """The mover's edit just after the server's clock ran out said "it is Bob's turn, not yours"."""
    game = new_game(client, seats=[{"kind": "person"}, {"kind": "person"}], turn_time=40, devices=True)
    keys = {x["player"]: x["seat"] for x in game["seat_links"]}
    mover = game["to_move"]
    url = f"/api/games/{game['id']}"
    rack = client.get(f"{url}?seat={keys[mover]}").json()["editing"]["rack"]
    client.app.state.sessions.live[game["id"]].started -= 41  # type: ignore[attr-defined]
    late = client.post(
        f"{url}/edit?seat={keys[mover]}",
        json={"commands": [{"do": "lay", "tiles": [rack[0]]}], "round": 1, "turn": game["turn"], "edits": 0},
    )
    assert late.status_code == 200 and late.json()["notice"].startswith("Time is up: ")
    assert late.json()["to_move"] == 3 - mover
    # The other seat's page looked first and ended the turn: the mover is still told "Time is up".
    session = client.app.state.sessions.live[game["id"]]  # type: ignore[attr-defined]
    turn = late.json()["turn"]
    rack = client.get(f"{url}?seat={keys[3 - mover]}").json()["editing"]["rack"]
    session.started -= 41
    client.get(f"{url}?seat={keys[mover]}")  # the mover's seat is the other one now: it looks first
    again = client.post(
        f"{url}/edit?seat={keys[3 - mover]}",
        json={"commands": [{"do": "lay", "tiles": [rack[0]]}], "round": 1, "turn": turn, "edits": 0},
    )
    assert again.status_code == 200 and again.json()["notice"].startswith("Time is up: ")


def test_seat_keys_outlive_the_server(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    seats = [{"kind": "person"}, {"kind": "person"}]
    with TestClient(create_app(Limits(workers=1), pool_kind="thread", games_dir=folder)) as first:
        game = new_game(first, seats=seats, devices=True)
        second_key = game["seat_links"][1]["seat"]
        first.post(f"/api/games/{game['id']}/draw?seat={game['seat']}", json={})
    with TestClient(create_app(Limits(workers=1), pool_kind="thread", games_dir=folder)) as second:
        view = second.get(f"/api/games/{game['id']}?seat={second_key}").json()
        assert view["you"] == 2 and view["to_move"] == 2 and view["editing"] is not None
        assert error_of(second.get(f"/api/games/{game['id']}"), 403).startswith("this game is played on several")


def test_a_game_refuses_query_parameters_it_does_not_read(client: TestClient) -> None:
    """A misspelt, repeated or misplaced parameter is named, never ignored."""
    shared = new_game(client)
    url = f"/api/games/{shared['id']}"
    message = "this game is played on one screen: it takes no 'seat' parameter"
    assert error_of(client.get(f"{url}?seat=abc"), 400) == message
    assert error_of(client.post(f"{url}/draw?seat=abc", json={}), 400) == message
    assert error_of(client.get(f"{url}?sea=abc"), 400) == "unknown parameter 'sea' (parameters: seat)"
    assert error_of(client.post("/api/games?seed=7", json=SHORT), 400) == "unknown parameter 'seed' (this endpoint takes none)"
    devices = new_game(client, seats=[{"kind": "person"}, {"kind": "person"}], devices=True)
    keys = [x["seat"] for x in devices["seat_links"]]
    both = f"/api/games/{devices['id']}?seat={keys[0]}&seat={keys[1]}"
    assert error_of(client.get(both), 400) == "parameter 'seat' is given twice"
    assert client.get(f"/api/games/{devices['id']}?seat={keys[0]}").status_code == 200


def test_a_game_kept_with_names_differing_only_in_case_still_loads(tmp_path: Path) -> None:
    """Refused for a new game, "Ann" and "ann" kept from before stay playable."""
    folder = tmp_path / "games"
    with TestClient(create_app(Limits(workers=1), pool_kind="thread", games_dir=folder)) as first:
        game = new_game(first, seats=[{"kind": "person", "name": "Ann"}, {"kind": "person", "name": "Bob"}])
    kept = folder / "games" / game["id"] / "game.json"
    data = json.loads(kept.read_text())
    data["settings"]["seats"][1]["name"] = "ann"
    kept.write_text(json.dumps(data))
    with TestClient(create_app(Limits(workers=1), pool_kind="thread", games_dir=folder)) as second:
        view = second.get(f"/api/games/{game['id']}").json()
        assert [p["name"] for p in view["players"]] == ["Ann", "ann"]


def test_hints_for_the_turn_as_it_started(client: TestClient) -> None:
    game = ais_move(client, new_game(client))
    one = act(client, game, "hint", {"level": 1})
    assert one["level"] == 1 and one["tiles"] >= 0
    three = act(client, game, "hint", {"level": 3})
    assert three["tiles"] == one["tiles"] and "steps" in three
    for bad in ({"level": 4}, {"level": "2"}, {"level": 1, "x": 1}, [1]):
        response = client.post(f"/api/games/{game['id']}/hint", json=bad)
        assert response.status_code == 400, response.text
        error_of(response, 400)


@pytest.mark.parametrize(("seconds", "tiles"), [(40, 1), (60, 3)])
def test_the_turn_timer_takes_the_penalty_as_play_does(client: TestClient, seconds: int, tiles: int) -> None:
    game = ais_move(client, new_game(client, turn_time=seconds, seed=5, rack_size=10))
    assert game["timer"]["seconds"] == seconds and 0 < game["timer"]["left"] <= seconds
    rack = game["editing"]["rack"]
    game = act(client, game, "edit", {"commands": [{"do": "lay", "tiles": rack[:1]}]})
    early = act(client, game, "timeout")  # the page's clock is early: nothing happens yet
    assert early["turn"] == game["turn"] and early["editing"]["table"] == [[rack[0]]]
    session = client.app.state.sessions.live[game["id"]]  # type: ignore[attr-defined]
    session.started -= seconds + 1
    # Any request after the time is up ends the turn by the penalty first (as play does).
    response = client.post(f"/api/games/{game['id']}/edit", json={"commands": [{"do": "lay", "tiles": rack[1:2]}]})
    after = response.json()
    assert response.status_code == 200 and after["notice"].startswith("Time is up: ")
    turn = after["log"][game["turn"] - 1]
    assert turn["penalty"] == tiles and turn["played"] == []
    assert after["players"][0]["rack"] == len(rack) + tiles  # the lone tile back on the rack


def test_a_turns_steps_name_whose_rack_the_tiles_come_from() -> None:
    from web.games import turn_steps

    before, after = [["K9", "K10", "K11", "K12"]], [["K10", "K11", "K12"], ["K9", "B9", "R9"]]
    steps = turn_steps(before, after, ["B9", "R9"], RuleSet().to_dict(), "medium's rack")["steps"]
    assert [s["text"] for s in steps][-1] == "Lay K9 B9 R9 (B9 R9 from medium's rack, K9 put aside above)"


def test_a_turn_the_60_second_rule_ended_has_no_steps_and_says_so(client: TestClient) -> None:
    # The broken sets go back onto the rack, table tiles among them: the table after the turn no
    # longer holds the table before, so there are no steps to plan (that request was a 500).
    game = ais_move(client, new_game(client, turn_time=60))
    rules = RuleSet.from_options(game["settings"]["rules"])
    while not game["editing"]["table"] or not game["players"][game["you"] - 1]["opened"]:
        commands = easy_commands(game, rules)
        game = act(client, game, "edit", {"commands": commands}) if commands else act(client, game, "draw")
        if commands:
            game = act(client, game, "done")
        game = ais_move(client, game)
    first = game["editing"]["table"][0]
    game = act(client, game, "edit", {"commands": [{"do": "take", "set": 0, "tiles": first[:1]}]})
    client.app.state.sessions.live[game["id"]].started -= 61  # type: ignore[attr-defined]
    game = act(client, game, "timeout")
    turn = game["log"][-1] if game["log"][-1]["player"] == game["you"] else game["log"][-2]
    assert turn["timed_out"] and turn["penalty"] == 3
    response = client.get(f"/api/games/{game['id']}/turns/{turn['turn']}/steps")
    assert response.status_code == 200, response.text
    assert response.json() == {"steps": [], "tiles_moved": 0, "timed_out": True}
    played = next(t for t in game["log"] if t["played"] and not t["timed_out"])
    steps = client.get(f"/api/games/{game['id']}/turns/{played['turn']}/steps").json()
    assert steps["steps"] and "timed_out" not in steps


def test_a_match_goes_on_round_after_round(client: TestClient) -> None:
    game = new_game(client, rounds=2, scoring="club")
    assert error_of(client.post(f"/api/games/{game['id']}/next-round"), 409) == "the round is not over yet"
    game = play_out(client, game)
    assert game["over"] and not game["match"]["over"] and len(game["match"]["rounds"]) == 1
    game = act(client, game, "next-round")
    assert game["round"] == 2 and not game["over"] and game["match"]["big_totals"] is not None
    first = parse_record(client.get(f"/api/games/{game['id']}/rounds/1/record").text)
    assert first.result is not None
    game = play_out(client, game)
    assert game["match"]["over"] and sorted(game["match"]["standings"]) == [1, 2]
    assert error_of(client.post(f"/api/games/{game['id']}/next-round"), 409) == "the match is over: it had 2 rounds"
    second = parse_record(client.get(f"/api/games/{game['id']}/rounds/2/record").text)
    assert second.header.seed != first.header.seed  # each round its own deal, as play's rounds


def test_a_game_outlives_its_server(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    with TestClient(create_app(Limits(workers=1), pool_kind="thread", games_dir=folder)) as first:
        game = ais_move(first, new_game(first))
        rack = game["editing"]["rack"]
        game = act(first, game, "draw")
        game = ais_move(first, game)
        game = act(first, game, "edit", {"commands": [{"do": "lay", "tiles": game["editing"]["rack"][:1]}]})
        before = first.get(f"/api/games/{game['id']}").json()
    assert rack
    with TestClient(create_app(Limits(workers=1), pool_kind="thread", games_dir=folder)) as second:
        after = second.get(f"/api/games/{game['id']}").json()
        for key in ("turn", "rack", "table", "log", "players", "pool", "editing", "settings"):
            assert after[key] == before[key], key
        undone = act(second, after, "undo")  # the turn in progress, its undo stack too
        assert len(undone["editing"]["table"]) == len(after["editing"]["table"]) - 1


def test_looking_at_a_game_is_using_it(client: TestClient) -> None:
    """A game expires when unused for --keep-days: a view, a turn's steps, a record asked for each
    count as a use, as a review's view does."""
    game = act(client, new_game(client), "draw")
    store = client.app.state.store  # type: ignore[attr-defined]
    touched = store.folder("games", game["id"]) / "touched"
    week = 7 * 86400
    for path in ("", "/turns/1/steps", "/rounds/1/record"):
        os.utime(touched, (game["expires"] - store.keep_seconds - week,) * 2)
        assert store.expires("games", game["id"]) < game["expires"] - week + 1
        client.get(f"/api/games/{game['id']}{path}")  # the record: refused (the round goes on), yet a use
        assert store.expires("games", game["id"]) >= game["expires"], path
    assert client.get(f"/api/games/{game['id']}").json()["expires"] >= game["expires"]


def test_games_expire(tmp_path: Path) -> None:
    store = Store(tmp_path, keep_days=1)
    old, new = store.create("games"), store.create("games")
    now = store.expires("games", new)
    import os

    os.utime(store.folder("games", old) / "touched", (now - 3 * 86400, now - 3 * 86400))
    assert store.sweep(now=now - 86400 + 10) == [old]
    assert not store.exists("games", old) and store.exists("games", new)


@pytest.mark.parametrize(
    ("seats", "names"),
    [
        ([{"kind": "person", "name": "player 2"}, {"kind": "person"}], ["player 2", "player 3"]),
        ([{"kind": "person"}, {"kind": "person", "name": "player 1"}, {"kind": "person"}], ["player 2", "player 1", "player 3"]),
        ([{"kind": "person"}, {"kind": "ai", "level": "easy", "name": "you"}], ["player 1", "you"]),
        ([{"kind": "person", "name": "easy"}, {"kind": "ai", "level": "easy"}], ["easy", "easy 2"]),
        ([{"kind": "person", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}], ["Ann", "easy 2", "easy 3"]),
    ],
)
def test_a_seat_left_unnamed_takes_a_name_no_other_seat_has(client: TestClient, seats: list[Any], names: list[str]) -> None:
    assert [p["name"] for p in new_game(client, seats=seats)["players"]] == names


# --------------------------------------------------------------------------- bad requests


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "request: expected a JSON object"),
        ({"players": 2}, "request: unknown field 'players'"),
        ({"seats": [{"kind": "person"}]}, "request: 'seats' must be a list of 2 to 4 seats"),
        ({"seats": [{"kind": "person"}] * 5}, "request: 'seats' must be a list of 2 to 4 seats"),
        ({"seats": [{"kind": "ai", "level": "easy"}] * 2}, "request: a game needs a person in one seat"),
        ({"seats": [{"kind": "person"}, {"kind": "ai", "level": "expert"}]}, "request: 'seat 2 level' must be one of easy, medium, hard, got 'expert'"),
        ({"seats": [{"kind": "person"}, {"kind": "robot"}]}, "request: 'seat 2 kind' must be one of person, ai, got 'robot'"),
        ({"seats": [{"kind": "person"}, "ai"]}, "request: seat 2 must be"),
        ({"rules": {"numbers": 30}}, "invalid rule numbers=30: this server takes 2..26"),
        ({"rules": {"colour": 4}}, "unknown rule 'colour'"),
        ({"rules": "standard"}, "request: 'rules' must be an object"),
        ({"rack_size": 41}, "request: 'rack_size' must be a whole number from 1 to 40, got 41"),
        ({"rack_size": 30}, "2 players × 30 tiles need 60 tiles, these rules have only 50"),
        ({"turn_time": 30}, "request: 'turn_time' must be 40, 60 or null, got 30"),
        ({"seed": -1}, "request: 'seed' must be a whole number from 0"),
        ({"seed": 1.5}, "request: 'seed' must be a whole number from 0"),
        ({"rounds": 0}, "request: 'rounds' must be a whole number from 1 to 100, got 0"),
        ({"scoring": "golf"}, "request: 'scoring' must be one of standard, club, got 'golf'"),
        ({"joker_each": "yes"}, "request: 'joker_each' must be true or false, got 'yes'"),
        ({"joker_each": True, "seats": [{"kind": "person"}] * 3}, "joker-each needs a joker per player"),
        ({"devices": "yes"}, "request: 'devices' must be true or false, got 'yes'"),
        ({"seats": [{"kind": "person", "level": "hard"}, {"kind": "ai", "level": "easy"}]},
         "request: seat 1 is a person: a level is for an AI seat"),
        ({"seats": [{"kind": "person", "name": " "}, {"kind": "person"}]}, "request: seat 1 name must be 1 to 20 characters, got ' '"),
        ({"seats": [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": "Ann "}]}, "request: player 'Ann' is named twice"),
        # As the score sheet tells players apart: whatever the case, in its words.
        ({"seats": [{"kind": "person", "name": "ann"}, {"kind": "person", "name": "Ann"}]}, "request: player 'Ann' is named twice"),
        ({"seats": [{"kind": "person", "name": "A\nB"}, {"kind": "person"}]}, "request: seat 1 name must be printable (no line break), got 'A\\nB'"),
        ({"seats": [{"kind": "person", "name": "Ann"}, {"kind": "ai", "level": "easy", "name": 7}]}, "request: seat 2 name must be 1 to 20 characters, got 7"),
    ],
)
def test_a_bad_new_game_is_400_with_one_line(client: TestClient, body: Any, message: str) -> None:
    full = body if not isinstance(body, dict) else {"rules": SHORT_RULES, "rack_size": 6, **body}
    if isinstance(body, dict) and "rules" in body:
        full["rules"] = body["rules"]
    assert message in error_of(client.post("/api/games", json=full), 400)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"commands": []}, "request: 1 to 50 commands"),
        ({}, 'request: expected {"commands": [...]}'),
        ({"commands": "lay"}, 'request: expected {"commands": [...]}'),
        # An unknown field is named, as every other endpoint names it.
        ({"command": []}, "request: edit takes no 'command' (only 'commands', 'round', 'turn' and 'edits')"),
        ({"commands": [{"do": "lay", "tiles": ["K12"]}], "extra": 1}, "request: edit takes no 'extra'"),
        ({"commands": [{"do": "fly", "tiles": ["R1"]}]}, "request: 'command 1 do' must be one of lay, add"),
        ({"commands": [{"do": "lay", "tiles": ["X9"]}]}, "in command 1 tiles"),
        ({"commands": [{"do": "lay", "tiles": "R1"}]}, "request: command 1 tiles must be a list of tiles"),
        ({"commands": [{"do": "lay", "tiles": []}]}, "request: command 1 names no tile"),
        ({"commands": [{"do": "add", "tiles": ["R1"]}]}, "request: command 1 (add) needs 'set'"),
        ({"commands": [{"do": "move", "set": 0, "tiles": ["R1"], "to": "x"}]}, "request: command 1 'to' must be a set number"),
        ({"commands": [{"do": "split", "set": 0, "tiles": ["R1", "R2"]}]}, "(split) takes one tile"),
        ({"commands": [{"do": "split", "set": 0, "tiles": ["R1"], "at": -1}]}, "request: command 1 'at' is for split"),
        ({"commands": [{"do": "lay", "tiles": ["R1"], "at": 0}]}, "request: command 1 'at' is for split"),
        ({"commands": [{"do": "take", "set": 0, "tiles": ["R1"], "at": 0}]}, "request: command 1 'at' of take is a list of the tiles' places"),
        ({"commands": [{"do": "take", "set": 0, "tiles": ["R1", "R2"], "at": [0]}]}, "one per tile"),
        ({"commands": [{"do": "add", "set": 0, "tiles": ["R1"], "at": 0}]}, "request: command 1 'at' of add is a list of the tiles' places"),
        ({"commands": [{"do": "lay", "tiles": ["R1"], "why": 1}]}, "request: command 1 takes no 'why' (fields: do, set, tiles, to, at, from_rack, own_loose)"),
        ({"commands": [{"do": "lay", "tiles": ["R1"], "from_rack": ["R2"]}]}, "request: command 1 'from_rack' names tiles that are not among its 'tiles'"),
        ({"commands": [{"do": "take", "set": 0, "tiles": ["R1"], "from_rack": ["R1"]}]}, "request: command 1 'from_rack' is for lay and add"),
        ({"commands": [{"do": "lay", "tiles": ["R1"], "from_rack": "R1"}]}, "request: command 1 from_rack must be a list of tiles"),
        ({"commands": [{"do": "lay", "tiles": ["R1"]}, {"do": "lay", "tiles": ["R2"], "bogus": 2}]}, "request: command 2 takes no 'bogus'"),
        ({"commands": ["lay R1"]}, 'request: command 1 must be an object with "do", "set", "tiles", "to", "at", "from_rack", "own_loose"'),
        # A field the manipulation does not use is refused, not dropped.
        ({"commands": [{"do": "lay", "tiles": ["R1"], "set": 0}]}, "request: command 1 (lay) takes no 'set': lay takes its tiles from the rack"),
        ({"commands": [{"do": "back", "tiles": ["R1"], "set": 0}]}, "request: command 1 (back) takes no 'set'"),
        ({"commands": [{"do": "take", "set": 0, "tiles": ["R1"], "to": 7}]}, "request: command 1 'to' is for move: the set the tiles go to"),
        ({"commands": [{"do": "add", "set": 0, "tiles": ["R1"], "to": 1}]}, "request: command 1 'to' is for move"),
        ({"commands": [{"do": "lay", "tiles": ["R1"], "to": 0}]}, "request: command 1 'to' is for move"),
        ({"commands": [{"do": "lay", "tiles": ["R8"]}]}, "R8"),  # numbers run 1..7 in this game
    ],
)
def test_a_bad_manipulation_is_400_with_one_line(client: TestClient, body: Any, message: str) -> None:
    game = ais_move(client, new_game(client))
    assert message in error_of(client.post(f"/api/games/{game['id']}/edit", json=body), 400)


def test_a_page_left_behind_cannot_act_in_a_later_turn(client: TestClient) -> None:
    # Two tabs on one game: one draws, the AI moves; the other still shows the first turn.
    game = ais_move(client, new_game(client))
    seen = {"round": game["round"], "turn": game["turn"]}
    later = ais_move(client, act(client, game, "draw", seen))
    assert later["turn"] == seen["turn"] + 2 and later["editing"] is not None
    for action, body in (("draw", {}), ("done", {}), ("undo", {}), ("edit", {"commands": [{"do": "lay", "tiles": ["J"]}]})):
        message = error_of(client.post(f"/api/games/{game['id']}/{action}", json={**body, **seen}), 409)
        assert message == (
            f"the game has moved on since this page showed round 1, turn {seen['turn']}:"
            f" it is round 1, turn {later['turn']} now"
        )
    assert act(client, game, "view")["log"] == later["log"]  # nothing done
    now = {"round": later["round"], "turn": later["turn"]}
    assert act(client, game, "draw", now)["turn"] > later["turn"]  # the page that saw it may act


def test_a_page_that_did_not_see_the_turns_edits_cannot_act_on_them(client: TestClient) -> None:
    # Two tabs on one person's turn (seed 7: the 12s are an initial meld): tab B lays them, tab A
    # still shows the turn as it began; then the reverse, tab B undoes what tab A shows.
    game = new_game(client, seats=[{"kind": "person", "name": "Ann"}, {"kind": "ai", "level": "medium"}], seed=7, rules={}, rack_size=14)
    game = ais_move(client, game)
    assert game["editing"]["edits"] == 0
    seen_a = {"round": game["round"], "turn": game["turn"], "edits": 0}
    twelves = {"commands": [{"do": "lay", "tiles": ["K12", "B12", "O12"]}]}
    in_b = act(client, game, "edit", {**twelves, **seen_a})
    assert in_b["editing"]["edits"] == 1
    message = "the turn has changed on another page since this one showed it (at edit 0): it is at edit 1 now"
    for action, body in (("done", {}), ("draw", {}), ("undo", {}), ("redo", {}), ("reset", {}), ("edit", twelves)):
        assert error_of(client.post(f"/api/games/{game['id']}/{action}", json={**body, **seen_a}), 409) == message
    assert act(client, game, "view")["log"] == in_b["log"] and act(client, game, "view")["editing"] == in_b["editing"]
    # Tab A, refreshed, shows the 12s laid; tab B undoes them: tab A's Done is refused, not played empty.
    seen_a = {**seen_a, "edits": 1}
    undone = act(client, game, "undo", seen_a)
    assert undone["editing"]["edits"] == 2 and not undone["editing"]["changed"]
    response = client.post(f"/api/games/{game['id']}/done", json=seen_a)
    assert error_of(response, 409) == (
        "the turn has changed on another page since this one showed it (at edit 1): it is at edit 2 now"
    )
    # The page that saw every edit acts; the next turn's count starts again.
    redone = act(client, game, "redo", {**seen_a, "edits": 2})
    played = act(client, game, "done", {**seen_a, "edits": 3})
    assert redone["editing"]["edits"] == 3 and played["notice"] == "You played K12 B12 O12."
    assert ais_move(client, played)["editing"]["edits"] == 0
    # A page that does not say (a script, as the docs' curl lines) is not checked.
    assert act(client, game, "draw")["log"][-1]["drew"]


def test_a_turns_edit_count_outlives_the_server(tmp_path: Path) -> None:
    with TestClient(create_app(Limits(workers=1), pool_kind="thread", games_dir=tmp_path)) as first:
        game = ais_move(first, new_game(first))
        rack = game["editing"]["rack"]
        game = act(first, game, "edit", {"commands": [{"do": "lay", "tiles": [rack[0]]}]})
        game = act(first, game, "undo")
    with TestClient(create_app(Limits(workers=1), pool_kind="thread", games_dir=tmp_path)) as second:
        again = act(second, game, "view")
        assert again["editing"]["edits"] == 2
        moment = {"round": again["round"], "turn": again["turn"], "edits": 2}
        assert act(second, game, "redo", moment)["editing"]["edits"] == 3


@pytest.mark.parametrize(
    ("action", "body", "message"),
    [
        ("draw", {"turn": 3}, "request: 'round' and 'turn' go together, as whole numbers (the view's)"),
        ("draw", {"round": 1, "turn": "3"}, "request: 'round' and 'turn' go together, as whole numbers (the view's)"),
        ("draw", {"tiles": ["R5"]}, "request: draw takes no 'tiles' (only 'round', 'turn' and 'edits')"),
        ("draw", {"edits": 0}, "request: 'edits' goes with 'round' and 'turn', a whole number (the view's editing.edits)"),
        ("draw", {"round": 1, "turn": 3, "edits": "0"}, "request: 'edits' goes with 'round' and 'turn', a whole number (the view's editing.edits)"),
        ("draw", {"round": 1, "turn": 3, "edits": -1}, "request: 'edits' goes with 'round' and 'turn', a whole number (the view's editing.edits)"),
        ("draw", [1], "request: expected a JSON object"),
    ],
)
def test_an_actions_moment_is_checked(client: TestClient, action: str, body: Any, message: str) -> None:
    game = ais_move(client, new_game(client))
    assert error_of(client.post(f"/api/games/{game['id']}/{action}", json=body), 400) == message


def test_bad_game_requests_are_4xx_never_500(client: TestClient) -> None:
    game = new_game(client)
    key = game["id"]
    assert error_of(client.get("/api/games/" + "A" * 24), 404).startswith("no game 'AAAAAAAAAAAAAAAAAAAAAAAA' here")
    assert error_of(client.get("/api/games/..%2F..%2Fetc"), 404)
    assert error_of(client.post(f"/api/games/{key}/fly"), 404) == "no action 'fly' on a game"
    assert error_of(client.get(f"/api/games/{key}/done"), 405)
    assert error_of(client.post(f"/api/games/{key}/edit", content=b"{nope"), 400).startswith("request line 1: not valid JSON")
    assert error_of(client.get(f"/api/games/{key}/rounds/2/record"), 404).startswith("no round 2")
    assert error_of(client.post(f"/api/games/{key}/review", json={"round": "1"}), 400)
    game = play_out(client, game)
    for action in ("done", "draw", "undo"):
        assert error_of(client.post(f"/api/games/{key}/{action}"), 409) == "the round is over: no more turns"
    assert error_of(client.post(f"/api/games/{key}/ai"), 409) == "the round is over: no more turns"


# --------------------------------------------------------------------------- reviews


def analyze_json(path: Path) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["analyze", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_a_selfplay_record_reviewed_turn_by_turn_as_analyze_judges_it(client: TestClient, tmp_path: Path) -> None:
    made = CliRunner().invoke(
        cli, ["selfplay", "--games", "1", "--ai", "medium,easy", "--seed", "3", "--record", str(tmp_path), "--numbers", "9"]
    )
    assert made.exit_code == 0, made.output
    [path] = tmp_path.glob("*.jsonl")
    expected = analyze_json(path)
    response = client.post("/api/reviews?name=game-00001.jsonl", content=path.read_bytes())
    assert response.status_code == 201, response.text
    review = response.json()
    assert review["name"] == "game-00001.jsonl" and len(review["turns"]) == len(expected["turns"])
    key = review["id"]
    assert "not judged yet" in error_of(client.get(f"/api/reviews/{key}/summary"), 409)
    for want in expected["turns"]:
        got = client.get(f"/api/reviews/{key}/turns/{want['turn']}").json()
        shown = {k: got[k] for k in want}
        if "better" in shown:
            shown["better"] = {k: v for k, v in shown["better"].items() if k != "from_rack"}
        assert shown == want  # analyze --json's turn, and more
        marked = [t for s, flags in zip(got["table_after"], got["from_rack"]) for t, f in zip(s, flags) if f]
        assert Counter(marked) == Counter(want["played"])
        if "better" in got:
            better = [t for s, flags in zip(got["better"]["table"], got["better"]["from_rack"]) for t, f in zip(s, flags) if f]
            assert Counter(better) == Counter(got["better"]["played"])
    assert client.get(f"/api/reviews/{key}/summary").json()["summary"] == expected["summary"]
    assert client.get(f"/api/reviews/{key}").json()["judged"] == [t["turn"] for t in expected["turns"]]


def test_a_review_judges_by_points_as_analyze_objective_points(client: TestClient, tmp_path: Path) -> None:
    made = CliRunner().invoke(
        cli, ["selfplay", "--games", "1", "--ai", "medium,easy", "--seed", "4", "--record", str(tmp_path), "--numbers", "9"]
    )
    assert made.exit_code == 0, made.output
    [path] = tmp_path.glob("*.jsonl")
    result = CliRunner().invoke(cli, ["analyze", str(path), "--json", "--objective", "points"])
    expected = json.loads(result.stdout)
    key = client.post("/api/reviews", content=path.read_bytes()).json()["id"]
    for want in expected["turns"]:
        got = client.get(f"/api/reviews/{key}/turns/{want['turn']}?objective=points").json()
        assert {k: got[k] for k in ("label", "optimal_points", "points_missed")} == {
            k: want[k] for k in ("label", "optimal_points", "points_missed")
        }
    assert client.get(f"/api/reviews/{key}/summary?objective=points").json()["summary"] == expected["summary"]
    # Judged by points only: by tiles nothing is judged yet.
    assert client.get(f"/api/reviews/{key}?objective=points").json()["judged"] == [t["turn"] for t in expected["turns"]]
    assert client.get(f"/api/reviews/{key}").json()["judged"] == []
    assert "not judged yet" in error_of(client.get(f"/api/reviews/{key}/summary"), 409)
    for where in ("", "/turns/1", "/summary"):
        message = error_of(client.get(f"/api/reviews/{key}{where}?objective=stars"), 400)
        assert message == "request: 'objective' must be tiles or points, got 'stars'"


def test_the_game_just_played_is_reviewed(client: TestClient) -> None:
    game = new_game(client)
    assert error_of(client.post(f"/api/games/{game['id']}/review", json={"round": 1}), 409)
    game = play_out(client, game)
    response = client.post(f"/api/games/{game['id']}/review", json={"round": 1})
    assert response.status_code == 201
    review = client.get(f"/api/reviews/{response.json()['id']}").json()
    assert [p["name"] for p in review["players"]] == ["you", "easy"] and review["result"]["winner"] == 1
    assert len(review["turns"]) == len(game["log"])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "record upload is empty"),
        (b"\xff\xfe\x00junk", "record upload"),
        (b'{"type": "turn"}\n', "the first line must be the game line"),
        (b"not json\n", "not valid JSON"),
    ],
)
def test_a_bad_record_upload_is_400(client: TestClient, content: bytes, message: str) -> None:
    assert message in error_of(client.post("/api/reviews", content=content), 400)


def test_bad_review_requests(client: TestClient, tmp_path: Path) -> None:
    assert error_of(client.post("/api/reviews", content=b"x" * (4 * 1024 * 1024 + 1)), 413).startswith("request body too large")
    header = {"type": "game", "version": 1, "rules": {"numbers": 40}, "seed": 1, "scoring": "standard",
              "players": [{"player": 1, "name": "a", "kind": "ai"}, {"player": 2, "name": "b", "kind": "ai"}], "first_player": 1}
    assert "this server takes 2..26" in error_of(client.post("/api/reviews", content=json.dumps(header).encode()), 400)
    assert error_of(client.get("/api/reviews/" + "B" * 24), 404).startswith("no review")
    game = play_out(client, new_game(client))
    key = client.post(f"/api/games/{game['id']}/review", json={"round": 1}).json()["id"]
    assert error_of(client.get(f"/api/reviews/{key}/turns/0"), 404).startswith("no turn 0 in this record")
    assert error_of(client.get(f"/api/reviews/{key}/turns/999"), 404)


def test_the_documented_game_example_plays(client: TestClient) -> None:
    """docs/web-api.md's curl lines for a game, as written: the new game, the edit, done, the AI."""
    import re
    import shlex

    from tests.paths import ROOT

    text = (ROOT / "docs" / "web-api.md").read_text()
    block = text.split("## Games against the AI players", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    dealt = re.search(r"Seed 7 deals the person `([A-Z0-9 ]+)`", text)
    assert dealt is not None
    game_id = ""
    for line in block.splitlines():
        words = shlex.split(line.split("#", 1)[0])
        url = next(w for w in words if w.startswith("localhost:8000")).removeprefix("localhost:8000")
        body = words[words.index("-d") + 1] if "-d" in words else None
        response = client.post(url.replace("ID", game_id), content=body)
        assert response.status_code in (200, 201), (line, response.text)
        assert "refused" not in response.json(), response.json()["refused"]
        if not game_id:
            game_id = response.json()["id"]
            assert " ".join(response.json()["editing"]["rack"]) == dealt[1]


def test_a_set_changed_in_its_place_is_marked_though_its_twin_stands_elsewhere() -> None:
    """Set 2 R7 … R11 trimmed to R8 R9 R10 (which set 5 was), set 5 now R9 R10 R11: both changed,
    followed turn by turn as the game places them (a bag of sets said set 2 was as it was)."""
    from solver.game.engine import in_place
    from solver.tiles import parse_token
    from web.games import changed_sets

    def sets(*texts: str) -> list[list[Any]]:
        return [[t for word in text.split() for t in parse_token(word)] for text in texts]

    left = sets("K9 K10 K11 K12", "R7 R8 R9 R10 R11", "K8 B8 O8", "K13 B13 R13", "R8 R9 R10")
    once = in_place(left, sets("K9 K10 K11 K12", "R7 R8 R9 R10", "K8 B8 O8", "K13 B13 R13", "R9 R10 R11"))
    twice = in_place(once, sets("K9 K10 K11 K12", "R8 R9 R10", "K8 B8 O8", "K13 B13 R13", "R9 R10 R11", "B7 R7 O7"))
    assert changed_sets(left, once, twice) == [1, 4, 5]
    assert changed_sets(once, twice) == [1, 5]


def test_an_added_tile_s_place_reaches_the_editor() -> None:
    """Strict jokers: `at` of an add says where the tile goes (a joker first in K3 J K5: the K2)."""
    from solver.game.editor import TurnEditor
    from solver.position import Position
    from solver.rules import JokerRules, RuleSet
    from solver.tiles import format_tiles
    from web.games import commands_from

    rules = RuleSet(joker_rules=JokerRules.STRICT)
    (command,) = commands_from({"commands": [{"do": "add", "set": 0, "tiles": ["J"], "at": [0]}]}, rules)
    editor = TurnEditor(Position.from_strings("J", ["K3 J K5"], rules=rules))
    editor.apply(command)
    assert format_tiles(editor.state.table[0]) == "J K3 J K5"
