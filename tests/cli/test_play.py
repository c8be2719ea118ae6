"""Tests of ``rummikub play`` (driven by scripted input through CliRunner) and of the turn logic
in cli/session.py and solver/game/editor.py (the edit state with undo/redo, the commands, the turn timer).

The scripted player plays the solver's one-turn optimum by typing commands: it takes every table
set the move changes into the workspace, then lays the new sets. The same script is replayed on the
library to know the expected scores, and the game record the CLI writes is checked independently:
every turn is legal and ``analyze`` finds every move of the scripted player best.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from cli.main import cli
from cli.session import HumanTurn, Reply, as_typed, parse_command, record_path, seat_names
from solver.game.analysis import analyze_file
from solver.game.editor import TIMER_RULES, EditError, TurnEditor, TurnTimer
from solver.game.engine import Game, GameConfig, Match, RoundResult
from solver.game.players import ai_turn, make_player
from solver.game.records import read_record
from solver.position import Position
from solver.rules import JokerRules, RuleSet
from solver.solution import unchanged
from solver.solve import solve
from solver.tiles import JOKER, Tile, format_tiles, parse_token
from solver.validator import validate

SMALL = ["--numbers", "7", "--meld-threshold", "10", "--rack-size", "7"]
SMALL_RULES = RuleSet.from_options({"numbers": 7, "meld-threshold": 10})


def run(args: list[str], script: list[str]) -> Result:
    result = CliRunner().invoke(cli, ["play", "--no-color", *args], input="".join(f"{c}\n" for c in script))
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def tiles(text: str) -> list[Tile]:
    return [t for word in text.split() for t in parse_token(word, SMALL_RULES)]


def optimum_commands(position: Position) -> list[str]:
    """The one-turn optimum as typed commands: take the changed sets apart, lay the new ones."""
    best = solve(position)
    if not best.played:
        return ["draw"]
    after = [s.tiles for s in best.table]
    kept = unchanged(position.table, after)
    commands = [
        f"take {i + 1} {format_tiles(position.table[i])}"
        # from the last set back, so the numbers of the sets still to take do not change
        for i in sorted(set(range(len(position.table))) - set(kept), reverse=True)
    ]
    new_sets = [sorted(s) for s in after]
    for i in kept:
        new_sets.remove(sorted(position.table[i]))
    return [*commands, *(f"lay {format_tiles(s)}" for s in new_sets), "done"]


def replay(seed: int, rounds: int, levels: list[str]) -> tuple[list[str], list[RoundResult]]:
    """Play the match on the library with the scripted player in seat 0: its script and results."""
    config = GameConfig(rules=SMALL_RULES, players=len(levels) + 1, seed=seed, rack_size=7)
    match = Match(config)
    ais = {seat: make_player(level) for seat, level in enumerate(levels, 1)}
    script: list[str] = []
    for _ in range(rounds):
        game = match.new_round()
        while not game.over:
            if game.seat == 0:
                turn = HumanTurn(game)
                for command in optimum_commands(game.position()):
                    reply = turn.handle(command)
                    assert not reply.error, (command, reply.message)
                    script.append(command)
                assert reply.ended is not None
            else:
                ai_turn(game, ais[game.seat])
        match.add(game.result())
    return script, match.results


# --------------------------------------------------------------------------- whole games


def test_scripted_match_of_two_rounds(tmp_path: Path) -> None:
    seed, levels = 1, ["medium"]
    script, results = replay(seed, 2, levels)
    assert any(c.startswith("take") for c in script)  # the script does rearrange the table
    record = tmp_path / "game.jsonl"
    result = run([*SMALL, "--seed", str(seed), "--rounds", "2", "--record", str(record)], script)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert "Round 1 over:" in out and "Round 2 over:" in out and "Final standings: 1. " in out
    # Scores and running totals as the library computes them.
    names = seat_names(levels)
    total = [0, 0]
    sections = out.split("Scores (round, total, rack left):")[1:]  # the header names the columns in order
    assert len(sections) == len(results) == 2
    for result_round, section in zip(results, sections):
        total = [a + b for a, b in zip(total, result_round.scores)]
        rows = section.strip().splitlines()[: len(names)]
        for seat, row in enumerate(rows):
            words = row.split()
            assert words[0] == names[seat]
            assert (int(words[1]), int(words[2])) == (result_round.scores[seat], total[seat])
            rack = " ".join(words[3:])
            assert rack == (format_tiles(result_round.racks[seat]) or "-")
    # One record per round, each a legal game the scripted player played perfectly.
    for round_number, expected in enumerate(results, 1):
        path = tmp_path / f"game-{round_number}.jsonl"
        game = read_record(path)
        assert game.result is not None and game.result.scores == expected.scores
        assert [p.kind for p in game.header.players] == ["human", "ai"]
        for turn in game.turns:
            position = Position(turn.rack, turn.table, turn.opened, game.rules)
            assert validate(position, turn.table_after) == [] or not turn.played
        mine = analyze_file(str(path), player=1)
        assert mine.turns and all(t.label.value == "best" for t in mine.turns)


def test_a_match_left_after_a_round_says_the_standings_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    script, results = replay(1, 1, ["medium"])
    leader = max(range(2), key=lambda seat: results[0].scores[seat])
    said = f"Game abandoned; standings after 1 round: 1. {seat_names(['medium'])[leader]} ({results[0].scores[leader]:+}), "
    out = run([*SMALL, "--seed", "1", "--rounds", "2"], [*script, "quit"]).stdout
    assert said in out and "Round 2 over" not in out
    # Left by Ctrl-C twice at the prompt instead of 'quit': the same standings, then interrupted.
    from cli.prompt import Prompt

    typed = Prompt._read

    def then_ctrl_c(self: Prompt, prompt: str) -> str | None:
        line = typed(self, prompt)
        if line is None:
            raise KeyboardInterrupt
        return line

    monkeypatch.setattr(Prompt, "_read", then_ctrl_c)
    result = CliRunner().invoke(cli, ["play", "--no-color", *SMALL, "--seed", "1", "--rounds", "2"], input="\n".join(script) + "\n")
    assert said in result.stdout and result.exit_code != 0  # the command ends as interrupted
    # Or by one Ctrl-C while an AI thinks in round 2 (no line to drop).
    import cli.play_commands as play_commands

    monkeypatch.undo()
    moves, first = play_commands._ai_move, []

    def thinking_interrupted(game: Game, ais: Any) -> Any:
        if first and game is not first[0]:
            raise KeyboardInterrupt
        first[:] = first or [game]
        return moves(game, ais)

    monkeypatch.setattr(play_commands, "_ai_move", thinking_interrupted)
    lines = "\n".join([*script, *["draw"] * 40]) + "\n"
    result = CliRunner().invoke(cli, ["play", "--no-color", *SMALL, "--seed", "1", "--rounds", "2"], input=lines)
    assert said in result.stdout and result.exit_code != 0


def test_a_recorded_round_replays_from_its_seed(tmp_path: Path) -> None:
    """Each round's record holds the seed that deals it again: `play --seed` of it, same deal."""
    script, _ = replay(1, 2, ["medium"])
    record = tmp_path / "game.jsonl"
    assert run([*SMALL, "--seed", "1", "--rounds", "2", "--record", str(record)], script).exit_code == 0
    for path in (tmp_path / "game-1.jsonl", tmp_path / "game-2.jsonl"):
        game = read_record(path)
        mine = next(t for t in game.turns if t.player == 1)
        again = run([*SMALL, "--seed", str(game.header.seed)], ["quit"])
        assert again.exit_code == 0
        starts = "you start" if game.header.first_player == 1 else "medium starts"
        assert f"Round 1: {starts} (the highest tile in the draw)." in again.stdout
        shown = next(line for line in again.stdout.splitlines() if line.startswith("Your rack"))
        assert Counter(tiles(shown.split(":", 1)[1])) == Counter(mine.rack)
        # The other player's deal too: the AI that moved first in the record moves the same way.
        if game.header.first_player == 2:
            ai = game.turns[0]
            said = f"medium played {len(ai.played)} tile" if ai.played else "medium drew a tile."
            assert said in again.stdout


