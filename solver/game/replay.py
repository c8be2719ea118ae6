"""A round rebuilt from its record: the record is the state of a game, replaying it gives the game.

The engine is deterministic (the deal comes from the seed alone, and each draw takes the pool's
next tile), so the record's header fixes the deal and its turns fix everything after it: a play
is its table after the move, a draw or a pass the next tile or none, a timer penalty the tiles it
drew and the table it left. :func:`replay` carries them out on a fresh :class:`Game` and checks
that every turn comes out exactly as recorded; a record that does not follow from its seed (edited
by hand, or from another program) is refused, naming the first turn that differs and how.
"""

from __future__ import annotations

from typing import Any

from solver.errors import InputError, RummikubError
from solver.game.engine import Game, GameConfig, TurnRecord
from solver.game.records import GameHeader, GameRecord


def config_of(header: GameHeader) -> GameConfig:
    """The config that dealt the round a record's header describes."""
    deal = header.deal
    try:
        return GameConfig(
            rules=header.rules,
            players=len(header.players),
            seed=header.seed,
            redeal_three_pairs=_flag(deal, "redeal_three_pairs"),
            joker_each=_flag(deal, "joker_each"),
            scoring=header.scoring,
            rack_size=_size(deal),
        )
    except RummikubError as err:
        raise InputError(f"the record's game line: {err}") from None


def _flag(deal: Any, key: str) -> bool:
    value = deal.get(key, False)
    if not isinstance(value, bool):
        raise InputError(f"the record's game line: deal {key!r} must be true or false")
    return value


def _size(deal: Any) -> int:
    value = deal.get("rack_size", 14)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError("the record's game line: deal 'rack_size' must be a whole number")
    return value


def replay(record: GameRecord, source: str = "<record>") -> Game:
    """The round as it stands after the record's last turn (over, if the record has its result)."""
    game = Game.new(config_of(record.header))
    if game.first_player + 1 != record.header.first_player:
        raise InputError(
            f"record {source} does not follow from its seed: player {game.first_player + 1} starts,"
            f" the record says player {record.header.first_player}"
        )
    for turn in record.turns:
        if game.over:
            raise InputError(f"record {source} turn {turn.turn}: the round was already over")
        replay_turn(game, turn, source)
    if record.result is not None:
        if not game.over:
            raise InputError(f"record {source} has a result, but its round is not over after the last turn")
        expected, found = game.result(), record.result
        if (expected.winner, expected.scores, expected.reason) != (found.winner, found.scores, found.reason):
            raise InputError(
                f"record {source}: its result does not follow from its turns (scores {list(found.scores)},"
                f" the turns give {list(expected.scores)})"
            )
    return game


def replay_turn(game: Game, turn: TurnRecord, source: str = "<record>") -> TurnRecord:
    """Carry out one recorded turn on ``game`` and check it comes out as recorded."""
    where = f"record {source} turn {turn.turn}"
    if turn.seat != game.seat:
        raise InputError(f"{where}: player {turn.player} moves, but it is player {game.seat + 1}'s turn")
    try:
        if turn.timed_out:
            done = game.penalty(len(turn.penalty), [list(s) for s in turn.table_after])
        elif turn.played:
            done = game.play([list(s) for s in turn.table_after], placed=True)
        else:
            done = game.draw()
    except RummikubError as err:
        raise InputError(f"{where}: {err}") from None
    expected, found = done.to_dict(), turn.to_dict()
    if expected != found:
        field = next(k for k in [*found, *expected] if expected.get(k) != found.get(k))
        raise InputError(
            f"{where} does not follow from the seed and the turns before it: {field!r} is"
            f" {_short(found.get(field))} in the record, {_short(expected.get(field))} when replayed"
        )
    return done


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
