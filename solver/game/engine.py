"""The game engine: whole rounds and matches by docs/rules.md, reproducible from a seed.

A :class:`Game` owns one round: the shuffled pool, the draw for the first player, the deal, whose
turn it is, every rack, the table and who has opened. A turn is :meth:`Game.play` (the whole table
after the move; it goes through the independent validator, and an illegal table raises
:class:`IllegalMove` and leaves the game as it was), :meth:`Game.draw` (one tile from the pool, a
pass once the pool is empty) or :meth:`Game.penalty` (a turn-timer penalty). The round ends when a
rack is emptied, or when the pool is empty and every player has passed in turn (then the lowest
rack wins). Scores come from :mod:`solver.game.scoring`; :class:`Match` chains rounds with running totals.

Randomness comes only from ``random.Random(config.seed)``: the same config gives the same round.
Seats are 0-based here; records and the CLI number players from 1.

Setup details the rule texts leave open, decided here: in the draw for the first player a joker
counts 0 and players tied for the highest tile draw again; the draw's tiles go back and the pool is
reshuffled before the deal. With ``redeal_three_pairs`` a deal in which any rack holds three pairs
of identical numbered tiles is shuffled and dealt again (at most 100 times). With ``joker_each``
every player's rack starts with one joker (the rules must have a joker per player).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from solver.errors import PositionError, RulesError, RummikubError
from solver.game.scoring import (
    blocked_winners,
    club_ranking,
    club_scores,
    joker_value,
    rack_value,
    standard_scores,
)
from solver.least_moves import match
from solver.melds import why_invalid
from solver.position import Position
from solver.rules import RuleSet
from solver.tiles import JOKER, Tile, format_tiles, full_pool, table_as_lists
from solver.validator import Violation, played_tiles, validate

MIN_PLAYERS = 2
MAX_PLAYERS = 4
RACK_SIZE = 14
MAX_REDEALS = 100
SCORINGS = ("standard", "club")

Table = tuple[tuple[Tile, ...], ...]


class IllegalMove(RummikubError):
    """A proposed table the rules forbid; ``violations`` lists every problem (validator codes)."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = tuple(violations)
        super().__init__("illegal move: " + "; ".join(v.message for v in self.violations))


