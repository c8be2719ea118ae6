"""How long an AI turn takes on screen, at each level, in a real browser against ``rummikub serve``.

For each level, games of four seats (a person and three AIs of that level, standard rules and
14 tiles each, seeds from --seed up) are played in Chromium: the person draws on every turn (the
quickest turn a person can take, so the AIs play a whole game), and the page records each AI turn
from the moment it asks the server for it (POST /api/games/ID/ai: the AI's choice made in a solver
process, the turn carried out and kept on disk) to the moment the board shows it
(``document.body.dataset.aiTurns``). Figures go to bench/results/web.md by hand.

Examples::

    python bench/play_speed.py                # 90 AI turns per level
    python bench/play_speed.py --turns 30 --levels hard
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the browser tests' Chromium settings
from tests.browser import CHROMIUM_ARGS, MISSING, chromium_path  # noqa: E402


def start_server(games: str) -> tuple[subprocess.Popen[str], str]:
    script = Path(sys.executable).with_name("rummikub")
    process = subprocess.Popen(
        [str(script), "serve", "--port", "0", "--jobs", "2", "--games-dir", games],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    found = re.search(r"(http://\S+?)/? \(Ctrl-C", process.stdout.readline())
    assert found, "rummikub serve did not start"
    return process, found.group(1)


def play(page: Any, url: str, level: str, seed: int) -> list[float]:
    """One game: the AI turns' times on screen (milliseconds)."""
    body = {
        "seats": [{"kind": "person"}] + [{"kind": "ai", "level": level}] * 3,
        "seed": seed,
    }
    created = page.request.post(f"{url}/api/games", data=json.dumps(body), headers={"content-type": "application/json"})
    game = created.json()
    page.goto(f"{url}/play?id={game['id']}")
    page.wait_for_selector("body[data-ready='true']")
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        state = page.evaluate(
            "() => ({over: !document.querySelector('#end').hidden, mine: document.body.dataset.toMove === '1',"
            " turn: document.body.dataset.turn})"
        )
        if state["over"]:
            break
        if state["mine"]:
            page.click("#draw")
            while page.evaluate("t => document.body.dataset.turn === t", state["turn"]):
                time.sleep(0.01)
        else:
            time.sleep(0.02)
    return [float(ms) for ms in json.loads(page.evaluate("document.body.dataset.aiTurns || '[]'"))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=90, help="AI turns to measure per level")
    parser.add_argument("--levels", default="easy,medium,hard")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as games:
        process, url = start_server(games)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium_path() or sys.exit(MISSING), args=CHROMIUM_ARGS)
                print("| level | AI turns | games | median | p90 | max |")
                print("|---|---|---|---|---|---|")
                for level in args.levels.split(","):
                    times: list[float] = []
                    seed = args.seed
                    games_played = 0
                    while len(times) < args.turns:
                        context = browser.new_context(viewport={"width": 1200, "height": 900})
                        times += play(context.new_page(), url, level, seed)
                        context.close()
                        seed += 1
                        games_played += 1
                    times.sort()
                    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
                    print(
                        f"| {level} | {len(times)} | {games_played} | {statistics.median(times):.0f} ms"
                        f" | {p90:.0f} ms | {times[-1]:.0f} ms |",
                        flush=True,
                    )
                browser.close()
        finally:
            process.terminate()
            process.wait(30)


if __name__ == "__main__":
    main()
