"""Generating puzzles of a measured difficulty, reproducibly from a seed.

Work backwards from the answer: lay a random table of valid sets (the table after the move), take
some of its tiles as the rack, and rearrange what is left into a valid table (the table before
the move, kept as close to the broken remains as ``arrange`` can). Keep the puzzle only if
- every rack tile can be played and its measured difficulty is the one asked for;
- the set of tiles an optimal answer plays is unique (no other choice of rack tiles reaches it);
- from difficulty 2 on, no answer reaches it with every table set left whole; and
- it gives nothing away: the rack cannot make a set on its own.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

from solver.arrange import arrange
from solver.backends import get_backend
from solver.candidates import candidate_sets
from solver.errors import RummikubError
from solver.model import Objective, build_model
from solver.position import Position
from solver.puzzles import Difficulty, Puzzle, measure
from solver.rules import RuleSet
from solver.solve import Solution
from solver.tiles import Tile
from solver.validator import best_meld_sets


def _best_tiles(position: Position, lower: dict[int, int], upper: dict[int, int]) -> int:
    """Most tiles playable with extra bounds on how many of each tile kind are played."""
    model = build_model(position, Objective.TILES, "flow")
    lp = model.lp
    played = {name: v for v, name in enumerate(lp.names) if name.startswith("r_")}
    for t, bound in lower.items():
        lp.lower[played[f"r_{Tile.from_index(t, position.rules)}"]] = bound
    for t, bound in upper.items():
        lp.upper[played[f"r_{Tile.from_index(t, position.rules)}"]] = bound
    # HiGHS's MIP solver: a lower bound can rule out the zero move that bnb starts from.
    result = get_backend("highs")(lp, None)
    if result.values is None:
        return -1
    _, tiles = model.decode(result.values)
    return len(tiles)


def unique_played(position: Position, solution: Solution) -> bool:
    """No other multiset of rack tiles reaches the optimum's tile count."""
    rules = position.rules
    best = solution.tiles_played
    played = Counter(t.index(rules) for t in solution.played)
    rack = Counter(t.index(rules) for t in position.rack)
    for t in rack:
        if played[t] > 0 and _best_tiles(position, {}, {t: played[t] - 1}) >= best:
            return False
        if played[t] < rack[t] and _best_tiles(position, {t: played[t] + 1}, {}) >= best:
            return False
    return True


def needs_table(position: Position, solution: Solution) -> bool:
    """Whether the optimum needs some table set changed (with every set left whole it is lower)."""
    model = build_model(position, Objective.TILES, "flow")
    lp = model.lp
    for v, name in enumerate(lp.names):
        if name.startswith("k_"):
            lp.lower[v] = lp.upper[v]
    result = get_backend("highs")(lp, None)
    values = result.values if result.values is not None else lp.hint
    _, tiles = model.decode(values)
    return len(tiles) < solution.tiles_played


def generate(
    level: int, seed: int, rules: RuleSet | None = None, attempts: int = 3000
) -> tuple[Position, Difficulty, Solution]:
    """A puzzle of measured difficulty ``level`` (1-5), the same for the same seed."""
    rules = rules or RuleSet()
    rnd = random.Random(f"{seed}-{level}")
    cands = [k for k in candidate_sets(rules).keys]
    for _ in range(attempts):
        pool = Counter(
            {Tile.from_index(t, rules): rules.copies for t in range(rules.colours * rules.numbers)}
        )
        pool[Tile.from_index(rules.colours * rules.numbers, rules)] = rules.jokers
        final: list[list[Tile]] = []
        for _ in range(rnd.randint(2 + level, 3 + 2 * level)):
            key = rnd.choice(cands)
            tiles = [Tile.from_index(t, rules) for t in key]
            if any(t.is_joker for t in tiles) and rnd.random() < 0.7:
                continue  # jokers now and then, not in every puzzle
            if not (Counter(tiles) - pool):
                pool -= Counter(tiles)
                final.append(tiles)
        if len(final) < 2:
            continue
        size = rnd.randint(max(1, level - 1), 2 + level)  # harder puzzles take more tiles out
        flat = [(i, t) for i, s in enumerate(final) for t in s]
        picks = rnd.sample(range(len(flat)), min(size, len(flat)))
        rack = [flat[k][1] for k in picks]
        remains: list[list[Tile]] = [list(s) for s in final]
        for k in picks:
            i, t = flat[k]
            remains[i].remove(t)
        remains = [s for s in remains if s]
        if level >= 2 and best_meld_sets(Counter(rack), rules.replace(joker_in_meld=True)):
            continue  # the rack makes a set on its own: a giveaway
        if level >= 5 and rnd.random() < 0.5:  # rebuild the rest from scratch, far from the answer
            remains = [[t for s in remains for t in s]]
        try:
            before = arrange(remains, rules, "bnb")
        except RummikubError:
            continue
        if before.take_back or not before.table:
            continue
        position = Position(tuple(rack), before.table, True, rules)
        difficulty, solution, _ = measure(position)
        if solution.tiles_played != len(rack) or difficulty.level != level:
            continue
        if level >= 2 and not needs_table(position, solution):
            continue
        if not unique_played(position, solution):
            continue
        return position, difficulty, solution
    raise RummikubError(f"no puzzle of difficulty {level} found from seed {seed} in {attempts} tries")


def generated_puzzle(level: int, seed: int) -> Puzzle:
    """A generated puzzle in the library's form (same seed, same puzzle)."""
    position, difficulty, solution = generate(level, seed)
    named = dataclasses.replace(
        position, id=f"gen-{level}-{seed}", title=f"Generated puzzle (difficulty {level}, seed {seed})"
    )
    answer = tuple(s.tiles for s in solution.table)
    return Puzzle(named, difficulty.level, solution.tiles_played, answer, "")