class GameOver(RummikubError):
    """A move asked of a round that has ended (or a result of one that has not)."""


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes a round before the shuffle: rules, players, seed, variants."""

    rules: RuleSet
    players: int  # 2..4
    seed: int
    redeal_three_pairs: bool = False  # club variant: a rack with three duplicate pairs is redealt
    joker_each: bool = False  # tournament variant: each player starts with one joker
    scoring: str = "standard"  # "standard" | "club"
    rack_size: int = RACK_SIZE  # tiles dealt to each player (14 by the rules; smaller for tests)

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise RulesError(f"invalid players={self.players!r}: a round has 2 to 4 players")
        if self.scoring not in SCORINGS:
            raise RulesError(f"invalid scoring={self.scoring!r}: must be standard or club")
        if not 1 <= self.rack_size <= 40:
            raise RulesError(f"invalid rack size {self.rack_size!r}: must be between 1 and 40")
        total = self.rules.tile_count
        if self.players * self.rack_size > total:
            raise RulesError(
                f"{self.players} players × {self.rack_size} tiles need {self.players * self.rack_size}"
                f" tiles, these rules have only {total}"
            )
        if self.joker_each and self.rules.jokers < self.players:
            raise RulesError(
                f"joker-each needs a joker per player: {self.players} players, rule jokers={self.rules.jokers}"
                f" (set jokers to {self.players} or more)"
            )

    def describe_deal(self) -> str:
        return describe_deal(self.scoring, self.rack_size, self.joker_each, self.redeal_three_pairs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "redeal_three_pairs": self.redeal_three_pairs,
            "joker_each": self.joker_each,
            "scoring": self.scoring,
            "rack_size": self.rack_size,
        }


def derived_seed(seed: int, index: int) -> int:
    """A seed for the ``index``-th game of a series: independent-looking, the same every run."""
    digest = hashlib.sha256(f"rummikub:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _tiles(tiles: Sequence[Tile]) -> list[str]:
    return [str(t) for t in tiles]


@dataclass(frozen=True)
class TurnRecord:
    """One turn as it happened: the state before it, what was laid or drawn, the table after."""

    turn: int  # 1-based
    seat: int  # 0-based
    opened: bool  # had the player opened before this turn
    rack: tuple[Tile, ...]  # before the turn
    table: Table  # before the turn
    played: tuple[Tile, ...]  # rack tiles laid (empty for a draw)
    drew: Tile | None  # the tile drawn, None for a play or a pass
    table_after: Table
    pool: int  # tiles left in the pool after the turn
    penalty: tuple[Tile, ...] = ()  # tiles drawn as a timer penalty
    # Ended by the turn timer (its penalty may have drawn nothing: the pool was empty).
    timed_out: bool = False

    @property
    def player(self) -> int:
        return self.seat + 1

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "turn",
            "turn": self.turn,
            "player": self.player,
            "opened": self.opened,
            "rack": _tiles(self.rack),
            "table": table_as_lists(self.table),
            "played": _tiles(self.played),
            "drew": str(self.drew) if self.drew is not None else None,
            "table_after": table_as_lists(self.table_after),
            "pool": self.pool,
        }
        if self.penalty:
            data["penalty"] = _tiles(self.penalty)
        if self.timed_out:
            data["timeout"] = True
        return data


@dataclass(frozen=True)
class RoundResult:
    """How a round ended and what each seat scored (standard points, or club small points)."""

    winner: int | None  # 0-based seat; None when a blocked round ends in a tie
    reason: str  # "rack_empty" | "blocked"
    scores: tuple[int, ...]
    racks: tuple[tuple[Tile, ...], ...]
    scoring: str = "standard"
    big: tuple[int, ...] = ()  # club scoring: big points (1 for the winner)
    winners: tuple[int, ...] = ()  # the seats sharing the win (one unless tied)
    opened: tuple[bool, ...] = ()
    turns: int = 0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "result",
            "winner": self.winner + 1 if self.winner is not None else None,
            "reason": self.reason,
            "scores": list(self.scores),
            "racks": table_as_lists(self.racks),
            "scoring": self.scoring,
        }
        if self.big:
            data["big"] = list(self.big)
        if len(self.winners) > 1:
            data["tied"] = [w + 1 for w in self.winners]
        if self.opened:
            data["opened"] = list(self.opened)
        if self.turns:
            data["turns"] = self.turns
        return data


@dataclass(frozen=True)
class GameView:
    """What one player may know on their turn: own rack, the table, the others' rack sizes."""

    seat: int
    position: Position  # own rack, the table, opened, rules
    rack_sizes: tuple[int, ...]  # per seat
    opened: tuple[bool, ...]  # per seat
    pool_size: int
    turn: int
    players: int
    # Public knowledge of each seat's latest turn: True if it laid no tile (drew or passed),
    # None if it has not moved yet.
    last_drew: tuple[bool | None, ...] = ()
    # The table as each seat left it after its latest turn (None before its first turn).
    last_tables: tuple[Table | None, ...] = ()

    @property
    def rules(self) -> RuleSet:
        return self.position.rules

    def unseen(self) -> Counter[Tile]:
        """Tiles this player cannot see: in the pool or on the other racks."""
        return Counter(full_pool(self.rules)) - Counter(self.position.rack) - self.position.table_tiles

    def opponents(self) -> list[int]:
        """The other seats in turn order, starting with the next player."""
        return [(self.seat + k) % self.players for k in range(1, self.players)]


