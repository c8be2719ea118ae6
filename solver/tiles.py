"""Tiles and their notation: ``R7`` (colour letter + number), ``J`` (joker), shorthands.

Colours are K black, B blue, R red, O orange (then G P W C for games with more colours).
Input is case-insensitive; output is always canonical (``R7``, ``J``). Shorthands expand to
several tiles: ``R4-7`` (or ``R4-R7``) is the run R4 R5 R6 R7, ``KBR7`` the group K7 B7 R7.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from itertools import groupby

from solver.errors import NotationError
from solver.rules import COLOUR_LETTERS, RuleSet, Wrap

JOKER_COLOUR = 99  # sorts after every colour, so jokers come last in sorted tiles


class TileSyntaxError(NotationError):
    """A token that is not a tile; keeps the token and the reason apart so callers can add where."""

    def __init__(self, token: str, reason: str, what: str = "tile") -> None:
        self.token = token
        self.reason = reason
        self.what = what
        super().__init__(f"invalid {what} {token!r}: {reason}")

    def located(self, where: str) -> str:
        """The message with a location: ``invalid tile 'R14' in rack file r.txt line 2: …``."""
        return f"invalid {self.what} {self.token!r} in {where}: {self.reason}"


_NAMES: dict[int, str] = {}


class Tile(int):
    """One tile: a colour index (0 = K, 1 = B, …) and a number, or the joker.

    An int underneath (``colour * 64 + number``), so that hashing, comparing and sorting tiles,
    which every hot loop does, run at C speed; the order is colour-major, jokers last.
    """

    __slots__ = ()

    def __new__(cls, colour: int, number: int) -> Tile:
        return super().__new__(cls, colour * 64 + number)

    def __getnewargs__(self) -> tuple[int, int]:  # type: ignore[override]
        return (self.colour, self.number)  # pickling (worker processes) rebuilds from both

    @property
    def colour(self) -> int:
        return self >> 6

    @property
    def number(self) -> int:
        return self & 63

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    @property
    def is_joker(self) -> bool:
        return self >> 6 == JOKER_COLOUR

    @property
    def letter(self) -> str:
        return "J" if self.is_joker else COLOUR_LETTERS[self.colour]

    def __str__(self) -> str:
        name = _NAMES.get(self)
        if name is None:  # first time: every answer prints the same few dozen tiles again and again
            name = _NAMES[int(self)] = "J" if self.is_joker else f"{COLOUR_LETTERS[self.colour]}{self.number}"
        return name

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"

    def index(self, rules: RuleSet) -> int:
        """Dense index for models: numbered tiles colour-major, the joker last."""
        colour = self >> 6  # the properties inlined: models index tiles by the thousand
        if colour == JOKER_COLOUR:
            return rules.joker_index
        return colour * rules.numbers + (self & 63) - 1

    @staticmethod
    def from_index(index: int, rules: RuleSet) -> Tile:
        if index == rules.joker_index:
            return JOKER
        return tile(index // rules.numbers, index % rules.numbers + 1)

    @staticmethod
    def parse(token: str, rules: RuleSet | None = None) -> Tile:
        """One tile (no shorthand). Raises TileSyntaxError naming the token and the problem."""
        tiles = parse_token(token, rules)
        if len(tiles) != 1:
            raise TileSyntaxError(token, "a shorthand for several tiles where one tile is expected")
        return tiles[0]


@cache
def tile(colour: int, number: int) -> Tile:
    """Interned constructor: tiles are compared and hashed a lot in the hot paths."""
    return Tile(colour, number)


JOKER = Tile(JOKER_COLOUR, 0)
STANDARD = RuleSet()

_TOKEN = re.compile(r"^([A-Z]+)([0-9]+)(?:-([A-Z]?)([0-9]+))?$")  # ASCII digits only
_MAX_TOKEN = 40


def parse_token(token: str, rules: RuleSet | None = None) -> list[Tile]:
    """A token to the tiles it stands for: ``R7`` → [R7], ``R4-6`` → [R4, R5, R6], ``KB7`` → [K7, B7]."""
    rules = rules or STANDARD
    return list(_parse_token(token, rules))


@lru_cache(maxsize=4096)
def _parse_token(token: str, rules: RuleSet) -> tuple[Tile, ...]:
    text = token.strip().upper()
    shown = token if len(token) <= _MAX_TOKEN else token[:_MAX_TOKEN] + "…"
    if text in ("J", "JOKER"):
        if rules.jokers == 0:
            raise TileSyntaxError(shown, "these rules have no jokers (rule jokers=0)")
        return (JOKER,)
    letters_ok = " ".join(rules.colour_letters)
    match = _TOKEN.match(text)
    if match is None:
        if (
            text.isalpha()
            and len(text) <= len(COLOUR_LETTERS)
            and all(c in rules.colour_letters for c in text)
        ):
            raise TileSyntaxError(shown, f"missing number after colour {text}")
        if text.isascii() and text.isdigit():
            raise TileSyntaxError(shown, f"missing colour before {text} (colours are {letters_ok})")
        if text.startswith("J") and text[1:].isascii() and text[1:].isdigit():
            raise TileSyntaxError(shown, "a joker is written J, without a number")
        return _raise_not_a_tile(shown, letters_ok)
    letters, first, end_letter, last = match.groups()
    for letter in letters:
        if letter == "J":
            raise TileSyntaxError(shown, "a joker is written J, without a number")
        if letter not in rules.colour_letters:
            raise TileSyntaxError(shown, f"unknown colour {letter!r} (colours are {letters_ok})")
    low = _number(shown, first, rules)
    if last is None:
        if len(set(letters)) != len(letters):
            raise TileSyntaxError(shown, "a colour repeats in the group shorthand")
        return tuple(tile(COLOUR_LETTERS.index(c), low) for c in letters)
    if len(letters) != 1:
        raise TileSyntaxError(shown, "a run shorthand has one colour (write R4-7)")
    if end_letter and end_letter != letters:
        raise TileSyntaxError(shown, "a run shorthand has one colour at both ends (write R4-R7)")
    high = _number(shown, last, rules)
    colour = COLOUR_LETTERS.index(letters)
    if high >= low:
        return tuple(tile(colour, n) for n in range(low, high + 1))
    if rules.wrap is Wrap.NONE:
        said = f"runs do not wrap past {rules.numbers} (rule wrap=none)"
        if low - high + 1 < rules.numbers - low + 1 + high:  # shorter written backwards than wrapped
            said += f"; a run from {letters}{high} to {letters}{low} is written {letters}{high}-{low}"
        raise TileSyntaxError(shown, said)
    if rules.wrap is Wrap.AMERICAN and high != 1:
        raise TileSyntaxError(shown, f"only a 1 may follow {rules.numbers} (rule wrap=american)")
    numbers = list(range(low, rules.numbers + 1)) + list(range(1, high + 1))
    return tuple(tile(colour, n) for n in numbers)


def _raise_not_a_tile(shown: str, letters_ok: str) -> tuple[Tile, ...]:
    raise TileSyntaxError(shown, f"not a tile (write a colour {letters_ok} and a number, like R7, or J)")


def _number(shown: str, digits: str, rules: RuleSet) -> int:
    value = int(digits[:6])
    if len(digits) > 6 or not 1 <= value <= rules.numbers:
        raise TileSyntaxError(shown, f"numbers run 1..{rules.numbers}")
    return value


def format_tiles(tiles: Iterable[Tile]) -> str:
    return " ".join(str(t) for t in tiles)


def format_counted(tiles: Iterable[Tile], text: Callable[[Tile], str] = str, at_most: int = 3) -> str:
    """``format_tiles``, but a tile repeated more than ``at_most`` times in a row is written once
    with its count (``B8 ×30``): a message about a file holding a tile thousands of times stays a
    line. ``text`` writes one tile (a terminal's colours, say)."""
    return " ".join(_counted(text(t), len(list(run)), at_most) for t, run in groupby(tiles))


def _counted(text: str, n: int, at_most: int) -> str:
    return f"{text} ×{n}" if n > at_most else " ".join([text] * n)


def table_as_lists(table: Iterable[Iterable[Tile]]) -> list[list[str]]:
    """A table as JSON writes it: each set a list of its tiles' names."""
    return [[str(t) for t in s] for s in table]


def tile_points(t: Tile, rules: RuleSet) -> int:
    """A tile's value for the points objective: its number, a joker ``rules.joker_penalty``."""
    return rules.joker_penalty if t.is_joker else t.number


def points(tiles: Iterable[Tile], rules: RuleSet) -> int:
    """The points-objective value of several tiles."""
    return sum(tile_points(t, rules) for t in tiles)


def full_pool(rules: RuleSet) -> list[Tile]:
    """Every tile of the game (numbers × colours × copies, then the jokers), in a fixed order."""
    tiles = [tile(c, n) for c in range(rules.colours) for n in range(1, rules.numbers + 1)]
    return tiles * rules.copies + [JOKER] * rules.jokers
