"""Self-play: many rounds between AI players, and the statistics that answer questions about the game.

Games come in groups of P (the number of players) that share one deal: game ``i`` is dealt from
``derived_seed(seed, i // P)``, and the AIs are seated so that the one listed ``i mod P``-th makes
the first move, each AI taking every seat of the deal once (:func:`seat_orders`). Every AI thus starts equally often
and gets the same tiles as the others over a group, which cancels much of the luck of the deal
(the win-rate intervals, which treat games as independent, are then on the safe side). A game
depends on nothing but its index, so a series gives the same results in one process, several, or
on a Dask cluster (``Workers``). An AI listed twice is told apart as ``medium#1``, ``medium#2``.

Statistics: win rates with 95% Wilson score intervals, average points, turns per game, how often
each AI has opened by its k-th turn, and the value of holding a joker (the win rate of players
dealt a joker against those dealt none). :func:`opening_odds` estimates, by dealing racks, the
chance of being able to open within k turns per meld variant, with and without a joker dealt;
like the games, each deal depends on nothing but its index.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from itertools import permutations
from pathlib import Path
from typing import Any

from solver.errors import InputError, RulesError, ValidationFailure
from solver.executors import Workers, open_executor, run_tasks
from solver.file_io import make_folder
from solver.game.engine import Game, GameConfig, IllegalMove, can_open, derived_seed
from solver.game.players import LEVELS, make_player
from solver.game.records import GameHeader, read_record, record_lines, write_record_lines
from solver.game.replay import config_of, replay
from solver.rules import RuleSet
from solver.solve import warm
from solver.tiles import full_pool
from solver.wording import count

OPEN_BY = (1, 2, 3, 5, 10)  # the k of "opened by its k-th turn"
Z95 = 1.959963984540054


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default); (0, 1) for no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def difference_interval(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """Newcombe's hybrid score interval for p1 - p2 (his method 10, from the two Wilson
    intervals): within [-1, 1] and never of zero width at 0% or 100%, unlike the normal
    approximation on small counts."""
    p1, p2 = k1 / n1, k2 / n2
    low1, high1 = wilson(k1, n1, z)
    low2, high2 = wilson(k2, n2, z)
    diff = p1 - p2
    return diff - math.hypot(p1 - low1, high2 - p2), diff + math.hypot(high1 - p1, p2 - low2)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and its normal-approximation 95% interval."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, mean, mean
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return mean, mean - half, mean + half


def labels(ais: Sequence[str]) -> list[str]:
    """AI names as reported: a name listed more than once is numbered (``medium#1``, ``medium#2``)."""
    counts = Counter(ais)
    seen: Counter[str] = Counter()
    out = []
    for ai in ais:
        seen[ai] += 1
        out.append(f"{ai}#{seen[ai]}" if counts[ai] > 1 else ai)
    return out


def parse_ais(text: str, players: int) -> list[str]:
    """``hard,medium`` → one AI per player; a single name fills every seat."""
    names = [n.strip().lower() for n in text.split(",")]
    if "" in names:  # 'medium,,easy': a seat left out is a typo, not one seat fewer
        raise RulesError(f"--ai {text!r}: an empty name between commas (AIs: {', '.join(LEVELS)})")
    for n in names:
        if n not in LEVELS:
            raise RulesError(f"unknown AI {n!r} in --ai: choose from {', '.join(LEVELS)}")
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise RulesError(f"--ai lists {count(len(names), 'AI')} for {count(players, 'player')}: give one, or one per player")
    return names


@lru_cache(maxsize=64)
def _seat_orders(levels: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    players = len(levels)
    cyclic = tuple(tuple((r + k) % players for k in range(players)) for r in range(players))

    def patterns(square: Sequence[tuple[int, ...]]) -> int:
        return len({tuple(levels[i] for i in row) for row in square})

    most = min(players, len(set(permutations(levels))))
    if patterns(cyclic) == most:
        return cyclic
    # A repeating line-up (hard, medium, hard, medium) turned round by two is the same game
    # again: look for a Latin square whose rows seat the levels in as many different ways.
    rows = list(permutations(range(players)))
    best: list[tuple[int, ...]] = list(cyclic)

    def extend(square: list[tuple[int, ...]]) -> bool:
        nonlocal best
        if len(square) == players:
            if patterns(square) > patterns(best):
                best = list(square)
            return patterns(best) == most
        for row in rows:
            fits = all(row[k] != other[k] for other in square for k in range(players))
            if fits and extend([*square, row]):
                return True
        return False

    extend([])
    return tuple(sorted(best))


def seat_orders(levels: Sequence[str]) -> tuple[tuple[int, ...], ...]:
    """For each game of a group, the AIs (indices into ``levels``) from the first player on.

    A Latin square: every AI moves first once per group and sits at every distance from the
    first player once. The rotation (AI r first, then r+1, ...) when every game it gives seats
    the levels differently; otherwise a square that does (deterministic AIs would replay the same
    game). Row r starts with AI r.
    """
    return _seat_orders(tuple(levels))


@dataclass(frozen=True)
class Settings:
    """A self-play series (picklable, for worker processes and Dask workers)."""

    ais: tuple[str, ...]  # one AI level per player, in listing order
    games: int
    seed: int = 0
    rules: RuleSet = field(default_factory=RuleSet)
    scoring: str = "standard"
    redeal_three_pairs: bool = False
    joker_each: bool = False
    rack_size: int = 14
    record_dir: str | None = None

    @property
    def players(self) -> int:
        return len(self.ais)

    def config(self, index: int) -> GameConfig:
        """Game ``index``'s round: the P games of a group share the deal."""
        return GameConfig(
            rules=self.rules,
            players=self.players,
            seed=derived_seed(self.seed, index // self.players),
            redeal_three_pairs=self.redeal_three_pairs,
            joker_each=self.joker_each,
            scoring=self.scoring,
            rack_size=self.rack_size,
        )


@dataclass(frozen=True)
class Outcome:
    """One game's result, by AI label (not by seat)."""

    index: int
    seating: tuple[str, ...]  # label per seat
    starter: str
    winners: tuple[str, ...]  # one, or those tied for a blocked round
    reason: str
    scores: dict[str, int]
    turns: int
    opened_turn: dict[str, int | None]  # the player's own turn (1-based) on which it opened
    dealt_jokers: dict[str, int]
    seconds: float
    record: tuple[str, ...] = ()  # the game record's lines, when the series keeps records
    resumed: bool = False  # read back from its record (a resumed series), not played now


def play_game(index: int, settings: Settings) -> Outcome:
    """Play game ``index`` of the series to its end (and write its record if asked)."""
    started = time.perf_counter()
    config = settings.config(index)
    game = Game.new(config)
    names = labels(settings.ais)
    seating = _seating(index, settings, game.first_player)
    ais = [make_player(settings.ais[names.index(label)]) for label in seating]
    dealt = {label: sum(t.is_joker for t in game.racks[seat]) for seat, label in enumerate(seating)}
    while not game.over:
        seat = game.seat
        table = ais[seat].choose(game.view())
        if table is None:
            game.draw()
            continue
        try:
            game.play(table)
        except IllegalMove as err:
            raise ValidationFailure(
                f"AI {seating[seat]} proposed an illegal move in game {index + 1}: {err}"
            ) from None
    record: tuple[str, ...] = ()
    if settings.record_dir is not None:
        record = tuple(record_lines(GameHeader.for_game(game, seating), game.history, game.result()))
    return _outcome(index, game, seating, dealt, time.perf_counter() - started, record)


def _seating(index: int, settings: Settings, first_player: int) -> list[str]:
    """Game ``index``'s AI labels by seat: AI number (index mod P) moves first, the others follow
    in this game's order of the group."""
    names, players = labels(settings.ais), settings.players
    order = seat_orders(settings.ais)[index % players]
    return [names[order[(seat - first_player) % players]] for seat in range(players)]


def _outcome(
    index: int, game: Game, seating: Sequence[str], dealt: dict[str, int], seconds: float, record: tuple[str, ...] = ()
) -> Outcome:
    """A finished game's outcome by AI label; each player's opening turn counted in its own turns."""
    result = game.result()
    own_turns = [0] * game.players
    opened_turn: dict[str, int | None] = dict.fromkeys(seating)
    for turn in game.history:
        own_turns[turn.seat] += 1
        if turn.played and opened_turn[seating[turn.seat]] is None:
            opened_turn[seating[turn.seat]] = own_turns[turn.seat]
    return Outcome(
        index=index,
        seating=tuple(seating),
        starter=seating[game.first_player],
        winners=tuple(seating[w] for w in result.winners),
        reason=result.reason,
        scores={seating[seat]: score for seat, score in enumerate(result.scores)},
        turns=len(game.history),
        opened_turn=opened_turn,
        dealt_jokers=dealt,
        seconds=seconds,
        record=record,
    )


def record_path(index: int, settings: Settings) -> Path:
    """Where game ``index``'s record goes (with ``record_dir``)."""
    assert settings.record_dir is not None
    return Path(settings.record_dir) / f"game-{index + 1:05d}.jsonl"


def outcome_from_record(index: int, settings: Settings) -> Outcome:
    """Game ``index`` read back from its record (a resumed series), checked to be that game of
    this series: the same deal and seating, every turn replayed, a result. InputError if not."""
    path = record_path(index, settings)
    record = read_record(path)
    config = settings.config(index)
    other = f"record {path} is not game {index + 1} of this series"
    if config_of(record.header) != config:
        raise InputError(f"{other} (another seed, rules or deal): give --record another folder")
    game = replay(record, str(path))
    if not game.over or record.result is None:
        raise InputError(f"record {path}: game {index + 1} is not over (a record is written when its game ends)")
    seating = _seating(index, settings, game.first_player)
    if [p.name for p in record.header.players] != seating:
        raise InputError(f"{other} (other AIs or seats): give --record another folder")
    start = Game.new(config)
    dealt = {label: sum(t.is_joker for t in start.racks[seat]) for seat, label in enumerate(seating)}
    return replace(_outcome(index, game, seating, dealt, 0.0), resumed=True)


def run_games(settings: Settings, workers: Workers = Workers(), resume: bool = False) -> Iterator[Outcome]:
    """Every game of the series as it ends (in index order only in one process), played where
    ``workers`` says. A game's record, if kept, is written here, just before its outcome is
    handed on: whatever stops the series, the records on disk are whole and are those of the
    games reported, give or take the one in hand. ``resume``: the games whose records are
    already in ``record_dir`` are read back (first), not played again."""
    if settings.record_dir is not None:
        make_folder(settings.record_dir, "record")
        there = sorted(Path(settings.record_dir).glob("game-*.jsonl"))
        if there and not resume:  # another series' records, or this one's: never mixed, never lost
            raise InputError(
                f"record directory {settings.record_dir} already holds game records ({there[0].name} …):"
                " --resume goes on with the series they are of, or give another folder"
            )
    left = list(range(settings.games))
    if resume:
        if settings.record_dir is None:
            raise InputError("resuming needs the records of the games already played (--record DIR)")
        kept = {i for i in left if record_path(i, settings).exists()}
        for index in sorted(kept):
            yield outcome_from_record(index, settings)
        left = [i for i in left if i not in kept]
    if not left:
        return
    with open_executor(workers.at_most(len(left)), partial(warm, settings.rules)) as executor:
        # Unordered: a game that ends is reported at once, not held back behind a longer one.
        for outcome in run_tasks(executor, play_game, left, settings, ordered=False, total=len(left)):
            if settings.record_dir is not None:
                write_record_lines(record_path(outcome.index, settings), outcome.record)
                outcome = replace(outcome, record=())  # a long series need not keep every record in memory
            yield outcome


@dataclass
class Summary:
    """Statistics over a series of games, by AI label."""

    settings: Settings
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def names(self) -> list[str]:
        return labels(self.settings.ais)

    def wins(self) -> dict[str, int]:
        """Games won outright (ties excluded)."""
        counts = dict.fromkeys(self.names, 0)
        for o in self.outcomes:
            if len(o.winners) == 1:
                counts[o.winners[0]] += 1
        return counts

    def ties(self) -> int:
        return sum(1 for o in self.outcomes if len(o.winners) > 1)

    def to_dict(self) -> dict[str, Any]:
        games = self.games
        wins = self.wins()
        per_ai: dict[str, Any] = {}
        for name in self.names:
            low, high = wilson(wins[name], games)
            points = [o.scores[name] for o in self.outcomes]
            mean, p_low, p_high = mean_interval(points)
            opened = [o.opened_turn[name] for o in self.outcomes]
            per_ai[name] = {
                "ai": self.settings.ais[self.names.index(name)],
                "wins": wins[name],
                "win_rate": _r(wins[name] / games if games else 0.0),
                "win_rate_95": [_r(low), _r(high)],
                "average_points": _r(mean),
                "average_points_95": [_r(p_low), _r(p_high)],
                "opened_by_turn": {
                    str(k): _r(sum(1 for t in opened if t is not None and t <= k) / games if games else 0.0)
                    for k in OPEN_BY
                },
                "never_opened": _r(sum(1 for t in opened if t is None) / games if games else 0.0),
            }
        turns = [float(o.turns) for o in self.outcomes]
        t_mean, t_low, t_high = mean_interval(turns)
        data: dict[str, Any] = {
            "games": games,
            "players": self.settings.players,
            "ais": self.names,
            "seed": self.settings.seed,
            "rules": self.settings.rules.to_dict(),
            "scoring": self.settings.scoring,
            "wins": wins,
            "ties": self.ties(),
            "blocked": sum(1 for o in self.outcomes if o.reason == "blocked"),
            "per_ai": per_ai,
            "turns_per_game": _r(t_mean),
            "turns_per_game_95": [_r(t_low), _r(t_high)],
            "joker_value": self.joker_value(),
        }
        resumed = sum(1 for o in self.outcomes if o.resumed)
        if resumed:
            data["resumed"] = resumed
        if self.seconds > 0:
            data["seconds"] = round(self.seconds, 3)
            if games > resumed:  # every game read back: none played now, no speed to give
                data["games_per_second"] = _r((games - resumed) / self.seconds)  # the games played now
        return data

    def joker_value(self) -> dict[str, Any]:
        """Win rate of players dealt a joker against players dealt none (all AIs pooled), and
        the difference with its 95% interval (Newcombe's, from the two Wilson intervals)."""
        groups: dict[str, list[int]] = {"with_joker": [], "without_joker": []}
        for o in self.outcomes:
            for name, jokers in o.dealt_jokers.items():
                won = 1 if o.winners == (name,) else 0
                groups["with_joker" if jokers else "without_joker"].append(won)
        out: dict[str, Any] = {}
        for key, results in groups.items():
            n, k = len(results), sum(results)
            low, high = wilson(k, n)
            out[key] = {  # no player of a kind (no joker in the game): no rate of nothing
                "players": n,
                "wins": k,
                "win_rate": _r(k / n) if n else None,
                "win_rate_95": [_r(low), _r(high)] if n else None,
            }
        (k1, n1), (k2, n2) = ((sum(r), len(r)) for r in groups.values())
        if n1 and n2:
            low, high = difference_interval(k1, n1, k2, n2)
            out["difference"] = _r(k1 / n1 - k2 / n2)
            out["difference_95"] = [_r(low), _r(high)]
        return out


def _r(value: float) -> float:
    return round(value, 4)


def summarize(outcomes: Iterable[Outcome], settings: Settings, seconds: float = 0.0) -> Summary:
    summary = Summary(settings, seconds=seconds)
    for o in sorted(outcomes, key=lambda o: o.index):  # the same sums whatever order games ended in
        summary.add(o)
    return summary


# ---------------------------------------------------------------------- opening odds


@dataclass(frozen=True)
class OddsSettings:
    rules: RuleSet
    deals: int
    turns: int
    seed: int = 0
    rack_size: int = 14


MELD_VARIANTS = (
    ("no joker in meld", {"joker_in_meld": False}),
    ("joker in meld", {"joker_in_meld": True}),
)


@dataclass(frozen=True)
class Deal:
    """One dealt rack: whether it held a joker, and per meld variant the first turn on which it
    could open (None: not within the turns followed)."""

    index: int
    with_joker: bool
    first_opening: tuple[int | None, ...]


def odds_variants(settings: OddsSettings) -> list[tuple[str, RuleSet]]:
    """The meld variants the odds are given for (no joker in the meld; with jokers, also one in it)."""
    variants = []
    for label, change in MELD_VARIANTS:
        if change["joker_in_meld"] and settings.rules.jokers == 0:
            continue
        variants.append((label, settings.rules.replace(**change)))
    needed, there = settings.rack_size + settings.turns - 1, len(full_pool(settings.rules))
    if needed > there:
        raise RulesError(
            f"a {settings.rack_size}-tile deal and --turns {settings.turns} need {needed} tiles,"
            f" these rules have only {there}"
        )
    return variants


def deal(index: int, settings: OddsSettings) -> Deal:
    """Deal ``index`` (from the seed alone): the rack draws one tile per turn until it can open
    (the other players' racks are unknown tiles, so drawing from the rest of the tiles is the same)."""
    rng = random.Random(derived_seed(settings.seed, index))
    tiles = full_pool(settings.rules)
    rng.shuffle(tiles)
    rack = tiles[: settings.rack_size]
    draws = tiles[settings.rack_size : settings.rack_size + settings.turns - 1]
    firsts = tuple(_first_opening(rack, draws, rules) for _, rules in odds_variants(settings))
    return Deal(index, any(t.is_joker for t in rack), firsts)


def run_deals(settings: OddsSettings, workers: Workers = Workers()) -> Iterator[Deal]:
    """Every deal, as it is done, dealt where ``workers`` says."""
    odds_variants(settings)  # refuse impossible settings before starting any worker
    with open_executor(workers.at_most(settings.deals), partial(warm, settings.rules)) as executor:
        yield from run_tasks(
            executor, deal, range(settings.deals), settings, ordered=False, total=settings.deals
        )


def opening_odds(settings: OddsSettings, workers: Workers = Workers()) -> dict[str, Any]:
    """Chance of holding an opening by the k-th turn (1 = the dealt rack), by meld variant and by
    whether the deal held a joker."""
    return odds_report(settings, run_deals(settings, workers))


def odds_report(settings: OddsSettings, deals: Iterable[Deal]) -> dict[str, Any]:
    """The odds over the deals done (all of them, or those done before an interrupt)."""
    variants = odds_variants(settings)
    results: dict[str, dict[str, list[int | None]]] = {
        label: {"with_joker": [], "without_joker": []} for label, _ in variants
    }
    done = sorted(deals, key=lambda d: d.index)  # the same lists whatever order deals ended in
    for one in done:
        key = "with_joker" if one.with_joker else "without_joker"
        for (label, _), first in zip(variants, one.first_opening):
            results[label][key].append(first)
    out: dict[str, Any] = {
        "deals": len(done),
        "turns": settings.turns,
        "seed": settings.seed,
        "rules": settings.rules.to_dict(),
        "variants": {},
    }
    for label, by_joker in results.items():
        entry: dict[str, Any] = {}
        everyone = by_joker["with_joker"] + by_joker["without_joker"]
        for key, found in (("all", everyone), *by_joker.items()):
            n = len(found)
            rows = []
            for k in range(1, settings.turns + 1):
                hits = sum(1 for t in found if t is not None and t <= k)
                low, high = wilson(hits, n)
                rows.append({"turn": k, "odds": _r(hits / n if n else 0.0), "odds_95": [_r(low), _r(high)]})
            entry[key] = {"deals": n, "by_turn": rows}
        out["variants"][label] = entry
    return out


def _first_opening(rack: Sequence[Any], draws: Sequence[Any], rules: RuleSet) -> int | None:
    """The first turn (1-based) on which the rack, growing by one drawn tile a turn, can open."""
    current = list(rack)
    for turn in range(1, len(draws) + 2):
        if can_open(current, rules):
            return turn
        if turn - 1 < len(draws):
            current.append(draws[turn - 1])
    return None
