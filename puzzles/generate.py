"""Generating puzzles of a measured difficulty, reproducibly from a seed.

Two ways to build a candidate, both working backwards from the answer:

- *scattered* (levels 1-4): lay a random table of valid sets (the table after the move), take some
  of its tiles as the rack, and rearrange what is left into a valid table (the table before the
  move, kept as close to the broken remains as ``arrange`` can);
- *transposed* (levels 4-5): tiles lie in one layout and must change to the other because the
  rack holds tiles only the other layout can take: a block of three colours by three or four
  numbers as runs that must become groups or the reverse (level 5); groups of four that give up
  a run reaching both ends, or long runs whose last two columns regroup (level 4). Around it
  random table sets, rack tiles that simply extend them, and (level 5) rack tiles that cannot be
  played at all. Two blocks make the biggest puzzles.

A candidate is kept only if
- the tiles it was built to play are exactly what an optimal move plays, and no other choice of
  rack tiles plays as many (the optimal set of played tiles is unique);
- its measured difficulty (``puzzles.library.measure``: the least-moves answer's work) is the one
  asked for, and from difficulty 2 on no answer leaves every table set as it was;
- it gives nothing away: the rack cannot make a set on its own, and (from difficulty 3) no two
  rack tiles make a set with one table tile that comes away freely (the end of a run of four or
  more, a tile of a group of four): a person would see that pair and its third tile at once.
  Fragments of the answer cannot show on the table before the move: those would be rejoined by
  the least-moves answer, and the puzzle would measure easier.

``write_generated`` makes many, one from each seed, on any executor, and writes them as puzzle
files as they come back; a puzzle depends on nothing but its level and seed, so its id
``gen-LEVEL-SEED`` names it as well as a bundled puzzle's id does (``find_puzzle``).
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from puzzles.library import Difficulty, Puzzle, find, library, load_puzzle, measure, write_puzzle
from solver.arrange import arrange
from solver.backends import get_backend
from solver.errors import BackendError, InputError, RummikubError, ValidationFailure
from solver.executors import Workers, open_executor, run_tasks
from solver.file_io import make_folder
from solver.initial_meld import best_meld_sets
from solver.melds import Kind, best_reading, natural_order
from solver.model import build_model
from solver.model.candidates import candidate_sets
from solver.position import Position
from solver.rules import RuleSet
from solver.solution import Objective, Solution
from solver.solve import solve
from solver.tiles import Tile, full_pool, tile

# A candidate: the position and how many of its rack tiles it was built to play.
Candidate = tuple[Position, int]


def _best_tiles(position: Position, lower: dict[int, int], upper: dict[int, int]) -> int:
    """Most tiles playable with extra bounds on how many of each tile kind are played."""
    model = build_model(position, Objective.TILES, "flow")
    lp = model.lp
    for t, bound in lower.items():
        lp.lower[model.played_columns[t]] = bound
    for t, bound in upper.items():
        lp.upper[model.played_columns[t]] = bound
    # HiGHS's MIP solver: a lower bound can rule out the zero move that bnb starts from.
    try:
        result = get_backend("highs")(lp, None)
    except BackendError:  # infeasible: those tiles cannot be played together
        return -1
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


def _not_kept(puzzle: Puzzle, level: int, seed: int) -> str:
    """Why a file --resume finds is not a puzzle this run would have written, or "": its id, and
    (a solve, not the search that made it) its answer legal and optimal and its measured level.
    Another level's puzzle renamed, or a file an edit spoilt, is not kept; an edit that leaves a
    puzzle of its level is the user's to keep (telling it from the seed's would mean making it
    again, the work --resume saves)."""
    if puzzle.id != f"gen-{level}-{seed}":
        return f"its id is {puzzle.id}"
    try:
        recorded = puzzle.answer_solution()
    except InputError:
        return "its answer is not legal"
    difficulty, best, _ = measure(puzzle.position)
    if recorded.tiles_played != best.tiles_played:
        return f"its answer plays {recorded.tiles_played} tiles, the best move {best.tiles_played}"
    if puzzle.answer_played != best.tiles_played:
        return f"it records answer-played: {puzzle.answer_played}, its answer plays {best.tiles_played}"
    if difficulty.level != level:
        return f"it measures level {difficulty.level}"
    if puzzle.difficulty != level:
        return f"it records difficulty: {puzzle.difficulty}, level {level} asked for"
    return ""


def needs_table(position: Position, solution: Solution) -> bool:
    """Whether the optimum needs some table set changed (with every set left whole it is lower)."""
    model = build_model(position, Objective.TILES, "flow")
    lp = model.lp
    for v in model.kept_columns:
        lp.lower[v] = lp.upper[v]
    result = get_backend("highs")(lp, None)
    values = result.values if result.values is not None else lp.hint
    _, tiles = model.decode(values)
    return len(tiles) < solution.tiles_played


def obvious_pair(position: Position) -> bool:
    """Two rack tiles that make a set with one table tile that comes away freely."""
    rules = position.rules
    free: set[Tile] = set()
    for s in position.table:
        reading = best_reading(s, rules)
        if reading is None:
            continue
        if reading.kind is Kind.GROUP and len(s) == rules.colours:
            free |= set(s)
        elif reading.kind is Kind.RUN and len(s) > rules.min_set_size:
            free |= {reading.tiles[0], reading.tiles[-1]}
    if rules.min_set_size != 3:
        return False
    for a, b in combinations(sorted(position.rack), 2):
        if any(best_reading((a, b, t), rules) is not None for t in free):
            return True
    return False


def gives_away(position: Position, level: int) -> bool:
    rules = position.rules
    if level >= 2 and best_meld_sets(Counter(position.rack), rules.replace(joker_in_meld=True)):
        return True  # the rack makes a set on its own
    return level >= 3 and obvious_pair(position)


def generate(
    level: int, seed: int, rules: RuleSet | None = None, attempts: int = 400
) -> tuple[Position, Difficulty, Solution]:
    """A puzzle of measured difficulty ``level`` (1-5), the same for the same seed."""
    rules = rules or RuleSet()
    rnd = random.Random(f"{seed}-{level}")
    for _ in range(attempts):
        transposed = level == 5 or (level == 4 and rnd.random() < 0.4)
        candidate = _transposed(rnd, level, rules) if transposed else _scattered(rnd, level, rules)
        if candidate is None:
            continue
        position, planned = candidate
        if gives_away(position, level):
            continue
        solution = solve(position)
        if solution.tiles_played != planned:
            continue
        difficulty, solution, _ = measure(position, solution)
        if difficulty.level != level:
            continue
        if level >= 2 and not needs_table(position, solution):
            continue
        if not unique_played(position, solution):
            continue
        # The table written as players write it (B3 J B5 J B7, not B3 B5 B7 J J): under strict
        # jokers a set's order says what its jokers stand for.
        written = dataclasses.replace(position, table=tuple(natural_order(s, rules) for s in position.table))
        return written, difficulty, dataclasses.replace(solution, position=written)
    raise RummikubError(f"no puzzle of difficulty {level} found from seed {seed} in {attempts} tries")


def _random_sets(rnd: random.Random, rules: RuleSet, pool: Counter[Tile], count: int) -> list[list[Tile]]:
    """Up to ``count`` random valid sets from the pool (jokers now and then)."""
    cands = candidate_sets(rules).keys
    sets: list[list[Tile]] = []
    for _ in range(count):
        tiles = [Tile.from_index(t, rules) for t in rnd.choice(cands)]
        if any(t.is_joker for t in tiles) and rnd.random() < 0.7:
            continue  # jokers now and then, not in every puzzle
        if not (Counter(tiles) - pool):
            pool -= Counter(tiles)
            sets.append(tiles)
    return sets


def _scattered(rnd: random.Random, level: int, rules: RuleSet) -> Candidate | None:
    """Random answer sets; some of their tiles become the rack; the rest is rearranged."""
    pool = Counter(full_pool(rules))
    final = _random_sets(rnd, rules, pool, rnd.randint(2 + level, 3 + 2 * level))
    if len(final) < 2:
        return None
    size = rnd.randint(max(1, level - 1), 2 + level)  # harder puzzles take more tiles out
    flat = [(i, t) for i, s in enumerate(final) for t in s]
    picks = rnd.sample(range(len(flat)), min(size, len(flat)))
    rack = [flat[k][1] for k in picks]
    remains: list[list[Tile]] = [list(s) for s in final]
    for k in picks:
        i, t = flat[k]
        remains[i].remove(t)
    remains = [s for s in remains if s]
    if level >= 4 and rnd.random() < 0.5:  # rebuild the rest from scratch, far from the answer
        remains = [[t for s in remains for t in s]]
    try:
        before = arrange(remains, rules, "bnb")
    except RummikubError:
        return None
    if before.take_back or not before.table:
        return None
    return Position(tuple(rack), before.table, True, rules), len(rack)


def _transposed(rnd: random.Random, level: int, rules: RuleSet) -> Candidate | None:
    """Blocks that change layout, random sets around them, simple plays and (level 5) decoys."""
    if rules.colours < 4 or rules.min_set_size != 3:
        return None
    pool = Counter(full_pool(rules))
    before: list[list[Tile]] = []
    rack: list[Tile] = []
    blocks = 1 if level == 4 else rnd.choice([1, 1, 2])
    for _ in range(blocks):
        shape = rnd.choice([_extract, _columns] if level == 4 else [_block, _block, _block, _columns])
        made = shape(rnd, rules, pool)
        if made is None:
            return None
        before += made[0]
        rack += made[1]
    others = _random_sets(rnd, rules, pool, rnd.randint(2, 4 + 2 * (level - 4)))
    before += others
    # Simple plays around it: a rack tile extending a run or completing a group.
    for s in rnd.sample(others, min(len(others), rnd.randint(0, 2))):
        extra = _extension(s, rules, pool)
        if extra is not None:
            pool[extra] -= 1
            rack.append(extra)
    planned = len(rack)
    if level == 5:  # tiles that cannot be played: the person must see that too
        spare = sorted(t for t in pool.elements() if not t.is_joker)
        rack += rnd.sample(spare, rnd.randint(0, 2))
    rnd.shuffle(before)
    return Position(tuple(rack), tuple(tuple(s) for s in before), True, rules), planned


def _block(
    rnd: random.Random, rules: RuleSet, pool: Counter[Tile]
) -> tuple[list[list[Tile]], list[Tile]] | None:
    """Three colours by three or four numbers, as runs that must become groups or the reverse."""
    width = rnd.choice([3, 3, 4])
    first = rnd.randint(1, rules.numbers - width + 1)
    numbers = list(range(first, first + width))
    colours = sorted(rnd.sample(range(rules.colours), 3))
    fourth = next(c for c in range(rules.colours) if c not in colours)
    block = [tile(c, n) for c in colours for n in numbers]
    if Counter(block) - pool:
        return None
    if rnd.random() < 0.5:
        # Runs before; after, groups that take the fourth colour at one or two numbers.
        before = [[tile(c, n) for n in numbers] for c in colours]
        inner = numbers[1:-1] if width == 3 else numbers
        rack = [tile(fourth, n) for n in rnd.sample(inner, min(len(inner), rnd.randint(1, 2)))]
    else:
        # Groups before; after, runs one longer at an end (or both) in one or two colours.
        before = [[tile(c, n) for c in colours] for n in numbers]
        ends = [n for n in (first - 1, first + width) if 1 <= n <= rules.numbers]
        if not ends:
            return None
        rack = [tile(c, rnd.choice(ends)) for c in rnd.sample(colours, rnd.randint(1, 2))]
    if Counter(rack) - (pool - Counter(block)):
        return None
    pool -= Counter(block) + Counter(rack)
    return before, rack


def _extract(
    rnd: random.Random, rules: RuleSet, pool: Counter[Tile]
) -> tuple[list[list[Tile]], list[Tile]] | None:
    """Groups of four colours at three numbers; one colour must become a run reaching both ends."""
    first = rnd.randint(2, rules.numbers - 3)
    numbers = [first, first + 1, first + 2]
    colour = rnd.randrange(rules.colours)
    block = [tile(c, n) for c in range(rules.colours) for n in numbers]
    rack = [tile(colour, first - 1), tile(colour, first + 3)]
    if Counter(block) + Counter(rack) - pool:
        return None
    pool -= Counter(block) + Counter(rack)
    return [[tile(c, n) for c in range(rules.colours)] for n in numbers], rack


def _columns(
    rnd: random.Random, rules: RuleSet, pool: Counter[Tile]
) -> tuple[list[list[Tile]], list[Tile]] | None:
    """Three long runs and a fourth-colour tile next to their end: the last two columns regroup."""
    length = rnd.randint(5, 6)
    first = rnd.randint(1, rules.numbers - length + 1)
    numbers = list(range(first, first + length))
    colours = sorted(rnd.sample(range(rules.colours), 3))
    fourth = next(c for c in range(rules.colours) if c not in colours)
    runs = [[tile(c, n) for n in numbers] for c in colours]
    rack = [tile(fourth, numbers[-2] if rnd.random() < 0.5 else numbers[1])]
    if Counter(t for r in runs for t in r) + Counter(rack) - pool:
        return None
    pool -= Counter(t for r in runs for t in r) + Counter(rack)
    return runs, rack


def _extension(tiles: Sequence[Tile], rules: RuleSet, pool: Counter[Tile]) -> Tile | None:
    """A tile from the pool that extends this set: a run's next number, a group's missing colour."""
    reading = best_reading(tiles, rules)
    if reading is None:
        return None
    if reading.kind is Kind.RUN:
        low, high = reading.stands_for[0], reading.stands_for[-1]
        options = [tile(low.colour, low.number - 1), tile(high.colour, high.number + 1)]
        options = [t for t in options if 1 <= t.number <= rules.numbers]
    else:
        number = reading.stands_for[0].number
        present = {t.colour for t in reading.stands_for}
        options = [tile(c, number) for c in range(rules.colours) if c not in present]
    options = [t for t in options if pool[t] > 0]
    return options[0] if options else None


# A generated puzzle's id: its level and seed, written as `puzzles generate` names it (no leading
# zero: one seed, one id; up to 18 digits, as `puzzles generate --seed` takes them).
GENERATED_ID = re.compile(r"gen-([1-5])-(0|-?[1-9][0-9]{0,17})")


def find_puzzle(puzzle_id: str) -> Puzzle:
    """A bundled puzzle by its id, or a generated one by ``gen-LEVEL-SEED`` (made again: the same
    seed gives the same puzzle). InputError says why there is none."""
    made = GENERATED_ID.fullmatch(puzzle_id)
    if made is None:
        if puzzle_id.startswith("gen-"):
            raise InputError(
                f"no puzzle {puzzle_id[:40]!r}: a generated puzzle's id is gen-LEVEL-SEED, a level of 1-5"
                " and a whole-number seed of up to 18 digits, no leading zero (as 'rummikub puzzles"
                " generate' names them)"
            )
        return find(puzzle_id)
    bundled = next((p for p in library() if p.id == puzzle_id), None)  # some bundled ones were generated
    if bundled is not None:
        return bundled
    level, seed = int(made[1]), int(made[2])
    try:
        return generated_puzzle(level, seed)
    except (BackendError, ValidationFailure):
        raise
    except RummikubError as err:
        raise InputError(f"no puzzle {puzzle_id!r}: {err}") from None


def generated_puzzle(level: int, seed: int) -> Puzzle:
    """A generated puzzle in the library's form (same seed, same puzzle)."""
    position, difficulty, solution = generate(level, seed)
    named = dataclasses.replace(
        position,
        id=f"gen-{level}-{seed}",
        title=f"Generated puzzle, seed {seed}",
        notes=f"Made by: rummikub puzzles generate --difficulty {level} --seed {seed}.",
    )
    answer = tuple(s.tiles for s in solution.table)
    return Puzzle(named, difficulty.level, solution.tiles_played, answer, "")


