import pytest

from solver.wording import count, plural


@pytest.mark.parametrize(
    ("n", "noun", "expected"),
    [
        (0, "set", "0 sets"),
        (1, "set", "1 set"),
        (2, "set", "2 sets"),
        (1, "tile", "1 tile"),
        (7, "tile", "7 tiles"),
        (1, "table tile", "1 table tile"),
        (3, "table tile", "3 table tiles"),
        (2, "copy", "2 copies"),
        (1, "copy", "1 copy"),
        (-1, "point", "-1 points"),
    ],
)
def test_count(n: int, noun: str, expected: str) -> None:
    assert count(n, noun) == expected


def test_plural_without_the_number() -> None:
    assert plural("player", 1) == "player"
    assert plural("player", 4) == "players"
