"""Debian's Chromium as the browser tests and the web benches launch it (Playwright cannot
download its own browsers here)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

# As root in a sandbox-less container, with nothing that reaches for the network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

MISSING = "Chromium is needed: apt-get install chromium (Debian), or set RUMMIKUB_CHROMIUM to a Chromium binary"


def chromium_path() -> str | None:
    """The Chromium binary (``RUMMIKUB_CHROMIUM``, else Debian's), or None if there is none."""
    path = os.environ.get("RUMMIKUB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).exists() else None
