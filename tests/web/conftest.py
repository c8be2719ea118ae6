"""The web app under test: in process (Starlette's test client), as a real server started with
``rummikub serve`` on a free port, and in a real browser (Debian's Chromium driven by Playwright).
"""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.browser import CHROMIUM_ARGS, MISSING, chromium_path
from tests.paths import TESTS
from web.app import create_app
from web.limits import Limits

SCREENSHOTS = TESTS / "web" / "screenshots"


@pytest.fixture(scope="session")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app in process, its solver processes started once for every API test (games kept in a
    folder of their own)."""
    games = tmp_path_factory.mktemp("games")
    with TestClient(create_app(Limits(workers=2), games_dir=games)) as test_client:
        yield test_client


class Server:
    """``rummikub serve`` in a process of its own, on a free port."""

    def __init__(self, log: Path, *options: str) -> None:
        script = Path(sys.executable).with_name("rummikub")
        command = [str(script)] if script.exists() else [sys.executable, "-c", "from cli.entry import main; main()"]
        self.log = open(log, "w+")  # noqa: SIM115 - open while the server runs
        self.process = subprocess.Popen(
            [*command, "serve", "--port", "0", *options],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=lambda: [lines.put(line) for line in self.process.stdout or []], daemon=True).start()
        try:
            first = lines.get(timeout=60)
        except queue.Empty:
            self.stop()
            raise AssertionError(f"rummikub serve did not start: {self.errors()}") from None
        found = re.search(r"(http://\S+?)/? \(Ctrl-C to stop\)", first)
        assert found, f"unexpected first line {first!r}"
        self.url = found.group(1)

    def errors(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def stop(self) -> int:
        """Stop it as Ctrl-C does (its solver processes stop with it): status 130, as any command
        that Ctrl-C stops."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("server")
    running = Server(folder / "stderr.log", "--jobs", "2", "--games-dir", str(folder / "games"))
    yield running
    code = running.stop()
    errors = running.errors()
    running.log.close()
    assert code == 130 and errors.strip() == "Interrupted.", f"rummikub serve ended with status {code}: {errors}"


def chromium() -> str:
    path = chromium_path()
    if path is None:
        pytest.fail(f"the browser tests: {MISSING}", pytrace=False)
    return path


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """Where the browser tests save their screenshots (git-ignored; look at them)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


DESKTOP = {"width": 1200, "height": 900}
PHONE = {"width": 390, "height": 844}


class Page:
    """A fresh browser context and page that fails the test on any console error it did not expect."""

    def __init__(self, browser: Any, server: Server, screenshots: Path, viewport: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=viewport, accept_downloads=True)
        self.page = self.context.new_page()
        self.server = server
        self.screenshots = screenshots
        self.errors: list[str] = []
        self.expected: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, path: str) -> Any:
        self.page.goto(self.server.url + path)
        self.page.wait_for_selector("body[data-ready='true']", timeout=10_000)
        return self.page

    def shot(self, name: str) -> None:
        self.page.screenshot(path=str(self.screenshots / f"{name}.png"), full_page=True)

    def expect_refusal(self) -> None:
        """The next request is refused on purpose (the browser logs every 4xx as an error)."""
        self.expected.append("status of 400")

    def unexpected(self) -> list[str]:
        return [e for e in self.errors if not any(x in e for x in self.expected)]


@pytest.fixture
def page(browser: Any, server: Server, screenshots: Path) -> Iterator[Page]:
    """A desktop page failing the test on a console error it did not expect."""
    opened = Page(browser, server, screenshots, DESKTOP)
    yield opened
    opened.context.close()
    assert not opened.unexpected(), opened.unexpected()
