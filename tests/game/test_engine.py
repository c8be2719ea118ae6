"""The game engine and the scoring rules: setup, turns, the validator gate, end conditions, scores.

Expected values are worked out by hand from the rules (docs/rules.md).
"""

from __future__ import annotations

from collections import Counter

import pytest

from solver.errors import PositionError, RulesError
from solver.game.engine import (
    Game,
    GameConfig,
    GameOver,
    IllegalMove,
    Match,
    can_open,
    derived_seed,
)
from solver.game.scoring import (
    ClubRound,
    blocked_winners,
    club_ranking,
    club_scores,
    rack_value,
    standard_scores,
)
from solver.rules import RuleSet
from solver.solve import solve
from solver.tiles import JOKER, Tile, full_pool, parse_token

SMALL = RuleSet(numbers=7)  # 58 tiles: short games, still every kind of set


def tiles(text: str) -> list[Tile]:
    return [t for token in text.split() for t in parse_token(token)]


def sets(*texts: str) -> list[list[Tile]]:
    return [tiles(t) for t in texts]


def game_at(
    racks: list[str],
    table: list[str] = (),  # type: ignore[assignment]
    opened: list[bool] | None = None,
    pool: str = "",
    rules: RuleSet | None = None,
    scoring: str = "standard",
) -> Game:
    """A game in a chosen state (seat 0 to move); the pool is drawn from its end."""
    rules = rules or RuleSet()
    config = GameConfig(rules, len(racks), seed=0, scoring=scoring)
    return Game(
        config=config,
        racks=[sorted(tiles(r)) for r in racks],
        table=[tiles(s) for s in table],
        opened=list(opened) if opened is not None else [True] * len(racks),
        seat=0,
        first_player=0,
        _pool=tiles(pool),
    )


def snapshot(game: Game) -> tuple[object, ...]:
    return (
        [list(r) for r in game.racks],
        [list(s) for s in game.table],
        list(game.opened),
        game.seat,
        game.turn,
        game.pool_size,
        len(game.history),
    )


def play_out(game: Game) -> None:
    """Play a round to its end with the one-turn optimum, checking tile conservation every turn."""
    total = game.tile_count()
    while not game.over:
        answer = solve(game.position())
        if answer.tiles_played:
            game.play([list(s.tiles) for s in answer.table])
        else:
            game.draw()
        assert game.tile_count() == total
        assert Counter(t for r in game.racks for t in r) + Counter(
            t for s in game.table for t in s
        ) + Counter(game._pool) == Counter(full_pool(game.rules))


# --------------------------------------------------------------------------- setup


def test_full_pool_standard_and_generalised() -> None:
    pool = full_pool(RuleSet())
    assert len(pool) == 106
    assert Counter(pool)[JOKER] == 2
    assert Counter(pool)[parse_token("R13")[0]] == 2
    assert len(full_pool(RuleSet(numbers=7, colours=3, copies=1, jokers=1))) == 22


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_gives_fourteen_each_and_keeps_every_tile(players: int) -> None:
    game = Game.new(GameConfig(RuleSet(), players, seed=11))
    assert [len(r) for r in game.racks] == [14] * players
    assert game.pool_size == 106 - 14 * players
    assert game.tile_count() == 106
    assert Counter(t for r in game.racks for t in r) + Counter(game._pool) == Counter(full_pool(RuleSet()))
    assert 0 <= game.first_player < players and game.seat == game.first_player
    assert game.table == [] and game.opened == [False] * players and game.turn == 1


def test_same_seed_same_round_other_seed_other_round() -> None:
    def state(seed: int) -> tuple[object, ...]:
        game = Game.new(GameConfig(SMALL, 3, seed))
        play_out(game)
        return (game.first_player, [r.to_dict() for r in game.history], game.result().to_dict())

    assert state(5) == state(5)
    assert state(5) != state(6)


def test_first_player_is_decided_by_the_draw_not_always_seat_one() -> None:
    firsts = Counter(Game.new(GameConfig(RuleSet(), 4, seed)).first_player for seed in range(40))
    assert set(firsts) == {0, 1, 2, 3}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"players": 1}, "2 to 4"),
        ({"players": 5}, "2 to 4"),
        ({"scoring": "golf"}, "standard or club"),
        ({"rules": RuleSet(numbers=3, colours=2, copies=1, jokers=0)}, "tiles"),
        ({"joker_each": True, "players": 3}, "joker per player"),
    ],
)
def test_impossible_configs_are_refused(changes: dict[str, object], message: str) -> None:
    settings: dict[str, object] = {"rules": RuleSet(), "players": 2, "seed": 1}
    settings.update(changes)
    with pytest.raises(RulesError, match=message):
        GameConfig(**settings)  # type: ignore[arg-type]


