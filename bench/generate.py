"""Make the benchmark's position sets, reproducibly from a seed (the files are committed).

- ``selfplay.jsonl``: every turn of whole 4-player games in which each player makes the
  solver's best move (initial meld first, then tile count), drawing when there is none.
- ``hard.jsonl``: late-game tables of 50–90 tiles built from random valid sets and long runs,
  racks of 14–40 tiles, with jokers on the table and on the rack.
- ``hard-heldout.jsonl``: the same kind of positions from another seed (11), never used to tune
  the solver: its results show whether a change holds beyond the positions it was tuned on.

Run: ``python bench/generate.py [--seed 7] [--games 12] [--hard 120] [--sets hard-heldout]``.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

from solver.model.candidates import candidate_sets
from solver.position import Position
from solver.rules import RuleSet
from solver.solve import SolveOptions, solve
from solver.tiles import JOKER, Tile, full_pool, tile

HERE = Path(__file__).parent / "positions"


def record(position: Position, game: str) -> dict[str, object]:
    return {
        "id": game,
        "rack": [str(t) for t in position.rack],
        "table": [[str(t) for t in s] for s in position.table],
        "initial_meld": not position.opened,
    }


def selfplay(seed: int, games: int, players: int = 4, max_turns: int = 60) -> list[dict[str, object]]:
    rules = RuleSet()
    out = []
    for g in range(games):
        rnd = random.Random(seed * 1000 + g)
        pool = full_pool(rules)
        rnd.shuffle(pool)
        racks = [[pool.pop() for _ in range(14)] for _ in range(players)]
        opened = [False] * players
        table: list[list[Tile]] = []
        passes = 0
        for turn in range(max_turns * players):
            p = turn % players
            position = Position(tuple(racks[p]), tuple(tuple(s) for s in table), opened[p], rules)
            out.append(record(position, f"g{seed}-{g}-t{turn}"))
            answer = solve(position, SolveOptions(backend="bnb"))
            if answer.tiles_played:
                table = [list(s.tiles) for s in answer.table]
                left = Counter(racks[p]) - Counter(answer.played)
                racks[p] = list(left.elements())
                opened[p] = True
                passes = 0
                if not racks[p]:
                    break
            elif pool:
                racks[p].append(pool.pop())
                passes = 0
            else:
                passes += 1
                if passes == players:
                    break
    return out


def hard(seed: int, count: int) -> list[dict[str, object]]:
    rules = RuleSet()
    cands = candidate_sets(rules)
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        pool = Counter(full_pool(rules))
        target = rnd.randint(50, 90)
        table: list[list[Tile]] = []
        size = 0
        tries = 0
        while size < target and tries < 2000:
            tries += 1
            key = rnd.choice(cands.keys)
            tiles = [Tile.from_index(t, rules) for t in key]
            if rnd.random() < 0.3 and not any(t.is_joker for t in tiles):
                # Stretch a run to make long table runs, as in late games.
                first = min(tiles)
                if all(t.colour == first.colour for t in tiles):
                    more = [
                        tile(first.colour, n)
                        for n in range(
                            max(tiles).number + 1, min(13, max(tiles).number + rnd.randint(1, 5)) + 1
                        )
                    ]
                    tiles += more
            need = Counter(tiles)
            if not (need - pool) and size + len(tiles) <= 90:
                pool -= need
                table.append(tiles)
                size += len(tiles)
        if not 50 <= size <= 90:
            continue
        rest = list(pool.elements())
        rnd.shuffle(rest)
        rack = rest[: rnd.randint(14, 40)]
        if rnd.random() < 0.5 and JOKER in pool and JOKER not in rack:
            rack[0] = JOKER  # jokers on the rack too
        if len(Counter(rack)) and Counter(rack)[JOKER] > pool[JOKER]:
            continue
        position = Position(tuple(rack), tuple(tuple(s) for s in table), True, rules)
        out.append(record(position, f"hard{seed}-{len(out)}"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--hard", type=int, default=120)
    parser.add_argument("--heldout-seed", type=int, default=11)
    parser.add_argument("--sets", default="selfplay,hard,hard-heldout", help="which files to write")
    args = parser.parse_args()
    makers = {
        "selfplay": lambda: selfplay(args.seed, args.games),
        "hard": lambda: hard(args.seed, args.hard),
        "hard-heldout": lambda: hard(args.heldout_seed, args.hard),
    }
    names = args.sets.split(",")
    unknown = [name for name in names if name not in makers]
    if unknown:
        parser.error(f"--sets: unknown set {', '.join(unknown)} (sets: {', '.join(makers)})")
    HERE.mkdir(exist_ok=True)
    for name in names:
        rows = makers[name]()
        with open(HERE / f"{name}.jsonl", "w") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        print(f"{name}: {len(rows)} positions")


if __name__ == "__main__":
    main()