@dataclass
class Game:
    """One round in progress. Create with :meth:`new`; advance with play, draw or penalty."""

    config: GameConfig
    racks: list[list[Tile]]
    table: list[list[Tile]]
    opened: list[bool]
    seat: int
    first_player: int
    turn: int = 1
    redeals: int = 0
    history: list[TurnRecord] = field(default_factory=list)
    _pool: list[Tile] = field(default_factory=list, repr=False)  # drawn from the end
    _passes: int = 0  # consecutive turns that drew nothing because the pool was empty
    _end: str | None = None
    _result: RoundResult | None = field(default=None, repr=False)

    @classmethod
    def new(cls, config: GameConfig) -> Game:
        """Shuffle, draw for the first player, deal ``rack_size`` tiles each (with the deal variants)."""
        rng = random.Random(config.seed)
        rules = config.rules
        pool = full_pool(rules)
        first = _draw_for_first(rng, pool, config.players)
        redeals = 0
        while True:
            racks, rest = _deal(rng, pool, config)
            if not config.redeal_three_pairs or not any(_three_pairs(r) for r in racks):
                break
            if redeals == MAX_REDEALS:
                break  # a rule set so small that every deal has pairs: play the last one
            redeals += 1
        return cls(
            config=config,
            racks=[sorted(r) for r in racks],
            table=[],
            opened=[False] * config.players,
            seat=first,
            first_player=first,
            redeals=redeals,
            _pool=rest,
        )

    # ------------------------------------------------------------------ state

    @property
    def rules(self) -> RuleSet:
        return self.config.rules

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def pool_size(self) -> int:
        return len(self._pool)

    @property
    def over(self) -> bool:
        return self._end is not None

    def position(self, seat: int | None = None) -> Position:
        """That seat's view of the table (default: the player to move)."""
        seat = self.seat if seat is None else seat
        return Position(
            tuple(self.racks[seat]), tuple(tuple(s) for s in self.table), self.opened[seat], self.rules
        )

    def view(self, seat: int | None = None) -> GameView:
        seat = self.seat if seat is None else seat
        return GameView(
            seat=seat,
            position=self.position(seat),
            rack_sizes=tuple(len(r) for r in self.racks),
            opened=tuple(self.opened),
            pool_size=self.pool_size,
            turn=self.turn,
            players=self.players,
            last_drew=tuple(None if r is None else not r.played for r in self._latest()),
            last_tables=tuple(None if r is None else r.table_after for r in self._latest()),
        )

    def _latest(self) -> list[TurnRecord | None]:
        """Each seat's latest turn."""
        latest: list[TurnRecord | None] = [None] * self.players
        for record in self.history[-self.players :]:
            latest[record.seat] = record
        return latest

    def tile_count(self) -> int:
        """Tiles in racks, on the table and in the pool: always the whole game."""
        return sum(len(r) for r in self.racks) + sum(len(s) for s in self.table) + len(self._pool)

    # ------------------------------------------------------------------ turns

    def play(self, new_table: Sequence[Sequence[Tile]], placed: bool = False) -> TurnRecord:
        """Lay tiles: ``new_table`` is the whole table after the move (every set).

        The move goes through the validator; an illegal one raises IllegalMove listing every
        violation and changes nothing. ``placed``: the sets are in their places already (a
        record's table, replayed as it was written, whichever version of this placed it).
        """
        self._require_running()
        position = self.position()
        proposed = [list(s) for s in new_table]
        violations = validate(position, proposed)
        played = played_tiles(position, proposed)
        if not violations and not played:
            violations = [
                Violation(
                    "no_tile_played",
                    "a play lays at least one tile from the rack (to pass, draw a tile)",
                )
            ]
        if violations:
            raise IllegalMove(violations)
        before_rack, before_table = tuple(self.racks[self.seat]), self._frozen_table()
        was_open = self.opened[self.seat]
        # Each set as written (under strict joker rules the order says what a joker is), the sets
        # in their places: the table a person sees keeps its numbers from turn to turn.
        self.table = proposed if placed else in_place(self.table, proposed, self.rules)
        self.racks[self.seat] = sorted((Counter(self.racks[self.seat]) - played).elements())
        self.opened[self.seat] = True
        self._passes = 0
        record = self._record(was_open, before_rack, before_table, tuple(sorted(played.elements())), None, ())
        if not self.racks[record.seat]:
            self._end = "rack_empty"
        return record

    def draw(self) -> TurnRecord:
        """Draw one tile from the pool, ending the turn; with the pool empty this is a pass."""
        self._require_running()
        before_rack, before_table = tuple(self.racks[self.seat]), self._frozen_table()
        drew: Tile | None = None
        if self._pool:
            drew = self._pool.pop()
            self.racks[self.seat] = sorted([*self.racks[self.seat], drew])
            self._passes = 0
        else:
            self._passes += 1
        record = self._record(self.opened[self.seat], before_rack, before_table, (), drew, ())
        if self._passes >= self.players:
            self._end = "blocked"
        return record

    def penalty(self, tiles: int, restore_table: Sequence[Sequence[Tile]] | None = None) -> TurnRecord:
        """End the turn with a timer penalty: ``tiles`` tiles from the pool (as many as are left).

        ``restore_table``: the table the player leaves (for the rule where the broken sets go back
        onto the rack): every set must be valid and made of the old table and the player's rack;
        tiles of the old table not in it go to the player's rack, rack tiles in it count as laid.
        None: the table stays as it was at the start of the turn. A player who has not opened may
        not touch the table, so for them the table always stays as it was.
        """
        self._require_running()
        if isinstance(tiles, bool) or tiles < 0:
            raise PositionError(f"invalid penalty {tiles!r}: a number of tiles, 0 or more")
        seat = self.seat
        before_rack, before_table = tuple(self.racks[seat]), self._frozen_table()
        was_open = self.opened[seat]
        laid: Counter[Tile] = Counter()
        if restore_table is not None and was_open:
            kept = [list(s) for s in restore_table]
            for i, s in enumerate(kept, 1):
                reason = why_invalid(s, self.rules)
                if reason is not None:
                    raise PositionError(
                        f"invalid set '{format_tiles(s)}' in the restored table set {i}: {reason}"
                    )
            available = Counter(self.racks[seat]) + Counter(t for s in self.table for t in s)
            after = Counter(t for s in kept for t in s)
            extra = after - available
            if extra:
                raise PositionError(
                    f"restored table holds {format_tiles(sorted(extra.elements()))}, which are neither"
                    " on the table nor on the rack"
                )
            old = Counter(t for s in self.table for t in s)
            laid = after - old
            self.racks[seat] = sorted((available - after).elements())
            self.table = kept
        drawn = tuple(self._pool.pop() for _ in range(min(tiles, len(self._pool))))
        self.racks[seat] = sorted([*self.racks[seat], *drawn])
        if laid or drawn:
            self._passes = 0
        elif not self._pool:
            self._passes += 1
        record = self._record(
            was_open, before_rack, before_table, tuple(sorted(laid.elements())), None, drawn, timed_out=True
        )
        if not self.racks[seat]:
            self._end = "rack_empty"
        elif self._passes >= self.players:
            self._end = "blocked"
        return record

    def _require_running(self) -> None:
        if self._end is not None:
            raise GameOver(f"the round is over ({self._end.replace('_', ' ')}): no more turns")

    def _frozen_table(self) -> Table:
        return tuple(tuple(s) for s in self.table)

    def _record(
        self,
        was_open: bool,
        rack: tuple[Tile, ...],
        table: Table,
        played: tuple[Tile, ...],
        drew: Tile | None,
        penalty: tuple[Tile, ...],
        timed_out: bool = False,
    ) -> TurnRecord:
        record = TurnRecord(
            turn=self.turn,
            seat=self.seat,
            opened=was_open,
            rack=rack,
            table=table,
            played=played,
            drew=drew,
            table_after=self._frozen_table(),
            pool=len(self._pool),
            penalty=penalty,
            timed_out=timed_out,
        )
        self.history.append(record)
        self.turn += 1
        self.seat = (self.seat + 1) % self.players
        return record

    # ------------------------------------------------------------------ the end

    def result(self) -> RoundResult:
        """Winner, reason and scores (standard or club, per the config); only when the round is over."""
        if self._end is None:
            raise GameOver("the round is not over yet")
        if self._result is None:
            self._result = self._score()
        return self._result

    def _score(self) -> RoundResult:
        club = self.config.scoring == "club"
        joker = joker_value(club, self.rules.joker_penalty)
        values = [rack_value(r, joker) for r in self.racks]
        if self._end == "rack_empty":
            winners = [next(seat for seat, r in enumerate(self.racks) if not r)]
        else:
            winners = blocked_winners(values, [len(r) for r in self.racks])
        big: tuple[int, ...] = ()
        if club:
            could = [not o and self._could_have_opened(seat) for seat, o in enumerate(self.opened)]
            declared = [
                not o and can_open(self.racks[seat], self.rules) for seat, o in enumerate(self.opened)
            ]
            sheet = club_scores(
                values,
                winners,
                blocked=self._end == "blocked",
                opened=self.opened,
                could_have_opened=could,
                declared=declared,
            )
            scores, big = sheet.small, sheet.big
        else:
            scores = tuple(standard_scores(values, winners))
        assert self._end is not None
        return RoundResult(
            winner=winners[0] if len(winners) == 1 else None,
            reason=self._end,
            scores=tuple(scores),
            racks=tuple(tuple(r) for r in self.racks),
            scoring=self.config.scoring,
            big=big,
            winners=tuple(winners),
            opened=tuple(self.opened),
            turns=len(self.history),
        )

    def _could_have_opened(self, seat: int) -> bool:
        """Did this seat, before opening, draw on a turn where its rack held an opening?"""
        return any(
            rec.seat == seat and not rec.opened and not rec.played and can_open(rec.rack, self.rules)
            for rec in self.history
        )