def test_three_players_play_to_the_end() -> None:
    script, results = replay(4, 1, ["easy", "hard"])
    result = run([*SMALL, "--seed", "4", "--opponents", "easy,hard"], script)
    assert result.exit_code == 0, result.stderr
    assert "you against easy, hard" in result.stdout
    winner = results[0].winner
    assert winner is not None
    name = seat_names(["easy", "hard"])[winner]
    assert f"Round 1 over: {name} " in result.stdout
    assert "Final standings" not in result.stdout  # one round: no standings


# --------------------------------------------------------------------------- one turn, scripted


def first_turn_rack(seed: int) -> tuple[Tile, ...]:
    """The scripted player's rack at its first turn (the AI may move first)."""
    game = Match(GameConfig(rules=SMALL_RULES, players=2, seed=seed, rack_size=7)).new_round()
    ai = make_player("medium")
    while game.seat != 0:
        ai_turn(game, ai)
    return tuple(game.racks[0])


def test_undo_redo_refused_done_and_bad_tokens() -> None:
    rack = first_turn_rack(2)
    one = str(rack[0])
    script = [
        "frobnicate",
        "lay X5",
        "add 9 " + one,
        "done",  # nothing laid yet
        f"lay {one}",
        "done",  # a one-tile set
        "undo",
        "undo",  # nothing left to undo
        "redo",
        "redo",  # nothing left to redo
        "reset",
        "undo",  # back to the one-tile set
        "hint 4",
        "quit",
    ]
    result = run([*SMALL, "--seed", "2"], script)
    assert result.exit_code == 0 and result.stderr == ""
    out = result.stdout
    assert "unknown command 'frobnicate' (help lists the commands)" in out
    assert "invalid tile 'X5': unknown colour 'X'" in out
    assert "there is no set 9: the table is empty" in out
    assert (
        "The turn cannot end yet:\n  - no tile from your rack is on the table: lay at least one, or draw"
        in out
    )
    assert f"  - set 1 ({one}) is not valid: too short" in out
    assert "nothing to undo" in out and "nothing to redo" in out
    # undo and redo say what they undid and redid
    assert f"undone: laid {one} as set 1" in out and f"redone: laid {one} as set 1" in out
    assert "> reset: the table and rack as at the start of the turn" in out
    assert "undone: reset: the table and rack as at the start of the turn" in out
    assert "hint level must be 1, 2 or 3, got '4'" in out
    # The one-tile set is shown when laid, redone, and brought back by undoing the reset.
    assert out.count(f"  1: [{one}]   <- not valid") == 3  # [ ]: laid from the rack this turn
    assert out.rstrip().endswith("Game abandoned.")


def test_end_of_input_abandons_the_game() -> None:
    result = run([*SMALL, "--seed", "2"], [])
    assert result.exit_code == 0
    assert result.stdout.rstrip().endswith("Game abandoned.")


def test_hint_and_help() -> None:
    result = run([*SMALL, "--seed", "2"], ["help", "hint 2", "quit"])
    assert "move N TILES M" in result.stdout and "undo / redo" in result.stdout
    # Rack K6 K6 B7 B7 R6 O1 O2 makes no set of its own: no opening this turn.
    assert "Your rack (7): K6 K6  B7 B7  R6  O1 O2" in result.stdout
    assert "> No move this turn: draw a tile (this turn is the initial meld" in result.stdout


def test_a_hint_among_several_commands_on_a_line_is_said_in_its_place() -> None:
    result = run([*SMALL, "--seed", "2"], ["hint 1; show", "hint 2; hint 1", "quit"])
    out = result.stdout
    first = out.index("> No move this turn")  # hint 1 before the table 'show' draws
    assert out.index("Table: empty", first) > first
    assert out.count("No move this turn: draw a tile") == 3  # both hints of the second line too


def test_ctrl_c_during_a_hint_stops_the_hint_not_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow_hint(*_: object) -> None:
        raise KeyboardInterrupt  # as Ctrl-C arrives while the solver is searching

    monkeypatch.setattr("cli.session.hint", slow_hint)
    result = run([*SMALL, "--seed", "2"], ["hint 3; done", "show", "quit"])
    assert "hint stopped (Ctrl-C): the turn goes on; 'quit' ends the game" in result.stdout
    assert "not carried out: done" in result.stdout  # the rest of the line waits, as after any refusal
    assert result.stdout.count("Your rack (") >= 2  # still the same turn after 'show'
    assert result.exit_code == 0 and "Interrupted" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--opponents", "easy,grandmaster"], "unknown level 'grandmaster'"),
        (["--opponents", "easy,easy,easy,easy"], "1 to 3 AI players, got 4"),
        (["--players", "3", "--opponents", "hard"], "--players 3 but --opponents names 1 AI player (2 in all)"),
        (["--turn-time", "30"], "'30' is not one of '40', '60'"),
        (["--opponents", ",hard"], "an empty name between commas in ',hard'"),
        (["--force"], "--force overwrites the --record file: give --record FILE too"),
    ],
)
def test_usage_errors(args: list[str], message: str) -> None:
    result = run(args, ["quit"])
    assert result.exit_code == 2
    assert message in result.stderr


