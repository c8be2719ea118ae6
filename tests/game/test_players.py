"""AI players: every move legal, easy never rearranges, medium plays the optimum, hard's choices."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import solver.game.players as players
from solver.errors import RulesError
from solver.files import position_from_record
from solver.game.engine import Game, GameConfig, GameView
from solver.game.players import Easy, Hard, Medium, goes_out, make_player
from solver.position import Position
from solver.rules import RuleSet
from solver.solve import SolveOptions, solve
from solver.tiles import Tile, parse_token
from solver.validator import validate
from tests.paths import ROOT

SMALL = RuleSet(numbers=7)


def tiles(text: str) -> list[Tile]:
    return [t for token in text.split() for t in parse_token(token)]


def view(
    rack: str,
    table: list[str] = (),  # type: ignore[assignment]
    opened: bool = True,
    rack_sizes: tuple[int, ...] = (0, 14),
    pool: int = 40,
    rules: RuleSet | None = None,
) -> GameView:
    """Seat 0's view of a game whose opponents opened and played their last turns, leaving this table."""
    position = Position(tuple(tiles(rack)), tuple(tuple(tiles(s)) for s in table), opened, rules or RuleSet())
    sizes = (len(position.rack), *rack_sizes[1:])
    n = len(sizes)
    return GameView(
        0,
        position,
        sizes,
        (opened, *[True] * (n - 1)),
        pool,
        5,
        n,
        last_drew=(None, *[False] * (n - 1)),
        last_tables=(None, *[position.table] * (n - 1)),
    )


def positions_from_games(seeds: range, players: int = 3) -> list[GameView]:
    """Views of every turn of a few medium-vs-medium rounds: realistic positions."""
    views = []
    for seed in seeds:
        game = Game.new(GameConfig(SMALL, players, seed))
        while not game.over:
            views.append(game.view())
            answer = solve(game.position())
            if answer.tiles_played:
                game.play([list(s.tiles) for s in answer.table])
            else:
                game.draw()
    return views


VIEWS = positions_from_games(range(3))


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_every_move_is_legal(level: str) -> None:
    player = make_player(level)
    for v in VIEWS:
        table = player.choose(v)
        if table is not None:
            assert validate(v.position, table) == []
            assert Counter(t for s in table for t in s) != v.position.table_tiles  # it lays something


def test_easy_never_rearranges() -> None:
    easy = Easy()
    for v in VIEWS:
        table = easy.choose(v)
        if table is None:
            continue
        rack = Counter(v.position.rack)
        # Every original set is still there, grown at most by rack tiles; other sets are rack tiles only.
        unmatched = [Counter(s) for s in table]
        for original in v.position.table:
            need = Counter(original)
            match = next(i for i, s in enumerate(unmatched) if not (need - s) and not ((s - need) - rack))
            unmatched.pop(match)
        for s in unmatched:
            assert not (s - rack)


def test_easy_extends_runs_and_groups() -> None:
    choice = Easy().choose(view("R7 O5 K1", ["R4 R5 R6", "K5 B5 R5"]))
    assert choice is not None
    assert sorted(map(sorted, choice)) == sorted(map(sorted, [tiles("R4 R5 R6 R7"), tiles("K5 B5 R5 O5")]))


def test_easy_misses_what_only_rearranging_finds() -> None:
    # R5 fits only by splitting R3-R7 into R3 R4 R5 and R5 R6 R7: a beginner draws.
    v = view("R5 K9", ["R3 R4 R5 R6 R7"])
    assert Easy().choose(v) is None
    assert Medium().choose(v) is not None


def test_medium_plays_the_optimum() -> None:
    medium = Medium()
    for v in VIEWS[:40]:
        table = medium.choose(v)
        best = solve(v.position)
        played = 0 if table is None else sum(map(len, table)) - sum(map(len, v.position.table))
        assert played == best.tiles_played


def test_opening_is_new_sets_only_for_every_level() -> None:
    v = view("R10 R11 R12 K13 B13 O13 K1", ["O7 O8 O9"], opened=False)
    for level in ("easy", "medium", "hard"):
        table = make_player(level).choose(v)
        assert table is not None and validate(v.position, table) == []
        assert [tiles("O7 O8 O9")] == [s for s in table if s == tiles("O7 O8 O9")]


def test_hard_goes_out_when_it_can() -> None:
    v = view("J R8 K2 K3 K4", ["R5 R6 R7"], rack_sizes=(0, 14), pool=40)
    table = Hard().choose(v)
    assert table is not None
    assert sum(map(len, table)) == 3 + 5


def test_hard_sheds_points_when_nobody_is_close_to_going_out() -> None:
    hard = Hard(hold=False)  # the shedding rule on its own (VIEWS come from three-player games)
    differ = 0
    for v in VIEWS:
        if min(v.rack_sizes[s] for s in v.opponents()) <= hard.watch:
            continue
        most, shed = solve(v.position), solve(v.position, SolveOptions(objective="points"))
        if not most.tiles_played or not most.rack_left:
            continue
        table = hard.choose(v)
        assert table is not None
        laid = Counter(t for s in table for t in s) - v.position.table_tiles
        assert sum(t.number if not t.is_joker else 30 for t in laid.elements()) == shed.points_played
        differ += (shed.tiles_played, shed.points_played) != (most.tiles_played, most.points_played)
    assert differ > 0  # the positions did test the choice