def describe_deal(scoring: str, rack_size: int, joker_each: bool, redeal_three_pairs: bool) -> str:
    """What a game's deal and scoring do unlike the standard game, in words ("" for none)."""
    words = [
        "club scoring" if scoring != "standard" else "",
        f"{rack_size} tiles each" if rack_size != RACK_SIZE else "",
        "a joker each" if joker_each else "",
        "three pairs redealt" if redeal_three_pairs else "",
    ]
    return ", ".join(w for w in words if w)


def in_place(before: Sequence[Sequence[Tile]], after: Sequence[Sequence[Tile]], rules: RuleSet | None = None) -> list[list[Tile]]:
    """The sets of ``after`` in the places of the table ``before``, so that set numbers stay put.

    A set left as it was keeps its place; so does the set that holds the most of an old set's
    tiles (an extended set, the first part of a split, a set rebuilt around it; on a tie, the one
    the steps build on it, then the one holding the old set's first tile), the pairs sharing most
    tiles placed first; the other sets (new ones, further parts) follow at the end, in the order
    given. Only an old set whose tiles all went into sets placed elsewhere leaves a place, and the
    numbers after it close up.
    """
    placed = placement(before, after, rules)
    taken = set(placed.values())
    order = [placed[i] for i in range(len(before)) if i in placed]
    order += [j for j in range(len(after)) if j not in taken]
    return [list(after[j]) for j in order]


