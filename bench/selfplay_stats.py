"""Does hard beat medium, and medium beat easy? Win rates with 95% intervals from self-play.

Matchups (standard rules), each over ``--games`` games (at least 1000 for the issue's table):

- ``hard-medium-2``: hard against medium, two players;
- ``medium-easy-2``: medium against easy, two players;
- ``hard-medium-4``: two hard and two medium players (seated hard, medium, hard, medium; with the
  seat rotation every AI takes every seat), four players: the share of games won by a hard player;
- ``medium-easy-4``: two medium and two easy players, likewise.

A side *beats* the other when the lower end of the 95% Wilson interval of its share of the
games won is above 50%. Games come in groups sharing one deal, each AI taking every seat (see
solver/game/selfplay.py), so the interval, which treats games as independent, is on the safe side.

Each matchup writes ``bench/results/selfplay-<matchup>.json`` (the ``selfplay --json`` summary);
then ``bench/results/selfplay.md`` is rebuilt from every such file present.

Run: ``python bench/selfplay_stats.py [--games 1000] [--seed 1] [--jobs 1] [MATCHUP ...]``
(``--report`` only rebuilds the markdown).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from solver.executors import Workers
from solver.game.selfplay import Settings, run_games, summarize, wilson

RESULTS = Path(__file__).parent / "results"
MATCHUPS: dict[str, tuple[str, ...]] = {
    "hard-medium-2": ("hard", "medium"),
    "medium-easy-2": ("medium", "easy"),
    "hard-medium-4": ("hard", "medium", "hard", "medium"),
    "medium-easy-4": ("medium", "easy", "medium", "easy"),
}


def run(name: str, games: int, seed: int, jobs: int) -> dict[str, Any]:
    settings = Settings(ais=MATCHUPS[name], games=games, seed=seed)
    started = time.perf_counter()
    outcomes = []
    for outcome in run_games(settings, Workers(jobs=jobs)):
        outcomes.append(outcome)
        done = len(outcomes)
        if done % 20 == 0 or done == games:
            rate = done / (time.perf_counter() - started)
            print(f"\r{name}: {done}/{games} games, {rate:.2f}/s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    data = summarize(outcomes, settings, time.perf_counter() - started).to_dict()
    data["matchup"] = name
    data["jobs"] = jobs
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"selfplay-{name}.json").write_text(json.dumps(data, indent=1) + "\n")
    return data


def side_share(data: dict[str, Any]) -> list[tuple[str, int, int]]:
    """Games won per AI level (both seats of a level pooled), and the games played."""
    by_level: dict[str, int] = {}
    for row in data["per_ai"].values():
        by_level[row["ai"]] = by_level.get(row["ai"], 0) + row["wins"]
    return [(level, wins, data["games"]) for level, wins in by_level.items()]


def report() -> str:
    rows = []
    for name in MATCHUPS:
        path = RESULTS / f"selfplay-{name}.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        shares = side_share(data)
        first, second = shares[0], shares[1]
        low, high = wilson(first[1], first[2])
        verdict = "yes" if low > 0.5 else ("no (the other side)" if high < 0.5 else "not significant")
        cells = []
        for level, wins, games in shares:
            lo, hi = wilson(wins, games)
            cells.append(f"{level} {wins} ({100 * wins / games:.1f}%, 95% {100 * lo:.1f}–{100 * hi:.1f}%)")
        points = ", ".join(f"{k} {v['average_points']:+.1f}" for k, v in data["per_ai"].items())
        rows.append(
            f"| {' vs '.join(data['ais'])} | {data['players']} | {data['games']} | {' / '.join(cells)} "
            f"| {first[0]} beats {second[0]}: {verdict} | {data['turns_per_game']:.1f} | {points} "
            f"| {data.get('games_per_second', 0):.2f} |"
        )
    head = [
        "# Self-play: win rates of the AI levels",
        "",
        "Made by `python bench/selfplay_stats.py` (standard rules, seed and jobs as in each JSON file"
        " beside this one). Win rates with 95% Wilson intervals; in four-player games both players of"
        " a level are pooled (the share of games a player of that level won). Ties (blocked rounds"
        " with equal racks) count for nobody. Games per second: one process on a shared 2-core machine.",
        "",
        "| players (seats rotate) | P | games | games won (share, 95% interval) | significant? | turns/game | average points | games/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    extra = [
        "",
        "## Game length and the value of holding a joker (same games)",
        "",
        "Turns per game (all players' turns) with a 95% interval; the win rate of players dealt at least"
        " one joker against players dealt none (all AIs pooled) and the difference with its 95% interval.",
        "",
        "| players | P | turns/game (95%) | dealt a joker: win rate | dealt none: win rate | difference (95%) |",
        "|---|---|---|---|---|---|",
    ]
    for name in MATCHUPS:
        path = RESULTS / f"selfplay-{name}.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        joker = data["joker_value"]
        low, high = data["turns_per_game_95"]
        if "difference" not in joker:
            continue
        with_j, without = joker["with_joker"], joker["without_joker"]
        d_low, d_high = joker["difference_95"]
        extra.append(
            f"| {' vs '.join(data['ais'])} | {data['players']} | {data['turns_per_game']:.1f} ({low:.1f}–{high:.1f})"
            f" | {100 * with_j['win_rate']:.1f}% of {with_j['players']} | {100 * without['win_rate']:.1f}% of"
            f" {without['players']} | {100 * joker['difference']:+.1f} ({100 * d_low:+.1f} to {100 * d_high:+.1f}) points |"
        )
    extra += [
        "",
        "How `hard` was tuned, and the variants that measured no gain: `hard-tuning.md`.",
    ]
    return "\n".join([*head, *rows, *extra]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "matchups", nargs="*", metavar="MATCHUP", help=f"of {', '.join(MATCHUPS)} (default: all)"
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--report", action="store_true", help="only rebuild selfplay.md")
    args = parser.parse_args()
    unknown = [m for m in args.matchups if m not in MATCHUPS]
    if unknown:
        parser.error(f"unknown matchup {unknown[0]!r}: choose from {', '.join(MATCHUPS)}")
    if not args.report:
        for name in args.matchups or list(MATCHUPS):
            run(name, args.games, args.seed, args.jobs)
    text = report()
    (RESULTS / "selfplay.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
