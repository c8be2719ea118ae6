"""The benchmark suite: solve times per backend, CLI end to end, batch throughput, and a
side-by-side run against rummikub-solver (the PyPI package; ``pip install -e '.[bench]'``).

Position sets: ``bench/positions/selfplay.jsonl`` (every turn of whole self-play games),
``bench/positions/hard.jsonl`` (tables of 50–90 tiles, racks of 14–40, jokers on both),
``bench/positions/hard-heldout.jsonl`` (the same kind from another seed, never tuned on) and the
shared conformance positions (``tests/data/conformance``). Times are wall-clock, measured in one
run on this machine: compare ratios, not absolute numbers, across machines.

Examples::

    python bench/bench.py                          # every set, bnb backend
    python bench/bench.py --backends bnb,highs,cbc,cpsat --sets hard
    python bench/bench.py --peer                   # side by side with rummikub-solver
    python bench/bench.py --cli --batch            # end-to-end command times
    python bench/bench.py --joker-rules strict,locked --backends ""   # their cost against free
    python bench/bench.py --lp highs --sets hard   # bnb with its LPs on HiGHS instead
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SETS = {
    "selfplay": ROOT / "bench" / "positions" / "selfplay.jsonl",
    "hard": ROOT / "bench" / "positions" / "hard.jsonl",
    "hard-heldout": ROOT / "bench" / "positions" / "hard-heldout.jsonl",
    "conformance": ROOT / "tests" / "data" / "conformance" / "selfplay.jsonl",
    "conformance-hard": ROOT / "tests" / "data" / "conformance" / "hard.jsonl",
}


def rummikub() -> str:
    """The command installed beside this Python (a virtualenv's bin), else the one on PATH."""
    beside = Path(sys.executable).parent / "rummikub"
    return str(beside) if beside.exists() else (shutil.which("rummikub") or "rummikub")


def load(name: str) -> list[dict[str, Any]]:
    rows = []
    with open(SETS[name]) as handle:
        for line in handle:
            row = json.loads(line)
            row.pop("oracle", None)
            if "opened" in row:
                row["initial_meld"] = not row.pop("opened")
            rows.append(row)
    return rows


def summary(values: list[float]) -> str:
    xs = sorted(values)

    def q(p: float) -> float:
        return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000

    return (
        f"median {statistics.median(xs) * 1000:7.2f}  p90 {q(0.9):7.2f}  p99 {q(0.99):7.2f}"
        f"  max {xs[-1] * 1000:7.2f} ms"
    )


def counting_lp_solves() -> list[int]:
    """bnb's LP solves so far (``lp.SOLVES``): a measure of the search's work that, unlike time,
    does not depend on the machine or its load (the same code gives the same counts)."""
    from solver.backends.lp_engine import SOLVES

    return SOLVES


@dataclasses.dataclass
class _Timings:
    """One backend's times over a set of positions, in seconds, and bnb's LP solves."""

    total: list[float] = dataclasses.field(default_factory=list)
    build: list[float] = dataclasses.field(default_factory=list)
    search: list[float] = dataclasses.field(default_factory=list)
    solves: list[int] = dataclasses.field(default_factory=list)
    unproven: int = 0


def _warmed(rows: list[dict[str, Any]], backend: str, options: dict[str, object]) -> list[Any]:
    """The rows as positions under ``options``, their rules warmed as a batch worker warms them:
    imports, the model templates of both kinds of turn and, under strict and locked jokers, the
    table of hosts a retrieved joker may go to (once per rule set; a solve warming it here
    instead once left it to the first relaxed model timed)."""
    from solver.files import position_from_record
    from solver.solve import SolveOptions, solve, warm

    positions = [position_from_record(row, row.get("id", "?"), options) for row in rows]
    warm(positions[0].rules, SolveOptions(backend=backend))
    for opened in (True, False):
        solve(dataclasses.replace(positions[0], opened=opened), SolveOptions(backend=backend))
    return positions


def _time(position: Any, backend: str, into: _Timings) -> None:
    from solver.solve import SolveOptions, solve

    lp_solves = counting_lp_solves()
    before = lp_solves[0]
    started = time.perf_counter()
    answer = solve(position, SolveOptions(backend=backend))
    into.total.append(time.perf_counter() - started)
    into.build.append(answer.build_seconds)
    into.search.append(answer.solve_seconds)
    into.solves.append(lp_solves[0] - before)
    into.unproven += answer.status == "time_limit"


def _report(backend: str, timings: _Timings) -> None:
    print(f"  {backend:6} solve()  {summary(timings.total)}   ({len(timings.total)} positions, {timings.unproven} unproven)")
    print(f"  {backend:6} model    {summary(timings.build)}")
    print(f"  {backend:6} search   {summary(timings.search)}")
    if backend == "bnb":
        xs = sorted(timings.solves)
        print(
            f"  {backend:6} LP solves {sum(xs)} in all: median {statistics.median(xs):g}  p90 {xs[int(0.9 * len(xs))]}"
            f"  p99 {xs[min(len(xs) - 1, int(0.99 * len(xs)))]}  max {xs[-1]}  (deterministic: compare across runs)"
        )


def bench_backend(rows: list[dict[str, Any]], backend: str, options: dict[str, object]) -> list[float]:
    """Solve every row; prints the times and returns each position's total in seconds."""
    timings = _Timings()
    for position in _warmed(rows, backend, options):
        _time(position, backend, timings)
    _report(backend, timings)
    return timings.total


def quantiles(values: list[float]) -> list[float]:
    """Median, p90, p99 and max, as ``summary`` reads them."""
    xs = sorted(values)
    return [statistics.median(xs), *[xs[min(len(xs) - 1, int(p * len(xs)))] for p in (0.9, 0.99)], xs[-1]]


def bench_joker_rules(rows: list[dict[str, Any]], modes: list[str], backend: str) -> None:
    """Free against strict/locked joker rules on the positions with jokers on an opened table.

    The modes take turns position by position (free, then each mode, on one position before the
    next), so that the machine's speed, which drifts from minute to minute on a shared machine,
    weighs on every mode alike and the ratios hold."""
    tabled = [
        row for row in rows if not row.get("initial_meld") and any("J" in s for s in row.get("table", []))
    ]
    print(f"  joker rules, {len(tabled)} opened positions with jokers on the table, the modes taking turns:")
    modes = ["free", *modes]
    positions = {mode: _warmed(tabled, backend, {"joker-rules": mode}) for mode in modes}
    timings = {mode: _Timings() for mode in modes}
    for i in range(len(tabled)):
        for mode in modes:
            _time(positions[mode][i], backend, timings[mode])
    for mode in modes:
        print(f"  --joker-rules {mode}")
        _report(backend, timings[mode])
    # The targets are ratios to free mode on the same positions in the same run.
    free = quantiles(timings["free"].total)
    for mode in modes[1:]:
        ratios = "  ".join(
            f"{name} {x / f:5.2f}x" for name, x, f in zip(("median", "p90", "p99", "max"), quantiles(timings[mode].total), free)
        )
        print(f"  {mode} against free: {ratios}")


def bench_cli(rows: list[dict[str, Any]], count: int) -> None:
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for i, row in enumerate(rows[:count]):
            path = Path(folder) / f"p{i}.json"
            path.write_text(json.dumps(row))
            started = time.perf_counter()
            subprocess.run([rummikub(), "solve", str(path)], check=True, capture_output=True)
            times.append(time.perf_counter() - started)
    cached = any((ROOT / "solver").glob("__pycache__/*.pyc"))
    print(
        f"  rummikub solve (end to end, {len(times)} runs)  {summary(times)}"
        f"  (the package's bytecode {'cached' if cached else 'not cached: compiled on every run'})"
    )


def bench_batch(rows: list[dict[str, Any]], jobs: int, repeat: int) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        for _ in range(repeat):
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        path = handle.name
    try:
        started = time.perf_counter()
        done = subprocess.run(
            [rummikub(), "batch", path, "--jobs", str(jobs)], check=False, capture_output=True, text=True
        )
        wall = time.perf_counter() - started
    finally:
        os.unlink(path)
    lines = done.stdout.count("\n")
    errors = done.stdout.count('"error"')
    print(
        f"  rummikub batch --jobs {jobs}: {lines} positions in {wall:.2f} s = {lines / wall:.0f} positions/s,"
        f" {wall / lines * 1000:.2f} ms each amortised, everything included ({errors} errors)"
    )


def bench_peer(rows: list[dict[str, Any]], name: str) -> None:
    """Ours (bnb) and rummikub-solver on the same positions in one run, position by position."""
    try:
        from rummikub_solver import RuleSet as PeerRules
        from rummikub_solver import SolverMode
    except ImportError:
        print("  rummikub-solver is not installed: pip install -e '.[bench]'")
        return
    from solver.files import position_from_record
    from solver.solve import SolveOptions, solve

    peer = PeerRules()
    tiles = peer.tiles
    order = {"K": 0, "B": 1, "O": 2, "R": 3}  # the peer's colour order

    def peer_tile(token: str) -> Any:
        return tiles[-1] if token == "J" else tiles[order[token[0]] * 13 + int(token[1:]) - 1]

    # The peer's opening is the meld (jokers allowed) and then, in the same turn, more tiles with
    # the table: our continue-after-meld variant, solved exactly in one model.
    ours_rules = {"joker-in-meld": True, "continue-after-meld": True}
    ours_t, peer_t, worse, better = [], [], [], []
    # Warm up both sides untimed: imports and first-use caches (our model templates for both
    # kinds of turn, the peer's set tables).
    for row in rows[:1]:
        for opened in (True, False):
            warm = position_from_record(row, "warm-up", ours_rules)
            solve(dataclasses.replace(warm, opened=opened), SolveOptions(backend="bnb"))
        state = peer.new_game()
        state.add_rack(*[peer_tile(t) for t in row["rack"]])
        state.initial = True
        peer.solve(state, SolverMode.INITIAL)
    for row in rows:
        position = position_from_record(row, row.get("id", "?"), ours_rules)
        started = time.perf_counter()
        answer = solve(position, SolveOptions(backend="bnb"))
        json.dumps(answer.to_dict())
        ours_t.append(time.perf_counter() - started)
        state = peer.new_game()
        state.add_table(*[peer_tile(t) for s in row["table"] for t in s])
        state.add_rack(*[peer_tile(t) for t in row["rack"]])
        state.initial = bool(row.get("initial_meld", False))
        started = time.perf_counter()
        mode = SolverMode.INITIAL if state.initial else SolverMode.TILE_COUNT
        found = peer.solve(state, mode) if state.rack else None
        peer_t.append(time.perf_counter() - started)
        theirs = len(found.tiles) if found else 0
        if theirs > answer.tiles_played:
            worse.append((row.get("id"), answer.tiles_played, theirs))
        elif theirs < answer.tiles_played:
            better.append((row.get("id"), answer.tiles_played, theirs))
    med = statistics.median(peer_t) / statistics.median(ours_t)
    p90 = sorted(peer_t)[int(0.9 * len(peer_t))] / sorted(ours_t)[int(0.9 * len(ours_t))]
    print(f"  ours (bnb)        {summary(ours_t)}")
    print(f"  rummikub-solver   {summary(peer_t)}")
    print(f"  speed-up: median {med:.1f}x, p90 {p90:.1f}x, total {sum(peer_t) / sum(ours_t):.1f}x")
    print(f"  positions where the peer plays fewer tiles: {len(better)} {better[:8]}")
    print(f"  positions where we play fewer tiles: {len(worse)} {worse[:8]}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    parser.add_argument("--backends", default="bnb", help="comma-separated: bnb, highs, cbc, cpsat")
    parser.add_argument("--peer", action="store_true", help="side by side with rummikub-solver")
    parser.add_argument("--cli", action="store_true", help="end-to-end `rummikub solve` times")
    parser.add_argument("--batch", action="store_true", help="`rummikub batch` throughput")
    parser.add_argument("--jobs", type=int, default=2, help="processes for --batch")
    parser.add_argument("--repeat", type=int, default=3, help="copies of the set in the --batch input")
    parser.add_argument(
        "--joker-rules", default="", help="comma-separated strict, locked: their cost against free mode"
    )
    parser.add_argument(
        "--lp", default="auto", choices=["auto", "simplex", "highs"], help="bnb's LP engine: auto (the compiled simplex up to 150 rows, HiGHS above), simplex (at any size), highs"
    )
    args = parser.parse_args()
    import solver.backends.bnb as bnb

    bnb.LP_ENGINE = args.lp
    for name in args.sets.split(","):
        rows = load(name)
        print(f"{name}: {len(rows)} positions")
        for backend in args.backends.split(","):
            if backend:
                bench_backend(rows, backend, {})
        if args.joker_rules:
            bench_joker_rules(rows, args.joker_rules.split(","), args.backends.split(",")[0] or "bnb")
        if args.peer:
            bench_peer(rows, name)
        if args.cli:
            bench_cli(rows, 20)
        if args.batch:
            bench_batch(rows, args.jobs, args.repeat)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
