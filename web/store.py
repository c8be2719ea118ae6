"""Where games and reviews are kept between requests and across restarts: a directory of files.

Each game (and each uploaded record under review) has a folder named by its id, an unguessable
``secrets.token_urlsafe`` string: knowing a game's address is what lets a page play it, so ids are
never listed, and a request's id is checked against the id alphabet before it comes near the
disk. Every file is written whole or not at all (a side file renamed into place), so a server
stopped at any moment leaves each file as it was or as it became. A folder untouched for
``keep_days`` is removed (on start-up and now and then after): an expired id is no longer found.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import time
from pathlib import Path

ID_BYTES = 18  # 24 characters of token_urlsafe: 144 random bits
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{24}")
KINDS = ("games", "reviews")
TOUCHED = "touched"  # a file in each folder whose modification time is the folder's last use


def default_directory() -> Path:
    """The user's data directory for the app: ``$XDG_DATA_HOME/rummikub`` or ``~/.local/share/rummikub``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rummikub"


class NotFound(Exception):
    """No such game or review here (never was, or expired)."""

    def message(self, kind: str) -> str:
        shown = str(self)[:40]
        return f"no {kind} {shown!r} here: it never was, or it expired"


class Store:
    """Folders of files by kind (``games``, ``reviews``) and id, under ``root``."""

    def __init__(self, root: Path, keep_days: float = 30.0) -> None:
        self.root = Path(root)
        self.keep_seconds = keep_days * 86400
        self._swept = 0.0
        for kind in KINDS:
            (self.root / kind).mkdir(parents=True, exist_ok=True)

    def create(self, kind: str) -> str:
        """A new, empty folder; its id."""
        while True:
            new = secrets.token_urlsafe(ID_BYTES)
            folder = self._folder(kind, new)
            try:
                folder.mkdir()
            except FileExistsError:  # 144 random bits: not in this universe, but never overwrite
                continue
            self.touch(kind, new)
            self.sweep()
            return new

    def exists(self, kind: str, key: str) -> bool:
        return ID_PATTERN.fullmatch(key) is not None and self._folder(kind, key).is_dir()

    def read(self, kind: str, key: str, name: str) -> str | None:
        """A file's text, None if there is no such file; NotFound if there is no such folder."""
        folder = self.folder(kind, key)
        try:
            return (folder / name).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def names(self, kind: str, key: str) -> list[str]:
        return sorted(p.name for p in self.folder(kind, key).iterdir() if not p.name.startswith("."))

    def write(self, kind: str, key: str, name: str, text: str) -> None:
        """Write a file whole: into a side file, renamed into place."""
        folder = self.folder(kind, key)
        side = folder / f".{name}.partial"
        try:
            side.write_text(text, encoding="utf-8")
            os.replace(side, folder / name)
        except BaseException:
            side.unlink(missing_ok=True)
            raise
        self.touch(kind, key)

    def touch(self, kind: str, key: str) -> None:
        (self._folder(kind, key) / TOUCHED).touch()

    def expires(self, kind: str, key: str) -> float:
        """When the folder expires (seconds since the epoch) if it is not used before."""
        return (self.folder(kind, key) / TOUCHED).stat().st_mtime + self.keep_seconds

    def folder(self, kind: str, key: str) -> Path:
        if not self.exists(kind, key):
            raise NotFound(key)
        return self._folder(kind, key)

    def _folder(self, kind: str, key: str) -> Path:
        if kind not in KINDS or ID_PATTERN.fullmatch(key) is None:
            raise NotFound(key)
        return self.root / kind / key

    def sweep(self, now: float | None = None) -> list[str]:
        """Remove the folders not used for ``keep_days`` (at most once an hour unless ``now`` is
        given); the ids removed."""
        current = time.time() if now is None else now
        if now is None and current - self._swept < 3600:
            return []
        self._swept = current
        gone = []
        for kind in KINDS:
            for folder in (self.root / kind).iterdir():
                try:
                    used = (folder / TOUCHED).stat().st_mtime
                except FileNotFoundError:
                    used = folder.stat().st_mtime
                if current - used > self.keep_seconds:
                    shutil.rmtree(folder, ignore_errors=True)
                    gone.append(folder.name)
        return gone