def placement(before: Sequence[Sequence[Tile]], after: Sequence[Sequence[Tile]], rules: RuleSet | None = None) -> dict[int, int]:
    """How :func:`in_place` places ``after`` in ``before``'s places: place in ``before`` -> the
    set of ``after`` that takes it. Of a table already placed it gives where each old set went
    (``after`` placed again keeps its order), so numbers can be followed from turn to turn."""
    sets = [Counter(s) for s in after]
    free = list(range(len(sets)))
    placed: dict[int, int] = {}
    olds = [Counter(s) for s in before]
    for i, old in enumerate(olds):  # unchanged sets first; of twins, the one in its own place
        own = i < len(sets) and i in free and sets[i] == old
        same = i if own else next((j for j in free if sets[j] == old), None)
        if same is not None:
            placed[i] = same
            free.remove(same)
    # Then the pairs sharing most tiles first, across the whole table (taken in table order, a
    # broken group's one tile would claim the run it extended from that run's own old set); on a
    # tie the set holding the old set's first tile (a run's first part), then by the sets' tiles,
    # not their places, so that placing a placed table again changes nothing (a replay does).
    pairs = []
    for i, old in enumerate(olds):
        if i in placed or not old:
            continue
        for j in free:
            shared = sum((sets[j] & old).values())
            if shared:
                pairs.append((-shared, i, j))
    # Two sets holding as many of an old set's tiles (K9 B9 O9 and B9 R9 O9 from K9 B9 R9 O9,
    # some of them copies from the rack): the one the steps build on it (least_moves.match).
    tied = len({(shared, i) for shared, i, _ in pairs}) < len(pairs)
    bases = {j: p.base for j, p in enumerate(match(before, after, rules or RuleSet()).table)} if tied else {}
    keyed = [(shared, bases.get(j, i) != i, before[i][0] not in after[j], i, sorted(after[j]), j) for shared, i, j in pairs]
    for _, _, _, i, _, j in sorted(keyed):
        if i not in placed and j in free:
            placed[i] = j
            free.remove(j)
    return placed