def test_joker_each_gives_every_player_a_joker() -> None:
    rules = RuleSet(jokers=4)
    for seed in range(5):
        game = Game.new(GameConfig(rules, 4, seed, joker_each=True))
        assert all(JOKER in r for r in game.racks)
        assert game.tile_count() == len(full_pool(rules))


def test_redeal_on_three_duplicate_pairs() -> None:
    # Few kinds of tile and many copies: three pairs are common without the variant.
    rules = RuleSet(numbers=3, colours=3, copies=8, jokers=0)

    def pairs(rack: list[Tile]) -> int:
        return sum(n // 2 for n in Counter(rack).values())

    plain = [Game.new(GameConfig(rules, 2, seed, rack_size=10)) for seed in range(10)]
    assert any(pairs(r) >= 3 for g in plain for r in g.racks)
    redealt = [
        Game.new(GameConfig(rules, 2, seed, redeal_three_pairs=True, rack_size=10)) for seed in range(10)
    ]
    assert all(pairs(r) < 3 for g in redealt for r in g.racks)
    assert all(0 <= g.redeals < 100 for g in redealt) and sum(g.redeals for g in redealt) > 0
    assert all(g.tile_count() == 72 for g in redealt)


def test_derived_seeds_differ_and_repeat() -> None:
    assert derived_seed(1, 0) == derived_seed(1, 0)
    assert len({derived_seed(1, i) for i in range(100)}) == 100


# --------------------------------------------------------------------------- turns


def test_a_legal_play_moves_tiles_and_passes_the_turn() -> None:
    game = game_at(["R4 R5 R6 K1", "B1 B2"], table=["O7 O8 O9"], pool="K13")
    record = game.play(sets("O7 O8 O9", "R4 R5 R6"))
    assert game.racks[0] == tiles("K1")
    assert game.table == sets("O7 O8 O9", "R4 R5 R6")
    assert game.seat == 1 and game.turn == 2
    assert record.played == tuple(tiles("R4 R5 R6")) and record.drew is None
    assert record.to_dict()["player"] == 1 and record.to_dict()["table_after"] == [
        ["O7", "O8", "O9"],
        ["R4", "R5", "R6"],
    ]


@pytest.mark.parametrize(
    ("new_table", "code"),
    [
        (["O7 O8 O9", "R4 R5"], "invalid_set"),  # a set of two
        (["R4 R5 R6"], "table_tile_missing"),  # a table set taken back
        (["O7 O8 O9", "B4 B5 B6"], "tile_not_available"),  # tiles from nowhere
        (["O7 O8 O9"], "no_tile_played"),  # the same table: not a move
    ],
)
def test_illegal_moves_are_refused_and_change_nothing(new_table: list[str], code: str) -> None:
    game = game_at(["R4 R5 R6 K1", "B1 B2"], table=["O7 O8 O9"], pool="K13")
    before = snapshot(game)
    with pytest.raises(IllegalMove) as caught:
        game.play(sets(*new_table))
    assert code in {v.code for v in caught.value.violations}
    assert str(caught.value).startswith("illegal move: ")
    assert snapshot(game) == before


def test_initial_meld_rules_apply() -> None:
    # 1+2+3 = 6 points: below the threshold of 30.
    game = game_at(["R1 R2 R3 K9", "B1 B2"], opened=[False, False], pool="K13")
    with pytest.raises(IllegalMove, match="needs at least 30"):
        game.play(sets("R1 R2 R3"))
    # Before opening the table may not be touched.
    game = game_at(["R10 R11 R12 O13", "B1 B2"], table=["O10 O11 O12"], opened=[False, True])
    with pytest.raises(IllegalMove) as caught:
        game.play(sets("O10 O11 O12 O13", "R10 R11 R12"))
    assert "table_touched_before_opening" in {v.code for v in caught.value.violations}
    game.play(sets("O10 O11 O12", "R10 R11 R12"))
    assert game.opened == [True, True]


def test_draw_and_pass_and_blocked_end() -> None:
    game = game_at(["R1 K5", "B2", "O9 O9"], pool="K13")
    record = game.draw()
    assert record.drew == tiles("K13")[0] and game.racks[0] == sorted(tiles("R1 K5 K13"))
    assert game.pool_size == 0 and not game.over
    game.draw()  # pool empty: a pass
    game.draw()
    assert not game.over
    game.draw()  # all three have passed in turn
    assert game.over
    result = game.result()
    # Lowest rack: B2 (2) wins; K5+R1+K13 = 19 and O9+O9 = 18 pay their racks (standard).
    assert result.reason == "blocked" and result.winner == 1
    assert result.scores == (-19, 37, -18)
    with pytest.raises(GameOver):
        game.draw()


def test_passes_count_only_in_turn() -> None:
    game = game_at(["R1 R2 R3 K5", "B2", "O4"], pool="")
    game.draw()
    game.draw()
    game.draw()
    assert game.over  # three passes in a row, pool empty
    # A play in between starts the count again.
    game = game_at(["R1 R2 R3 K5", "B2", "O4"], pool="")
    game.play(sets("R1 R2 R3"))
    game.draw()
    game.draw()
    assert not game.over
    game.draw()
    assert game.over and game.result().winner == 1


def test_emptying_the_rack_ends_the_round_with_standard_scores() -> None:
    # docs/rules.md: A wins; B holds 5, C 10, D 3 -> A +18, B -5, C -10, D -3.
    game = game_at(["R4 R5 R6", "K5", "B4 O6", "O3"], table=[], pool="K1 K2")
    game.play(sets("R4 R5 R6"))
    assert game.over
    result = game.result()
    assert result.reason == "rack_empty" and result.winner == 0
    assert result.scores == (18, -5, -10, -3)
    assert sum(result.scores) == 0
    assert result.to_dict()["winner"] == 1


def test_a_joker_left_on_a_rack_costs_the_joker_penalty() -> None:
    game = game_at(["R4 R5 R6", "J K2"], pool="")
    game.play(sets("R4 R5 R6"))
    assert game.result().scores == (32, -32)
    game = game_at(["R4 R5 R6", "J K2"], pool="", rules=RuleSet(joker_penalty=50))
    game.play(sets("R4 R5 R6"))
    assert game.result().scores == (52, -52)
    # Club scoring: the club sheet's 100, unless the rules name another penalty (as `score` does).
    for penalty, cost in ((30, 102), (50, 52)):
        game = game_at(["R4 R5 R6", "J K2"], pool="", rules=RuleSet(joker_penalty=penalty), scoring="club")
        game.play(sets("R4 R5 R6"))
        assert game.result().scores == (cost, -cost)


def test_every_turn_conserves_tiles_in_whole_games() -> None:
    for players in (2, 4):
        game = Game.new(GameConfig(SMALL, players, seed=21))
        play_out(game)
        result = game.result()
        assert sum(result.scores) == 0
        assert result.turns == len(game.history)
        for before, after in zip(game.history, game.history[1:]):
            assert after.table == before.table_after


def test_penalty_draws_tiles_and_restores_the_table() -> None:
    game = game_at(["R4 R5 K1", "B2"], table=["R1 R2 R3"], pool="O1 O2 O3 O4")
    record = game.penalty(3)
    assert record.penalty == tuple(tiles("O4 O3 O2"))
    assert sorted(game.racks[0]) == sorted(tiles("R4 R5 K1 O2 O3 O4"))
    assert game.table == sets("R1 R2 R3")
    # The one-minute rule: the broken sets go back to the rack, valid ones stay.
    game = game_at(["R4 R5 K1", "B2"], table=["R1 R2 R3"], pool="O1 O2 O3 O4")
    game.penalty(1, restore_table=sets("R3 R4 R5"))
    assert sorted(game.racks[0]) == sorted(tiles("R1 R2 K1 O4"))
    assert game.table == sets("R3 R4 R5")
    assert game.tile_count() == 11
    with pytest.raises(PositionError, match="invalid set"):
        game.penalty(1, restore_table=sets("B2 B3"))


def test_the_engine_checks_every_rule_variant_through_the_validator() -> None:
    # Joker in the initial meld: refused by default, accepted with the variant.
    racks = ["R10 R11 J K1", "B2 B3"]
    game = game_at(racks, opened=[False, False])
    with pytest.raises(IllegalMove, match="joker"):
        game.play(sets("R10 R11 J"))
    game = game_at(racks, opened=[False, False], rules=RuleSet(joker_in_meld=True))
    game.play(sets("R10 R11 J"))
    assert game.opened[0]


# --------------------------------------------------------------------------- scoring


def test_standard_scores_by_hand() -> None:
    assert standard_scores([0, 5, 10, 3], [0]) == [18, -5, -10, -3]
    assert standard_scores([7, 0], [1]) == [-7, 7]
    # A tie in a blocked round: the pot is shared, the first tied seat takes the remainder.
    assert standard_scores([4, 4, 9], [0, 1]) == [5, 4, -9]
    with pytest.raises(ValueError):
        standard_scores([1, 2], [])


def test_rack_values_and_blocked_winners() -> None:
    assert rack_value(tiles("R13 J K1")) == 44
    assert rack_value(tiles("R13 J K1"), 100) == 114
    assert blocked_winners([12, 9, 9], [3, 2, 1]) == [2]  # same sum: fewer tiles wins
    assert blocked_winners([12, 9, 9], [3, 2, 2]) == [1, 2]


def test_club_scores_by_hand() -> None:
    # Rack emptied: the others pay their racks (a joker 100); one big point to the winner.
    assert club_scores([0, 105, 7], [0]) == ClubRound((1, 0, 0), (112, -105, -7))
    # Blocked: only the difference to the winner's rack is paid.
    assert club_scores([10, 14, 30], [0], blocked=True) == ClubRound((1, 0, 0), (24, -4, -20))
    # Never opened: a flat 100 in place of the rack; could have opened earlier and drew: 200.
    result = club_scores(
        [0, 20, 20, 20],
        [0],
        opened=[True, False, False, True],
        could_have_opened=[False, False, True, False],
    )
    assert result.small == (320, -100, -200, -20)
    # A never-opened player whose final rack holds an opening declared it: no surcharge.
    declared = club_scores([0, 40], [0], opened=[True, False], declared=[False, True])
    assert declared.small == (40, -40)
    assert club_ranking([2, 2, 1], [10, 30, 50]) == [1, 0, 2]


def test_club_scoring_in_a_game_uses_the_solver_for_could_have_opened() -> None:
    rules = RuleSet()
    game = game_at(
        ["R4 R5 R6", "K10 K11 K12 B1", "B2 O5"], opened=[True, False, False], pool="O1", scoring="club"
    )
    game.seat = 1
    game.draw()  # seat 1 could have opened with K10 K11 K12 (33) and drew instead
    game.draw()  # seat 2: the pool is empty, a pass
    game.play(sets("R4 R5 R6"))
    assert can_open(tiles("K10 K11 K12"), rules)
    result = game.result()
    # Seat 1 could have opened (flat 200); seat 2 never could (flat 100).
    assert result.scoring == "club" and result.big == (1, 0, 0)
    assert result.scores == (300, -200, -100)


# --------------------------------------------------------------------------- matches


def test_match_running_totals_and_standings() -> None:
    match = Match(GameConfig(SMALL, 3, seed=4))
    rounds = []
    for _ in range(3):
        game = match.new_round()
        play_out(game)
        match.add(game.result())
        rounds.append(game.result().scores)
    assert match.totals == [sum(r[s] for r in rounds) for s in range(3)]
    assert match.running()[-1] == match.totals
    assert match.running()[0] == list(rounds[0])
    assert sorted(match.standings()) == [0, 1, 2]
    assert match.totals[match.standings()[0]] == max(match.totals)
    # Rounds are dealt from different seeds.
    assert len({r for r in map(tuple, rounds)}) > 1


def test_club_match_ranks_by_big_points_then_small() -> None:
    match = Match(GameConfig(SMALL, 2, seed=4, scoring="club"))
    for _ in range(2):
        game = match.new_round()
        play_out(game)
        match.add(game.result())
    assert sum(match.big_totals) == sum(1 for r in match.results if r.winner is not None)
    assert match.standings()[0] == max(range(2), key=lambda s: (match.big_totals[s], match.totals[s]))
