"""The independent validator: is a proposed table after the move legal for this position?

It reports every violation, each with a code, a message a person can act on and the tiles
involved, and it shares nothing with the model or the backends: only the set rules (melds).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from solver.initial_meld import best_meld_sets, best_meld_value
from solver.joker_account import has_account, joker_problems, written_problems
from solver.jokers import table_readings
from solver.melds import best_reading, readings, why_invalid
from solver.position import Position
from solver.tiles import JOKER, Tile, format_counted
from solver.wording import count


@dataclass(frozen=True, slots=True)
class Violation:
    code: str
    message: str
    tiles: tuple[Tile, ...] = ()
    sets: tuple[int, ...] = ()  # the sets of the new table it is about, where it knows (from 0)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "tiles": [str(t) for t in self.tiles]}


def played_tiles(position: Position, new_table: Sequence[Sequence[Tile]]) -> Counter[Tile]:
    """Tiles on the new table that were not on the old one (what the move lays from the rack)."""
    after = Counter(chain.from_iterable(new_table))
    return after - position.table_tiles


def validate(position: Position, new_table: Sequence[Sequence[Tile]], as_written: bool = False) -> list[Violation]:
    """Every rule the proposed table breaks; an empty list means the move is legal. ``as_written``:
    the table as a player wrote it, which the next turn reads as written: under strict and locked
    jokers each joker must stand where it is written for what the move needs it to."""
    rules = position.rules
    out: list[Violation] = []
    for i, s in enumerate(new_table, 1):
        reason = why_invalid(list(s), rules)
        if reason is not None:
            out.append(
                Violation("invalid_set", f"set {i} '{format_counted(s)}' is invalid: {reason}", tuple(s))
            )

    before = position.table_tiles
    after = Counter(chain.from_iterable(new_table))
    missing = before - after
    if missing:
        tiles = tuple(sorted(missing.elements()))
        out.append(
            Violation(
                "table_tile_missing",
                f"table tile{'s' if len(tiles) > 1 else ''} {format_counted(tiles)} not on the table after the move"
                " (tiles may not go back to the rack)",
                tiles,
            )
        )
    played = after - before
    rack = Counter(position.rack)
    extra = played - rack
    if extra:
        out += _unavailable(extra, before, rack, after, position)
    rearranged = sorted(map(_key, new_table)) != sorted(map(_key, position.table))  # as multisets of sets
    if not played and rearranged and not missing:
        out.append(
            Violation(
                "no_tile_played",
                "the table was rearranged but no tile was played"
                " (a turn lays at least one tile from the rack; otherwise the player draws)",
            )
        )
    if not position.opened and (played or rearranged):
        out += _initial_meld_violations(position, new_table, played - extra, as_written)
    # Tiles from nowhere are said above; the jokers are judged as if they were there. A tile gone
    # from a set with jokers (or a joker gone) leaves them nothing certain to judge by.
    joker_sets = Counter(chain.from_iterable(s for s in position.table if JOKER in s))
    if not missing & joker_sets:
        out += [Violation(p.code, p.message, p.tiles, p.sets) for p in joker_problems(position, new_table)]
    if as_written and not out:
        out += [Violation(p.code, p.message, p.tiles, p.sets) for p in written_problems(position, new_table)]
    return out


def is_legal(position: Position, new_table: Sequence[Sequence[Tile]]) -> bool:
    """Whether ``validate`` finds nothing wrong, told sooner: the first rule broken ends it, and
    the jokers are judged by whether an account exists, not why none does. For trying many
    tables (a relaxed model's arrangements); ``validate`` says what is wrong."""
    rules = position.rules
    if any(why_invalid(list(s), rules) is not None for s in new_table):
        return False
    before = position.table_tiles
    after = Counter(chain.from_iterable(new_table))
    played = after - before
    if before - after or played - Counter(position.rack):
        return False
    rearranged = sorted(map(_key, new_table)) != sorted(map(_key, position.table))
    if not played and rearranged:
        return False
    if not position.opened and (played or rearranged) and _initial_meld_violations(position, new_table, played, False):
        return False
    return has_account(position, new_table)


def _unavailable(
    extra: Counter[Tile], before: Counter[Tile], rack: Counter[Tile], after: Counter[Tile], position: Position
) -> list[Violation]:
    """Tiles the answer holds more of than the table and the rack do: ``tile_not_available`` for
    tiles found on neither, ``tile_used_too_often`` for each tile used more times than there are."""
    out: list[Violation] = []
    nowhere = tuple(sorted(t for t in extra.elements() if not before[t] and not rack[t]))
    if nowhere:
        out.append(Violation("tile_not_available", f"{format_counted(nowhere)} neither on the table nor on the rack", nowhere))
    rules = position.rules
    for t in sorted(extra):
        there = before[t] + rack[t]
        if not there:
            continue
        used = after[t]
        where = f"{before[t] or 'none'} on the table, {rack[t] or 'none'} on the rack"
        exist = rules.jokers if t.is_joker else rules.copies
        game = f"; the game has only {exist}" if used > exist else ""
        out.append(
            Violation(
                "tile_used_too_often",
                f"{t} used {count(used, 'time')}, but there {'is' if there == 1 else 'are'} only {there}"
                f" ({where}){game}",
                (t,) * extra[t],
            )
        )
    return out


def _initial_meld_violations(
    position: Position, new_table: Sequence[Sequence[Tile]], played: Counter[Tile], as_written: bool = False
) -> list[Violation]:
    rules = position.rules
    out: list[Violation] = []
    threshold = rules.meld_threshold
    if not rules.continue_after_meld:
        # The table stays as it was: every original set must still be there, untouched.
        originals = Counter(_key(s) for s in position.table)
        laid = []  # the other sets, as written
        for s in new_table:
            if originals[_key(s)] > 0:
                originals[_key(s)] -= 1
            else:
                laid.append(s)
        for s in position.table:
            if originals[_key(s)] > 0:
                originals[_key(s)] -= 1
                out.append(
                    Violation(
                        "table_touched_before_opening",
                        f"table set '{format_counted(s)}' changed before opening (initial meld: new sets from the rack only)",
                        tuple(s),
                    )
                )
        # The meld is what was laid from the rack: sets made of played tiles only.
        own = played.copy()
        new_sets = []
        for s in sorted(laid, key=_key):
            if not (Counter(s) - own):
                own -= Counter(s)
                new_sets.append(s)
        if not rules.joker_in_meld:
            # Without continuing, everything laid is the meld.
            jokers = [t for t in played.elements() if t.is_joker]
            if jokers:
                out.append(
                    Violation(
                        "joker_in_meld",
                        "a joker may not be part of the initial meld (rule joker-in-meld=no)",
                        tuple(jokers),
                    )
                )
        value = sum(_value(s, position, as_written) for s in new_sets)
        if played and value < threshold:
            out.append(
                Violation(
                    "meld_below_threshold",
                    f"initial meld worth {count(value, 'point')}, needs at least {threshold}",
                    tuple(t for s in new_sets for t in s),
                )
            )
        return out
    # Continuing after the meld: the played tiles must hold sets of the player's own tiles worth
    # the threshold (laid first; the player may rearrange them afterwards with the rest).
    if not played:
        return out  # nothing laid: rearranging alone is reported as no_tile_played
    best = best_meld_value(played, position.rules, threshold)
    no_set = best_meld_sets(played, position.rules) == 0
    if best < threshold or (threshold == 0 and no_set):
        excluded = "jokers excluded: rule joker-in-meld=no" if played[JOKER] and not rules.joker_in_meld else ""
        if no_set:  # not one set of the player's own tiles: "worth 0 points, best 0" would say nothing
            needs = f"sets of your own tiles worth {count(threshold, 'point')}" if threshold else "a set of your own tiles"
            message = f"the tiles played make no set of their own: the initial meld needs {needs}"
            message += f" ({excluded})" if excluded else ""
        else:
            best_said = f"best: {best}, {excluded}" if excluded else f"best: {best}"
            message = f"the tiles played hold no initial meld worth {count(threshold, 'point')} ({best_said})"
        out.append(Violation("meld_below_threshold", message, tuple(sorted(played.elements()))))
    return out


def _key(s: Sequence[Tile]) -> tuple[Tile, ...]:
    return tuple(sorted(s))


def _value(s: Sequence[Tile], position: Position, as_written: bool) -> int:
    """A meld set's value: its best reading's; ``as_written``, the best its written order allows
    (``J K1 J`` is only a group)."""
    if not as_written:
        reading = best_reading(s, position.rules)
        return reading.value if reading else 0
    meant = {r.stands_for for r in table_readings(s, position.rules)}
    return max((r.value for r in readings(s, position.rules) if r.stands_for in meant), default=0)
