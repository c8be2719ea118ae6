"""The person's moves in the scripted games of the web tests: the easy AI's choice for the turn,
told as what a person does — tiles added to table sets, new sets laid — so that a test can carry
it out through the API or by dragging tiles in the browser."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from solver.game.engine import GameView
from solver.game.players import Easy
from solver.position import Position
from solver.rules import RuleSet
from solver.tiles import Tile


@dataclass(frozen=True)
class Move:
    added: tuple[tuple[int, tuple[str, ...]], ...]  # (table set index, rack tiles added to it)
    laid: tuple[tuple[str, ...], ...]  # new sets


def easy_move(rack: Sequence[str], table: Sequence[Sequence[str]], opened: bool, rules: RuleSet) -> Move | None:
    """What the easy AI would play here (None: it draws). It never rearranges, so each table set
    is part of one set after the move (matched here, since the sets may come back in another order)."""
    parsed = [tuple(Tile.parse(t, rules) for t in s) for s in table]
    position = Position(tuple(Tile.parse(t, rules) for t in rack), tuple(parsed), opened, rules)
    after = Easy().choose(GameView(0, position, (), (), 0, 0, 2))
    if after is None:
        return None
    left = [Counter(s) for s in after]
    added = []
    for i, old in enumerate(parsed):
        j = min(
            (j for j, s in enumerate(left) if s is not None and not Counter(old) - s),
            key=lambda j: sum((left[j] - Counter(old)).values()),
        )
        extra = left[j] - Counter(old)
        left[j] = None  # type: ignore[call-overload]
        if extra:
            added.append((i, tuple(str(t) for t in sorted(extra.elements()))))
    laid = tuple(tuple(str(t) for t in sorted(s.elements())) for s in left if s is not None)
    return Move(tuple(added), laid)
