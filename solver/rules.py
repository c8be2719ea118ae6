"""The rule object: every variant that matters for one turn, immutable, checked on creation."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

from solver.errors import RulesError
from solver.wording import count, json_text

# The notation has one letter per colour; more colours than letters cannot be written down.
COLOUR_LETTERS = "KBROGPWC"
COLOUR_NAMES = ("black", "blue", "red", "orange", "green", "purple", "white", "cyan")
MAX_NUMBERS = 40
MAX_COPIES = 8
MAX_JOKERS = 8


class Wrap(StrEnum):
    """Whether runs may continue past the highest number."""

    NONE = "none"  # 1 is always the lowest: 12-13-1 is invalid
    AMERICAN = "american"  # a 1 may follow 13 at the end of a run (12-13-1), nothing after it
    FULL = "full"  # runs wrap around freely (12-13-1-2)


class JokerRules(StrEnum):
    """What may happen to a joker already on the table (docs/rules.md, "Jokers on the table")."""

    FREE = "free"  # a table joker moves like any tile (the plain tile-count model)
    STRICT = "strict"  # it keeps standing for its tile until that tile retrieves it
    LOCKED = "locked"  # strict, and its set may only grow until the joker is retrieved


class Retrieval(StrEnum):
    """What a player must do with a joker retrieved from the table (strict and locked rules)."""

    OFFICIAL = "official"  # play it in a new set holding at least two rack tiles
    CLUB = "club"  # play at least one rack tile that turn (the club sheet)


@dataclass(frozen=True, slots=True, eq=False)
class RuleSet:
    """One turn's rules. Defaults are the standard game (see docs/rules.md)."""

    numbers: int = 13
    colours: int = 4
    copies: int = 2
    jokers: int = 2
    min_set_size: int = 3
    meld_threshold: int = 30
    joker_in_meld: bool = False
    continue_after_meld: bool = False
    wrap: Wrap = Wrap.NONE
    joker_penalty: int = 30  # a joker's value for the points objective (left on a rack it costs this)
    joker_rules: JokerRules = JokerRules.FREE
    joker_retrieval: Retrieval = Retrieval.OFFICIAL
    # Rule objects key every cache (set readings, parsed tokens): hash them once, and keep the
    # values to compare (equal rule objects from different files meet in every cache lookup).
    _hash: int = dataclasses.field(init=False, repr=False, compare=False, default=0)
    _key: tuple[object, ...] = dataclasses.field(init=False, repr=False, compare=False, default=())

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, RuleSet):
            return NotImplemented
        return self._hash == other._hash and self._key == other._key

    def __reduce__(self) -> tuple[type[RuleSet], tuple[object, ...]]:
        # Rebuilt from its values where it is unpickled: a string's hash differs from process to
        # process (a spawned Dask worker's is not the client's), so a pickled _hash would be stale.
        return RuleSet, self._values()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.init)

    def __post_init__(self) -> None:
        def bad(field: str, value: object, why: str) -> RulesError:  # named as the options spell it
            return RulesError(f"invalid rule {field.replace('_', '-')}={value!r}: {why}")

        for field, low, high in (
            ("numbers", 2, MAX_NUMBERS),
            ("colours", 1, len(COLOUR_LETTERS)),
            ("copies", 1, MAX_COPIES),
            ("jokers", 0, MAX_JOKERS),
            ("min_set_size", 2, MAX_NUMBERS),
            ("meld_threshold", 0, 10_000),
            ("joker_penalty", 0, 10_000),
        ):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int):
                raise bad(field, value, "must be a whole number")
            if not low <= value <= high:
                option = field.replace("_", "-")
                raise RulesError(f"invalid rule {option}={value}: must be between {low} and {high}", option, value)
        for field in ("joker_in_meld", "continue_after_meld"):
            if not isinstance(getattr(self, field), bool):
                raise bad(field, getattr(self, field), "must be true or false")
        if not isinstance(self.wrap, Wrap):
            try:
                object.__setattr__(self, "wrap", Wrap(self.wrap))
            except ValueError:
                raise bad("wrap", self.wrap, "must be none, american or full") from None
        for field, enum, words in (
            ("joker_rules", JokerRules, "free, strict or locked"),
            ("joker_retrieval", Retrieval, "official or club"),
        ):
            if not isinstance(getattr(self, field), enum):
                try:
                    object.__setattr__(self, field, enum(getattr(self, field)))
                except ValueError:
                    raise bad(field, getattr(self, field), f"must be {words}") from None
        if self.min_set_size > self.numbers and self.min_set_size > self.colours:
            raise bad(
                "min_set_size",
                self.min_set_size,
                f"no run ({count(self.numbers, 'number')}) or group ({count(self.colours, 'colour')}) can be that long",
            )
        object.__setattr__(self, "_key", self._values())
        object.__setattr__(self, "_hash", hash(self._key))

    @property
    def max_run_length(self) -> int:
        """Longest run the set enumeration needs: longer runs split into shorter valid ones.

        A run of length L can be cut into two runs of at least ``min_set_size`` that each keep a
        numbered tile whenever L >= 2*min and L >= jokers+min+1 and L >= 2*jokers+2, so every run
        longer than the returned length splits without loss.
        """
        m, j = self.min_set_size, self.jokers
        return min(self.numbers, max(2 * m - 1, j + m, 2 * j + 1))

    @property
    def tile_count(self) -> int:
        """Tiles in the game: numbers × colours × copies, plus the jokers."""
        return self.numbers * self.colours * self.copies + self.jokers

    @property
    def joker_index(self) -> int:
        """The joker's dense index in the models: after every numbered tile, colour-major."""
        return self.colours * self.numbers

    @property
    def groups_possible(self) -> bool:
        return self.min_set_size <= self.colours

    @property
    def colour_letters(self) -> str:
        return COLOUR_LETTERS[: self.colours]

    def replace(self, **changes: Any) -> RuleSet:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Option names as the CLI and position files spell them (hyphenated)."""
        return {
            "numbers": self.numbers,
            "colours": self.colours,
            "copies": self.copies,
            "jokers": self.jokers,
            "min-set-size": self.min_set_size,
            "meld-threshold": self.meld_threshold,
            "joker-in-meld": self.joker_in_meld,
            "continue-after-meld": self.continue_after_meld,
            "wrap": self.wrap.value,
            "joker-penalty": self.joker_penalty,
            "joker-rules": self.joker_rules.value,
            "joker-retrieval": self.joker_retrieval.value,
        }

    def describe(self) -> str:
        """Only the fields that differ from the standard rules, as ``key=value`` words."""
        default = RuleSet().to_dict()
        words = [
            f"{key}={_format_value(value)}" for key, value in self.to_dict().items() if default[key] != value
        ]
        return " ".join(words) if words else "standard"

    @classmethod
    def from_options(cls, options: Mapping[str, object], base: RuleSet | None = None) -> RuleSet:
        """Build from ``{"min-set-size": 3, ...}`` (hyphens or underscores, values as text or typed).

        Unknown keys and unreadable values raise RulesError naming the key. Equal requests give
        the same object (batch lines and game turns rebuild the same rules again and again; one
        object makes every cache lookup keyed by rules an identity check).
        """
        try:
            # Keyed with each value's type too: True == 1 and 1.0 == 1, but only 1 is a count.
            return _built(tuple((k, type(v), v) for k, v in options.items()), base)
        except TypeError:  # an unhashable value (a list from JSON): refused below with its name
            return cls._build(options, base)

    @classmethod
    def from_json(cls, options: Mapping[str, object], base: RuleSet | None = None) -> RuleSet:
        """As ``from_options``, for a JSON object of rules: each value of its JSON type (a number
        for a count, true or false for a yes-or-no rule, a string for a choice), so that a file's
        ``"numbers": "13"`` or ``"joker-in-meld": "no"`` is refused, not read as text."""
        kinds = {f.name: str(f.type) for f in dataclasses.fields(cls) if f.init}
        for raw_key, value in options.items():
            key = raw_key.strip().lower().replace("-", "_") if isinstance(raw_key, str) else ""
            kind = kinds.get("colours" if key == "colors" else key)
            said = f"invalid rule {key.replace('_', '-')}={json_text(value)}"  # the key as the rules name it
            if kind == "int" and (type(value) is not int):
                raise RulesError(f"{said}: must be a whole number, such as 13")
            if kind == "bool" and type(value) is not bool:
                raise RulesError(f"{said}: must be true or false")
            if kind not in (None, "int", "bool") and not isinstance(value, str):
                raise RulesError(f'{said}: must be a string, such as "none"')
        return cls.from_options(options, base)

    @classmethod
    def _build(cls, options: Mapping[str, object], base: RuleSet | None) -> RuleSet:
        fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
        changes: dict[str, Any] = {}
        for raw_key, raw_value in options.items():
            key = raw_key.strip().lower().replace("-", "_")
            if key == "colors":
                key = "colours"
            if key not in fields:
                known = ", ".join(k.replace("_", "-") for k in fields)
                raise RulesError(f"unknown rule {raw_key!r}: known rules are {known}")
            if key in changes:  # wrap and WRAP, min-set-size and min_set_size, colours and colors
                raise RulesError(f"rule {raw_key!r} given twice (as {key.replace('_', '-')!r})")
            kind = fields[key].type
            changes[key] = _coerce(key.replace("_", "-"), raw_value, str(kind))
        return dataclasses.replace(base or cls(), **changes)


@lru_cache(maxsize=1024)
def _built(items: tuple[tuple[str, type, object], ...], base: RuleSet | None) -> RuleSet:
    return RuleSet._build({key: value for key, _, value in items}, base)


_TRUE = {"yes", "true", "on", "1", "y"}
_FALSE = {"no", "false", "off", "0", "n"}


def _format_value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _coerce(key: str, value: object, kind: str) -> object:
    if kind == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise RulesError(f"invalid rule {key}={value!r}: must be yes or no")
    if kind == "int":
        if isinstance(value, bool):
            raise RulesError(f"invalid rule {key}={value!r}: must be a whole number")
        if isinstance(value, int):
            return value
        text = str(value).strip()
        if not re.fullmatch(r"[+-]?[0-9]+", text):  # int() would take '1_3' and other scripts' digits
            raise RulesError(f"invalid rule {key}={value!r}: must be a whole number")
        if len(text) > 18:  # far past every rule's range (and past what int() reads of a string)
            raise RulesError(f"invalid rule {key}={text[:20]}…: far too large")
        return int(text)
    if kind == "Wrap":
        try:
            return Wrap(str(value).strip().lower())
        except ValueError:
            raise RulesError(f"invalid rule {key}={value!r}: must be none, american or full") from None
    if kind in ("JokerRules", "Retrieval"):
        enum: type[StrEnum] = JokerRules if kind == "JokerRules" else Retrieval
        try:
            return enum(str(value).strip().lower())
        except ValueError:
            words = " or ".join(e.value for e in enum)
            raise RulesError(f"invalid rule {key}={value!r}: must be {words}") from None
    raise AssertionError(f"no coercion for {kind}")  # pragma: no cover
