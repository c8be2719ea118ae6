"""Game records: writing, reading back exactly, and errors that name the file, the line and the problem."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from solver.errors import InputError, RulesError
from solver.game.engine import Game, GameConfig
from solver.game.records import (
    GameHeader,
    RecordWriter,
    parse_record,
    read_record,
    record_lines,
    write_record,
    write_record_lines,
)
from solver.rules import RuleSet
from solver.solve import solve

SMALL = RuleSet(numbers=7)


def played_game(seed: int = 3, players: int = 3, scoring: str = "standard") -> Game:
    game = Game.new(GameConfig(SMALL, players, seed, scoring=scoring))
    while not game.over:
        answer = solve(game.position())
        if answer.tiles_played:
            game.play([list(s.tiles) for s in answer.table])
        else:
            game.draw()
    return game


def test_round_trip(tmp_path: Path) -> None:
    game = played_game()
    header = GameHeader.for_game(game, ["you", "hard", "medium"], ["human", "ai", "ai"])
    path = tmp_path / "game.jsonl"
    write_record(path, header, game.history, game.result())
    record = read_record(path)
    assert record.header == header
    assert record.turns == tuple(game.history)
    assert record.result == game.result()
    assert record.rules == SMALL
    lines = path.read_text().splitlines()
    assert len(lines) == len(game.history) + 2


def test_club_round_trip_keeps_big_points(tmp_path: Path) -> None:
    game = played_game(seed=8, players=2, scoring="club")
    path = tmp_path / "club.jsonl"
    write_record(path, GameHeader.for_game(game, ["a", "b"]), game.history, game.result())
    result = read_record(path).result
    assert result is not None and result.big == game.result().big and sum(result.big) <= 1


def test_the_documented_fields(tmp_path: Path) -> None:
    game = played_game()
    header = GameHeader.for_game(game, ["a", "b", "c"])
    lines = [json.loads(line) for line in record_lines(header, game.history, game.result())]
    first, turn, last = lines[0], lines[1], lines[-1]
    assert first["type"] == "game" and first["version"] == 1
    assert first["rules"]["numbers"] == 7 and first["seed"] == 3 and first["scoring"] == "standard"
    assert first["players"][0] == {"player": 1, "name": "a", "kind": "ai"}
    assert first["first_player"] == game.first_player + 1
    assert {"turn", "player", "opened", "rack", "table", "played", "drew", "table_after", "pool"} <= set(turn)
    assert turn["turn"] == 1 and turn["player"] == game.first_player + 1 and turn["opened"] is False
    assert turn["table"] == []
    assert last["type"] == "result" and len(last["scores"]) == 3 and len(last["racks"]) == 3
    assert last["reason"] in ("rack_empty", "blocked")


def test_writer_streams_turns(tmp_path: Path) -> None:
    game = played_game(seed=5, players=2)
    path = tmp_path / "live.jsonl"
    with RecordWriter(path, GameHeader.for_game(game, ["a", "b"])) as writer:
        for turn in game.history[:3]:
            writer.turn(turn)
        unfinished = read_record(path)
        assert len(unfinished.turns) == 3 and unfinished.result is None
        for turn in game.history[3:]:
            writer.turn(turn)
        writer.result(game.result())
    assert read_record(path).result == game.result()


def _lines(game: Game) -> list[str]:
    return record_lines(GameHeader.for_game(game, ["a", "b", "c"]), game.history, game.result())


def _broken(line_index: int, change: dict[str, object] | None = None, drop: str | None = None) -> str:
    lines = _lines(played_game())
    data = json.loads(lines[line_index])
    data.update(change or {})
    if drop:
        del data[drop]
    lines[line_index] = json.dumps(data)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is empty"),
        ("{not json\n", "line 1: not valid JSON"),
        ('{"type": "game", "type": "turn"}\n', "line 1: key 'type' appears twice in one object"),
        ('{"type": "turn"}\n', "line 1: the first line must be the game line"),
        (_broken(0, {"version": 2}), "line 1: record version 2 is not supported"),
        (_broken(0, {"rules": {"numbers": 99}}), "line 1: invalid rule numbers=99"),
        (_broken(0, drop="seed"), "line 1: missing field 'seed'"),
        (_broken(1, {"player": 9}), "line 2: 'player' is 9, expected 1..3"),
        (
            _broken(1, {"rack": ["R14"]}),
            "invalid tile 'R14' in 'rack' of record x.jsonl line 2: numbers run 1..7",
        ),
        (_broken(1, {"turn": 5}), "line 2: turn 5 where turn 1 was expected"),
        (_broken(1, {"type": "move"}), "line 2: 'type' is 'move'"),
        (_broken(1, {"table": [["R1", "R2"]]}), "line 2: 'table' set 1 'R1 R2' is invalid"),
        (_broken(-1, {"scores": [1, 2]}), "'scores' must be a list of 3 numbers"),
        (_broken(-1, {"reason": "timeout"}), "'reason' is 'timeout'"),
        # Another kind of JSON file is named as what it is (it said the first line's JSON broke).
        ('{\n  "format": "rummikub-score-sheet",\n  "players": ["Ann", "Bob"]\n}\n',
         "record x.jsonl is a score sheet (rummikub score show reads it), not a game record"),
        ('{"rack": "R1 R2 R3", "table": []}\n', "record x.jsonl is a position (rummikub solve reads it), not a game record"),
        ('{\n  "seed": 3\n}\n', "record x.jsonl is one JSON object over several lines, not a game record"),
    ],
)
def test_errors_name_file_and_line(text: str, message: str) -> None:
    with pytest.raises((InputError, RulesError)) as caught:  # rules out of range: RulesError, located
        parse_record(text, "x.jsonl")
    assert message in str(caught.value)
    assert "x.jsonl" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_turn_that_breaks_tile_conservation_is_refused() -> None:
    game = played_game()
    lines = _lines(game)
    for i, line in enumerate(lines[1:-1], 2):
        data = json.loads(line)
        if data["played"]:
            data["table_after"] = data["table"]
            lines[i - 1] = json.dumps(data)
            break
    with pytest.raises(InputError, match=rf"line {i}: 'table_after' is not the table plus the tiles played"):
        parse_record("\n".join(lines), "x.jsonl")


def test_nothing_may_follow_the_result() -> None:
    lines = _lines(played_game())
    with pytest.raises(InputError, match=f"line {len(lines) + 1}: nothing may follow the result line"):
        parse_record("\n".join([*lines, lines[1]]), "x.jsonl")


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"cannot read record .*missing.jsonl: no such file"):
        read_record(tmp_path / "missing.jsonl")
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\x00\x01")
    with pytest.raises(InputError, match="not a text file"):
        read_record(binary)
    with pytest.raises(InputError, match="cannot write record"):
        write_record(tmp_path / "no" / "such" / "dir.jsonl", {"type": "game"}, [], None)


def test_a_record_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    def lines_then_interrupt() -> Iterator[str]:
        yield '{"type": "game"}'
        raise KeyboardInterrupt

    target = tmp_path / "game-00001.jsonl"
    with pytest.raises(KeyboardInterrupt):
        write_record_lines(target, lines_then_interrupt())
    assert list(tmp_path.iterdir()) == []  # neither the record nor its side file
    target.write_text("old\n")
    write_record_lines(target, ['{"type": "game"}'])
    assert target.read_text() == '{"type": "game"}\n' and len(list(tmp_path.iterdir())) == 1


# --------------------------------------------------------------------------- the record tells one story


def _edited(edit: Callable[[list[dict[str, Any]]], None]) -> tuple[str, int]:
    """A played game's record with one edit; the text and the line number the edit is on."""
    lines = [json.loads(line) for line in _lines(played_game())]
    before = [json.dumps(line) for line in lines]
    edit(lines)
    after = [json.dumps(line) for line in lines]
    changed = next(i for i, (a, b) in enumerate(zip(before, after)) if a != b)
    return "\n".join(after) + "\n", changed + 1


