"""The web app's figures: what POST /api/solve adds to the library's solve time, a burst of solves
with worker processes and with threads, and how soon each page is interactive in Chromium.

Every figure is measured against a real server (``rummikub serve``, or the same app under uvicorn
with a thread pool for the comparison) on localhost, from another process. Results go to
bench/results/web.md by hand, with the machine's state at the time.

Examples::

    python bench/web_speed.py                 # everything
    python bench/web_speed.py --skip-browser  # no Chromium here
    python bench/web_speed.py --burst 400 --concurrency 40
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the browser tests' Chromium settings
from tests.browser import CHROMIUM_ARGS, MISSING, chromium_path  # noqa: E402

SELFPLAY = ROOT / "bench" / "positions" / "selfplay.jsonl"
HARD = ROOT / "bench" / "positions" / "hard.jsonl"  # tables of 50-90 tiles


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    at = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return (
        f"median {statistics.median(ordered) * 1000:.2f} ms, p90 {at(0.9) * 1000:.2f}, "
        f"p99 {at(0.99) * 1000:.2f}, max {ordered[-1] * 1000:.2f}"
    )


class Running:
    """A server in a process of its own; ``kind`` process: ``rummikub serve``; thread: the same
    app with a thread pool (for comparison only: ``rummikub serve`` always uses processes)."""

    def __init__(self, kind: str, workers: int) -> None:
        command = [sys.executable, __file__, "--serve", kind, "--workers", str(workers)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"http://([\d.]+):(\d+)", line)
        if not found:
            self.process.kill()
            raise SystemExit(f"the server did not start: {line!r}")
        self.host, self.port = found.group(1), int(found.group(2))

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def serve(kind: str, workers: int) -> None:
    """``--serve``: run the app on a free port and say where (one line, as rummikub serve does)."""
    if kind == "process":
        from cli.main import main

        sys.argv = ["rummikub", "serve", "--port", "0", "--jobs", str(workers), "--games-dir", tempfile.mkdtemp()]
        main()
        return
    import uvicorn

    from web.app import create_app
    from web.limits import Limits

    server = uvicorn.Server(
        uvicorn.Config(
            create_app(Limits(workers=workers), pool_kind=kind, games_dir=Path(tempfile.mkdtemp())),
            port=0,
            log_level="warning",
        )
    )

    def announce() -> None:
        while not server.started:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"Serving at http://127.0.0.1:{port}/", flush=True)

    threading.Thread(target=announce, daemon=True).start()
    server.run()


def post(connection: http.client.HTTPConnection, path: str, body: bytes) -> tuple[int, Any, float]:
    started = time.perf_counter()
    connection.request("POST", path, body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    data = json.loads(response.read())
    return response.status, data, time.perf_counter() - started


def overhead(server: Running, lines: list[str]) -> None:
    """One request at a time on a kept-alive connection (as a page does): the time a request
    takes against the solve time inside it (``seconds``), and the library's own time here."""
    from solver.files import position_from_record
    from solver.solve import solve

    connection = http.client.HTTPConnection(server.host, server.port, timeout=60)
    for line in lines[:20]:  # warm both sides
        post(connection, "/api/solve", line.encode())
    http_times, solve_times, added = [], [], []
    for line in lines:
        status, data, seconds = post(connection, "/api/solve", line.encode())
        assert status == 200, data
        http_times.append(seconds)
        solve_times.append(data["seconds"])
        added.append(seconds - data["seconds"])
    library = []
    for line in lines:
        started = time.perf_counter()
        solve(position_from_record(json.loads(line), "bench")).to_dict()
        library.append(time.perf_counter() - started)
    print(f"\n## POST /api/solve, {len(lines)} self-play positions one at a time")
    print(f"- request, end to end: {quantiles(http_times)}")
    print(f"- the solve inside it (`seconds`): {quantiles(solve_times)}")
    print(f"- added by the web layer (request - seconds, per position): {quantiles(added)}")
    print(f"- the library in this process (parse, solve, to_dict): {quantiles(library)}")