def test_impossible_deal_is_bad_input() -> None:
    result = run(
        ["--numbers", "3", "--colours", "2", "--copies", "1", "--jokers", "0", "--seed", "1"], ["quit"]
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ") and "tiles" in result.stderr


def test_a_record_file_there_is_refused_before_the_game_unless_forced(tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    record.write_text("a record of another evening\n")
    refused = run([*SMALL, "--seed", "1", "--record", str(record)], ["quit"])
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr == f"Error: record file {record} already exists (use --force to overwrite it)\n"
    assert record.read_text() == "a record of another evening\n"
    (tmp_path / "game-2.jsonl").write_text("")  # one round's file of two is enough to refuse
    assert run([*SMALL, "--rounds", "2", "--record", str(tmp_path / "game.jsonl")], ["quit"]).exit_code == 1
    forced = run([*SMALL, "--seed", "1", "--record", str(record), "--force"], ["quit"])
    assert forced.exit_code == 0 and record.read_text().startswith('{"type": "game"')


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_record_that_cannot_be_written_is_refused_before_the_game(tmp_path: Path, force: list[str]) -> None:
    folder = run([*SMALL, "--seed", "1", "--record", str(tmp_path), *force], ["quit"])
    assert folder.exit_code == 1 and folder.stdout == ""
    assert folder.stderr == f"Error: record file {tmp_path} is a folder: give a file name for the record\n"
    nowhere = tmp_path / "no" / "game.jsonl"
    missing = run([*SMALL, "--seed", "1", "--record", str(nowhere), *force], ["quit"])
    assert missing.exit_code == 1 and missing.stdout == ""
    assert missing.stderr == f"Error: cannot write record {nowhere}: the folder {nowhere.parent} does not exist\n"
    (tmp_path / "afile").write_text("a file")
    under_a_file = tmp_path / "afile" / "game.jsonl"
    filed = run([*SMALL, "--seed", "1", "--record", str(under_a_file), *force], ["quit"])
    assert filed.stderr == f"Error: cannot write record {under_a_file}: the folder {tmp_path / 'afile'} is a file, not a folder\n"


def test_a_record_that_fails_during_the_game_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from solver.errors import InputError
    from solver.game.records import RecordWriter

    record = tmp_path / "game.jsonl"

    def disk_full(self: RecordWriter, turn: object) -> None:
        raise InputError(f"cannot write record {record}: No space left on device")

    monkeypatch.setattr(RecordWriter, "turn", disk_full)
    result = run([*SMALL, "--seed", "1", "--record", str(record)], ["draw"] * 3)
    assert result.exit_code == 1  # bad input or a full disk, not "internal error"
    assert result.stderr.endswith(f"Error: cannot write record {record}: No space left on device\n")


def test_ai_beside_opponents_is_refused_not_ignored() -> None:
    result = run(["--opponents", "hard", "--ai", "easy"], ["quit"])
    assert result.exit_code == 2 and "--ai sets every AI's level when --opponents is not given" in result.stderr


def test_record_paths() -> None:
    assert record_path("g.jsonl", 1, 1) == "g.jsonl"
    assert record_path("dir/g.jsonl", 2, 3) == str(Path("dir/g-2.jsonl"))
    assert seat_names(["hard", "hard", "easy"]) == ["you", "hard 2", "hard 3", "easy"]


# --------------------------------------------------------------------------- the editor


def editor(rack: str, table: list[str], opened: bool = True) -> TurnEditor:
    position = Position(tuple(tiles(rack)), tuple(tuple(tiles(s)) for s in table), opened, SMALL_RULES)
    return TurnEditor(position)


def do(ed: TurnEditor, line: str) -> str:
    return ed.apply(parse_command(line, SMALL_RULES))


def shown(ed: TurnEditor) -> list[str]:
    return [format_tiles(s) for s in ed.state.table]


@pytest.mark.parametrize("line", ["take 1 J@5", "move 1 J@5 new", "take 1 K5@4 J@5"])
def test_a_tile_s_place_says_which_joker_leaves_a_set(line: str) -> None:
    """Strict jokers: of J K3 K4 K5 J (K2 and K6) the fifth goes, and the first stays the K2; the
    place reads as typed and back (a hint's commands say it where it matters)."""
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    position = Position((), (tuple(tiles("J K3 K4 K5 J")),), True, rules)
    ed = TurnEditor(position)
    command = parse_command(line, rules)
    assert as_typed(command) == line
    ed.apply(command)
    assert format_tiles(ed.state.table[0]).startswith("J K3 K4")
    assert JOKER in ed.state.workspace or any(s == (JOKER,) for s in ed.state.table)


@pytest.mark.parametrize(("line", "after"), [("add 1 J", "K3 J K5 J"), ("add 1 J@1", "J K3 J K5"), ("add 1 K2@1 J@4", "K2 K3 J J K5")])
def test_a_tile_s_place_says_where_an_added_joker_stands(line: str, after: str) -> None:
    """Strict jokers: a joker added to K3 J K5 goes at the end (the K6) unless its place says the
    front (the K2); the set's own joker stays the K4 as long as it can."""
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    ed = TurnEditor(Position(tuple(tiles("J K2 K7")), (tuple(tiles("K3 J K5")),), True, rules))
    command = parse_command(line, rules)
    assert as_typed(command) == line
    ed.apply(command)
    assert format_tiles(ed.state.table[0]) == after


def test_an_added_tile_s_place_must_be_in_the_set() -> None:
    rules = RuleSet(joker_rules=JokerRules.STRICT)
    ed = TurnEditor(Position(tuple(tiles("J K2")), (tuple(tiles("K3 J K5")),), True, rules))
    with pytest.raises(EditError, match="a place in the set is one of 1 to 4: the set will hold 4 tiles"):
        ed.apply(parse_command("add 1 J@5", rules))
    with pytest.raises(EditError, match="give one place per tile"):
        ed.apply(parse_command("add 1 J@1 K2@1", rules))
    assert format_tiles(ed.state.table[0]) == "K3 J K5" and sorted(ed.state.rack) == sorted(tiles("J K2"))


def test_split_a_run_to_make_room() -> None:
    # B2-6 and B4 on the rack: split at B4 gives B2 B3 | B4 B5 B6; B4 completes B2 B3 B4.
    ed = editor("B4 K1", ["B2-6"])
    assert do(ed, "split 1 B4") == "split set 1: B2 B3 stays set 1, B4 B5 B6 is set 2"
    do(ed, "add 1 B4")
    assert shown(ed) == ["B2 B3 B4", "B4 B5 B6"]
    assert ed.finish() == ((*tiles("B2 B3 B4"),), (*tiles("B4 B5 B6"),))


def test_move_take_lay_back_and_the_workspace() -> None:
    ed = editor("R7 O7 K1", ["B4 B5 B6 B7", "K2 K3 K4"])
    do(ed, "take 1 B7")
    assert ed.state.workspace == (*tiles("B7"),)
    with pytest.raises(EditError, match="K2 not in set 1"):
        do(ed, "take 1 K2")
    do(ed, "lay R7 O7 B7")  # B7 from the workspace, R7 O7 from the rack
    assert ed.state.workspace == () and shown(ed)[-1] == "B7 R7 O7"
    do(ed, "move 2 K4 new")
    assert shown(ed) == ["B4 B5 B6", "K2 K3", "B7 R7 O7", "K4"]
    assert any("set 2 (K2 K3) is not valid" in p for p in ed.problems())
    do(ed, "move 4 K4 2")
    assert shown(ed) == ["B4 B5 B6", "K2 K3 K4", "B7 R7 O7", ""]  # set 4 emptied: no number shifts
    do(ed, "add 2 K1")
    assert shown(ed)[1] == "K1 K2 K3 K4" and ed.problems() == []
    # Your own tile can go back to the rack; a table tile cannot.
    do(ed, "take 2 K1")
    do(ed, "take 1 B6")
    with pytest.raises(EditError, match="B6 did not come from your rack this turn"):
        do(ed, "back B6")
    do(ed, "back K1")
    assert ed.state.rack == (*tiles("K1"),)
    assert ed.problems() == [
        "the workspace still holds B6: place every tile in a set",
        "set 1 (B4 B5) is not valid: too short: 2 tiles, a set needs at least 3",
    ]


def test_undo_redo_walk_every_manipulation() -> None:
    ed = editor("R5 R6 R7 K1", [])
    do(ed, "lay R5 R6")
    do(ed, "add 1 R7")
    states = [shown(ed)]
    ed.undo()
    assert shown(ed) == ["R5 R6"]
    ed.undo()
    assert shown(ed) == [] and ed.state.rack == (*tiles("K1 R5 R6 R7"),)
    with pytest.raises(EditError, match="nothing to undo"):
        ed.undo()
    ed.redo()
    ed.redo()
    assert [shown(ed)] == states
    ed.undo()
    do(ed, "lay K1 R7")  # a new manipulation drops the redo
    with pytest.raises(EditError, match="nothing to redo"):
        ed.redo()


def test_initial_meld_rules_checked_at_done() -> None:
    ed = editor("B4 K3 R3 O3", ["B1 B2 B3"], opened=False)
    do(ed, "add 1 B4")
    assert any("changed before opening" in p for p in ed.problems())
    ed.undo()
    do(ed, "lay K3 R3 O3")  # 9 points; the meld needs 10
    assert ed.problems() == ["initial meld worth 9 points, needs at least 10"]
    with pytest.raises(EditError, match="the turn cannot end yet: initial meld worth 9 points"):
        ed.finish()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "type a command"),
        ("move 1 R5", "give the tiles and the set to move them to"),
        ("split 1 R5 R6", "split takes one tile"),
        ("add x R5", "'x' is not a set number"),
        ("lay", "no tiles given (usage: lay TILES)"),
        ("undo 2", "undo takes nothing after it"),
        ("take 0 R5", "'0' is not a set number"),
        ("take 1 J@0", "'J@0': after @ comes the tile's place in the set, counted from 1"),
        ("take 1 R4-6@2", "'R4-6@2': a place is for one tile, not 3"),
        ("move 1 J@2 R5 2", "give every tile its place (TILE@P) or none: J@2 R5"),
        ("lay J@2 R5 R6", "'J@2': a place (TILE@P) is for add, move, take and split: where in the set the tile goes"),
        ("add 1 J@2 R5", "give every tile its place (TILE@P) or none: J@2 R5"),
    ],
)
def test_bad_commands(line: str, message: str) -> None:
    with pytest.raises(EditError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_command(line, SMALL_RULES)


# --------------------------------------------------------------------------- the turn timer


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def timed_game(rule_seconds: int) -> tuple[Game, HumanTurn, Clock]:
    rules = SMALL_RULES
    config = GameConfig(rules=rules, players=2, seed=0, rack_size=7)
    game = Game.new(config)
    # A known position: seat 0 to move, opened, with a run on the table.
    game.racks[0] = sorted(tiles("R4 K1 K2"))
    game.table = [tiles("B1 B2 B3 B4")]
    game.opened[0] = True
    game.seat = 0
    clock = Clock()
    turn = HumanTurn(game, TurnTimer(TIMER_RULES[rule_seconds], clock))
    return game, turn, clock


def test_forty_seconds_restore_the_table_and_draw_one() -> None:
    game, turn, clock = timed_game(40)
    pool = game.pool_size
    assert not turn.handle("take 1 B4").error
    assert not turn.handle("lay R4").error
    clock.now = 40.5
    reply = turn.handle("done")
    assert reply.timed_out and reply.ended is not None
    assert "the table restored" in reply.message
    assert game.table == [tiles("B1 B2 B3 B4")]
    assert len(game.racks[0]) == 4 and game.pool_size == pool - 1
    assert len(reply.ended.penalty) == 1


def test_sixty_seconds_take_back_broken_sets_and_draw_three() -> None:
    game, turn, clock = timed_game(60)
    assert not turn.handle("take 1 B4").error
    assert not turn.handle("lay K1 K2").error  # a broken set
    clock.now = 59.0
    assert not turn.handle("show").timed_out  # still in time
    clock.now = 61.0
    reply = turn.handle("done")
    assert reply.timed_out and reply.ended is not None
    # B1 B2 B3 was valid and stays; B4 (loose) and K1 K2 (broken) go to the rack, plus 3 tiles.
    assert game.table == [tiles("B1 B2 B3")]
    assert not Counter(tiles("B4 K1 K2 R4")) - Counter(game.racks[0])
    assert len(game.racks[0]) == 4 + 3 and len(reply.ended.penalty) == 3
    assert reply.ended.to_dict()["penalty"] == [str(t) for t in reply.ended.penalty]


# --------------------------------------------------------------------------- the screen, at 80 columns


def _screen_lines(capsys: pytest.CaptureFixture[str], color: bool, width: int = 80) -> list[str]:
    """Everything play prints in a worst case: four players, a 14-tile rack of two-digit tiles,
    a long run, invalid sets with long reasons, a workspace, an AI's many steps, a level-3 hint
    with its commands, and a club round's end."""
    from cli.play_commands import Screen
    from puzzles.library import find
    from solver.game.engine import RoundResult, TurnRecord
    from solver.hint import hint

    rules = RuleSet.from_options({"meld-threshold": 10_000})

    def full(text: str) -> list[Tile]:
        return [t for word in text.split() for t in parse_token(word, rules)]

    game = Game.new(GameConfig(rules=rules, players=4, seed=1))
    game.racks[0] = sorted(full("O13 B13 R13 K13 O12 B12 R12 K12 O11 B11 R11 K11 O10 J"))
    game.table = [full("K1-13"), full("B1-13"), full("R10 B10 K10")]
    game.turn, game.seat, game.opened[0] = 123, 0, False
    screen = Screen(color, seat_names(["medium", "medium", "medium"]), width)
    turn = HumanTurn(game)
    screen.turn_start(game, turn.editor, round_number=100)
    for line in ("take 1 K2 K4 K6 K8", "move 2 B1 B13 new", "lay O13 O12 O11 O10 K13 K12"):
        screen.reply(turn.handle(line), turn.editor)
    big = find("big-2").position
    best = solve(big)
    record = TurnRecord(1, 1, True, big.rack, big.table, best.played, None, tuple(s.tiles for s in best.table), 50)
    screen.ai_turn(record, big.rules)
    found = hint(big, 3)
    commands = tuple(f"take {n} K2 R2 O2 K13 B13" for n in range(10, 16))
    screen.reply(Reply(hint=found, commands=commands), turn.editor)
    match = Match(GameConfig(rules=rules, players=4, seed=1, scoring="club"))
    result = RoundResult(1, "rack_empty", (-300, 600, -150, -150), tuple(tuple(game.racks[0]) for _ in range(4)),
                         "club", (0, 1, 0, 0), (1,))
    match.add(result)
    screen.round_end(100, result, match)
    screen.final(match)
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("color", [False, True])
def test_the_screen_fits_80_columns(capsys: pytest.CaptureFixture[str], color: bool) -> None:
    from cli.render import width_of

    lines = _screen_lines(capsys, color)
    assert any(line.startswith("Your rack (14): ") for line in lines)
    assert any("medium 4" in line for line in lines)
    # A hint's commands too: on lines of whole commands, each typeable as it stands.
    at = lines.index("To do it, type these lines (or all of them as one):")
    typed = lines[at + 1 : at + 1 + next(i for i, line in enumerate(lines[at + 1 :]) if line.endswith("done")) + 1]
    assert len(typed) > 1 and all(line.startswith("  take ") for line in typed[:-1])
    joined = "; ".join(line.strip() for line in typed)
    assert joined == "; ".join([f"take {n} K2 R2 O2 K13 B13" for n in range(10, 16)] + ["done"])
    too_wide = [line for line in lines if width_of(line) > 80]
    assert too_wide == []
    # A coloured tile is never cut: every escape sequence opened on a line is closed on it.
    for line in lines:
        assert line.count("\x1b[0m") == len([m for m in line.split("\x1b[") if m.startswith("38;5")])


@pytest.mark.parametrize("width", [40, 44, 60])
def test_a_player_s_tile_count_is_never_broken(capsys: pytest.CaptureFixture[str], width: int) -> None:
    """"medium 4: 14" stays on one line (at 60 columns it broke between "medium" and "4")."""
    lines = _screen_lines(capsys, False, width)
    at = next(i for i, line in enumerate(lines) if line.startswith("Tiles on the other racks:"))
    said = lines[at : at + 3]
    for n in (2, 3, 4):
        assert sum(f"medium {n}: 14" in line for line in said) == 1
    assert "\u00a0" not in "".join(lines)  # the glue is printed as a space


@pytest.mark.parametrize("color", [False, True])
@pytest.mark.parametrize("width", [44, 80])
def test_a_colour_s_tiles_on_the_rack_are_not_broken_across_lines(
    capsys: pytest.CaptureFixture[str], color: bool, width: int
) -> None:
    """The rack shows a group per colour: a line breaks between groups, not inside one that fits
    on a line (at 80 columns a rack of 21 ended a line with R1 and began the next with R10)."""
    from cli.play_commands import Screen

    rules = RuleSet()
    game = Game.new(GameConfig(rules=rules, players=2, seed=1))
    rack = "K3 K6 K7 K10 K11 B1 B2 B3 B4 B8 B10 R1 R10 O3 O4 O6 O7 O9 O11 J J"
    game.racks[0] = [t for word in rack.split() for t in parse_token(word, rules)]
    game.seat = 0
    screen = Screen(color, seat_names(["medium"]), width)
    screen.turn_start(game, HumanTurn(game).editor, round_number=1)
    lines = [click.unstyle(line) for line in capsys.readouterr().out.splitlines()]
    at = next(i for i, line in enumerate(lines) if line.startswith("Your rack (21): "))
    shown = [lines[at][len("Your rack (21): "):]]
    shown += [line for line in lines[at + 1 :] if line.startswith("    ")]
    assert len(shown) > 1 and max(len(line) for line in lines[at : at + len(shown)]) <= width
    assert " ".join(" ".join(shown).split()) == rack  # every tile, in order
    for letter in "KBROJ":
        assert sum(f"{letter}" in line.replace("[", "") for line in shown) == 1, (letter, shown)


@pytest.mark.parametrize("width", [60, 80])
def test_a_long_rack_left_goes_on_under_its_column(capsys: pytest.CaptureFixture[str], width: int) -> None:
    """The round's scores: a rack too long for its line goes on under the rack column, not under
    the figures (at 60 columns the rest of a rack stood under the scores)."""
    lines = _screen_lines(capsys, False, width)
    at = next(i for i, line in enumerate(lines) if line.startswith("Scores (round"))
    rows = lines[at + 1 : at + 1 + next(i for i, line in enumerate(lines[at + 1 :]) if line.startswith("Final"))]
    figures = re.match(r"  \S.{9} +[+-]\d+ +[+-]\d+ +\d+   ", rows[0])
    assert figures is not None
    go_on = [line for line in rows if line and not re.match(r"  \S", line)]
    assert go_on and all(len(line) - len(line.lstrip(" ")) == len(figures.group(0)) for line in go_on)


def test_the_screen_follows_a_window_resized_mid_game(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """At a terminal each line is laid out for the window's width as it is printed: a game
    started at 80 columns kept 80-column lines in a window narrowed to 50."""
    import cli.play_commands
    from cli.play_commands import Screen
    from cli.prompt import DROPPED, Prompt
    from tests.cli.test_prompt import Typed

    columns = [80]
    monkeypatch.setattr(cli.play_commands, "output_width", lambda: columns[0])
    screen = Screen(False, ["you", "medium"])
    long = "Your rack (14): " + " ".join(f"K{n}" for n in range(1, 14)) + " J"
    screen.echo(long)
    columns[0] = 50
    screen.echo(long)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == long and len(lines) > 2 and max(map(len, lines[1:])) <= 50
    # The prompt's own message too.
    prompt = Prompt(Typed([None, "quit\n"]), lambda: 40)
    assert prompt.read(lambda: "> ") == "quit"
    said = capsys.readouterr().out.splitlines()
    assert max(map(len, said)) <= 40 and " ".join(" ".join(said).split()) == "> " + DROPPED + " >"


def _words(lines: list[str]) -> list[str]:
    """The words of the text, however it was wrapped (a hint's commands however they were grouped)."""
    text = " ".join(click.unstyle("\n".join(lines)).split())
    text = text.replace("To do it, type these lines (or all of them as one):", "To do it, type:")
    return [word.rstrip(";") for word in text.split()]  # commands on one line or on several


@pytest.mark.parametrize("color", [False, True])
@pytest.mark.parametrize("width", [40, 60, 120])
def test_the_screen_fits_the_width_it_is_given(capsys: pytest.CaptureFixture[str], color: bool, width: int) -> None:
    """Every line within the width, broken only between words: the same words in the same order
    as at 80 columns, a coloured tile never cut, no bracket or stop alone at a line's start."""
    from cli.render import width_of

    lines = _screen_lines(capsys, color, width)
    assert [line for line in lines if width_of(line) > width] == []
    assert _words(lines) == _words(_screen_lines(capsys, color))
    for line in lines:
        assert line.count("\x1b[0m") == len([m for m in line.split("\x1b[") if m.startswith("38;5")])
        assert click.unstyle(line).strip()[:1] not in (")", ".", ",", ";", "]")
        assert click.unstyle(line).count("[") == click.unstyle(line).count("]")  # [R7]: a tile laid from the rack
    if width > 80:  # the room is used: the long run and the rack on one line each
        assert any(width_of(line) > 80 for line in lines)
    # The sets' tiles go on under their first tile when a set is longer than the line.
    at = next(i for i, line in enumerate(lines) if re.match(r"^ +\*?1: +K1 ", click.unstyle(line)))
    column = len(lines[at].split(": ", 1)[0]) + 2  # the label is plain text; a tile may be coloured
    follow = lines[at + 1]
    wrapped = not re.match(r"^ +\*?\d+: ", click.unstyle(follow))
    assert wrapped or width > 40  # at 40 columns K1 to K13 take two lines
    if wrapped:
        assert len(follow) - len(follow.lstrip(" ")) == column and click.unstyle(follow).strip().startswith("K")


def _play_at(width: int | None, monkeypatch: pytest.MonkeyPatch, terminal: bool) -> str:
    """A game's screen through the command, COLUMNS set to ``width``, stdout a terminal or not."""
    monkeypatch.setattr("cli.options.on_terminal", lambda: terminal)
    env = {"COLUMNS": str(width) if width else None}
    script = ["help", "hint 3", "draw", "draw", "draw", "quit"]
    result = CliRunner().invoke(
        cli, ["play", "--no-color", "--seed", "7", "--opponents", "hard,medium,easy"], input="\n".join(script), env=env
    )
    assert result.exit_code == 0, result.output
    return result.stdout.replace("\n> ", "\n")  # the prompt: the scripted lines are not echoed


def test_play_fits_the_terminals_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a terminal, play formats for its width (COLUMNS says it here), down to 40 columns; into
    a pipe always for 80, whatever COLUMNS says, so files and tests stay as they are."""
    from cli.render import width_of

    piped = _play_at(None, monkeypatch, terminal=False)
    assert 70 < max(map(width_of, piped.splitlines())) <= 80
    assert _play_at(60, monkeypatch, terminal=False) == piped
    assert _play_at(80, monkeypatch, terminal=True) == piped
    for width, fits in ((60, 60), (120, 120), (20, 40)):  # below 40 columns: formatted for 40
        shown = _play_at(width, monkeypatch, terminal=True).splitlines()
        assert max(map(width_of, shown)) <= fits and _words(shown) == _words(piped.splitlines()), width
    at_60 = _play_at(60, monkeypatch, terminal=True)
    assert "Not opened yet: lay new sets from your rack worth at least\n    30 points." in at_60
    # The help's meanings go on under themselves, not under the commands.
    assert "  lay TILES          a new set (tiles from the workspace\n                     first, then" in at_60


# --------------------------------------------------------------------------- set numbers stay put


def test_an_emptied_set_keeps_its_number_and_takes_no_tiles() -> None:
    ed = editor("R7 K1", ["B4 B5 B6", "K2 K3 K4", "O1 O2 O3"])
    do(ed, "take 2 K2 K3 K4")
    assert [n for n, _ in ed.numbered()] == [1, 3]  # set 3 is still set 3
    with pytest.raises(EditError, match="set 2 is empty now"):
        do(ed, "add 2 K1")
    do(ed, "lay K2 K3 K4 K1")
    assert [n for n, _ in ed.numbered()] == [1, 3, 4]
    assert ed.finish() == tuple(tuple(tiles(s)) for s in ("B4 B5 B6", "O1 O2 O3", "K1 K2 K3 K4"))


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # unchanged sets keep their places; a new set goes at the end
        (["K1-3", "B4-6", "R5-7"], ["R5-7", "K1-3", "O1-3", "B4-6"], ["K1-3", "B4-6", "R5-7", "O1-3"]),
        # an extended set and the first part of a split keep their places, the rest follows
        (["B2-6", "K1-3"], ["K1-4", "B4-6", "B2-4"], ["B2-4", "K1-4", "B4-6"]),
        # a set broken up: the set rebuilt on it takes its place (the steps build the group of 5s
        # on the old one, the run K4-6 is new)
        (["K5 B5 R5", "R1-4", "O1-3"], ["O1-3", "R1-5", "K4-6", "B5 O5 J"], ["B5 O5 J", "R1-5", "O1-3", "K4-6"]),
        # a set merged into another leaves no set of its own: the places after it close up
        (["R1-3", "R4-6", "O1-3"], ["O1-3", "R1-6"], ["R1-6", "O1-3"]),
        # a broken group's tile went onto a run: the run keeps its own place, not the group's
        (["K5 B5 R5", "K2-4", "O1-3"], ["K2-5", "B5-7", "R5-7", "O1-3"], ["B5-7", "K2-5", "O1-3", "R5-7"]),
        # K6 taken out of a group of four for a new group with the rack's B6 O6: the rest of the
        # group keeps its place, as the steps tell it ("take K6 out of K6 B6 R6 O6")
        (["R1-3", "K6 B6 R6 O6", "K1-3"], ["R1-3", "K1-3", "K6 B6 O6", "B6 R6 O6"], ["R1-3", "B6 R6 O6", "K1-3", "K6 B6 O6"]),
    ],
)
def test_the_game_keeps_sets_in_their_places(before: list[str], after: list[str], expected: list[str]) -> None:
    from solver.game.engine import in_place

    placed = in_place([tiles(s) for s in before], [tiles(s) for s in after])
    assert [format_tiles(s) for s in placed] == [format_tiles(tiles(s)) for s in expected]
    assert in_place([tiles(s) for s in before], placed) == placed  # placed again: as it was (a replay)


def test_an_ai_turn_leaves_unchanged_sets_where_they_were() -> None:
    game = Game.new(GameConfig(rules=SMALL_RULES, players=2, seed=0, rack_size=7))
    game.seat = 1
    game.racks[1] = sorted(tiles("B1 O4 K6"))
    game.table = [tiles("R5 R6 R7"), tiles("K1 K2 K3"), tiles("B4 B5 B6 B7"), tiles("O1 O2 O3")]
    game.opened[1] = True
    record = ai_turn(game, make_player("medium"))
    assert record.played
    after = [format_tiles(s) for s in record.table_after]
    for i, s in enumerate(record.table):
        if any(Counter(s) == Counter(t) for t in record.table_after):
            assert after[i] == format_tiles(s)  # unchanged: the same number


def test_renumbering_between_turns_is_announced(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.play_commands import Screen

    screen = Screen(False, ["you", "medium"])
    screen.seen([tiles("K1 K2 K3"), tiles("B4 B5 B6"), tiles("R1 R2 R3")])
    game = Game.new(GameConfig(rules=SMALL_RULES, players=2, seed=0, rack_size=7))
    game.seat, game.opened[0] = 0, True
    game.table = [tiles("B4 B5 B6"), tiles("R1 R2 R3 R4")]  # K1 K2 K3 was broken up
    screen.table_now(game.table)
    game.racks[0] = sorted(tiles("O7"))
    screen.turn_start(game, TurnEditor(game.position()), 1)
    out = capsys.readouterr().out
    assert "Set numbers closed up where a set was broken up: 2->1, 3->2." in out  # R1 R2 R3 grew, moved too
    assert "Table (* changed since your last turn):\n  1: B4 B5 B6\n *2: R1 R2 R3 R4\n" in out


def test_sets_that_changed_in_their_places_are_marked_not_renumbered(capsys: pytest.CaptureFixture[str]) -> None:
    """Set 2 R7 … R11 trimmed to R8 R9 R10 and set 5 R8 R9 R10 turned into R9 R10 R11: no set
    was broken up, so no number moved, and both are marked changed (the two R8 R9 R10 alike)."""
    from cli.play_commands import Screen
    from solver.game.engine import in_place

    full = RuleSet()

    def sets(*texts: str) -> list[list[Tile]]:
        return [[t for word in text.split() for t in parse_token(word, full)] for text in texts]

    left = sets("K9 K10 K11 K12", "R7 R8 R9 R10 R11", "K8 B8 O8", "K13 B13 R13", "R8 R9 R10")
    screen = Screen(False, ["you", "hard"])
    screen.seen(left)
    once = in_place(left, sets("K9 K10 K11 K12", "R7 R8 R9 R10", "K8 B8 O8", "K13 B13 R13", "R9 R10 R11", "R8"))
    screen.table_now(once)
    game = Game.new(GameConfig(rules=full, players=2, seed=0, rack_size=7))
    game.seat, game.opened[0] = 0, True
    game.table = in_place(once, sets("K9 K10 K11 K12", "R8 R9 R10", "K8 B8 O8", "K13 B13 R13", "R9 R10 R11"))
    screen.table_now(game.table)
    screen.turn_start(game, TurnEditor(game.position()), 1)
    out = capsys.readouterr().out
    assert "closed up" not in out
    assert "\n  1: K9 K10 K11 K12\n *2: R8 R9 R10\n  3: K8 B8 O8\n  4: K13 B13 R13\n *5: R9 R10 R11\n" in out


# --------------------------------------------------------------------------- what the AI did


def test_an_ai_turn_shows_its_steps_and_the_sets_it_changed(capsys: pytest.CaptureFixture[str]) -> None:
    """medium played B6 (and K4): its steps say that it also moved B5 between runs."""
    from cli.play_commands import Screen
    from solver.game.engine import TurnRecord

    full = RuleSet()

    def sets(*texts: str) -> tuple[tuple[Tile, ...], ...]:
        return tuple(tuple(t for word in text.split() for t in parse_token(word, full)) for text in texts)

    before = sets("B2 B3 B4 B5", "B7 B8 B9", "K1 K2 K3")
    after = sets("B2 B3 B4", "B5 B6 B7 B8 B9", "K1 K2 K3 K4")
    (rack, played) = sets("K4 B6 O1", "K4 B6")
    record = TurnRecord(3, 1, True, rack, before, played, None, after, 40)
    screen = Screen(False, ["you", "medium"])
    screen.seen(before)
    screen.ai_turn(record, full)
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "medium played 2 tiles: [K4] [B6]",
        "  1. Take B5 off the end of B2 B3 B4 B5 and put it in B7 B8 B9",
        "  2. Add B6 from its rack to B5 B7 B8 B9",
        "  3. Add K4 from its rack to K1 K2 K3",
    ]
    game = Game.new(GameConfig(rules=full, players=2, seed=0, rack_size=7))
    game.seat, game.opened[0], game.table = 0, True, [list(s) for s in after]
    screen.turn_start(game, TurnEditor(game.position()), 1)
    table = capsys.readouterr().out.split("Table (* changed since your last turn):\n")[1].splitlines()[:3]
    assert table == [" *1: B2 B3 B4", " *2: B5 B6 B7 B8 B9", " *3: K1 K2 K3 K4"]


# --------------------------------------------------------------------------- the tile actually laid


def test_the_tile_laid_is_the_one_highlighted(capsys: pytest.CaptureFixture[str]) -> None:
    """take 1 K12, lay K12 B12 R12: the B12 from the rack is lit in the new set, not the table's."""
    from cli.play_commands import Screen

    full = RuleSet()
    position = Position.from_strings("B12 R12 O1", ["K10 K11 K12 K13", "B10 B11 B12"], rules=full)
    ed = TurnEditor(position)
    ed.apply(parse_command("take 1 K12", full))
    ed.apply(parse_command("lay K12 B12 R12", full))
    flags = dict(ed.numbered())
    assert [own for _, own in flags[2]] == [False, False, False]  # the table's B10 B11 B12
    assert [(str(t), own) for t, own in flags[3]] == [("K12", False), ("B12", True), ("R12", True)]
    Screen(True, ["you", "medium"]).state(ed)
    lines = {line[:4]: line for line in capsys.readouterr().out.splitlines()}
    lit = "48;5;229"  # the face of a tile laid from the rack
    assert lit not in lines["  2:"]
    assert lines["  3:"].count(lit) == 2
    ed.undo()
    ed.redo()
    assert dict(ed.numbered())[3] == flags[3]


def test_back_returns_only_your_own_copy() -> None:
    full = RuleSet()
    ed = TurnEditor(Position.from_strings("B12 O1", ["B10 B11 B12 B13"], rules=full))
    ed.apply(parse_command("add 1 B12", full))  # two B12 in the set now: one yours
    ed.apply(parse_command("take 1 B12", full))  # your own copy comes off first
    assert ed.state.own_loose == (True,)
    ed.apply(parse_command("back B12", full))
    assert ed.problems() == ["no tile from your rack is on the table: lay at least one, or draw"]


# --------------------------------------------------------------------------- hints name the commands


def _group_swap_turn() -> HumanTurn:
    from puzzles.library import find

    position = find("group-swap").position
    game = Game.new(GameConfig(rules=position.rules, players=2, seed=0))
    game.seat, game.opened[0] = 0, True
    game.racks[0] = list(position.rack)
    game.table = [list(s) for s in position.table]
    return HumanTurn(game)


def test_a_hint_names_the_commands_to_type(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.play_commands import Screen

    turn = _group_swap_turn()
    reply = turn.handle("hint 3")
    assert reply.commands == ("add 1 O7", "move 1 R7 2", "add 2 R6")
    Screen(False, ["you", "medium"]).reply(reply, turn.editor)
    out = capsys.readouterr().out
    assert "  1. Swap O7 from your rack for R7 in K7 B7 R7; put the R7 in R8 R9 R10" in out
    assert "To do it, type: add 1 O7; move 1 R7 2; add 2 R6; done" in out
    for command in (*reply.commands, "done"):  # and typing them plays the best move
        answer = turn.handle(command)
        assert not answer.error, answer.message
    assert answer.ended is not None and len(answer.ended.played) == 2


def test_a_hint_after_manipulating_starts_with_reset() -> None:
    turn = _group_swap_turn()
    turn.handle("take 2 R10")
    reply = turn.handle("hint 3")
    assert reply.commands[0] == "reset"
    for command in (*reply.commands, "done"):
        answer = turn.handle(command)
        assert not answer.error, answer.message
    assert answer.ended is not None


def test_a_level_two_hint_names_the_sets_by_number(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.play_commands import Screen

    turn = _group_swap_turn()
    Screen(False, ["you", "medium"]).reply(turn.handle("hint 2"), turn.editor)
    assert "Table sets involved: set 1 (K7 B7 R7); set 2 (R8 R9 R10)." in capsys.readouterr().out


def test_help_fits_80_columns() -> None:
    from cli.session import help_text

    assert max(len(line) for line in help_text().splitlines()) <= 80


def test_two_alike_sets_are_not_taken_for_a_renumbering(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.play_commands import Screen

    screen = Screen(False, ["you", "medium"])
    screen.seen([tiles("K5 B5 O5"), tiles("K1 K2 K3"), tiles("B1 B2 B3")])
    game = Game.new(GameConfig(rules=SMALL_RULES, players=2, seed=0, rack_size=7))
    game.seat, game.opened[0] = 0, True
    game.table = [tiles("K5 B5 O5"), tiles("K1 K2 K3"), tiles("B1 B2 B3"), tiles("K5 B5 O5")]
    game.racks[0] = sorted(tiles("O7"))
    screen.turn_start(game, TurnEditor(game.position()), 1)
    out = capsys.readouterr().out
    assert "closed up" not in out
    assert "  1: K5 B5 O5\n  2: K1 K2 K3\n  3: B1 B2 B3\n *4: K5 B5 O5\n" in out


def test_a_hints_line_typed_as_it_stands_plays_the_best_move() -> None:
    turn = _group_swap_turn()
    reply = turn.handle("hint 3")
    answer = turn.handle("; ".join((*reply.commands, "done")))
    assert not answer.error, answer.message
    assert answer.ended is not None and len(answer.ended.played) == 2


def test_commands_on_one_line_stop_at_the_first_refused_and_name_the_rest() -> None:
    turn = _group_swap_turn()
    answer = turn.handle("add 1 O7; add 9 R6; done")
    assert not answer.error and answer.show and answer.ended is None
    assert "'add 9 R6' refused:" in answer.message
    assert answer.message.endswith("not carried out: done")
    assert turn.editor.changed  # the first command stays done (undo takes it back)
    refused = _group_swap_turn().handle("add 9 R6; done; draw")
    assert refused.error and not refused.message.startswith("'")
    assert refused.message.endswith("\nnot carried out: done; draw")  # nothing done, nothing hidden
    bad_tile = _group_swap_turn().handle("lay X9; done")
    assert bad_tile.error and bad_tile.message.splitlines() == [
        "invalid tile 'X9': unknown colour 'X' (colours are K B R O)", "not carried out: done"
    ]


def test_a_split_beside_a_strict_joker_leaves_it_where_it_lies() -> None:
    """split 1 R4 of J R3 R4 R5 R6 under strict jokers: J R3 stays as it lay (it showed R3 J), so
    adding R4 makes J R3 R4 (the joker still R2) and the turn ends as typed."""
    args = ["--seed", "2", "--numbers", "7", "--rack-size", "20", "--joker-each", "--meld-threshold", "0",
            "--continue-after-meld", "--joker-rules", "strict"]
    out = run(args, ["lay J R3 R4 R5 R6; done", "split 1 R4", "add 1 R4", "done", "quit"]).stdout
    assert "split set 1: J R3 stays set 1, R4 R5 R6 is set 4" in out
    assert "added R4 to set 1: J R3 R4" in out and "played R4" in out and "cannot end" not in out


def test_a_set_laid_from_the_rack_under_strict_jokers_is_shown_in_natural_order() -> None:
    """lay R5 J R4: the player's own joker stands for anything, so the set is R4 R5 J as ever (left
    as typed, the table would read the joker as R3 or R6, whichever helps)."""
    args = ["--seed", "3", "--joker-each", "--meld-threshold", "0", "--joker-in-meld", "--joker-rules", "strict"]
    out = run(args, ["lay R5 J R4", "quit"]).stdout
    assert "laid R4 R5 J as set 1" in out


def test_a_refusal_later_on_a_line_reads_as_one_sentence() -> None:
    said = _group_swap_turn().handle("take 1 K7; done").message.splitlines()
    assert said[:2] == ["took K7 off set 1 into the workspace", "'done' refused: the turn cannot end yet:"]


def test_a_refusal_later_on_a_line_keeps_its_tiles_as_written() -> None:
    said = _group_swap_turn().handle("take 1 K7; add 1 K13").message.splitlines()
    assert said[1] == "'add 1 K13' refused: K13 not on your rack or in the workspace (rack: R6 O7)"  # not "k13"


@pytest.mark.parametrize("line", [";add 1 O7", "add 1 O7;", " ; add 1 O7 ;; "])
def test_a_stray_separator_around_one_command_is_ignored(line: str) -> None:
    answer = _group_swap_turn().handle(line)
    assert not answer.error, answer.message
    assert _group_swap_turn().handle(";").show  # only separators: as an empty line


def test_a_hint_with_the_pool_empty_says_to_pass() -> None:
    args = ["--seed", "3", "--rack-size", "1", "--opponents", "easy", "--colours", "1", "--numbers", "3",
            "--copies", "1", "--jokers", "0", "--meld-threshold", "0"]
    result = run(args, ["hint", "quit"])
    assert "No move this turn: pass ('draw': the pool is empty) (this turn is the initial" in result.stdout
    assert "worth at least 0 points" not in result.stdout


def test_numbers_the_table_changed_after_your_turn_are_said() -> None:
    """Set 1 broken up (its O1 O2 O3 laid in new sets 3 to 5): your sets stay as you left them,
    set 1's number is given up, and the next turn says the numbers after it closed up."""
    moves = "lay K5 K6 K7; take 1 O1 O2 O3; lay K1 B1 O1; lay K2 R2 O2; lay B3 R3 O3; done"
    result = run(["--seed", "2", "--opponents", "easy", "--meld-threshold", "0", "--continue-after-meld"],
                 ["draw", "draw", "draw", "draw", moves, "quit"])
    assert "Set numbers closed up where a set was broken up: 2->1, 3->2, 4->3, 5->4." in result.stdout


def test_your_own_sets_keep_the_places_you_left_them_in() -> None:
    """You leave B8 R8 O8 as set 6 (K8 B8 O8 with K8 taken off and R8 added) and K8 R8 O8 as
    set 7; the game placed the old set's place by its first tile, K8, and swapped them: the next
    turn said "6->7, 7->6" of sets that never moved."""
    script = ["draw"] * 4 + ["lay B11 R11 O11; done", "lay K3 B3 J; lay K6 O6 J; done"] + ["draw"] * 3
    script += ["add 1 K11; done"] + ["draw"] * 5 + ["lay B10 R10 O10; done", "add 6 R8; take 6 K8; lay K8 R8 O8; done"]
    out = run(["--seed", "3", "--rack-size", "8"], [*script, "quit"]).stdout
    assert "6->7" not in out and "7->6" not in out


def test_an_ais_strict_retrieval_is_named() -> None:
    """Under strict jokers the steps may not show which tile freed a joker (here K4 of a set that
    stays as it was): the AI's turn names it, as `solve` does."""
    args = ["--seed", "7", "--opponents", "easy,hard", "--joker-rules", "strict", "--numbers", "9", "--colours", "2",
            "--meld-threshold", "0", "--joker-each", "--jokers", "3", "--rack-size", "8"]
    result = run(args, ["draw", "draw", "lay B2-4; done", "take 5 J; add 5 K7; lay K2 K3 J; done", "quit"])
    assert "  Joker retrieved: K4 takes the place of the joker in K2 K3 J, where it stood" in result.stdout


def test_an_ai_thinking_is_said_at_a_terminal_and_wiped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli.play_commands import Screen

    screen = Screen(False, ["you", "hard"])
    with screen.thinking("hard"):
        pass
    assert capsys.readouterr().out == ""  # not a terminal: nothing to wipe in a log
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    with screen.thinking("hard"):
        assert capsys.readouterr().out == "hard is thinking…"
    assert capsys.readouterr().out == "\r" + " " * len("hard is thinking…") + "\r"


def test_twin_sets_are_followed_in_their_own_places() -> None:
    """K1 K2 K3 (set 2) grows into a twin of K1 … K5 (set 7): the set that stood at 7 is still 7,
    and the one that grew is 2 (the game's table, placed again, had them swap: "2->7, 7->2")."""
    from solver.game.engine import followed, in_place, kept_in_place

    def sets(*texts: str) -> list[list[Tile]]:
        return [tiles(t) for t in texts]

    before = sets("R1 R2 R3", "K1 K2 K3", "B5 B6 B7", "K1 K2 K3 K4 K5")
    after = in_place(before, sets("K1 K2 K3 K4 K5", "K1 K2 K3 K4 K5", "R1 R2 R3", "B5 B6 B7"))
    assert followed([before, after]) == {0: 0, 1: 1, 2: 2, 3: 3}
    assert kept_in_place([before, after]) == {0, 2, 3}


def test_on_your_first_turn_every_set_laid_before_it_is_starred() -> None:
    out = run(["--opponents", "medium,easy", "--seed", "21"], ["quit"]).stdout
    assert " *1: O9 O10 O11" in out and " *2: B11 R11 O11" in out  # set 1 was medium's, laid first


def test_a_wrapped_line_never_leaves_a_closing_bracket_alone() -> None:
    from cli.render import fit

    line = "    set 4 ( K11   B11   R11 ); set 7 ( K3   R3   O3 ); set 9 ( K5   J   K7   K8 )."
    wrapped = fit(line, 78).splitlines()
    assert wrapped[-1].strip() != ")." and wrapped[-1].endswith("K8 ).")
    assert all(len(row) <= 78 for row in wrapped)
    # In colour a tile is one word and the bracket follows it with no space between.
    import click

    from cli.render import tile_text, width_of

    coloured = "; ".join(f"set {n} (" + " ".join(tile_text(Tile.parse(t)) for t in ("B11", "R11", "O11")) + ")" for n in range(12, 18))
    for width in range(40, 81):
        rows = fit(f"Table sets involved: {coloured}.", width).splitlines()
        assert all(click.unstyle(row).strip()[:1] not in ");." for row in rows[1:]), (width, rows)
        assert all(not click.unstyle(row).rstrip().endswith("(") for row in rows), (width, rows)
        assert all(width_of(row) <= width for row in rows)


@pytest.mark.parametrize("line", ["quit", "exit", " QUIT "])
def test_quit_after_the_timer_ran_out_still_leaves(line: str) -> None:
    # It took the penalty and went on to the next turn: a slow "quit" never left.
    game, turn, clock = timed_game(40)
    pool = game.pool_size
    clock.now = 41.0
    reply = turn.handle(line)
    assert reply.quit and reply.ended is None and game.pool_size == pool


def screen_after_a_time_out(seconds: int, table: list[str], rack: str, typed: list[str]) -> tuple[Any, Game]:
    """The screen at the next turn after the player's turn, ``typed`` and then out of time."""
    from cli.play_commands import Screen, table_seen

    game, _, clock = timed_game(seconds)
    game.table = [tiles(s) for s in table]
    game.racks[0] = sorted(tiles(rack))
    turn = HumanTurn(game, TurnTimer(TIMER_RULES[seconds], clock))
    for line in typed:
        assert not turn.handle(line).error
    clock.now = seconds + 1.0
    reply = turn.handle("show")
    assert reply.timed_out and reply.ended is not None
    screen = Screen(color=False, names=["you", "easy"], width=80)
    screen.new_round()
    screen.seen(table_seen(reply.ended, turn.editor.state.table))
    screen.table_now(game.table)
    return screen, game


def test_after_a_time_out_the_next_turn_says_the_numbers_that_closed_up(capsys: pytest.CaptureFixture[str]) -> None:
    """The one-minute rule took back a broken set laid before a valid one: the valid set's number
    closed up with no notice (the player's table was taken to be the one the timer left)."""
    # lay O7: set 3, left broken; lay R4 R5 R6: set 4, valid
    screen, game = screen_after_a_time_out(60, ["B1 B2 B3", "K1 K2 K3"], "R4 R5 R6 K4 O7", ["lay O7", "lay R4 R5 R6"])
    screen._renumbered(TurnEditor(game.position()))
    assert "Set numbers closed up where a set was broken up: 4->3." in capsys.readouterr().out


def test_after_a_time_out_that_put_the_table_back_no_set_is_starred() -> None:
    """The 40-second rule put K1 B1 R1 back as it was: it is not a set changed since the turn."""
    screen, game = screen_after_a_time_out(40, ["K1 B1 R1", "K5 K6 K7"], "R4 R5 O7", ["take 1 K1"])
    assert screen._changed(TurnEditor(game.position())) == set()


def test_the_first_line_names_the_deal_and_scoring_too() -> None:
    result = run([*SMALL, "--seed", "3", "--scoring", "club", "--joker-each", "--rounds", "2"], ["quit"])
    first = result.stdout.splitlines()[0]
    assert first.startswith("Rummikub: you against medium; seed 3; rules numbers=7 meld-threshold=10;")
    assert "club scoring, 7 tiles each, a joker each; 2 rounds." in result.stdout.replace("\n    ", " ")


def test_analyze_names_the_deal_and_scoring_of_the_record(tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    run([*SMALL, "--seed", "3", "--scoring", "club", "--joker-each", "--record", str(record)], ["draw", "quit"])
    result = CliRunner().invoke(cli, ["analyze", str(record)])
    header = " ".join(result.stdout.split("\n    ")).splitlines()[0]
    assert header.endswith("rules numbers=7 meld-threshold=10; club scoring, 7 tiles each, a joker each")
