"""``rummikub serve``: start the web app (parse the options, open the socket, run the server)."""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import threading
import time
import webbrowser
from pathlib import Path

import click

from cli.errors import EXIT_BAD_INPUT, fail
from cli.options import MAX_JOBS, FiniteRange, OutputPath
from solver.file_io import os_reason


@click.command("serve", short_help="Start the web app: board, puzzles, games, reviews, scores.")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (127.0.0.1: this computer only; 0.0.0.0: every network it is on).",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port (0: any free port)."
)
@click.option("--open", "open_browser", is_flag=True, help="Open the analysis board in a web browser.")
@click.option(
    "--time-limit",
    type=FiniteRange(min=0.1, max=600),
    default=10.0,
    show_default=True,
    help="Seconds for each search of a request (a request may ask for less, never more).",
)
@click.option(
    "--jobs",
    type=click.IntRange(0, MAX_JOBS),
    default=0,
    show_default=True,
    help="Solver processes (0: one per CPU).",
)
@click.option(
    "--games-dir",
    type=OutputPath("folder"),
    default=None,
    help="Where games and reviews are kept across restarts (default: ~/.local/share/rummikub/games,"
    " or under $XDG_DATA_HOME).",
)
@click.option(
    "--keep-days",
    type=FiniteRange(min=0.01, max=3650),
    default=30.0,
    show_default=True,
    help="Days a game or review is kept after it was last used.",
)
def serve(
    host: str,
    port: int,
    open_browser: bool,
    time_limit: float,
    jobs: int,
    games_dir: str | None,
    keep_days: float,
) -> None:
    """Start the web app: an analysis board, a puzzle trainer, games against the AI players, game
    reviews, a score sheet, and the JSON API behind them.

    Everything is served from this package (no network needed); docs/web-api.md describes the API.
    Stop it with Ctrl-C.
    """
    import uvicorn

    from web.app import create_app
    from web.limits import Limits

    limits = Limits(time_limit=time_limit, workers=jobs or os.cpu_count() or 1)
    try:
        listener = _listen(host, port)
    except OSError as err:  # a busy port, an address this computer does not have
        raise fail(f"cannot listen on {host} port {port}: {err.strerror or err}", EXIT_BAD_INPUT) from None
    bound = listener.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{bound}/"
    if not _loopback(host):
        click.echo(
            f"Note: listening on {host}: anyone who can reach this computer can use the app.", err=True
        )
        address = _network_address() if host in ("0.0.0.0", "::") else None
        if address is not None:  # what a game's links for other devices should name
            click.echo(f"Other devices on your network: http://{address}:{bound}/", err=True)
    if games_dir and Path(games_dir).exists() and not Path(games_dir).is_dir():
        listener.close()
        raise fail(f"cannot keep games in {games_dir}: it is a file, not a folder", EXIT_BAD_INPUT)
    try:
        app = create_app(limits, games_dir=Path(games_dir) if games_dir else None, keep_days=keep_days)
    except OSError as err:  # a games directory that cannot be made or written
        listener.close()
        folder = games_dir or err.filename
        raise fail(f"cannot keep games in {folder}: {os_reason(err, writing=True)}", EXIT_BAD_INPUT) from None
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    threading.Thread(target=_announce, args=(server, url, open_browser), daemon=True).start()
    server.run(sockets=[listener])
    # uvicorn stops on Ctrl-C and raises it again once stopped; where SIGINT was ignored when the
    # program started (a background job of a script), that does nothing: still Ctrl-C's status.
    if signal.SIGINT in getattr(server, "_captured_signals", ()):
        raise KeyboardInterrupt


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, opened here so that a busy port is one line, not a server log."""
    # IPPROTO_TCP named, not left 0: asyncio turns Nagle's algorithm off only on sockets that say
    # they are TCP, and with it on every response after the first on a connection waited 40 ms
    # for a delayed ACK (bench/results/web.md).
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except OSError:
        listener.close()
        raise
    return listener


def _network_address() -> str | None:
    """This computer's address on its network (the one its outgoing traffic would leave from),
    or None if it has none."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # a documentation address: a UDP connect sends nothing
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return None if address == "0.0.0.0" or ipaddress.ip_address(address).is_loopback else address


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _announce(server: object, url: str, open_browser: bool) -> None:
    """Once the server answers: say where, and open the browser if asked."""
    while not getattr(server, "started", False):
        if getattr(server, "should_exit", False):
            return
        time.sleep(0.05)
    click.echo(f"Serving the rummikub web app at {url} (Ctrl-C to stop)")
    if open_browser and not webbrowser.open(url):
        click.echo(f"No web browser found here: open {url} in one.", err=True)