def burst(server: Running, lines: list[str], total: int, concurrency: int, label: str) -> None:
    local = threading.local()

    def one(line: str) -> tuple[int, float]:
        if not hasattr(local, "connection"):
            local.connection = http.client.HTTPConnection(server.host, server.port, timeout=120)
        status, _, seconds = post(local.connection, "/api/solve", line.encode())
        return status, seconds

    # Meanwhile a page asks for something light every 20 ms: does it wait behind the solves?
    probes: list[float] = []
    done = threading.Event()

    def probe() -> None:
        connection = http.client.HTTPConnection(server.host, server.port, timeout=120)
        while not done.is_set():
            started = time.perf_counter()
            connection.request("GET", "/api/rules")
            connection.getresponse().read()
            probes.append(time.perf_counter() - started)
            time.sleep(0.02)

    work = [lines[i % len(lines)] for i in range(total)]
    prober = threading.Thread(target=probe)
    started = time.perf_counter()
    prober.start()
    with ThreadPoolExecutor(concurrency) as clients:
        results = list(clients.map(one, work))
    wall = time.perf_counter() - started
    done.set()
    prober.join()
    failed = sum(1 for status, _ in results if status != 200)
    print(
        f"- {label}: {total} solves, {concurrency} at a time: {wall:.2f} s ({total / wall:.0f}/s), "
        f"{failed} failed; latency {quantiles([s for _, s in results])}; "
        f"GET /api/rules meanwhile: {quantiles(probes)}"
    )


def pages(server: Running, loads: int) -> None:
    from playwright.sync_api import sync_playwright

    base = f"http://{server.host}:{server.port}"
    print(f"\n## First page interactive (Chromium, {loads} loads each; ms from navigation to ready)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path() or sys.exit(MISSING), args=CHROMIUM_ARGS)
        for path in ("/", "/puzzles", "/puzzles?id=big-2", "/puzzles?id=gen-3-41", "/score", "/?rack=R5+B7+O7&set=R4+J+R6&set=K1+K2+K3"):
            ready = []
            for _ in range(loads):
                context = browser.new_context()
                page = context.new_page()
                page.goto(base + path)
                page.wait_for_selector("body[data-ready='true']")
                ready.append(float(page.evaluate("document.body.dataset.readyMs")))
                context.close()
            ready.sort()
            print(f"- `{path}`: median {statistics.median(ready):.0f} ms, max {ready[-1]:.0f} ms")
        browser.close()


def slow_positions(count: int) -> list[str]:
    """Positions whose models take a good part of a second to build: the largest game the server
    takes (26 numbers, 8 colours, 4 copies, 4 jokers), racks of 60 tiles holding the four jokers (as
    tests/web/test_load.py: fewer would go to the fast models)."""
    import random

    tiles = [f"{c}{n}" for c in "KBROGPWC" for n in range(1, 27)] * 4
    rules = {"numbers": 26, "colours": 8, "copies": 4, "jokers": 4}
    racks = [[*random.Random(seed).sample(tiles, 56), "J", "J", "J", "J"] for seed in range(count)]
    return [json.dumps({"rack": rack, "rules": rules}) for rack in racks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", choices=["process", "thread"], help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=2, help="solver processes (threads) of the server")
    parser.add_argument("--burst", type=int, default=200, help="solves in the burst")
    parser.add_argument("--concurrency", type=int, default=20, help="requests in flight in the burst")
    parser.add_argument("--loads", type=int, default=10, help="page loads per page")
    parser.add_argument("--skip-browser", action="store_true", help="no page timings (no Chromium here)")
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.workers)
        return
    lines = SELFPLAY.read_text().splitlines()
    hard = HARD.read_text().splitlines()
    server = Running("process", args.workers)
    try:
        overhead(server, lines)
        print(f"\n## Bursts ({args.workers} workers, {args.concurrency} requests at a time)")
        burst(server, lines, args.burst, args.concurrency, "self-play, worker processes (rummikub serve)")
        burst(server, hard, len(hard), args.concurrency, "hard, worker processes (rummikub serve)")
        burst(server, slow_positions(20), 20, 20, "20 slow solves, worker processes (rummikub serve)")
        if not args.skip_browser:
            pages(server, args.loads)
    finally:
        server.stop()
    threads = Running("thread", args.workers)
    try:
        burst(threads, lines, args.burst, args.concurrency, "self-play, worker threads (for comparison)")
        burst(threads, hard, len(hard), args.concurrency, "hard, worker threads (for comparison)")
        burst(threads, slow_positions(20), 20, 20, "20 slow solves, worker threads (for comparison)")
    finally:
        threads.stop()


if __name__ == "__main__":
    main()
