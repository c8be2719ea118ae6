"""The sample sessions in README.md and docs/ are the program's real output, byte for byte.

Every fenced block holding ``$ command`` lines is replayed in a fresh folder (``puzzles/`` at hand,
as in a clone): each command runs in a shell, and what follows it up to the next ``$`` line is its
output, which must be what the program prints, byte for byte. ``$ cat FILE`` shows a file the
sample uses: the file is written with what the sample shows.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

FENCE = re.compile(r"^```[a-z]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def sessions(path: Path) -> list[list[tuple[str, list[str]]]]:
    """Each fenced block with ``$`` lines: its commands, each with the output shown under it."""
    found = []
    for block in FENCE.findall(path.read_text(encoding="utf-8")):
        lines = block.splitlines()
        if not lines or not lines[0].startswith("$ "):
            continue
        commands: list[tuple[str, list[str]]] = []
        for line in lines:
            if line.startswith("$ "):
                commands.append((line[2:], []))
            else:
                commands[-1][1].append(line)
        found.append(commands)
    return found


DOCUMENTS = [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))] if sessions(p)]


def test_the_readme_shows_sessions() -> None:
    assert ROOT / "README.md" in DOCUMENTS


@pytest.mark.parametrize("path", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_samples_are_the_programs_output(path: Path, tmp_path: Path) -> None:
    blocks = sessions(path)
    (tmp_path / "puzzles").symlink_to(ROOT / "puzzles")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("NO_COLOR", None)
    for commands in blocks:
        for command, expected in commands:
            cat = re.fullmatch(r"cat (\S+)", command)
            if cat and not (tmp_path / cat.group(1)).exists():
                (tmp_path / cat.group(1)).write_text("".join(line + "\n" for line in expected))
            done = subprocess.run(
                command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
            )
            assert "Traceback" not in done.stderr, done.stderr
            assert done.stdout == "".join(line + "\n" for line in expected), f"{path.name}: `{command}`"


def examples(command: str) -> list[str]:
    """Every line of a fenced block in the docs that runs ``rummikub COMMAND`` (no output shown)."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in FENCE.findall(path.read_text(encoding="utf-8")):
            found += [line for line in block.splitlines() if line.startswith(f"rummikub {command} ")]
    return found


@pytest.mark.parametrize("line", examples("selfplay"))
def test_selfplay_examples_finish_in_seconds(line: str, tmp_path: Path) -> None:
    """An example a newcomer copies must not run for half an hour: each finishes well within a minute."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
