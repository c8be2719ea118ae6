"""The console entry point, light on purpose: Ctrl-C while the program still loads (the solver's
imports take a tenth of a second) leaves as quietly as Ctrl-C later on."""

from __future__ import annotations

import sys

_EXIT_INTERRUPTED = 130  # cli.errors.EXIT_INTERRUPTED, not imported: that would load click first


def main() -> None:
    try:
        from cli.main import main as run
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        sys.exit(_EXIT_INTERRUPTED)
    run()
