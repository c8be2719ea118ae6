"""The server left running: a burst of solves all answered, slow solves never freeze the rest, and
a full queue or a stuck solve is a JSON refusal. Against real servers on localhost."""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from solver.files import position_from_record
from solver.solve import solve
from tests.paths import ROOT
from tests.web.conftest import Server
from web.app import create_app
from web.limits import Limits

SELFPLAY = [json.loads(line) for line in (ROOT / "bench" / "positions" / "selfplay.jsonl").read_text().splitlines()]


def post(url: str, body: Any) -> tuple[int, Any, float]:
    """Status, JSON answer and seconds of one request."""
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            status, data = response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        status, data = err.code, json.loads(err.read())
    return status, data, time.perf_counter() - started


def fetch(url: str) -> tuple[int, float]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as response:
        response.read()
        return response.status, time.perf_counter() - started


def slow_position(seed: int) -> dict[str, Any]:
    """A position whose model takes a good part of a second to build: the largest game this
    server takes (26 numbers, 8 colours, 4 copies, 4 jokers) and a rack of 60 tiles, all four jokers
    among them (a position holding fewer than the smallest set goes to the fast models)."""
    rules = {"numbers": 26, "colours": 8, "copies": 4, "jokers": 4}
    tiles = [f"{c}{n}" for c in "KBROGPWC" for n in range(1, 27)] * 4
    return {"rack": [*random.Random(seed).sample(tiles, 56), "J", "J", "J", "J"], "rules": rules, "opened": True}


def test_a_burst_of_200_solves_20_at_a_time_is_all_answered(server: Server) -> None:
    positions = [SELFPLAY[i % len(SELFPLAY)] for i in range(0, 400, 2)]
    started = time.perf_counter()
    with ThreadPoolExecutor(20) as clients:
        answers = list(clients.map(lambda p: post(f"{server.url}/api/solve", p), positions))
    seconds = time.perf_counter() - started
    assert [status for status, _, _ in answers] == [200] * 200, [a for s, a, _ in answers if s != 200][:3]
    for record, (_, data, _) in zip(positions, answers):
        assert data["id"] == record["id"]
        assert data["tiles_played"] == solve(position_from_record(record, "selfplay")).tiles_played
    latencies = sorted(t for _, _, t in answers)
    print(
        f"\n200 solves, 20 at a time: {seconds:.2f} s, {200 / seconds:.0f}/s; latency median"
        f" {statistics.median(latencies) * 1000:.1f} ms, p90 {latencies[179] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms"
    )
    assert seconds < 60


def test_twenty_slow_solves_do_not_freeze_the_pages(server: Server) -> None:
    with ThreadPoolExecutor(20) as clients:
        slow = [clients.submit(post, f"{server.url}/api/solve", slow_position(seed)) for seed in range(20)]
        time.sleep(0.3)  # the solver processes are busy now, with more waiting
        while_busy = [fetch(f"{server.url}{path}") for path in ("/", "/static/board.js", "/api/rules", "/api/puzzles")]
        still_solving = sum(not f.done() for f in slow)
        results = [f.result() for f in slow]
    assert still_solving > 0, "the slow solves were not slow: the test shows nothing"
    assert all(status == 200 and seconds < 1.0 for status, seconds in while_busy), while_busy
    assert [status for status, _, _ in results] == [200] * 20


@contextmanager
def app_server(limits: Limits) -> Iterator[str]:
    """The app with its own limits, served by uvicorn in a thread on a free port."""
    games = Path(tempfile.mkdtemp(prefix="rummikub-games-"))
    app = create_app(limits, games_dir=games)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(60)


def test_a_full_queue_is_refused_and_a_stuck_solve_times_out() -> None:
    with app_server(Limits(workers=1, max_pending=2, deadline=0.3)) as url:
        with ThreadPoolExecutor(6) as clients:
            answers = list(clients.map(lambda seed: post(f"{url}/api/solve", slow_position(seed)), range(6)))
        statuses = sorted(status for status, _, _ in answers)
        assert 503 in statuses and 504 in statuses, statuses
        for status, data, _ in answers:
            assert list(data) == ["error"]
            if status == 503:
                assert data["error"].startswith("the server is busy (2 solves waiting)")
            if status == 504:
                assert data["error"] == "the solve took too long (over 0.3 seconds)"
        # Once the worker is through the solves it was given, the server answers again.
        deadline = time.monotonic() + 60
        while (status := post(f"{url}/api/solve", SELFPLAY[0])[0]) != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status == 200
