"""Where the tests' data lives, wherever a test module sits in the tree."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
ROOT = TESTS.parent
