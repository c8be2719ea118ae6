"""The executors side by side: throughput of ``selfplay`` and ``batch`` run locally and on Dask, and
the memory ``batch`` needs for a big input.

``throughput`` runs, in rounds, each command under each executor (the order turned round every
round, so that a change in the machine's load falls on all of them): ``local`` (this process),
``local --jobs 2`` (a pool), ``dask --jobs 1`` and ``dask --jobs 2`` (a cluster the command starts
on this machine). Every run is the command end to end, as a user runs it; the time to the first
result (start-up: Python, the cluster, the workers' first imports) is also reported, and the rate
over the second half of the results (start-up and warm-up long past: what a long run gets). ``selfplay`` is medium against easy with records kept; ``batch`` reads
``bench/positions/selfplay.jsonl`` repeated. Ratios are taken within a round; each run also notes
the CPU its processes used and the CPU the rest of the machine used meanwhile: on a shared
machine a run waits (up to 30 s) for a second when nobody else is busy and is run again once if
somebody was, and a ratio is marked when either of its runs was disturbed all the same. Each round also plays
hard against medium in one process, for the paper estimate of a big study.

``memory`` runs ``batch`` on a small and a big generated input (cheap positions, so the big one
ends in minutes) and samples the resident memory of the command and of its workers.

    python bench/executors.py throughput [--rounds 3] [--games 800] [--copies 60] [--hard-games 40]
    python bench/executors.py memory [--lines 1000000]

Raw results go to ``bench/results/dask-runs.json``; ``bench/results/dask.md`` discusses them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = ROOT / "bench" / "positions" / "selfplay.jsonl"
RESULTS = ROOT / "bench" / "results" / "dask-runs.json"
EXECUTORS = {
    "local": ["--executor", "local", "--jobs", "1"],
    "local-2": ["--executor", "local", "--jobs", "2"],
    "dask-1": ["--executor", "dask", "--jobs", "1"],
    "dask-2": ["--executor", "dask", "--jobs", "2"],
}


def rummikub() -> str:
    return str(Path(sys.executable).parent / "rummikub")


class Meter:
    """What one run cost: wall time, the CPU time of the command and everything it started, and the
    CPU the rest of the machine used meanwhile (other people's work on a shared machine)."""

    def __enter__(self) -> Meter:
        self.started = time.perf_counter()
        self.children = _children_cpu()
        self.machine = _machine_busy()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.started
        self.ours = _children_cpu() - self.children  # the command's tree, once reaped
        self.others = max(0.0, _machine_busy() - self.machine - self.ours)

    def result(self, items: int, first: float | None, half: float | None) -> dict[str, Any]:
        """``first``, ``half``: when the first result, and half the results, had come back."""
        first = first if first is not None else self.wall
        half = half if half is not None else first
        return {"items": items, "wall": round(self.wall, 3), "first": round(first, 3),
                "rate": items / self.wall, "steady": (items - items // 2) / max(self.wall - half, 1e-9),
                "cpu": round(self.ours, 2), "others_cores": round(self.others / self.wall, 2)}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _machine_busy() -> float:
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def run_selfplay(executor: str, games: int, ais: str = "medium,easy") -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as records:
        command = [rummikub(), "selfplay", "--games", str(games), "--ai", ais, "--seed", "1", "--json",
                   "--record", records, *EXECUTORS[executor]]
        with Meter() as meter:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            first = half = None
            while process.poll() is None:
                if half is None:
                    written = sum(1 for _ in Path(records).iterdir())
                    if first is None and written:
                        first = time.perf_counter() - meter.started
                    if written >= games // 2:
                        half = time.perf_counter() - meter.started
                time.sleep(0.02)
        out = process.stdout.read() if process.stdout else b""
        assert process.returncode == 0, f"{command} failed"
        assert json.loads(out)["games"] == games
    return meter.result(games, first, half)


def run_batch(executor: str, path: str, lines: int) -> dict[str, Any]:
    command = [rummikub(), "batch", path, "--no-timing", *EXECUTORS[executor]]
    with Meter() as meter:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert process.stdout is not None
        first = half = None
        answered = 0
        for _ in process.stdout:
            answered += 1
            if answered == 1:
                first = time.perf_counter() - meter.started
            if answered == lines // 2:
                half = time.perf_counter() - meter.started
        process.wait()
    assert process.returncode == 0 and answered == lines, f"{command}: {answered} of {lines} answers"
    return meter.result(lines, first, half)


CLEAN = 0.15  # a run during which the rest of the machine used less than this many cores


def quietly(run: Callable[[], dict[str, Any]], tries: int = 2, wait: float = 30.0) -> dict[str, Any]:
    """Run when nobody else is busy on the machine (waiting up to ``wait`` seconds for a quiet
    second), again if somebody was busy meanwhile (up to ``tries`` runs; the cleanest is kept)."""
    best: dict[str, Any] | None = None
    for _ in range(tries):
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            before = _machine_busy()
            time.sleep(1.0)
            if _machine_busy() - before < CLEAN:
                break
        result = run()
        if best is None or result["others_cores"] < best["others_cores"]:
            best = result
        if best["others_cores"] < CLEAN:
            break
    assert best is not None
    return best


def throughput(rounds: int, games: int, copies: int, hard_games: int) -> dict[str, Any]:
    rows = POSITIONS.read_text().splitlines()
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        handle.write("\n".join(rows * copies) + "\n")
        path = handle.name
    lines = len(rows) * copies
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {"selfplay": {}, "batch": {}, "hard-medium": {}}
    names = list(EXECUTORS)
    try:
        for r in range(rounds):
            order = names[r % len(names):] + names[: r % len(names)]
            for executor in order:
                for command in ("selfplay", "batch"):
                    if command == "selfplay":
                        result = quietly(partial(run_selfplay, executor, games))
                    else:
                        result = quietly(partial(run_batch, executor, path, lines))
                    runs[command].setdefault(executor, []).append(result)
                    show(r, command, executor, result)
            if hard_games:  # today's one-core pace of the matchup a tuning study plays
                result = quietly(partial(run_selfplay, "local", hard_games, "hard,medium"))
                runs["hard-medium"].setdefault("local", []).append(result)
                show(r, "hard-medium", "local", result)
    finally:
        os.unlink(path)
    report(runs)
    return runs


def show(r: int, command: str, executor: str, result: dict[str, Any]) -> None:
    print(f"round {r + 1} {command:11} {executor:8} {result['rate']:8.1f}/s end to end, "
          f"{result['steady']:8.1f}/s over the second half; first result at {result['first']:.1f} s; "
          f"CPU {result['cpu']:.1f} s; others used {result['others_cores']:.2f} cores", flush=True)


def report(runs: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    for command, by_executor in runs.items():
        if command == "hard-medium":
            continue
        print(f"\n{command}: median over rounds (end to end / second half), and ratios within each round")
        for executor, results in by_executor.items():
            print(f"  {executor:8} {statistics.median(r['rate'] for r in results):8.1f}/s "
                  f"{statistics.median(r['steady'] for r in results):8.1f}/s  "
                  f"start-up {statistics.median(r['first'] for r in results):.1f} s")
        for top, bottom in (("dask-1", "local"), ("dask-2", "dask-1"), ("local-2", "local"), ("dask-2", "local-2")):
            for key in ("rate", "steady"):
                pairs = list(zip(by_executor[top], by_executor[bottom]))
                ratios = [f"{a[key] / b[key]:.2f}{'' if max(a['others_cores'], b['others_cores']) < CLEAN else '*'}"
                          for a, b in pairs]
                print(f"  {top}/{bottom} ({key}): " + ", ".join(ratios) + "   (* others used the machine)")


def memory(lines: int) -> dict[str, Any]:
    cheap = [json.dumps({"rack": [], "table": [["R1", "R2", "R3"]]}), json.dumps({"rack": ["R7"]})]
    results: dict[str, Any] = {}
    for size in (10_000, lines):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
            for _ in range(size // 2):
                handle.write(cheap[0] + "\n" + cheap[1] + "\n")
            path = handle.name
        try:
            for executor in ("local-2", "dask-2"):
                results[f"{executor} {size}"] = peak_memory(
                    [rummikub(), "batch", path, "--no-timing", *EXECUTORS[executor]]
                )
                print(f"{executor} {size:>9} lines: {results[f'{executor} {size}']}", flush=True)
        finally:
            os.unlink(path)
    return results


def peak_memory(command: list[str]) -> dict[str, float]:
    """Peak resident memory (MB) of the command and of everything it started, sampled 10 times a
    second; the answers are counted and thrown away."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answered = 0

    def count() -> None:
        nonlocal answered
        assert process.stdout is not None
        for _ in process.stdout:
            answered += 1

    reader = threading.Thread(target=count)
    reader.start()
    me = psutil.Process(process.pid)
    peak_client = peak_children = 0.0
    while process.poll() is None:
        try:
            peak_client = max(peak_client, me.memory_info().rss)
            children = sum(c.memory_info().rss for c in me.children(recursive=True))
            peak_children = max(peak_children, children)
        except psutil.Error:
            pass
        time.sleep(0.1)
    reader.join()
    mb = 1024 * 1024
    return {"answers": answered, "seconds": round(time.perf_counter() - started, 1),
            "client_mb": round(peak_client / mb, 1), "workers_mb": round(peak_children / mb, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["throughput", "memory"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=800, help="selfplay games per run")
    parser.add_argument("--copies", type=int, default=60, help="copies of the position set in the batch input")
    parser.add_argument("--hard-games", type=int, default=40, help="hard-vs-medium games in one process, each round")
    parser.add_argument("--lines", type=int, default=1_000_000, help="lines of the big batch input")
    args = parser.parse_args()
    saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if args.what == "throughput":
        saved["throughput"] = throughput(args.rounds, args.games, args.copies, args.hard_games)
    else:
        saved["memory"] = memory(args.lines)
    saved[f"{args.what}_machine"] = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    RESULTS.write_text(json.dumps(saved, indent=1) + "\n")


if __name__ == "__main__":
    main()
