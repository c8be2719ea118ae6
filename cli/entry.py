"""The console entry point, light on purpose: Ctrl-C while the program still loads (the solver's
imports take a tenth of a second) leaves as quietly as Ctrl-C later on."""

from __future__ import annotations

import os
import sys

_EXIT_INTERRUPTED = 130  # cli.errors.EXIT_INTERRUPTED, not imported: that would load click first


def main() -> None:
    # One thread for the numeric libraries, before numpy loads: the solver's small matrix products
    # round differently on more threads, which picked another of equal answers (a generated
    # puzzle's file differed from a Dask worker's, whose nanny sets one thread); and one thread
    # is no slower on matrices this size.
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    try:
        from cli.main import main as run
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        sys.exit(_EXIT_INTERRUPTED)
    run()
