"""The game's prompt: Ctrl-C drops the line being typed; a second Ctrl-C in a row leaves."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from cli.prompt import DROPPED, Prompt


class Typed(io.StringIO):
    """Lines as a person types them; None stands for a Ctrl-C."""

    def __init__(self, lines: list[str | None]) -> None:
        super().__init__()
        self.lines: Iterator[str | None] = iter(lines)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = next(self.lines, "")
        if line is None:
            raise KeyboardInterrupt
        return line


def test_ctrl_c_drops_the_line_and_the_prompt_comes_back(capsys: pytest.CaptureFixture[str]) -> None:
    prompt = Prompt(Typed([None, "draw\n", None, "quit\n"]))
    assert prompt.read(lambda: "> ") == "draw"
    assert prompt.read(lambda: "> ") == "quit"  # a line in between: the next Ctrl-C drops again
    assert capsys.readouterr().out == f"> \n{DROPPED}\n> > \n{DROPPED}\n> "


def test_ctrl_c_twice_in_a_row_leaves() -> None:
    prompt = Prompt(Typed([None, None]))
    with pytest.raises(KeyboardInterrupt):
        prompt.read(lambda: "> ")


def test_the_end_of_the_input_is_none() -> None:
    assert Prompt(Typed([])).read(lambda: "> ") is None