def followed(tables: Sequence[Sequence[Sequence[Tile]]], rules: RuleSet | None = None) -> dict[int, int]:
    """Where the sets of the first table are in the last (index -> index), followed through each
    table between as :func:`placement` places one in the places of the one before; a set broken
    up (its place left) is not in it. What lets a person's numbers be followed from turn to turn."""
    where = {i: i for i in range(len(tables[0]))} if tables else {}
    for before, after in itertools.pairwise(tables):
        went = placement(before, after, rules)
        where = {i: went[at] for i, at in where.items() if at in went}
    return where


def kept_in_place(tables: Sequence[Sequence[Sequence[Tile]]], rules: RuleSet | None = None) -> set[int]:
    """The sets of the last table that are, in their places, still what they were in the first."""
    first, last = tables[0], tables[-1]
    return {at for i, at in followed(tables, rules).items() if Counter(first[i]) == Counter(last[at])}


def can_open(rack: Sequence[Tile], rules: RuleSet) -> bool:
    """Does this rack hold an initial meld (new sets of its own tiles worth the threshold)?

    Decided by the solver on an empty table (the meld never depends on the table).
    """
    from solver.solve import solve

    position = Position(tuple(rack), (), False, rules.replace(continue_after_meld=False))
    return solve(position).tiles_played > 0


def _draw_for_first(rng: random.Random, pool: list[Tile], players: int) -> int:
    """Each player draws a tile; the highest number starts (a joker counts 0); the tied redraw."""
    contenders = list(range(players))
    while True:
        rng.shuffle(pool)
        drawn = {seat: (0 if pool[i].is_joker else pool[i].number) for i, seat in enumerate(contenders)}
        top = max(drawn.values())
        contenders = [seat for seat in contenders if drawn[seat] == top]
        if len(contenders) == 1:
            return contenders[0]


def _deal(rng: random.Random, pool: list[Tile], config: GameConfig) -> tuple[list[list[Tile]], list[Tile]]:
    """Shuffle and deal; returns the racks and the rest of the pool (drawn from its end)."""
    tiles = list(pool)
    racks: list[list[Tile]] = [[] for _ in range(config.players)]
    if config.joker_each:
        for rack in racks:
            tiles.remove(JOKER)
            rack.append(JOKER)
    rng.shuffle(tiles)
    for rack in racks:
        while len(rack) < config.rack_size:
            rack.append(tiles.pop())
    return racks, tiles


def _three_pairs(rack: Sequence[Tile]) -> bool:
    """Three (or more) pairs of identical numbered tiles: the club sheet's reason to redeal."""
    return sum(n // 2 for t, n in Counter(rack).items() if not t.is_joker) >= 3


@dataclass
class Match:
    """Several rounds with running totals. The first round is dealt from the match's seed, round
    ``i + 1`` from ``derived_seed(seed, i)``: each round's own seed (a game record's ``seed``), given
    to a new match, deals that round again as its first.

    Standard scoring ranks by total points; club scoring by big points, then small points.
    """

    config: GameConfig
    results: list[RoundResult] = field(default_factory=list)

    def round_seed(self, index: int) -> int:
        """The seed round ``index`` (from 0) is dealt from."""
        return self.config.seed if index == 0 else derived_seed(self.config.seed, index)

    def new_round(self) -> Game:
        """The next round's game (play it to the end, then :meth:`add` its result)."""
        return Game.new(dataclasses.replace(self.config, seed=self.round_seed(len(self.results))))

    def add(self, result: RoundResult) -> None:
        if len(result.scores) != self.config.players:
            raise RummikubError(
                f"a result for {len(result.scores)} players in a {self.config.players}-player match"
            )
        self.results.append(result)

    @property
    def totals(self) -> list[int]:
        """Running total of points (club: small points) per seat."""
        return [sum(r.scores[seat] for r in self.results) for seat in range(self.config.players)]

    @property
    def big_totals(self) -> list[int]:
        return [sum(r.big[seat] for r in self.results if r.big) for seat in range(self.config.players)]

    def running(self) -> list[list[int]]:
        """Totals after each round (one row per round)."""
        rows, total = [], [0] * self.config.players
        for r in self.results:
            total = [a + b for a, b in zip(total, r.scores)]
            rows.append(list(total))
        return rows

    def standings(self) -> list[int]:
        """Seats from first to last place."""
        if self.config.scoring == "club":
            return club_ranking(self.big_totals, self.totals)
        totals = self.totals
        return sorted(range(self.config.players), key=lambda seat: (-totals[seat], seat))