def _set_pool(lines: list[dict[str, Any]]) -> None:
    lines[2]["pool"] = 12


def _set_first_pool(lines: list[dict[str, Any]]) -> None:
    lines[1]["pool"] -= 1


def _add_to_rack(lines: list[dict[str, Any]]) -> None:
    lines[4]["rack"].append("K1")


def _short_first_rack(lines: list[dict[str, Any]]) -> None:
    lines[1]["rack"].pop()


def _opened_at_first(lines: list[dict[str, Any]]) -> None:
    lines[1]["opened"] = True


def _wrong_player(lines: list[dict[str, Any]]) -> None:
    lines[2]["player"] = lines[1]["player"]


def _scores(lines: list[dict[str, Any]]) -> None:
    lines[-1]["scores"] = [s + (1 if i == 0 else -1 if i == 1 else 0) for i, s in enumerate(lines[-1]["scores"])]


def _racks(lines: list[dict[str, Any]]) -> None:
    loser = next(i for i, r in enumerate(lines[-1]["racks"]) if r)
    lines[-1]["racks"][loser] = lines[-1]["racks"][loser][1:]


def _turns(lines: list[dict[str, Any]]) -> None:
    lines[-1]["turns"] += 1


def _winner(lines: list[dict[str, Any]]) -> None:
    lines[-1]["winner"] = lines[-1]["winner"] % 3 + 1  # another of the three players


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_set_pool, "'pool' is 12, but it held"),
        (_set_first_pool, "'pool' is"),
        (_add_to_rack, "'rack' is"),
        (_short_first_rack, "at player"),
        (_opened_at_first, "'opened' is true, but player"),
        (_wrong_player, "moves, but it is player"),
        (_scores, "'scores' is"),
        (_racks, "'racks' gives player"),
        (_turns, "'turns' is"),
        (_winner, "emptied their rack and won"),
    ],
)
def test_every_number_that_follows_from_the_rest_is_checked(
    edit: Callable[[list[dict[str, Any]]], None], message: str
) -> None:
    text, line = _edited(edit)
    with pytest.raises(InputError) as caught:
        parse_record(text, "x.jsonl")
    assert f"record x.jsonl line {line}: " in str(caught.value)
    assert message in str(caught.value)


