"""`rummikub serve`: its options, a busy port in one line, the browser opened on request."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from cli import serve_commands
from cli.main import cli
from tests.interrupt import COMMAND


def test_help_names_every_option() -> None:
    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--open", "--time-limit", "--jobs", "--games-dir", "--keep-days"):
        assert option in result.stdout
    assert "Start the web app" in result.stdout


def test_a_busy_port_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--port", str(port)])
    assert result.exit_code == 1
    assert result.stderr == f"Error: cannot listen on 127.0.0.1 port {port}: Address already in use\n"


@pytest.mark.parametrize(("found", "said"), [(True, ""), (False, "No web browser found here: open http://x/ in one.\n")])
def test_open_asks_for_a_browser_once_the_server_answers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], found: bool, said: str
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(serve_commands.webbrowser, "open", lambda url: opened.append(url) or found)
    serve_commands._announce(SimpleNamespace(started=True), "http://x/", True)
    out, err = capsys.readouterr()
    assert out == "Serving the rummikub web app at http://x/ (Ctrl-C to stop)\n"
    assert opened == ["http://x/"] and err == said


def test_the_listening_socket_says_it_is_tcp() -> None:
    """asyncio turns Nagle's algorithm off only on sockets whose protocol is IPPROTO_TCP; a socket
    left at protocol 0 made every response after a connection's first wait 40 ms."""
    listener = serve_commands._listen("127.0.0.1", 0)
    try:
        assert listener.proto == socket.IPPROTO_TCP
    finally:
        listener.close()


def test_a_games_folder_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(cli, ["serve", "--port", "0", "--games-dir", str(blocker / "games")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: cannot keep games in {blocker / 'games'}: Not a directory\n"
    itself = CliRunner().invoke(cli, ["serve", "--port", "0", "--games-dir", str(blocker)])
    assert itself.exit_code == 1
    assert itself.stderr == f"Error: cannot keep games in {blocker}: it is a file, not a folder\n"


class FakeProbe:
    """A UDP socket whose connect finds this address, or fails (no network)."""

    address: str | None = None

    def __init__(self, *args: object) -> None:
        pass

    def connect(self, target: tuple[str, int]) -> None:
        if self.address is None:
            raise OSError("Network is unreachable")

    def getsockname(self) -> tuple[str, int]:
        assert self.address is not None
        return (self.address, 40000)

    def close(self) -> None:
        pass


@pytest.mark.parametrize(("address", "found"), [("192.168.1.20", "192.168.1.20"), (None, None), ("127.0.0.1", None)])
def test_the_network_address_for_other_devices(monkeypatch: pytest.MonkeyPatch, address: str | None, found: str | None) -> None:
    """With --host 0.0.0.0, serve names the address other devices reach (a game's seat links need
    it); none when this computer has no network."""
    monkeypatch.setattr(FakeProbe, "address", address)
    monkeypatch.setattr(serve_commands.socket, "socket", FakeProbe)
    assert serve_commands._network_address() == found


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("after", [0.0, 0.15, 0.3, 0.6])
def test_ctrl_c_while_the_solver_processes_start_is_interrupted(tmp_path: Path, after: float) -> None:
    """Ctrl-C reaches the whole process group; the workers, spawned while the server starts, used to
    die of it in their imports (tracebacks, "Application startup failed", exit 3)."""
    process = subprocess.Popen(
        [*COMMAND, "serve", "--port", "0", "--jobs", "2", "--games-dir", str(tmp_path / "games")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not _children(process.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(after)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert (process.returncode, err.decode().strip()) == (130, "Interrupted.")


def test_sigint_stops_a_server_started_with_sigint_ignored_as_interrupted(tmp_path: Path) -> None:
    """A background job of a script starts with SIGINT ignored; `kill -INT` still stops the
    server, and it said nothing and exited 0 (docs/web.md: Ctrl-C stops it, exit status 130)."""
    process = subprocess.Popen(
        [*COMMAND, "serve", "--port", "0", "--jobs", "1", "--games-dir", str(tmp_path / "games")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert process.stdout is not None
    assert process.stdout.readline().startswith(b"Serving the rummikub web app at ")
    os.kill(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err.decode().strip()) == (130, "Interrupted.")


def test_jobs_has_the_bound_of_every_command() -> None:
    result = CliRunner().invoke(cli, ["serve", "--jobs", "100000", "--port", "0"])
    assert result.exit_code == 2 and "100000 is not in the range 0<=x<=256" in result.stderr
