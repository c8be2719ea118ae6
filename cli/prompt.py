"""The game's command prompt: line editing and history at a terminal, Ctrl-C drops the line.

At a terminal the line is read through GNU readline (the standard library's ``readline``: the
arrow keys edit the line, Up brings back the lines typed before); from a pipe or a test's
scripted input, line by line as given. Ctrl-C while typing drops the line and says how to leave;
a second Ctrl-C in a row leaves (KeyboardInterrupt, as any command ends on Ctrl-C).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import IO

import click

from cli.render import fit

DROPPED = "Ctrl-C: line dropped. Type 'quit' to leave the game, or press Ctrl-C again."


class Prompt:
    def __init__(self, stdin: IO[str], width: Callable[[], int] = lambda: 80) -> None:
        self.stdin = stdin
        self.width = width  # the columns a message may take, asked as it is printed
        self.terminal = stdin is sys.__stdin__ and stdin.isatty() and sys.stdout.isatty()
        if self.terminal:
            with contextlib.suppress(ImportError):  # a Python without it: plain lines still work
                import readline  # noqa: F401 - importing it gives input() editing and history
        self.interrupted = False  # the last prompt ended in Ctrl-C

    def read(self, prompt: Callable[[], str]) -> str | None:
        """The next line (without its end), or None at the end of the input; ``prompt`` is asked
        again for each try (a turn timer's seconds change)."""
        while True:
            try:
                line = self._read(prompt())
            except KeyboardInterrupt:
                click.echo("")
                if self.interrupted:
                    raise
                self.interrupted = True
                click.echo(fit(DROPPED, self.width()))
                continue
            self.interrupted = False
            return line

    def _read(self, prompt: str) -> str | None:
        if self.terminal:
            try:
                return input(prompt)
            except EOFError:
                return None
        click.echo(prompt, nl=False)
        line = self.stdin.readline()
        return line.rstrip("\n") if line else None
