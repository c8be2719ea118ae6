"""Hunt disagreements between the brute-force oracle and every engine on random small positions.

Each position (tests/oracle.py: one to three table sets with jokers, a rack of one to four tiles,
a small rule set) is solved by every engine under one joker mode and both objectives; an answer
must be legal (``solve`` validates it) and rank exactly as the oracle's optimum: tiles or points,
then the other, then sets kept. Every disagreement is printed as one JSON line that ``rummikub
batch`` reads (with the engine, the objective, what it found and what the oracle found).

    python -m tests.hunt --count 2000 --seed 1
    python -m tests.hunt --count 500 --modes strict-official,locked-club --engines bnb-auto,cpsat-sets
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass

from solver.errors import RulesError, RummikubError
from solver.position import Position
from solver.rules import JokerRules, Retrieval
from solver.solution import Objective
from solver.solve import SolveOptions, solve
from tests.oracle import JOKER_MODES, best_moves, random_position, rank_of, small_rules

ENGINES = ("bnb-auto", "bnb-sets", "bnb-flow", "highs-auto", "highs-sets", "cbc-sets", "cpsat-sets")


@dataclass(frozen=True, slots=True)
class Disagreement:
    position: Position
    engine: str
    objective: Objective
    found: str
    expected: str

    def to_json(self) -> str:
        record = self.position.to_dict()
        record["engine"] = self.engine
        record["objective"] = self.objective.value
        record["found"] = self.found
        record["expected"] = self.expected
        return json.dumps(record)


def mode_name(joker_rules: JokerRules, retrieval: Retrieval) -> str:
    return joker_rules.value if joker_rules is JokerRules.FREE else f"{joker_rules.value}-{retrieval.value}"


def check(position: Position, engines: tuple[str, ...]) -> list[Disagreement]:
    """Every engine's answer against the oracle's, by both objectives."""
    best = best_moves(position)
    found: list[Disagreement] = []
    for engine in engines:
        backend, _, formulation = engine.partition("-")
        for objective in Objective:
            expected = best.rank(objective)
            try:
                answer = solve(position, SolveOptions(objective, backend, None, formulation))
                got = rank_of(answer.tiles_played, answer.points_played, answer.kept_sets, objective)
                text = str(got)
            except RulesError:
                break  # the formulation does not take these rules (flow and full wrap, say)
            except RummikubError as err:  # an illegal answer (ValidationFailure) or a failure
                got, text = None, f"{type(err).__name__}: {err}"
            if got != expected:
                found.append(Disagreement(position, engine, objective, text, str(expected)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000, help="positions per joker mode")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", default=",".join(mode_name(*m) for m in JOKER_MODES))
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--max-rack", type=int, default=4)
    parser.add_argument("--max-sets", type=int, default=3)
    args = parser.parse_args()
    modes = [m for m in JOKER_MODES if mode_name(*m) in args.modes.split(",")]
    engines = tuple(args.engines.split(","))
    rng = random.Random(args.seed)
    started = time.perf_counter()
    tally: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    for i in range(args.count):
        for joker_rules, retrieval in modes:
            rules = small_rules(rng, joker_rules, retrieval)
            position = random_position(rng, rules, args.max_sets, args.max_rack)
            shapes[f"wrap={rules.wrap.value}"] += 1
            shapes[f"colours={rules.colours}"] += 1
            for d in check(position, engines):
                tally[f"{mode_name(joker_rules, retrieval)} {d.engine}"] += 1
                print(d.to_json(), flush=True)
        if (i + 1) % 100 == 0:
            print(f"# {i + 1} x {len(modes)} positions, {sum(tally.values())} disagreements", file=sys.stderr)
    seconds = time.perf_counter() - started
    print(
        f"# {args.count * len(modes)} positions ({', '.join(mode_name(*m) for m in modes)}), engines"
        f" {', '.join(engines)}: {sum(tally.values())} disagreements in {seconds:.0f} s",
        file=sys.stderr,
    )
    for key, n in sorted(tally.items()):
        print(f"#   {key}: {n}", file=sys.stderr)
    print(f"#   shapes: {dict(sorted(shapes.items()))}", file=sys.stderr)


if __name__ == "__main__":
    main()