# Runs only (two colours: no groups), one copy of each tile: the opponent's last tile is one of
# K5 K6 B2 B4, none of which it could lay on K1 K2 K3; after K4 is laid, K5 goes out.
ONLY_RUNS = RuleSet(numbers=6, colours=2, copies=1, jokers=0)


def test_hard_will_not_hand_the_opponent_its_last_tile() -> None:
    v = view("K4 B1 B3 B5 B6", ["K1 K2 K3"], rack_sizes=(0, 1), pool=3, rules=ONLY_RUNS)
    assert Medium().choose(v) is not None
    assert Hard().choose(v) is None  # a one-in-four chance to lose on the spot: it draws instead
    relaxed = view("K4 B1 B3 B5 B6", ["K1 K2 K3"], rack_sizes=(0, 9), pool=3, rules=ONLY_RUNS)
    assert Hard().choose(relaxed) == [tiles("K1 K2 K3 K4")]


def test_hard_keeps_the_sets_its_rack_makes_when_several_opponents_would_use_them() -> None:
    three = view("K1 K2 K3 R7 O9", ["R4 R5 R6"], rack_sizes=(0, 14, 14))
    assert Hard().choose(three) == [tiles("R4 R5 R6 R7")]
    assert Medium().choose(three) is not None and len(Medium().choose(three) or []) == 2
    # Nothing needs the table: it lays the kept set worth the most rather than draw.
    only_sets = view("K1 K2 K3 B10 B11 B12 O9", ["R4 R5 R6"], rack_sizes=(0, 14, 14))
    assert Hard().choose(only_sets) == [tiles("R4 R5 R6"), tiles("B10 B11 B12")]
    # With one opponent it lays everything it can (holding back measured no gain there).
    two = view("K1 K2 K3 R7 O9", ["R4 R5 R6"], rack_sizes=(0, 14))
    assert Hard().choose(two) is not None and len(Hard().choose(two) or []) == 2


def test_unknown_ai_is_refused() -> None:
    with pytest.raises(RulesError, match="unknown AI 'expert'"):
        make_player("expert")
    assert make_player(" Hard ").name == "hard"


def test_goes_out_agrees_with_the_solver() -> None:
    import random

    rng = random.Random(4)
    cases: list[tuple[list[Tile], list[list[Tile]]]] = []
    for v in VIEWS[::2]:
        table = [list(s) for s in v.position.table]
        unseen = list(v.unseen().elements())
        for size in (1, 2, 3):
            if len(unseen) >= size:
                cases.append((rng.sample(unseen, size), table))
        # A tile taken off the end of a long set fits back: cases that do go out.
        for i, s in enumerate(table):
            if len(s) > SMALL.min_set_size:
                cases.append(([s[-1]], [*table[:i], s[:-1], *table[i + 1 :]]))
    outs = 0
    for rack, table in cases:
        for opened in (True, False):
            position = Position(tuple(rack), tuple(map(tuple, table)), opened, SMALL)
            expected = solve(position).tiles_played == len(rack)
            assert goes_out(rack, table, opened, SMALL) == expected, (rack, table, opened)
            outs += expected
    assert len(cases) > 80 and outs > 10


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_time_limit_reaches_every_search(level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The web server gives its AIs a time limit for each search (an AI turn must end in a legal
    move, not in the request's deadline): every solve the player makes carries it."""
    limits: list[float | None] = []

    def solving(position: Position, options: SolveOptions = SolveOptions()) -> object:
        limits.append(options.time_limit)
        return solve(position, options)

    monkeypatch.setattr(players, "solve", solving)
    # The opponent holds 2 tiles: hard samples its racks and asks the solver about each.
    watched = view("K1 K2 K3 R7 O9 B4 B5", ["R4 R5 R6", "B1 B2 B3"], rack_sizes=(0, 2))
    for v in [watched, view("K1 K2 K3 R7", [], opened=False), *VIEWS[:20]]:
        make_player(level, time_limit=0.5).choose(v)
    assert len(limits) > 20 and set(limits) == {0.5}


def test_an_ai_out_of_time_still_plays_a_legal_move() -> None:
    """A search stopped by its time limit returns the best legal move it found: on a big table a
    player with almost no time moves legally (or draws), it never fails."""


    record = json.loads((ROOT / "bench" / "positions" / "hard.jsonl").read_text().splitlines()[0])
    position = position_from_record(record, "hard", {})
    for level in ("easy", "medium", "hard"):
        v = GameView(0, position, (len(position.rack), 14), (True, True), 20, 5, 2)
        table = make_player(level, time_limit=0.001).choose(v)
        assert table is None or validate(position, table) == []
