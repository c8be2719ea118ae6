"""Scoring a round: what a rack costs, and the standard and club score sheets (pure functions).

Everything here works on plain numbers (rack values, flags per player) so that a score sheet for
a game played at a real table can use it as well as the engine. Players are 0-based seats.

Standard scoring (docs/rules.md, "End of a round and scoring"): every player but the winner scores
minus the value of their rack (numbers at face value, a joker ``joker_value``, 30 by default);
the winner scores plus the sum of those penalties, so a round is zero-sum. A round that ends
blocked (pool empty, everyone passes) is won by the lowest rack value; under standard scoring
the others still pay their whole rack.

Club scoring (the club sheet): one *big point* for the round's winner; *small points* as above,
except that a blocked round costs the others only the difference between their rack and the
winner's; a joker left on a rack costs 100 (unless the rules name another penalty than 30). A
player who never opened loses a flat 100 in place of their rack, or a flat 200 if they could have
opened on an earlier turn and drew instead (as the score sheet, solver/game/scoresheet.py, reads
the club sheet). Simplifications, documented here and in docs/formats.md (the engine): these
penalties go to the winner like any other (small points stay zero-sum); a player whose final
rack holds an opening is taken to have declared it (the sheet's exception for a player who drew
it on the last turn), so pays their rack as if opened, unless an earlier turn already allowed an
opening.

Ties (a blocked round where several players share the lowest value, and as many tiles): the
tied players share the win: no big point, the pot split evenly (the remainder to the first tied
seat), and each of them pays nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from solver.tiles import Tile

STANDARD_JOKER_VALUE = 30
CLUB_JOKER_VALUE = 100
NEVER_OPENED_PENALTY = 100
COULD_HAVE_OPENED_PENALTY = 200


def joker_value(club: bool, penalty: int) -> int:
    """What a joker left on a rack costs: the rules' ``penalty``; under club scoring 100 (the club
    sheet) unless the rules name another penalty than the standard 30 (``--joker-penalty 50``)."""
    return CLUB_JOKER_VALUE if club and penalty == STANDARD_JOKER_VALUE else penalty


def rack_value(tiles: Iterable[Tile], joker_value: int = STANDARD_JOKER_VALUE) -> int:
    """What a rack costs its holder: numbers at face value, each joker ``joker_value``."""
    return sum(joker_value if t.is_joker else t.number for t in tiles)


def blocked_winners(values: Sequence[int], tile_counts: Sequence[int] | None = None) -> list[int]:
    """Seats with the lowest rack value (ties broken by fewer tiles); several if still tied."""
    if not values:
        raise ValueError("no players")
    counts = list(tile_counts) if tile_counts is not None else [0] * len(values)
    best = min(zip(values, counts))
    return [seat for seat, key in enumerate(zip(values, counts)) if key == best]


def _share(total: int, winners: Sequence[int], players: int) -> list[int]:
    """The winners' shares of ``total``: evenly, the remainder to the first winner."""
    shares = [0] * players
    each, rest = divmod(total, len(winners))
    for i, seat in enumerate(winners):
        shares[seat] = each + (rest if i == 0 else 0)
    return shares


def _check(values: Sequence[int], winners: Sequence[int]) -> None:
    if not winners:
        raise ValueError("a round needs at least one winner")
    if any(not 0 <= w < len(values) for w in winners) or len(set(winners)) != len(winners):
        raise ValueError(f"winners {list(winners)} are not distinct seats of {len(values)} players")
    if any(v < 0 for v in values):
        raise ValueError("rack values cannot be negative")


def standard_scores(values: Sequence[int], winners: Sequence[int]) -> list[int]:
    """Standard round scores: the others pay their rack value, the winner(s) collect it all.

    ``values`` are rack values per seat (see :func:`rack_value`); ``winners`` is one seat, or the
    seats tied for a blocked round. Example (docs/rules.md): A wins, B 5, C 10, D 3 → +18 −5 −10 −3.
    """
    _check(values, winners)
    penalties = [0 if seat in winners else v for seat, v in enumerate(values)]
    shares = _share(sum(penalties), winners, len(values))
    return [shares[seat] - penalties[seat] for seat in range(len(values))]


@dataclass(frozen=True, slots=True)
class ClubRound:
    """One round on the club sheet: big points (1 for the winner) and small points per seat."""

    big: tuple[int, ...]
    small: tuple[int, ...]


def never_opened_penalty(could_have_opened: bool) -> int:
    """The club sheet's flat cost for a player who never opened (in place of their rack)."""
    return COULD_HAVE_OPENED_PENALTY if could_have_opened else NEVER_OPENED_PENALTY


def club_scores(
    values: Sequence[int],
    winners: Sequence[int],
    *,
    blocked: bool = False,
    opened: Sequence[bool] | None = None,
    could_have_opened: Sequence[bool] | None = None,
    declared: Sequence[bool] | None = None,
) -> ClubRound:
    """Club round scores.

    ``values``: rack values per seat with jokers at 100 (``rack_value(tiles, CLUB_JOKER_VALUE)``).
    ``blocked``: the round ended with the pool empty, so the others pay only the difference to
    the winner's value. ``opened``: whether each seat opened during the round (default: all did);
    ``could_have_opened``: whether a seat that never opened could have on some turn and drew
    instead; ``declared``: whether a seat that never opened holds an opening on its final rack
    (declared for the next turn: it pays its rack, unless it could have opened before).
    """
    _check(values, winners)
    players = len(values)
    opened = list(opened) if opened is not None else [True] * players
    could = list(could_have_opened) if could_have_opened is not None else [False] * players
    declared = list(declared) if declared is not None else [False] * players
    if not len(opened) == len(could) == len(declared) == players:
        raise ValueError("one flag per player is needed")
    low = min(values[w] for w in winners) if blocked else 0
    penalties = []
    for seat, value in enumerate(values):
        if seat in winners:
            penalties.append(0)
            continue
        if not opened[seat] and (could[seat] or not declared[seat]):
            penalties.append(never_opened_penalty(could[seat]))
        else:
            penalties.append(value - low)
    shares = _share(sum(penalties), winners, players)
    big = tuple(1 if len(winners) == 1 and seat == winners[0] else 0 for seat in range(players))
    return ClubRound(big, tuple(shares[seat] - penalties[seat] for seat in range(players)))


def club_ranking(big: Sequence[int], small: Sequence[int]) -> list[int]:
    """Seats ranked by the club sheet: most big points, then most small points (then seat)."""
    return sorted(range(len(big)), key=lambda seat: (-big[seat], -small[seat], seat))