@dataclass(frozen=True)
class Generated:
    """What became of one seed: the puzzle file written, or why no puzzle came from it."""

    seed: int
    path: str | None
    error: str | None = None
    kept: bool = False  # already in the folder (a resumed run): not made again


def write_generated(
    level: int, seeds: Iterable[int], out_dir: str, workers: Workers = Workers(), resume: bool = False
) -> Iterator[Generated]:
    """A puzzle of ``level`` from each seed, generated where ``workers`` says, each written into
    ``out_dir`` as ``gen-LEVEL-SEED.txt`` (whole) as soon as it comes back, in no fixed order.
    ``resume``: the seeds whose files are already there (read, and checked to be those puzzles)
    are not made again."""
    seeds = list(seeds)
    make_folder(out_dir, "puzzle")
    paths = {seed: Path(out_dir) / f"gen-{level}-{seed}.txt" for seed in seeds}
    there = [seed for seed in seeds if paths[seed].exists()]
    if there and not resume:  # a file the user may have edited is never written over
        named = ", ".join(paths[seed].name for seed in there[:3]) + (", ..." if len(there) > 3 else "")
        raise InputError(
            f"{out_dir} already holds {len(there)} of these puzzle files ({named}): --resume keeps them"
            " and makes the others, or give --out another folder"
        )
    if resume:
        for seed in there:
            why = _not_kept(load_puzzle(str(paths[seed])), level, seed)
            if why:
                raise InputError(
                    f"puzzle file {paths[seed]} is not the puzzle of seed {seed} ({why}): give --out another folder"
                )
            yield Generated(seed, str(paths[seed]), kept=True)
        done = set(there)
        seeds = [seed for seed in seeds if seed not in done]
        if not seeds:
            return
    with open_executor(workers.at_most(len(seeds))) as executor:
        for seed, made in run_tasks(executor, _puzzle_or_why, seeds, level, ordered=False, total=len(seeds)):
            if isinstance(made, str):
                yield Generated(seed, None, made)
                continue
            path = Path(out_dir) / f"{made.id}.txt"
            write_puzzle(made, path)
            yield Generated(seed, str(path))


def _puzzle_or_why(seed: int, level: int) -> tuple[int, Puzzle | str]:
    """Runs on a worker: a seed that yields no puzzle is reported, and the others go on."""
    try:
        return seed, generated_puzzle(level, seed)
    except (BackendError, ValidationFailure):
        raise  # the solver failed: that stops the run
    except RummikubError as err:
        return seed, str(err)
