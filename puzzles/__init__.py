"""Example positions and puzzles, shipped inside the installed package (position file format)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def puzzle_dir() -> Path:
    """The folder holding the bundled position files (works from a wheel or a checkout)."""
    return Path(str(resources.files(__name__)))