def test_a_table_that_is_not_the_one_left_is_refused() -> None:
    lines = [json.loads(line) for line in _lines(played_game())]
    number, turn = next((n, d) for n, d in enumerate(lines, 1) if d["type"] == "turn" and d["table"])
    turn["table"] = turn["table"][1:]
    turn["table_after"] = turn["table"] + [s for s in turn["table_after"] if s not in turn["table"]][1:]
    with pytest.raises(InputError, match=rf"line {number}: 'table'"):
        parse_record("\n".join(json.dumps(d) for d in lines), "x.jsonl")


def test_analyze_refuses_an_edited_pool_count(tmp_path: Path) -> None:
    """The issue's record: the pool after turn 2 edited from its true count to 12."""
    from click.testing import CliRunner

    from cli.main import cli

    text, line = _edited(_set_pool)
    path = tmp_path / "edited.jsonl"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["analyze", str(path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"Error: record {path} line {line}: 'pool' is 12, but it held ")
    assert result.stderr.count("\n") == 1


def test_a_record_without_a_deal_is_taken_up_where_it_starts() -> None:
    """Hand-written records may start from any position; from then on they must add up."""
    lines = [json.loads(line) for line in _lines(played_game())]
    del lines[0]["deal"]
    tail = [lines[0], *lines[4:]]
    for turn_number, line in enumerate(tail[1:-1], 1):
        line["turn"] = turn_number
    tail[0]["first_player"] = tail[1]["player"]
    tail[-1]["turns"] = len(tail) - 2
    record = parse_record("\n".join(json.dumps(d) for d in tail[:-1]), "x.jsonl")
    assert len(record.turns) == len(tail) - 2


def test_copies_held_across_players_at_once_are_counted() -> None:
    # Each line fits the rules alone; together two O3 are in play at once where the game has one.
    game = {"type": "game", "version": 1, "rules": {"copies": 1}, "seed": 1, "scoring": "standard",
            "players": [{"player": 1, "name": "a", "kind": "ai"}, {"player": 2, "name": "b", "kind": "ai"}],
            "first_player": 1}
    turns = [
        {"type": "turn", "turn": 1, "player": 1, "opened": False, "rack": ["O3", "B1"], "table": [],
         "played": [], "drew": "K2", "table_after": [], "pool": 10},
        {"type": "turn", "turn": 2, "player": 2, "opened": False, "rack": ["O3", "R5"], "table": [],
         "played": [], "drew": "K4", "table_after": [], "pool": 9},
    ]
    text = "\n".join(json.dumps(line) for line in [game, *turns])
    with pytest.raises(InputError) as caught:
        parse_record(text, "x.jsonl")
    assert str(caught.value) == (
        "record x.jsonl line 2: too many copies of O3 at once: 2 on the table and the racks"
        " (player 1: 1, player 2: 1), the game has 1"
    )
    turns[1]["rack"] = ["K3", "R5"]  # the same without the second O3 is read
    assert len(parse_record("\n".join(json.dumps(line) for line in [game, *turns]), "x.jsonl").turns) == 2


def test_a_record_written_as_the_game_goes_stays_readable_when_the_disk_fills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    from solver.game.records import RecordWriter

    lines = [json.loads(line) for line in _lines(played_game())]
    path = tmp_path / "rec.jsonl"
    writer = RecordWriter(path, lines[0])
    writer.turn(lines[1])
    real_write = os.write

    def half_then_full(fd: int, data: bytes) -> int:
        if len(data) > 8:
            return real_write(fd, data[: len(data) // 2])  # half the line goes down...
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # ...then the disk is full

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(InputError, match=f"cannot write record {path}: No space left on device"):
        writer.turn(lines[2])
    monkeypatch.undo()
    writer.close()
    assert path.read_text().splitlines() == [json.dumps(line, separators=(", ", ": ")) for line in lines[:2]]


def test_a_player_name_that_would_move_the_terminal_is_refused() -> None:
    lines = [json.loads(line) for line in _lines(played_game())]
    lines[0]["players"][0]["name"] = "\x1b[2Jyou"  # clears the screen when printed
    with pytest.raises(InputError, match=r"line 1 player 1: 'name' must be printable text, got '\\x1b\[2Jyou'"):
        parse_record("\n".join(json.dumps(line) for line in lines), "x.jsonl")
